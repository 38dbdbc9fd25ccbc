//! P001 dangling-tool-reference: text that reaches the model names a tool the cell does not
//! have. Checked in every text a cell sends: the prompt (sections, the layout, tool docs,
//! guidance, slots), the tools JSON of native cells (tool and parameter descriptions), and the
//! slash commands rendered for the cell's profile.//!
//! `mentions` decides when a text names a tool; `places` finds where that text lives in the
//! project and the fix that works there.

mod mentions;
mod places;

use std::collections::{BTreeMap, BTreeSet};

use crate::code::{Level, RuleCode};
use crate::diagnostic::{Diagnostic, Label};
use crate::lint::registry::Rule;
use crate::lint::{finding, CellView};
use crate::model::transport::Transport;
use crate::model::Project;

use mentions::{mentions, tool_mentions, Names};
use places::{
    description_texts, guard_help, prompt_places, section_places, template_place, tool_text_places, Place, DESCRIPTIONS,
};

/// The rule's registry entry.
pub const RULE: Rule = Rule {
    code: RuleCode::P001,
    name: "dangling-tool-reference",
    default: Level::Deny,
    summary: "text sent to the model names a tool that is not active in the cell",
    explain: "Text that reaches the model names a tool of the catalog that is not active in that cell: a sub-agent \
        told to call `clarify` when it has no clarify tool, a lite prompt recommending a tool lite excludes, a tool \
        description pointing at a tool the cell does not send. The model will try to call a tool that does not \
        exist.\n\nA name counts as a tool reference the way a model reads one: a snake_case or kebab-case tool name \
        anywhere; any tool name in backticks, in call syntax (`clarify(...)`, `clarify（…）`), as an XML tag \
        (`<clarify>`), after an arrow (`→ clarify`), after use / call / invoke (`use clarify to ask`, `调用 clarify`), \
        before the word tool (`the clarify tool`), or as a JSON value (`\"name\": \"clarify\"`). Ordinary words stay \
        quiet: `read the file` does not name a `read` tool.\n\nChecked texts: every section, the layout, generated \
        tool docs and guidance, slot contributions, tool and parameter descriptions (native cells send them in the \
        tools JSON), and slash commands rendered for each profile.\n\nFix: it depends on where the text lives.\n- a section, \
        the layout, a command or a `template:` contribution: mention the tool only inside \
        `{% if \"NAME\" in tool_names %}…{% endif %}`;\n- a tool description (sent as written, never a template): \
        move the sentence into a `description_parts:` entry with `tools: [NAME]`, sent only while NAME is active;\n\
        - a parameter description: move the sentence into the tool's `description_parts:` the same way;\n- \
        guidance or a `text:` contribution (inserted verbatim): move the sentence into a guarded section or a \
        `template:` contribution.",
};

/// What was found: (where, tool) → (label, help, the cells it happens in).
type Found = BTreeMap<(String, String), (Label, String, Vec<String>)>;

/// Record that `place` names `tool` in cell `stem`.
fn record(found: &mut Found, place: Place, tool: &str, stem: &str) {
    let entry = found.entry((place.what, tool.to_string())).or_insert_with(|| (place.label, place.help, Vec::new()));
    if !entry.2.iter().any(|c| c == stem) {
        entry.2.push(stem.to_string());
    }
}

/// Find every catalog tool named in a text a cell sends while it is inactive there.
pub(crate) fn check(project: &Project, views: &[CellView], out: &mut Vec<Diagnostic>) {
    let mut found = Found::new();
    let names = Names::new(project.catalog.tools().iter().map(|t| t.name.as_str()).collect());
    for v in views {
        check_cell(project, v, &names, &mut found);
    }
    for ((place, tool), (label, help, cells)) in found {
        out.push(
            finding(
                RuleCode::P001,
                format!(
                    "{place} names tool `{tool}`, which is not active in {} cell{}",
                    cells.len(),
                    if cells.len() == 1 { "" } else { "s" }
                ),
            )
            .with_label(label)
            .with_note(format!("cells: {}", cells.join(", ")))
            .with_help(help),
        );
    }
}

/// Every text cell `v` sends that names a tool inactive in it: its prompt, the tools JSON of a
/// native cell, and the slash commands.
fn check_cell(project: &Project, v: &CellView, names: &Names<'_>, found: &mut Found) {
    let c = &v.compiled;
    let stem = v.cell.stem();
    let active: BTreeSet<&str> = c.tools.iter().map(|t| t.name.as_str()).collect();
    let is_inactive = |n: &str| !active.contains(n);
    // A parameter's tags in the tool docs (`<note>…</note>`) are not calls of a tool `note`.
    let param_names: BTreeSet<&str> = c.tools.iter().flat_map(|t| t.params.iter().map(|p| p.name.as_str())).collect();
    for name in names.in_text(&c.prompt, is_inactive) {
        for at in mentions(&c.prompt, name, !param_names.contains(name)) {
            for place in prompt_places(project, c, at, name) {
                record(found, place, name, &stem);
            }
        }
    }
    // Harness messages are sent too: each section of each, located where its text comes from.
    for (k, m) in c.messages.iter().enumerate() {
        let whose = format!(" of message {} ({})", k + 1, m.role.as_str());
        for s in &m.sections {
            for name in names.in_text(&s.text, is_inactive) {
                if mentions(&s.text, name, !param_names.contains(name)).is_empty() {
                    continue;
                }
                for place in section_places(project, c, s, &whose, name) {
                    record(found, place, name, &stem);
                }
            }
        }
    }
    // The tools JSON of a native cell carries every description as written.
    if c.transport == Transport::Native {
        for t in &c.tools {
            for name in names.in_text(&description_texts(t), is_inactive) {
                for place in tool_text_places(project, t, name, DESCRIPTIONS) {
                    record(found, place, name, &stem);
                }
            }
        }
    }
    // Slash commands, rendered for the cell's profile and switches (main prompts only:
    // commands are sent to the main agent).
    if v.cell.subagent.is_none() && v.cell.transport == project.defaults.transport {
        check_commands(project, v, names, &is_inactive, &stem, found);
    }
}

/// The slash commands rendered for cell `v` that name a tool inactive in it.
fn check_commands(
    project: &Project,
    v: &CellView,
    names: &Names<'_>,
    is_inactive: &dyn Fn(&str) -> bool,
    stem: &str,
    found: &mut Found,
) {
    let Ok(resolved) = crate::resolve::resolve_matrix_cell(project, &v.cell) else { return };
    for (cmd_name, cmd) in &project.commands {
        let Ok(text) = crate::render::command::render(project, &resolved, cmd_name) else { continue };
        for name in names.in_text(&text, is_inactive) {
            if tool_mentions(&text, name).is_empty() {
                continue;
            }
            let template = cmd.template_for(&v.cell.profile);
            let place = template_place(project, template, format!("command `{cmd_name}`"), name, guard_help(name));
            record(found, place, name, stem);
        }
    }
}
