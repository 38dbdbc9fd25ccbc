// Long because each provider's conversion and its notes read side by side.
//! A tool's parameters written as one JSON Schema (`input_schema:`), per provider: as written
//! where the provider takes full JSON Schema (Anthropic, OpenAI without strict mode), or
//! converted to OpenAI strict mode's subset or Gemini's OpenAPI subset. Each conversion that
//! changes what the schema says — a keyword dropped, a constraint moved into a description, a
//! `oneOf` loosened to `anyOf` — is written to `notes` (P003 lists them); a change of spelling
//! only (`["string", "null"]` as `nullable: true`, upper-case types) is not a note.

use serde_json::{json, Map, Value};

use crate::model::params::{nullable_branch, Property, Schema, SchemaDialect};
use crate::model::provider::Provider;

/// What a conversion dropped or rewrote, one sentence each, prefixed with the provider.
pub type Notes = Vec<String>;

/// The schema as written, with the cell's parameters: their descriptions as the cell words
/// them (a variant's or a profile's override, trimmed under `descriptions: trim`).
pub fn standard(root: &Map<String, Value>, props: &[Property]) -> Value {
    let mut out = root.clone();
    if out.get("properties").is_some_and(Value::is_object) {
        let ps: Map<String, Value> = props.iter().map(|p| (p.name.clone(), node(&p.schema))).collect();
        // Inserting over an existing key keeps its place.
        out.insert("properties".into(), Value::Object(ps));
    }
    Value::Object(out)
}

/// One parameter's schema as written, with its description as the cell words it.
fn node(s: &Schema) -> Value {
    let mut m = s.json.clone().unwrap_or_default();
    if let Some(d) = &s.description {
        if m.get("description").and_then(Value::as_str) != Some(d.as_str()) {
            m.insert("description".into(), json!(d));
        }
    }
    Value::Object(m)
}

/// The keywords OpenAI strict mode accepts (its "supported schemas"); every other one is
/// dropped with a note.
const STRICT_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "$ref",
    "$defs",
    "definitions",
    "description",
    "title",
    "pattern",
    "format",
    "multipleOf",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
];

/// The schema as JSON Schema: as written, or converted from Gemini's OpenAPI subset.
pub fn json_schema(root: &Map<String, Value>, dialect: SchemaDialect, props: &[Property], notes: &mut Notes) -> Value {
    let written = standard(root, props);
    match dialect {
        SchemaDialect::JsonSchema => written,
        SchemaDialect::OpenApi => from_openapi(&written, "(parameters)", notes),
    }
}

/// The schema in OpenAI strict mode's subset: every object closed with every property
/// required (an optional one made nullable), unsupported keywords and formats dropped.
pub fn strict(root: &Map<String, Value>, dialect: SchemaDialect, props: &[Property], notes: &mut Notes) -> Value {
    match json_schema(root, dialect, props, notes) {
        Value::Object(m) => strict_node(&m, "(parameters)", false, notes),
        other => other,
    }
}

/// The keywords that count something and that Gemini's SDK also takes written as strings.
const COUNTS: &[&str] = &["minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"];

