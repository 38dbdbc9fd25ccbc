//! Google Gemini: `[{"functionDeclarations": […]}]` with parameters in Gemini's OpenAPI-style
//! schema subset. Conversions from the canonical schema:
//! - types are upper case (`STRING`, `OBJECT`, …), one type per node;
//! - `nullable: true` instead of a type array;
//! - `enum` only on strings: integer and number enums are dropped and the allowed values
//!   are appended to the description so the model still sees them;
//! - string `format` only `date-time` (others dropped, named in the description);
//! - no `additionalProperties`; `required` only when non-empty;
//! - a tool without parameters has no `parameters` key (Gemini rejects empty objects).

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::model::params::{Kind, ObjectShape, Property, Schema};
use crate::model::provider::Provider;
use crate::resolve::tools::ActiveTool;

/// The `tools` array for Gemini.
pub fn project(tools: &[ActiveTool], opts: super::ProjectionOptions) -> Value {
    if tools.is_empty() {
        return json!([]);
    }
    let decls: Vec<Value> = tools
        .iter()
        .map(|t| {
            let mut m = Map::new();
            m.insert("name".into(), json!(t.name));
            m.insert("description".into(), json!(t.description));
            if opts.gemini_json_schema {
                // Full JSON Schema, as written (or as promptc writes a typed one).
                if !t.params.is_empty() || t.shape.json.is_some() {
                    let schema =
                        super::json_schema::parameters(&t.params, &t.shape, super::json_schema::Dialect::Standard);
                    m.insert("parametersJsonSchema".into(), schema);
                }
            } else if let Some(root) = &t.shape.json {
                if let Some(p) = super::verbatim::gemini(root, t.shape.dialect, &t.params, &mut Vec::new()) {
                    m.insert("parameters".into(), p);
                }
            } else if !t.params.is_empty() {
                m.insert("parameters".into(), object(&t.params, &t.shape, None));
            }
            t.with_fields(Provider::Gemini, Value::Object(m))
        })
        .collect();
    json!([{ "functionDeclarations": decls }])
}

/// An object node: its properties, and `required` only when some are (no
/// `additionalProperties`, which Gemini does not take).
fn object(props: &[Property], shape: &ObjectShape, description: Option<String>) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), json!("OBJECT"));
    if let Some(d) = description {
        m.insert("description".into(), json!(d));
    }
    let mut properties = Map::new();
    for p in props {
        properties.insert(p.name.clone(), schema(&p.schema));
    }
    m.insert("properties".into(), Value::Object(properties));
    let required = shape.required(props, false);
    if !required.is_empty() {
        m.insert("required".into(), json!(required));
    }
    Value::Object(m)
}

/// Append a sentence to an optional description.
fn describe(desc: &Option<String>, extra: &str) -> Option<String> {
    Some(match desc {
        Some(d) if !d.trim().is_empty() => format!("{} {extra}", d.trim_end()),
        _ => extra.to_string(),
    })
}

/// One schema node in Gemini's subset: its type, its description (with what the subset cannot
/// say appended), `nullable`, the keywords Gemini keeps and the default, in that key order.
fn schema(s: &Schema) -> Value {
    let mut description = s.description.clone();
    let rest = keywords(&s.kind, &mut description);
    let mut m = Map::new();
    m.insert("type".into(), json!(type_name(&s.kind)));
    if let Some(d) = description {
        m.insert("description".into(), json!(d));
    }
    if s.nullable {
        m.insert("nullable".into(), json!(true));
    }
    m.extend(rest);
    if let Some(d) = &s.default {
        m.insert("default".into(), d.clone());
    }
    Value::Object(m)
}

/// Gemini's name of a node's type: upper case, one per node.
fn type_name(kind: &Kind) -> &'static str {
    match kind {
        Kind::String { .. } => "STRING",
        Kind::Integer { .. } => "INTEGER",
        Kind::Number { .. } => "NUMBER",
        Kind::Boolean => "BOOLEAN",
        Kind::Array { .. } => "ARRAY",
        Kind::Object { .. } => "OBJECT",
        // Only typed parameters reach here: an `input_schema` is converted as a whole
        // (`verbatim::gemini`).
        Kind::Any => "TYPE_UNSPECIFIED",
    }
}

/// The keywords Gemini keeps of a node of `kind`; what it cannot keep (numeric enums, most
/// formats) is appended to `description` so the model still sees it.
fn keywords(kind: &Kind, description: &mut Option<String>) -> Map<String, Value> {
    let mut rest = Map::new();
    match kind {
        Kind::String { enum_values, format, pattern, min_length, max_length } => {
            if !enum_values.is_empty() {
                rest.insert("enum".into(), json!(enum_values));
            }
            match format.as_deref() {
                Some(f) if Provider::Gemini.info().formats.is_none_or(|ok| ok.contains(&f)) => {
                    rest.insert("format".into(), json!(f));
                }
                Some(other) => *description = describe(description, &format!("Format: {other}.")),
                None => {}
            }
            insert_some(&mut rest, "pattern", pattern);
            insert_some(&mut rest, "minLength", min_length);
            insert_some(&mut rest, "maxLength", max_length);
        }
        Kind::Integer { enum_values, minimum, maximum } => {
            allowed_values(description, enum_values);
            insert_some(&mut rest, "minimum", minimum);
            insert_some(&mut rest, "maximum", maximum);
        }
        Kind::Number { enum_values, minimum, maximum } => {
            allowed_values(description, enum_values);
            insert_some(&mut rest, "minimum", minimum);
            insert_some(&mut rest, "maximum", maximum);
        }
        Kind::Boolean | Kind::Any => {}
        Kind::Array { items, min_items, max_items } => {
            rest.insert("items".into(), schema(items));
            insert_some(&mut rest, "minItems", min_items);
            insert_some(&mut rest, "maxItems", max_items);
        }
        Kind::Object { properties, shape } => {
            if let Value::Object(o) = object(properties, shape, None) {
                rest.extend(o.into_iter().filter(|(k, _)| k != "type"));
            }
        }
    }
    rest
}

