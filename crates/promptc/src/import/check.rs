//! Each tool found in the input checked and converted: its name (valid, once, one file
//! even on case-insensitive file systems), its description, its parameters (by `schema`),
//! and the project's one strict mode agreed from the tools' `strict` flags.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::diagnostic::Diagnostic;
use crate::model::catalog::valid_tool_name;
use crate::model::params::{input_schema, SchemaDialect};

use super::files::file_name;
use super::forms::Found;
use super::Problem;

/// One converted tool.
pub(super) struct Tool {
    /// The JSON path of its definition in the input.
    pub(super) path: String,
    /// The form its entry is written in: its fields and key order are that provider's.
    pub(super) form: super::ImportFormat,
    pub(super) name: String,
    /// None: the input gives no description (absent or `null`).
    pub(super) description: Option<String>,
    pub(super) params: Option<Params>,
    /// The entry's other fields, sent back as written to the provider of the input's form.
    pub(super) fields: serde_json::Map<String, Value>,
    /// The entry's keys in input order, when promptc's would differ.
    pub(super) key_order: Option<Vec<String>>,
}

/// A tool's parameters as the input has them, and the language they are in (Gemini's
/// `parameters` are its OpenAPI subset; every other form's schema is JSON Schema).
pub(super) struct Params {
    pub(super) schema: Value,
    pub(super) dialect: SchemaDialect,
}

/// The tools converted so far, and what later tools are checked against.
#[derive(Default)]
pub(super) struct Converted {
    /// The tools, in input order.
    pub(super) tools: Vec<Tool>,
    /// Each tool name and the path that declared it first.
    seen: BTreeMap<String, String>,
    /// Each catalog file name, lower-cased, and the tool it belongs to.
    files_seen: BTreeMap<String, String>,
    /// The `strict` flag of each tool that has one, with its name.
    pub(super) stricts: Vec<(bool, String)>,
    /// Whether each Gemini declaration with parameters gave them as `parametersJsonSchema`.
    pub(super) gemini_json: Vec<bool>,
}

impl Converted {
    /// Check and convert `f`, or record why it cannot be imported.
    pub(super) fn add(&mut self, f: &Found<'_>, problems: &mut Vec<Problem>) {
        let Some(name) = self.name(f, problems) else { return };
        let Some(description) = description(f, name, problems) else { return };
        if f.gemini && f.schema.is_some() {
            self.gemini_json.push(f.json_schema);
        }
        // The schema is carried as written; the loader's own reading of it decides what a
        // catalog accepts, so the two never disagree.
        let params = match &f.schema {
            Some((s, path)) => {
                let dialect = if f.json_schema { SchemaDialect::JsonSchema } else { SchemaDialect::OpenApi };
                match s.as_object().map(|m| input_schema(m, dialect)) {
                    Some(Ok(_)) => Some(Params { schema: (*s).clone(), dialect }),
                    Some(Err(p)) => {
                        let at = format!("{path}{}", p.path.trim_start_matches('$'));
                        let d =
                            Diagnostic::error(format!("tool `{name}`: {} (at `{at}`)", p.message)).with_help(p.help);
                        problems.push((at, d));
                        return;
                    }
                    None => {
                        problems.push((
                            path.clone(),
                            Diagnostic::error(format!(
                                "tool `{name}`: the parameters must be a schema object, found {} (at `{path}`)",
                                crate::diagnostic::excerpt(&s.to_string(), 40)
                            )),
                        ));
                        return;
                    }
                }
            }
            None => None,
        };
        // A field is written five levels down its catalog file (the tool list, the tool,
        // `provider_fields`, the provider, the field): deeper than the YAML reader takes, it
        // would make a project that does not load.
        if let Some((k, _)) = f.fields.iter().find(|(_, v)| nesting(v) > MAX_FIELD_NESTING) {
            let at = format!("{}.{k}", f.path);
            problems.push((
                at.clone(),
                Diagnostic::error(format!(
                    "tool `{name}`: `{k}` nests deeper than {MAX_FIELD_NESTING} levels (at `{at}`)"
                ))
                .with_help("no provider needs a field this deep: flatten it, or leave it out of the input"),
            ));
            return;
        }
        if let Some(s) = f.strict {
            self.stricts.push((s, name.to_string()));
        }
        self.tools.push(Tool {
            path: f.path.clone(),
            form: f.form,
            name: name.to_string(),
            description,
            params,
            fields: f.fields.clone(),
            key_order: f.key_order.clone(),
        });
    }