/// A schema in Gemini's OpenAPI subset as JSON Schema: lower-case types, `nullable: true` as a
/// type list (or a `null` branch, or `null` among the enum's values), counts written as
/// strings as numbers; `propertyOrdering` and `format: enum` dropped and `example` sent as
/// `examples`, each with a note.
fn from_openapi(v: &Value, path: &str, notes: &mut Notes) -> Value {
    let Value::Object(m) = v else { return v.clone() };
    let note = |notes: &mut Notes, what: String| notes.push(format!("json schema: `{path}`: {what}"));
    let nullable = m.get("nullable") == Some(&Value::Bool(true));
    let mut out = Map::new();
    for (k, x) in m {
        match k.as_str() {
            "type" => match x.as_str() {
                Some(t) if nullable => _ = out.insert(k.clone(), json!([t.to_ascii_lowercase(), "null"])),
                Some(t) => _ = out.insert(k.clone(), json!(t.to_ascii_lowercase())),
                None => _ = out.insert(k.clone(), x.clone()),
            },
            "nullable" => {}
            "enum" => {
                let mut values = x.as_array().cloned().unwrap_or_default();
                if nullable && !values.contains(&Value::Null) {
                    values.push(Value::Null);
                }
                out.insert(k.clone(), Value::Array(values));
            }
            "format" if x == "enum" => note(notes, "format \"enum\" (Gemini's) is dropped".into()),
            "propertyOrdering" => note(notes, "`propertyOrdering` (Gemini's) is dropped".into()),
            "example" => {
                note(notes, "`example` is sent as `examples`".into());
                out.insert("examples".into(), json!([x]));
            }
            "properties" => {
                let ps = x
                    .as_object()
                    .map(|ps| ps.iter().map(|(n, s)| (n.clone(), from_openapi(s, &child(path, n), notes))).collect());
                out.insert(k.clone(), ps.map_or_else(|| x.clone(), Value::Object));
            }
            "items" => _ = out.insert(k.clone(), from_openapi(x, &format!("{path}[]"), notes)),
            "$defs" | "definitions" => {
                let defs = x
                    .as_object()
                    .map(|d| d.iter().map(|(n, s)| (n.clone(), from_openapi(s, &format!("{k}.{n}"), notes))).collect());
                out.insert(k.clone(), defs.map_or_else(|| x.clone(), Value::Object));
            }
            "anyOf" => {
                let mut branches: Vec<Value> =
                    x.as_array().map(|a| a.iter().map(|b| from_openapi(b, path, notes)).collect()).unwrap_or_default();
                if nullable && !m.contains_key("type") {
                    branches.push(json!({"type": "null"}));
                }
                out.insert(k.clone(), Value::Array(branches));
            }
            c if COUNTS.contains(&c) => {
                let n = x.as_str().and_then(|s| s.parse::<u64>().ok()).map_or_else(|| x.clone(), Value::from);
                out.insert(k.clone(), n);
            }
            "minimum" | "maximum" => {
                let n = x.as_str().and_then(|s| s.parse::<f64>().ok()).map_or_else(|| x.clone(), |f| json!(f));
                out.insert(k.clone(), n);
            }
            _ => _ = out.insert(k.clone(), x.clone()),
        }
    }
    // `nullable` on a node with neither a type nor `anyOf` (a `$ref`, say): the null branch
    // beside the node itself.
    if nullable && !m.contains_key("type") && !m.contains_key("anyOf") {
        return json!({"anyOf": [Value::Object(out), {"type": "null"}]});
    }
    Value::Object(out)
}

fn strict_value(v: &Value, path: &str, nullable: bool, notes: &mut Notes) -> Value {
    match v {
        Value::Object(m) => strict_node(m, path, nullable, notes),
        other => other.clone(),
    }
}

