//! P002 provider-rejects: a native projection that a provider's API would refuse.

use std::collections::{BTreeMap, BTreeSet};

use crate::code::{Level, RuleCode};
use crate::diagnostic::Diagnostic;
use crate::lint::registry::Rule;
use crate::lint::{finding, CellView};
use crate::model::profile::Role;
use crate::model::provider::Provider;
use crate::model::transport::Transport;
use crate::model::Project;
use crate::projection::{self, ProjectionOptions};

pub const RULE: Rule = Rule {
    code: RuleCode::P002,
    name: "provider-rejects",
    default: Level::Deny,
    summary: "a provider's API would reject the tool projection",
    explain: "A native projection breaks a limit of a provider's API: more than 128 tools in one request (OpenAI Chat \
        and Responses, Gemini), a tool description over 1,024 characters (OpenAI Chat and Responses), a name outside a provider's \
        rule (Gemini: a function name starts with a letter or `_`; Anthropic: top-level property keys are letters, \
        digits, `_`, `.` or `-`, at most 64), a `provider_fields` key its SDK does not declare, or a schema Gemini's \
        OpenAPI subset refuses (an object without properties, an array without `items`, a node without a type); a \
        schema Anthropic refuses as not JSON Schema 2020-12 (`items` as a list, a boolean `exclusiveMinimum`: its \
        error \"JSON schema is invalid. It must match JSON Schema draft 2020-12\"), a `$ref` with sibling keywords in \
        OpenAI strict mode (\"$ref cannot have keywords\"), an MCP tool field set to `null` (the specification's \
        `Tool` declares them optional, not nullable; Python SDK dumps write them). And the \
        harness messages once those whose sections all render empty are left out: a list that starts with the \
        assistant's (Anthropic takes the user's first), or none at all where the profile declares some (Anthropic's \
        `messages` and Gemini's `contents` must not be empty). The request fails at runtime.\n\nFix: shorten the \
        description (use a per-profile override), or split tools across profiles; give a user message a section \
        that renders in every cell.",
};

/// Too many tools in one request, or a description over a provider's limit.
pub(crate) fn check(project: &Project, views: &[CellView], out: &mut Vec<Diagnostic>) {
    let limited: Vec<(Provider, usize)> =
        project.providers.iter().filter_map(|p| p.info().max_tools.map(|n| (*p, n))).collect();
    let described: Vec<(Provider, usize)> =
        project.providers.iter().filter_map(|p| p.info().max_description_chars.map(|n| (*p, n))).collect();
    // Tool → (length, the providers' limit, rejecting providers, profiles and cells that send it).
    type Long<'a> = (usize, usize, Vec<&'a str>, BTreeSet<String>, Vec<String>);
    let mut long: BTreeMap<String, Long<'_>> = BTreeMap::new();
    for v in views.iter().filter(|v| v.cell.transport == Transport::Native) {
        let n = v.compiled.tools.len();
        let over: Vec<&str> = limited.iter().filter(|(_, max)| n > *max).map(|(p, _)| p.as_str()).collect();
        if let Some(max) = limited.iter().filter(|(_, max)| n > *max).map(|(_, m)| *m).min() {
            out.push(
                finding(
                    RuleCode::P002,
                    format!("cell `{}` sends {n} tools; {} accept at most {max}", v.cell.stem(), over.join(", ")),
                )
                .with_label(v.profile_label(project))
                .with_help("split the tools across profiles, or exclude some"),
            );
        }
        for t in &v.compiled.tools {
            // The description as the tools JSON sends it (with `descriptions: verbatim`, its
            // trailing whitespace too).
            let len = t.description.chars().count();
            let rejecting: Vec<&str> =
                described.iter().filter(|(_, max)| len > *max).map(|(p, _)| p.as_str()).collect();
            let Some(max) = described.iter().filter(|(_, max)| len > *max).map(|(_, m)| *m).min() else { continue };
            let entry =
                long.entry(t.name.clone()).or_insert_with(|| (len, max, rejecting, BTreeSet::new(), Vec::new()));
            entry.0 = entry.0.max(len);
            entry.3.insert(v.cell.profile.clone());
            let stem = v.cell.stem();
            if !entry.4.contains(&stem) {
                entry.4.push(stem);
            }
        }
    }
    names(project, views, out);
    messages(project, views, out);
    for (tool, (len, max, rejecting, profiles, cells)) in long {
        let profiles: Vec<String> = profiles.iter().map(|p| format!("`{p}`")).collect();
        let plural = if profiles.len() == 1 { "" } else { "s" };
        // A variant's name is not the catalog's: name the tool it belongs to.
        let owner = project.catalog.get(&tool).map(|t| t.name.clone()).or_else(|| {
            let shows = |t: &&crate::model::catalog::Tool| t.variants.iter().any(|v| v.name.as_deref() == Some(&tool));
            project.catalog.tools().iter().find(shows).map(|t| t.name.clone())
        });
        let what = match &owner {
            Some(o) if *o != tool => format!("tool `{tool}` (a variant of `{o}`)"),
            _ => format!("tool `{tool}`"),
        };
        out.push(
            finding(
                RuleCode::P002,
                format!(
                    "{what} has a {}-character description in profile{plural} {}; {} {} more than {}",
                    group_digits(len),
                    profiles.join(", "),
                    rejecting.join(", "),
                    if rejecting.len() == 1 { "rejects" } else { "reject" },
                    group_digits(max)
                ),
            )
            .with_label(tool_label(project, owner.as_deref().unwrap_or(&tool)))
            .with_note(format!("cells: {}", cells.join(", ")))
            .with_help(
                "shorten it, or give the profile a shorter `overrides:` description; if the profile is never sent to \
                 these providers, allow P002 for it alone (`check.profile_levels`)",
            ),
        );
    }
}

