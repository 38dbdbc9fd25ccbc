//! One tool of a catalog file: its name, toolset, condition, parameters, wording, description
//! parts, contributions, examples and guidance.

use std::collections::BTreeMap;

use indexmap::IndexMap;
use serde_saphyr::Spanned;

use crate::diagnostic::{known_names_help, Diagnostic};
use crate::error::{Diagnostics, ErrorKind};
use crate::format::tool::RawTool;
use crate::format::S;
use crate::model::catalog::{valid_tool_name, DescriptionMode, Tool};
use crate::model::condition::Condition;
use crate::model::params::{ObjectShape, Property, SchemaDialect};
use crate::model::section::Slot;
use crate::model::Switch;
use promptc_template::Templates;

use super::checker::{is_ident, Checker};
use super::params::SchemaBuilder;
use super::tool_parts::{build_contributions, build_description_parts, build_examples};
use super::tool_templates::text_templates;
use super::tool_wording::{overrides, trim_descriptions, variants};

/// What tool validation needs from the rest of the project.
pub(super) struct ToolEnv<'a> {
    pub(super) switches: &'a IndexMap<String, Switch>,
    pub(super) profiles: &'a [&'a str],
    pub(super) slots: &'a IndexMap<String, Slot>,
    pub(super) descriptions: DescriptionMode,
}

/// A `profiles:` list of `what`: every name a declared profile, and never empty (leaving the key
/// out means every profile; an empty list would mean none, which is never what was meant).
pub(super) fn profile_list(
    ck: &mut Checker<'_>,
    raw: Option<&Spanned<Vec<S>>>,
    what: &str,
    env: &ToolEnv<'_>,
) -> Option<Vec<String>> {
    let Some(raw) = raw else { return Some(Vec::new()) };
    if raw.value.is_empty() {
        ck.error(
            &raw.referenced,
            format!("{what} has an empty `profiles:` list"),
            "leave `profiles:` out to mean every profile, or name the profiles (an empty list would mean none)",
        );
        return None;
    }
    let mut ok = true;
    let mut out = Vec::new();
    for p in &raw.value {
        if env.profiles.contains(&p.value.as_str()) {
            out.push(p.value.clone());
        } else {
            ok = false;
            ck.error(
                &p.referenced,
                format!("unknown profile `{}` in {what}", p.value),
                known_names_help("profile", &p.value, env.profiles),
            );
        }
    }
    ok.then_some(out)
}

/// A whole tool, or `None` when it has an error (each reported where it arises).
pub(super) fn build_tool(
    ck: &mut Checker<'_>,
    rt: &RawTool,
    env: &ToolEnv<'_>,
    sites: &mut BTreeMap<String, String>,
    templates: &mut Templates,
) -> Option<Tool> {
    let name = &rt.name;
    let mut ok = check_names(ck, rt, sites)?;
    let when = match &rt.when {
        Some(w) => ck.when(w, env.switches).unwrap_or(Condition::Always),
        None => Condition::Always,
    };
    let (params, shape) = parameters(ck, rt, env.switches, &mut ok);
    let overrides = overrides(ck, rt, &params, env.profiles, &mut ok);
    let variants = variants(ck, rt, &params, env, &mut ok);
    let contributions = rt.contributes.as_ref().map_or_else(Vec::new, |c| {
        build_contributions(ck, &name.value, c, env, templates).unwrap_or_else(|| {
            ok = false;
            Vec::new()
        })
    });
    let description_parts = rt.description_parts.as_ref().map_or_else(Vec::new, |parts| {
        build_description_parts(ck, &name.value, parts, env).unwrap_or_else(|| {
            ok = false;
            Vec::new()
        })
    });
    let params = parameter_profiles(ck, rt, params, env, &mut ok);
    let examples = rt.examples.as_ref().map_or_else(Vec::new, |list| {
        build_examples(ck, &name.value, list, &params).unwrap_or_else(|| {
            ok = false;
            Vec::new()
        })
    });
    let mut tool = Tool {
        name_span: ck.span(&name.referenced),
        decl_span: ck.entry_span(&name.referenced, "name"),
        name: name.value.clone(),
        toolset: rt.toolset.value.clone(),
        description: rt.description.as_ref().map(|d| d.value.clone()).unwrap_or_default(),
        undescribed: rt.description.is_none(),
        description_parts,
        when,
        params,
        shape,
        overrides,
        variants,
        file: ck.file.rel.clone(),
        spawns_subagents: rt.spawns_subagents,
        // As written under `descriptions: verbatim` (its final newline too), trimmed otherwise.
        guidance: rt
            .guidance
            .as_ref()
            .map(|g| match env.descriptions {
                DescriptionMode::Trim => g.value.trim().to_string(),
                DescriptionMode::Verbatim => g.value.clone(),
            })
            .filter(|g| !g.trim().is_empty()),
        guidance_span: rt.guidance.as_ref().map(|g| ck.span(&g.referenced)).unwrap_or_default(),
        contributions,
        examples,
        provider_fields: provider_fields(ck, rt, &mut ok),
        provider_key_order: provider_key_order(ck, rt, &mut ok),
        text_templates: text_templates(ck, rt, templates, env.descriptions == DescriptionMode::Trim).unwrap_or_else(
            || {
                ok = false;
                Default::default()
            },
        ),
    };
    if env.descriptions == DescriptionMode::Trim {
        trim_descriptions(&mut tool);
    }
    ok.then_some(tool)
}

