//! A tool catalog file: a list of tools, each with its parameters, wording variants and
//! overrides, description parts, contributions and example calls.

use std::collections::BTreeMap;

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_saphyr::Spanned;

use super::values::RawType;
use super::S;

/// A tool.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawTool {
    /// The tool's name and id.
    #[schemars(with = "String", extend("pattern" = "^[A-Za-z0-9_.-]{1,64}$"))]
    pub name: S,
    /// The toolset it belongs to.
    #[schemars(with = "String")]
    pub toolset: S,
    /// What the tool does and when to use it. Every provider and MCP take a tool without one (sent
    /// with no description key; `check` warns, P013): what `promptc import tools` writes for a
    /// definition whose description is absent or `null`.
    #[schemars(with = "Option<String>")]
    pub description: Option<S>,
    /// Sentences appended to the description, each on a new line, only where their conditions hold.
    #[schemars(with = "Option<Vec<RawDescriptionPart>>", length(min = 1))]
    pub description_parts: Option<Spanned<Vec<RawDescriptionPart>>>,
    /// Switch expression: switch names with !, &&, || and parentheses, e.g. "browser && !yolo".
    #[schemars(with = "Option<String>")]
    pub when: Option<S>,
    /// Parameters by name.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, RawParam>")]
    pub parameters: IndexMap<S, RawParam>,
    /// The parameters as a whole JSON Schema object (`type: object`, `properties`, `required`,
    /// and any other keyword — `anyOf`, `$defs`, `$ref`, `title`, `x-…` — in its order), sent as
    /// written to the providers that take full JSON Schema and converted, finding by finding,
    /// for the others. What `promptc import tools` writes when the typed form cannot say a
    /// schema exactly. Instead of `parameters`, `additional_properties` and `required_order`.
    #[schemars(with = "Option<serde_json::Map<String, serde_json::Value>>")]
    pub input_schema: Option<Spanned<serde_json::Value>>,
    /// The parameters in Gemini's OpenAPI subset (upper- or lower-case types, `nullable`), as a
    /// Gemini declaration's `parameters` has them: sent as written to Gemini, converted to JSON
    /// Schema for the other providers (each change said by `check`). What `promptc import tools`
    /// writes for Gemini input. Instead of `input_schema` or `parameters`.
    #[schemars(with = "Option<serde_json::Map<String, serde_json::Value>>")]
    pub gemini_parameters: Option<Spanned<serde_json::Value>>,
    /// The tool's entry has no parameter schema at all, as a function that takes no arguments
    /// may be sent: Chat Completions and Gemini get no parameters key, the providers that require
    /// one (Responses, Anthropic, MCP) an empty object schema. What `promptc import tools` writes
    /// for a definition without parameters. Instead of `parameters`, `input_schema` or
    /// `gemini_parameters`.
    #[serde(default)]
    #[schemars(with = "bool")]
    pub no_parameters: Option<Spanned<bool>>,
    /// Fields of a provider's tool entry promptc has no model for, by provider, sent as written
    /// after its own (an MCP tool's `title`, `annotations`, `outputSchema`, `_meta`, `icons`;
    /// Anthropic `type: custom` or `cache_control`; a Chat Completions function's other keys; a
    /// Gemini declaration's `behavior`): what `promptc import tools` keeps of an input's entries.
    #[schemars(
        with = "Option<BTreeMap<crate::model::provider::Provider, serde_json::Map<String, serde_json::Value>>>"
    )]
    pub provider_fields:
        Option<Spanned<IndexMap<crate::model::provider::Provider, serde_json::Map<String, serde_json::Value>>>>,
    /// The order of the keys of the tool's entry for a provider, when it is not promptc's (its own
    /// keys, then `provider_fields`): the keys named come first, in this order, the others after
    /// them as promptc writes them. What `promptc import tools` writes so that an entry renders
    /// back with its keys where the input had them (an MCP `title` before `description`).
    #[schemars(with = "Option<BTreeMap<crate::model::provider::Provider, Vec<String>>>")]
    pub provider_key_order: Option<Spanned<IndexMap<crate::model::provider::Provider, Vec<Spanned<String>>>>>,
    /// `additionalProperties` of the parameters object, sent only when declared (OpenAI strict
    /// mode always sends false).
    #[schemars(with = "Option<bool>")]
    pub additional_properties: Option<Spanned<bool>>,
    /// The order of the `required` list when it is not the parameters' order; names exactly
    /// the required parameters.
    #[schemars(with = "Option<Vec<String>>", extend("uniqueItems" = true))]
    pub required_order: Option<Spanned<Vec<S>>>,
    /// Per-profile wording.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, RawOverride>")]
    pub overrides: IndexMap<S, RawOverride>,
    /// Name and wording where conditions hold: every variant whose `when` and `profiles` hold
    /// applies, a later one over an earlier one.
    #[serde(default)]
    #[schemars(with = "Vec<RawVariant>")]
    pub variants: Vec<Spanned<RawVariant>>,
    /// Its texts are templates rendered per cell with the cell's variables and switches: the
    /// description, description parts, `parameters:` descriptions and the wordings overrides
    /// and variants give them (a text that reads a dynamic variable makes the tool dynamic).
    #[serde(default)]
    pub templated: bool,
    /// The tool starts sub-agents (it is never given to one).
    #[serde(default)]
    pub spawns_subagents: bool,
    /// Usage guidance shown only while the tool is active (generate: tool_guidance).
    #[schemars(with = "Option<String>")]
    pub guidance: Option<S>,
    /// Text the tool contributes to prompt slots while it is active.
    #[schemars(with = "Option<Vec<RawContribution>>", length(min = 1))]
    pub contributes: Option<Spanned<Vec<RawContribution>>>,
    /// Example calls, shown by a `generate: tool_examples` section while the tool is active.
    #[schemars(with = "Option<Vec<RawExample>>", length(min = 1))]
    pub examples: Option<Spanned<Vec<RawExample>>>,
}

