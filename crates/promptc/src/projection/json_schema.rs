//! Canonical schema → JSON Schema, in the two dialects the OpenAI and Anthropic projections
//! need. Gemini has its own converter.

use serde_json::{json, Map, Value};

use crate::model::params::{Kind, ObjectShape, Property, Schema};
use crate::model::provider::Provider;

/// Which JSON Schema rules to follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// Plain JSON Schema (draft 2020-12 compatible).
    Standard,
    /// OpenAI strict mode: every property required (optional ones nullable), closed
    /// objects, and only the keywords strict mode supports.
    OpenAiStrict,
}

/// The root parameters object of a tool.
pub fn parameters(props: &[Property], shape: &ObjectShape, dialect: Dialect) -> Value {
    if let Some(root) = &shape.json {
        let mut notes = Vec::new();
        return match dialect {
            Dialect::Standard => super::verbatim::json_schema(root, shape.dialect, props, &mut notes),
            Dialect::OpenAiStrict => super::verbatim::strict(root, shape.dialect, props, &mut notes),
        };
    }
    Value::Object(object(props, shape, dialect))
}

/// An object's keywords after `type`: `properties`, `required` (in the declared order) and
/// `additionalProperties` only where declared — or `false` everywhere in strict mode, which
/// requires closed objects.
fn object(props: &[Property], shape: &ObjectShape, dialect: Dialect) -> Map<String, Value> {
    let strict = dialect == Dialect::OpenAiStrict;
    let mut properties = Map::new();
    for p in props {
        properties.insert(p.name.clone(), schema(&p.schema, dialect, strict && !p.required));
    }
    let mut m = Map::new();
    m.insert("type".into(), json!("object"));
    m.insert("properties".into(), Value::Object(properties));
    // An empty list says nothing; strict mode keeps it (every property must be listed).
    let required = shape.required(props, strict);
    if strict || !required.is_empty() {
        m.insert("required".into(), json!(required));
    }
    match (strict, shape.additional_properties) {
        (true, _) => _ = m.insert("additionalProperties".into(), json!(false)),
        (false, Some(b)) => _ = m.insert("additionalProperties".into(), json!(b)),
        (false, None) => {}
    }
    m
}

/// One schema node. `force_nullable` makes an optional strict-mode property accept `null`.
pub fn schema(s: &Schema, dialect: Dialect, force_nullable: bool) -> Value {
    let strict = dialect == Dialect::OpenAiStrict;
    let nullable = s.nullable || force_nullable;
    let ty = s.kind.type_name();
    let mut m = Map::new();
    m.insert("type".into(), if nullable { json!([ty, "null"]) } else { json!(ty) });
    if let Some(d) = &s.description {
        m.insert("description".into(), json!(d));
    }
    let with_null = |mut values: Vec<Value>| {
        if nullable {
            values.push(Value::Null);
        }
        Value::Array(values)
    };
    match &s.kind {
        Kind::String { enum_values, format, pattern, min_length, max_length } => {
            if !enum_values.is_empty() {
                m.insert("enum".into(), with_null(enum_values.iter().map(|v| json!(v)).collect()));
            }
            if let Some(f) = format {
                if !strict || Provider::OpenAiChat.info().strict_formats.contains(&f.as_str()) {
                    m.insert("format".into(), json!(f));
                }
            }
            if let Some(p) = pattern {
                m.insert("pattern".into(), json!(p));
            }
            if !strict {
                if let Some(v) = min_length {
                    m.insert("minLength".into(), json!(v));
                }
                if let Some(v) = max_length {
                    m.insert("maxLength".into(), json!(v));
                }
            }
        }
        Kind::Integer { enum_values, minimum, maximum } => {
            if !enum_values.is_empty() {
                m.insert("enum".into(), with_null(enum_values.iter().map(|v| json!(v)).collect()));
            }
            insert_opt(&mut m, "minimum", minimum.map(|v| json!(v)));
            insert_opt(&mut m, "maximum", maximum.map(|v| json!(v)));
        }
        Kind::Number { enum_values, minimum, maximum } => {
            if !enum_values.is_empty() {
                m.insert("enum".into(), with_null(enum_values.iter().map(|v| json!(v)).collect()));
            }
            insert_opt(&mut m, "minimum", minimum.map(|v| json!(v)));
            insert_opt(&mut m, "maximum", maximum.map(|v| json!(v)));
        }
        Kind::Boolean | Kind::Any => {}
        Kind::Array { items, min_items, max_items } => {
            m.insert("items".into(), schema(items, dialect, false));
            insert_opt(&mut m, "minItems", min_items.map(|v| json!(v)));
            insert_opt(&mut m, "maxItems", max_items.map(|v| json!(v)));
        }
        Kind::Object { properties, shape } => {
            for (k, v) in object(properties, shape, dialect) {
                if k != "type" {
                    m.insert(k, v);
                }
            }
        }
    }
    if !strict {
        insert_opt(&mut m, "default", s.default.clone());
    }
    Value::Object(m)
}

