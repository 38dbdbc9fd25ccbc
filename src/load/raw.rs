//! The project files exactly as written: serde types for `promptc.yaml` and tool catalog files.
//!
//! These types only describe shape; every cross-reference and rule is checked when they are
//! turned into the validated model in `project`.

use indexmap::IndexMap;
use serde::Deserialize;
use serde_saphyr::Spanned;

use crate::model::provider::Provider;
use crate::model::transport::Transport;

/// A string with its location in the file it came from.
pub type S = Spanned<String>;

/// `promptc.yaml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawManifest {
    pub promptc: Spanned<u32>,
    pub name: String,
    pub contract_version: u64,
    #[serde(default)]
    pub defaults: RawDefaults,
    pub transports: Option<Spanned<Vec<Transport>>>,
    pub providers: Option<Vec<Provider>>,
    #[serde(default)]
    pub selection: RawSelection,
    #[serde(default = "yes")]
    pub strict_tools: bool,
    /// How tool and parameter descriptions are sent.
    #[serde(default)]
    pub descriptions: crate::model::catalog::DescriptionMode,
    /// The xml transport's own tool documentation and call format.
    pub tool_docs: Option<Spanned<RawToolDocs>>,
    #[serde(default)]
    pub switches: IndexMap<S, RawSwitch>,
    #[serde(default)]
    pub variables: IndexMap<S, RawVariable>,
    #[serde(default)]
    pub tokens: RawTokens,
    #[serde(default)]
    pub limits: RawLimits,
    #[serde(default)]
    pub templates: RawTemplates,
    pub snapshots: Option<S>,
    #[serde(default)]
    pub cases: IndexMap<S, RawCase>,
    #[serde(default)]
    pub slots: IndexMap<S, RawSlot>,
    #[serde(default)]
    pub subagents: IndexMap<S, RawSubagent>,
    #[serde(default)]
    pub commands: IndexMap<S, RawCommand>,
    #[serde(default)]
    pub check: RawCheck,
    pub layout: Option<S>,
    pub sections: IndexMap<S, RawSection>,
    pub tools: Vec<S>,
    pub profiles: IndexMap<S, RawProfile>,
}

fn yes() -> bool {
    true
}

/// `tool_docs:`: templates that replace the built-in XML tool documentation and call format.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawToolDocs {
    /// One tool's documentation.
    pub tool: Option<RawTemplateText>,
    /// Text between two tools' documentation (default: a blank line).
    pub separator: Option<String>,
    /// One call, as example calls show it.
    pub call: Option<RawTemplateText>,
}

/// A template given as a file or inline.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTemplateText {
    pub template: Option<S>,
    pub text: Option<S>,
}

/// `limits:`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawLimits {
    pub section_bytes: Option<Spanned<u64>>,
    pub prompt_bytes: Option<Spanned<u64>>,
}

/// `templates:`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTemplates {
    pub compat: Option<S>,
    pub trim_blocks: Option<bool>,
    pub lstrip_blocks: Option<bool>,
    pub keep_trailing_newline: Option<bool>,
}

/// `defaults:`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawDefaults {
    pub profile: Option<S>,
    pub transport: Option<Transport>,
    pub provider: Option<Provider>,
}

/// `selection:`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSelection {
    pub profile: Option<S>,
    pub model_segments: Option<Vec<S>>,
    pub below_context_window: Option<u64>,
    pub assumed_context_window: Option<u64>,
}

/// One entry of `switches:`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSwitch {
    #[serde(default)]
    pub description: String,
    /// `true`/`false`, or one of `values` for a string-valued switch.
    pub default: Option<Spanned<serde_json::Value>>,
    /// A string-valued switch's allowed values.
    pub values: Option<Spanned<Vec<S>>>,
}

/// One entry of `variables:`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawVariable {
    #[serde(default)]
    pub description: String,
    pub default: Option<serde_json::Value>,
    #[serde(default)]
    pub dynamic: bool,
    pub untrusted: Option<S>,
}

/// One entry of `sections:`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSection {
    pub template: Option<S>,
    pub text: Option<String>,
    pub generate: Option<S>,
    pub slot: Option<S>,
    pub when: Option<S>,
    pub untrusted: Option<S>,
    #[serde(default)]
    pub description: String,
}