/// Tool and top-level parameter names an enabled provider's rule refuses: one finding per
/// tool, naming each rule broken and the providers that refuse.
fn names(project: &Project, views: &[CellView], out: &mut Vec<Diagnostic>) {
    // Tool → its notes, in first-seen order.
    let mut per_tool: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for v in views.iter().filter(|v| v.cell.transport == Transport::Native) {
        for t in &v.compiled.tools {
            let notes = per_tool.entry(t.name.clone()).or_default();
            for p in &project.providers {
                let info = p.info();
                let mut found = Vec::new();
                if !info.tool_names.allows(&t.name) {
                    found.push(format!("{p}: the tool name must match {}", info.tool_names.pattern()));
                }
                for param in t.params.iter().filter(|q| !info.property_names.allows(&q.name)) {
                    found.push(format!(
                        "{p}: parameter `{}`: property names must match {}",
                        param.name,
                        info.property_names.pattern()
                    ));
                }
                // An empty schema (`{}`) carried as written: the JSON Schema providers' SDKs want
                // `type: object` at the root (Gemini is sent no parameters at all).
                if t.shape.json.as_ref().is_some_and(|root| root.get("type").is_none()) && !info.openapi_subset {
                    found.push(format!("{p}: the parameters schema has no `type: object`"));
                }
                for k in t.provider_fields.get(p).into_iter().flat_map(|f| f.keys()) {
                    if !info.entry_fields.contains(&k.as_str()) {
                        found.push(format!("{p}: `{k}` (from `provider_fields`) is not a field of its tool entries"));
                    }
                }
                for f in found {
                    if !notes.contains(&f) {
                        notes.push(f);
                    }
                }
            }
        }
    }
    // Gemini's OpenAPI subset as promptc sends it, checked against the API's own rules.
    let opts = ProjectionOptions::of(project);
    if project.providers.contains(&Provider::Gemini) && !opts.gemini_json_schema {
        for v in views.iter().filter(|v| v.cell.transport == Transport::Native) {
            let projected = projection::project(Provider::Gemini, &v.compiled.tools, opts);
            for entry in projection::tool_entries(Provider::Gemini, &projected) {
                let (Some(name), Some(params)) = (entry["name"].as_str(), entry.get("parameters")) else { continue };
                let notes = per_tool.entry(name.to_string()).or_default();
                for n in gemini_refusals(params, "(parameters)") {
                    let n = format!("gemini: {n}");
                    if !notes.contains(&n) {
                        notes.push(n);
                    }
                }
            }
        }
    }
    schema_refusals(project, views, &mut per_tool);
    for (tool, notes) in per_tool.into_iter().filter(|(_, n)| !n.is_empty()) {
        let mut d =
            finding(RuleCode::P002, format!("tool `{tool}` has a name, field or schema its providers' APIs reject"))
                .with_label(tool_label(project, &tool))
                .with_help(
                    "a name: rename it (a `variants:` entry with `name:` can send another name where a provider needs \
                 it); a field: remove it from `provider_fields`; a Gemini schema: send Gemini the JSON Schema itself \
                 (`gemini_schema: json_schema`) or change the schema; or leave the provider out of `providers:`",
                );
        for n in notes {
            d = d.with_note(n);
        }
        out.push(d);
    }
}

/// How a cell's harness messages break a provider's rule once the messages that render empty
/// are left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum MessagesRefused {
    /// The first message sent is the assistant's.
    AssistantFirst,
    /// The profile declares messages and none is sent.
    NoneSent,
}

