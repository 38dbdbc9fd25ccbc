//! The template context of one cell: variables (untrusted ones already wrapped), switches (as
//! the `switches` map and as plain names), profile, transport and the active tools.

use serde_json::{json, Value};

use crate::model::params::{Kind, Property, Schema};
use crate::model::Project;
use crate::resolve::tools::ActiveTool;
use crate::resolve::Resolved;

/// A set of names for templates: `"x" in tool_names` is a hash lookup (not a scan of every
/// tool, which made large projects quadratic); iterating yields the names in order.
#[derive(Debug)]
struct NameSet(indexmap::IndexSet<String>);

impl promptc_template::Object for NameSet {
    fn repr(self: &std::sync::Arc<Self>) -> promptc_template::ObjectRepr {
        promptc_template::ObjectRepr::Map
    }

    fn get_value(self: &std::sync::Arc<Self>, key: &promptc_template::Value) -> Option<promptc_template::Value> {
        key.as_str().filter(|k| self.0.contains(*k)).map(|_| promptc_template::Value::from(true))
    }

    fn enumerate(self: &std::sync::Arc<Self>) -> promptc_template::Enumerator {
        let names: Vec<promptc_template::Value> =
            self.0.iter().map(|n| promptc_template::Value::from(n.as_str())).collect();
        promptc_template::Enumerator::Iter(Box::new(names.into_iter()))
    }

    fn enumerator_len(self: &std::sync::Arc<Self>) -> Option<usize> {
        Some(self.0.len())
    }
}

/// A tool as templates see it: name, toolset, description (as sent: trimmed unless
/// `descriptions: verbatim`),
/// guidance, and its active parameters with their whole schema — enough for a project to write
/// its own tool documentation format (`tool_docs:`).
pub fn tool_value(t: &ActiveTool) -> Value {
    json!({
        "name": t.name,
        "toolset": t.toolset,
        "description": t.description,
        "guidance": t.guidance,
        "parameters": t.params.iter().map(param_value).collect::<Vec<_>>(),
        "required": t.shape.required(&t.params, false),
    })
}

/// A tool in the `tools` list of the template context: the same keys as [`tool_value`], with
/// `parameters` and `required` built on first use.
#[derive(Debug)]
struct ToolView {
    tool: ActiveTool,
    schema: std::sync::OnceLock<(promptc_template::Value, promptc_template::Value)>,
}

impl ToolView {
    fn new(t: &ActiveTool) -> ToolView {
        ToolView { tool: t.clone(), schema: std::sync::OnceLock::new() }
    }

    fn schema(&self) -> &(promptc_template::Value, promptc_template::Value) {
        self.schema.get_or_init(|| {
            let params: Vec<Value> = self.tool.params.iter().map(param_value).collect();
            let required = self.tool.shape.required(&self.tool.params, false);
            (promptc_template::Value::from_serialize(&params), promptc_template::Value::from_serialize(&required))
        })
    }
}

const TOOL_KEYS: [&str; 6] = ["name", "toolset", "description", "guidance", "parameters", "required"];

impl promptc_template::Object for ToolView {
    fn repr(self: &std::sync::Arc<Self>) -> promptc_template::ObjectRepr {
        promptc_template::ObjectRepr::Map
    }

    fn get_value(self: &std::sync::Arc<Self>, key: &promptc_template::Value) -> Option<promptc_template::Value> {
        let t = &self.tool;
        Some(match key.as_str()? {
            "name" => promptc_template::Value::from(t.name.as_str()),
            "toolset" => promptc_template::Value::from(t.toolset.as_str()),
            "description" => promptc_template::Value::from(t.description.as_str()),
            "guidance" => {
                t.guidance.as_deref().map_or(promptc_template::Value::from(()), promptc_template::Value::from)
            }
            "parameters" => self.schema().0.clone(),
            "required" => self.schema().1.clone(),
            _ => return None,
        })
    }

    fn enumerate(self: &std::sync::Arc<Self>) -> promptc_template::Enumerator {
        promptc_template::Enumerator::Str(&TOOL_KEYS)
    }
}

/// A parameter (or nested property) for templates: `name`, `required`, then its schema.
fn param_value(p: &Property) -> Value {
    let mut v = schema_value(&p.schema);
    if let Value::Object(m) = &mut v {
        let mut head = serde_json::Map::new();
        head.insert("name".into(), json!(p.name));
        head.insert("required".into(), json!(p.required));
        head.append(m);
        *m = head;
    }
    v
}

/// A schema node for templates: every key present (null or empty when unset), so a template
/// can test `p.enum` or `p.items` without `is defined`.
fn schema_value(s: &Schema) -> Value {
    let (mut enum_values, mut format, mut pattern) = (Value::Array(Vec::new()), Value::Null, Value::Null);
    let (mut min_length, mut max_length, mut minimum, mut maximum) =
        (Value::Null, Value::Null, Value::Null, Value::Null);
    let (mut items, mut properties, mut min_items, mut max_items) =
        (Value::Null, Value::Array(Vec::new()), Value::Null, Value::Null);
    match &s.kind {
        Kind::String { enum_values: e, format: f, pattern: pt, min_length: lo, max_length: hi } => {
            (enum_values, format, pattern, min_length, max_length) =
                (json!(e), json!(f), json!(pt), json!(lo), json!(hi));
        }
        Kind::Integer { enum_values: e, minimum: lo, maximum: hi } => {
            (enum_values, minimum, maximum) = (json!(e), json!(lo), json!(hi));
        }
        Kind::Number { enum_values: e, minimum: lo, maximum: hi } => {
            (enum_values, minimum, maximum) = (json!(e), json!(lo), json!(hi));
        }
        Kind::Boolean | Kind::Any => {}
        Kind::Array { items: i, min_items: lo, max_items: hi } => {
            (items, min_items, max_items) = (schema_value(i), json!(lo), json!(hi));
        }
        Kind::Object { properties: p, .. } => properties = Value::Array(p.iter().map(param_value).collect()),
    }
    json!({
        "type": s.kind.type_name(),
        "description": s.description,
        "nullable": s.nullable,
        "default": s.default,
        "enum": enum_values,
        "format": format,
        "pattern": pattern,
        "min_length": min_length,
        "max_length": max_length,
        "minimum": minimum,
        "maximum": maximum,
        "items": items,
        "min_items": min_items,
        "max_items": max_items,
        "properties": properties,
    })
}

/// The template context of one cell, as (name, value) pairs.
pub fn template_context(project: &Project, cell: &Resolved) -> Vec<(String, promptc_template::Value)> {
    let tools = &cell.tools;
    let mut ctx =
        crate::resolve::values::value_context(project, &cell.runtime, &cell.selection.profile, cell.transport);
    // Each tool's parameters are converted only if a template reads them: most templates read
    // names and descriptions, and a large catalog's schemas cost more than the rest of the cell.
    let tool_list: Vec<promptc_template::Value> =
        tools.iter().map(|t| promptc_template::Value::from_object(ToolView::new(t))).collect();
    ctx.push(("tools".into(), promptc_template::Value::from(tool_list)));
    let names = NameSet(tools.iter().map(|t| t.name.clone()).collect());
    ctx.push(("tool_names".into(), promptc_template::Value::from_object(names)));
    let mut toolsets: Vec<&str> = Vec::new();
    for t in tools {
        if !toolsets.contains(&t.toolset.as_str()) {
            toolsets.push(&t.toolset);
        }
    }
    ctx.push(("toolsets".into(), promptc_template::Value::from_serialize(&toolsets)));
    ctx
}
