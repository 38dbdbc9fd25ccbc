//! The library facade: one call per job another program needs (the CLI, the Python and Node
//! packages), each a thin composition of the layers. Nothing here prints or exits; every call
//! returns data or an [`Error`](crate::Error) with located diagnostics.

use std::path::{Path, PathBuf};

use crate::code::{Level, RuleCode};
use crate::compile::Compiled;
use crate::diagnostic::Diagnostic;
use crate::diff::DiffReport;
use crate::error::{Error, Result};
use crate::import::{ImportOptions, Imported};
use crate::lint::CheckResult;
use crate::measure::account::Account;
use crate::measure::tokens::Counters;
use crate::model::tokenizer::Tokenizer;
use crate::model::{Project, Provider, Transport};
use crate::output::freeze::{FrozenRecord, Verdict};
use crate::output::snapshot::{Matrix, Written};
use crate::resolve::Request;

/// Find the manifest: `path` itself if it is a file, `path/promptc.yaml` if it is a folder;
/// without a path, `./promptc.yaml`, else `./profiles/promptc.yaml`.
pub fn discover(path: Option<&Path>) -> Result<PathBuf> {
    crate::load::discover(path)
}

/// Load and validate the project at `path`: a folder holding `promptc.yaml`, or the manifest
/// itself. Every problem is reported at once, each located in its file.
///
/// ```
/// let project = promptc::load(std::path::Path::new("profiles"))?;
/// assert_eq!(project.name(), "forge");
/// # Ok::<(), promptc::Error>(())
/// ```
pub fn load(path: &Path) -> Result<Project> {
    Project::load(&discover(Some(path))?)
}

/// Compile one cell: resolve the request against the project's defaults and selection policy,
/// render the prompt, project the tools.
///
/// ```
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
    let cell = crate::resolve::resolve(project, request)?;
    crate::render::command::render(project, &cell, name)
}

/// The tokenizer called `name`: an encoding counted exactly (`o200k_base`, `cl100k_base`,
/// `p50k_base`, `r50k_base`) or a model family estimated (`claude`, `gemini`, with the
/// project's factors).
pub fn tokenizer_named(project: &Project, name: &str) -> Result<Tokenizer> {
    Tokenizer::from_name(name, &project.tokens.factors)
}

/// What a report covers and how it counts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReportOptions {
    /// Count every cell with this tokenizer instead of each provider's (see [`tokenizer_named`]).
    pub tokenizer: Option<Tokenizer>,
    /// Every cell of the snapshot matrix (profiles × cases × transports × providers, and
    /// sub-agents, each with its case's values) instead of the request's cell.
    pub matrix: bool,
}

/// A report: the accounts of the cells it covers, and anything to warn about (a model id
/// promptc knows no tokenizer for).
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// One account per cell and provider.
    pub accounts: Vec<Account>,
    /// Warnings, each once.
    pub warnings: Vec<Diagnostic>,
}

/// What the request's cell costs (or, with `options.matrix`, every cell of the matrix): sent
/// and billed tokens and bytes per section, tool, parameter and slot; the cacheable prefix;
/// budgets. The same figures as `summary.json`, `diff` and `check` give for the same cells.
/// Without a nonce in the request, untrusted text is wrapped with the cell's derived nonce, as
/// in snapshots, so the figures do not change from run to run.
pub fn report(
    project: &Project,
    request: &Request,
    options: &ReportOptions,
    tokens: &mut TokenCounter,
) -> Result<Report> {
    measured(project, request, options, tokens).map(|(_, report)| report)
}

/// A report as a self-contained HTML page, and the report it shows.
#[derive(Debug, Clone, PartialEq)]
pub struct HtmlReport {
    /// The accounts the page shows (budgets and warnings for the caller to act on).
    pub report: Report,
    /// The page: one file with inline CSS, script and data, loading nothing.
    pub html: String,
}