/// Harness messages a provider refuses: a user message whose sections all render empty is left
/// out, so the messages start with the assistant's, or none is sent at all. One finding per
/// profile and way, naming the cells and the providers.
fn messages(project: &Project, views: &[CellView], out: &mut Vec<Diagnostic>) {
    type Seen = (BTreeSet<&'static str>, Vec<String>);
    let mut found: BTreeMap<(String, MessagesRefused), Seen> = BTreeMap::new();
    for v in views.iter().filter(|v| v.cell.subagent.is_none()) {
        let Some(profile) = project.profiles.get(&v.cell.profile) else { continue };
        if profile.messages.is_empty() {
            continue;
        }
        let way = match v.compiled.messages.first() {
            None => MessagesRefused::NoneSent,
            Some(m) if m.role == Role::Assistant => MessagesRefused::AssistantFirst,
            Some(_) => continue,
        };
        let refusing: Vec<&'static str> = project
            .providers
            .iter()
            .filter(|p| match way {
                MessagesRefused::AssistantFirst => p.info().first_message_from_user,
                MessagesRefused::NoneSent => p.info().needs_a_message,
            })
            .map(|p| p.as_str())
            .collect();
        if refusing.is_empty() {
            continue;
        }
        let entry = found.entry((v.cell.profile.clone(), way)).or_default();
        entry.0.extend(refusing);
        let stem = v.cell.stem();
        if !entry.1.contains(&stem) {
            entry.1.push(stem);
        }
    }
    for ((profile, way), (providers, cells)) in found {
        let Some(p) = project.profiles.get(&profile) else { continue };
        let n = cells.len();
        let in_cells = format!("in {n} cell{}", if n == 1 { "" } else { "s" });
        let providers: Vec<&str> = providers.into_iter().collect();
        let (refuse, verb) = (providers.join(" and "), if providers.len() == 1 { "refuses" } else { "refuse" });
        // The user messages that render empty there: those declared before the first one sent.
        let users: Vec<String> = p
            .messages
            .iter()
            .take_while(|m| way == MessagesRefused::NoneSent || m.role == Role::User)
            .filter(|m| m.role == Role::User)
            .map(|m| m.sections().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", "))
            .collect();
        let message = match way {
            MessagesRefused::AssistantFirst => format!(
                "profile `{profile}`'s harness messages start with the assistant's {in_cells}: the user message \
                 before it renders empty and is left \
                 out; {refuse} {verb} a first message that is not the user's"
            ),
            MessagesRefused::NoneSent => format!(
                "profile `{profile}` sends none of its harness messages {in_cells}: each renders empty and is left \
                 out; {refuse} {verb} a request without a message"
            ),
        };
        let mut d = finding(RuleCode::P002, message)
            .with_label(project.label(&p.span))
            .with_note(format!("cells: {}", cells.join(", ")));
        if !users.is_empty() {
            d = d.with_note(format!("the user message's sections, all empty there: {}", users.join("; ")));
        }
        out.push(d.with_help(
            "give the user message a section that renders in every cell, or guard the messages after it with the \
             same condition; if the profile is never sent to these providers, allow P002 for it alone \
             (`check.profile_levels`)",
        ));
    }
}

