//! OpenAI Responses: flattened function tools; `strict` is always present because the API
//! defaults it to true when absent.

use serde_json::{json, Value};

use super::json_schema::{parameters, Dialect};
use super::ProjectionOptions;
use crate::model::provider::Provider;
use crate::resolve::tools::ActiveTool;

/// The `tools` array for the Responses API.
pub fn project(tools: &[ActiveTool], opts: ProjectionOptions) -> Value {
    let dialect = if opts.strict { Dialect::OpenAiStrict } else { Dialect::Standard };
    Value::Array(
        tools
            .iter()
            .map(|t| {
                let entry = json!({
                    "type": "function",
                    "name": t.name,
                    "description": t.description,
                    "parameters": parameters(&t.params, &t.shape, dialect),
                    "strict": opts.strict,
                });
                t.with_fields(Provider::OpenAiResponses, entry)
            })
            .collect(),
    )
}
