//! Measuring cells: token counts (exact or labelled estimates, cached), budgets checked against
//! them, and the report of where a prompt's tokens go.

use serde::Serialize;

use crate::error::Result;
use crate::model::budget::Unit;

pub mod budget;
pub mod report;
pub mod tokens;

use tokens::Counter;

/// Tokens and bytes of one piece of text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Measure {
    /// Tokens with the report's tokenizer.
    pub tokens: u64,
    /// UTF-8 bytes.
    pub bytes: u64,
}

impl Measure {
    /// Count `text`.
    pub fn of(counter: &mut Counter, text: &str) -> Result<Measure> {
        Ok(Measure { tokens: counter.count(text)?, bytes: text.len() as u64 })
    }

    /// The sum of two measures.
    pub fn plus(self, o: Measure) -> Measure {
        Measure { tokens: self.tokens + o.tokens, bytes: self.bytes + o.bytes }
    }

    /// The value in `unit`.
    pub fn get(self, unit: Unit) -> u64 {
        match unit {
            Unit::Tokens => self.tokens,
            Unit::Bytes => self.bytes,
        }
    }
}
