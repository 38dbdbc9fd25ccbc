//! P008 budget-exceeded: a cell over one of its profile's budgets.

use crate::code::{Level, RuleCode};
use crate::diagnostic::Diagnostic;
use crate::error::Result;
use crate::lint::registry::Rule;
use crate::lint::{finding, CellView};
use crate::measure::tokens::Counter;
use crate::model::Project;

pub const RULE: Rule = Rule {
    code: RuleCode::P008,
    name: "budget-exceeded",
    default: Level::Deny,
    summary: "a cell is over one of its profile's budgets",
    explain: "A profile's `budget:` (total, prompt, tools or a section, in tokens or bytes) is exceeded in some cell, \
        counted with the project's tokenizer. This is the same check as `promptc report`, over every cell of the \
        matrix.\n\nFix: shorten the text, or raise the budget deliberately.",
};

/// Measure every main-prompt cell whose profile has a budget and check it.
pub(crate) fn check(
    project: &Project,
    views: &[CellView],
    counter: &mut Counter,
    out: &mut Vec<Diagnostic>,
) -> Result<()> {
    for v in views.iter().filter(|v| v.cell.subagent.is_none()) {
        let Some(profile) = project.profiles.get(&v.cell.profile).filter(|p| !p.budget.is_empty()) else {
            continue;
        };
        let label = profile.budget_span.as_ref().map_or_else(|| project.label(&profile.span), |s| project.label(s));
        let r = crate::measure::report::build(project, &v.compiled, counter)?;
        for c in r.budgets.iter().filter(|c| c.exceeded) {
            out.push(
                finding(
                    RuleCode::P008,
                    format!("cell `{}`: {} is {} over its budget of {}", v.cell.stem(), c.scope, c.excess(), c.limit),
                )
                .with_label(label.clone())
                .with_help("shorten the text or raise the budget"),
            );
        }
    }
    Ok(())
}