fn strict_node(m: &Map<String, Value>, path: &str, nullable: bool, notes: &mut Notes) -> Value {
    let note = |notes: &mut Notes, what: String| notes.push(format!("openai strict: `{path}`: {what}"));
    let required: Vec<&str> = m
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let is_object = m.get("type") == Some(&json!("object")) || m.contains_key("properties");
    let mut out = Map::new();
    for (k, v) in m {
        match k.as_str() {
            "properties" => {
                let ps = v.as_object().map(|ps| {
                    ps.iter()
                        .map(|(n, s)| {
                            let optional = !required.contains(&n.as_str());
                            (n.clone(), strict_value(s, &child(path, n), optional, notes))
                        })
                        .collect()
                });
                out.insert(k.clone(), ps.map_or_else(|| v.clone(), Value::Object));
            }
            "items" => _ = out.insert(k.clone(), strict_value(v, &format!("{path}[]"), false, notes)),
            "anyOf" | "oneOf" => {
                if k == "oneOf" {
                    note(notes, "`oneOf` is not supported: it is sent as `anyOf` (one or more may match)".into());
                }
                let branches = v.as_array().map(|a| a.iter().map(|b| strict_value(b, path, false, notes)).collect());
                out.insert("anyOf".into(), branches.map_or_else(|| v.clone(), Value::Array));
            }
            "$defs" | "definitions" => {
                let defs = v.as_object().map(|d| {
                    d.iter().map(|(n, s)| (n.clone(), strict_value(s, &format!("{k}.{n}"), false, notes))).collect()
                });
                out.insert(k.clone(), defs.map_or_else(|| v.clone(), Value::Object));
            }
            "format" => match v.as_str() {
                Some(f) if Provider::OpenAiChat.info().strict_formats.contains(&f) => {
                    _ = out.insert(k.clone(), v.clone())
                }
                _ => note(notes, format!("format {v} is not supported: it is dropped")),
            },
            // Placeholders: set below, in the place the schema gave them.
            "required" | "additionalProperties" if is_object => {
                if k == "additionalProperties" && v != &json!(false) {
                    note(
                        notes,
                        format!("additionalProperties {} is not supported: strict mode sends false", compact(v)),
                    );
                }
                out.insert(k.clone(), Value::Null);
            }
            key if STRICT_KEYWORDS.contains(&key) => _ = out.insert(k.clone(), v.clone()),
            key => note(notes, format!("`{key}` is not supported: it is dropped")),
        }
    }
    if is_object {
        // Those the schema lists, in its order, then the others in the properties' order.
        let props: Vec<&String> =
            m.get("properties").and_then(Value::as_object).map(|ps| ps.keys().collect()).unwrap_or_default();
        let mut names: Vec<Value> =
            required.iter().filter(|r| props.iter().any(|p| p == r)).map(|r| json!(r)).collect();
        names.extend(props.iter().filter(|p| !required.contains(&p.as_str())).map(|p| json!(p)));
        out.insert("required".into(), Value::Array(names));
        out.insert("additionalProperties".into(), json!(false));
    }
    if nullable {
        make_nullable(&mut out);
    }
    Value::Object(out)
}

/// `m` accepting `null` as well, in the spelling its type takes.
fn make_nullable(m: &mut Map<String, Value>) {
    let null = || json!("null");
    match m.get_mut("type") {
        Some(Value::String(t)) if t != "null" => {
            let t = std::mem::take(t);
            m.insert("type".into(), json!([t, "null"]));
        }
        Some(Value::Array(list)) if !list.contains(&null()) => list.push(null()),
        Some(_) => return,
        None => match m.get_mut("anyOf") {
            Some(Value::Array(branches)) => {
                if !branches.iter().any(|b| b.get("type") == Some(&null())) {
                    branches.push(json!({"type": "null"}));
                }
                return;
            }
            _ => {
                let inner = std::mem::take(m);
                m.insert("anyOf".into(), json!([Value::Object(inner), {"type": "null"}]));
                return;
            }
        },
    }
    if let Some(Value::Array(values)) = m.get_mut("enum") {
        if !values.contains(&Value::Null) {
            values.push(Value::Null);
        }
    }
}

/// The keywords Gemini's OpenAPI-style schema takes as JSON Schema spells them (besides `type`,
/// `format`, `enum`, `items`, `properties`, `required` and `anyOf`, which are converted).
const GEMINI_KEYWORDS: &[&str] = &[
    "description",
    "title",
    "nullable",
    "pattern",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "default",
    "example",
    "propertyOrdering",
];

