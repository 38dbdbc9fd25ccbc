//! Providers: the APIs whose native tool format promptc emits, and everything promptc knows of
//! each ([`ProviderInfo`]) in one table.

use serde::{Deserialize, Serialize};

use crate::model::tokenizer::{Encoding, Family};

/// A provider API whose native tool format promptc can emit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize, schemars::JsonSchema)]
#[non_exhaustive]
pub enum Provider {
    /// OpenAI Chat Completions (`{type: function, function: {…}}`).
    #[serde(rename = "openai")]
    OpenAiChat,
    /// OpenAI Responses (flattened function tools, `strict` always present).
    #[serde(rename = "openai-responses")]
    OpenAiResponses,
    /// Anthropic Messages (`input_schema`).
    #[serde(rename = "anthropic")]
    Anthropic,
    /// Google Gemini (`functionDeclarations`, OpenAPI-style schema subset).
    #[serde(rename = "gemini")]
    Gemini,
    /// An MCP server's `tools/list` result (`{"tools": [{name, description, inputSchema, …}]}`):
    /// what an agent's MCP client reads, not a model API; opt-in (`providers: [.., mcp]`).
    #[serde(rename = "mcp")]
    Mcp,
}

impl Provider {
    /// Every provider, in matrix order.
    pub const ALL: [Provider; 5] =
        [Provider::OpenAiChat, Provider::OpenAiResponses, Provider::Anthropic, Provider::Gemini, Provider::Mcp];

    /// The model APIs: the matrix of a project that does not list its providers (MCP's
    /// `tools/list`, which no model reads as such, only when asked for).
    pub const MODEL_APIS: [Provider; 4] =
        [Provider::OpenAiChat, Provider::OpenAiResponses, Provider::Anthropic, Provider::Gemini];

    /// What promptc knows of this provider's API: the one table every projection, lint rule,
    /// count and list of names reads.
    pub const fn info(self) -> &'static ProviderInfo {
        match self {
            Provider::OpenAiChat => &OPENAI_CHAT,
            Provider::OpenAiResponses => &OPENAI_RESPONSES,
            Provider::Anthropic => &ANTHROPIC,
            Provider::Gemini => &GEMINI,
            Provider::Mcp => &MCP,
        }
    }

    /// The name used in files and flags.
    pub const fn as_str(self) -> &'static str {
        self.info().name
    }

    /// Parse a flag value.
    pub fn parse(s: &str) -> Option<Provider> {
        Provider::ALL.into_iter().find(|p| p.as_str() == s)
    }
}

/// How Gemini receives tool parameters (`gemini_schema:` in promptc.yaml).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GeminiSchema {
    /// `parameters`: Gemini's OpenAPI subset (upper-case types, `nullable`), what remains of a
    /// schema said by `check` (P003).
    #[default]
    Openapi,
    /// `parametersJsonSchema`: the JSON Schema itself.
    JsonSchema,
}

/// One provider's API as promptc uses it: names, published limits, the JSON Schema subset its
/// tool parameters may use, how its tool entries are shaped, and how it counts and bills.
#[derive(Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ProviderInfo {
    /// The name in files, flags, snapshot file names and output.
    pub name: &'static str,
    /// The company's or API's name as prose writes it (`OpenAI`, `Gemini`).
    pub label: &'static str,
    /// Most tools one request may carry (`None`: no published limit).
    pub max_tools: Option<usize>,
    /// Longest tool description in characters (`None`: no published limit).
    pub max_description_chars: Option<usize>,
    /// Whether OpenAI's strict mode applies to its function schemas (`strict_tools:`).
    pub strict_mode: bool,
    /// String formats its strict mode accepts; others are dropped (strict providers only).
    pub strict_formats: &'static [&'static str],
    /// String formats its schema subset accepts; others move into the description (`None`:
    /// every format passes).
    pub formats: Option<&'static [&'static str]>,
    /// Whether its schema subset takes `enum` on strings only (numbers' values move into the
    /// description) and drops `additionalProperties`.
    pub openapi_subset: bool,
    /// Whether each tool entry wraps the function in a `function` object (Chat Completions).
    pub wraps_function: bool,
    /// The key of a tool entry's parameter schema (`parameters`, Anthropic's `input_schema`).
    pub parameters_key: &'static str,
    /// Whether the tool entries sit inside one `functionDeclarations` object (Gemini).
    pub nests_declarations: bool,
    /// The key of the object whose list holds the tool entries (MCP's `tools`), when the
    /// projection is an object rather than the list itself.
    pub list_key: Option<&'static str>,
    /// What its cells count with when neither a model nor `--tokenizer` says.
    pub counts_with: CountsWith,
    /// What it bills beyond the text sent.
    pub billing: Billing,
    /// Whether promptc writes its cached request (`cache_control` breakpoints) into artifacts.
    pub cache_control_request: bool,
    /// Whether its API refuses a request whose first message is not the user's (Anthropic:
    /// `messages: first message must use the "user" role`, its API's error as quoted in
    /// lobehub/lobehub#1601; P002 checks the harness messages).
    pub first_message_from_user: bool,
    /// Whether its API refuses a request without a message besides the system prompt (Anthropic's
    /// `messages` and Gemini's `contents` must not be empty: `GenerateContentRequest.contents:
    /// contents is not specified`, googleapis/js-genai#912).
    pub needs_a_message: bool,
    /// The keys promptc always writes in a tool's entry (the function object, for Chat
    /// Completions); one it writes only sometimes (Chat's `strict`) may be a `provider_fields`
    /// key, sent where promptc does not write it.
    pub entry_keys: &'static [&'static str],
    /// Every field its SDK declares for a tool's entry (the function object, for Chat
    /// Completions): a `provider_fields` key outside them is refused (P002).
    pub entry_fields: &'static [&'static str],
    /// The names its API accepts for a tool.
    pub tool_names: NameRule,
    /// The names its API accepts for a tool's top-level parameters.
    pub property_names: NameRule,
}

