//! Budgets: per-profile limits on the whole prompt, the tools, and single sections, in tokens
//! or bytes. Checking them against measurements is `measure::budget`.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What a limit counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Unit {
    /// Tokens, with the report's tokenizer.
    Tokens,
    /// UTF-8 bytes.
    Bytes,
}

/// A limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Amount {
    /// The largest allowed value.
    pub limit: u64,
    /// What it counts.
    pub unit: Unit,
}

impl std::fmt::Display for Amount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.unit {
            Unit::Tokens => write!(f, "{} tokens", self.limit),
            Unit::Bytes => write!(f, "{} bytes", self.limit),
        }
    }
}

/// Parse `12000`, `{tokens: 12000}` or `{bytes: 40000}`; the error says what was wrong.
pub fn parse_amount(v: &Value) -> Result<Amount, String> {
    let number = |v: &Value, unit: Unit| match v {
        Value::Number(n) => match n.as_u64() {
            Some(limit) => Ok(Amount { limit, unit }),
            None => Err(format!("a budget must be a whole number of 0 or more, found {n}")),
        },
        other => Err(format!("a budget must be a number, found {other}")),
    };
    match v {
        Value::Object(m) if m.len() == 1 => match m.iter().next() {
            Some((k, v)) if k == "tokens" => number(v, Unit::Tokens),
            Some((k, v)) if k == "bytes" => number(v, Unit::Bytes),
            Some((k, _)) => Err(format!("unknown budget unit `{k}`; use `tokens` or `bytes`")),
            None => Err("empty budget".into()),
        },
        Value::Object(_) => Err("a budget has one unit: `{tokens: N}` or `{bytes: N}`".into()),
        other => number(other, Unit::Tokens),
    }
}

/// A profile's limits.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Budget {
    /// Prompt plus tools.
    pub total: Option<Amount>,
    /// The prompt text.
    pub prompt: Option<Amount>,
    /// The tool projection.
    pub tools: Option<Amount>,
    /// Single sections, by id.
    pub sections: IndexMap<String, Amount>,
}

impl Budget {
    /// Whether any limit is set.
    pub fn is_empty(&self) -> bool {
        self.total.is_none() && self.prompt.is_none() && self.tools.is_none() && self.sections.is_empty()
    }
}

#[cfg(test)]
#[path = "budget_tests.rs"]
mod tests;
