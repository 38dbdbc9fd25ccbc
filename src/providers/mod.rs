//! Native provider projections: the canonical tools turned into each provider's request
//! shape. Each provider lives in its own module; they share `json_schema`.

pub mod anthropic;
pub mod gemini;
pub mod json_schema;
pub mod openai_chat;
pub mod openai_responses;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::catalog::ActiveTool;

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

impl std::fmt::Display for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Options every projection honours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProjectionOptions {
    /// OpenAI strict mode for function schemas.
    pub strict: bool,
}

/// The value of the request's `tools` field for `provider`.
pub fn project(provider: Provider, tools: &[ActiveTool], opts: ProjectionOptions) -> Value {
    match provider {
        Provider::OpenAiChat => openai_chat::project(tools, opts),
        Provider::OpenAiResponses => openai_responses::project(tools, opts),
        Provider::Anthropic => anthropic::project(tools),
        Provider::Gemini => gemini::project(tools),
    }
}

/// The per-tool entries of a projection, in tool order (Gemini nests them in
/// `functionDeclarations`).
pub fn tool_entries(provider: Provider, projection: &Value) -> Vec<&Value> {
    let list = match provider {
        Provider::Gemini => projection.get(0).and_then(|t| t.get("functionDeclarations")),
        _ => Some(projection),
    };
    list.and_then(Value::as_array).map(|a| a.iter().collect()).unwrap_or_default()
}

/// Serialise a projection the one way promptc writes JSON: 2-space indent, trailing newline.
pub fn to_pretty_json(v: &Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_else(|_| "null".into()); // ok: Value always serialises
    s.push('\n');
    s
}
