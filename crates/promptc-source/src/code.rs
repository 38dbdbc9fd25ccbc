//! Lint rule codes and the levels a rule can be set to. A leaf module: the loader validates
//! `check.levels` and tags the warnings it finds with these codes, and `lint` describes and
//! runs the rules behind them.

use std::fmt;

use serde::Serialize;

/// Defines [`RuleCode`] from one list: each code with its doc line and whether the rule judges
/// each cell on its own (`cell`) or the project as a whole (`project`). Adding a rule adds one
/// line here, its file under `lint/rules/` and its entry in `lint/registry.rs`.
macro_rules! rule_codes {
    ($($(#[doc = $doc:literal])* $code:ident: $scope:ident,)+) => {
        /// The stable code of a lint rule (`P001`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[non_exhaustive]
        pub enum RuleCode {
            $($(#[doc = $doc])* $code,)+
        }

        impl RuleCode {
            /// Every code, in order.
            pub const ALL: [RuleCode; [$(stringify!($code)),+].len()] = [$(RuleCode::$code),+];

            /// Whether the rule judges each cell on its own, so it can have a level per profile
            /// (`check.profile_levels`); the others look at the project or at pairs of profiles.
            pub fn per_cell(self) -> bool {
                match self {
                    $(RuleCode::$code => rule_codes!(@per_cell $scope),)+
                }
            }

            /// The code as written (`P001`).
            pub fn as_str(self) -> &'static str {
                match self {
                    $(RuleCode::$code => stringify!($code),)+
                }
            }
        }
    };
    (@per_cell cell) => {
        true
    };
    (@per_cell project) => {
        false
    };
}

rule_codes! {
    /// Prose names a tool that is not active in the cell.
    P001: cell,
    /// A provider's API would reject the tool projection.
    P002: cell,
    /// A projection drops or rewrites a schema keyword for a provider.
    P003: cell,
    /// Dynamic or untrusted text comes before static text.
    P004: cell,
    /// A smaller profile has a tool or section the larger one lacks.
    P005: project,
    /// The xml or json cell does not describe the tools the native cell sends.
    P006: cell,
    /// A section, tool, switch or slot is declared but never used.
    P007: project,
    /// A cell is over one of its profile's budgets.
    P008: cell,
    /// A sub-agent's allowlist names a tool that spawns sub-agents.
    P009: project,
    /// Tool text sent as written holds template syntax.
    P010: project,
    /// A chat template leaves the system prompt or every tool out of a cell.
    P011: cell,
    /// A switch value holds a character a shell would act on, or a control character.
    P012: project,
    /// A tool has no description, or an empty one.
    P013: project,
}

impl RuleCode {
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
// Not `#[non_exhaustive]`: allow, warn and deny are the whole scale (clippy's and ruff's), and
// the crates that match on a level must handle each one.
pub enum Level {
    /// Not reported.
    Allow,
    /// Reported; does not fail the check.
    Warn,
    /// Reported as an error; the check exits 1.
    Deny,
}

impl Level {
    /// Every level, mildest first.
    pub const ALL: [Level; 3] = [Level::Allow, Level::Warn, Level::Deny];

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
