//! The XML transport: tool documentation rendered into the prompt text, one block per tool
//! with its description, parameters (required/optional) and the call shape.

use std::fmt::Write as _;

use serde_json::{json, Value};

use crate::model::params::{Kind, Property, Schema};
use crate::resolve::tools::ActiveTool;

/// One tool's block (the tool docs section joins them with a blank line, or the project's
/// `tool_docs.separator`).
pub fn tool_block(t: &ActiveTool) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "## {}", t.name);
    // As the model holds it: trimmed at load under `descriptions: trim`, byte for byte under
    // `verbatim` (a final newline there shows as a blank line, as in the JSON it is a `\n`).
    if !t.undescribed {
        let _ = writeln!(out, "Description: {}", t.description);
    }
    if t.params.is_empty() {
        out.push_str("Parameters: none\n");
    } else {
        out.push_str("Parameters:\n");
        for p in &t.params {
            param_lines(&mut out, p, 0);
        }
    }
    out.push_str("Usage:\n");
    let _ = writeln!(out, "<{}>", t.name);
    for p in &t.params {
        let _ = writeln!(out, "<{0}>{1}</{0}>", p.name, usage_value(p));
    }
    let _ = write!(out, "</{}>", t.name);
    out
}

/// One parameter's lines in its tool's block (nested properties included), for reports.
pub fn param_text(p: &Property) -> String {
    let mut out = String::new();
    param_lines(&mut out, p, 0);
    out
}

fn param_lines(out: &mut String, p: &Property, depth: usize) {
    let indent = "  ".repeat(depth);
    let mut facts =
        vec![if p.required { "required".to_string() } else { "optional".to_string() }, type_phrase(&p.schema)];
    facts.extend(constraints(&p.schema));
    let line = format!("{indent}- {}: ({})", p.name, facts.join(", "));
    match p.schema.description.as_deref().filter(|d| !d.is_empty()) {
        Some(desc) => {
            let _ = writeln!(out, "{line} {desc}");
        }
        None => {
            let _ = writeln!(out, "{line}");
        }
    }
    let nested = match &p.schema.kind {
        Kind::Object { properties, .. } => Some(properties),
        Kind::Array { items, .. } => match &items.kind {
            Kind::Object { properties, .. } => Some(properties),
            _ => None,
        },
        _ => None,
    };
    for child in nested.into_iter().flatten() {
        param_lines(out, child, depth + 1);
    }
}

fn type_phrase(s: &Schema) -> String {
    let base = match &s.kind {
        Kind::Array { items, .. } => format!("array of {}", plural(&items.kind)),
        k => k.type_name().to_string(),
    };
    if s.nullable {
        format!("{base} or null")
    } else {
        base
    }
}

fn plural(k: &Kind) -> String {
    match k {
        Kind::Array { items, .. } => format!("arrays of {}", plural(&items.kind)),
        Kind::Boolean => "booleans".into(),
        other => format!("{}s", other.type_name()),
    }
}

fn constraints(s: &Schema) -> Vec<String> {
    let mut out = Vec::new();
    match &s.kind {
        Kind::String { enum_values, format, pattern, min_length, max_length } => {
            if !enum_values.is_empty() {
                out.push(format!("one of: {}", enum_values.join(", ")));
            }
            if let Some(f) = format {
                out.push(format!("format {f}"));
            }
            if let Some(p) = pattern {
                out.push(format!("matching {p}"));
            }
            if let Some(v) = min_length {
                out.push(format!("at least {v} {}", if *v == 1 { "character" } else { "characters" }));
            }
            if let Some(v) = max_length {
                out.push(format!("at most {v} {}", if *v == 1 { "character" } else { "characters" }));
            }
        }
        Kind::Integer { enum_values, minimum, maximum } => numeric(&mut out, enum_values, minimum, maximum),
        Kind::Number { enum_values, minimum, maximum } => numeric(&mut out, enum_values, minimum, maximum),
        // A schema promptc does not type is shown as written (but its description, said already).
        Kind::Any => {
            if let Some(json) = &s.json {
                let mut rest = json.clone();
                rest.shift_remove("description");
                out.push(format!("schema {}", Value::Object(rest)));
            }
        }
        Kind::Array { min_items, max_items, .. } => {
            if let Some(v) = min_items {
                out.push(format!("at least {v} {}", if *v == 1 { "item" } else { "items" }));
            }
            if let Some(v) = max_items {
                out.push(format!("at most {v} {}", if *v == 1 { "item" } else { "items" }));
            }
        }
        Kind::Boolean | Kind::Object { .. } => {}
    }
    if let Some(d) = &s.default {
        out.push(format!("default: {}", compact(d)));
    }
    out
}

