//! Anthropic Messages: `[{"name", "description", "input_schema"}]`.

use serde_json::{json, Value};

use super::json_schema::{parameters, Dialect};
use crate::model::provider::Provider;
use crate::resolve::tools::ActiveTool;

/// The `tools` array for the Messages API.
pub fn project(tools: &[ActiveTool]) -> Value {
    Value::Array(
        tools
            .iter()
            .map(|t| {
                let entry = json!({
                    "name": t.name,
                    "description": t.description,
                    "input_schema": parameters(&t.params, &t.shape, Dialect::Standard),
                });
                t.with_fields(Provider::Anthropic, entry)
            })
            .collect(),
    )
}
