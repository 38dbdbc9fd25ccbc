//! Project settings that steer later layers: lint levels and token counting.

use crate::code::{Level, RuleCode};
use crate::model::tokenizer::{Factors, Tokenizer};

/// Lint settings from `check:`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LintSettings {
    /// Rule levels set by the project, in order.
    pub levels: Vec<(RuleCode, Level)>,
    /// (smaller, larger) profile pairs for the subset rule.
    pub subsets: Vec<(String, String)>,
}

/// How reports count tokens.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenSettings {
    /// The tokenizer used when neither `--tokenizer` nor `--model` names one.
    pub tokenizer: Tokenizer,
    /// Estimate factors per model family.
    pub factors: Factors,
    /// Project-relative path of the on-disk token cache, if enabled.
    pub cache: Option<String>,
}
