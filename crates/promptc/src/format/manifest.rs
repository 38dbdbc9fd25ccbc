//! `promptc.yaml`: the manifest's top-level keys and its settings sections. The entries of its
//! named maps (switches, sections, profiles, …) are in `entries`.

use std::collections::BTreeMap;

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_saphyr::Spanned;

use super::entries::{RawCase, RawCommand, RawProfile, RawSection, RawSlot, RawSubagent, RawSwitch, RawVariable};
use super::S;
use crate::model::catalog::DescriptionMode;
use crate::model::provider::Provider;
use crate::model::transport::Transport;

/// promptc project manifest (promptc.yaml).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "promptc project manifest (promptc.yaml)")]
pub struct RawManifest {
    /// Project format version.
    #[schemars(with = "u32", extend("const" = 1))]
    pub promptc: Spanned<u32>,
    /// The project's name.
    pub name: String,
    /// Bump to invalidate every frozen prompt.
    pub contract_version: u64,
    /// What a request gets when it does not say.
    #[serde(default)]
    pub defaults: RawDefaults,
    /// The transports of the matrix (default: native and xml).
    #[schemars(with = "Option<Vec<Transport>>")]
    pub transports: Option<Spanned<Vec<Transport>>>,
    /// The providers of the matrix (default: the four model APIs; `mcp`, a `tools/list` result, only when listed).
    pub providers: Option<Vec<Provider>>,
    /// Which profile a model gets.
    #[serde(default)]
    pub selection: RawSelection,
    /// Send strict tool schemas where the provider supports them.
    #[serde(default = "yes")]
    pub strict_tools: bool,
    /// How Gemini receives tool parameters: `openapi` (`parameters`, its OpenAPI subset, the
    /// default, as its SDKs build from typed declarations) or `json_schema`
    /// (`parametersJsonSchema`, full JSON Schema, as gemini-cli sends).
    #[serde(default)]
    pub gemini_schema: crate::model::provider::GeminiSchema,
    /// How tool and parameter descriptions are sent.
    #[serde(default)]
    pub descriptions: DescriptionMode,
    /// The xml transport's own tool documentation and call format (default: built in).
    #[schemars(with = "Option<RawToolDocs>")]
    pub tool_docs: Option<Spanned<RawToolDocs>>,
    /// Runtime capabilities.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, RawSwitch>")]
    pub switches: IndexMap<S, RawSwitch>,
    /// Template variables.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, RawVariable>")]
    pub variables: IndexMap<S, RawVariable>,
    /// How reports count tokens.
    #[serde(default)]
    pub tokens: RawTokens,
    /// Caps on rendered sizes.
    #[serde(default)]
    pub limits: RawLimits,
    /// Template whitespace handling.
    #[serde(default)]
    pub templates: RawTemplates,
    /// The bytes promptc adds or removes between and around sections.
    #[serde(default)]
    pub assembly: RawAssembly,
    /// The snapshot folder, relative to the project folder (default: snapshots).
    #[schemars(with = "Option<String>")]
    pub snapshots: Option<S>,
    /// Named switch/variable sets that extend the snapshot matrix.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, RawCase>")]
    pub cases: IndexMap<S, RawCase>,
    /// Places tools may contribute to.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, RawSlot>")]
    pub slots: IndexMap<S, RawSlot>,
    /// Sub-agents.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, RawSubagent>")]
    pub subagents: IndexMap<S, RawSubagent>,
    /// Slash commands.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, RawCommand>")]
    pub commands: IndexMap<S, RawCommand>,
    /// Open-weight models' chat templates: chat cells in the snapshot matrix, and the template
    /// `--transport chat` uses for a profile or model.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, crate::format::entries::RawChatTemplate>")]
    pub chat_templates: IndexMap<S, crate::format::entries::RawChatTemplate>,
    /// Lint settings.
    #[serde(default)]
    pub check: RawCheck,
    /// Core template placing the rendered sections.
    #[schemars(with = "Option<String>")]
    pub layout: Option<S>,
    /// Sections by id.
    #[schemars(with = "BTreeMap<String, RawSection>")]
    pub sections: IndexMap<S, RawSection>,
    /// Tool catalog files.
    #[schemars(with = "Vec<String>")]
    pub tools: Vec<S>,
    /// Prompt contracts.
    #[schemars(with = "BTreeMap<String, RawProfile>")]
    pub profiles: IndexMap<S, RawProfile>,
}

