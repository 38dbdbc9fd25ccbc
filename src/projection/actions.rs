//! The JSON action transport (ReAct loops without native tool calls): one JSON Schema in the
//! prompt whose `@action` enum lists the active tools, with common fields, every tool's
//! parameters flattened into one object, and the tools' descriptions as `x-@action-rules`.

use serde_json::{json, Map, Value};

use crate::diagnostic::Diagnostic;
use crate::error::Result;
use crate::projection::json_schema::{schema, Dialect};
use crate::resolve::tools::ActiveTool;

/// Fields every action has; tool parameters may not reuse these names.
pub const COMMON_FIELDS: [&str; 3] = ["@action", "identifier", "human_readable_thought"];

/// The action schema of the active tools. Two tools whose parameters share a name but not a
/// type cannot be flattened into one object: that is an error naming both.
pub fn action_schema(tools: &[ActiveTool]) -> Result<Value> {
    let mut props = Map::new();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    let action = "The action to take: one of the tools below.";
    props.insert("@action".into(), json!({"type": "string", "enum": names, "description": action}));
    let identifier = "A short snake_case name for this step, used in logs and debug folders.";
    props.insert("identifier".into(), json!({"type": "string", "description": identifier}));
    props.insert(
        "human_readable_thought".into(),
        json!({"type": "string", "description": "Optional: one or two sentences on why you take this action."}),
    );
    // Parameter name → (type, tools using it).
    let mut owners: Map<String, Value> = Map::new();
    let mut types: Vec<(String, String, String)> = Vec::new(); // (param, type, first tool)
    for t in tools {
        for p in &t.params {
            if COMMON_FIELDS.contains(&p.name.as_str()) {
                return Err(Diagnostic::error(format!(
                    "parameter `{}` of tool `{}` clashes with the common action \
                    field of the same name",
                    p.name, t.name
                ))
                .with_help(
                    "rename the parameter: every action already has `@action`, `identifier` and \
                        `human_readable_thought`",
                )
                .into_error(crate::error::ErrorKind::Project));
            }
            let ty = type_label(p);
            match types.iter().find(|(n, _, _)| n == &p.name) {
                Some((_, other_ty, other_tool)) if other_ty != &ty => {
                    return Err(Diagnostic::error(format!(
                        "parameter `{}` clashes in the json action schema: tool `{other_tool}` declares it as \
                            {other_ty}, tool `{}` as {ty}",
                        p.name, t.name
                    ))
                    .with_help(
                        "the json transport flattens every tool's parameters into one object; rename one of \
                        them or give both the same type",
                    )
                    .into_error(crate::error::ErrorKind::Project));
                }
                Some(_) => {
                    if let Some(Value::Array(list)) = owners.get_mut(&p.name) {
                        list.push(json!(t.name));
                    }
                }
                None => {
                    types.push((p.name.clone(), ty, t.name.clone()));
                    owners.insert(p.name.clone(), json!([t.name]));
                    props.insert(p.name.clone(), schema(&p.schema, Dialect::Standard, false));
                }
            }
        }
    }
    for (name, owners) in owners {
        if let Some(Value::Object(prop)) = props.get_mut(&name) {
            prop.insert("x-@actions".into(), owners);
        }
    }
    let rules: Vec<Value> = tools.iter().map(|t| json!({"@action": t.name, "rule": t.description.trim()})).collect();
    Ok(json!({
        "type": "object",
        "required": ["@action", "identifier"],
        "properties": props,
        "x-@action-rules": rules,
    }))
}

/// One tool's share of the action schema: its rule and its parameters (for reports).
pub fn tool_fragment(t: &ActiveTool) -> Value {
    let params: Map<String, Value> =
        t.params.iter().map(|p| (p.name.clone(), schema(&p.schema, Dialect::Standard, false))).collect();
    json!({"@action": t.name, "rule": t.description.trim(), "parameters": params})
}

/// One parameter's entry in a tool's share of the action schema (`"name":{schema}`), for reports.
pub fn param_fragment(p: &crate::model::params::Property) -> String {
    let v = schema(&p.schema, Dialect::Standard, false);
    format!("{}:{}", serde_json::to_string(&p.name).unwrap_or_default(), serde_json::to_string(&v).unwrap_or_default())
}

fn type_label(p: &crate::model::params::Property) -> String {
    let base = p.schema.kind.type_name();
    if p.schema.nullable {
        format!("{base} or null")
    } else {
        base.to_string()
    }
}

/// The schema as it appears in the prompt: a fenced JSON block.
pub fn prompt_block(tools: &[ActiveTool]) -> Result<String> {
    let v = action_schema(tools)?;
    Ok(format!("```json\n{}```", crate::json::to_pretty_json(&v)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::condition::Condition;
    use crate::model::params::{Kind, Property, Schema};

    fn prop(name: &str, kind: Kind) -> Property {
        Property {
            name: name.into(),
            required: true,
            schema: Schema { description: Some(format!("{name}.")), nullable: false, default: None, kind },
            when: Condition::Always,
        }
    }

    fn tool(name: &str, params: Vec<Property>) -> ActiveTool {
        ActiveTool {
            name: name.into(),
            toolset: "t".into(),
            description: format!("Use {name}."),
            params,
            ..Default::default()
        }
    }

    #[test]
    fn flattens_parameters_and_lists_actions() {
        let v = action_schema(&[
            tool("read", vec![prop("path", Kind::string())]),
            tool("write", vec![prop("path", Kind::string()), prop("content", Kind::string())]),
            tool("finish", vec![]),
        ])
        .unwrap();
        assert_eq!(v["properties"]["@action"]["enum"], json!(["read", "write", "finish"]));
        assert_eq!(v["properties"]["path"]["x-@actions"], json!(["read", "write"]));
        assert_eq!(v["properties"]["content"]["x-@actions"], json!(["write"]));
        assert_eq!(v["required"], json!(["@action", "identifier"]));
        assert_eq!(v["x-@action-rules"][2], json!({"@action": "finish", "rule": "Use finish."}));
        let keys: Vec<&String> = v["properties"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["@action", "identifier", "human_readable_thought", "path", "content"]);
    }

    #[test]
    fn type_clashes_name_both_tools() {
        let e = action_schema(&[
            tool("read", vec![prop("limit", Kind::string())]),
            tool("list", vec![prop("limit", Kind::Boolean)]),
        ])
        .unwrap_err();
        let m = &e.diagnostics()[0].message;
        assert!(m.contains("tool `read` declares it as string, tool `list` as boolean"), "{m}");
    }

    #[test]
    fn common_field_names_are_reserved() {
        let e = action_schema(&[tool("tag", vec![prop("identifier", Kind::string())])]).unwrap_err();
        assert!(e.diagnostics()[0].message.contains("clashes with the common action field"));
    }
}