/// A provider's published (or observed in its API's errors) rule on names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameRule {
    /// Letters, digits, `_` and `-`, 1 to 64 characters (OpenAI's and Anthropic's tool names;
    /// the catalog's own rule).
    Word64,
    /// Gemini's function names: a letter or `_` first, then letters, digits, `_`, `.`, `:` or
    /// `-`, at most 64 characters (its API's `Invalid function name` error).
    GeminiFunction,
    /// Anthropic's property keys: letters, digits, `_`, `.` and `-`, 1 to 64 characters (its
    /// API's `Property keys should match pattern` error).
    PropertyKey,
    /// MCP's tool names: letters, digits, `_`, `-` and `.`, 1 to 128 characters (the
    /// specification's "Tool names" guidance, 2025-11-25).
    McpTool,
    /// A catalog's tool names: letters, digits, `_`, `-` and `.`, 1 to 64 characters — what one
    /// provider or another takes (MCP servers name tools `sites.get_project`); P002 says where an
    /// enabled provider refuses one (OpenAI and Anthropic refuse the dot).
    Catalog,
    /// No rule published: any name JSON Schema allows.
    Any,
}

impl NameRule {
    /// Whether `name` follows the rule.
    pub fn allows(self, name: &str) -> bool {
        let len = name.chars().count();
        let word = |c: char, extra: &str| c.is_ascii_alphanumeric() || c == '_' || extra.contains(c);
        match self {
            NameRule::Word64 => (1..=64).contains(&len) && name.chars().all(|c| word(c, "-")),
            NameRule::GeminiFunction => {
                (1..=64).contains(&len)
                    && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                    && name.chars().all(|c| word(c, ".:-"))
            }
            NameRule::PropertyKey | NameRule::Catalog => (1..=64).contains(&len) && name.chars().all(|c| word(c, ".-")),
            NameRule::McpTool => (1..=128).contains(&len) && name.chars().all(|c| word(c, ".-")),
            NameRule::Any => true,
        }
    }

    /// The rule as a regular expression, for messages.
    pub fn pattern(self) -> &'static str {
        match self {
            NameRule::Word64 => "^[A-Za-z0-9_-]{1,64}$",
            NameRule::GeminiFunction => "^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$",
            NameRule::PropertyKey | NameRule::Catalog => "^[A-Za-z0-9_.-]{1,64}$",
            NameRule::McpTool => "^[A-Za-z0-9_.-]{1,128}$",
            NameRule::Any => ".*",
        }
    }
}

/// What a provider bills for a request beyond the text promptc sends (see `measure::billing`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Billing {
    /// What google-genai's `LocalTokenizer` counts: the system instruction's and the contents'
    /// texts, and the texts of the function declarations (names, descriptions, and the schema's
    /// strings: formats, descriptions, enum values, required names, property names, examples).
    GeminiTexts,
    /// OpenAI's published recipe: function definitions in its internal format.
    OpenAiRecipe,
    /// Anthropic's published tool-use system prompt, per model.
    AnthropicToolPrompt,
    /// Nothing published: billed as sent.
    AsSent,
}

/// The tokenizer a provider's cells count with by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountsWith {
    /// The project's `tokens.tokenizer` (OpenAI's APIs, MCP).
    Project,
    /// An estimate: its tokenizer is not public (Claude).
    Estimate(Family),
    /// Its own public tokenizer (Gemini's Gemma 3 model).
    Exact(Encoding),
}

