//! The settings a project gives the engine: caps on what rendering may produce (`limits:`) and
//! how templates treat whitespace and Jinja2's semantics (`templates:`).

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
