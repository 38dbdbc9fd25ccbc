//! P008 budget-exceeded: a cell over one of its profile's budgets.

use crate::code::{Level, RuleCode};
use crate::diagnostic::Diagnostic;
use crate::lint::registry::Rule;
use crate::lint::{finding, CellView};
use crate::model::Project;

pub const RULE: Rule = Rule {
    code: RuleCode::P008,
    name: "budget-exceeded",
    default: Level::Deny,
    summary: "a cell is over one of its profile's budgets",
    explain: "A profile's `budget:` (total, prompt, tools or a section, in tokens or bytes) is exceeded in some cell, \
        counted for each provider of a native cell with that provider's tokenizer (the same accounts \
        `promptc report --matrix` shows), over every cell of the matrix.\n\nFix: shorten the text, or raise the budget deliberately.",
};

/// Measure every main-prompt cell whose profile has a budget and check it.
pub(crate) fn check(project: &Project, views: &[CellView], out: &mut Vec<Diagnostic>) {
    for v in views.iter().filter(|v| v.cell.subagent.is_none()) {
        let Some(profile) = project.profiles.get(&v.cell.profile).filter(|p| !p.budget.is_empty()) else {
            continue;
        };
        let label = profile.budget_span.as_ref().map_or_else(|| project.label(&profile.span), |s| project.label(s));
        for a in &v.accounts {
            for c in a.budgets.iter().filter(|c| c.exceeded) {
                out.push(
                    finding(RuleCode::P008, format!("cell `{}`: {}", a.name, c.describe()))
                        .with_label(label.clone())
                        .with_note(format!("counted with {} ({})", a.tokenizer.name, a.tokenizer.method))
                        .with_help("shorten the text or raise the budget"),
                );
            }
        }
    }
}