/// String formats OpenAI strict mode accepts.
const OPENAI_STRICT_FORMATS: &[&str] =
    &["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];

const OPENAI_CHAT: ProviderInfo = ProviderInfo {
    name: "openai",
    label: "OpenAI",
    max_tools: Some(128),
    max_description_chars: Some(1024),
    strict_mode: true,
    strict_formats: OPENAI_STRICT_FORMATS,
    formats: None,
    openapi_subset: false,
    wraps_function: true,
    parameters_key: "parameters",
    nests_declarations: false,
    list_key: None,
    counts_with: CountsWith::Project,
    billing: Billing::OpenAiRecipe,
    cache_control_request: false,
    first_message_from_user: false,
    needs_a_message: false,
    entry_keys: &["name", "description", "parameters"],
    entry_fields: &["name", "description", "parameters", "strict"],
    tool_names: NameRule::Word64,
    property_names: NameRule::Any,
};

const OPENAI_RESPONSES: ProviderInfo = ProviderInfo {
    name: "openai-responses",
    wraps_function: false,
    first_message_from_user: false,
    needs_a_message: false,
    entry_keys: &["type", "name", "description", "parameters", "strict"],
    entry_fields: &[
        "type",
        "name",
        "description",
        "parameters",
        "strict",
        "defer_loading",
        "allowed_callers",
        "output_schema",
    ],
    ..OPENAI_CHAT
};

const ANTHROPIC: ProviderInfo = ProviderInfo {
    name: "anthropic",
    label: "Anthropic",
    max_tools: None,
    max_description_chars: None,
    strict_mode: false,
    strict_formats: &[],
    formats: None,
    openapi_subset: false,
    wraps_function: false,
    parameters_key: "input_schema",
    nests_declarations: false,
    list_key: None,
    counts_with: CountsWith::Estimate(Family::Claude),
    billing: Billing::AnthropicToolPrompt,
    cache_control_request: true,
    first_message_from_user: true,
    needs_a_message: true,
    entry_keys: &["name", "description", "input_schema"],
    entry_fields: &[
        "name",
        "description",
        "input_schema",
        "type",
        "cache_control",
        "strict",
        "input_examples",
        "defer_loading",
        "eager_input_streaming",
        "allowed_callers",
    ],
    tool_names: NameRule::Word64,
    property_names: NameRule::PropertyKey,
};

const GEMINI: ProviderInfo = ProviderInfo {
    name: "gemini",
    label: "Gemini",
    max_tools: Some(128),
    max_description_chars: None,
    strict_mode: false,
    strict_formats: &[],
    formats: Some(&["date-time"]),
    openapi_subset: true,
    wraps_function: false,
    parameters_key: "parameters",
    nests_declarations: true,
    list_key: None,
    counts_with: CountsWith::Exact(Encoding::Gemma3),
    billing: Billing::GeminiTexts,
    cache_control_request: false,
    first_message_from_user: false,
    needs_a_message: true,
    entry_keys: &["name", "description", "parameters", "parametersJsonSchema"],
    entry_fields: &[
        "name",
        "description",
        "parameters",
        "parametersJsonSchema",
        "response",
        "responseJsonSchema",
        "behavior",
    ],
    tool_names: NameRule::GeminiFunction,
    property_names: NameRule::Any,
};

const MCP: ProviderInfo = ProviderInfo {
    name: "mcp",
    label: "MCP",
    max_tools: None,
    max_description_chars: None,
    strict_mode: false,
    strict_formats: &[],
    formats: None,
    openapi_subset: false,
    wraps_function: false,
    parameters_key: "inputSchema",
    nests_declarations: false,
    list_key: Some("tools"),
    counts_with: CountsWith::Project,
    billing: Billing::AsSent,
    cache_control_request: false,
    first_message_from_user: false,
    needs_a_message: false,
    entry_keys: &["name", "description", "inputSchema"],
    // The Tool fields of the MCP schema (2025-11-25).
    entry_fields: &[
        "name",
        "title",
        "description",
        "inputSchema",
        "outputSchema",
        "annotations",
        "icons",
        "execution",
        "_meta",
    ],
    tool_names: NameRule::McpTool,
    property_names: NameRule::Any,
};

impl std::str::FromStr for Provider {
    type Err = crate::model::name::UnknownName;

    fn from_str(s: &str) -> Result<Provider, Self::Err> {
        crate::model::name::find("provider", s, &Provider::ALL, Provider::as_str)
    }
}

impl std::fmt::Display for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The serde names (files, JSON) are the table's names.
    #[test]
    fn serde_names_are_the_table_names() {
        for p in Provider::ALL {
            assert_eq!(serde_json::to_value(p).unwrap(), p.info().name);
            assert_eq!(serde_json::from_value::<Provider>(p.info().name.into()).unwrap(), p);
            assert_eq!(Provider::parse(p.as_str()), Some(p));
        }
    }
}
