//! Projections: the active tools turned into what a model receives — each provider's native
//! request shape (one module per provider, sharing `json_schema`), XML tool docs inside the
//! prompt, or one JSON action schema — with every provider limit in `limits`; and the harness
//! messages in each provider's shape (`messages`).

pub mod actions;
pub mod anthropic;
pub mod examples;
pub mod gemini;
pub mod json_schema;
pub mod mcp;
pub mod messages;
pub mod openai_chat;
pub mod openai_responses;
pub mod verbatim;
pub mod xml;

use serde_json::Value;

use crate::model::provider::Provider;
use crate::resolve::tools::ActiveTool;

/// Options every projection honours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProjectionOptions {
    /// OpenAI strict mode for function schemas.
    pub strict: bool,
    /// Gemini gets `parametersJsonSchema` instead of its OpenAPI subset.
    pub gemini_json_schema: bool,
}

impl ProjectionOptions {
    /// The options `project` sets.
    pub fn of(project: &crate::model::Project) -> ProjectionOptions {
        ProjectionOptions {
            strict: project.strict_tools,
            gemini_json_schema: project.gemini_schema == crate::model::provider::GeminiSchema::JsonSchema,
        }
    }
}

/// The value of the request's `tools` field for `provider`.
pub fn project(provider: Provider, tools: &[ActiveTool], opts: ProjectionOptions) -> Value {
    match provider {
        Provider::OpenAiChat => openai_chat::project(tools, opts),
        Provider::OpenAiResponses => openai_responses::project(tools, opts),
        Provider::Anthropic => anthropic::project(tools),
        Provider::Gemini => gemini::project(tools, opts),
        Provider::Mcp => mcp::project(tools),
    }
}

/// The function of one tool entry: the entry itself, or its `function` object where the
/// provider wraps it (Chat Completions).
pub fn entry_function(provider: Provider, entry: &Value) -> &Value {
    match provider.info().wraps_function {
        true => entry.get("function").unwrap_or(entry),
        false => entry,
    }
}

/// The parameter schema of one tool entry, under the provider's key.
pub fn entry_parameters(provider: Provider, entry: &Value) -> Option<&Value> {
    entry_function(provider, entry).get(provider.info().parameters_key)
}

/// The per-tool entries of a projection, in tool order (Gemini nests them in
/// `functionDeclarations`).
pub fn tool_entries(provider: Provider, projection: &Value) -> Vec<&Value> {
    let info = provider.info();
    let list = match (info.nests_declarations, info.list_key) {
        (true, _) => projection.get(0).and_then(|t| t.get("functionDeclarations")),
        (false, Some(key)) => projection.get(key),
        (false, None) => Some(projection),
    };
    list.and_then(Value::as_array).map(|a| a.iter().collect()).unwrap_or_default()
}
