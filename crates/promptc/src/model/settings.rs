//! Project settings that steer later layers: lint levels, token counting, size limits, template
//! whitespace.

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

// The engine's settings live with the engine, once; the project's settings hold them.
pub use promptc_template::{Limits, TemplateSettings};

/// How the prompt is assembled from its sections' rendered text (`assembly:` in promptc.yaml):
/// every byte promptc adds or removes at the edges, each with a way to turn it off.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assembly {
    /// End a non-empty prompt with one newline.
    pub final_newline: bool,
    /// Normalise each section's rendered text (CRLF to LF, leading and trailing blank lines
    /// and trailing whitespace dropped) and collapse a layout's runs of blank lines; when
    /// false, text is used exactly as rendered and only an empty section drops out.
    pub trim: bool,
    /// What goes between two sections of the prompt.
    pub separator: String,
    /// What goes between two sections of a harness message's content block.
    pub message_separator: String,
    /// What goes between two contributions to one slot.
    pub slot_separator: String,
    /// What goes between two tools' guidance (`generate: tool_guidance`).
    pub guidance_separator: String,
}

impl Default for Assembly {
    fn default() -> Self {
        let blank = "\n\n".to_string();
        Assembly {
            final_newline: true,
            trim: true,
            separator: blank.clone(),
            message_separator: blank.clone(),
            slot_separator: blank.clone(),
            guidance_separator: blank,
        }
    }
}