/// One entry of `profiles:`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawProfile {
    #[serde(default)]
    pub description: String,
    pub sections: Vec<S>,
    #[serde(default)]
    pub toolsets: Vec<S>,
    #[serde(default)]
    pub tools: Vec<S>,
    #[serde(default)]
    pub exclude: Vec<S>,
    pub budget: Option<Spanned<RawBudget>>,
    /// Messages the harness sends besides the system prompt.
    #[serde(default)]
    pub messages: Vec<RawMessage>,
}

/// One harness message of a profile.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawMessage {
    pub role: crate::model::profile::Role,
    pub sections: Spanned<Vec<S>>,
}

/// A profile's `budget:`; each amount is a number of tokens or `{tokens: N}` / `{bytes: N}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBudget {
    pub total: Option<Spanned<serde_json::Value>>,
    pub prompt: Option<Spanned<serde_json::Value>>,
    pub tools: Option<Spanned<serde_json::Value>>,
    #[serde(default)]
    pub sections: IndexMap<S, Spanned<serde_json::Value>>,
}

/// A named case of the snapshot matrix: switch and variable values applied over the defaults.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCase {
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub switches: IndexMap<S, Spanned<serde_json::Value>>,
    #[serde(default)]
    pub variables: IndexMap<S, serde_json::Value>,
}

/// `check:` — lint settings.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCheck {
    /// Rule code → `allow`, `warn` or `deny`.
    #[serde(default)]
    pub levels: IndexMap<S, S>,
    /// Smaller profile → the profile it must be a subset of (default: lite → standard).
    pub subsets: Option<IndexMap<S, S>>,
    /// Profile → rule code → level, for that profile's cells only.
    #[serde(default)]
    pub profile_levels: IndexMap<S, IndexMap<S, S>>,
}

/// `tokens:` — how reports count.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTokens {
    pub tokenizer: Option<S>,
    #[serde(default)]
    pub estimates: IndexMap<S, Spanned<serde_json::Value>>,
    pub cache: Option<S>,
}

/// One tool in a catalog file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTool {
    pub name: S,
    pub toolset: S,
    pub description: S,
    /// Sentences appended to the description only where their conditions hold.
    pub description_parts: Option<Spanned<Vec<RawDescriptionPart>>>,
    pub when: Option<S>,
    #[serde(default)]
    pub parameters: IndexMap<S, RawParam>,
    /// `additionalProperties` of the parameters object, sent only when declared.
    pub additional_properties: Option<Spanned<bool>>,
    /// The order of the parameters object's `required` list, when not the parameters' order.
    pub required_order: Option<Spanned<Vec<S>>>,
    #[serde(default)]
    pub overrides: IndexMap<S, RawOverride>,
    /// Wording (and name) chosen by conditions: every variant whose `when` and `profiles` hold
    /// in a cell applies, a later one over an earlier one.
    #[serde(default)]
    pub variants: Vec<Spanned<RawVariant>>,
    #[serde(default)]
    pub spawns_subagents: bool,
    pub guidance: Option<S>,
    pub contributes: Option<Spanned<Vec<RawContribution>>>,
    /// Example calls, shown by a `generate: tool_examples` section while the tool is active.
    pub examples: Option<Spanned<Vec<RawExample>>>,
}

/// An example call of a tool.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawExample {
    /// What the example shows (one line).
    pub description: Option<S>,
    /// The arguments, by parameter name.
    pub arguments: Spanned<serde_json::Value>,
}

/// A part of a tool's description sent only where its conditions hold.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawDescriptionPart {
    pub text: S,
    /// Only while every one of these tools is active in the cell.
    #[serde(default)]
    pub tools: Vec<S>,
    /// Only when this switch expression holds.
    pub when: Option<S>,
    /// Only in these profiles (default: all).
    pub profiles: Option<Spanned<Vec<S>>>,
}

/// Text a tool contributes to a prompt slot while it is active.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawContribution {
    pub slot: Option<S>,
    /// Literal text, inserted verbatim.
    pub text: Option<S>,
    /// A template rendered with the cell's context.
    pub template: Option<S>,
    /// Only in these profiles (default: all).
    pub profiles: Option<Spanned<Vec<S>>>,
}

