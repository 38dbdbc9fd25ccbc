//! `promptc check`: rules that catch broken prompts before they ship. Every rule has a stable
//! code, a default level, a one-line summary and a long explanation (`--explain`).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::compile::Compiled;
use crate::diagnostic::{Diagnostic, Label, Severity};
use crate::error::Result;
use crate::project::{Project, SectionSource};
use crate::providers::json_schema::STRICT_FORMATS;
use crate::schema::{Kind, Property};
use crate::snapshot::{cells, Cell};
use crate::tokens::Counter;
use crate::transport::Transport;

/// What a rule's findings do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Not reported.
    Allow,
    /// Reported; does not fail the check.
    Warn,
    /// Reported as an error; the check exits 1.
    Deny,
}

impl Level {
    /// Parse `allow`, `warn` or `deny`.
    pub fn parse(s: &str) -> Option<Level> {
        match s {
            "allow" => Some(Level::Allow),
            "warn" => Some(Level::Warn),
            "deny" => Some(Level::Deny),
            _ => None,
        }
    }
}

/// A lint rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// Stable code, e.g. `P001`.
    pub code: &'static str,
    /// Short kebab-case name.
    pub name: &'static str,
    /// Level unless the project or the command line says otherwise.
    pub default: Level,
    /// One line.
    pub summary: &'static str,
    /// The long explanation shown by `--explain`.
    pub explain: &'static str,
}

/// Every rule, in code order.
pub const RULES: &[Rule] = &[
    Rule {
        code: "P001",
        name: "dangling-tool-reference",
        default: Level::Deny,
        summary: "prose names a tool that is not active in the cell",
        explain: "A section of the prompt names a tool of the catalog (a snake_case or kebab-case tool name, or any tool name in backticks) that is not active in that cell: a sub-agent told to call `clarify` when it has no clarify tool, a lite prompt recommending a tool lite excludes. The model will try to call a tool that does not exist.\n\nFix: mention the tool only inside `{% if \"NAME\" in tool_names %}…{% endif %}`, or move the sentence into the tool's `guidance:` (shown only while it is active).",
    },
    Rule {
        code: "P002",
        name: "provider-rejects",
        default: Level::Deny,
        summary: "a provider's API would reject the tool projection",
        explain: "A native projection breaks a limit of a provider's API: more than 128 tools in one request (OpenAI Chat and Responses, Gemini), or a tool description over 1,024 characters (OpenAI Chat and Responses). The request fails at runtime.\n\nFix: shorten the description (use a per-profile override), or split tools across profiles.",
    },
    Rule {
        code: "P003",
        name: "provider-rewrites",
        default: Level::Warn,
        summary: "a projection drops or rewrites a schema keyword for a provider",
        explain: "A parameter uses a keyword a provider does not accept, so promptc's projection drops or rewrites it: Gemini keeps only the `date-time` string format and enums on strings (other formats and numeric enums move into the description); OpenAI strict mode has no `default`, `min_length`/`max_length` or formats outside its list (array items included). The model sees less than the canonical schema says.\n\nFix: if the constraint matters, say it in the description; or allow the rule where the rewrite is intended.",
    },
    Rule {
        code: "P004",
        name: "cache-unfriendly-order",
        default: Level::Warn,
        summary: "dynamic or untrusted text comes before static text",
        explain: "Provider prompt caching reuses the longest unchanged prefix of the prompt. A section that changes between sessions (it reads a `dynamic: true` variable, or carries untrusted text) placed before static sections ends the cacheable prefix early, so every request pays for the static text after it. `promptc check` reports each cell's cacheable prefix in tokens.\n\nFix: move dynamic and untrusted sections after the static ones (environment details near the end).",
    },
    Rule {
        code: "P005",
        name: "lite-not-subset",
        default: Level::Deny,
        summary: "a smaller profile has a tool or section the larger one lacks",
        explain: "Profiles declared as subsets (by default `lite` ⊆ `standard`, configurable under `check.subsets`) must not grow a tool or section their superset does not have: lite quietly gaining a tool means the two contracts drifted apart.\n\nFix: add the tool or section to the larger profile too, exclude it from the smaller one, or change `check.subsets`.",
    },
    Rule {
        code: "P006",
        name: "transport-parity",
        default: Level::Deny,
        summary: "the XML or JSON cell does not describe the tools the native cell sends",
        explain: "For a given profile, native, xml and json must describe the same tools and parameters. Native sends them as JSON beside the prompt; xml needs a `generate: tool_docs` section and json a `generate: action_schema` section in the profile, active in that cell, or the model never learns the tools exist.\n\nFix: add the generated section to the profile's `sections:`.",
    },
    Rule {
        code: "P007",
        name: "unused",
        default: Level::Warn,
        summary: "a section, tool, switch or slot is declared but never used",
        explain: "Something is declared and never reaches any cell: a section no profile or sub-agent lists, a tool no profile registers, a switch no `when:` or template reads, a slot no section shows or no tool contributes to. Dead declarations rot and mislead readers.\n\nFix: use it or delete it.",
    },
    Rule {
        code: "P008",
        name: "budget-exceeded",
        default: Level::Deny,
        summary: "a cell is over one of its profile's budgets",
        explain: "A profile's `budget:` (total, prompt, tools or a section, in tokens or bytes) is exceeded in some cell, counted with the project's tokenizer. This is the same check as `promptc report`, over every cell of the matrix.\n\nFix: shorten the text, or raise the budget deliberately.",
    },
    Rule {
        code: "P009",
        name: "subagent-recursion",
        default: Level::Warn,
        summary: "a sub-agent's allowlist names a tool that spawns sub-agents",
        explain: "Sub-agents never get tools marked `spawns_subagents: true` (no recursion), whatever their allowlist says. Listing one is dead configuration that suggests the author expected recursion.\n\nFix: remove the tool from the sub-agent's `tools:`.",
    },
];