/// The tool's name (valid, declared once: `None` for a duplicate) and its toolset's name;
/// whether both are valid.
fn check_names(ck: &mut Checker<'_>, rt: &RawTool, sites: &mut BTreeMap<String, String>) -> Option<bool> {
    let name = &rt.name;
    let mut ok = true;
    if !valid_tool_name(&name.value) {
        ok = false;
        ck.error(
            &name.referenced,
            format!("invalid tool name `{}`", name.value),
            "tool names are letters, digits, `_`, `-` or `.`, at most 64 characters (OpenAI and Anthropic take \
            no `.`, Gemini wants a letter or `_` first: `check` says where a provider refuses one)",
        );
    }
    if let Some(first) = sites.get(&name.value) {
        ck.diags.push(
            Diagnostic::error(format!("duplicate tool name `{}`", name.value))
                .with_label(ck.label(&name.referenced))
                .with_note(format!("first declared at {first}"))
                .with_help("declare each tool once; use `overrides:` for profile-specific wording"),
        );
        return None;
    }
    let site = format!("{}:{}:{}", ck.file.display, name.referenced.line(), name.referenced.column());
    sites.insert(name.value.clone(), site);
    if !is_ident(&rt.toolset.value, &['-']) {
        ok = false;
        ck.error(
            &rt.toolset.referenced,
            format!("invalid toolset name `{}`", rt.toolset.value),
            "toolset names start with a letter and contain letters, digits, `_` or `-`",
        );
    }
    Some(ok)
}

/// The tool's parameters and the shape of their object; problems clear `ok`.
fn parameters(
    ck: &mut Checker<'_>,
    rt: &RawTool,
    switches: &IndexMap<String, Switch>,
    ok: &mut bool,
) -> (Vec<Property>, ObjectShape) {
    let carried = [
        ("input_schema", SchemaDialect::JsonSchema, rt.input_schema.as_ref()),
        ("gemini_parameters", SchemaDialect::OpenApi, rt.gemini_parameters.as_ref()),
    ];
    let given: Vec<_> = carried.iter().filter_map(|(k, d, s)| s.map(|s| (*k, *d, s))).collect();
    if let Some(none) = rt.no_parameters.as_ref().filter(|n| n.value) {
        let typed = (!rt.parameters.is_empty()).then_some("parameters");
        if let Some(key) = given.first().map(|(k, _, _)| *k).or(typed) {
            *ok = false;
            ck.error(
                &none.referenced,
                format!("tool `{}` has `no_parameters: true` and `{key}`", rt.name.value),
                "a tool either sends no parameter schema at all or gives its parameters: remove one of them",
            );
        }
    }
    if let [(key, dialect, schema), rest @ ..] = given.as_slice() {
        if let Some((other, _, s)) = rest.first() {
            *ok = false;
            ck.error(
                &s.referenced,
                format!("tool `{}` has both `{key}` and `{other}`", rt.name.value),
                "give the parameters once: as JSON Schema (`input_schema`) or in Gemini's OpenAPI subset (`gemini_parameters`)",
            );
        }
        return input_schema(ck, rt, key, *dialect, schema, ok);
    }
    let mut builder = SchemaBuilder::new(ck.file);
    let mut when_errors = Diagnostics::new(ErrorKind::Project);
    let params = {
        let file = ck.file;
        let mut parse_when = |w: &S| {
            let mut sub = Checker::new(file, &mut when_errors);
            sub.when(w, switches)
        };
        builder.properties(&rt.parameters, true, &mut parse_when)
    };
    let mut shape = builder.shape(rt.additional_properties.as_ref(), rt.required_order.as_ref(), &params);
    shape.absent = rt.no_parameters.as_ref().is_some_and(|n| n.value);
    for d in builder.problems {
        *ok = false;
        ck.diags.push(d);
    }
    if !when_errors.is_empty() {
        *ok = false;
        ck.diags.absorb::<()>(when_errors.finish(()).map(|_| ()));
    }
    (params, shape)
}

