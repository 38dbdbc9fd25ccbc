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

/// Caps on what rendering may produce, enforced while rendering so a template that blows up
/// stops early with a located error (`limits:` in promptc.yaml).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most bytes one rendered template (a section, a contribution, a command) may produce;
    /// also the most any size-checked filter may return.
    pub section_bytes: usize,
    /// Most bytes a whole prompt may have.
    pub prompt_bytes: usize,
    /// Most bytes every prompt and harness message of one run over the whole matrix (`snapshot`,
    /// `diff`, `check`, `report --matrix`) may add up to.
    pub matrix_bytes: usize,
    /// Most cells a whole-matrix run may compile.
    pub matrix_cells: usize,
}

impl Limits {
    /// The default section cap: 2 MiB, over twenty times the largest real system prompts.
    pub const SECTION_BYTES: usize = 2 << 20;
    /// The default prompt cap: 8 MiB.
    pub const PROMPT_BYTES: usize = 8 << 20;
    /// The default cap of a whole-matrix run: 64 MiB, forty times a 1,000-tool agent's matrix
    /// of prompts, low enough that a project multiplying a huge section by hundreds of profiles
    /// stops in seconds, not gigabytes.
    pub const MATRIX_BYTES: usize = 64 << 20;
    /// The highest cap a project may set: 256 MiB.
    pub const MAX_BYTES: u64 = 256 << 20;
    /// The default cap on a whole-matrix run's cells: 2,048, far above a real project's matrix
    /// (16 profiles × 16 cases × 4 transports × 2 sub-agents), low enough that a project of
    /// thousands of profiles stops at once instead of compiling and writing for a minute (a
    /// cell costs about two milliseconds and its files in `snapshots/`).
    pub const MATRIX_CELLS: usize = 2048;
    /// The highest cell cap a project may set.
    pub const MAX_CELLS: u64 = 1 << 20;
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            section_bytes: Limits::SECTION_BYTES,
            prompt_bytes: Limits::PROMPT_BYTES,
            matrix_bytes: Limits::MATRIX_BYTES,
            matrix_cells: Limits::MATRIX_CELLS,
        }
    }
}

/// How templates treat the whitespace around block tags (`templates:` in promptc.yaml).
///
/// The default (`trim_blocks` and `lstrip_blocks` on) lets a block tag on its own line leave no
/// line behind; `compat: jinja2` turns both off, so a template written for Python's Jinja2
/// renders exactly as Jinja2 renders it with its default `Environment()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TemplateSettings {
    /// Drop the first newline after a block tag.
    pub trim_blocks: bool,
    /// Strip spaces and tabs from the start of a line up to a block tag.
    pub lstrip_blocks: bool,
    /// Keep the single newline at the end of a template's source.
    pub keep_trailing_newline: bool,
    /// Jinja2's semantics beyond whitespace (`compat: jinja2`): values printed in Python's
    /// forms, Jinja2's `tojson`, its filters minijinja lacks (`center`, `truncate`,
    /// `wordwrap`, …), `sum(attribute=)`.
    pub jinja2: bool,
    /// An undefined value is an error wherever it is used (`undefined: strict`); otherwise it
    /// prints as nothing and is false, as in Jinja2 (`undefined: lenient`).
    pub strict_undefined: bool,
}

impl TemplateSettings {
    /// Python Jinja2's defaults: no trimming, no stripping, the final newline dropped.
    pub const JINJA2: TemplateSettings = TemplateSettings {
        trim_blocks: false,
        lstrip_blocks: false,
        keep_trailing_newline: false,
        jinja2: true,
        strict_undefined: false,
    };
}

impl Default for TemplateSettings {
    fn default() -> Self {
        TemplateSettings {
            trim_blocks: true,
            lstrip_blocks: true,
            keep_trailing_newline: false,
            jinja2: false,
            strict_undefined: true,
        }
    }
}

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
