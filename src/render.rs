//! Section rendering: each section of a profile rendered in order with the cell's context,
//! empty sections dropped, then joined or placed by the layout (two-layer render).

use serde_json::{json, Map, Value};

use crate::catalog::{ActiveTool, ContributionBody};
use crate::context::Runtime;
use crate::diagnostic::Diagnostic;
use crate::error::Result;
use crate::project::{Generator, Profile, Project, SectionSource};
use crate::source::sha256_hex;
use crate::transport::Transport;

/// One section as it appears in the prompt.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RenderedSection {
    /// Section id.
    pub id: String,
    /// Its text (normalised: LF line endings, no leading or trailing blank lines).
    pub text: String,
    /// Where it was declared (`sections/role.md.j2`, `generated:tool_docs`).
    pub origin: String,
    /// Whether it reads dynamic variables.
    pub dynamic: bool,
    /// SHA-256 of `text`.
    pub sha256: String,
}

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
pub fn template_context(
    project: &Project,
    profile: &Profile,
    transport: Transport,
    runtime: &Runtime,
    tools: &[ActiveTool],
) -> Vec<(String, minijinja::Value)> {
    // Values of untrusted variables reach templates already wrapped and neutralised.
    let value = |k: &str, v: &Value| match (project.variables.get(k).and_then(|d| d.untrusted.as_deref()), v) {
        (Some(tag), Value::String(text)) => minijinja::Value::from(crate::untrusted::wrap(tag, &runtime.nonce, text)),
        (Some(tag), other) if !other.is_null() => {
            minijinja::Value::from(crate::untrusted::wrap(tag, &runtime.nonce, &other.to_string()))
        }
        _ => minijinja::Value::from_serialize(v),
    };
    let mut ctx: Vec<(String, minijinja::Value)> =
        runtime.variables.iter().map(|(k, v)| (k.clone(), value(k, v))).collect();
    ctx.push(("switches".into(), minijinja::Value::from_serialize(&runtime.switches)));
    ctx.push(("profile".into(), minijinja::Value::from(profile.name.as_str())));
    ctx.push(("transport".into(), minijinja::Value::from(transport.as_str())));
    let tool_list: Vec<Value> = tools
        .iter()
        .map(|t| json!({"name": t.name, "toolset": t.toolset, "description": t.description.trim_end(), "guidance": t.guidance}))
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

/// Normalise rendered text: LF line endings, no trailing spaces at the end of the text, no
/// leading or trailing blank lines.
pub fn normalize(text: &str) -> String {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let trimmed_end = text.trim_end();
    let start = trimmed_end
        .find(|c: char| c != '\n' && c != ' ' && c != '\t')
        .map_or(trimmed_end.len(), |i| trimmed_end[..i].rfind('\n').map_or(0, |n| n + 1));
    trimmed_end[start..].to_string()
}

/// Collapse runs of three or more newlines to one blank line (layouts full of conditionals
/// otherwise leave holes).
fn collapse_blank_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut newlines = 0;
    for c in text.chars() {
        if c == '\n' {
            newlines += 1;
            if newlines <= 2 {
                out.push(c);
            }
        } else {
            newlines = 0;
            out.push(c);
        }
    }
    out
}

/// How one slot fared in a cell: which active tools declare a contribution to it, which
/// actually contributed text, and how much.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SlotUse {
    /// Slot name.
    pub slot: String,
    /// Active tools with a contribution to this slot.
    pub declaring: Vec<String>,
    /// Tools whose contribution rendered non-empty text.
    pub contributing: Vec<String>,
    /// Bytes of contributed text.
    pub bytes: usize,
}

/// A rendered prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct Rendered {
    /// Non-empty sections in order.
    pub sections: Vec<RenderedSection>,
    /// The prompt text.
    pub prompt: String,
    /// Slot statistics, for every injectable slot.
    pub slots: Vec<SlotUse>,
    /// Problems that did not stop the render (`--lenient`).
    pub warnings: Vec<Diagnostic>,
}

/// The contributions of the active tools to `slot`, in tool order.
fn slot_text(
    project: &Project,
    slot: &str,
    tools: &[ActiveTool],
    ctx: &minijinja::Value,
    lenient: bool,
    warnings: &mut Vec<Diagnostic>,
) -> Result<(String, SlotUse)> {
    let mut usage = SlotUse { slot: slot.to_string(), declaring: Vec::new(), contributing: Vec::new(), bytes: 0 };
    let mut parts = Vec::new();
    for t in tools {
        let Some(c) = t.contributions.iter().find(|c| c.slot == slot) else { continue };
        if usage.declaring.contains(&t.name) {
            continue; // a tool listed twice contributes once
        }
        usage.declaring.push(t.name.clone());
        let text = match &c.body {
            ContributionBody::Literal(text) => text.clone(),
            ContributionBody::Template(name) => match project.templates.render(name, ctx) {
                Ok(text) => text,
                Err(e) if lenient => {
                    for d in e.0 {
                        warnings.push(Diagnostic {
                            severity: crate::diagnostic::Severity::Warning,
                            message: format!(
                                "dropped the contribution of tool `{}` to slot `{slot}`: {}",
                                t.name, d.message
                            ),
                            ..d
                        });
                    }
                    continue;
                }
                Err(mut e) => {
                    for d in &mut e.0 {
                        d.notes.push(format!("in the contribution of tool `{}` to slot `{slot}`", t.name));
                    }
                    if let Some(d) = e.0.first_mut() {
                        d.help = Some(format!(
                            "fix the template, or pass --lenient to drop this contribution with a warning ({})",
                            d.help.clone().unwrap_or_default()
                        ));
                    }
                    return Err(e);
                }
            },
        };
        let text = normalize(&text);
        if text.is_empty() {
            continue;
        }
        usage.contributing.push(t.name.clone());
        usage.bytes += text.len();
        parts.push(text);
    }
    Ok((parts.join("\n\n"), usage))
}

