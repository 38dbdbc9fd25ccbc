//! The rule registry: every lint rule's code, name, default level, summary and explanation,
//! each declared beside its check in `rules/`.

use crate::code::{Level, RuleCode};
use crate::diagnostic::{known_names_help, Diagnostic};
use crate::error::{Error, Result};
use crate::lint::rules::*;

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
pub const RULES: &[Rule] = &[
    p001_dangling_tool_reference::RULE,
    p002_provider_rejects::RULE,
    p003_provider_rewrites::RULE,
    p004_cache_unfriendly_order::RULE,
    p005_lite_not_subset::RULE,
    p006_transport_parity::RULE,
    p007_unused::RULE,
    p008_budget_exceeded::RULE,
    p009_subagent_recursion::RULE,
];

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
}
