//! The rule registry: every lint rule's code, name, default level, summary and explanation
//! (each declared beside its check in `rules/`), and how `check` runs it. A new rule is its
//! file, its line in `code.rs`'s code list, and its entry here.

use crate::code::{Level, RuleCode};
use crate::diagnostic::{known_names_help, Diagnostic};
use crate::error::{Error, Result};
use crate::lint::rules::{
    p001_dangling_tool_reference as p001, p002_provider_rejects as p002, p003_provider_rewrites as p003,
    p004_cache_unfriendly_order as p004, p005_lite_not_subset as p005, p006_transport_parity as p006,
    p007_unused as p007, p008_budget_exceeded as p008, p009_subagent_recursion as p009,
};
use crate::lint::CellView;
use crate::model::Project;

/// A lint rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Rule {
    /// Stable code, e.g. `P001`.
    pub code: RuleCode,
    /// Short kebab-case name.
    pub name: &'static str,
    /// Level unless the project or the command line says otherwise.
    pub default: Level,
    /// One line.
    pub summary: &'static str,
    /// The long explanation shown by `--explain`.
    pub explain: &'static str,
}

/// How `check` runs a rule.
#[derive(Clone, Copy)]
pub(crate) enum Run {
    /// Over compiled cells: every cell, or each profile's cells at that profile's level.
    Cells(fn(&Project, &[CellView], &mut Vec<Diagnostic>)),
    /// Over the project as a whole (pairs of profiles, declarations).
    Project(fn(&Project, &mut Vec<Diagnostic>)),
    /// Found while loading: its findings are the project's load-time warnings.
    Load,
}

/// Every rule with its runner, in code order.
pub(crate) const ENTRIES: [(Rule, Run); RuleCode::ALL.len()] = [
    (p001::RULE, Run::Cells(p001::check)),
    (p002::RULE, Run::Cells(p002::check)),
    (p003::RULE, Run::Cells(p003::check)),
    (p004::RULE, Run::Cells(p004::check)),
    (p005::RULE, Run::Project(p005::check)),
    (p006::RULE, Run::Cells(p006::check)),
    (p007::RULE, Run::Project(p007::check)),
    (p008::RULE, Run::Cells(p008::check)),
    (p009::RULE, Run::Load),
];

/// Every rule, in code order.
pub const RULES: &[Rule] = &{
    let mut out = [ENTRIES[0].0; ENTRIES.len()];
    let mut i = 0;
    while i < ENTRIES.len() {
        out[i] = ENTRIES[i].0;
        i += 1;
    }
    out
};

/// The rule with `code`.
pub fn rule(code: RuleCode) -> &'static Rule {
    // ok: RULES lists every code once (a unit test checks it), so the search always succeeds
    RULES.iter().find(|r| r.code == code).unwrap_or(&RULES[0])
}

/// The code a user typed (any case), or an error listing the codes.
pub fn known_code(code: &str) -> Result<RuleCode> {
    let upper = code.to_ascii_uppercase();
    RuleCode::parse(&upper).ok_or_else(|| {
        let codes: Vec<&str> = RuleCode::ALL.iter().map(|c| c.as_str()).collect();
        Error::usage(
            Diagnostic::error(format!("unknown rule `{upper}`")).with_help(known_names_help("rule", &upper, &codes)),
        )
    })
}

/// `--explain CODE`: the rule's code, name, summary, default level and explanation.
pub fn explain(code: &str) -> Result<String> {
    let r = rule(known_code(code)?);
    Ok(format!("{} {} ({}, default: {})\n\n{}\n", r.code, r.name, r.summary, r.default.as_str(), r.explain))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_is_registered_once_and_documented() {
        let codes: Vec<RuleCode> = RULES.iter().map(|r| r.code).collect();
        assert_eq!(codes, RuleCode::ALL, "RULES lists every code once, in order");
        assert!(RULES.iter().all(|r| r.explain.len() > 80 && r.explain.contains("Fix:")));
    }

    /// A rule runs per cell exactly when its code says it judges each cell on its own (the
    /// loader reads that to accept `check.profile_levels`).
    #[test]
    fn runners_match_the_codes_scope() {
        for (rule, run) in ENTRIES {
            assert_eq!(matches!(run, Run::Cells(_)), rule.code.per_cell(), "{}", rule.code);
        }
    }

    /// The README's rule table lists every rule with its name and default level.
    #[test]
    fn the_readme_lists_every_rule() {
        let readme = include_str!("../../README.md");
        for r in RULES {
            let row = format!("| {} | {}: ", r.code, r.name);
            let line = readme.lines().find(|l| l.starts_with(&row));
            let line = line.unwrap_or_else(|| panic!("README.md has no row starting `{row}`"));
            assert!(line.trim_end().ends_with(&format!("| {} |", r.default.as_str())), "{line}");
        }
    }
}
