use serde_json::json;

use super::*;

fn convert(schema: serde_json::Value, dialect: Dialect, strict: bool) -> (Object, Vec<String>) {
    let mut c = Converter::new("t", dialect, strict);
    let o = c.root(Some(&schema), "tools[0].parameters");
    (o, c.problems.into_iter().map(|(path, d)| format!("{path}: {}", d.message)).collect())
}

fn prop<'a>(o: &'a Object, name: &str) -> &'a Param {
    o.properties.iter().find(|(n, _)| n == name).map(|(_, p)| p).unwrap_or_else(|| panic!("no {name}"))
}

#[test]
fn json_schema_keywords_map_to_the_catalog() {
    let (o, problems) = convert(
        json!({"type": "object", "properties": {
            "q": {"type": "string", "description": "Q.\n", "minLength": 1, "maxLength": 9, "format": "uri",
                  "pattern": "^a", "default": "a"},
            "n": {"type": ["integer", "null"], "enum": [1, 2, null], "minimum": 0, "maximum": 5},
            "xs": {"type": "array", "items": {"type": "number"}, "minItems": 1, "maxItems": 3},
            "o": {"type": "object", "properties": {"b": {"type": "boolean"}}, "required": ["b"],
                  "additionalProperties": true}
        }, "required": ["n", "q"], "additionalProperties": false}),
        Dialect::Json,
        false,
    );
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(o.additional_properties, Some(false));
    assert_eq!(o.required_order, Some(vec!["n".to_string(), "q".to_string()]));
    let q = prop(&o, "q");
    assert_eq!((q.ty, q.required, q.min_length, q.max_length), (Ty::String, true, Some(1), Some(9)));
    assert_eq!(q.description.as_deref(), Some("Q.\n"));
    let n = prop(&o, "n");
    assert!(n.nullable && n.required);
    assert_eq!(n.enum_values, Some(vec![json!(1), json!(2)]));
    let xs = prop(&o, "xs");
    assert_eq!(xs.items.as_ref().map(|i| i.ty), Some(Ty::Number));
    let inner = prop(&o, "o").object.as_ref().unwrap_or_else(|| panic!("object"));
    assert_eq!(inner.additional_properties, Some(true));
    assert!(prop(inner, "b").required);
    assert_eq!(inner.required_order, None, "the declared order needs no required_order");
}

#[test]
fn strict_mode_reads_nullable_properties_back_as_optional() {
    let (o, problems) = convert(
        json!({"type": "object", "properties": {
            "a": {"type": "string"},
            "b": {"type": ["string", "null"], "enum": ["x", null]},
            "c": {"type": "object", "properties": {"d": {"type": ["integer", "null"]}}, "required": ["d"],
                  "additionalProperties": false}
        }, "required": ["a", "b", "c"], "additionalProperties": false}),
        Dialect::Json,
        true,
    );
    assert!(problems.is_empty(), "{problems:?}");
    assert!(prop(&o, "a").required && !prop(&o, "a").nullable);
    let b = prop(&o, "b");
    assert!(!b.required && !b.nullable, "optional, as promptc's strict projection would write it");
    assert_eq!(b.enum_values, Some(vec![json!("x")]));
    assert_eq!(o.additional_properties, None, "strict mode closes objects by itself");
    let c = prop(&o, "c").object.as_ref().unwrap_or_else(|| panic!("object"));
    assert!(!prop(c, "d").required && !prop(c, "d").nullable);
    // Not every property listed: not the strict pattern, read as written.
    let (o, _) = convert(
        json!({"type": "object", "properties": {"a": {"type": ["string", "null"]}, "b": {"type": "string"}},
               "required": ["b"]}),
        Dialect::Json,
        true,
    );
    assert!(prop(&o, "a").nullable && !prop(&o, "a").required);
}

#[test]
fn gemini_types_any_case_and_nullable() {
    let (o, problems) = convert(
        json!({"type": "OBJECT", "properties": {
            "s": {"type": "STRING", "nullable": true, "enum": ["a", "b"]},
            "i": {"type": "integer", "format": "int32"}
        }}),
        Dialect::Gemini,
        false,
    );
    let s = prop(&o, "s");
    assert!(s.nullable && s.ty == Ty::String);
    assert_eq!(s.enum_values, Some(vec![json!("a"), json!("b")]), "Gemini enums never list null");
    assert_eq!(
        problems,
        ["tools[0].parameters.properties.i.format: tool `t`: `format` does not apply to type `integer` \
        (at `tools[0].parameters.properties.i.format`)"]
    );
    let (_, problems) = convert(json!({"type": "OBJECT", "additionalProperties": false}), Dialect::Gemini, false);
    assert_eq!(problems.len(), 1, "Gemini has no additionalProperties: {problems:?}");
}

#[test]
fn what_a_catalog_cannot_say_is_an_error_at_its_path() {
    let cases = [
        (json!({"anyOf": [{"type": "string"}]}), "p.anyOf"),
        (json!({"$ref": "#/$defs/x"}), "p.$ref"),
        (json!({"type": "string", "const": "x"}), "p.const"),
        (json!({"type": "string", "title": "X"}), "p.title"),
        (json!({"type": ["string", "integer"]}), "p.type"),
        (json!({"type": "array", "items": [{"type": "string"}]}), "p.items"),
        (json!({"type": "object", "additionalProperties": {"type": "string"}}), "p.additionalProperties"),
        (json!({"type": "integer", "minimum": 1.5}), "p.minimum"),
        (json!({"type": "string", "minimum": 1}), "p.minimum"),
        (json!({"type": "string", "enum": ["a", 1]}), "p.enum[1]"),
        (json!({"type": "string", "enum": ["a", null]}), "p.enum"),
        (json!({"type": ["string", "null"], "enum": ["a"]}), "p.enum"),
        (json!({"type": "boolean", "enum": [true]}), "p.enum"),
        (json!({"type": "array"}), "p"),
        (json!({"description": "no type"}), "p"),
        (json!({"type": "object", "properties": {"x": {"type": "string"}}, "required": ["y"]}), "p.required[0]"),
        (json!({"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x", "x"]}), "p.required[1]"),
        (json!({"type": "object", "properties": {"bad name": {"type": "string"}}}), "p.properties.bad name"),
    ];
    for (schema, at) in cases {
        let mut c = Converter::new("t", Dialect::Json, false);
        let _ = c.param(&schema, "p");
        let paths: Vec<&str> = c.problems.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(paths, [at], "{schema}");
        assert!(c.problems[0].1.message.starts_with("tool `t`: "), "{}", c.problems[0].1.message);
    }
}

#[test]
fn root_parameters_must_be_an_object_without_extras() {
    let (o, problems) = convert(json!({}), Dialect::Json, false);
    assert!(o.properties.is_empty() && problems.is_empty());
    let (_, problems) = convert(json!({"type": "string"}), Dialect::Json, false);
    assert_eq!(problems.len(), 1);
    let (_, problems) = convert(json!({"type": "object", "description": "x", "$schema": "s"}), Dialect::Json, false);
    assert_eq!(problems.len(), 2, "{problems:?}");
}

#[test]
fn whole_floats_are_integers() {
    let (o, problems) = convert(
        json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1.0, "enum": [1.0, 2]}}}),
        Dialect::Json,
        false,
    );
    assert!(problems.is_empty(), "{problems:?}");
    let n = prop(&o, "n");
    assert_eq!(n.minimum.as_ref().map(|m| m.to_string()), Some("1".to_string()));
    assert_eq!(n.enum_values, Some(vec![json!(1), json!(2)]));
}
