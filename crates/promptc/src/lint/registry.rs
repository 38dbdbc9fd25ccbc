//! The rule registry: every lint rule's code, name, default level, summary and explanation
//! (each declared beside its check in `rules/`, and listed with how `check` runs it in
//! `rules/mod.rs`), looked up by code. A new rule is its file, its two lines in `rules/mod.rs`
//! and its line in `code.rs`'s code list.

use crate::code::{Level, RuleCode};
use crate::diagnostic::{known_names_help, Diagnostic};
use crate::error::{Error, Result};
use crate::lint::rules::ENTRIES;

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
    use crate::lint::rules::Run;

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
        let readme = include_str!("../../../../README.md");
        for r in RULES {
            let row = format!("| {} | {}: ", r.code, r.name);
            let line = readme.lines().find(|l| l.starts_with(&row));
            let line = line.unwrap_or_else(|| panic!("README.md has no row starting `{row}`"));
            assert!(line.trim_end().ends_with(&format!("| {} |", r.default.as_str())), "{line}");
        }
    }
}
