//! The library facade: one call per job another program needs (the CLI, the Python and Node
//! packages), each a thin composition of the layers. Nothing here prints or exits; every call
//! returns data or an [`Error`](crate::Error) with located diagnostics.

use std::path::{Path, PathBuf};

use crate::code::{Level, RuleCode};
use crate::compile::Compiled;
use crate::error::Result;
use crate::import::{ImportOptions, Imported};
use crate::lint::CheckResult;
use crate::model::tokenizer::Tokenizer;
use crate::model::{Project, Provider, Transport};
use crate::resolve::Request;

mod chat;
mod freeze;
#[doc(hidden)]
pub mod fuzz;
mod report;
mod session;
mod snapshot;
mod symbols;
mod tokens;

pub use chat::{render_chat, report_chat, ChatRender, ChatReport};
pub use freeze::{freeze, parse_record, read_record, verify, write_record};
pub use report::{matrix_texts, report, report_cached, report_html, HtmlReport, Report, ReportOptions};
pub use session::{Reported, Session};
pub use snapshot::{adopt_snapshots, diff, diff_folders, review, snapshot, snapshot_files, Drift, Review, Reviewed};
pub use symbols::{symbols, Symbol, SymbolKind};
pub use tokens::TokenCounter;

/// Find the manifest: `path` itself if it is a file, `path/promptc.yaml` if it is a folder;
/// without a path, `./promptc.yaml`, else `./profiles/promptc.yaml`.
pub fn discover(path: Option<&Path>) -> Result<PathBuf> {
    crate::load::discover(path)
}

/// Load and validate the project at `path`: a folder holding `promptc.yaml`, or the manifest
/// itself. Every problem is reported at once, each located in its file.
///
/// ```
/// # std::env::set_current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).unwrap(); // the repository, with the example
/// let project = promptc::load(std::path::Path::new("profiles"))?;
/// assert_eq!(project.name(), "forge");
/// # Ok::<(), promptc::Error>(())
/// ```
pub fn load(path: &Path) -> Result<Project> {
    Project::load(&discover(Some(path))?)
}

/// [`load`], with the texts `overlay` holds standing for the files they name (an editor's
/// unsaved buffers): what the project would be were they saved, read without writing anything.
/// A caller that loads the same project again and again keeps a [`LoadMemo`](crate::LoadMemo):
/// tool files whose text has not changed are not parsed again.
///
/// ```
/// # std::env::set_current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).unwrap(); // the repository, with the example
/// use std::sync::Arc;
///
/// let mut overlay = promptc::Overlay::new();
/// overlay.insert("sections/role.md.j2", "You are Forge, unsaved.\n");
/// let memo = promptc::LoadMemo::new();
/// let project = promptc::load_overlaid(std::path::Path::new("profiles"), Arc::new(overlay), Some(&memo))?;
/// let cell = promptc::compile(&project, &promptc::Request::new())?;
/// assert!(cell.prompt().contains("You are Forge, unsaved."));
/// # Ok::<(), promptc::Error>(())
/// ```
pub fn load_overlaid(
    path: &Path,
    overlay: std::sync::Arc<crate::source::Overlay>,
    memo: Option<&crate::load::LoadMemo>,
) -> Result<Project> {
    Project::load_overlaid(&discover(Some(path))?, overlay, memo)
}

/// Compile one cell: resolve the request against the project's defaults and selection policy,
/// render the prompt, project the tools.
///
/// ```
/// # std::env::set_current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).unwrap(); // the repository, with the example
/// use promptc::{Provider, Request, Transport};
///
/// let project = promptc::load(std::path::Path::new("profiles"))?;
/// let cell = promptc::compile(&project, &Request::new().profile("lite").provider(Provider::Anthropic))?;
/// assert_eq!(cell.transport(), Transport::Native);
/// assert!(cell.tools_json()?.contains("\"input_schema\""));
/// # Ok::<(), promptc::Error>(())
/// ```
pub fn compile(project: &Project, request: &Request) -> Result<Compiled> {
    crate::compile::compile(project, request)
}

