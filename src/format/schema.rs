//! The editor JSON Schemas of the project files (`promptc schema`), derived from the raw file
//! types: the shipped example's YAML files point yaml-language-server at them, which completes
//! and validates keys. The few values a derive cannot express (budget amounts, lint levels,
//! estimate factors) are written here, beside the types that use them.

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

/// JSON Schema 2020-12; an optional key is left out, never `null`.
fn generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12().into_generator()
}

/// Whole tokens, or `{tokens: N}` / `{bytes: N}`.
pub(super) fn amount(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "description": "Whole tokens, or {tokens: N} / {bytes: N}.",
        "anyOf": [
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
    json_schema!({"type": ["string", "null"], "enum": names})
}

/// Section id → amount.
pub(super) fn amounts(generator: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "object", "additionalProperties": amount(generator)})
}

/// A lint level.
fn level() -> Schema {
    json_schema!({"enum": ["allow", "warn", "deny"]})
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
    json_schema!({
        "type": "object", "additionalProperties": false,
        "properties": {"claude": factor.clone(), "gemini": factor}
    })
}

/// Switch name → value: true/false, or one of a string-valued switch's values.
pub(super) fn switch_values(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "object", "additionalProperties": {"type": ["boolean", "string"]}})
}

#[cfg(test)]
#[path = "schema_tests.rs"]
mod tests;
