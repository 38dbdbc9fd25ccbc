//! Slash commands: instruction text injected on request, rendered per profile (a command may
//! have a variant for a profile, e.g. a shorter lite text). A command is never a tool.

use crate::diagnostic::{known_names_help, Diagnostic};
use crate::error::{Error, Result};
use crate::model::Project;
use crate::render::{normalize, template_context};
use crate::resolve::Resolved;

/// Render command `name` with the context of a resolved cell.
pub fn render(project: &Project, cell: &Resolved, name: &str) -> Result<String> {
    let Some(cmd) = project.commands.get(name) else {
        let known: Vec<&str> = project.commands.keys().map(String::as_str).collect();
        let mut d =
            Diagnostic::error(format!("unknown command `{name}`")).with_help(known_names_help("command", name, &known));
        if project.catalog.get(name).is_some() {
            d = d.with_note(format!("`{name}` is a tool; commands are instructions, tools are called by the model"));
        }
        return Err(Error::usage(d));
    };
    let ctx: promptc_template::Value = template_context(project, cell).into_iter().collect();
    let raw = project.templates.render(
        cmd.template_for(&cell.selection.profile),
        &ctx,
        project.templates.limits().section_bytes,
    )?;
    let text = if project.assembly.trim { normalize(&raw) } else { raw };
    Ok(if text.is_empty() || !project.assembly.final_newline { text } else { format!("{text}\n") })
}
