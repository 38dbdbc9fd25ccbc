//! The entries of the manifest's named maps and lists: switches, variables, sections, slots,
//! profiles (with their messages and budgets), cases, sub-agents and commands.

use std::collections::BTreeMap;

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_saphyr::Spanned;

use super::S;
use crate::model::profile::Role;

/// A runtime capability: on/off, or one of its `values`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawSwitch {
    /// What the switch means.
    #[serde(default)]
    pub description: String,
    /// true/false, or one of `values`.
    #[serde(default)]
    #[schemars(schema_with = "super::schema::switch_default")]
    pub default: Option<Spanned<serde_json::Value>>,
    /// A string-valued switch's values, compared in `when:` as `name == "value"`.
    #[schemars(with = "Option<Vec<String>>", length(min = 1), extend("uniqueItems" = true))]
    pub values: Option<Spanned<Vec<S>>>,
}

/// A value that is there, `null` included (serde reads a `null` `Option` as absent).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<serde_json::Value>, D::Error> {
    serde_json::Value::deserialize(d).map(Some)
}

/// A template variable.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawVariable {
    /// What the variable holds.
    #[serde(default)]
    pub description: String,
    /// Its value when a request does not give one (default: the empty string). `null` is the
    /// empty string too, except with `templates: {compat: jinja2}`, where it is Python's None.
    #[serde(default, deserialize_with = "present")]
    pub default: Option<serde_json::Value>,
    /// Set per request: sections that read it are dynamic.
    #[serde(default)]
    pub dynamic: bool,
    /// Delimiter tag (e.g. MEMORY): the value is wrapped and neutralised.
    #[schemars(with = "Option<String>")]
    pub untrusted: Option<S>,
    /// How a value given for it (a context file, a case, `--var`) combines with its default:
    /// `replace` (default), `keys` (a map laid over the default map key by key), `deep` (and
    /// nested maps the same way).
    #[serde(default)]
    #[schemars(schema_with = "super::schema::merge_modes")]
    pub merge: Option<S>,
}

/// A section of the prompt: exactly one of `template`, `text`, `generate` or `slot`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawSection {
    /// A template file.
    #[schemars(with = "Option<String>")]
    pub template: Option<S>,
    /// An inline template.
    pub text: Option<String>,
    /// A section promptc generates from the active tools.
    #[serde(default)]
    #[schemars(schema_with = "super::schema::generators")]
    pub generate: Option<S>,
    /// Show the active tools' contributions to this slot.
    #[schemars(with = "Option<String>")]
    pub slot: Option<S>,
    /// Switch expression: switch names with !, &&, || and parentheses, e.g. "browser && !yolo".
    #[schemars(with = "Option<String>")]
    pub when: Option<S>,
    /// Delimiter tag (e.g. MEMORY): the rendered section is wrapped and neutralised.
    #[schemars(with = "Option<String>")]
    pub untrusted: Option<S>,
    /// What the section is for.
    #[serde(default)]
    pub description: String,
}

/// A prompt contract: its sections, its tools and its budget.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawProfile {
    /// What the profile is for.
    #[serde(default)]
    pub description: String,
    /// Section ids in prompt order.
    #[schemars(with = "Vec<String>")]
    pub sections: Vec<S>,
    /// Every tool of these toolsets.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub toolsets: Vec<S>,
    /// Plus these tool ids.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub tools: Vec<S>,
    /// Minus these tool ids.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub exclude: Vec<S>,
    /// Token or byte budgets checked by `promptc check`.
    #[schemars(with = "Option<RawBudget>")]
    pub budget: Option<Spanned<RawBudget>>,
    /// Messages the harness sends besides the system prompt, in order.
    #[serde(default)]
    #[schemars(with = "Vec<RawMessage>")]
    pub messages: Vec<Spanned<RawMessage>>,
}

/// One harness message of a profile: one text (`sections:`) or several content blocks
/// (`blocks:`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawMessage {
    /// Who sends it.
    pub role: Role,
    /// Its sections, joined into the message's one text.
    #[serde(default)]
    #[schemars(with = "Option<Vec<String>>")]
    pub sections: Option<Spanned<Vec<S>>>,
    /// Its content blocks, each made of sections: the message is sent as a list of blocks in
    /// the provider's shape.
    #[serde(default)]
    #[schemars(with = "Option<Vec<RawBlock>>")]
    pub blocks: Option<Spanned<Vec<RawBlock>>>,
}

