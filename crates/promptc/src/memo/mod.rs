//! The compile cache: what a matrix run made of each cell — its accounts, its warnings, the
//! bytes it charged — kept in memory and keyed by the content of exactly the inputs the cell
//! read, so a re-run over a reloaded project (`watch`) recompiles and recounts only the cells an
//! edit reached, and the providers' parts of sets of tools it finds again are not projected,
//! serialised or counted again.
//!
//! A cell's entry is found by its identity (profile, case, transport, sub-agent), promptc's
//! version, the project's folder and what the run counts with (the model, a forced
//! tokenizer); it is believed only while every file it depends on has the SHA-256 it had when
//! the entry was made, and the project reads the same set of files. A cell depends on every
//! file the project read except the files that hold only templates of sections it does not
//! render: the manifest, the tool files and the layout shape every cell. A project whose templates pull in files (`include`, `import`,
//! `extends`) is never cached: what a cell renders could then depend on a file no list names.
//!
//! Nothing here is trusted for a figure it cannot verify: an entry is a pure function of the
//! inputs it is keyed by, and an entry not used by a run is dropped at its end, so the cache
//! holds one matrix at most. A cache made for a project with a token cache file
//! ([`CompileCache::for_project`]) also reads and writes its entries beside it (`disk`), for
//! the next process, on the same terms as the token cache.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use crate::compile::Compiled;
use crate::measure::account::{Account, Known, ToolParts};
use crate::model::section::SectionSource;
use crate::model::tokenizer::Tokenizer;
use crate::model::Project;
use crate::resolve::matrix::Cell;

mod disk;

pub use disk::is_cache_file;

/// What one run over the matrix did, cell by cell.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CompileStats {
    /// Cells compiled and accounted in the run.
    pub compiled: usize,
    /// Cells whose accounts the cache gave.
    pub reused: usize,
    /// Providers' parts of sets of tools prepared (projected, serialised) in the run.
    pub tool_parts_prepared: usize,
}

/// One cell's entry: what a run needs of it, and the files it depends on with their SHA-256.
struct Entry {
    deps: Vec<(String, String)>,
    known: Known,
    /// Prompt and message bytes the cell charges against `limits.matrix_bytes`.
    bytes: usize,
}

/// The compile cache: what `report --matrix` made of each cell, kept in memory and found again
/// by the content of exactly the inputs the cell read (see [`report_cached`](crate::report_cached)).
/// Keep one across runs over the same project, reloaded or not (`promptc watch` does).
///
/// ```
/// # std::env::set_current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).unwrap(); // the repository, with the example
/// use promptc::{CompileCache, ReportOptions, Request, TokenCounter};
///
/// let project = promptc::load(std::path::Path::new("profiles"))?;
/// let (mut tokens, mut cache) = (TokenCounter::for_project(&project, None, false), CompileCache::new());
/// let options = ReportOptions::new().matrix(true);
/// let first = promptc::report_cached(&project, &Request::new(), &options, &mut tokens, &mut cache)?;
/// let again = promptc::report_cached(&project, &Request::new(), &options, &mut tokens, &mut cache)?;
/// assert_eq!(first, again);
/// assert_eq!(cache.stats().compiled, 0, "every cell found again");
/// # Ok::<(), promptc::Error>(())
/// ```
#[derive(Default)]
pub struct CompileCache {
    entries: HashMap<String, Entry>,
    /// The keys used or made by the current run.
    used: BTreeSet<String>,
    parts: ToolParts,
    stats: CompileStats,
    /// `parts.prepared()` when the current run began.
    parts_before: usize,
    /// The file beside the project's token cache, if the cache keeps one.
    disk: Option<disk::Disk>,
}

impl std::fmt::Debug for CompileCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompileCache").field("entries", &self.entries.len()).field("stats", &self.stats).finish()
    }
}

/// What a run is counted with, beside the cell: part of every key.
pub(crate) struct RunKey<'a> {
    /// The model the request names (billing constants, tokenizer).
    pub(crate) model: Option<&'a str>,
    /// A tokenizer forced on every cell.
    pub(crate) forced: Option<Tokenizer>,
}

/// A length-delimited field of a key (no two keys share their bytes).
fn field(h: &mut Vec<u8>, bytes: &[u8]) {
    h.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
    h.extend_from_slice(bytes);
}

impl CompileCache {
    /// An empty cache, in memory only.
    pub fn new() -> CompileCache {
        CompileCache::default()
    }

    /// A cache that also reads and writes the project's compile cache file (`compile.json`
    /// beside the token cache file), if the project names a token cache and `cache` is true;
    /// else [`CompileCache::new`]. The file is read now; [`CompileCache::save`] writes it.
    pub fn for_project(project: &Project, cache: bool) -> CompileCache {
        let disk =
            crate::measure::tokens::CacheFile::of_project(project).filter(|_| cache).and_then(|f| disk::Disk::open(&f));
        CompileCache { disk, ..CompileCache::default() }
    }

    /// Write what the last run made to the compile cache file, if there is one and it lacks
    /// any of it. Never fails: see [`CompileCache::warnings`].
    pub fn save(&mut self) {
        let Some(disk) = &mut self.disk else { return };
        disk.save(self.entries.iter().map(|(k, e)| (k, e.deps.as_slice(), &e.known, e.bytes)));
    }

