//! The server's state: the open documents (the overlay the project loads from), the last
//! analysis of the project, and what was last published. One owner, the server loop; nothing
//! global.
//!
//! **Invariant:** every answer is computed from one [`Analysis`], made from the documents as
//! they were after the last change handled; a failed load keeps the last good analysis for
//! hover, definition and completion (the user is mid-edit) and publishes the load's errors.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use lsp_types::Uri;
use promptc::report::Account;
use promptc::{CompileCache, Diagnostic, Overlay, Project, ReportOptions, Request, Symbol, TokenCounter};

use super::text::{path_uri, uri_path, Encoding};

/// An open document.
#[derive(Debug, Clone)]
pub(crate) struct Doc {
    /// Its text as the editor holds it.
    pub(crate) text: String,
}

/// What the server knows about the project at one moment.
pub(crate) struct Analysis {
    pub(crate) project: Project,
    pub(crate) symbols: Vec<Symbol>,
    /// The accounts of every cell of the matrix and provider (empty when the report failed).
    pub(crate) accounts: Vec<Account>,
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
    /// Every diagnostic of the last run: the load's errors, or `check`'s findings.
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// Documents that were sent diagnostics last time (to clear those that have none now).
    pub(crate) published: BTreeSet<String>,
    /// Whether inlay hints are shown (the `inlayHints` initialization option).
    pub(crate) hints: bool,
    /// Whether a change arrived since the last run.
    pub(crate) dirty: bool,
    counter: Option<TokenCounter>,
    cache: CompileCache,
}

impl State {
    pub(crate) fn new(enc: Encoding, manifest: PathBuf, hints: bool) -> State {
        let root = manifest.parent().map(Path::to_path_buf).unwrap_or_default();
        State {
            enc,
            root,
            manifest,
            docs: BTreeMap::new(),
            analysis: None,
            diagnostics: Vec::new(),
            published: BTreeSet::new(),
            hints,
            dirty: true,
            counter: None,
            cache: CompileCache::new(),
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

    /// Load the project from the documents and recompute everything: the diagnostics (load
    /// errors, else `check`'s findings and the load's warnings) and the accounts.
    pub(crate) fn run(&mut self) {
        self.dirty = false;
        let mut overlay = Overlay::new();
        for (rel, d) in &self.docs {
            overlay.insert(rel.clone(), d.text.clone());
        }
        let loaded = promptc::on_compile_stack(|| Project::load_overlaid(&self.manifest, Arc::new(overlay)));
        let project = match loaded {
            Ok(p) => p,
            Err(e) => {
                self.diagnostics = e.into_diagnostics();
                return;
            }
        };
        let counter = self.counter.get_or_insert_with(|| TokenCounter::for_project(&project, None, false));
        self.diagnostics = match promptc::check(&project, &[], counter) {
            Ok(found) => found.diagnostics,
            Err(e) => e.into_diagnostics(),
        };
        // The accounts for hover and inlay hints, through the compile cache: cells an edit did
        // not reach are not compiled or counted again.
        let options = ReportOptions::new().matrix(true);
        let accounts = promptc::report_cached(&project, &Request::new(), &options, counter, &mut self.cache)
            .map(|r| r.accounts)
            .unwrap_or_default();
        let symbols = promptc::symbols(&project);
        self.analysis = Some(Analysis { project, symbols, accounts });
    }
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
