//! Measuring cells: token counts (exact or labelled estimates, cached), budgets checked against
//! them, and the report of where a prompt's tokens go.

use serde::{Deserialize, Serialize};

use crate::model::budget::Unit;

pub mod account;
pub mod billing;
pub mod budget;
pub mod chat;
pub mod tokenizer_guard;
pub mod tokens;

/// Tokens and bytes of one piece of text: the one measure type of every report, summary,
/// check and diff. `T` is `u64`, or `Option<u64>` where the tokens of a side may be unknown
/// (a diff of files promptc did not count: see [`Counts`](crate::snapshot::Counts)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Measure<T = u64> {
    /// Tokens with the report's tokenizer.
    pub tokens: T,
    /// UTF-8 bytes.
    pub bytes: u64,
}

impl From<Measure> for Measure<Option<u64>> {
    fn from(m: Measure) -> Self {
        Measure { tokens: Some(m.tokens), bytes: m.bytes }
    }
}

impl Measure {
    /// The sum of two measures.
    pub fn plus(self, o: Measure) -> Measure {
        Measure { tokens: self.tokens.saturating_add(o.tokens), bytes: self.bytes.saturating_add(o.bytes) }
    }

    /// The value in `unit`.
    pub fn get(self, unit: Unit) -> u64 {
        match unit {
            Unit::Tokens => self.tokens,
            Unit::Bytes => self.bytes,
        }
    }
}
