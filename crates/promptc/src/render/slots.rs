//! Slots: the contributions of the active tools to a named position of the prompt, merged in
//! tool order, and how each slot fared.

use crate::diagnostic::{Diagnostic, Severity};
use crate::error::Result;
use crate::model::catalog::ContributionBody;
use crate::model::Project;
use crate::render::normalize;
use crate::resolve::tools::ActiveTool;

/// How one slot fared in a cell: which active tools declare a contribution to it, which
/// actually contributed text, and how much.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
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

/// The contributions of the active tools to `slot`, in tool order.
pub(super) fn slot_text(
    project: &Project,
    slot: &str,
    tools: &[ActiveTool],
    ctx: &promptc_template::Value,
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
            ContributionBody::Template(name) => {
                match project.templates.render(name, ctx, project.templates.limits().section_bytes) {
                    Ok(text) => text,
                    Err(e) if lenient => {
                        for mut d in e.into_diagnostics() {
                            d.severity = Severity::Warning;
                            d.message = format!(
                                "dropped the contribution of tool `{}` to slot `{slot}`: {}",
                                t.name, d.message
                            );
                            warnings.push(d);
                        }
                        continue;
                    }
                    Err(mut e) => {
                        for d in e.diagnostics_mut().iter_mut() {
                            d.notes.push(format!("in the contribution of tool `{}` to slot `{slot}`", t.name));
                        }
                        if let Some(d) = e.diagnostics_mut().first_mut() {
                            d.help = Some(format!(
                                "fix the template, or compile leniently to drop this contribution with a warning ({})",
                                d.help.clone().unwrap_or_default()
                            ));
                        }
                        return Err(e);
                    }
                }
            }
        };
        let text = if project.assembly.trim { normalize(&text) } else { text };
        if text.is_empty() {
            continue;
        }
        usage.contributing.push(t.name.clone());
        usage.bytes += text.len();
        parts.push(text);
    }
    Ok((parts.join(&project.assembly.slot_separator), usage))
}