/// [`report`] as a page to open in a browser: the matrix overview (every cell's sent and
/// billed tokens and budget status, sortable), per cell a treemap of sections, tools and
/// parameters sized by tokens with the cacheable prefix marked, the rendered prompt by
/// section and the tool JSON per provider, and a comparison of any two cells. The page embeds
/// the document `report --format json` prints for the same cells, so its numbers are those.
pub fn report_html(
    project: &Project,
    request: &Request,
    options: &ReportOptions,
    tokens: &mut TokenCounter,
) -> Result<HtmlReport> {
    let (compiled, report) = measured(project, request, options, tokens)?;
    let html = crate::output::html::report::render(project, &compiled, &report.accounts);
    Ok(HtmlReport { report, html })
}

/// Write `text` (a report, a page, a diff) to `path` atomically, creating its folder: a
/// reader never sees a half-written file, and a failed write leaves the old one.
pub fn write_output(path: &Path, text: &str) -> Result<()> {
    crate::source::atomic::write(path, text.as_bytes())
}

/// The cells a report covers, compiled, and their accounts.
fn measured(
    project: &Project,
    request: &Request,
    options: &ReportOptions,
    tokens: &mut TokenCounter,
) -> Result<(Vec<(crate::resolve::matrix::Cell, Compiled)>, Report)> {
    let runtime = crate::resolve::runtime::Runtime::resolve(project, request)?;
    let model = request.model.clone().or_else(|| runtime.model.clone());
    // Build the tokenizer while the cells compile (unless the disk cache answers everything).
    tokens.counters.prefetch(options.tokenizer.unwrap_or(project.tokens.tokenizer).encoding());
    let compiled = if options.matrix {
        crate::compile::compile_matrix(project)?
    } else {
        let mut cell = crate::resolve::resolve_with(project, request, runtime)?;
        let id = crate::resolve::matrix::Cell {
            profile: cell.selection.profile.clone(),
            case: None,
            transport: cell.transport,
            subagent: cell.subagent.clone(),
        };
        if request.nonce.is_none() {
            cell.runtime.nonce = crate::resolve::matrix::case_runtime(project, None, &id.stem()).nonce;
        }
        let provider = cell.provider;
        let c = crate::compile::compile_resolved(project, cell)?;
        let (tokenizer, warning) =
            crate::measure::account::tokenizer_for(project, c.provider, model.as_deref(), options.tokenizer);
        let a = crate::measure::account::account(
            project,
            &id,
            &c,
            Some(provider),
            &tokenizer,
            model.as_deref(),
            &mut tokens.counters,
        )?;
        let report = Report { accounts: vec![a], warnings: warning.into_iter().collect() };
        return Ok((vec![(id, c)], report));
    };
    let (accounts, warnings) = crate::measure::account::accounts(
        project,
        &compiled,
        model.as_deref(),
        options.tokenizer,
        &mut tokens.counters,
    )?;
    Ok((compiled, Report { accounts, warnings }))
}

/// Every distinct text `report --matrix` counts (for benchmarks that compare a report with
/// tokenising the same text alone).
#[doc(hidden)]
pub fn matrix_texts(project: &Project) -> Result<std::collections::BTreeSet<String>> {
    let compiled = crate::compile::compile_matrix(project)?;
    let mut out = std::collections::BTreeSet::new();
    for (_, c) in &compiled {
        for p in crate::measure::account::providers_of(project, c.transport) {
            out.extend(crate::measure::account::texts(project, c, p));
        }
    }
    out.remove("");
    Ok(out)
}

/// Render every cell of the matrix and write it under `dir` (default: the project's snapshot
/// folder), skipping identical files and removing stale ones. Returns the folder and what
/// was written.
pub fn snapshot(project: &Project, dir: Option<&Path>, tokens: &mut TokenCounter) -> Result<(PathBuf, Written)> {
    let dir = match dir {
        Some(d) => d.to_path_buf(),
        None => crate::output::snapshot::confined_folder(project)?,
    };
    tokens.counters.prefetch(project.tokens.tokenizer.encoding());
    let mut matrix = Matrix::render(project)?;
    matrix.count_tokens(project, &mut tokens.counters)?;
    let written = crate::output::snapshot::write(&dir, &matrix.all_files())?;
    Ok((dir, written))
}

