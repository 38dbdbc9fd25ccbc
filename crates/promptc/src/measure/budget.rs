//! Budget checks: a profile's limits compared with what a cell measures.

use serde::{Deserialize, Serialize};

use crate::model::budget::Amount;

/// What a limit applies to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "scope", content = "id", rename_all = "lowercase")]
#[non_exhaustive]
pub enum Scope {
    /// Prompt plus tools.
    Total,
    /// The prompt text.
    Prompt,
    /// The tool projection.
    Tools,
    /// One section.
    Section(String),
}

impl std::fmt::Display for Scope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Scope::Total => f.write_str("total (prompt + tools)"),
            Scope::Prompt => f.write_str("prompt"),
            Scope::Tools => f.write_str("tools"),
            Scope::Section(id) => write!(f, "section `{id}`"),
        }
    }
}

/// One limit checked against a measurement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Check {
    /// What was measured.
    #[serde(flatten)]
    pub scope: Scope,
    /// The limit.
    pub limit: Amount,
    /// The measured value in the limit's unit.
    pub actual: u64,
    /// Whether the limit is exceeded.
    pub exceeded: bool,
}

impl Check {
    /// Build a check.
    pub fn new(scope: Scope, limit: Amount, actual: u64) -> Check {
        Check { scope, limit, actual, exceeded: actual > limit.limit }
    }

    /// How far over the limit, in its unit.
    pub fn excess(&self) -> u64 {
        self.actual.saturating_sub(self.limit.limit)
    }

    /// The one way a check is put in words: `tools is 1164 tokens, 264 over its budget of 900
    /// tokens` (or `… within its budget of …`).
    pub fn describe(&self) -> String {
        let actual = match self.limit.unit {
            crate::model::budget::Unit::Tokens => format!("{} tokens", self.actual),
            crate::model::budget::Unit::Bytes => format!("{} bytes", self.actual),
        };
        if self.exceeded {
            format!("{} is {actual}, {} over its budget of {}", self.scope, self.excess(), self.limit)
        } else {
            format!("{} is {actual}, within its budget of {}", self.scope, self.limit)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::budget::Unit;

    #[test]
    fn checks() {
        let c = Check::new(Scope::Section("role".into()), Amount { limit: 100, unit: Unit::Tokens }, 130);
        assert!(c.exceeded);
        assert_eq!(c.excess(), 30);
        assert!(!Check::new(Scope::Total, Amount { limit: 100, unit: Unit::Tokens }, 100).exceeded);
    }
}
