//! promptc: a prompt compiler and inspector for LLM agents.
//!
//! A project is a folder with a `promptc.yaml` that declares an agent's prompt — sections,
//! tools, profiles, switches, sub-agents, commands. This crate loads it, compiles any cell of
//! its profile × transport × provider matrix to the exact prompt text and tool JSON a model
//! receives, measures it, snapshots the matrix, freezes and verifies prompts, and lints it.
//!
//! ```
//! # std::env::set_current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).unwrap(); // the repository, with the example
//! use promptc::{Request, Transport};
//!
//! let project = promptc::load(std::path::Path::new("profiles"))?;
//! let cell = promptc::compile(&project, &Request::new().profile("standard").switch("browser", true))?;
//! assert!(cell.prompt().starts_with("You are Forge"));
//! assert!(cell.tool_names().contains(&"browser_action"));
//! assert_eq!(cell.projection().is_some(), cell.transport() == Transport::Native);
//! # Ok::<(), promptc::Error>(())
//! ```
//!
//! The calls ([`load`], [`compile`], [`report()`], [`snapshot()`], [`diff`], [`freeze()`],
//! [`verify`], [`check()`], …) are the whole public API, with the types they take and return;
//! the modules [`report`](mod@report), [`snapshot`](mod@snapshot), [`freeze`](mod@freeze) and
//! [`check`](mod@check) hold the data types of those jobs. Every failure is an [`Error`] with
//! an [`ErrorKind`] and located [`Diagnostic`]s.
//!
//! Inside, the modules are layers that follow the data, each importing only from the layers
//! before it (`tests/it/layers.rs` enforces the order; ARCHITECTURE.md is the map): foundation
//! (`error`, `diagnostic`, `code`, `json`, `hash`) → `source` → `model` → `format` → `load` → `resolve`
//! → `render` → `projection` → `compile` → `measure` → `output` → `lint`, `diff`, `import` → the facade.

// The library returns data and lets its caller print and exit (the CLI, the bindings).
#![deny(clippy::print_stdout, clippy::print_stderr, clippy::exit)]

// The foundation and the source layer are the `promptc-source` crate, the template engine the
// `promptc-template` crate (ARCHITECTURE.md); their modules keep their paths here.
use promptc_source::{code, diagnostic, error, hash, json, source};

mod model;

mod format;

mod load;

mod resolve;

mod render;

mod projection;

mod compile;
// The chat transport: a compiled cell through an open-weight model's chat template.
mod chat;

mod measure;

mod memo;

mod output;

mod diff;
mod import;
mod lint;

mod facade;

pub use compile::{Compiled, StaticPrefix};
pub use diagnostic::is_line_break_or_control;
pub use diagnostic::known_names_help;
pub use diagnostic::{Diagnostic, Label, Position, Severity};
pub use error::{Error, ErrorKind, Result};
#[doc(hidden)]
pub use facade::fuzz;
pub use facade::symbols;
pub use facade::{
    adopt_snapshots, check, check_write_target, command, compile, diff, diff_folders, discover, editor_schema, explain,
    freeze, import_tools, init, load, load_overlaid, matrix, matrix_texts, on_compile_stack, parse_record, read_record,
    render_chat, report, report_cached, report_chat, report_html, review, rule_code, snapshot, snapshot_files,
    tokenizer_named, verify, write_artifact, write_imported, write_output, write_record, Drift, HtmlReport, MatrixCell,
    Report, ReportOptions, Review, Reviewed, SchemaKind, Symbol, SymbolKind, TokenCounter,
};
pub use import::{
    ImportFormat, ImportOptions, Imported, MAX_SCHEMA_NODES as MAX_IMPORT_SCHEMA_NODES, MAX_TOOLS as MAX_IMPORT_TOOLS,
};
pub use json::{document as json_document, OUTPUT_FORMAT};
pub use load::LoadMemo;
pub use memo::{is_cache_file, CompileCache};
pub use model::name::UnknownName;
pub use model::provider::{Billing, ProviderInfo};
pub use model::selection::parse_window as parse_context_window;
pub use model::tokenizer::{Encoding, Family, Tokenizer};
pub use model::{Project, Provider, SwitchValue, Transport};
pub use render::{RenderedSection, SlotUse};
pub use resolve::options::CellOptions;
pub use resolve::Request;
pub use source::Overlay;

/// `promptc report`'s data: the account of a cell — sent and billed tokens and bytes per
/// section, tool, parameter and slot, the cacheable prefix, and the budgets checked.
pub mod report {
    pub use crate::facade::{Reported, Session};
    pub use crate::measure::account::{Account, CacheSplit, ParamItem, SectionItem, SlotItem, TokenizerInfo, ToolItem};
    pub use crate::measure::billing::Billed;
    pub use crate::measure::budget::{Check as BudgetCheck, Scope};
    pub use crate::measure::tokens::CacheStats;
    pub use crate::measure::Measure;
    pub use crate::memo::CompileStats;
    pub use crate::model::budget::{Amount, Unit};
    pub use crate::output::report::{
        budget_failures, cache_line, compile_cache_line, render, render_matrix, Format, View,
    };
}

/// The chat transport: a cell through an open-weight model's chat template
/// ([`render_chat`]), counted with the model's own tokenizer ([`report_chat`]).
pub mod open_weight {
    pub use crate::chat::{ChatDate, ChatOptions, ChatPart, ChatPartKind, ChatTemplate, ChatText};
    pub use crate::facade::{ChatRender, ChatReport};
    pub use crate::measure::chat::{ChatAccount, ChatRow, ChatRowKind, HfTokenizer};
}

/// `promptc snapshot` and `promptc diff`'s data: what a snapshot write did, and how the
/// project (or one folder) differs from a snapshot folder.
pub mod snapshot {
    pub use crate::diff::{
        render, render_html, render_markdown, Change, ChangeKind, Counts, Decision, Delta, DiffReport, FileChange,
        Format, Status, DEFAULT_MARKDOWN_BYTES, MAX_DIFF_LINES, MIN_MARKDOWN_BYTES,
    };
    pub use crate::output::snapshot::Written;
}

/// `promptc freeze` and `promptc verify`'s data: the frozen record, its metadata, and the
/// verdict on it.
pub mod freeze {
    pub use crate::output::artifact::{Inputs, Metadata, SectionMeta};
    pub use crate::output::freeze::{Finding, FrozenChat, FrozenRecord, FrozenRequest, Verdict};
}

/// `promptc check`'s data: rule codes and levels, the rules, and what a check found.
pub mod check {
    pub use crate::code::{Level, RuleCode};
    pub use crate::lint::{CachePrefix, CheckResult, Format, Rule, RULES};
}