/// Every file `snapshot` writes, by name, rendered but not written (`summary.json` without
/// token counts).
pub fn snapshot_files(project: &Project) -> Result<std::collections::BTreeMap<String, String>> {
    let matrix = Matrix::render(project)?;
    Ok(matrix.all_files())
}

/// The project compared with its snapshot folder (`dir`, default the project's).
#[derive(Debug)]
pub struct Drift {
    /// The folder compared with.
    pub dir: PathBuf,
    /// What differs.
    pub report: DiffReport,
    matrix: Matrix,
}

impl Drift {
    /// Accept the drift: rewrite the snapshot folder with what the project renders now.
    pub fn accept(&self) -> Result<Written> {
        crate::output::snapshot::write(&self.dir, &self.matrix.all_files())
    }

    /// Accept the drift of the files `accept` says yes to (by file name); every other file
    /// keeps its committed text. `summary.json` is rewritten only when every drifted file is
    /// accepted, so it never describes files that were not. The folder is replaced in one step.
    pub fn accept_files(&self, accept: impl Fn(&str) -> bool) -> Result<Written> {
        use crate::output::snapshot::{owned_files, read_owned, SUMMARY};
        let mut files = read_owned(&self.dir, &owned_files)?;
        let new = self.matrix.all_files();
        let mut all = true;
        for change in self.report.files.iter().filter(|f| f.file != SUMMARY) {
            if !accept(&change.file) {
                all = false;
                continue;
            }
            match new.get(&change.file) {
                Some(text) => files.insert(change.file.clone(), text.clone()),
                None => files.remove(&change.file),
            };
        }
        if all {
            if let Some(summary) = new.get(SUMMARY) {
                files.insert(SUMMARY.to_string(), summary.clone());
            }
        }
        crate::output::snapshot::write(&self.dir, &files)
    }
}

/// Compare the project with its snapshot folder (`dir`, default the project's). Without drift
/// no tokenizer is built; with drift, the deltas carry token counts.
pub fn diff(project: &Project, dir: Option<&Path>, tokens: &mut TokenCounter) -> Result<Drift> {
    let dir = match dir {
        Some(d) => d.to_path_buf(),
        None => crate::output::snapshot::confined_folder(project)?,
    };
    let (report, matrix) = crate::diff::against_snapshots(project, &dir, &mut tokens.counters)?;
    Ok(Drift { dir, report, matrix })
}

/// Compare two folders: snapshot folders, or artifact folders written by [`write_artifact`].
pub fn diff_folders(a: &Path, b: &Path) -> Result<DiffReport> {
    crate::diff::folders(a, b)
}

/// Freeze the request's cell: the record a running agent keeps, to [`verify`] later, with its
/// account (what it costs, as `report` gives it). Sub-agent prompts are never frozen: a
/// sub-agent renders a fresh prompt for each run.
pub fn freeze(project: &Project, request: &Request, tokens: &mut TokenCounter) -> Result<FrozenRecord> {
    if request.subagent.is_some() {
        return Err(Error::usage(
            Diagnostic::error("sub-agent prompts are never frozen")
                .with_help("a sub-agent renders a fresh prompt for each run; freeze the main prompt instead"),
        ));
    }
    let compiled = compile(project, request)?;
    let cell = crate::resolve::matrix::Cell {
        profile: compiled.selection.profile.clone(),
        case: None,
        transport: compiled.transport,
        subagent: None,
    };
    let model = request.model.clone().or_else(|| compiled.runtime.model.clone());
    let (tokenizer, _) = crate::measure::account::tokenizer_for(project, compiled.provider, model.as_deref(), None);
    let account = crate::measure::account::account(
        project,
        &cell,
        &compiled,
        compiled.provider,
        &tokenizer,
        model.as_deref(),
        &mut tokens.counters,
    )?;
    Ok(crate::output::freeze::record(project, &compiled, Some(&account)))
}