/// One cell of the project's matrix (what `snapshot` writes and `diff` compares), with the
/// request that compiles it: the case's switches and variables and the cell's derived nonce,
/// so `compile(project, &cell.request)` gives the snapshot's prompt byte for byte.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct MatrixCell {
    /// The file-name stem, e.g. `standard.native`, `lite.yolo.xml`,
    /// `standard.native.subagent-researcher`.
    pub name: String,
    /// The profile.
    pub profile: String,
    /// The named case, or `None` for the project's defaults.
    pub case: Option<String>,
    /// The transport.
    pub transport: Transport,
    /// The sub-agent, or `None` for the main prompt.
    pub subagent: Option<String>,
    /// The providers whose tool projections are snapshotted (native cells; empty otherwise).
    pub providers: Vec<Provider>,
    /// The request that compiles this cell (with the default provider; set another one of
    /// `providers` for its projection).
    pub request: Request,
}

/// Every cell of the project's matrix, in snapshot order.
///
/// ```
/// # std::env::set_current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).unwrap(); // the repository, with the example
/// let project = promptc::load(std::path::Path::new("profiles"))?;
/// let files = promptc::snapshot_files(&project)?;
/// for cell in promptc::matrix(&project) {
///     let compiled = promptc::compile(&project, &cell.request)?;
///     assert_eq!(compiled.prompt(), files[&format!("{}.prompt.md", cell.name)]);
/// }
/// # Ok::<(), promptc::Error>(())
/// ```
pub fn matrix(project: &Project) -> Vec<MatrixCell> {
    crate::resolve::matrix::cells(project)
        .into_iter()
        .map(|cell| {
            let name = cell.stem();
            let runtime = crate::resolve::matrix::case_runtime(project, cell.case.as_deref(), &name);
            let mut request =
                Request::new().profile(cell.profile.clone()).transport(cell.transport).nonce(runtime.nonce);
            request.switches = runtime.switches.into_iter().collect();
            request.choices = runtime.choices.into_iter().collect();
            request.variables = runtime.variables.into_iter().collect();
            request.subagent = cell.subagent.clone();
            let providers = match cell.transport {
                Transport::Native => project.providers.clone(),
                Transport::Xml | Transport::Json => Vec::new(),
            };
            MatrixCell {
                name,
                profile: cell.profile,
                case: cell.case,
                transport: cell.transport,
                subagent: cell.subagent,
                providers,
                request,
            }
        })
        .collect()
}

/// Run `f` with the stack compiling needs (template rendering recurses, up to the project's
/// limits), whatever thread calls: a host language's threads may have small stacks (Node
/// workers, Python threads on musl). When less remains, `f` runs on a fresh stack segment
/// of that size (no thread is started); otherwise it runs as a plain call.
pub fn on_compile_stack<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    stacker::maybe_grow(crate::compile::COMPILE_STACK, crate::compile::COMPILE_STACK, f)
}

/// Write the frozen artifact of a compiled cell (`prompt.md`, `tools.json` for native cells,
/// `metadata.json`) into `dir`; returns the paths written.
pub fn write_artifact(project: &Project, compiled: &Compiled, dir: &Path) -> Result<Vec<PathBuf>> {
    crate::output::artifact::write_artifact(dir, project, compiled)
}

/// The instruction text of slash command `name` for the cell the request resolves to.
pub fn command(project: &Project, request: &Request, name: &str) -> Result<String> {
    project.templates.work().open();
    let cell = crate::resolve::resolve(project, request)?;
    crate::render::command::render(project, &cell, name)
}

/// The tokenizer called `name`: an encoding counted exactly (`o200k_base`, `cl100k_base`,
/// `p50k_base`, `r50k_base`) or a model family estimated (`claude`, `gemini`, with the
/// project's factors).
pub fn tokenizer_named(project: &Project, name: &str) -> Result<Tokenizer> {
    Tokenizer::from_name(name, &project.tokens.factors)
}

/// Write `text` (a report, a page, a diff) to `path` atomically, creating its folder: a
/// reader never sees a half-written file, and a failed write leaves the old one.
pub fn write_output(path: &Path, text: &str) -> Result<()> {
    crate::source::atomic::write(path, text.as_bytes())
}