/// An example call of a tool.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawExample {
    /// What the example shows (one line).
    #[schemars(with = "Option<String>")]
    pub description: Option<S>,
    /// Parameter name → value.
    #[schemars(with = "BTreeMap<String, serde_json::Value>")]
    pub arguments: Spanned<serde_json::Value>,
}

/// A part of a tool's description sent only where its conditions hold.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawDescriptionPart {
    /// The sentence.
    #[schemars(with = "String")]
    pub text: S,
    /// Sent only while all of these tools are active.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub tools: Vec<S>,
    /// Switch expression: switch names with !, &&, || and parentheses, e.g. "browser && !yolo".
    #[schemars(with = "Option<String>")]
    pub when: Option<S>,
    /// Sent only in these profiles (default: all).
    #[schemars(with = "Option<Vec<String>>", length(min = 1))]
    pub profiles: Option<Spanned<Vec<S>>>,
}

/// Text a tool contributes to a prompt slot while it is active.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawContribution {
    /// The slot.
    #[schemars(with = "Option<String>")]
    pub slot: Option<S>,
    /// Literal text, inserted verbatim.
    #[schemars(with = "Option<String>")]
    pub text: Option<S>,
    /// A template rendered with the prompt context.
    #[schemars(with = "Option<String>")]
    pub template: Option<S>,
    /// Only in these profiles (default: all).
    #[schemars(with = "Option<Vec<String>>", length(min = 1))]
    pub profiles: Option<Spanned<Vec<S>>>,
}

/// A parameter or nested property schema.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawParam {
    /// Its JSON type.
    #[serde(rename = "type")]
    #[schemars(with = "RawType")]
    pub ty: Spanned<RawType>,
    /// What the model should pass.
    pub description: Option<String>,
    /// The caller must supply it (default false).
    #[serde(default)]
    pub required: bool,
    /// `null` is also a valid value.
    #[serde(default)]
    pub nullable: bool,
    /// The allowed values.
    #[serde(rename = "enum", default)]
    #[schemars(schema_with = "super::schema::enum_values")]
    pub enum_values: Option<Spanned<Vec<serde_json::Value>>>,
    /// The value when the caller leaves it out.
    #[schemars(with = "Option<serde_json::Value>")]
    pub default: Option<Spanned<serde_json::Value>>,
    /// Strings: a format such as `uri`.
    #[schemars(with = "Option<String>")]
    pub format: Option<S>,
    /// Strings: a regular expression.
    #[schemars(with = "Option<String>")]
    pub pattern: Option<S>,
    /// Strings: the fewest characters.
    #[schemars(with = "Option<u64>")]
    pub min_length: Option<Spanned<u64>>,
    /// Strings: the most characters.
    #[schemars(with = "Option<u64>")]
    pub max_length: Option<Spanned<u64>>,
    /// Numbers: the least value.
    #[schemars(with = "Option<f64>")]
    pub minimum: Option<Spanned<f64>>,
    /// Numbers: the greatest value.
    #[schemars(with = "Option<f64>")]
    pub maximum: Option<Spanned<f64>>,
    /// Arrays: the element schema.
    pub items: Option<Box<RawParam>>,
    /// Arrays: the fewest items.
    #[schemars(with = "Option<u64>")]
    pub min_items: Option<Spanned<u64>>,
    /// Arrays: the most items.
    #[schemars(with = "Option<u64>")]
    pub max_items: Option<Spanned<u64>>,
    /// Objects: the properties by name.
    #[schemars(with = "Option<BTreeMap<String, RawParam>>")]
    pub properties: Option<IndexMap<S, RawParam>>,
    /// Objects: `additionalProperties`, sent only when declared (OpenAI strict mode always
    /// sends false).
    #[schemars(with = "Option<bool>")]
    pub additional_properties: Option<Spanned<bool>>,
    /// Objects: the order of the `required` list when it is not the properties' order; names
    /// exactly the required properties.
    #[schemars(with = "Option<Vec<String>>", extend("uniqueItems" = true))]
    pub required_order: Option<Spanned<Vec<S>>>,
    /// Top-level parameters: a switch expression, e.g. "browser && !yolo".
    #[schemars(with = "Option<String>")]
    pub when: Option<S>,
    /// Top-level parameters: sent only in these profiles (default: all).
    #[schemars(with = "Option<Vec<String>>", length(min = 1))]
    pub profiles: Option<Spanned<Vec<S>>>,
}

/// A variant of a tool's name and wording, for the cells where its conditions hold.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawVariant {
    /// Switch expression: switch names with !, &&, || and parentheses, e.g. "browser && !yolo".
    #[schemars(with = "Option<String>")]
    pub when: Option<S>,
    /// Only in these profiles.
    #[schemars(with = "Option<Vec<String>>", length(min = 1))]
    pub profiles: Option<Spanned<Vec<S>>>,
    /// The name the tool is sent under.
    #[schemars(with = "Option<String>", extend("pattern" = "^[A-Za-z0-9_-]{1,64}$"))]
    pub name: Option<S>,
    /// The description sent instead.
    pub description: Option<String>,
    /// Per-parameter descriptions.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, RawParamOverride>")]
    pub parameters: IndexMap<S, RawParamOverride>,
}

/// A per-profile override of a tool's wording.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawOverride {
    /// The description sent instead.
    pub description: Option<String>,
    /// Per-parameter descriptions.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, RawParamOverride>")]
    pub parameters: IndexMap<S, RawParamOverride>,
}

/// Another wording of one parameter.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawParamOverride {
    /// The description sent instead.
    pub description: String,
}