fn insert_opt(m: &mut Map<String, Value>, key: &str, v: Option<Value>) {
    if let Some(v) = v {
        m.insert(key.into(), v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::condition::Condition;

    fn prop(name: &str, required: bool, kind: Kind) -> Property {
        Property {
            name: name.into(),
            required,
            schema: Schema { description: None, nullable: false, default: None, kind, json: None },
            when: Condition::Always,
            profiles: Vec::new(),
            span: Default::default(),
        }
    }

    fn uri_string() -> Kind {
        Kind::String {
            enum_values: vec![],
            format: Some("uri".into()),
            pattern: None,
            min_length: Some(1),
            max_length: None,
        }
    }

    #[test]
    fn standard_keeps_optional_params_optional() {
        let v = parameters(
            &[prop("a", true, uri_string()), prop("b", false, uri_string())],
            &ObjectShape::default(),
            Dialect::Standard,
        );
        assert_eq!(v["required"], json!(["a"]));
        assert_eq!(v["properties"]["b"]["type"], json!("string"));
        assert_eq!(v["properties"]["b"]["format"], json!("uri"));
        assert_eq!(v["properties"]["b"]["minLength"], json!(1));
    }

    #[test]
    fn strict_requires_everything_and_nulls_the_optional() {
        let mut enum_prop = prop(
            "mode",
            false,
            Kind::String {
                enum_values: vec!["x".into()],
                format: None,
                pattern: None,
                min_length: None,
                max_length: None,
            },
        );
        enum_prop.schema.default = Some(json!("x"));
        let v = parameters(&[prop("a", true, uri_string()), enum_prop], &ObjectShape::default(), Dialect::OpenAiStrict);
        assert_eq!(v["required"], json!(["a", "mode"]));
        assert_eq!(v["additionalProperties"], json!(false));
        assert_eq!(v["properties"]["mode"]["type"], json!(["string", "null"]));
        assert_eq!(v["properties"]["mode"]["enum"], json!(["x", null]));
        assert!(v["properties"]["mode"].get("default").is_none());
        assert!(v["properties"]["a"].get("format").is_none(), "uri is not a strict format");
        assert!(v["properties"]["a"].get("minLength").is_none());
    }

    #[test]
    fn nested_objects_are_closed() {
        let inner = Kind::Object { properties: vec![prop("x", false, Kind::Boolean)], shape: Default::default() };
        let v = parameters(
            &[prop(
                "o",
                true,
                Kind::Array {
                    items: Box::new(Schema {
                        description: None,
                        nullable: false,
                        default: None,
                        kind: inner,
                        json: None,
                    }),
                    min_items: Some(1),
                    max_items: None,
                },
            )],
            &ObjectShape::default(),
            Dialect::OpenAiStrict,
        );
        let item = &v["properties"]["o"]["items"];
        assert_eq!(item["additionalProperties"], json!(false));
        assert_eq!(item["required"], json!(["x"]));
        assert_eq!(item["properties"]["x"]["type"], json!(["boolean", "null"]));
        assert_eq!(v["properties"]["o"]["minItems"], json!(1));
    }
}