    /// The tool's name, when it is a valid one no earlier tool took (nor its file name).
    fn name<'a>(&mut self, f: &Found<'a>, problems: &mut Vec<Problem>) -> Option<&'a str> {
        let Some(name) = f.name.as_str() else {
            problems.push((
                format!("{}.name", f.path),
                Diagnostic::error(format!("`{}.name` must be a string, found {}", f.path, f.name)),
            ));
            return None;
        };
        if !valid_tool_name(name) {
            problems.push((
                format!("{}.name", f.path),
                Diagnostic::error(format!(
                    "invalid tool name `{}` (at `{}.name`)",
                    // Control characters shown escaped: a NUL must not vanish from the message.
                    crate::diagnostic::excerpt(&name.escape_debug().to_string(), 80),
                    f.path
                ))
                .with_help(
                    "tool names are letters, digits, `_`, `-` or `.`, at most 64 characters; rename the tool in the \
                     input",
                ),
            ));
            return None;
        }
        if let Some(first) = self.seen.get(name) {
            problems.push((
                format!("{}.name", f.path),
                Diagnostic::error(format!("tool `{name}` is defined twice: at `{first}` and at `{}`", f.path))
                    .with_help("a promptc catalog declares each tool once; remove or rename one of them"),
            ));
            return None;
        }
        self.seen.insert(name.to_string(), f.path.clone());
        let file = file_name(name).to_ascii_lowercase();
        if let Some(other) = self.files_seen.get(&file) {
            problems.push((
                format!("{}.name", f.path),
                Diagnostic::error(format!(
                    "tools `{other}` and `{name}` differ only in letter case: their catalog files would be one file \
                     on case-insensitive file systems"
                ))
                .with_help("rename one of them in the input"),
            ));
            return None;
        }
        self.files_seen.insert(file, name.to_string());
        Some(name)
    }
}

/// The deepest a carried entry field may nest (objects and lists): the catalog's YAML reader
/// takes 48 levels, and the field sits five down.
const MAX_FIELD_NESTING: usize = 42;

/// How deeply `v` nests objects and lists (a scalar: 0). The input's JSON parser already
/// bounds it (128 levels), so the recursion is bounded too.
fn nesting(v: &Value) -> usize {
    match v {
        Value::Object(m) => 1 + m.values().map(nesting).max().unwrap_or(0),
        Value::Array(a) => 1 + a.iter().map(nesting).max().unwrap_or(0),
        _ => 0,
    }
}

/// The tool's description: a string (even empty) as written, or none (absent, or `null`, which
/// `forms` carries as a field): every provider and MCP take a tool without one.
fn description(f: &Found<'_>, name: &str, problems: &mut Vec<Problem>) -> Option<Option<String>> {
    match f.description {
        Some(Value::String(s)) => Some(Some(s.clone())),
        None | Some(Value::Null) => Some(None),
        Some(other) => {
            problems.push((
                format!("{}.description", f.path),
                Diagnostic::error(format!(
                    "tool `{name}`: the description must be a string, found {other} (at `{}.description`)",
                    f.path
                )),
            ));
            None
        }
    }
}

/// The manifest's `strict_tools`: the option when given, else what the tools' flags agree on
/// (a problem when they disagree).
pub(super) fn strict_mode(option: Option<bool>, stricts: &[(bool, String)], problems: &mut Vec<Problem>) -> bool {
    if let Some(s) = option {
        return s;
    }
    let on: Vec<&str> = stricts.iter().filter(|(s, _)| *s).map(|(_, n)| n.as_str()).collect();
    let off: Vec<&str> = stricts.iter().filter(|(s, _)| !*s).map(|(_, n)| n.as_str()).collect();
    if !on.is_empty() && !off.is_empty() {
        problems.push((
            String::new(),
            Diagnostic::error(format!(
                "the tools disagree on OpenAI strict mode: strict {} ({}), not strict {} ({})",
                on.len(),
                list_names(&on),
                off.len(),
                list_names(&off)
            ))
            .with_help(
                "a promptc project sets strict mode for all its tools (`strict_tools`); choose one with \
                 --strict-tools true or --strict-tools false",
            ),
        ));
    }
    !on.is_empty() && off.is_empty()
}

/// Up to five names, quoted, for a message.
fn list_names(names: &[&str]) -> String {
    let shown: Vec<String> = names.iter().take(5).map(|n| format!("`{n}`")).collect();
    format!("{}{}", shown.join(", "), if names.len() > 5 { ", …" } else { "" })
}
