//! Providers: the APIs whose native tool format promptc emits.

use serde::{Deserialize, Serialize};

/// A provider API whose native tool format promptc can emit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize)]
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
}

impl Provider {
    /// Every provider, in matrix order.
    pub const ALL: [Provider; 4] =
        [Provider::OpenAiChat, Provider::OpenAiResponses, Provider::Anthropic, Provider::Gemini];

    /// The name used in files and flags.
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::OpenAiChat => "openai",
            Provider::OpenAiResponses => "openai-responses",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
        }
    }

    /// Parse a flag value.
    pub fn parse(s: &str) -> Option<Provider> {
        Provider::ALL.into_iter().find(|p| p.as_str() == s)
    }
}

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