/// A named slot of the prompt that tools may (or may not) contribute to.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSlot {
    #[serde(default)]
    pub description: String,
    /// `system` (default, injectable), `user_intent` or `history` (not injectable).
    pub kind: Option<S>,
}

/// A sub-agent: its own prompt with the same profile and transport, tools by allowlist.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSubagent {
    #[serde(default)]
    pub description: String,
    /// Sections of its prompt (default: the profile's).
    pub sections: Option<Vec<S>>,
    /// Tool ids it may use (intersected with the profile's active tools).
    pub tools: Vec<S>,
}

/// A slash command: instruction text per profile, never a tool.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCommand {
    #[serde(default)]
    pub description: String,
    pub template: Option<S>,
    pub text: Option<String>,
    /// Per-profile variants, e.g. `lite: {template: commands/plan.lite.md.j2}`.
    #[serde(default)]
    pub variants: IndexMap<S, RawCommandVariant>,
}

/// A profile-specific command text.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCommandVariant {
    pub template: Option<S>,
    pub text: Option<String>,
}

/// A parameter or nested property schema.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawParam {
    #[serde(rename = "type")]
    pub ty: Spanned<RawType>,
    pub description: Option<String>,
    #[serde(default)]
    pub required: bool,
    #[serde(default)]
    pub nullable: bool,
    #[serde(rename = "enum")]
    pub enum_values: Option<Spanned<Vec<serde_json::Value>>>,
    pub default: Option<Spanned<serde_json::Value>>,
    pub format: Option<S>,
    pub pattern: Option<S>,
    pub min_length: Option<Spanned<u64>>,
    pub max_length: Option<Spanned<u64>>,
    pub minimum: Option<Spanned<f64>>,
    pub maximum: Option<Spanned<f64>>,
    pub items: Option<Box<RawParam>>,
    pub min_items: Option<Spanned<u64>>,
    pub max_items: Option<Spanned<u64>>,
    pub properties: Option<IndexMap<S, RawParam>>,
    /// For objects: `additionalProperties`, sent only when declared.
    pub additional_properties: Option<Spanned<bool>>,
    /// For objects: the order of the `required` list, when not the properties' order.
    pub required_order: Option<Spanned<Vec<S>>>,
    pub when: Option<S>,
    /// For top-level parameters: only in these profiles (default: all).
    pub profiles: Option<Spanned<Vec<S>>>,
}

/// The `type:` of a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RawType {
    String,
    Integer,
    Number,
    Boolean,
    Array,
    Object,
}

/// A variant of a tool's name and wording, for the cells where its conditions hold.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawVariant {
    pub when: Option<S>,
    pub profiles: Option<Spanned<Vec<S>>>,
    pub name: Option<S>,
    pub description: Option<String>,
    #[serde(default)]
    pub parameters: IndexMap<S, RawParamOverride>,
}

/// A per-profile override of a tool's wording.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawOverride {
    pub description: Option<String>,
    #[serde(default)]
    pub parameters: IndexMap<S, RawParamOverride>,
}

/// A per-profile override of one parameter's wording.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawParamOverride {
    pub description: String,
}

/// A `--context` file: runtime switches, variables and the model facts selection uses.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawContext {
    #[serde(default)]
    pub switches: IndexMap<S, Spanned<serde_json::Value>>,
    #[serde(default)]
    pub variables: IndexMap<S, serde_json::Value>,
    pub model: Option<String>,
    pub context_window: Option<Spanned<serde_json::Value>>,
}

impl RawType {
    /// Every type, in the order the documentation lists them.
    pub const ALL: [RawType; 6] =
        [RawType::String, RawType::Integer, RawType::Number, RawType::Boolean, RawType::Array, RawType::Object];

    /// The lower-case type name.
    pub fn name(self) -> &'static str {
        match self {
            RawType::String => "string",
            RawType::Integer => "integer",
            RawType::Number => "number",
            RawType::Boolean => "boolean",
            RawType::Array => "array",
            RawType::Object => "object",
        }
    }
}