/// Enum and bounds of an integer or number parameter.
fn numeric<T: std::fmt::Display>(out: &mut Vec<String>, enum_values: &[T], minimum: &Option<T>, maximum: &Option<T>) {
    if !enum_values.is_empty() {
        out.push(format!("one of: {}", enum_values.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", ")));
    }
    if let Some(v) = minimum {
        out.push(format!("minimum {v}"));
    }
    if let Some(v) = maximum {
        out.push(format!("maximum {v}"));
    }
}

fn compact(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The placeholder shown inside a parameter's tag in the usage block: prose for scalars, a
/// JSON skeleton for structured values (which are passed as JSON text).
fn usage_value(p: &Property) -> String {
    match &p.schema.kind {
        Kind::Array { .. } | Kind::Object { .. } => example(&p.schema).to_string(),
        Kind::String { enum_values, .. } if !enum_values.is_empty() => enum_values.join(" | "),
        Kind::Boolean => "true or false".into(),
        _ => format!("{} here", p.name.replace('_', " ")),
    }
}

fn example(s: &Schema) -> Value {
    match &s.kind {
        Kind::String { enum_values, .. } => enum_values.first().map_or_else(|| json!("…"), |v| json!(v)),
        Kind::Integer { enum_values, minimum, .. } => json!(enum_values.first().copied().or(*minimum).unwrap_or(0)),
        Kind::Number { enum_values, minimum, .. } => json!(enum_values.first().copied().or(*minimum).unwrap_or(0.0)),
        Kind::Boolean => json!(true),
        Kind::Any => json!("…"),
        Kind::Array { items, .. } => json!([example(items)]),
        Kind::Object { properties, .. } => {
            let mut m = serde_json::Map::new();
            for p in properties {
                m.insert(p.name.clone(), example(&p.schema));
            }
            Value::Object(m)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::condition::Condition;

    fn prop(name: &str, required: bool, desc: &str, kind: Kind) -> Property {
        Property {
            name: name.into(),
            required,
            schema: Schema { description: Some(desc.into()), nullable: false, default: None, kind, json: None },
            when: Condition::Always,
            profiles: Vec::new(),
            span: Default::default(),
        }
    }

    #[test]
    fn renders_description_parameters_and_usage() {
        let edit = Schema {
            description: None,
            nullable: false,
            default: None,
            kind: Kind::Object {
                properties: vec![
                    prop("search", true, "Text to find.", Kind::string()),
                    prop("replace", true, "Replacement.", Kind::string()),
                ],
                shape: Default::default(),
            },
            json: None,
        };
        let t = ActiveTool {
            name: "replace_in_file".into(),
            toolset: "files".into(),
            // As the loader leaves it under `descriptions: trim` (the block writes it as held).
            description: "Edit a file.".into(),
            params: vec![
                prop("path", true, "The file.", Kind::string()),
                prop(
                    "edits",
                    true,
                    "Edits to apply.",
                    Kind::Array { items: Box::new(edit), min_items: Some(1), max_items: None },
                ),
                prop("dry_run", false, "Only show the diff.", Kind::Boolean),
            ],
            ..Default::default()
        };
        assert_eq!(
            tool_block(&t),
            "## replace_in_file\nDescription: Edit a file.\nParameters:\n- path: (required, string) The file.\n- \
                edits: (required, array of objects, at least 1 item) Edits to apply.\n  - search: (required, string) \
                Text to find.\n  - replace: (required, string) Replacement.\n- dry_run: (optional, boolean) Only show \
                the diff.\nUsage:\n<replace_in_file>\n<path>path \
                here</path>\n<edits>[{\"search\":\"…\",\"replace\":\"…\"}]</edits>\n<dry_run>true or \
                false</dry_run>\n</replace_in_file>"
        );
    }

    #[test]
    fn tool_without_parameters() {
        let t =
            ActiveTool { name: "ping".into(), toolset: "x".into(), description: "Ping.".into(), ..Default::default() };
        assert_eq!(tool_block(&t), "## ping\nDescription: Ping.\nParameters: none\nUsage:\n<ping>\n</ping>");
    }
}