/// Refuse `path` as a place to write when it lies in a version-control folder (`.git`, `.hg`,
/// `.svn`, `.jj`, `.bzr`, `_darcs`) once resolved — links followed, `..` removed — as the folders
/// a project names are ([`crate::source::confine`]): a report or an imported project written into
/// `.git/hooks` would run as a hook. A caller that means to write there skips this check.
///
/// ```
/// assert!(promptc::check_write_target(std::path::Path::new("repo/.git/hooks")).is_err());
/// assert!(promptc::check_write_target(std::path::Path::new("out/prompt")).is_ok());
/// ```
pub fn check_write_target(path: &Path) -> Result<()> {
    match crate::source::resolved_vcs_folder(path) {
        None => Ok(()),
        Some(vcs) => Err(crate::error::Error::usage(
            crate::diagnostic::Diagnostic::error(format!(
                "`{}` is inside `{vcs}`, a version-control folder; promptc does not write there",
                path.display()
            ))
            .with_help("name a path outside the repository's version-control folder"),
        )),
    }
}

/// Lint every cell of the project. `levels` override the project's `check.levels`, later
/// entries winning.
pub fn check(project: &Project, levels: &[(RuleCode, Level)], tokens: &mut TokenCounter) -> Result<CheckResult> {
    tokens.counters.prefetch(project.tokens.tokenizer.encoding());
    crate::lint::check(project, levels, &mut tokens.counters)
}

/// The long explanation of lint rule `code` (`P001`).
pub fn explain(code: &str) -> Result<String> {
    crate::lint::explain(code)
}

/// The rule a code names, or a usage error listing the known codes.
pub fn rule_code(code: &str) -> Result<RuleCode> {
    crate::lint::known_code(code)
}

/// Write a small, working starter project into `dir` (refusing to overwrite files); returns
/// the paths created.
pub fn init(dir: &Path) -> Result<Vec<PathBuf>> {
    crate::output::init::write_starter(dir)
}

/// Read tool definitions an agent already sends — OpenAI Chat Completions or Responses tools,
/// Anthropic Messages tools, Gemini function declarations, or an MCP `tools/list` result
/// (detected from the shape unless `options` names the form) — into a promptc project: one
/// catalog file per tool and a manifest that renders them back for the matching provider.
/// `text` is the JSON; `source` names it in messages. Nothing is written: see
/// [`write_imported`].
///
/// Anything a catalog cannot express (`anyOf`, `$ref`, tuple `items`, unknown keywords, …) is
/// an error naming the tool and the JSON path; nothing is dropped.
///
/// ```
/// use promptc::{ImportFormat, ImportOptions};
///
/// let tools = r#"[{"name": "get_time", "description": "The current time.",
///                  "input_schema": {"type": "object", "properties": {
///                      "zone": {"type": "string", "description": "An IANA zone."}}}}]"#;
/// let imported = promptc::import_tools(tools, "tools.json", &ImportOptions::new())?;
/// assert_eq!(imported.format(), ImportFormat::Anthropic);
/// assert!(imported.files().contains_key("tool.get_time.yaml"));
/// # Ok::<(), promptc::Error>(())
/// ```
pub fn import_tools(text: &str, source: &str, options: &ImportOptions) -> Result<Imported> {
    crate::import::import(text, source, options)
}

/// Write an imported project into `dir` (created if needed; any folder the caller names). The
/// folder is replaced in one step, and only when it is empty or an earlier import wrote it;
/// returns the paths written.
pub fn write_imported(imported: &Imported, dir: &Path) -> Result<Vec<PathBuf>> {
    crate::import::write(imported, dir)
}

/// Which file an editor JSON Schema describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SchemaKind {
    /// `promptc.yaml`.
    Manifest,
    /// A tool catalog file.
    Tools,
}

/// The JSON Schema editors use to complete and check a project file.
pub fn editor_schema(kind: SchemaKind) -> String {
    match kind {
        SchemaKind::Manifest => crate::format::schema::manifest(),
        SchemaKind::Tools => crate::format::schema::tools(),
    }
}