    /// Problems with the compile cache file: it was ignored (unreadable, too large, a link out
    /// of the project, not promptc's) or could not be saved. The report is right either way.
    pub fn warnings(&self) -> &[crate::diagnostic::Diagnostic] {
        self.disk.as_ref().map_or(&[], |d| &d.warnings)
    }

    /// Whether the cache reads and writes a file.
    pub fn on_disk(&self) -> bool {
        self.disk.is_some()
    }

    /// Start a run: its statistics from zero.
    pub(crate) fn begin(&mut self) {
        self.used.clear();
        self.stats = CompileStats::default();
        self.parts_before = self.parts.prepared();
    }

    /// End a run: entries it neither used nor made are dropped (the cache holds one matrix).
    pub(crate) fn end(&mut self) {
        let used = std::mem::take(&mut self.used);
        self.entries.retain(|k, _| used.contains(k));
        self.used = used;
        self.stats.tool_parts_prepared = self.parts.prepared() - self.parts_before;
    }

    /// What the last run did.
    pub fn stats(&self) -> CompileStats {
        self.stats
    }

    /// The providers' parts of sets of tools, kept across runs.
    pub(crate) fn parts(&mut self) -> &mut ToolParts {
        &mut self.parts
    }

    /// The key of `cell` in `project` for a run counted as `run` says; `None` when the project
    /// is not cached (its templates pull in files).
    pub(crate) fn key(project: &Project, cell: &Cell, run: &RunKey<'_>) -> Option<String> {
        if project.templates.pull_files() {
            return None;
        }
        let mut h = Vec::new();
        field(&mut h, b"promptc compile cache 1");
        field(&mut h, env!("CARGO_PKG_VERSION").as_bytes());
        field(&mut h, cell.profile.as_bytes());
        field(&mut h, format!("{:?}", cell.case).as_bytes());
        field(&mut h, cell.transport.as_str().as_bytes());
        field(&mut h, format!("{:?}", cell.subagent).as_bytes());
        field(&mut h, format!("{:?}", run.model).as_bytes());
        field(&mut h, format!("{:?}", run.forced).as_bytes());
        // Where the project is, and how its files are shown (relative to the working folder):
        // a warning kept with an entry names its files so.
        field(&mut h, project.fs().root().as_os_str().as_encoded_bytes());
        field(&mut h, project.fs().display("").as_bytes());
        // The set of files the project read: a file added or dropped is a change.
        for rel in project.files.keys() {
            field(&mut h, rel.as_bytes());
        }
        Some(crate::hash::sha256_hex(&h))
    }

    /// The entry of `key`, if every file it depends on is as it was; marks it used. The bytes
    /// the cell charges come with it.
    pub(crate) fn get(&mut self, project: &Project, key: &str) -> Option<(Known, usize)> {
        let fresh = |deps: &[(String, String)]| {
            deps.iter().all(|(rel, sha)| project.files.get(rel).is_some_and(|f| f.sha256() == sha))
        };
        let found = match self.entries.get(key) {
            Some(e) => fresh(&e.deps).then(|| (e.known.clone(), e.bytes)),
            None => {
                let e = self.disk.as_mut()?.take(key, fresh)?;
                let found = (e.known.clone(), e.bytes);
                self.entries.insert(key.to_string(), e);
                Some(found)
            }
        }?;
        self.used.insert(key.to_string());
        self.stats.reused += 1;
        Some(found)
    }

    /// Keep what a run made of compiled cell `c` under `key`.
    pub(crate) fn put(&mut self, project: &Project, key: String, c: &Compiled, accounts: &[Account]) {
        self.stats.compiled += 1;
        let deps = dependencies(project, c);
        let bytes = c.text_bytes();
        let known = Known { transport: c.transport, warnings: c.warnings.clone(), accounts: Arc::from(accounts) };
        self.used.insert(key.clone());
        self.entries.insert(key, Entry { deps, known, bytes });
        if let Some(disk) = &mut self.disk {
            disk.dirty = true;
        }
    }

    /// Count a cell compiled without a key (a project that is not cached).
    pub(crate) fn uncached(&mut self) {
        self.stats.compiled += 1;
    }
}

/// The files compiled cell `c` depends on, with their SHA-256: every file the project read but
/// the files that hold only templates of sections `c` did not render (never the manifest).
fn dependencies(project: &Project, c: &Compiled) -> Vec<(String, String)> {
    let section_templates: BTreeSet<&str> = project
        .sections
        .values()
        .filter_map(|s| match &s.source {
            SectionSource::Template(name) => Some(name.as_str()),
            SectionSource::Generated(_) | SectionSource::Slot(_) => None,
        })
        .collect();
    let rendered: BTreeSet<&str> = c.templates.iter().map(String::as_str).collect();
    // A file is needed when it holds a template the cell rendered, or any template that is not
    // a section's; a file holding section templates only, none rendered, is not.
    let (mut needed, mut unrendered) = (BTreeSet::new(), BTreeSet::new());
    for (name, _) in project.templates.reach_by_name() {
        let Some((rel, _)) = project.templates.start(name) else { continue };
        if rendered.contains(name) || !section_templates.contains(name) {
            needed.insert(rel);
        } else {
            unrendered.insert(rel);
        }
    }
    project
        .files
        .values()
        .filter(|f| {
            !unrendered.contains(f.rel.as_str()) || needed.contains(f.rel.as_str()) || f.rel == project.manifest
        })
        .map(|f| (f.rel.clone(), f.sha256().to_string()))
        .collect()
}