/// Render `section_ids` (a profile's sections, or a sub-agent's) and assemble the prompt.
pub fn render(
    project: &Project,
    profile: &Profile,
    section_ids: &[String],
    transport: Transport,
    runtime: &Runtime,
    tools: &[ActiveTool],
) -> Result<Rendered> {
    let ctx = template_context(project, profile, transport, runtime, tools);
    let ctx_value: minijinja::Value = ctx.iter().cloned().collect();
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    let mut slots: Vec<SlotUse> = Vec::new();
    for id in section_ids {
        let Some(section) = project.sections.get(id) else { continue };
        if !section.when.eval(&runtime.switches) {
            continue;
        }
        let raw = match &section.source {
            SectionSource::Template(name) => project.templates.render(name, &ctx_value)?,
            SectionSource::Generated(Generator::ToolDocs) => match transport {
                Transport::Xml => crate::xml::tool_docs(tools),
                Transport::Native | Transport::Json => String::new(),
            },
            SectionSource::Generated(Generator::ToolGuidance) => {
                tools.iter().filter_map(|t| t.guidance.as_deref()).collect::<Vec<_>>().join("\n\n")
            }
            SectionSource::Generated(Generator::ActionSchema) => match transport {
                Transport::Json => crate::actions::prompt_block(tools).map_err(|mut e| {
                    // Point at the tool whose parameter clashes, in its catalog file.
                    if let Some(d) = e.0.first_mut() {
                        if let Some(tool) = d.message.rsplit("tool `").next().and_then(|r| r.split('`').next()) {
                            if let Some(t) = project.catalog.get(tool) {
                                if let Some(f) = project.files.get(&t.file) {
                                    if let Some(i) = f.text.find(&format!("name: {tool}")) {
                                        d.label = Some(f.label_bytes(i + 6, i + 6 + tool.len()));
                                    }
                                }
                            }
                        }
                    }
                    e
                })?,
                Transport::Native | Transport::Xml => String::new(),
            },
            SectionSource::Slot(slot) => {
                let (text, usage) = slot_text(project, slot, tools, &ctx_value, runtime.lenient, &mut warnings)?;
                slots.push(usage);
                text
            }
        };
        let mut text = normalize(&raw);
        if let Some(tag) = &section.untrusted {
            text = crate::untrusted::wrap(tag, &runtime.nonce, &text);
        }
        if text.is_empty() {
            continue;
        }
        out.push(RenderedSection {
            id: id.clone(),
            sha256: sha256_hex(text.as_bytes()),
            text,
            origin: section.origin.clone(),
            dynamic: !section.dynamic_inputs.is_empty(),
        });
    }
    // Every injectable slot gets a row, shown or not, so unused contributions are visible.
    for (name, slot) in &project.slots {
        if slot.kind == crate::project::SlotKind::System && !slots.iter().any(|s| &s.slot == name) {
            let declaring = tools
                .iter()
                .filter(|t| t.contributions.iter().any(|c| &c.slot == name))
                .map(|t| t.name.clone())
                .collect();
            slots.push(SlotUse { slot: name.clone(), declaring, contributing: Vec::new(), bytes: 0 });
        }
    }
    let body = out.iter().map(|s| s.text.as_str()).collect::<Vec<_>>().join("\n\n");
    let prompt = match &project.layout {
        None => body,
        Some(layout) => {
            let mut lctx = ctx;
            let sections: Map<String, Value> =
                out.iter().map(|s| (s.id.clone(), Value::String(s.text.clone()))).collect();
            lctx.push(("sections".into(), minijinja::Value::from_serialize(&sections)));
            lctx.push(("body".into(), minijinja::Value::from(body)));
            let lctx: minijinja::Value = lctx.into_iter().collect();
            normalize(&collapse_blank_lines(&project.templates.render(layout, &lctx)?.replace("\r\n", "\n")))
        }
    };
    let mut prompt = prompt;
    if !prompt.is_empty() {
        prompt.push('\n');
    }
    Ok(Rendered { sections: out, prompt, slots, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_trims_blank_lines_but_keeps_indentation() {
        assert_eq!(normalize("\n\n  code\nx  \n\n"), "  code\nx");
        assert_eq!(normalize("a\r\nb\r\n"), "a\nb");
        assert_eq!(normalize(" \n\t\n"), "");
    }

    #[test]
    fn collapse_keeps_one_blank_line() {
        assert_eq!(collapse_blank_lines("a\n\n\n\nb\nc"), "a\n\nb\nc");
    }
}
