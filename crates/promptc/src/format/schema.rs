//! The editor JSON Schemas of the project files (`promptc schema`), derived from the raw file
//! types: the shipped example's YAML files point yaml-language-server at them, which completes
//! and validates keys. The few values a derive cannot express (budget amounts, lint levels,
//! estimate factors, names the model lists) are written here, each read from the model's own
//! list. A field whose schema one of these helpers writes also carries `#[serde(default)]`,
//! a no-op for an `Option` when loading: without it schemars cannot tell the key is optional
//! and would list it as required (its side effect is a `"default": null` in the schema).

use schemars::generate::SchemaSettings;
use schemars::{json_schema, Schema, SchemaGenerator};

use super::manifest::RawManifest;
use super::tool::RawTool;

/// The schema of `promptc.yaml`.
pub fn manifest() -> String {
    let schema = generator().into_root_schema_for::<RawManifest>();
    crate::json::to_pretty_json(&schema)
}

/// The schema of a tool catalog file (a list of tools).
pub fn tools() -> String {
    let mut schema = generator().into_root_schema_for::<Vec<RawTool>>();
    schema.insert("title".into(), "promptc tool catalog file".into());
    crate::json::to_pretty_json(&schema)
}

/// JSON Schema 2020-12. An optional key may be left out or be `null` (the YAML loader reads
/// `null`, `~` and an empty value as absent); the helpers below keep that true.
fn generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12().into_generator()
}

/// One of `names`, or `null` (an optional key written empty).
fn name_or_null(names: &[&str]) -> Schema {
    let mut values: Vec<serde_json::Value> = names.iter().map(|n| serde_json::Value::from(*n)).collect();
    values.push(serde_json::Value::Null);
    json_schema!({"type": ["string", "null"], "enum": values})
}

/// A budget amount: whole tokens, or `{tokens: N}` / `{bytes: N}`, or `null` (none).
pub(super) fn amount(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "description": "Whole tokens, or {tokens: N} / {bytes: N}.",
        "anyOf": [
            {"type": "null"},
            {"type": "integer", "minimum": 0},
            {"type": "object", "properties": {"tokens": {"type": "integer", "minimum": 0}}, "required": ["tokens"],
                "additionalProperties": false},
            {"type": "object", "properties": {"bytes": {"type": "integer", "minimum": 0}}, "required": ["bytes"],
                "additionalProperties": false}
        ]
    })
}

/// A generator's name (`generate:`), from the model's list of generators.
pub(super) fn generators(_: &mut SchemaGenerator) -> Schema {
    let names: Vec<&str> = crate::model::section::Generator::ALL.iter().map(|(n, _)| *n).collect();
    name_or_null(&names)
}

/// A slot's `kind:`, from the model's list of kinds.
pub(super) fn slot_kinds(_: &mut SchemaGenerator) -> Schema {
    let names: Vec<&str> = crate::model::section::SlotKind::ALL.iter().map(|k| k.name()).collect();
    name_or_null(&names)
}

/// A tokenizer name (`tokens.tokenizer`), from the model's list of tokenizers.
pub(super) fn tokenizers(_: &mut SchemaGenerator) -> Schema {
    name_or_null(&crate::model::tokenizer::Tokenizer::names())
}

/// `templates.compat`: the template dialects promptc emulates.
pub(super) fn compat(_: &mut SchemaGenerator) -> Schema {
    name_or_null(&["jinja2"])
}

/// A variable's `merge:`, from the model's list of rules.
pub(super) fn merge_modes(_: &mut SchemaGenerator) -> Schema {
    name_or_null(&crate::model::Merge::NAMES)
}

/// `templates.undefined`: what an undefined value does.
pub(super) fn undefined_modes(_: &mut SchemaGenerator) -> Schema {
    name_or_null(&["strict", "lenient"])
}

/// A switch's default: true/false, or one of a string-valued switch's values.
pub(super) fn switch_default(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": ["boolean", "string", "null"]})
}

/// A parameter's `enum`: the values it takes, each a string or a number.
pub(super) fn enum_values(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": ["array", "null"], "items": {"type": ["string", "number", "integer"]}})
}

/// Section id → amount.
pub(super) fn amounts(generator: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "object", "additionalProperties": amount(generator)})
}

/// A lint level.
fn level() -> Schema {
    let names: Vec<&str> = crate::code::Level::ALL.iter().map(|l| l.as_str()).collect();
    json_schema!({"enum": names})
}

/// Rule code → level.
pub(super) fn levels(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "object", "additionalProperties": level()})
}

/// Profile → rule code → level.
pub(super) fn profile_levels(generator: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "object", "additionalProperties": levels(generator)})
}

/// Model family → estimate factor.
pub(super) fn estimates(_: &mut SchemaGenerator) -> Schema {
    let factor = json_schema!({"type": "number", "exclusiveMinimum": 0});
    let mut properties: serde_json::Map<String, serde_json::Value> = crate::model::tokenizer::Family::ALL
        .iter()
        .map(|f| (f.name().to_string(), factor.clone().to_value()))
        .collect();
    // Gemini's factor, from before Gemini was counted exactly: still read (the loader warns
    // that it is ignored), so an editor does not call an old project wrong.
    let ignored = json_schema!({
        "type": "number",
        "deprecated": true,
        "description": "Ignored: Gemini is counted exactly, with its Gemma 3 tokenizer."
    });
    properties.insert(crate::model::tokenizer::GEMINI.to_string(), ignored.to_value());
    json_schema!({"type": "object", "additionalProperties": false, "properties": properties})
}

/// Switch name → value: true/false, or one of a string-valued switch's values.
pub(super) fn switch_values(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "object", "additionalProperties": {"type": ["boolean", "string"]}})
}

#[cfg(test)]
#[path = "schema_tests.rs"]
mod tests;