fn yes() -> bool {
    true
}

/// Templates that replace the built-in XML tool documentation and call format.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawToolDocs {
    /// One tool's documentation; sees the cell's context plus `tool` (with its parameters'
    /// whole schema) and `index` (1, 2, …).
    pub tool: Option<RawTemplateText>,
    /// Between two tools (default: a blank line).
    pub separator: Option<String>,
    /// One call, as `generate: tool_examples` shows it; sees the cell's context plus `tool` and
    /// `arguments` (each with `name`, `value`, `text`).
    pub call: Option<RawTemplateText>,
}

/// A template given as a file or inline.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawTemplateText {
    /// A template file.
    #[schemars(with = "Option<String>")]
    pub template: Option<S>,
    /// An inline template.
    #[schemars(with = "Option<String>")]
    pub text: Option<S>,
}

/// Caps on rendered sizes.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawLimits {
    /// Most bytes one rendered template may produce (default 2 MiB).
    #[schemars(with = "Option<u64>", range(min = 1024, max = crate::model::settings::Limits::MAX_BYTES))]
    pub section_bytes: Option<Spanned<u64>>,
    /// Most bytes a whole prompt may have (default 8 MiB).
    #[schemars(with = "Option<u64>", range(min = 1024, max = crate::model::settings::Limits::MAX_BYTES))]
    pub prompt_bytes: Option<Spanned<u64>>,
    /// Most bytes every prompt, message and chat-template text of a whole-matrix run may add up
    /// to (default 64 MiB).
    #[schemars(with = "Option<u64>", range(min = 1024, max = crate::model::settings::Limits::MAX_BYTES))]
    pub matrix_bytes: Option<Spanned<u64>>,
    /// Most cells (profile × case × transport, and sub-agents) a whole-matrix run may compile
    /// (default 2,048).
    #[schemars(with = "Option<u64>", range(min = 1, max = crate::model::settings::Limits::MAX_CELLS))]
    pub matrix_cells: Option<Spanned<u64>>,
}

/// Template whitespace handling.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawTemplates {
    /// `jinja2`: Python Jinja2's whitespace defaults (no trim_blocks, no lstrip_blocks).
    #[serde(default)]
    #[schemars(schema_with = "super::schema::compat")]
    pub compat: Option<S>,
    /// Drop the first newline after a block tag (default true).
    pub trim_blocks: Option<bool>,
    /// Strip spaces before a block tag at the start of a line (default true).
    pub lstrip_blocks: Option<bool>,
    /// Keep the final newline of a template's source (default false).
    pub keep_trailing_newline: Option<bool>,
    /// `strict`: an undefined value is an error wherever it is used (the default without
    /// `compat`); `lenient`: it prints as nothing and is false, as in Jinja2 (the default with
    /// `compat: jinja2`).
    #[serde(default)]
    #[schemars(schema_with = "super::schema::undefined_modes")]
    pub undefined: Option<S>,
    /// The template search path: project folders (`.` for the project folder) in which the
    /// names of `include`, `import`, `from` and `extends` are looked up, in order, as Jinja2's
    /// `FileSystemLoader(searchpath)` does (default: names are paths from the project folder).
    #[schemars(with = "Option<Vec<String>>")]
    pub path: Option<Spanned<Vec<S>>>,
    /// Names a template may read though the project never sets them, meant to be tested with
    /// `is defined` (a harness sets them in some runs only, as SWE-agent's `command_docs`): not
    /// reported as undefined at load; undefined when rendered, so only a guarded use is sent.
    #[schemars(with = "Option<Vec<String>>")]
    pub optional: Option<Spanned<Vec<S>>>,
}

