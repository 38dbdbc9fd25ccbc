//! The runtime values of one cell as templates read them — variables (untrusted ones already
//! wrapped), switches (as the `switches` map and as plain names), profile, transport and the
//! nonce — and a templated tool's texts rendered with them (`templated: true`).

use serde_json::Value;

use crate::error::Result;
use crate::model::catalog::Tool;
use crate::model::transport::Transport;
use crate::model::untrusted::wrap;
use crate::model::{switch_is_name, Project};

use super::runtime::Runtime;

/// The cell's values as (name, value) pairs: what every template reads besides the tools.
pub fn value_context(
    project: &Project,
    runtime: &Runtime,
    profile: &str,
    transport: Transport,
) -> Vec<(String, promptc_template::Value)> {
    // Values of untrusted variables reach templates already wrapped and neutralised.
    let value = |k: &str, v: &Value| match (project.variables.get(k).and_then(|d| d.untrusted.as_deref()), v) {
        (Some(tag), Value::String(text)) => promptc_template::Value::from(wrap(tag, &runtime.nonce, text)),
        (Some(tag), other) if !other.is_null() => {
            promptc_template::Value::from(wrap(tag, &runtime.nonce, &other.to_string()))
        }
        _ => promptc_template::Value::from_serialize(v),
    };
    let mut ctx: Vec<(String, promptc_template::Value)> =
        runtime.variables.iter().map(|(k, v)| (k.clone(), value(k, v))).collect();
    // `switches` holds every switch: on/off ones as booleans, string-valued ones as their value.
    let mut all: std::collections::BTreeMap<&str, promptc_template::Value> =
        runtime.switches.iter().map(|(k, on)| (k.as_str(), promptc_template::Value::from(*on))).collect();
    all.extend(runtime.choices.iter().map(|(k, v)| (k.as_str(), promptc_template::Value::from(v.as_str()))));
    ctx.push(("switches".into(), promptc_template::Value::from_iter(all.iter().map(|(k, v)| (*k, v.clone())))));
    // Each switch is a plain name too (`{% if browser %}`, `{% if style == "terse" %}`), unless a
    // variable, built-in or global function has its name.
    let globals = project.templates.global_names();
    for (name, v) in all {
        if switch_is_name(name, project.variables.contains_key(name), &globals) {
            ctx.push((name.to_string(), v));
        }
    }
    ctx.push(("profile".into(), promptc_template::Value::from(profile)));
    ctx.push(("transport".into(), promptc_template::Value::from(transport.as_str())));
    // The delimiter nonce, for text that names the delimiters it wraps content in
    // (`<|USER_QUERY_{{ nonce }}|>`): the wrapping itself stays promptc's.
    ctx.push((crate::model::NONCE_NAME.into(), promptc_template::Value::from(runtime.nonce.as_str())));
    ctx
}

/// A templated tool's texts in one cell: each text the tool declares (its description, parts,
/// parameter descriptions and the wordings that replace them) was compiled at load; here it
/// is rendered with the cell's values. Tools that are not templated keep their texts as written.
pub struct ToolTexts<'p> {
    project: &'p Project,
    ctx: promptc_template::Value,
    /// Bytes the cell's tool texts rendered so far: together they may make no more than a
    /// prompt may (`limits.prompt_bytes`), as ten tools of 7 MB each otherwise made 70 MB a cell.
    used: std::sync::atomic::AtomicUsize,
}

impl<'p> ToolTexts<'p> {
    /// The texts of tools in the cell with these values.
    pub fn new(project: &'p Project, runtime: &Runtime, profile: &str, transport: Transport) -> ToolTexts<'p> {
        // Resolving runs once per cell: the values are gathered only when some tool needs them.
        let templated = project.catalog.tools().iter().any(|t| !t.text_templates.names.is_empty());
        let ctx = if templated {
            value_context(project, runtime, profile, transport).into_iter().collect()
        } else {
            promptc_template::Value::UNDEFINED
        };
        ToolTexts { project, ctx, used: std::sync::atomic::AtomicUsize::new(0) }
    }

    /// `text`, one of `tool`'s texts, as this cell sends it.
    pub fn render(&self, tool: &Tool, text: &str) -> Result<String> {
        let texts = &tool.text_templates;
        let Some(name) = texts.names.get(text) else { return Ok(text.to_string()) };
        use std::sync::atomic::Ordering;
        // The cell's tool texts share one cap: each render gets what the others left.
        let left = self.project.templates.limits().prompt_bytes.saturating_sub(self.used.load(Ordering::Relaxed));
        let out = self.project.templates.render(name, &self.ctx, left).map_err(|mut e| {
            for d in e.diagnostics_mut() {
                d.notes.push(format!(
                    "the templated tool texts of a cell may make {} bytes in all (`limits.prompt_bytes`); \
                     {} were made before this one",
                    self.project.templates.limits().prompt_bytes,
                    self.used.load(Ordering::Relaxed)
                ));
            }
            e
        })?;
        self.used.fetch_add(out.len(), Ordering::Relaxed);
        Ok(if texts.trim { out.trim_end().to_string() } else { out })
    }

    /// Whether a text of `tool` reads a value that changes between sessions.
    pub fn dynamic(&self, tool: &Tool) -> bool {
        tool.text_templates.names.values().any(|n| self.project.dynamic_templates.contains(n))
    }
}
