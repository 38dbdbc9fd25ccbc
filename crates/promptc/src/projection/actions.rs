//! The JSON action transport (ReAct loops without native tool calls): one JSON Schema in the
//! prompt whose `@action` enum lists the active tools, with common fields, the tools'
//! parameters, and the tools' descriptions as `x-@action-rules`.
//!
//! Parameters are never merged unless they are the same: a parameter several tools declare
//! with exactly the same schema is one property (its `x-@actions` lists the tools); one whose
//! schema differs between tools in anything (type, enum, properties, constraints, description)
//! is described per action. Each action's required parameters, and its own schema of every
//! parameter that differs, are in an `allOf` entry `if @action is T then …`, so a JSON Schema
//! validator enforces exactly what each tool declares.

use serde_json::{json, Map, Value};

use crate::diagnostic::Diagnostic;
use crate::projection::json_schema::{parameters, Dialect};
use crate::resolve::tools::ActiveTool;

/// Fields every action has; tool parameters may not reuse these names.
pub const COMMON_FIELDS: [&str; 3] = ["@action", "identifier", "human_readable_thought"];

/// What the shared property of a parameter whose schema differs between actions says.
const PER_ACTION: &str = "Differs by action: see the `allOf` entry of each action in `x-@actions`.";

/// A tool parameter named like one of the [`COMMON_FIELDS`]: the action schema cannot hold
/// both. The caller, which knows where the tool is declared, locates the diagnostic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldClash {
    /// The tool.
    pub tool: String,
    /// Its parameter whose name is taken.
    pub param: String,
}

impl FieldClash {
    /// What to tell the user (without a location).
    pub fn diagnostic(&self) -> Diagnostic {
        Diagnostic::error(format!(
            "parameter `{}` of tool `{}` clashes with the common action field of the same name",
            self.param, self.tool
        ))
        .with_help(
            "rename the parameter: every action already has `@action`, `identifier` and `human_readable_thought`",
        )
    }
}

/// The action schema of the active tools.
pub fn action_schema(tools: &[ActiveTool]) -> Result<Value, FieldClash> {
    let mut props = common_fields(tools);
    let differing = parameter_fields(tools, &mut props)?;
    let all_of = per_action_rules(tools, &differing);
    let rules: Vec<Value> = tools.iter().map(|t| json!({"@action": t.name, "rule": t.description.trim()})).collect();
    let mut out = Map::new();
    out.insert("type".into(), json!("object"));
    out.insert("required".into(), json!(["@action", "identifier"]));
    out.insert("properties".into(), Value::Object(props));
    if !all_of.is_empty() {
        out.insert("allOf".into(), Value::Array(all_of));
    }
    out.insert("x-@action-rules".into(), Value::Array(rules));
    Ok(Value::Object(out))
}

/// The fields every action has: which tool (`@action`), a step name and an optional thought.
fn common_fields(tools: &[ActiveTool]) -> Map<String, Value> {
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
    props
}

/// Each parameter name as one property of `props`, naming the tools that use it: its schema when
/// every tool gives it the same one, else a pointer to the per-action rules. Returns the names
/// whose schemas differ; a parameter named like a common field is a clash.
fn parameter_fields<'a>(tools: &'a [ActiveTool], props: &mut Map<String, Value>) -> Result<Vec<&'a str>, FieldClash> {
    // Parameter name → each tool's schema of it, in first-use order.
    let mut uses: Vec<(&str, Vec<(&str, Value)>)> = Vec::new();
    for t in tools {
        let schemas = param_schemas(t);
        for p in &t.params {
            if COMMON_FIELDS.contains(&p.name.as_str()) {
                return Err(FieldClash { tool: t.name.clone(), param: p.name.clone() });
            }
            let v = schemas.get(&p.name).cloned().unwrap_or_default();
            match uses.iter_mut().find(|(n, _)| *n == p.name) {
                Some((_, list)) => list.push((t.name.as_str(), v)),
                None => uses.push((p.name.as_str(), vec![(t.name.as_str(), v)])),
            }
        }
    }
    let mut differing: Vec<&str> = Vec::new();
    for (name, list) in &uses {
        let owners: Vec<&str> = list.iter().map(|(t, _)| *t).collect();
        let same = list.windows(2).all(|w| w[0].1 == w[1].1);
        let mut prop = if same {
            list[0].1.clone()
        } else {
            differing.push(name);
            json!({ "description": PER_ACTION })
        };
        if let Value::Object(m) = &mut prop {
            m.insert("x-@actions".into(), json!(owners));
        }
        props.insert(name.to_string(), prop);
    }
    Ok(differing)
}

/// One `if @action is this tool then …` rule per tool with required parameters or parameters
/// whose schemas differ between tools (`differing`).
fn per_action_rules(tools: &[ActiveTool], differing: &[&str]) -> Vec<Value> {
    let mut all_of = Vec::new();
    for t in tools {
        let required: Vec<&str> = t.params.iter().filter(|p| p.required).map(|p| p.name.as_str()).collect();
        let own: Map<String, Value> =
            param_schemas(t).into_iter().filter(|(n, _)| differing.contains(&n.as_str())).collect();
        if required.is_empty() && own.is_empty() {
            continue;
        }
        let mut then = Map::new();
        if !required.is_empty() {
            then.insert("required".into(), json!(required));
        }
        if !own.is_empty() {
            then.insert("properties".into(), Value::Object(own));
        }
        all_of.push(json!({
            "if": {"properties": {"@action": {"const": t.name}}, "required": ["@action"]},
            "then": then,
        }));
    }
    all_of
}

/// Each parameter's JSON Schema as the tool's parameters object gives it (a carried schema as
/// written, or converted from Gemini's subset), by name.
fn param_schemas(t: &ActiveTool) -> Map<String, Value> {
    match parameters(&t.params, &t.shape, Dialect::Standard) {
        Value::Object(mut root) => match root.remove("properties") {
            Some(Value::Object(props)) => props,
            _ => Map::new(),
        },
        _ => Map::new(),
    }
}

/// One tool's share of the action schema: its rule and its parameters (for reports).
pub fn tool_fragment(t: &ActiveTool) -> Value {
    json!({"@action": t.name, "rule": t.description.trim(), "parameters": param_schemas(t)})
}

/// Each parameter's entry in a tool's share of the action schema (`"name":{schema}`), for
/// reports, in parameter order.
pub fn param_fragments(t: &ActiveTool) -> Vec<String> {
    param_schemas(t)
        .iter()
        .map(|(name, v)| {
            format!(
                "{}:{}",
                serde_json::to_string(name).unwrap_or_default(),
                serde_json::to_string(v).unwrap_or_default()
            )
        })
        .collect()
}

/// The schema as it appears in the prompt: a fenced JSON block.
pub fn prompt_block(tools: &[ActiveTool]) -> Result<String, FieldClash> {
    let v = action_schema(tools)?;
    Ok(format!("```json\n{}```", crate::json::to_pretty_json(&v)))
}

#[cfg(test)]
#[path = "actions_tests.rs"]
mod tests;
