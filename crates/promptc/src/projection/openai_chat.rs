//! OpenAI Chat Completions: `[{"type": "function", "function": {…}}]`.

use serde_json::{json, Value};

use super::json_schema::{parameters, Dialect};
use super::ProjectionOptions;
use crate::model::provider::Provider;
use crate::resolve::tools::ActiveTool;

/// The `tools` array for Chat Completions.
pub fn project(tools: &[ActiveTool], opts: ProjectionOptions) -> Value {
    let dialect = if opts.strict { Dialect::OpenAiStrict } else { Dialect::Standard };
    Value::Array(
        tools
            .iter()
            .map(|t| {
                let mut function = json!({
                    "name": t.name,
                    "description": t.description,
                });
                // Chat Completions takes a function without parameters (`no_parameters: true`).
                if !t.shape.absent {
                    function["parameters"] = parameters(&t.params, &t.shape, dialect);
                }
                // Chat Completions defaults `strict` to false: the key says something only when true
                // (a definition that says `"strict": false` anyway carries it in `provider_fields`).
                if opts.strict {
                    function["strict"] = json!(true);
                }
                json!({"type": "function", "function": t.with_fields(Provider::OpenAiChat, function)})
            })
            .collect(),
    )
}
