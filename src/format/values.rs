//! The closed sets of words the project files take as values, as written. The loader turns
//! each into the model's own enum with an exhaustive `match` (`load::settings::transport`,
//! `provider`, `load::catalog`, `load::profiles`); the words are the model's serde names.

use schemars::JsonSchema;
use serde::Deserialize;

/// A transport: how the active tools are presented to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RawTransport {
    /// Provider function calling.
    Native,
    /// Tool documentation rendered into the prompt text.
    Xml,
    /// JSON actions with one schema in the prompt.
    Json,
}

/// A provider API whose native tool format promptc emits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
pub enum RawProvider {
    /// OpenAI Chat Completions.
    #[serde(rename = "openai")]
    OpenAiChat,
    /// OpenAI Responses.
    #[serde(rename = "openai-responses")]
    OpenAiResponses,
    /// Anthropic Messages.
    #[serde(rename = "anthropic")]
    Anthropic,
    /// Google Gemini.
    #[serde(rename = "gemini")]
    Gemini,
}

/// How tool and parameter descriptions are sent: `trim` (default) removes trailing whitespace,
/// such as the newline a YAML `|` block ends with; `verbatim` sends them byte for byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RawDescriptionMode {
    /// Trailing whitespace removed.
    #[default]
    Trim,
    /// Byte for byte as written.
    Verbatim,
}

/// Who sends a harness message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RawRole {
    /// The user turn.
    User,
    /// An assistant turn.
    Assistant,
}

/// The `type:` of a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RawType {
    /// A string.
    String,
    /// A whole number.
    Integer,
    /// A number.
    Number,
    /// `true` or `false`.
    Boolean,
    /// A list (`items`).
    Array,
    /// An object (`properties`).
    Object,
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
