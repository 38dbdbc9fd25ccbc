// Long because every keyword the view reads sits beside its structural checks.
//! The typed view of a JSON Schema written as a tool's `input_schema`: what promptc reasons
//! about (types, nullability in both spellings, descriptions, enums, defaults, required) read
//! out of the schema, which itself is carried as written (`Schema::json`, `ObjectShape::json`).
//!
//! The view is lenient by design: the schema is the user's (often generated, and valid for its
//! provider), so a keyword promptc has no type for is not an error — it stays in the JSON and
//! the node's `Kind` is `Any` where no single type can be read.

use serde_json::{Map, Value};

use super::{Kind, ObjectShape, Property, Schema};
use crate::model::condition::Condition;

/// The deepest nesting an `input_schema` may have, counting every object and list: far beyond
/// what any provider accepts (OpenAI strict mode: 10 levels), and shallow enough that the
/// catalog file `import` writes for it stays within the YAML reader's 48 levels (the schema
/// sits three levels down: the tool list, the tool, `input_schema`).
pub const MAX_SCHEMA_DEPTH: usize = 44;

/// The most references one `$ref` may pass through before it reaches a schema.
const MAX_REF_CHAIN: usize = 64;

/// Why an `input_schema` cannot be read, with the JSON path of the node at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputSchemaProblem {
    /// Where, as a JSON path from the schema's root (`$.properties.a.items`).
    pub path: String,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub help: String,
}

/// The language a carried schema is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SchemaDialect {
    /// JSON Schema (`input_schema:`).
    #[default]
    JsonSchema,
    /// Gemini's OpenAPI subset (`gemini_parameters:`): type names in either case, `nullable`,
    /// numbers that may be written as strings.
    OpenApi,
}

/// The tool's parameters and their object's shape, read from `root` (the whole `input_schema`,
/// or `gemini_parameters` in `SchemaDialect::OpenApi`).
pub fn input_schema(
    root: &Map<String, Value>,
    dialect: SchemaDialect,
) -> Result<(Vec<Property>, ObjectShape), InputSchemaProblem> {
    let key = match dialect {
        SchemaDialect::JsonSchema => "input_schema",
        SchemaDialect::OpenApi => "gemini_parameters",
    };
    let is_object = |t: &str| t == "object" || (dialect == SchemaDialect::OpenApi && t.eq_ignore_ascii_case("object"));
    match root.get("type") {
        Some(Value::String(t)) if is_object(t) => {}
        None if !root.contains_key("properties") && root.is_empty() => {}
        other => {
            return Err(InputSchemaProblem {
                path: "$.type".into(),
                message: match other {
                    Some(t) => format!("a tool's `{key}` must have type `object`, found {t}"),
                    None => format!("a tool's `{key}` has no `type` (expected `object`)"),
                },
                help: "a tool's parameters are an object of named parameters: give it type `object`".into(),
            })
        }
    }
    let root_value = Value::Object(root.clone());
    // Depth first: the structure check below recurses along the schema.
    depth_within(&root_value, "$", 0)?;
    check(&root_value, &root_value, "$", dialect)?;
    let (props, mut shape) = object(root, dialect, true);
    shape.json = Some(root.clone());
    shape.dialect = dialect;
    Ok((props, shape))
}

/// Keywords whose value is a mapping of names to schemas.
const SCHEMA_MAPS: &[&str] = &["properties", "$defs", "definitions", "patternProperties", "dependentSchemas"];

/// Keywords whose value is a schema or a list of schemas.
const SCHEMA_KEYWORDS: &[&str] = &[
    "items",
    "additionalProperties",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "prefixItems",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
];

