//! Slash commands: instruction text injected on request, rendered per profile (a command may
//! have a variant for a profile, e.g. a shorter lite text). A command is never a tool.

use crate::compile::Compiled;
use crate::diagnostic::{known_names_help, Diagnostic};
use crate::error::Result;
use crate::project::Project;

/// Render command `name` with the context of the compiled cell.
pub fn render(project: &Project, cell: &Compiled, name: &str) -> Result<String> {
    let Some(cmd) = project.commands.get(name) else {
        let known: Vec<&str> = project.commands.keys().map(String::as_str).collect();
        let mut d =
            Diagnostic::error(format!("unknown command `{name}`")).with_help(known_names_help("command", name, &known));
        if project.catalog.get(name).is_some() {
            d = d.with_note(format!("`{name}` is a tool; commands are instructions, tools are called by the model"));
        }
        return Err(d.into());
    };
    let profile = project.profile(&cell.selection.profile)?;
    let ctx: minijinja::Value =
        crate::render::template_context(project, profile, cell.transport, &cell.runtime, &cell.tools)
            .into_iter()
            .collect();
    let text = crate::render::normalize(&project.templates.render(cmd.template_for(&profile.name), &ctx)?);
    Ok(if text.is_empty() { text } else { format!("{text}\n") })
}