/// The schema in Gemini's OpenAPI subset, or `None` for a tool without parameters (Gemini
/// rejects an empty parameters object). Upper-case types, one per node (`nullable: true` for
/// `null`), `enum` on strings only; what the subset cannot say moves into the description
/// (formats, numeric enums) or is dropped, each with a note.
pub fn gemini(
    root: &Map<String, Value>,
    dialect: SchemaDialect,
    props: &[Property],
    notes: &mut Notes,
) -> Option<Value> {
    // Written for Gemini: sent as written, empty or not.
    if dialect == SchemaDialect::OpenApi {
        return Some(standard(root, props));
    }
    if props.is_empty() {
        return None;
    }
    match standard(root, props) {
        Value::Object(m) => Some(gemini_node(&m, "(parameters)", notes)),
        _ => None,
    }
}

fn gemini_value(v: &Value, path: &str, notes: &mut Notes) -> Value {
    match v {
        Value::Object(m) => gemini_node(m, path, notes),
        // `true`: any value; Gemini has no such schema.
        other => {
            notes.push(format!("gemini: `{path}`: the schema {other} is not supported: it is sent as an empty schema"));
            json!({})
        }
    }
}

fn gemini_node(m: &Map<String, Value>, path: &str, notes: &mut Notes) -> Value {
    let note = |notes: &mut Notes, what: String| notes.push(format!("gemini: `{path}`: {what}"));
    let upper = |t: &str| json!(t.to_ascii_uppercase());
    let mut out = Map::new();
    let mut extra: Vec<String> = Vec::new();
    for (k, v) in m {
        match k.as_str() {
            "type" => match v {
                Value::String(t) => _ = out.insert("type".into(), upper(t)),
                Value::Array(list) => {
                    let types: Vec<&str> = list.iter().filter_map(Value::as_str).filter(|t| *t != "null").collect();
                    if types.len() < list.len() {
                        out.insert("nullable".into(), json!(true));
                    }
                    match types.as_slice() {
                        [t] => _ = out.insert("type".into(), upper(t)),
                        many => {
                            let branches: Vec<Value> = many.iter().map(|t| json!({"type": upper(t)})).collect();
                            out.insert("anyOf".into(), Value::Array(branches));
                        }
                    }
                }
                other => note(notes, format!("`type` {other} is not supported: it is dropped")),
            },
            "anyOf" | "oneOf" => match nullable_branch(m) {
                Some(branch) => {
                    if let Value::Object(inner) = gemini_node(branch, path, notes) {
                        out.extend(inner);
                    }
                    out.insert("nullable".into(), json!(true));
                }
                None => {
                    if k == "oneOf" {
                        note(notes, "`oneOf` is not supported: it is sent as `anyOf` (one or more may match)".into());
                    }
                    let branches = v.as_array().map(|a| a.iter().map(|b| gemini_value(b, path, notes)).collect());
                    out.insert("anyOf".into(), branches.map_or_else(|| v.clone(), Value::Array));
                }
            },
            "format" => match v.as_str() {
                Some(f) if Provider::Gemini.info().formats.is_none_or(|ok| ok.contains(&f)) || f == "enum" => {
                    out.insert(k.clone(), v.clone());
                }
                _ => {
                    note(notes, format!("format {v} is not supported: it moves into the description"));
                    extra.push(format!("Format: {}.", v.as_str().map_or_else(|| v.to_string(), str::to_string)));
                }
            },
            "enum" => match v.as_array() {
                Some(values) if values.iter().all(|x| x.is_string() || x.is_null()) => {
                    if values.contains(&Value::Null) {
                        out.insert("nullable".into(), json!(true));
                    }
                    out.insert(k.clone(), Value::Array(values.iter().filter(|x| x.is_string()).cloned().collect()));
                }
                _ => {
                    note(notes, "enums are only allowed on strings: the values move into the description".into());
                    extra.push(format!("Allowed values: {}.", list(v)));
                }
            },
            "const" => match v {
                Value::String(_) => _ = out.insert("enum".into(), json!([v])),
                _ => {
                    note(notes, "`const` is not supported: the value moves into the description".into());
                    extra.push(format!("Always {}.", compact(v)));
                }
            },
            "items" => _ = out.insert(k.clone(), gemini_value(v, &format!("{path}[]"), notes)),
            "properties" => {
                let ps = v
                    .as_object()
                    .map(|ps| ps.iter().map(|(n, s)| (n.clone(), gemini_value(s, &child(path, n), notes))).collect());
                out.insert(k.clone(), ps.map_or_else(|| v.clone(), Value::Object));
            }
            "required" => {
                if v.as_array().is_some_and(|a| !a.is_empty()) {
                    out.insert(k.clone(), v.clone());
                }
            }
            "examples" => match v.as_array().and_then(|a| a.first()) {
                Some(first) => {
                    note(notes, "`examples` is not supported: its first value is sent as `example`".into());
                    out.insert("example".into(), first.clone());
                }
                None => note(notes, "`examples` is not supported: it is dropped".into()),
            },
            // After a nullable branch that brought a description (or what moved into one):
            // this node's own comes first.
            "description" => match (v.as_str(), out.get("description").and_then(Value::as_str)) {
                (Some(own), Some(branch)) => {
                    let both = format!("{} {branch}", own.trim_end());
                    out.insert(k.clone(), json!(both));
                }
                _ => _ = out.insert(k.clone(), v.clone()),
            },
            key if GEMINI_KEYWORDS.contains(&key) => _ = out.insert(k.clone(), v.clone()),
            key => note(notes, format!("`{key}` is not supported: it is dropped")),
        }
    }
    if !extra.is_empty() {
        let said = out.get("description").and_then(Value::as_str).map(str::trim_end).filter(|d| !d.is_empty());
        let text = match said {
            Some(d) => format!("{d} {}", extra.join(" ")),
            None => extra.join(" "),
        };
        out.insert("description".into(), json!(text));
    }
    Value::Object(out)
}