/// Refuse a schema whose structure keywords have the wrong shape: `properties` a mapping of schemas,
/// `required` a list of names, `type` a name (or, in JSON Schema, a list of names), `items` a
/// schema (or, in JSON Schema, a draft-07 list of them). Every other keyword is the user's.
fn check(root: &Value, v: &Value, path: &str, dialect: SchemaDialect) -> Result<(), InputSchemaProblem> {
    let fail = |at: String, message: String| {
        Err(InputSchemaProblem { path: at, message, help: "fix the schema: providers refuse it as it is".into() })
    };
    let json = dialect == SchemaDialect::JsonSchema;
    let is_schema = |x: &Value| x.is_object() || (json && x.is_boolean());
    let Value::Object(m) = v else { return Ok(()) };
    for (k, x) in m {
        let at = format!("{path}.{k}");
        let key = k.as_str();
        if SCHEMA_MAPS.contains(&key) {
            let Some(ps) = x.as_object() else {
                return fail(at, format!("`{k}` must be a mapping of names to schemas"));
            };
            for (n, s) in ps {
                if !is_schema(s) {
                    return fail(format!("{at}.{n}"), format!("`{k}.{n}` must be a schema"));
                }
                check(root, s, &format!("{at}.{n}"), dialect)?;
            }
        } else if SCHEMA_KEYWORDS.contains(&key) {
            let list_allowed = key != "items" || json;
            match x {
                x if is_schema(x) => check(root, x, &at, dialect)?,
                Value::Array(a) if list_allowed && a.iter().all(is_schema) => {
                    for (i, s) in a.iter().enumerate() {
                        check(root, s, &format!("{at}[{i}]"), dialect)?;
                    }
                }
                _ => {
                    return fail(
                        at,
                        format!(
                            "`{k}` must be {}",
                            if list_allowed { "a schema or a list of schemas" } else { "a schema" }
                        ),
                    )
                }
            }
        } else if key == "$ref" {
            if let Some(problem) = x.as_str().and_then(|r| local_ref_problem(root, r)) {
                return fail(at, problem);
            }
        } else if key == "required" && !x.as_array().is_some_and(|a| a.iter().all(Value::is_string)) {
            return fail(at, "`required` must be a list of property names".into());
        } else if key == "type"
            && !(x.is_string() || (json && x.as_array().is_some_and(|a| a.iter().all(Value::is_string))))
        {
            return fail(
                at,
                format!("`type` must be {}", if json { "a type name or a list of them" } else { "a type name" }),
            );
        }
    }
    Ok(())
}

/// What is wrong with the local reference `r` (`#/$defs/name`) in `root`: it points at
/// nothing, or a chain of nodes that only refer on leads back to itself (a schema that is
/// never defined). References to other documents are the user's to resolve.
fn local_ref_problem(root: &Value, r: &str) -> Option<String> {
    let mut seen: Vec<&str> = Vec::new();
    let mut current = r;
    loop {
        let pointer = current.strip_prefix('#')?;
        // Every `$ref` of a schema walks its chain: a bound on its length keeps a schema of
        // thousands of chained references linear (no real schema chains more than a few).
        if seen.len() >= MAX_REF_CHAIN {
            return Some(format!(
                "`$ref` {r:?} passes through more than {MAX_REF_CHAIN} references without reaching a schema"
            ));
        }
        if seen.contains(&current) {
            return Some(format!("`$ref` {r:?} leads back to itself without defining a schema ({})", seen.join(" → ")));
        }
        seen.push(current);
        let Some(target) = root.pointer(pointer) else {
            return Some(format!("`$ref` {current:?} points at nothing in the schema"));
        };
        // A node that is nothing but another reference: follow it.
        match target.as_object().filter(|m| m.len() == 1).and_then(|m| m.get("$ref")).and_then(Value::as_str) {
            Some(next) => current = next,
            None => return None,
        }
    }
}

/// Every `description` of the schema `m` at every depth without trailing whitespace
/// (`descriptions: trim` applied to a carried schema, alike at every depth): only at schema
/// positions, never inside data (`default`, `enum`, `examples`) or an `x-…` keyword.
pub fn trim_descriptions(m: &mut Map<String, Value>) {
    for (k, v) in m.iter_mut() {
        match (k.as_str(), v) {
            ("description", Value::String(d)) => d.truncate(d.trim_end().len()),
            (key, Value::Object(ps)) if SCHEMA_MAPS.contains(&key) => {
                ps.values_mut().filter_map(Value::as_object_mut).for_each(trim_descriptions)
            }
            (key, Value::Object(s)) if SCHEMA_KEYWORDS.contains(&key) => trim_descriptions(s),
            (key, Value::Array(list)) if SCHEMA_KEYWORDS.contains(&key) => {
                list.iter_mut().filter_map(Value::as_object_mut).for_each(trim_descriptions)
            }
            _ => {}
        }
    }
}

/// Refuse a value nested deeper than `MAX_SCHEMA_DEPTH` (counting every object and list).
fn depth_within(v: &Value, path: &str, depth: usize) -> Result<(), InputSchemaProblem> {
    if depth > MAX_SCHEMA_DEPTH {
        return Err(InputSchemaProblem {
            path: path.to_string(),
            message: format!("the schema nests deeper than {MAX_SCHEMA_DEPTH} levels"),
            help: "no provider accepts schemas this deep: flatten the parameters".into(),
        });
    }
    match v {
        Value::Object(m) => m.iter().try_for_each(|(k, x)| depth_within(x, &format!("{path}.{k}"), depth + 1)),
        Value::Array(a) => {
            a.iter().enumerate().try_for_each(|(i, x)| depth_within(x, &format!("{path}[{i}]"), depth + 1))
        }
        _ => Ok(()),
    }
}

