//! P011 chat-template-drops: a project's chat template leaves the system prompt, or every tool,
//! out of a cell's text — the open-weight model never sees them, though the report would
//! otherwise charge them.

use crate::code::{Level, RuleCode};
use crate::diagnostic::Diagnostic;
use crate::lint::registry::Rule;
use crate::lint::CellView;
use crate::model::Project;

pub const RULE: Rule = Rule {
    code: RuleCode::P011,
    name: "chat-template-drops",
    default: Level::Warn,
    summary: "a chat template leaves the system prompt or every tool out of a cell",
    explain: "Each native cell goes through each of the project's `chat_templates:` that covers its profile. Some \
        templates only write the system message or the tools block when the conversation has a user turn (Mistral \
        Nemo, Mistral Small 3.2), or never (GLM-4 folds them elsewhere): the model then sees none of the prompt's \
        sections, or none of the tools, though the native request sends them. The system prompt counts as dropped when \
        its text is not in the templated text as written; the tools when the text is the same with and without them.\
        \n\nFix: give this model its rules another way (a user turn), list the profiles the template can carry \
        under `chat_templates.NAME.profiles`, or use a template that keeps the system message.",
};

/// Render each native cell through each covering chat template and report what it leaves out.
pub(crate) fn check(project: &Project, views: &[CellView], out: &mut Vec<Diagnostic>) {
    for v in views {
        for decl in project.chat_templates.values().filter(|d| d.covers(v.compiled.profile())) {
            let options = crate::chat::ChatOptions::of(decl, &crate::chat::ChatOptions::new());
            // A template that fails on the cell is the snapshot's error, not this rule's.
            let Ok(text) = crate::chat::apply(project, &v.compiled, &decl.template, &options) else { continue };
            let shown = crate::chat::tools_shown(project, &v.compiled, &decl.template, &options, &text);
            for d in crate::chat::dropped(&decl.name, &v.compiled, &text, &shown) {
                let mut d = d;
                d.code = Some(RuleCode::P011);
                out.push(d.with_label(project.label(&decl.span)));
            }
        }
    }
}
