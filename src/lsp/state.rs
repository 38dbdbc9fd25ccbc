//! The server's state: the open documents (the overlay the project loads from), the last
//! analysis of the project, and what was last published. One owner, the server loop; nothing
//! global.
//!
//! **Invariant:** every answer is computed from one [`Analysis`], made from the documents as
//! they were after the last change handled; a failed load keeps the last good analysis for
//! hover, definition and completion (the user is mid-edit) and publishes the load's errors.
//! The loop loads; `check` and the accounts, which compile every cell, run on the checker
//! thread, and its answer is taken only if no change came since (`generation`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;
use std::sync::Arc;

use lsp_types::Uri;
use promptc::report::Account;
use promptc::{
    CompileCache, Diagnostic, Error, LoadMemo, Overlay, Project, ReportOptions, Request, Symbol, TokenCounter,
};

use super::text::{path_uri, uri_path, Encoding};

/// An open document.
#[derive(Debug, Clone)]
pub(crate) struct Doc {
    /// Its text as the editor holds it.
    pub(crate) text: String,
}

/// What the server knows about the project at one moment.
pub(crate) struct Analysis {
    pub(crate) project: Arc<Project>,
    pub(crate) symbols: Vec<Symbol>,
    /// The accounts of every cell of the matrix and provider (empty when the report failed).
    pub(crate) accounts: Arc<Vec<Account>>,
}

/// The server's whole state.
pub(crate) struct State {
    /// How the client counts columns.
    pub(crate) enc: Encoding,
    /// The project folder (canonical) and its manifest.
    pub(crate) root: PathBuf,
    pub(crate) manifest: PathBuf,
    /// Open documents inside the project, by project-relative path.
    pub(crate) docs: BTreeMap<String, Doc>,
    /// The last project that loaded, with what was computed from it.
    pub(crate) analysis: Option<Analysis>,
    /// The last load: its warnings, or its errors.
    loaded: Result<Vec<Diagnostic>, Vec<Diagnostic>>,
    /// The last findings of `check`, and the load they are about.
    checks: Vec<Diagnostic>,
    checked: u64,
    /// The current load (one per change handled).
    generation: u64,
    /// Documents that were sent diagnostics last time (to clear those that have none now).
    pub(crate) published: BTreeSet<String>,
    /// Whether inlay hints are shown (the `inlayHints` initialization option).
    pub(crate) hints: bool,
    /// Whether a change arrived since the last run.
    pub(crate) dirty: bool,
    checker: Sender<Job>,
    /// Tool files parsed by earlier loads: a keystroke in a section parses no tool file again.
    memo: LoadMemo,
}

impl State {
    pub(crate) fn new(enc: Encoding, manifest: PathBuf, hints: bool, checker: Sender<Job>) -> State {
        let root = manifest.parent().map(Path::to_path_buf).unwrap_or_default();
        State {
            enc,
            root,
            manifest,
            docs: BTreeMap::new(),
            analysis: None,
            loaded: Ok(Vec::new()),
            checks: Vec::new(),
            checked: 0,
            generation: 0,
            published: BTreeSet::new(),
            hints,
            dirty: true,
            checker,
            memo: LoadMemo::new(),
        }
    }

    /// The project-relative path of a document, if it lies inside the project folder.
    pub(crate) fn rel(&self, uri: &Uri) -> Option<String> {
        let path = uri_path(uri)?;
        // The client may name the folder through a link (`/tmp` on macOS is `/private/tmp`).
        let path = if path.starts_with(&self.root) { path } else { resolved(&path) };
        let rest = path.strip_prefix(&self.root).ok()?;
        let parts: Option<Vec<&str>> = rest.components().map(|c| c.as_os_str().to_str()).collect();
        let rel = parts?.join("/");
        (!rel.is_empty()).then_some(rel)
    }

    /// The manifest's project-relative path.
    pub(crate) fn manifest_rel(&self) -> String {
        self.manifest.file_name().map_or_else(|| "promptc.yaml".into(), |n| n.to_string_lossy().into_owned())
    }

    /// The URI of project file `rel`.
    pub(crate) fn uri(&self, rel: &str) -> Uri {
        path_uri(&self.root.join(rel))
    }

    /// The text of project file `rel`: the editor's if open, else what the project read, else
    /// the disk's.
    pub(crate) fn text(&self, rel: &str) -> Option<String> {
        if let Some(d) = self.docs.get(rel) {
            return Some(d.text.clone());
        }
        if let Some(t) = self.analysis.as_ref().and_then(|a| a.project.file_text(rel)) {
            return Some(t.to_string());
        }
        std::fs::read_to_string(self.root.join(rel)).ok()
    }