/// An object node's properties (each required where `required` lists it) and shape.
/// `top`: the tool's own parameters, whose nodes the projections send (each keeps its JSON).
fn object(m: &Map<String, Value>, dialect: SchemaDialect, top: bool) -> (Vec<Property>, ObjectShape) {
    let required: Vec<&str> = m
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let props: Vec<Property> = m
        .get("properties")
        .and_then(Value::as_object)
        .map(|ps| {
            ps.iter()
                .map(|(name, s)| Property {
                    name: name.clone(),
                    required: required.contains(&name.as_str()),
                    schema: schema(s, dialect, top),
                    when: Condition::Always,
                    profiles: Vec::new(),
                    span: Default::default(),
                })
                .collect()
        })
        .unwrap_or_default();
    let in_order: Vec<&str> = props.iter().filter(|p| p.required).map(|p| p.name.as_str()).collect();
    let listed: Vec<&str> = required.iter().copied().filter(|r| in_order.contains(r)).collect();
    let shape = ObjectShape {
        additional_properties: m.get("additionalProperties").and_then(Value::as_bool),
        required_order: if listed != in_order { listed.iter().map(|s| s.to_string()).collect() } else { Vec::new() },
        json: None,
        dialect,
        absent: false,
    };
    (props, shape)
}

/// The branch of a two-way `anyOf`/`oneOf` whose other branch is `{"type": "null"}` — the
/// nullable spelling schema generators (Zod, Pydantic) emit.
pub fn nullable_branch(m: &Map<String, Value>) -> Option<&Map<String, Value>> {
    let branches = m.get("anyOf").or_else(|| m.get("oneOf"))?.as_array()?;
    let is_null =
        |b: &Value| b.as_object().is_some_and(|o| o.len() == 1 && o.get("type") == Some(&Value::from("null")));
    match branches.as_slice() {
        [a, b] if is_null(b) && !is_null(a) => a.as_object(),
        [a, b] if is_null(a) && !is_null(b) => b.as_object(),
        _ => None,
    }
}

