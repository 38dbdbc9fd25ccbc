//! Lint rule codes and the levels a rule can be set to. A leaf module: the loader validates
//! `check.levels` and tags the warnings it finds with these codes, and `lint` describes and
//! runs the rules behind them.

use std::fmt;

use serde::Serialize;

/// The stable code of a lint rule (`P001`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RuleCode {
    /// Prose names a tool that is not active in the cell.
    P001,
    /// A provider's API would reject the tool projection.
    P002,
    /// A projection drops or rewrites a schema keyword for a provider.
    P003,
    /// Dynamic or untrusted text comes before static text.
    P004,
    /// A smaller profile has a tool or section the larger one lacks.
    P005,
    /// The xml or json cell does not describe the tools the native cell sends.
    P006,
    /// A section, tool, switch or slot is declared but never used.
    P007,
    /// A cell is over one of its profile's budgets.
    P008,
    /// A sub-agent's allowlist names a tool that spawns sub-agents.
    P009,
}

impl RuleCode {
    /// Every code, in order.
    pub const ALL: [RuleCode; 9] = [
        RuleCode::P001,
        RuleCode::P002,
        RuleCode::P003,
        RuleCode::P004,
        RuleCode::P005,
        RuleCode::P006,
        RuleCode::P007,
        RuleCode::P008,
        RuleCode::P009,
    ];

    /// Whether the rule judges each cell on its own, so it can have a level per profile
    /// (`check.profile_levels`); the others look at the project or at pairs of profiles.
    pub fn per_cell(self) -> bool {
        !matches!(self, RuleCode::P005 | RuleCode::P007 | RuleCode::P009)
    }

    /// The code as written (`P001`).
    pub fn as_str(self) -> &'static str {
        match self {
            RuleCode::P001 => "P001",
            RuleCode::P002 => "P002",
            RuleCode::P003 => "P003",
            RuleCode::P004 => "P004",
            RuleCode::P005 => "P005",
            RuleCode::P006 => "P006",
            RuleCode::P007 => "P007",
            RuleCode::P008 => "P008",
            RuleCode::P009 => "P009",
        }
    }

    /// Parse a code exactly as written (`P001`).
    pub fn parse(s: &str) -> Option<RuleCode> {
        RuleCode::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

impl fmt::Display for RuleCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for RuleCode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// What a rule's findings do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Not reported.
    Allow,
    /// Reported; does not fail the check.
    Warn,
    /// Reported as an error; the check exits 1.
    Deny,
}

impl Level {
    /// Parse `allow`, `warn` or `deny`.
    pub fn parse(s: &str) -> Option<Level> {
        match s {
            "allow" => Some(Level::Allow),
            "warn" => Some(Level::Warn),
            "deny" => Some(Level::Deny),
            _ => None,
        }
    }

    /// The level as written.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Allow => "allow",
            Level::Warn => "warn",
            Level::Deny => "deny",
        }
    }
}
