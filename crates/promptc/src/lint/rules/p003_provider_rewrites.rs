//! P003 provider-rewrites: schema keywords a provider projection drops or rewrites.

use std::collections::BTreeMap;

use crate::code::{Level, RuleCode};
use crate::diagnostic::Diagnostic;
use crate::lint::registry::Rule;
use crate::lint::rules::p002_provider_rejects::tool_label;
use crate::lint::{finding, CellView};
use crate::model::params::SchemaDialect;
use crate::model::params::{Kind, ObjectShape, Property, Schema};
use crate::model::provider::{GeminiSchema, Provider};
use crate::model::transport::Transport;
use crate::model::Project;
use crate::projection::verbatim;

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

/// What the enabled providers rewrite, read from the provider table: the provider whose schema
/// subset rewrites (the OpenAPI subset) and the formats it keeps, and whether strict mode
/// applies and the formats it keeps.
struct Rewriters {
    /// The subset provider's name (Gemini), if enabled.
    subset: Option<&'static str>,
    /// The string formats the subset keeps (`None`: every format).
    subset_formats: Option<&'static [&'static str]>,
    /// Whether strict mode applies (the project asks for it and a strict provider is enabled).
    strict: bool,
    /// The string formats strict mode keeps.
    strict_formats: &'static [&'static str],
}

impl Rewriters {
    /// The rewriters among `project`'s enabled providers.
    fn of(project: &Project) -> Rewriters {
        // Gemini converts to its OpenAPI subset unless it is sent JSON Schema itself.
        let subset: Option<Provider> = project
            .providers
            .iter()
            .copied()
            .find(|p| p.info().openapi_subset)
            .filter(|_| project.gemini_schema == GeminiSchema::Openapi);
        let strict_provider = project.providers.iter().copied().find(|p| p.info().strict_mode);
        Rewriters {
            subset: subset.map(Provider::as_str),
            subset_formats: subset.and_then(|p| p.info().formats),
            strict: project.strict_tools && strict_provider.is_some(),
            strict_formats: strict_provider.map(|p| p.info().strict_formats).unwrap_or_default(),
        }
    }

    /// Every rewrite of one schema node (`path` names it), in the order the finding lists them.
    fn node(&self, path: &str, s: &Schema) -> Vec<String> {
        let mut rewrites: Vec<String> = Vec::new();
        match &s.kind {
            Kind::String { format, min_length, max_length, .. } => {
                self.string(&mut rewrites, path, format.as_deref(), min_length.is_some() || max_length.is_some())
            }
            Kind::Integer { enum_values, .. } if !enum_values.is_empty() => self.numeric_enum(&mut rewrites, path),
            Kind::Number { enum_values, .. } if !enum_values.is_empty() => self.numeric_enum(&mut rewrites, path),
            Kind::Object { shape, .. } => object_rewrites(&mut rewrites, path, shape, self.strict, self.subset),
            _ => {}
        }
        if s.default.is_some() && self.strict {
            rewrites.push(format!("openai strict: `{path}`: `default` is not supported: it is dropped"));
        }
        rewrites
    }

    /// A string's format (moved or dropped) and length bounds (dropped in strict mode).
    fn string(&self, out: &mut Vec<String>, path: &str, format: Option<&str>, has_length: bool) {
        if let Some(f) = format {
            if let (Some(g), Some(ok)) = (self.subset, self.subset_formats) {
                if !ok.contains(&f) {
                    out.push(format!("{g}: `{path}`: format `{f}` is not supported: it moves into the description"));
                }
            }
            if self.strict && !self.strict_formats.contains(&f) {
                out.push(format!("openai strict: `{path}`: format `{f}` is not supported: it is dropped"));
            }
        }
        if self.strict && has_length {
            out.push(format!("openai strict: `{path}`: min_length/max_length are not supported: they are dropped"));
        }
    }

    /// An integer or number enum: the subset keeps enums on strings only.
    fn numeric_enum(&self, out: &mut Vec<String>, path: &str) {
        if let Some(g) = self.subset {
            out.push(format!("{g}: `{path}`: enums are only allowed on strings: the values move into the description"));
        }
    }
}

/// Add `rewrites` to a tool's notes, each once, in first-seen order.
fn note_once(notes: &mut Vec<String>, rewrites: Vec<String>) {
    for r in rewrites {
        if !notes.contains(&r) {
            notes.push(r);
        }
    }
}

/// One finding per tool listing every keyword some enabled provider drops or rewrites.
pub(crate) fn check(project: &Project, views: &[CellView], out: &mut Vec<Diagnostic>) {
    let rewriters = Rewriters::of(project);
    let mut per_tool: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for v in views.iter().filter(|v| v.cell.transport == Transport::Native) {
        for t in &v.compiled.tools {
            // A schema written as JSON Schema: the projections' own conversions say what they
            // change.
            if let Some(root) = &t.shape.json {
                let mut notes = Vec::new();
                let dialect = t.shape.dialect;
                // Gemini's own schema converted for the providers that take JSON Schema.
                if dialect == SchemaDialect::OpenApi && project.providers.iter().any(|p| !p.info().openapi_subset) {
                    verbatim::json_schema(root, dialect, &t.params, &mut notes);
                }
                if rewriters.strict {
                    let mut strict_notes = Vec::new();
                    verbatim::strict(root, dialect, &t.params, &mut strict_notes);
                    strict_notes.retain(|n| n.starts_with("openai strict"));
                    notes.extend(strict_notes);
                }
                if rewriters.subset.is_some() {
                    verbatim::gemini(root, dialect, &t.params, &mut notes);
                }
                note_once(per_tool.entry(t.name.clone()).or_default(), notes);
                continue;
            }
            let mut nodes = Vec::new();
            walk(&t.params, "", &mut nodes);
            let mut root = Vec::new();
            object_rewrites(&mut root, "(parameters)", &t.shape, rewriters.strict, rewriters.subset);
            let notes = per_tool.entry(t.name.clone()).or_default();
            note_once(notes, root);
            for (path, s) in nodes {
                note_once(notes, rewriters.node(&path, s));
            }
        }
    }
    // One finding per tool, every rewrite listed.
    for (tool, notes) in per_tool.into_iter().filter(|(_, n)| !n.is_empty()) {
        out.push(tool_finding(project, &tool, notes));
    }
}

/// The finding of one tool, each rewrite a note.
fn tool_finding(project: &Project, tool: &str, notes: Vec<String>) -> Diagnostic {
    let mut d = finding(
        RuleCode::P003,
        format!(
            "tool `{tool}`: {} schema keyword{} dropped or rewritten in \
            provider projections",
            notes.len(),
            if notes.len() == 1 { " is" } else { "s are" }
        ),
    )
    .with_label(tool_label(project, tool))
    .with_help(
        "say the constraint in the description if the model must respect it, or allow P003 where the \
            rewrite is intended",
    );
    for n in notes {
        d = d.with_note(n);
    }
    d
}