/// The single type a node's `type` names (lower case), and whether `null` is admitted beside
/// it (in OpenAPI, by `nullable: true`).
fn single_type(m: &Map<String, Value>, dialect: SchemaDialect) -> Option<(String, bool)> {
    if dialect == SchemaDialect::OpenApi {
        let t = m.get("type")?.as_str()?.to_ascii_lowercase();
        return Some((t, m.get("nullable") == Some(&Value::Bool(true))));
    }
    match m.get("type")? {
        Value::String(t) => Some((t.clone(), false)),
        Value::Array(list) => {
            let names: Vec<&str> = list.iter().filter_map(Value::as_str).collect();
            let non_null: Vec<&str> = names.iter().copied().filter(|t| *t != "null").collect();
            match non_null.as_slice() {
                [t] if names.len() == list.len() => Some((t.to_string(), names.len() > 1)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// One node's typed view, carrying the node itself.
/// The node keeps its JSON where something reads it: a top-level parameter's (the projections
/// send it) and an untyped node's (shown as its schema). Keeping it on every nested node would
/// copy each subtree once per level above it: a deep hostile schema's memory times its depth.
fn schema(v: &Value, dialect: SchemaDialect, keep: bool) -> Schema {
    let Some(m) = v.as_object() else {
        // `true`/`false` schemas: anything, or nothing.
        return Schema { description: None, nullable: false, default: None, kind: Kind::Any, json: None };
    };
    let description = m.get("description").and_then(Value::as_str).map(str::to_string);
    let default = m.get("default").cloned();
    let (kind, nullable) = match (single_type(m, dialect), nullable_branch(m)) {
        (Some((t, nullable)), _) => (kind(&t, m, dialect), nullable),
        (None, Some(branch)) => {
            let inner = schema(&Value::Object(branch.clone()), dialect, false);
            (inner.kind, true)
        }
        (None, None) => (Kind::Any, false),
    };
    let json = (keep || kind == Kind::Any).then(|| m.clone());
    Schema { description, nullable, default, kind, json }
}

/// The `Kind` of type `t` with the keywords promptc reads for it.
fn kind(t: &str, m: &Map<String, Value>, dialect: SchemaDialect) -> Kind {
    // Gemini's SDK takes counts written as strings ("minItems": "1").
    let count = |k: &str| match m.get(k) {
        Some(Value::String(s)) if dialect == SchemaDialect::OpenApi => s.parse().ok(),
        v => v.and_then(Value::as_u64),
    };
    let enum_of = |f: &dyn Fn(&Value) -> Option<Value>| -> Vec<Value> {
        m.get("enum").and_then(Value::as_array).map(|a| a.iter().filter_map(f).collect()).unwrap_or_default()
    };
    match t {
        "string" => Kind::String {
            enum_values: enum_of(&|v| v.as_str().map(Value::from))
                .into_iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
            format: m.get("format").and_then(Value::as_str).map(str::to_string),
            pattern: m.get("pattern").and_then(Value::as_str).map(str::to_string),
            min_length: count("minLength"),
            max_length: count("maxLength"),
        },
        "integer" => Kind::Integer {
            enum_values: enum_of(&|v| v.as_i64().map(Value::from)).iter().filter_map(Value::as_i64).collect(),
            minimum: m.get("minimum").and_then(Value::as_i64),
            maximum: m.get("maximum").and_then(Value::as_i64),
        },
        "number" => Kind::Number {
            enum_values: enum_of(&|v| v.as_f64().map(Value::from)).iter().filter_map(Value::as_f64).collect(),
            minimum: m.get("minimum").and_then(Value::as_f64),
            maximum: m.get("maximum").and_then(Value::as_f64),
        },
        "boolean" => Kind::Boolean,
        "array" => Kind::Array {
            items: Box::new(match m.get("items") {
                Some(items) => schema(items, dialect, false),
                None => Schema { description: None, nullable: false, default: None, kind: Kind::Any, json: None },
            }),
            min_items: count("minItems"),
            max_items: count("maxItems"),
        },
        "object" => {
            let (properties, shape) = object(m, dialect, false);
            Kind::Object { properties, shape }
        }
        _ => Kind::Any,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn reads_types_nullability_and_required_and_keeps_the_json() {
        let root = map(json!({
            "type": "object",
            "properties": {
                "a": {"type": ["string", "null"], "description": "A", "minLength": 1},
                "b": {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}], "default": null},
                "c": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
                "-n": {"type": "boolean", "x-extra": {"kept": true}}
            },
            "required": ["-n", "a"],
            "additionalProperties": false,
            "$schema": "http://json-schema.org/draft-07/schema#"
        }));
        let (props, shape) = input_schema(&root, SchemaDialect::JsonSchema).unwrap();
        assert_eq!(props.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["a", "b", "c", "-n"]);
        assert!(props[0].required && props[0].schema.nullable);
        assert_eq!(props[0].schema.description.as_deref(), Some("A"));
        assert!(matches!(props[0].schema.kind, Kind::String { min_length: Some(1), .. }));
        assert!(props[1].schema.nullable && matches!(props[1].schema.kind, Kind::Integer { .. }));
        assert_eq!(props[1].schema.default, Some(Value::Null));
        assert_eq!(props[2].schema.kind, Kind::Any);
        assert!(props[3].required);
        assert_eq!(props[3].schema.json.as_ref().unwrap()["x-extra"], json!({"kept": true}));
        assert_eq!(props[2].schema.kind, Kind::Any);
        // Nested typed nodes keep no copy of their subtree (it is in their parameter's).
        let nested = map(json!({"type": "object", "properties": {"o": {"type": "object", "properties": {
            "i": {"type": "string"}, "u": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}}}}));
        let (props, _) = input_schema(&nested, SchemaDialect::JsonSchema).unwrap();
        let Kind::Object { properties, .. } = &props[0].schema.kind else { panic!("object") };
        assert!(props[0].schema.json.is_some() && properties[0].schema.json.is_none());
        assert!(properties[1].schema.json.is_some(), "an untyped node keeps its schema, shown as written");
        assert_eq!(shape.additional_properties, Some(false));
        assert_eq!(shape.required_order, ["-n", "a"]);
        assert_eq!(shape.json.as_ref(), Some(&root));
    }

    #[test]
    fn refuses_structure_keywords_of_the_wrong_shape_only_where_they_are_keywords() {
        let bad = |v: Value, d| input_schema(&map(v), d).unwrap_err();
        let e = bad(
            json!({"type": "object", "properties": {"a": {"type": "array", "items": [{"type": "string"}]}}}),
            SchemaDialect::OpenApi,
        );
        assert_eq!((e.path.as_str(), e.message.as_str()), ("$.properties.a.items", "`items` must be a schema"));
        let e = bad(json!({"type": "object", "properties": {"a": 1}}), SchemaDialect::JsonSchema);
        assert_eq!(e.path, "$.properties.a");
        let e = bad(json!({"type": "object", "required": "a"}), SchemaDialect::JsonSchema);
        assert_eq!(e.message, "`required` must be a list of property names");
        // Property names that are keywords, and keyword-like keys inside data, are not keywords.
        let ok = json!({"type": "object", "properties": {"type": {"type": "string"}, "required": {"type": "boolean"}},
            "default": {"type": 3}, "x-items": 1, "items": [{"type": "string"}]});
        assert!(input_schema(&map(ok), SchemaDialect::JsonSchema).is_ok());
    }

    #[test]
    fn local_references_must_lead_to_a_schema() {
        let with = |defs: Value, r: &str| {
            input_schema(
                &map(json!({"type": "object", "$defs": defs, "properties": {"a": {"$ref": r}}})),
                SchemaDialect::JsonSchema,
            )
        };
        assert!(with(json!({"n": {"type": "string"}}), "#/$defs/n").is_ok());
        assert!(
            with(json!({"node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}}}}), "#/$defs/node")
                .is_ok(),
            "recursion through a schema is fine"
        );
        assert!(with(json!({}), "https://example.com/s.json").is_ok(), "other documents are not resolved");
        let e = with(json!({}), "#/$defs/missing").unwrap_err();
        assert_eq!(
            (e.path.as_str(), e.message.as_str()),
            ("$.properties.a.$ref", "`$ref` \"#/$defs/missing\" points at nothing in the schema")
        );
        let e = with(json!({"x": {"$ref": "#/$defs/y"}, "y": {"$ref": "#/$defs/x"}}), "#/$defs/x").unwrap_err();
        assert!(e.message.contains("leads back to itself"), "{e:?}");
        // 5,000 references chained: refused at once, not walked 5,000 × 5,000 times.
        let mut defs = serde_json::Map::new();
        for i in 0..5000 {
            defs.insert(format!("d{i}"), json!({"$ref": format!("#/$defs/d{}", i + 1)}));
        }
        defs.insert("d5000".into(), json!({"type": "string"}));
        let e = with(Value::Object(defs), "#/$defs/d0").unwrap_err();
        assert!(e.message.contains("more than 64 references"), "{e:?}");
    }

    #[test]
    fn trimming_reaches_every_schema_description_and_no_data() {
        let mut m = map(json!({
            "type": "object",
            "description": "Root. ",
            "properties": {"a": {"type": "object", "description": "A.\n", "properties": {"b": {"description": "B.\n\n"}}}},
            "$defs": {"d": {"anyOf": [{"description": "D. "}]}},
            "default": {"description": "data \n"},
            "x-doc": {"description": "kept \n"}
        }));
        trim_descriptions(&mut m);
        assert_eq!(m["description"], "Root.");
        assert_eq!(m["properties"]["a"]["description"], "A.");
        assert_eq!(m["properties"]["a"]["properties"]["b"]["description"], "B.");
        assert_eq!(m["$defs"]["d"]["anyOf"][0]["description"], "D.");
        assert_eq!(m["default"]["description"], "data \n");
        assert_eq!(m["x-doc"]["description"], "kept \n");
    }

    #[test]
    fn reads_gemini_openapi_spelling() {
        let root = map(json!({
            "type": "OBJECT",
            "properties": {"n": {"type": "integer", "nullable": true, "minimum": 0}, "l": {"type": "ARRAY", "items": {"type": "STRING"}, "minItems": "1"}},
            "required": ["l"]
        }));
        let (props, _) = input_schema(&root, SchemaDialect::OpenApi).unwrap();
        assert!(props[0].schema.nullable && matches!(props[0].schema.kind, Kind::Integer { minimum: Some(0), .. }));
        assert!(matches!(props[1].schema.kind, Kind::Array { min_items: Some(1), .. }));
        assert!(input_schema(&root, SchemaDialect::JsonSchema).is_err(), "JSON Schema types are lower case");
    }

    #[test]
    fn refuses_a_root_that_is_not_an_object_and_deep_nesting() {
        assert_eq!(
            input_schema(&map(json!({"type": "string"})), SchemaDialect::JsonSchema).unwrap_err().path,
            "$.type"
        );
        let mut deep = json!({"type": "string"});
        for _ in 0..MAX_SCHEMA_DEPTH {
            deep = json!({"type": "array", "items": deep});
        }
        let err = input_schema(&map(json!({"type": "object", "properties": {"d": deep}})), SchemaDialect::JsonSchema)
            .unwrap_err();
        assert!(err.message.contains("deeper than 44"), "{err:?}");
        assert!(input_schema(&map(json!({})), SchemaDialect::JsonSchema).is_ok(), "an empty schema is no parameters");
    }
}
