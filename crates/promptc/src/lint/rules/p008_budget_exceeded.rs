//! P008 budget-exceeded: a cell over one of its profile's budgets.

use crate::code::{Level, RuleCode};
use crate::diagnostic::Diagnostic;
use crate::lint::registry::Rule;
use crate::lint::{finding, CellView};
use crate::measure::budget::Scope;
use crate::model::budget::Amount;
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

/// The cells over one limit of one profile.
struct Over {
    profile: String,
    scope: Scope,
    limit: Amount,
    /// (cell, measured value, excess), in matrix order.
    cells: Vec<(String, u64, u64)>,
    /// The tokenizers that counted them, each once.
    counted_with: Vec<String>,
}

/// The cells listed by name in a finding; the rest are counted.
const CELLS_NAMED: usize = 4;

/// Measure every main-prompt cell whose profile has a budget and check it: one finding per
/// exceeded limit (not per cell), at the limit's own line, naming the worst cell and the others.
pub(crate) fn check(project: &Project, views: &[CellView], out: &mut Vec<Diagnostic>) {
    let mut over: Vec<Over> = Vec::new();
    for v in views.iter().filter(|v| v.cell.subagent.is_none()) {
        let Some(profile) = project.profiles.get(&v.cell.profile).filter(|p| !p.budget.is_empty()) else {
            continue;
        };
        for a in &v.accounts {
            for c in a.budgets.iter().filter(|c| c.exceeded) {
                let i = match over.iter().position(|o| o.profile == profile.name && o.scope == c.scope) {
                    Some(i) => i,
                    None => {
                        over.push(Over {
                            profile: profile.name.clone(),
                            scope: c.scope.clone(),
                            limit: c.limit,
                            cells: Vec::new(),
                            counted_with: Vec::new(),
                        });
                        over.len() - 1
                    }
                };
                let o = &mut over[i];
                o.cells.push((a.name.clone(), c.actual, c.excess()));
                let counter = format!("{} ({})", a.tokenizer.name, a.tokenizer.method);
                if !o.counted_with.contains(&counter) {
                    o.counted_with.push(counter);
                }
            }
        }
    }
    out.extend(over.iter().map(|o| finding_for(project, o)));
}

/// The limit's path under `budget:` (`total`, `sections.rules`), as the profile records spans.
fn limit_key(scope: &Scope) -> String {
    match scope {
        Scope::Total => "total".into(),
        Scope::Prompt => "prompt".into(),
        Scope::Tools => "tools".into(),
        Scope::Section(id) => format!("sections.{id}"),
    }
}

fn finding_for(project: &Project, o: &Over) -> Diagnostic {
    let profile = &project.profiles[&o.profile];
    let span = profile.budget_limit_spans.get(&limit_key(&o.scope)).or(profile.budget_span.as_ref());
    let label = span.map_or_else(|| project.label(&profile.span), |s| project.label(s));
    // ok: a group is made with its first cell.
    let worst = o.cells.iter().max_by_key(|(_, _, excess)| *excess).expect("a group has a cell");
    let unit = |n: u64| Amount { limit: n, ..o.limit }.to_string();
    let cells = if o.cells.len() == 1 { "1 cell".to_string() } else { format!("{} cells", o.cells.len()) };
    let mut named: Vec<String> =
        o.cells.iter().take(CELLS_NAMED).map(|(cell, actual, _)| format!("`{cell}` ({})", unit(*actual))).collect();
    if o.cells.len() > CELLS_NAMED {
        named.push(format!("and {} more", o.cells.len() - CELLS_NAMED));
    }
    finding(
        RuleCode::P008,
        format!(
            "{} of profile `{}` is over its budget of {} in {cells}: up to {}, {} over, in `{}`",
            o.scope,
            o.profile,
            o.limit,
            unit(worst.1),
            unit(worst.2),
            worst.0
        ),
    )
    .with_label(label)
    .with_note(format!("over in {}", named.join(", ")))
    .with_note(format!("counted with {}", o.counted_with.join(", ")))
    .with_help("shorten the text or raise the budget")
}