/// Write a frozen record to `path` (atomically: an interrupted write leaves the old file).
pub fn write_record(record: &FrozenRecord, path: &Path) -> Result<()> {
    crate::source::atomic::write(path, record.to_json().as_bytes())
}

/// Read a frozen record, refusing unreadable, malformed and newer-format files.
pub fn read_record(path: &Path) -> Result<FrozenRecord> {
    crate::output::freeze::read(path)
}

/// Parse a frozen record from its JSON text, with the checks of [`read_record`]; `display`
/// names it in messages.
pub fn parse_record(text: &str, display: &str) -> Result<FrozenRecord> {
    crate::output::freeze::parse(text, display)
}

/// Whether a frozen record is still what the project compiles for the same request, and if
/// not, every reason why.
pub fn verify(project: &Project, record: &FrozenRecord) -> Result<Verdict> {
    crate::output::freeze::verify(project, record)
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

/// Counts tokens, remembering every text it has counted (and, with a project's cache file,
/// every text counted by earlier runs). Keep one and pass it to every call that measures:
/// building a tokenizer takes a few hundred milliseconds, and each encoding is built once.
///
/// ```
/// use promptc::{Encoding, TokenCounter, Tokenizer};
///
/// let mut counter = TokenCounter::new(Tokenizer::Exact(Encoding::O200kBase));
/// assert_eq!(counter.count("hello world")?, 2);
/// # Ok::<(), promptc::Error>(())
/// ```
#[derive(Debug)]
pub struct TokenCounter {
    pub(crate) counters: Counters,
    tokenizer: Tokenizer,
}

impl TokenCounter {
    /// A counter with no disk cache; [`TokenCounter::count`] uses `tokenizer`.
    pub fn new(tokenizer: Tokenizer) -> TokenCounter {
        TokenCounter { counters: Counters::new(None), tokenizer }
    }

    /// A counter that reads and writes the project's token cache file, if the project names one
    /// and `cache` is true; [`TokenCounter::count`] uses `tokenizer`, default the project's.
    pub fn for_project(project: &Project, tokenizer: Option<Tokenizer>, cache: bool) -> TokenCounter {
        let disk = match (&project.tokens.cache, cache) {
            (Some(rel), true) => Some(crate::measure::tokens::CacheFile {
                path: project.fs().root().join(rel),
                root: project.fs().root().to_path_buf(),
            }),
            _ => None,
        };
        TokenCounter { counters: Counters::new(disk), tokenizer: tokenizer.unwrap_or(project.tokens.tokenizer) }
    }

    /// Tokens in `text` (estimates are rounded up).
    pub fn count(&mut self, text: &str) -> Result<u64> {
        self.counters.count(&self.tokenizer, text)
    }

    /// The tokenizer [`TokenCounter::count`] uses.
    pub fn tokenizer(&self) -> Tokenizer {
        self.tokenizer
    }

    /// Save new counts to the cache file, if there is one. A cache that cannot be saved is
    /// not an error: see [`TokenCounter::warnings`].
    pub fn save(&mut self) {
        self.counters.save();
    }

    /// Problems with the cache file: it was ignored (unreadable, too large, a link out of the
    /// project) or could not be saved. The counts are right either way.
    pub fn warnings(&self) -> Vec<&crate::diagnostic::Diagnostic> {
        self.counters.warnings()
    }

    /// Whether a tokenizer has been built (a fully cached run builds none).
    pub fn tokenizer_built(&self) -> bool {
        self.counters.stats().tokenizer_built
    }

    /// Hits and misses so far; `None` without a cache file.
    pub fn cache_stats(&self) -> Option<crate::measure::tokens::CacheStats> {
        self.counters.disk_path().map(|_| self.counters.stats())
    }
}

/// Entry points for the fuzz targets under `fuzz/` (compiled only with `--cfg fuzzing`, which
/// cargo-fuzz and `scripts/fuzz.sh` set): each takes arbitrary input and must return — an
/// error is fine, a panic, an abort, a hang or unbounded memory is a bug.
#[cfg(fuzzing)]
#[doc(hidden)]
pub mod fuzz {
    use std::path::Path;

    use crate::model::template::guard;

    /// A `when:` expression.
    pub fn condition(text: &str) {
        if let Ok(c) = crate::model::condition::Condition::parse(text) {
            let _ = c.eval_with(&Default::default(), &Default::default());
            let _ = c.comparisons();
            let _ = c.switch_names();
        }
    }

    /// A manifest's YAML, parsed into the raw manifest types (the loader's first step).
    pub fn manifest_yaml(text: &str) {
        let _ = crate::source::yaml::parse_str::<crate::format::manifest::RawManifest>(text, "promptc.yaml");
    }

    /// A template source: the guard, then compiling and rendering it in a project's
    /// environment with an empty context.
    pub fn template(text: &str) {
        let ws = minijinja::machinery::WhitespaceConfig {
            keep_trailing_newline: false,
            lstrip_blocks: true,
            trim_blocks: true,
        };
        if guard::check(text, ws).is_err() {
            return;
        }
        // One empty project folder for every run: includes find nothing in it.
        static DIR: std::sync::OnceLock<Option<tempfile::TempDir>> = std::sync::OnceLock::new();
        let Some(dir) = DIR.get_or_init(|| tempfile::tempdir().ok()) else { return };
        let Ok(fs) = crate::source::ProjectFs::new(dir.path(), dir.path()) else { return };
        let mut t = crate::model::template::Templates::new(fs, crate::model::Limits::default(), Default::default());
        let origin = crate::model::template::TemplateOrigin {
            file: crate::source::SourceFile {
                rel: "t".into(),
                display: "t".into(),
                text: text.into(),
                sha256: String::new(),
            },
            line_offset: 0,
            column_offset: 0,
        };
        if t.add("t", text, origin).is_ok() {
            let ctx = minijinja::Value::from_serialize(serde_json::json!({"x": "value", "items": ["a", "b"]}));
            let _ = t.render("t", &ctx, 1 << 20);
        }
    }

    /// A frozen record's bytes, read and verified against `project`.
    pub fn record(bytes: &[u8], project: &crate::model::Project) {
        let Ok(dir) = tempfile::tempdir() else { return };
        let path = dir.path().join("record.json");
        if std::fs::write(&path, bytes).is_err() {
            return;
        }
        if let Ok(rec) = crate::output::freeze::read(&path) {
            let _ = crate::output::freeze::verify(project, &rec);
        }
    }

    /// A whole project from in-memory files (name → text, written into a temporary folder):
    /// loaded, then every cell of its matrix compiled and linted.
    pub fn project(files: &[(String, String)]) {
        let Ok(dir) = tempfile::tempdir() else { return };
        for (name, text) in files {
            let Ok(rel) = crate::source::ProjectFs::new(dir.path(), dir.path()).and_then(|fs| {
                fs.normalize(name)
                    .map_err(|_| crate::error::Error::usage(crate::diagnostic::Diagnostic::error("bad name")))
            }) else {
                continue;
            };
            let p = dir.path().join(rel);
            if let Some(parent) = p.parent() {
                let _ = std::fs::create_dir_all(parent);
            }
            let _ = std::fs::write(p, text);
        }
        let Ok(project) = crate::load(Path::new(dir.path())) else { return };
        let _ = crate::output::snapshot::Matrix::render(&project);
        let mut counters = crate::measure::tokens::Counters::new(None);
        let _ = crate::lint::check(&project, &[], &mut counters);
    }
}
