//! P013 undescribed-tool: a tool sent without a description, or with an empty one.

use crate::code::{Level, RuleCode};
use crate::diagnostic::Diagnostic;
use crate::lint::finding;
use crate::lint::registry::Rule;
use crate::model::Project;

pub const RULE: Rule = Rule {
    code: RuleCode::P013,
    name: "undescribed-tool",
    default: Level::Warn,
    summary: "a tool has no description, or an empty one: the model chooses it by its name alone",
    explain: "Every provider and MCP accept a tool without a description (OpenAI's `FunctionDefinition`, Anthropic's \
        `ToolParam`, Gemini's `FunctionDeclaration` and MCP's `Tool` all declare it optional), so a catalog may \
        leave it out, as `promptc import tools` does for a definition without one. But the description is what \
        the model reads to decide when to call the tool: without it, the name and the parameters are all it has, \
        and an XML or JSON cell documents the tool by its parameters only.\n\nFix: describe what the tool does \
        and when to use it; or allow P013 where the definitions are reproduced as an agent sends them.",
};

/// Every tool of the catalog without a description, or with a blank one, located at its name.
pub(crate) fn check(project: &Project, out: &mut Vec<Diagnostic>) {
    for t in project.catalog.tools() {
        let what = match (t.undescribed, t.description.trim().is_empty()) {
            (true, _) => "no description",
            (false, true) => "an empty description",
            (false, false) => continue,
        };
        out.push(
            finding(RuleCode::P013, format!("tool `{}` has {what}: the model chooses it by its name alone", t.name))
                .with_label(project.label(&t.name_span))
                .with_help("describe what the tool does and when to use it (`description:`)"),
        );
    }
}
