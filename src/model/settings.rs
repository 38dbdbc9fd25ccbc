//! Project settings that steer later layers: lint levels, token counting, size limits.

use crate::code::{Level, RuleCode};
use crate::model::tokenizer::{Factors, Tokenizer};

/// The xml transport's tool documentation format (`tool_docs:`): templates by name, the
/// built-in format where absent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolDocFormat {
    /// Renders one tool's documentation (context: the cell's, plus `tool` and `index`).
    pub tool: Option<String>,
    /// Between two tools' documentation.
    pub separator: String,
    /// Renders one call (context: the cell's, plus `tool` and `arguments`).
    pub call: Option<String>,
}

impl Default for ToolDocFormat {
    fn default() -> Self {
        ToolDocFormat { tool: None, separator: "\n\n".into(), call: None }
    }
}

/// Lint settings from `check:`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LintSettings {
    /// Rule levels set by the project, in order.
    pub levels: Vec<(RuleCode, Level)>,
    /// (smaller, larger) profile pairs for the subset rule.
    pub subsets: Vec<(String, String)>,
    /// Levels for one profile's cells (`check.profile_levels`), in order: only rules that judge
    /// cells one by one.
    pub profile_levels: Vec<(String, RuleCode, Level)>,
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

/// Caps on what rendering may produce, enforced while rendering so a template that blows up
/// stops early with a located error (`limits:` in promptc.yaml).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most bytes one rendered template (a section, a contribution, a command) may produce;
    /// also the most any size-checked filter may return.
    pub section_bytes: usize,
    /// Most bytes a whole prompt may have.
    pub prompt_bytes: usize,
}

impl Limits {
    /// The default section cap: 2 MiB, over twenty times the largest real system prompts.
    pub const SECTION_BYTES: usize = 2 << 20;
    /// The default prompt cap: 8 MiB.
    pub const PROMPT_BYTES: usize = 8 << 20;
    /// The highest cap a project may set: 256 MiB.
    pub const MAX_BYTES: u64 = 256 << 20;
}

impl Default for Limits {
    fn default() -> Self {
        Limits { section_bytes: Limits::SECTION_BYTES, prompt_bytes: Limits::PROMPT_BYTES }
    }
}