/// `key: value` when the value is set.
fn insert_some<T: Serialize>(m: &mut Map<String, Value>, key: &str, value: &Option<T>) {
    if let Some(v) = value {
        m.insert(key.into(), json!(v));
    }
}

/// A numeric enum, which Gemini allows on strings only: its values appended to the description.
fn allowed_values<T: ToString>(description: &mut Option<String>, values: &[T]) {
    if !values.is_empty() {
        let list: Vec<String> = values.iter().map(|v| v.to_string()).collect();
        *description = describe(description, &format!("Allowed values: {}.", list.join(", ")));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::condition::Condition;

    fn prop(name: &str, required: bool, nullable: bool, kind: Kind) -> Property {
        Property {
            name: name.into(),
            required,
            schema: Schema { description: Some("D.".into()), nullable, default: None, kind, json: None },
            when: Condition::Always,
            profiles: Vec::new(),
            span: Default::default(),
        }
    }

    const OPTS: crate::projection::ProjectionOptions =
        crate::projection::ProjectionOptions { strict: false, gemini_json_schema: false };

    fn tool(params: Vec<Property>) -> ActiveTool {
        ActiveTool {
            name: "t".into(),
            toolset: "s".into(),
            description: "Does t.".into(),
            params,
            ..Default::default()
        }
    }

    fn params_of(v: &Value) -> &Value {
        &v[0]["functionDeclarations"][0]["parameters"]
    }

    #[test]
    fn types_are_upper_case_and_required_only_when_present() {
        let v = project(&[tool(vec![prop("a", false, false, Kind::Boolean)])], OPTS);
        let p = params_of(&v);
        assert_eq!(p["type"], json!("OBJECT"));
        assert_eq!(p["properties"]["a"]["type"], json!("BOOLEAN"));
        assert!(p.get("required").is_none());
        assert!(p.get("additionalProperties").is_none());
        assert_eq!(v[0]["functionDeclarations"][0]["description"], json!("Does t."));
    }

    #[test]
    fn nullable_instead_of_type_array() {
        let v = project(
            &[tool(vec![prop(
                "a",
                true,
                true,
                Kind::Integer { enum_values: vec![], minimum: Some(1), maximum: None },
            )])],
            OPTS,
        );
        let a = &params_of(&v)["properties"]["a"];
        assert_eq!(a["type"], json!("INTEGER"));
        assert_eq!(a["nullable"], json!(true));
        assert_eq!(a["minimum"], json!(1));
        assert_eq!(params_of(&v)["required"], json!(["a"]));
    }

    #[test]
    fn numeric_enums_move_into_the_description() {
        let v = project(
            &[tool(vec![prop(
                "n",
                true,
                false,
                Kind::Integer { enum_values: vec![1, 2], minimum: None, maximum: None },
            )])],
            OPTS,
        );
        let n = &params_of(&v)["properties"]["n"];
        assert!(n.get("enum").is_none());
        assert_eq!(n["description"], json!("D. Allowed values: 1, 2."));
    }

    #[test]
    fn string_enums_stay_and_unsupported_formats_are_described() {
        let v = project(
            &[tool(vec![
                prop(
                    "s",
                    true,
                    false,
                    Kind::String {
                        enum_values: vec!["a".into()],
                        format: Some("uri".into()),
                        pattern: None,
                        min_length: Some(2),
                        max_length: None,
                    },
                ),
                prop(
                    "when",
                    true,
                    false,
                    Kind::String {
                        enum_values: vec![],
                        format: Some("date-time".into()),
                        pattern: None,
                        min_length: None,
                        max_length: None,
                    },
                ),
            ])],
            OPTS,
        );
        let s = &params_of(&v)["properties"]["s"];
        assert_eq!(s["enum"], json!(["a"]));
        assert!(s.get("format").is_none());
        assert_eq!(s["description"], json!("D. Format: uri."));
        assert_eq!(s["minLength"], json!(2));
        assert_eq!(params_of(&v)["properties"]["when"]["format"], json!("date-time"));
    }

    #[test]
    fn nested_arrays_and_objects() {
        let inner = Schema {
            description: None,
            nullable: false,
            default: None,
            kind: Kind::Object { properties: vec![prop("x", true, false, Kind::Boolean)], shape: Default::default() },
            json: None,
        };
        let v = project(
            &[tool(vec![prop(
                "list",
                true,
                false,
                Kind::Array { items: Box::new(inner), min_items: None, max_items: Some(4) },
            )])],
            OPTS,
        );
        let l = &params_of(&v)["properties"]["list"];
        assert_eq!(l["type"], json!("ARRAY"));
        assert_eq!(l["maxItems"], json!(4));
        assert_eq!(l["items"]["type"], json!("OBJECT"));
        assert_eq!(l["items"]["required"], json!(["x"]));
        assert!(l["items"].get("additionalProperties").is_none());
    }

    #[test]
    fn tools_without_parameters_have_no_parameters_key() {
        let v = project(&[tool(vec![])], OPTS);
        assert!(v[0]["functionDeclarations"][0].get("parameters").is_none());
        assert_eq!(project(&[], OPTS), json!([]));
    }
}
