//! MCP: a server's `tools/list` result, `{"tools": [{name, description, inputSchema, …}]}`,
//! the tool's other MCP fields (`title`, `annotations`, `outputSchema`, `_meta`, `icons`) after
//! its schema, as the catalog carries them (`mcp:`).

use serde_json::{json, Map, Value};

use super::json_schema::{parameters, Dialect};
use crate::model::provider::Provider;
use crate::resolve::tools::ActiveTool;

/// The `tools/list` result.
pub fn project(tools: &[ActiveTool]) -> Value {
    let entries: Vec<Value> = tools
        .iter()
        .map(|t| {
            let mut m = Map::new();
            m.insert("name".into(), json!(t.name));
            m.insert("description".into(), json!(t.description));
            m.insert("inputSchema".into(), parameters(&t.params, &t.shape, Dialect::Standard));
            t.with_fields(Provider::Mcp, Value::Object(m))
        })
        .collect();
    json!({ "tools": entries })
}
