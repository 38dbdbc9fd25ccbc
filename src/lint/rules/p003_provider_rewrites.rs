//! P003 provider-rewrites: schema keywords a provider projection drops or rewrites.

use std::collections::BTreeMap;

use crate::code::{Level, RuleCode};
use crate::diagnostic::Diagnostic;
use crate::lint::registry::Rule;
use crate::lint::rules::p002_provider_rejects::tool_label;
use crate::lint::{finding, CellView};
use crate::model::params::{Kind, ObjectShape, Property, Schema};
use crate::model::provider::Provider;
use crate::model::transport::Transport;
use crate::model::Project;

pub const RULE: Rule = Rule {
    code: RuleCode::P003,
    name: "provider-rewrites",
    default: Level::Warn,
    summary: "a projection drops or rewrites a schema keyword for a provider",
    explain: "A parameter uses a keyword a provider does not accept, so promptc's projection drops or rewrites it: \
        Gemini keeps only the `date-time` string format and enums on strings (other formats and numeric enums move \
        into the description); OpenAI strict mode has no `default`, `min_length`/`max_length` or formats outside its \
        list (array items included). The model sees less than the canonical schema says.\n\nFix: if the constraint \
        matters, say it in the description; or allow the rule where the rewrite is intended.",
};

/// Every schema node of a tool's parameters with a dotted path (`edits[].search`).
fn walk<'a>(props: &'a [Property], prefix: &str, out: &mut Vec<(String, &'a Schema)>) {
    fn node<'a>(s: &'a Schema, path: String, out: &mut Vec<(String, &'a Schema)>) {
        out.push((path.clone(), s));
        match &s.kind {
            Kind::Object { properties, .. } => walk(properties, &path, out),
            Kind::Array { items, .. } => node(items, format!("{path}[]"), out),
            _ => {}
        }
    }
    for p in props {
        let path = if prefix.is_empty() { p.name.clone() } else { format!("{prefix}.{}", p.name) };
        node(&p.schema, path, out);
    }
}

/// What happens to an object's declared `additional_properties` (`path` names it).
fn object_rewrites(out: &mut Vec<String>, path: &str, shape: &ObjectShape, strict: bool, subset: Option<&str>) {
    match shape.additional_properties {
        Some(true) if strict => out.push(format!(
            "openai strict: `{path}`: additional_properties: true is not supported: strict mode sends false"
        )),
        Some(_) => {
            if let Some(g) = subset {
                out.push(format!("{g}: `{path}`: additional_properties is not supported: it is dropped"))
            }
        }
        _ => {}
    }
}

/// One finding per tool listing every keyword some enabled provider drops or rewrites.
pub(crate) fn check(project: &Project, views: &[CellView], out: &mut Vec<Diagnostic>) {
    // The enabled providers whose schema subset rewrites (the OpenAPI subset), and whether
    // strict mode applies: both read from the provider table.
    let subset: Option<Provider> = project.providers.iter().copied().find(|p| p.info().openapi_subset);
    let g = subset.map(Provider::as_str);
    let gemini = subset.is_some();
    let subset_formats = subset.and_then(|p| p.info().formats);
    let strict_provider = project.providers.iter().copied().find(|p| p.info().strict_mode);
    let strict = project.strict_tools && strict_provider.is_some();
    let strict_formats = strict_provider.map(|p| p.info().strict_formats).unwrap_or_default();
    let mut per_tool: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for v in views.iter().filter(|v| v.cell.transport == Transport::Native) {
        for t in &v.compiled.tools {
            let mut nodes = Vec::new();
            walk(&t.params, "", &mut nodes);
            let mut root = Vec::new();
            object_rewrites(&mut root, "(parameters)", &t.shape, strict, g);
            let notes = per_tool.entry(t.name.clone()).or_default();
            for r in root {
                if !notes.contains(&r) {
                    notes.push(r);
                }
            }
            for (path, s) in nodes {
                let mut rewrites: Vec<String> = Vec::new();
                match &s.kind {
                    Kind::String { format, min_length, max_length, .. } => {
                        if let Some(f) = format {
                            if let (Some(g), Some(ok)) = (g, subset_formats) {
                                if !ok.contains(&f.as_str()) {
                                    rewrites.push(format!(
                                        "{g}: `{path}`: format `{f}` is not supported: it moves into the description"
                                    ));
                                }
                            }
                            if strict && !strict_formats.contains(&f.as_str()) {
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
                            "{}: `{path}`: enums are only allowed on strings: the values move into the description",
                            g.unwrap_or_default()
                        ));
                    }
                    Kind::Number { enum_values, .. } if !enum_values.is_empty() && gemini => {
                        rewrites.push(format!(
                            "{}: `{path}`: enums are only allowed on strings: the values move into the description",
                            g.unwrap_or_default()
                        ));
                    }
                    _ => {}
                }
                if let Kind::Object { shape, .. } = &s.kind {
                    object_rewrites(&mut rewrites, &path, shape, strict, g);
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
        let mut d = finding(
            RuleCode::P003,
            format!(
                "tool `{tool}`: {} schema keyword{} dropped or rewritten in \
            provider projections",
                notes.len(),
                if notes.len() == 1 { " is" } else { "s are" }
            ),
        )
        .with_label(tool_label(project, &tool))
        .with_help(
            "say the constraint in the description if the model must respect it, or allow P003 where the \
                rewrite is intended",
        );
        for n in notes {
            d = d.with_note(n);
        }
        out.push(d);
    }
}
