//! The library facade: one call per job another program needs (the CLI, the Python and Node
//! packages), each a thin composition of the layers. Nothing here prints or exits; every call
//! returns data or an [`Error`](crate::Error) with located diagnostics.

use std::path::{Path, PathBuf};

use crate::code::{Level, RuleCode};
use crate::compile::Compiled;
use crate::diagnostic::Diagnostic;
use crate::diff::DiffReport;
use crate::error::{Error, Result};
use crate::lint::CheckResult;
use crate::measure::report::Report;
use crate::measure::tokens::Counter;
use crate::model::tokenizer::Tokenizer;
use crate::model::Project;
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

/// The tokenizer a report uses: `name` wins (an encoding such as `o200k_base`, or `claude`,
/// `gemini` for estimates), then the one the request's model maps to, then the project's.
pub fn report_tokenizer(project: &Project, request: &Request, name: Option<&str>) -> Result<Tokenizer> {
    let runtime = crate::resolve::runtime::Runtime::resolve(project, request)?;
    let model = request.model.clone().or(runtime.model);
    crate::measure::report::choose_tokenizer(project, name, model.as_deref())
}

/// Tokens and bytes per section, tool and slot, with budgets: of the request's cell, or with
/// `matrix`, of every profile × transport cell with the request's runtime values.
pub fn report(project: &Project, request: &Request, matrix: bool, tokens: &mut TokenCounter) -> Result<Vec<Report>> {
    let runtime = crate::resolve::runtime::Runtime::resolve(project, request)?;
    tokens.0.prefetch();
    let cells = if matrix {
        crate::measure::report::matrix_cells(project, &runtime, request.provider.unwrap_or(project.defaults.provider))?
    } else {
        vec![crate::compile::compile_with(project, request, runtime)?]
    };
    cells.iter().map(|c| crate::measure::report::build(project, c, &mut tokens.0)).collect()
}

/// Render every cell of the matrix and write it under `dir` (default: the project's snapshot
/// folder), skipping identical files and removing stale ones. Returns the folder and what
/// was written.
pub fn snapshot(project: &Project, dir: Option<&Path>, tokens: &mut TokenCounter) -> Result<(PathBuf, Written)> {
    let dir = match dir {
        Some(d) => d.to_path_buf(),
        None => crate::output::snapshot::confined_folder(project)?,
    };
    tokens.0.prefetch();
    let mut matrix = Matrix::render(project)?;
    matrix.count_tokens(&mut tokens.0)?;
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
}

/// Compare the project with its snapshot folder (`dir`, default the project's). Without drift
/// no tokenizer is built; with drift, the deltas carry token counts.
pub fn diff(project: &Project, dir: Option<&Path>, tokens: &mut TokenCounter) -> Result<Drift> {
    let dir = match dir {
        Some(d) => d.to_path_buf(),
        None => crate::output::snapshot::confined_folder(project)?,
    };
    let (report, matrix) = crate::diff::against_snapshots(project, &dir, &mut tokens.0)?;
    Ok(Drift { dir, report, matrix })
}

/// Compare two folders: snapshot folders, or artifact folders written by [`write_artifact`].
pub fn diff_folders(a: &Path, b: &Path) -> Result<DiffReport> {
    crate::diff::folders(a, b)
}

/// Freeze the request's cell: the record a running agent keeps, to [`verify`] later.
/// Sub-agent prompts are never frozen: a sub-agent renders a fresh prompt for each run.
pub fn freeze(project: &Project, request: &Request) -> Result<FrozenRecord> {
    if request.subagent.is_some() {
        return Err(Error::usage(
            Diagnostic::error("sub-agent prompts are never frozen")
                .with_help("a sub-agent renders a fresh prompt for each run; freeze the main prompt instead"),
        ));
    }
    let compiled = compile(project, request)?;
    Ok(crate::output::freeze::record(project, &compiled, request))
}

/// Write a frozen record to `path` (atomically: an interrupted write leaves the old file).
pub fn write_record(record: &FrozenRecord, path: &Path) -> Result<()> {
    crate::source::atomic::write(path, record.to_json().as_bytes())
}