/// The rule with `code`.
pub fn rule(code: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.code == code)
}

/// A compiled cell with its label.
struct CellView {
    cell: Cell,
    compiled: Compiled,
}

/// Cacheable prefix of one cell.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CachePrefix {
    /// Cell stem.
    pub cell: String,
    /// Tokens before the first dynamic or untrusted section (the whole prompt if none).
    pub tokens: u64,
    /// Tokens of the whole prompt.
    pub prompt_tokens: u64,
    /// The section that ends the prefix, if any.
    pub ends_at: Option<String>,
}

/// What `check` found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckResult {
    /// Diagnostics after levels were applied (allowed ones removed).
    #[serde(skip)]
    pub diagnostics: Vec<Diagnostic>,
    /// Cacheable prefix per cell.
    pub cache_prefixes: Vec<CachePrefix>,
}

impl CheckResult {
    /// Whether any error remains.
    pub fn failed(&self) -> bool {
        self.diagnostics.iter().any(|d| d.severity == Severity::Error)
    }
}

/// Effective level of each rule: defaults, then the project's `check.levels`, then `overrides`
/// (command-line `-A/-W/-D`, in order).
pub fn levels(project: &Project, overrides: &[(String, Level)]) -> BTreeMap<&'static str, Level> {
    let mut out: BTreeMap<&'static str, Level> = RULES.iter().map(|r| (r.code, r.default)).collect();
    for (code, level) in project.lint.levels.iter().map(|(c, l)| (c.clone(), *l)).chain(overrides.iter().cloned()) {
        if let Some(r) = rule(&code) {
            out.insert(r.code, level);
        }
    }
    out
}

fn finding(code: &str, message: String) -> Diagnostic {
    let mut d = Diagnostic::error(message);
    d.code = Some(code.to_string());
    d
}

/// Where `needle` first appears in project file `rel` (after `after`, if given), as a label
/// covering `needle` (the file alone if absent).
fn locate_after(project: &Project, rel: &str, after: &[&str], needle: &str) -> Label {
    let Some(f) = project.files.get(rel) else { return Label::file(project.fs().display(rel)) };
    let mut from = 0;
    for a in after {
        match f.text[from..].find(a) {
            Some(i) => from += i + a.len(),
            None => break,
        }
    }
    match f.text[from..].find(needle).or_else(|| f.text.find(needle).map(|i| i.wrapping_sub(from))) {
        Some(i) => {
            let start = from.wrapping_add(i);
            f.label_bytes(start, start + needle.len())
        }
        None => Label::file(&f.display),
    }
}

fn locate(project: &Project, rel: &str, needle: &str) -> Label {
    locate_after(project, rel, &[], needle)
}