    /// Load the project from the documents (on this thread: a load is quick, and its errors are
    /// what a keystroke most often changes) and hand it to the checker for the rest.
    pub(crate) fn run(&mut self) {
        self.dirty = false;
        self.generation += 1;
        let mut overlay = Overlay::new();
        for (rel, d) in &self.docs {
            overlay.insert(rel.clone(), d.text.clone());
        }
        let loaded =
            promptc::on_compile_stack(|| Project::load_overlaid(&self.manifest, Arc::new(overlay), Some(&self.memo)));
        let project = match loaded {
            Ok(p) => Arc::new(p),
            Err(e) => {
                self.loaded = Err(e.into_diagnostics());
                return;
            }
        };
        self.loaded = Ok(project.warnings().into_iter().cloned().collect());
        let symbols = promptc::symbols(&project);
        // Until the checker answers, hover shows the last figures (one edit old at most).
        let accounts = self.analysis.as_ref().map(|a| Arc::clone(&a.accounts)).unwrap_or_default();
        self.analysis = Some(Analysis { project: Arc::clone(&project), symbols, accounts });
        let _ = self.checker.send(Job { generation: self.generation, project });
    }

    /// Take what the checker found, if it is about the current text.
    pub(crate) fn checked(&mut self, c: Checked) -> bool {
        if c.generation != self.generation {
            return false;
        }
        self.checks = c.diagnostics;
        self.checked = c.generation;
        if let Some(a) = &mut self.analysis {
            a.accounts = Arc::new(c.accounts);
        }
        true
    }

    /// Whether the checker has answered for the current text.
    pub(crate) fn up_to_date(&self) -> bool {
        self.checked == self.generation || self.loaded.is_err()
    }

    /// The diagnostics to show: the load's errors; else `check`'s findings, and while they are
    /// being recomputed, the last ones with the load's warnings (so they do not flicker away).
    pub(crate) fn diagnostics(&self) -> Vec<Diagnostic> {
        match &self.loaded {
            Err(errors) => errors.clone(),
            Ok(_) if self.checked == self.generation => self.checks.clone(),
            Ok(warnings) => self.checks.iter().chain(warnings).cloned().collect(),
        }
    }
}

/// A loaded project for the checker.
pub(crate) struct Job {
    generation: u64,
    project: Arc<Project>,
}

/// What the checker found for one load.
#[derive(Debug)]
pub(crate) struct Checked {
    generation: u64,
    diagnostics: Vec<Diagnostic>,
    accounts: Vec<Account>,
}

/// The checker: a thread that runs `check` and the matrix report on each project the loop
/// loads, newest first (a load superseded while it waited is skipped), keeping the token
/// counter and the compile cache across runs so an edit recompiles only the cells it reached.
/// Its answers come back on the loop's own channel (`done`), between the client's messages.
pub(crate) fn spawn_checker(done: impl Fn(Checked) -> bool + Send + 'static) -> Sender<Job> {
    let (tx, rx) = std::sync::mpsc::channel::<Job>();
    std::thread::spawn(move || {
        let mut counter: Option<TokenCounter> = None;
        let mut cache = CompileCache::new();
        while let Ok(mut job) = rx.recv() {
            while let Ok(newer) = rx.try_recv() {
                job = newer;
            }
            let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                check_one(&job.project, &mut counter, &mut cache)
            }));
            let (diagnostics, accounts) = run.unwrap_or_else(|_| {
                let bug = Diagnostic::error("promptc failed while checking the project (a bug: please report it)");
                (vec![bug], Vec::new())
            });
            if !done(Checked { generation: job.generation, diagnostics, accounts }) {
                return;
            }
        }
    });
    tx
}

/// `check`'s findings and every cell's accounts (through the compile cache).
fn check_one(
    project: &Project,
    counter: &mut Option<TokenCounter>,
    cache: &mut CompileCache,
) -> (Vec<Diagnostic>, Vec<Account>) {
    let counter = counter.get_or_insert_with(|| TokenCounter::for_project(project, None, false));
    let diagnostics = promptc::on_compile_stack(|| promptc::check(project, &[], counter))
        .map_or_else(Error::into_diagnostics, |found| found.diagnostics);
    let options = ReportOptions::new().matrix(true);
    let accounts = promptc::report_cached(project, &Request::new(), &options, counter, cache)
        .map(|r| r.accounts)
        .unwrap_or_default();
    (diagnostics, accounts)
}

/// `path` with links resolved through its nearest existing folder (a new, unsaved file's
/// folder exists even when the file does not).
fn resolved(path: &Path) -> PathBuf {
    if let Ok(p) = path.canonicalize() {
        return p;
    }
    match (path.parent().and_then(|d| d.canonicalize().ok()), path.file_name()) {
        (Some(dir), Some(name)) => dir.join(name),
        _ => path.to_path_buf(),
    }
}