/// How the prompt is assembled from its sections' rendered text.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawAssembly {
    /// End a non-empty prompt with one newline (default true).
    pub final_newline: Option<bool>,
    /// Normalise each section's text: CRLF to LF, leading and trailing blank lines and trailing
    /// whitespace dropped, a layout's blank-line runs collapsed (default true); false: every
    /// section, message and layout exactly as rendered.
    pub trim: Option<bool>,
    /// What goes between two sections of the prompt or of a harness message (default a blank
    /// line, `"\n\n"`).
    pub separator: Option<String>,
    /// The separator at each other join point, where it is not `separator`.
    pub separators: Option<RawSeparators>,
}

/// What goes between two texts at each join point that is not the prompt's sections (each
/// defaults to `assembly.separator`).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawSeparators {
    /// Between two sections of one harness message content block.
    pub messages: Option<String>,
    /// Between two contributions to one slot.
    pub slots: Option<String>,
    /// Between two tools' guidance (`generate: tool_guidance`).
    pub tool_guidance: Option<String>,
}

/// What a request gets when it does not say.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawDefaults {
    /// The default profile (default: the first profile declared).
    #[schemars(with = "Option<String>")]
    pub profile: Option<S>,
    /// The default transport (default: the first of `transports`).
    pub transport: Option<Transport>,
    /// The default provider (default: the first of `providers`).
    pub provider: Option<Provider>,
}

/// Which profile a model gets.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawSelection {
    /// The profile for models the policy picks out (default: the default profile, so every model
    /// gets the same one).
    #[schemars(with = "Option<String>")]
    pub profile: Option<S>,
    /// Segment patterns: `o1` or `o1-*`.
    #[schemars(with = "Option<Vec<String>>")]
    pub model_segments: Option<Vec<S>>,
    /// Models with a context window below this get the selection profile (default 64000).
    #[schemars(with = "Option<u64>")]
    pub below_context_window: Option<Spanned<u64>>,
    /// The context window assumed when a request does not give one (default 128000).
    #[schemars(with = "Option<u64>")]
    pub assumed_context_window: Option<Spanned<u64>>,
    /// Model segment patterns match ASCII case exactly (default false: `O1-Mini` is `o1-mini`).
    #[schemars(with = "Option<bool>")]
    pub case_sensitive: Option<Spanned<bool>>,
}

/// Lint settings.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawCheck {
    /// Rule code → `allow`, `warn` or `deny`.
    #[serde(default)]
    #[schemars(schema_with = "super::schema::levels")]
    pub levels: IndexMap<S, S>,
    /// Smaller profile → the profile it must be a subset of (default: none; `{}` says so).
    #[schemars(with = "Option<BTreeMap<String, String>>")]
    pub subsets: Option<IndexMap<S, S>>,
    /// Profile → rule → level, for that profile's cells only (P001–P004, P006, P008).
    #[serde(default)]
    #[schemars(schema_with = "super::schema::profile_levels")]
    pub profile_levels: IndexMap<S, IndexMap<S, S>>,
}

/// How reports count tokens.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawTokens {
    /// The tokenizer reports count with.
    #[serde(default)]
    #[schemars(schema_with = "super::schema::tokenizers")]
    pub tokenizer: Option<S>,
    /// Model family → factor over o200k_base, for the families counted by estimate.
    #[serde(default)]
    #[schemars(schema_with = "super::schema::estimates")]
    pub estimates: IndexMap<S, Spanned<serde_json::Value>>,
    /// The token cache file, inside the project folder.
    #[schemars(with = "Option<String>")]
    pub cache: Option<S>,
}