/// A mapping key of the manifest (`  lite:` under `profiles:`), labelled on the key itself.
fn locate_key(project: &Project, parent: &str, key: &str) -> Label {
    let m = &project.manifest;
    let Some(f) = project.files.get(m) else { return Label::file(m) };
    let block = f.text.find(&format!("\n{parent}:")).map_or(0, |i| i + parent.len() + 2);
    let pattern = format!("\n  {key}:");
    match f.text[block..].find(&pattern) {
        Some(i) => {
            let start = block + i + 3;
            f.label_bytes(start, start + key.len())
        }
        None => locate(project, m, key),
    }
}

/// Compile every cell of the matrix (cases and sub-agents included).
fn compile_all(project: &Project) -> Result<Vec<CellView>> {
    cells(project).into_iter().map(|cell| Ok(CellView { compiled: cell.compile(project)?, cell })).collect()
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// Byte offsets where `text` names `tool` as a tool identifier: a snake/kebab-case name as a
/// whole word, or any name in backticks.
fn tool_mentions(text: &str, tool: &str) -> Vec<usize> {
    let distinctive = tool.contains('_') || tool.contains('-');
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = text[from..].find(tool) {
        let start = from + i;
        let end = start + tool.len();
        let before = text[..start].chars().next_back();
        let after = text[end..].chars().next();
        let bounded = !before.is_some_and(is_word_char) && !after.is_some_and(is_word_char);
        let ticked = before == Some('`') && after == Some('`');
        if bounded && (distinctive || ticked) {
            out.push(start);
        }
        from = end;
    }
    out
}

#[cfg(test)]
fn names_tool(text: &str, tool: &str) -> bool {
    !tool_mentions(text, tool).is_empty()
}

/// Where a dangling mention in a cell's prompt comes from: a section (and, for tool docs, the
/// tool whose description carries it) or the layout.
fn mention_label(project: &Project, c: &Compiled, at: usize, tool: &str) -> (String, Label) {
    let mut pos = 0;
    for s in &c.sections {
        if let Some(i) = c.prompt[pos..].find(&s.text) {
            let start = pos + i;
            if (start..start + s.text.len()).contains(&at) {
                let section = project.sections.get(&s.id);
                match section.map(|x| &x.source) {
                    Some(SectionSource::Template(name)) => {
                        let rel = name.split('#').next().unwrap_or(name).to_string();
                        return (format!("section `{}`", s.id), locate(project, &rel, tool));
                    }
                    _ => {
                        // Generated text (tool docs, guidance, slots): find the tool whose
                        // text mentions it and point at that tool's declaration.
                        let owner = c.tools.iter().find(|t| {
                            !tool_mentions(&t.description, tool).is_empty()
                                || t.guidance.as_deref().is_some_and(|g| !tool_mentions(g, tool).is_empty())
                                || t.contributions.iter().any(|ct| matches!(&ct.body, crate::catalog::ContributionBody::Literal(l) | crate::catalog::ContributionBody::Template(l) if !tool_mentions(l, tool).is_empty()))
                        });
                        if let Some(o) = owner.and_then(|o| project.catalog.get(&o.name)) {
                            let label = project.files.get(&o.file).map_or_else(
                                || Label::file(&o.file),
                                |f| {
                                    let decl = f.text.find(&format!("name: {}", o.name)).unwrap_or(0);
                                    match f.text[decl..].find(tool) {
                                        Some(i) => f.label_bytes(decl + i, decl + i + tool.len()),
                                        None => f.label_bytes(decl, decl),
                                    }
                                },
                            );
                            return (format!("section `{}` (from tool `{}`)", s.id, o.name), label);
                        }
                        return (format!("section `{}`", s.id), locate_key(project, "sections", &s.id));
                    }
                }
            }
            pos = start + s.text.len();
        }
    }
    let layout = project.layout.clone().unwrap_or_else(|| project.manifest.clone());
    ("the layout".to_string(), locate(project, &layout, tool))
}

fn dangling(project: &Project, views: &[CellView], out: &mut Vec<Diagnostic>) {
    // (where, tool) → (label, cells)
    let mut found: BTreeMap<(String, String), (Label, Vec<String>)> = BTreeMap::new();
    let names: Vec<&str> = project.catalog.tools().iter().map(|t| t.name.as_str()).collect();
    for v in views {
        let c = &v.compiled;
        let active: BTreeSet<&str> = c.tools.iter().map(|t| t.name.as_str()).collect();
        for name in names.iter().filter(|n| !active.contains(**n)) {
            for at in tool_mentions(&c.prompt, name) {
                let (place, label) = mention_label(project, c, at, name);
                let entry = found.entry((place, name.to_string())).or_insert_with(|| (label, Vec::new()));
                if !entry.1.contains(&v.cell.stem()) {
                    entry.1.push(v.cell.stem());
                }
            }
        }
    }
    for ((place, tool), (label, cells)) in found {
        out.push(
            finding("P001", format!("{place} names tool `{tool}`, which is not active in {} cell{}", cells.len(), if cells.len() == 1 { "" } else { "s" }))
                .with_label(label)
                .with_note(format!("cells: {}", cells.join(", ")))
                .with_help(format!("guard the sentence with {{% if \"{tool}\" in tool_names %}}…{{% endif %}}, or move it into the tool's `guidance:`")),
        );
    }
}

/// Every schema node of a tool's parameters with a dotted path (`edits[].search`).
fn walk<'a>(props: &'a [Property], prefix: &str, out: &mut Vec<(String, &'a crate::schema::Schema)>) {
    fn node<'a>(s: &'a crate::schema::Schema, path: String, out: &mut Vec<(String, &'a crate::schema::Schema)>) {
        out.push((path.clone(), s));
        match &s.kind {
            Kind::Object { properties } => walk(properties, &path, out),
            Kind::Array { items, .. } => node(items, format!("{path}[]"), out),
            _ => {}
        }
    }
    for p in props {
        let path = if prefix.is_empty() { p.name.clone() } else { format!("{prefix}.{}", p.name) };
        node(&p.schema, path, out);
    }
}

fn providers(project: &Project, views: &[CellView], out: &mut Vec<Diagnostic>) {
    use crate::providers::Provider;
    let limited: Vec<Provider> = project
        .providers
        .iter()
        .copied()
        .filter(|p| matches!(p, Provider::OpenAiChat | Provider::OpenAiResponses | Provider::Gemini))
        .collect();
    let openai: Vec<Provider> = project
        .providers
        .iter()
        .copied()
        .filter(|p| matches!(p, Provider::OpenAiChat | Provider::OpenAiResponses))
        .collect();
    let gemini = project.providers.contains(&Provider::Gemini);
    let strict = project.strict_tools && !openai.is_empty();
    let mut long: BTreeSet<String> = BTreeSet::new();
    let mut per_tool: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for v in views.iter().filter(|v| v.cell.transport == Transport::Native) {
        let n = v.compiled.tools.len();
        if n > 128 && !limited.is_empty() {
            let names: Vec<&str> = limited.iter().map(|p| p.as_str()).collect();
            out.push(
                finding(
                    "P002",
                    format!("cell `{}` sends {n} tools; {} accept at most 128", v.cell.stem(), names.join(", ")),
                )
                .with_label(locate_key(project, "profiles", &v.cell.profile))
                .with_help("split the tools across profiles, or exclude some"),
            );
        }
        for t in &v.compiled.tools {
            let len = t.description.trim_end().chars().count();
            if len > 1024 && !openai.is_empty() && long.insert(t.name.clone()) {
                let file = project.catalog.get(&t.name).map(|c| c.file.clone()).unwrap_or_default();
                let names: Vec<&str> = openai.iter().map(|p| p.as_str()).collect();
                out.push(
                    finding(
                        "P002",
                        format!(
                            "tool `{}` has a {len}-character description; {} reject more than 1,024",
                            t.name,
                            names.join(", ")
                        ),
                    )
                    .with_label(locate(project, &file, &format!("name: {}", t.name)))
                    .with_help("shorten it, or give the profile a shorter `overrides:` description"),
                );
            }
            let mut nodes = Vec::new();
            walk(&t.params, "", &mut nodes);
            for (path, s) in nodes {
                let mut rewrites: Vec<String> = Vec::new();
                match &s.kind {
                    Kind::String { format, min_length, max_length, .. } => {
                        if let Some(f) = format {
                            if f != "date-time" && gemini {
                                rewrites.push(format!(
                                    "gemini: `{path}`: format `{f}` is not supported: it moves into the description"
                                ));
                            }
                            if strict && !STRICT_FORMATS.contains(&f.as_str()) {
                                rewrites.push(format!(
                                    "openai strict: `{path}`: format `{f}` is not supported: it is dropped"
                                ));
                            }
                        }
                        if strict && (min_length.is_some() || max_length.is_some()) {
                            rewrites.push(format!(
                                "openai strict: `{path}`: min_length/max_length are not supported: they are dropped"
                            ));
                        }
                    }
                    Kind::Integer { enum_values, .. } if !enum_values.is_empty() && gemini => {
                        rewrites.push(format!(
                            "gemini: `{path}`: enums are only allowed on strings: the values move into the description"
                        ));
                    }
                    Kind::Number { enum_values, .. } if !enum_values.is_empty() && gemini => {
                        rewrites.push(format!(
                            "gemini: `{path}`: enums are only allowed on strings: the values move into the description"
                        ));
                    }
                    _ => {}
                }
                if s.default.is_some() && strict {
                    rewrites.push(format!("openai strict: `{path}`: `default` is not supported: it is dropped"));
                }
                let notes = per_tool.entry(t.name.clone()).or_default();
                for r in rewrites {
                    if !notes.contains(&r) {
                        notes.push(r);
                    }
                }
            }
        }
    }
    // One finding per tool, every rewrite listed.
    for (tool, notes) in per_tool.into_iter().filter(|(_, n)| !n.is_empty()) {
        let file = project.catalog.get(&tool).map(|c| c.file.clone()).unwrap_or_default();
        let mut d = finding("P003", format!("tool `{tool}`: {} schema keyword{} dropped or rewritten in provider projections", notes.len(), if notes.len() == 1 { " is" } else { "s are" }))
            .with_label(locate(project, &file, &format!("name: {tool}")))
            .with_help("say the constraint in the description if the model must respect it, or allow P003 where the rewrite is intended");
        for n in notes {
            d = d.with_note(n);
        }
        out.push(d);
    }
}

fn cache_order(
    project: &Project,
    views: &[CellView],
    counter: &mut Counter,
    out: &mut Vec<Diagnostic>,
) -> Result<Vec<CachePrefix>> {
    let mut prefixes = Vec::new();
    let mut reported = BTreeSet::new();
    for v in views {
        let c = &v.compiled;
        let varies = |id: &str| {
            project.sections.get(id).is_some_and(|s| !s.dynamic_inputs.is_empty() || s.untrusted.is_some())
                || c.sections.iter().any(|s| s.id == id && s.text.contains(&format!("_{}|>", c.runtime.nonce)))
        };
        // Sections in the order they appear in the prompt (a layout may reorder them).
        let mut placed: Vec<(usize, &str)> =
            c.sections.iter().filter_map(|s| c.prompt.find(&s.text).map(|i| (i, s.id.as_str()))).collect();
        placed.sort();
        let first = placed.iter().position(|(_, id)| varies(id));
        let ends_at = first.map(|i| placed[i].1.to_string());
        let prefix_text = first.map_or(c.prompt.as_str(), |i| &c.prompt[..placed[i].0]);
        let tokens = counter.count(prefix_text)?;
        let prompt_tokens = counter.count(&c.prompt)?;
        if let Some(i) = first {
            if let Some((_, later)) = placed[i + 1..].iter().find(|(_, id)| !varies(id)) {
                let culprit = placed[i].1;
                if reported.insert((culprit.to_string(), later.to_string())) {
                    let anchor = if project.layout.is_some() {
                        locate(project, project.layout.as_deref().unwrap_or_default(), &format!("sections.{culprit}"))
                    } else {
                        locate_key(project, "profiles", &v.cell.profile)
                    };
                    out.push(
                        finding("P004", format!("section `{culprit}` changes between sessions but comes before static section `{later}`"))
                            .with_label(anchor)
                            .with_note(format!("in cell `{}` the cacheable prefix ends after {tokens} of {prompt_tokens} tokens", v.cell.stem()))
                            .with_help(if project.layout.is_some() { "place dynamic and untrusted sections after the static ones in the layout" } else { "list dynamic and untrusted sections after the static ones in the profile's `sections:`" }),
                    );
                }
            }
        }
        prefixes.push(CachePrefix { cell: v.cell.stem(), tokens, prompt_tokens, ends_at });
    }
    Ok(prefixes)
}

fn subsets(project: &Project, out: &mut Vec<Diagnostic>) {
    for (small, big) in &project.lint.subsets {
        let (Some(s), Some(b)) = (project.profiles.get(small), project.profiles.get(big)) else { continue };
        let tools = |p: &crate::project::Profile| -> BTreeSet<String> {
            project.catalog.registered(&p.tools).iter().map(|t| t.name.clone()).collect()
        };
        let (st, bt) = (tools(s), tools(b));
        for t in st.difference(&bt) {
            out.push(
                finding("P005", format!("profile `{small}` has tool `{t}`, which `{big}` lacks"))
                    .with_label(locate_key(project, "profiles", small))
                    .with_help(format!("add `{t}` to `{big}`, exclude it from `{small}`, or change check.subsets")),
            );
        }
        for sec in s.sections.iter().filter(|x| !b.sections.contains(x)) {
            out.push(
                finding("P005", format!("profile `{small}` has section `{sec}`, which `{big}` lacks"))
                    .with_label(locate_key(project, "profiles", small))
                    .with_help(format!("add `{sec}` to `{big}` or remove it from `{small}`")),
            );
        }
    }
}

fn parity(project: &Project, views: &[CellView], out: &mut Vec<Diagnostic>) {
    let mut reported = BTreeSet::new();
    for v in views.iter().filter(|v| v.cell.transport != Transport::Native && !v.compiled.tools.is_empty()) {
        let c = &v.compiled;
        let generated = |g: &str| {
            c.sections
                .iter()
                .filter(|s| s.origin == format!("generated:{g}"))
                .map(|s| s.text.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        };
        let missing: Vec<&str> = match v.cell.transport {
            Transport::Xml => {
                let docs = generated("tool_docs");
                c.tools
                    .iter()
                    .filter(|t| !docs.contains(&format!("## {}\n", t.name)))
                    .map(|t| t.name.as_str())
                    .collect()
            }
            Transport::Json => {
                let schema = generated("action_schema");
                c.tools
                    .iter()
                    .filter(|t| !schema.contains(&format!("\"{}\"", t.name)))
                    .map(|t| t.name.as_str())
                    .collect()
            }
            Transport::Native => Vec::new(),
        };
        if missing.is_empty() {
            continue;
        }
        let section =
            if v.cell.transport == Transport::Xml { "generate: tool_docs" } else { "generate: action_schema" };
        if reported.insert((v.cell.profile.clone(), v.cell.transport, v.cell.subagent.clone())) {
            out.push(
                finding(
                    "P006",
                    format!(
                        "cell `{}` does not describe {} of its {} tools (e.g. `{}`); the native cell sends them all",
                        v.cell.stem(),
                        missing.len(),
                        c.tools.len(),
                        missing[0]
                    ),
                )
                .with_label(locate_key(project, "profiles", &v.cell.profile))
                .with_help(format!("add a section with `{section}` to the profile's sections, active in this cell")),
            );
        }
    }
}

/// Whether some template reads `switches.NAME` (or `switches["NAME"]`) as a whole name.
fn reads_switch(project: &Project, name: &str) -> bool {
    let patterns = [format!("switches.{name}"), format!("switches[\"{name}\"]"), format!("switches['{name}']")];
    project.templates.sources().any(|src| {
        patterns.iter().any(|p| {
            src.match_indices(p.as_str())
                .any(|(i, m)| !src[i + m.len()..].chars().next().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_'))
        })
    })
}

fn unused(project: &Project, out: &mut Vec<Diagnostic>) {
    let mut listed: BTreeSet<&str> =
        project.profiles.values().flat_map(|p| p.sections.iter().map(String::as_str)).collect();
    listed.extend(project.subagents.values().flat_map(|s| s.sections.iter().flatten().map(String::as_str)));
    for id in project.sections.keys().filter(|id| !listed.contains(id.as_str())) {
        out.push(
            finding("P007", format!("section `{id}` is not used by any profile or sub-agent"))
                .with_label(locate_key(project, "sections", id))
                .with_help("add it to a profile's `sections:` or delete it"),
        );
    }
    let registered: BTreeSet<&str> =
        project.profiles.values().flat_map(|p| project.catalog.registered(&p.tools)).map(|t| t.name.as_str()).collect();
    for t in project.catalog.tools().iter().filter(|t| !registered.contains(t.name.as_str())) {
        out.push(
            finding("P007", format!("tool `{}` is not registered by any profile", t.name))
                .with_label(locate(project, &t.file, &format!("name: {}", t.name)))
                .with_help("add it (or its toolset) to a profile, or delete it"),
        );
    }
    for name in project.switches.keys().filter(|n| n.as_str() != crate::project::SUBAGENT_SWITCH) {
        let in_when = project.sections.values().any(|s| s.when.switch_names().contains(&name.as_str()))
            || project.catalog.tools().iter().any(|t| {
                t.when.switch_names().contains(&name.as_str())
                    || t.params.iter().any(|p| p.when.switch_names().contains(&name.as_str()))
            });
        if !in_when && !reads_switch(project, name) {
            out.push(
                finding("P007", format!("switch `{name}` is never read"))
                    .with_label(locate_key(project, "switches", name))
                    .with_help("use it in a `when:` or as `switches.NAME` in a template, or delete it"),
            );
        }
    }
    for (name, slot) in &project.slots {
        if slot.kind != crate::project::SlotKind::System {
            continue;
        }
        let shown = project.sections.values().any(|s| s.source == SectionSource::Slot(name.clone()));
        let fed = project.catalog.tools().iter().any(|t| t.contributions.iter().any(|c| &c.slot == name));
        if !shown || !fed {
            let why = if !shown { "no section shows it" } else { "no tool contributes to it" };
            out.push(
                finding("P007", format!("slot `{name}` is unused: {why}"))
                    .with_label(locate_key(project, "slots", name))
                    .with_help("add a section with `slot:` and a tool with `contributes:`, or delete the slot"),
            );
        }
    }
}

fn budgets(project: &Project, views: &[CellView], counter: &mut Counter, out: &mut Vec<Diagnostic>) -> Result<()> {
    for v in views.iter().filter(|v| v.cell.subagent.is_none()) {
        let has = project.profiles.get(&v.cell.profile).is_some_and(|p| !p.budget.is_empty());
        if !has {
            continue;
        }
        let r = crate::report::build(project, &v.compiled, counter)?;
        for c in r.budgets.iter().filter(|c| c.exceeded) {
            out.push(
                finding(
                    "P008",
                    format!("cell `{}`: {} is {} over its budget of {}", v.cell.stem(), c.scope, c.excess(), c.limit),
                )
                .with_label(locate_after(
                    project,
                    &project.manifest,
                    &["\nprofiles:", &format!("\n  {}:", v.cell.profile)],
                    "budget:",
                ))
                .with_help("shorten the text or raise the budget"),
            );
        }
    }
    Ok(())
}

/// The canonical (upper-case) code of a known rule, or an error listing the codes.
pub fn known_code(code: &str) -> Result<&'static str> {
    let upper = code.to_ascii_uppercase();
    rule(&upper).map(|r| r.code).ok_or_else(|| {
        let codes: Vec<&str> = RULES.iter().map(|r| r.code).collect();
        Diagnostic::error(format!("unknown rule `{upper}`"))
            .with_help(crate::diagnostic::known_names_help("rule", &upper, &codes))
            .into()
    })
}

/// `--explain CODE`: the rule's code, name, summary, default level and explanation.
pub fn explain(code: &str) -> Result<String> {
    let r = rule(known_code(code)?).ok_or_else(|| Diagnostic::error("unknown rule"))?;
    let level = match r.default {
        Level::Allow => "allow",
        Level::Warn => "warn",
        Level::Deny => "deny",
    };
    Ok(format!("{} {} ({}, default: {level})\n\n{}\n", r.code, r.name, r.summary, r.explain))
}

/// How `check` prints its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// rustc-style diagnostics, the cacheable-prefix table and a summary line.
    Human {
        /// ANSI colour.
        color: bool,
    },
    /// Diagnostics and cache prefixes as JSON.
    Json,
    /// GitHub Actions workflow commands.
    Github,
}

impl CheckResult {
    /// Errors and warnings.
    pub fn counts(&self) -> (usize, usize) {
        let errors = self.diagnostics.iter().filter(|d| d.severity == Severity::Error).count();
        (errors, self.diagnostics.len() - errors)
    }

    /// Render the result.
    pub fn render(&self, format: Format) -> String {
        let (errors, warnings) = self.counts();
        match format {
            Format::Json => crate::providers::to_pretty_json(&serde_json::json!({
                "errors": errors,
                "warnings": warnings,
                "diagnostics": self.diagnostics.iter().map(Diagnostic::to_json).collect::<Vec<_>>(),
                "cache_prefixes": self.cache_prefixes,
            })),
            Format::Github => self.diagnostics.iter().map(|d| format!("{}\n", github_line(d))).collect(),
            Format::Human { color } => {
                let mut s: String = self.diagnostics.iter().map(|d| format!("{}\n", d.render(color))).collect();
                s.push_str("cacheable prefix (tokens before the first dynamic or untrusted section):\n");
                for p in &self.cache_prefixes {
                    let end = p.ends_at.as_deref().map_or("whole prompt".to_string(), |e| format!("until `{e}`"));
                    s.push_str(&format!("  {:<44} {:>6} of {:>6}  {end}\n", p.cell, p.tokens, p.prompt_tokens));
                }
                let plural = |n: usize| if n == 1 { "" } else { "s" };
                s.push_str(&format!(
                    "{}: {errors} error{}, {warnings} warning{}\n",
                    if errors > 0 { "check failed" } else { "check passed" },
                    plural(errors),
                    plural(warnings)
                ));
                s
            }
        }
    }
}

/// Run every rule over every cell and apply levels.
pub fn check(project: &Project, overrides: &[(String, Level)], counter: &mut Counter) -> Result<CheckResult> {
    let views = compile_all(project)?;
    let mut found = Vec::new();
    dangling(project, &views, &mut found);
    providers(project, &views, &mut found);
    let cache_prefixes = cache_order(project, &views, counter, &mut found)?;
    subsets(project, &mut found);
    parity(project, &views, &mut found);
    unused(project, &mut found);
    budgets(project, &views, counter, &mut found)?;
    // Load-time warnings (sub-agent recursion) are lint findings too.
    found.extend(project.warnings.iter().cloned());
    let levels = levels(project, overrides);
    let mut diagnostics: Vec<Diagnostic> = found
        .into_iter()
        .filter_map(|mut d| {
            let level = d.code.as_deref().and_then(|c| levels.get(c)).copied().unwrap_or(Level::Deny);
            d.severity = match level {
                Level::Allow => return None,
                Level::Warn => Severity::Warning,
                Level::Deny => Severity::Error,
            };
            Some(d)
        })
        .collect();
    diagnostics.sort_by(|a, b| (&a.code, position_key(a)).cmp(&(&b.code, position_key(b))));
    Ok(CheckResult { diagnostics, cache_prefixes })
}

fn position_key(d: &Diagnostic) -> (String, usize, usize, String) {
    let (f, l, c) = d.label.as_ref().map_or((String::new(), 0, 0), |l| {
        (l.file.clone(), l.position.map_or(0, |p| p.line), l.position.map_or(0, |p| p.column))
    });
    (f, l, c, d.message.clone())
}

/// A `--format github` workflow command for a diagnostic.
pub fn github_line(d: &Diagnostic) -> String {
    let kind = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "notice",
    };
    // Workflow commands escape %, CR and LF in the message, and also , and : in properties.
    let esc_msg = |s: &str| s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A");
    let esc_prop = |s: &str| esc_msg(s).replace(':', "%3A").replace(',', "%2C");
    let mut props = Vec::new();
    if let Some(l) = &d.label {
        props.push(format!("file={}", esc_prop(&l.file)));
        if let Some(p) = l.position {
            props.push(format!("line={}", p.line));
            props.push(format!("col={}", p.column));
        }
    }
    if let Some(code) = &d.code {
        props.push(format!("title={}", esc_prop(code)));
    }
    let mut msg = d.message.clone();
    if let Some(h) = &d.help {
        msg.push_str(&format!("\nhelp: {h}"));
    }
    if props.is_empty() {
        format!("::{kind}::{}", esc_msg(&msg))
    } else {
        format!("::{kind} {}::{}", props.join(","), esc_msg(&msg))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Position;

    #[test]
    fn tool_names_match_as_identifiers_only() {
        assert!(names_tool("use read_file first", "read_file"));
        assert!(!names_tool("use read_files first", "read_file"));
        assert!(!names_tool("my_read_file", "read_file"));
        assert!(names_tool("call `search` now", "search"));
        assert!(!names_tool("search the web", "search"));
    }

    #[test]
    fn github_lines_follow_the_workflow_command_syntax() {
        let d = finding("P001", "50% done, a: b\nnext".into()).with_label(Label::at(
            "dir/a,b.yaml",
            "x\n",
            Position::new(1, 1, 1),
        ));
        assert_eq!(github_line(&d), "::error file=dir/a%2Cb.yaml,line=1,col=1,title=P001::50%25 done, a: b%0Anext");
        let w = Diagnostic::warning("plain");
        assert_eq!(github_line(&w), "::warning::plain");
    }

    #[test]
    fn every_rule_is_documented_once() {
        let codes: BTreeSet<&str> = RULES.iter().map(|r| r.code).collect();
        assert_eq!(codes.len(), RULES.len());
        assert!(RULES.iter().all(|r| r.explain.len() > 80 && r.explain.contains("Fix:")));
    }
}