/// The path of property `name` of the node at `path`.
fn child(path: &str, name: &str) -> String {
    if path == "(parameters)" {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}

/// A JSON value on one line, as messages and descriptions quote it.
fn compact(v: &Value) -> String {
    v.to_string()
}

/// The values of an `enum`, comma-separated, strings unquoted.
fn list(v: &Value) -> String {
    v.as_array()
        .map(|a| {
            a.iter().map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_string)).collect::<Vec<_>>().join(", ")
        })
        .unwrap_or_else(|| v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::params::input_schema;

    fn project(root: Value) -> (Map<String, Value>, Vec<Property>) {
        let m = root.as_object().cloned().unwrap();
        let (props, _) = input_schema(&m, crate::model::params::SchemaDialect::JsonSchema).unwrap();
        (m, props)
    }

    #[test]
    fn standard_is_the_schema_as_written_with_the_cell_wording() {
        let (root, mut props) = project(json!({
            "properties": {"b": {"description": "old", "type": "string", "x-k": 1}, "a": {"type": "integer"}},
            "type": "object",
            "required": [],
            "$schema": "https://json-schema.org/draft/2020-12/schema"
        }));
        assert_eq!(standard(&root, &props), Value::Object(root.clone()));
        props[0].schema.description = Some("new".into());
        props[1].schema.description = Some("added".into());
        let out = standard(&root, &props);
        assert_eq!(
            serde_json::to_string(&out).unwrap(),
            r#"{"properties":{"b":{"description":"new","type":"string","x-k":1},"a":{"type":"integer","description":"added"}},"type":"object","required":[],"$schema":"https://json-schema.org/draft/2020-12/schema"}"#
        );
    }

    #[test]
    fn strict_closes_requires_nulls_and_notes_every_drop() {
        let (root, props) = project(json!({
            "type": "object",
            "properties": {
                "q": {"type": "string", "minLength": 1, "format": "uri"},
                "n": {"oneOf": [{"type": "integer"}, {"type": "string", "enum": ["x"]}]},
                "o": {"type": "object", "properties": {"k": {"type": "boolean"}}, "additionalProperties": true}
            },
            "required": ["q"],
            "additionalProperties": false,
            "$schema": "x"
        }));
        let mut notes = Vec::new();
        let out = strict(&root, SchemaDialect::JsonSchema, &props, &mut notes);
        assert_eq!(out["required"], json!(["q", "n", "o"]));
        assert_eq!(out["properties"]["q"], json!({"type": "string"}));
        assert_eq!(out["properties"]["n"]["anyOf"][2], json!({"type": "null"}));
        assert_eq!(out["properties"]["o"]["type"], json!(["object", "null"]));
        assert_eq!(out["properties"]["o"]["additionalProperties"], json!(false));
        assert_eq!(out["properties"]["o"]["properties"]["k"]["type"], json!(["boolean", "null"]));
        assert!(out.get("$schema").is_none());
        assert_eq!(
            notes,
            [
                "openai strict: `q`: `minLength` is not supported: it is dropped",
                "openai strict: `q`: format \"uri\" is not supported: it is dropped",
                "openai strict: `n`: `oneOf` is not supported: it is sent as `anyOf` (one or more may match)",
                "openai strict: `o`: additionalProperties true is not supported: strict mode sends false",
                "openai strict: `(parameters)`: `$schema` is not supported: it is dropped",
            ]
        );
    }

    #[test]
    fn openapi_nullability_becomes_json_schema_in_every_spelling() {
        let root = json!({"type": "OBJECT", "properties": {
            "a": {"type": "STRING", "nullable": true, "enum": ["x"]},
            "b": {"anyOf": [{"type": "STRING"}], "nullable": true},
            "c": {"$ref": "#/$defs/c", "nullable": true}
        }, "$defs": {"c": {"type": "INTEGER"}}});
        let m = root.as_object().cloned().unwrap();
        let (props, _) = input_schema(&m, SchemaDialect::OpenApi).unwrap();
        let out = json_schema(&m, SchemaDialect::OpenApi, &props, &mut Vec::new());
        assert_eq!(out["type"], json!("object"));
        assert_eq!(out["properties"]["a"], json!({"type": ["string", "null"], "enum": ["x", null]}));
        assert_eq!(out["properties"]["b"], json!({"anyOf": [{"type": "string"}, {"type": "null"}]}));
        assert_eq!(out["properties"]["c"], json!({"anyOf": [{"$ref": "#/$defs/c"}, {"type": "null"}]}));
        assert_eq!(out["$defs"]["c"], json!({"type": "integer"}), "definitions converted too");
    }

    #[test]
    fn gemini_spells_nullability_its_way_and_moves_what_it_cannot_say() {
        let (root, props) = project(json!({
            "type": "object",
            "properties": {
                "a": {"anyOf": [{"type": "string", "format": "uri"}, {"type": "null"}], "description": "A"},
                "b": {"type": ["integer", "null"], "enum": [1, 2, null], "exclusiveMinimum": 0},
                "c": {"const": "x"}
            },
            "required": [],
            "additionalProperties": false
        }));
        let mut notes = Vec::new();
        let out = gemini(&root, SchemaDialect::JsonSchema, &props, &mut notes).unwrap();
        assert_eq!(out["type"], json!("OBJECT"));
        assert!(out.get("required").is_none() && out.get("additionalProperties").is_none());
        assert_eq!(
            out["properties"]["a"],
            json!({"type": "STRING", "nullable": true, "description": "A Format: uri."})
        );
        assert_eq!(
            out["properties"]["b"],
            json!({"nullable": true, "type": "INTEGER", "description": "Allowed values: 1, 2, null."})
        );
        assert_eq!(out["properties"]["c"], json!({"enum": ["x"]}));
        assert_eq!(notes.len(), 4, "{notes:#?}");
        assert!(gemini(&Map::new(), SchemaDialect::JsonSchema, &[], &mut notes).is_none());
    }
}
