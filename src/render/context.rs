//! The template context of one cell: variables (untrusted ones already wrapped), switches (as
//! the `switches` map and as plain names), profile, transport and the active tools.

use serde_json::{json, Value};

use crate::model::untrusted::wrap;
use crate::model::{switch_is_name, Project};
use crate::resolve::Resolved;

/// A set of names for templates: `"x" in tool_names` is a hash lookup (not a scan of every
/// tool, which made large projects quadratic); iterating yields the names in order.
#[derive(Debug)]
struct NameSet(indexmap::IndexSet<String>);

impl minijinja::value::Object for NameSet {
    fn repr(self: &std::sync::Arc<Self>) -> minijinja::value::ObjectRepr {
        minijinja::value::ObjectRepr::Map
    }

    fn get_value(self: &std::sync::Arc<Self>, key: &minijinja::Value) -> Option<minijinja::Value> {
        key.as_str().filter(|k| self.0.contains(*k)).map(|_| minijinja::Value::from(true))
    }

    fn enumerate(self: &std::sync::Arc<Self>) -> minijinja::value::Enumerator {
        let names: Vec<minijinja::Value> = self.0.iter().map(|n| minijinja::Value::from(n.as_str())).collect();
        minijinja::value::Enumerator::Iter(Box::new(names.into_iter()))
    }

    fn enumerator_len(self: &std::sync::Arc<Self>) -> Option<usize> {
        Some(self.0.len())
    }
}

/// The template context of one cell, as (name, value) pairs.
pub fn template_context(project: &Project, cell: &Resolved) -> Vec<(String, minijinja::Value)> {
    let (runtime, tools) = (&cell.runtime, &cell.tools);
    // Values of untrusted variables reach templates already wrapped and neutralised.
    let value = |k: &str, v: &Value| match (project.variables.get(k).and_then(|d| d.untrusted.as_deref()), v) {
        (Some(tag), Value::String(text)) => minijinja::Value::from(wrap(tag, &runtime.nonce, text)),
        (Some(tag), other) if !other.is_null() => minijinja::Value::from(wrap(tag, &runtime.nonce, &other.to_string())),
        _ => minijinja::Value::from_serialize(v),
    };
    let mut ctx: Vec<(String, minijinja::Value)> =
        runtime.variables.iter().map(|(k, v)| (k.clone(), value(k, v))).collect();
    ctx.push(("switches".into(), minijinja::Value::from_serialize(&runtime.switches)));
    // Each switch is a plain name too (`{% if browser %}`), unless a variable, built-in or
    // global function has its name.
    let globals = project.templates.global_names();
    for (name, on) in &runtime.switches {
        if switch_is_name(name, project.variables.contains_key(name), &globals) {
            ctx.push((name.clone(), minijinja::Value::from(*on)));
        }
    }
    ctx.push(("profile".into(), minijinja::Value::from(cell.selection.profile.as_str())));
    ctx.push(("transport".into(), minijinja::Value::from(cell.transport.as_str())));
    let tool_list: Vec<Value> = tools
        .iter()
        .map(|t| {
            let description = t.description.trim_end();
            json!({"name": t.name, "toolset": t.toolset, "description": description, "guidance": t.guidance})
        })
        .collect();
    ctx.push(("tools".into(), minijinja::Value::from_serialize(&tool_list)));
    let names = NameSet(tools.iter().map(|t| t.name.clone()).collect());
    ctx.push(("tool_names".into(), minijinja::Value::from_object(names)));
    let mut toolsets: Vec<&str> = Vec::new();
    for t in tools {
        if !toolsets.contains(&t.toolset.as_str()) {
            toolsets.push(&t.toolset);
        }
    }
    ctx.push(("toolsets".into(), minijinja::Value::from_serialize(&toolsets)));
    ctx
}