/// One content block of a harness message.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawBlock {
    /// Its sections, joined into the block's text.
    #[schemars(with = "Vec<String>")]
    pub sections: Spanned<Vec<S>>,
}

/// A profile's budget; each amount is whole tokens, or {tokens: N} / {bytes: N}.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawBudget {
    /// The whole request: prompt and tools.
    #[serde(default)]
    #[schemars(schema_with = "super::schema::amount")]
    pub total: Option<Spanned<serde_json::Value>>,
    /// The prompt.
    #[serde(default)]
    #[schemars(schema_with = "super::schema::amount")]
    pub prompt: Option<Spanned<serde_json::Value>>,
    /// The tools.
    #[serde(default)]
    #[schemars(schema_with = "super::schema::amount")]
    pub tools: Option<Spanned<serde_json::Value>>,
    /// Section id → amount.
    #[serde(default)]
    #[schemars(schema_with = "super::schema::amounts")]
    pub sections: IndexMap<S, Spanned<serde_json::Value>>,
}

/// A named case of the snapshot matrix: switch and variable values applied over the defaults.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawCase {
    /// What the case shows.
    #[serde(default)]
    pub description: String,
    /// Switch values, by name.
    #[serde(default)]
    #[schemars(schema_with = "super::schema::switch_values")]
    pub switches: IndexMap<S, Spanned<serde_json::Value>>,
    /// Variable values, by name.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, serde_json::Value>")]
    pub variables: IndexMap<S, serde_json::Value>,
}

/// A named slot of the prompt that tools may (or may not) contribute to.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawSlot {
    /// What the slot holds.
    #[serde(default)]
    pub description: String,
    /// `system` (default, injectable), `user_intent` or `history` (not injectable).
    #[serde(default)]
    #[schemars(schema_with = "super::schema::slot_kinds")]
    pub kind: Option<S>,
}

/// A sub-agent: its own prompt with the same profile and transport, tools by allowlist.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawSubagent {
    /// What the sub-agent does.
    #[serde(default)]
    pub description: String,
    /// Sections (default: the profile's).
    #[schemars(with = "Option<Vec<String>>")]
    pub sections: Option<Vec<S>>,
    /// Tool allowlist (intersected with the profile's active tools).
    #[schemars(with = "Vec<String>")]
    pub tools: Vec<S>,
}

/// An open-weight model's chat template (`chat_templates:`): every native cell of the profiles
/// it names is rendered through it into `PROFILE[.CASE].chat-NAME.txt` in the snapshot folder.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawChatTemplate {
    /// The template: a `.jinja` file or the model's `tokenizer_config.json`, in the project.
    #[schemars(with = "String")]
    pub file: S,
    /// Which of a `tokenizer_config.json`'s named templates (default: transformers' choice).
    #[schemars(with = "Option<String>")]
    pub name: Option<S>,
    /// Template variables (`bos_token`, `eos_token`, any other), any value.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, serde_json::Value>")]
    pub variables: IndexMap<String, serde_json::Value>,
    /// The date `strftime_now` gives, YYYY-MM-DD (default: today, which changes the snapshot
    /// of a template that reads it every day).
    #[schemars(with = "Option<String>")]
    pub date: Option<S>,
    /// The model's Hugging Face `tokenizer.json`, in the project: `report --transport chat`
    /// counts this template's cells with it.
    #[schemars(with = "Option<String>")]
    pub tokenizer: Option<S>,
    /// The profiles whose cells it renders (default: every profile).
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub profiles: Vec<S>,
    /// Model ids it is for (`*` matches any text, case ignored), chosen by
    /// `--transport chat --model ID`.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub models: Vec<S>,
}

/// A slash command: instruction text per profile, never a tool.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawCommand {
    /// What the command does.
    #[serde(default)]
    pub description: String,
    /// A template file.
    #[schemars(with = "Option<String>")]
    pub template: Option<S>,
    /// An inline template.
    pub text: Option<String>,
    /// Per-profile texts, e.g. `lite: {template: commands/plan.lite.md.j2}`.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, RawCommandVariant>")]
    pub variants: IndexMap<S, RawCommandVariant>,
}

/// A profile-specific command text.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawCommandVariant {
    /// A template file.
    #[schemars(with = "Option<String>")]
    pub template: Option<S>,
    /// An inline template.
    pub text: Option<String>,
}