/// Read a frozen record, refusing unreadable, malformed and newer-format files.
pub fn read_record(path: &Path) -> Result<FrozenRecord> {
    crate::output::freeze::read(path)
}

/// Whether a frozen record is still what the project compiles for the same request, and if
/// not, every reason why.
pub fn verify(project: &Project, record: &FrozenRecord) -> Result<Verdict> {
    crate::output::freeze::verify(project, record)
}

/// Lint every cell of the project. `levels` override the project's `check.levels`, later
/// entries winning.
pub fn check(project: &Project, levels: &[(RuleCode, Level)], tokens: &mut TokenCounter) -> Result<CheckResult> {
    crate::lint::check(project, levels, &mut tokens.0)
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
        SchemaKind::Manifest => crate::load::editor_schema::manifest(),
        SchemaKind::Tools => crate::load::editor_schema::tools(),
    }
}

/// Counts tokens with one tokenizer, remembering every text it has counted (and, with a
/// project's cache file, every text counted by earlier runs). Keep one per tokenizer and
/// pass it to every call that measures: building a tokenizer takes a few hundred milliseconds.
///
/// ```
/// use promptc::{Encoding, TokenCounter, Tokenizer};
///
/// let mut counter = TokenCounter::new(Tokenizer::Exact(Encoding::O200kBase));
/// assert_eq!(counter.count("hello world")?, 2);
/// # Ok::<(), promptc::Error>(())
/// ```
#[derive(Debug)]
pub struct TokenCounter(pub(crate) Counter);

impl TokenCounter {
    /// A counter with no disk cache.
    pub fn new(tokenizer: Tokenizer) -> TokenCounter {
        TokenCounter(Counter::new(tokenizer, None))
    }

    /// A counter with `tokenizer` (default: the project's) that reads and writes the project's
    /// token cache file, if the project names one and `cache` is true.
    pub fn for_project(project: &Project, tokenizer: Option<Tokenizer>, cache: bool) -> TokenCounter {
        let disk = match (&project.tokens.cache, cache) {
            (Some(rel), true) => Some(crate::measure::tokens::CacheFile {
                path: project.fs().root().join(rel),
                root: project.fs().root().to_path_buf(),
            }),
            _ => None,
        };
        TokenCounter(Counter::new(tokenizer.unwrap_or(project.tokens.tokenizer), disk))
    }

    /// Tokens in `text` (estimates are rounded up).
    pub fn count(&mut self, text: &str) -> Result<u64> {
        self.0.count(text)
    }

    /// The tokenizer in use.
    pub fn tokenizer(&self) -> Tokenizer {
        *self.0.tokenizer()
    }

    /// Save new counts to the cache file, if there is one. A cache that cannot be saved is
    /// not an error: see [`TokenCounter::warnings`].
    pub fn save(&mut self) {
        self.0.save();
    }

    /// Problems with the cache file: it was ignored (unreadable, too large, a link out of the
    /// project) or could not be saved. The counts are right either way.
    pub fn warnings(&self) -> &[crate::diagnostic::Diagnostic] {
        self.0.warnings()
    }

    /// Whether a tokenizer has been built (a fully cached run builds none).
    pub fn tokenizer_built(&self) -> bool {
        self.0.stats().tokenizer_built
    }

    /// Hits and misses so far; `None` without a cache file.
    pub fn cache_stats(&self) -> Option<crate::measure::tokens::CacheStats> {
        self.0.disk_path().map(|_| self.0.stats())
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
            let _ = c.eval(&Default::default());
            let _ = c.switch_names();
        }
    }

    /// A manifest's YAML, parsed into the raw manifest types (the loader's first step).
    pub fn manifest_yaml(text: &str) {
        let _ = crate::source::yaml::parse_str::<crate::load::raw::RawManifest>(text, "promptc.yaml");
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
        let mut t = crate::model::template::Templates::new(fs, crate::model::Limits::default());
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
        let mut counter = crate::measure::tokens::Counter::new(project.tokens.tokenizer, None);
        let _ = crate::lint::check(&project, &[], &mut counter);
    }
}