/// What the JSON Schema providers refuse in the schemas as promptc sends them: Anthropic, a schema
/// that is not valid JSON Schema 2020-12 (its API: "tools.N.custom.input_schema: JSON schema is
/// invalid. It must match JSON Schema draft 2020-12"): `items` as a list (2020-12 has
/// `prefixItems`), `exclusiveMinimum`/`exclusiveMaximum` as booleans (draft 4's); OpenAI strict
/// mode, a `$ref` with sibling keywords (its API: "$ref cannot have keywords"; openai-agents'
/// `strict_schema.py` and pydantic-ai unwrap it for this reason); MCP, a field set to `null` (the
/// specification's `Tool` declares `title`, `description`, `annotations`, `outputSchema`, `_meta`
/// and `icons` optional, never nullable; the TypeScript SDK's `ToolSchema` refuses them, as Python
/// SDK dumps without `exclude_none` write them).
fn schema_refusals(project: &Project, views: &[CellView], per_tool: &mut BTreeMap<String, Vec<String>>) {
    let opts = ProjectionOptions::of(project);
    let mut note = |tool: &str, n: String| {
        let notes = per_tool.entry(tool.to_string()).or_default();
        if !notes.contains(&n) {
            notes.push(n);
        }
    };
    for v in views.iter().filter(|v| v.cell.transport == Transport::Native) {
        for p in &project.providers {
            let strict = opts.strict && p.info().strict_mode;
            if !matches!(p, Provider::Anthropic | Provider::Mcp) && !strict {
                continue;
            }
            let projected = projection::project(*p, &v.compiled.tools, opts);
            for entry in projection::tool_entries(*p, &projected) {
                let f = projection::entry_function(*p, entry);
                let Some(name) = f.get("name").and_then(serde_json::Value::as_str) else { continue };
                if *p == Provider::Mcp {
                    for (k, _) in f.as_object().into_iter().flatten().filter(|(_, x)| x.is_null()) {
                        note(name, format!("{p}: `{k}` is null (a tool's optional fields are left out, never null)"));
                    }
                    continue;
                }
                let Some(schema) = projection::entry_parameters(*p, entry) else { continue };
                let mut found = Vec::new();
                walk_schema(schema, "(parameters)", &mut |node, path| {
                    if strict {
                        if node.contains_key("$ref") && node.len() > 1 {
                            let others: Vec<&str> = node.keys().map(String::as_str).filter(|k| *k != "$ref").collect();
                            found.push(format!("{p} (strict): `{path}`: `$ref` beside {}", others.join(", ")));
                        }
                        return;
                    }
                    if node.get("items").is_some_and(serde_json::Value::is_array) {
                        found.push(format!("{p}: `{path}`: `items` is a list (JSON Schema 2020-12: `prefixItems`)"));
                    }
                    for k in ["exclusiveMinimum", "exclusiveMaximum"] {
                        if node.get(k).is_some_and(serde_json::Value::is_boolean) {
                            found.push(format!("{p}: `{path}`: `{k}` is a boolean (JSON Schema 2020-12: a number)"));
                        }
                    }
                });
                for n in found {
                    note(name, n);
                }
            }
        }
    }
}

/// Call `f` on `v` and every subschema of it (through the keywords that hold schemas, never
/// through `enum`, `const`, `default` or `examples`, which hold data), with its path.
fn walk_schema(
    v: &serde_json::Value,
    path: &str,
    f: &mut dyn FnMut(&serde_json::Map<String, serde_json::Value>, &str),
) {
    let Some(m) = v.as_object() else { return };
    f(m, path);
    let child = |n: &str| if path == "(parameters)" { n.to_string() } else { format!("{path}.{n}") };
    for key in ["properties", "$defs", "definitions", "patternProperties"] {
        for (n, s) in m.get(key).and_then(serde_json::Value::as_object).into_iter().flatten() {
            walk_schema(s, &child(n), f);
        }
    }
    for key in ["items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else"] {
        match m.get(key) {
            Some(serde_json::Value::Array(list)) => {
                list.iter().enumerate().for_each(|(i, s)| walk_schema(s, &format!("{path}.{key}[{i}]"), f))
            }
            Some(s) => walk_schema(s, &format!("{path}.{key}"), f),
            None => {}
        }
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        for (i, s) in m.get(key).and_then(serde_json::Value::as_array).into_iter().flatten().enumerate() {
            walk_schema(s, &format!("{path}.{key}[{i}]"), f);
        }
    }
}

/// What Gemini's API refuses in an OpenAPI-subset schema (`path` names the node): an object
/// without properties, an array without `items`, a node with neither a type nor `anyOf`.
fn gemini_refusals(v: &serde_json::Value, path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let Some(m) = v.as_object() else { return out };
    let ty = m.get("type").and_then(serde_json::Value::as_str).map(str::to_ascii_uppercase);
    match ty.as_deref() {
        None if !m.contains_key("anyOf") => out.push(format!("`{path}`: a schema without a type")),
        Some("OBJECT") if m.get("properties").and_then(serde_json::Value::as_object).is_none_or(|p| p.is_empty()) => {
            out.push(format!("`{path}`: an object without properties"))
        }
        Some("ARRAY") if !m.contains_key("items") => out.push(format!("`{path}`: an array without `items`")),
        _ => {}
    }
    let child = |n: &str| if path == "(parameters)" { n.to_string() } else { format!("{path}.{n}") };
    if let Some(ps) = m.get("properties").and_then(serde_json::Value::as_object) {
        for (n, s) in ps {
            out.extend(gemini_refusals(s, &child(n)));
        }
    }
    if let Some(items) = m.get("items") {
        out.extend(gemini_refusals(items, &format!("{path}[]")));
    }
    for b in m.get("anyOf").and_then(serde_json::Value::as_array).into_iter().flatten() {
        out.extend(gemini_refusals(b, path));
    }
    out
}

/// `1024` → `1,024`.
fn group_digits(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The declaration of catalog tool `name`.
pub(crate) fn tool_label(project: &Project, name: &str) -> crate::diagnostic::Label {
    project.catalog.get(name).map_or_else(
        || crate::diagnostic::Label::file(project.fs().display(&project.manifest)),
        |t| project.label(&t.decl_span),
    )
}