/// The parameters of a tool written as one schema (`input_schema:` in JSON Schema, or
/// `gemini_parameters:` in Gemini's OpenAPI subset), read into their typed view; the schema
/// itself is carried as written. Problems clear `ok`.
fn input_schema(
    ck: &mut Checker<'_>,
    rt: &RawTool,
    key: &str,
    dialect: SchemaDialect,
    schema: &Spanned<serde_json::Value>,
    ok: &mut bool,
) -> (Vec<Property>, ObjectShape) {
    let at = &schema.referenced;
    let typed_keys = [
        (
            "parameters",
            (!rt.parameters.is_empty()).then(|| rt.parameters.keys().next().map(|k| k.referenced)).flatten(),
        ),
        ("additional_properties", rt.additional_properties.as_ref().map(|a| a.referenced)),
        ("required_order", rt.required_order.as_ref().map(|r| r.referenced)),
    ];
    for (typed, loc) in typed_keys {
        if let Some(loc) = loc {
            *ok = false;
            ck.error(
                &loc,
                format!("tool `{}` has both `{key}` and `{typed}`", rt.name.value),
                format!("give the parameters one way: as a schema under `{key}`, or typed under `parameters`"),
            );
        }
    }
    let Some(root) = schema.value.as_object() else {
        *ok = false;
        ck.error(
            at,
            format!("`{key}` must be a schema object (a mapping)"),
            format!("write `{key}:` with `type: object` and `properties:` below it"),
        );
        return (Vec::new(), ObjectShape::default());
    };
    match crate::model::params::input_schema(root, dialect) {
        Ok((mut params, shape)) => {
            // The typed view's properties point at the schema that declares them.
            let span = ck.span(at);
            params.iter_mut().for_each(|p| p.span = span.clone());
            (params, shape)
        }
        Err(problem) => {
            *ok = false;
            ck.error(
                at,
                format!("tool `{}`: {} (at `{}` of its `{key}`)", rt.name.value, problem.message, problem.path),
                problem.help,
            );
            (Vec::new(), ObjectShape::default())
        }
    }
}

/// The provider entry fields (`provider_fields:`), each a key promptc's own entry does not
/// write: a field promptc writes is the catalog's to say, not a verbatim copy's.
fn provider_fields(ck: &mut Checker<'_>, rt: &RawTool, ok: &mut bool) -> crate::model::catalog::ProviderFields {
    let Some(fields) = &rt.provider_fields else { return Default::default() };
    let mut out = crate::model::catalog::ProviderFields::new();
    for (provider, map) in &fields.value {
        let own = provider.info().entry_keys;
        // A tool without a description may carry the key as its input had it (`null`, in
        // Python SDK dumps of MCP tools): promptc writes none then.
        let carried = |k: &str| k == "description" && rt.description.is_none();
        if let Some(k) = map.keys().find(|k| own.contains(&k.as_str()) && !carried(k)) {
            *ok = false;
            ck.error(
                &fields.referenced,
                format!("`provider_fields.{provider}` sets `{k}`, which promptc writes itself"),
                "give it in the tool's own keys (name, description, parameters, strict_tools in promptc.yaml)",
            );
        }
        out.insert(*provider, map.clone());
    }
    out
}

/// The order of a provider's entry keys (`provider_key_order:`): each key once, and each a key
/// such an entry can have (promptc's own, a field its SDK declares, or one of the tool's
/// `provider_fields`), so that a misspelt key cannot leave the order silently unapplied.
fn provider_key_order(ck: &mut Checker<'_>, rt: &RawTool, ok: &mut bool) -> crate::model::catalog::KeyOrder {
    let Some(orders) = &rt.provider_key_order else { return Default::default() };
    let mut out = crate::model::catalog::KeyOrder::new();
    for (provider, keys) in &orders.value {
        let info = provider.info();
        let fields = rt.provider_fields.as_ref().and_then(|f| f.value.get(provider));
        let mut seen: Vec<&str> = Vec::new();
        for k in keys {
            let known = info.entry_keys.contains(&k.value.as_str())
                || info.entry_fields.contains(&k.value.as_str())
                || fields.is_some_and(|f| f.contains_key(&k.value));
            if seen.contains(&k.value.as_str()) {
                *ok = false;
                ck.error(
                    &k.referenced,
                    format!("`provider_key_order.{provider}` names `{}` twice", k.value),
                    "name each key of the entry once",
                );
            } else if !known {
                *ok = false;
                ck.error(
                    &k.referenced,
                    format!(
                        "`provider_key_order.{provider}` names `{}`, which the tool's {provider} entry cannot have",
                        k.value
                    ),
                    format!(
                        "name promptc's own keys ({}), a field of {provider}'s tool entries or one of the tool's \
                         `provider_fields.{provider}`",
                        info.entry_keys.join(", ")
                    ),
                );
            }
            seen.push(&k.value);
        }
        out.insert(*provider, keys.iter().map(|k| k.value.clone()).collect());
    }
    out
}

/// Per-profile parameters: `profiles:` on a top-level parameter (the builder refuses it on
/// nested ones).
fn parameter_profiles(
    ck: &mut Checker<'_>,
    rt: &RawTool,
    mut params: Vec<Property>,
    env: &ToolEnv<'_>,
    ok: &mut bool,
) -> Vec<Property> {
    for p in &mut params {
        let Some(raw) = rt.parameters.iter().find(|(k, _)| k.value == p.name).map(|(_, v)| v) else { continue };
        let what = format!("parameter `{}` of tool `{}`", p.name, rt.name.value);
        match profile_list(ck, raw.profiles.as_ref(), &what, env) {
            Some(list) => p.profiles = list,
            None => *ok = false,
        }
    }
    params
}
