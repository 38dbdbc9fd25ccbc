//! Snapshots: the matrix written to a folder, and the project or two folders compared.

use std::path::{Path, PathBuf};

use crate::diff::DiffReport;
use crate::error::Result;
use crate::model::Project;
use crate::output::snapshot::{Matrix, ProjectFolder, Written};
use crate::source::pin::Pinned;

use super::tokens::TokenCounter;

/// Render every cell of the matrix and write it under `dir` (default: the project's snapshot
/// folder), skipping identical files and removing stale ones. Returns the folder and what
/// was written.
pub fn snapshot(project: &Project, dir: Option<&Path>, tokens: &mut TokenCounter) -> Result<(PathBuf, Written)> {
    // Refused before anything is rendered; pinned (and its parents made) only to write.
    let to = Destination::of(project, dir)?;
    tokens.counters.prefetch(project.tokens.tokenizer.encoding());
    let mut matrix = Matrix::render(project)?;
    matrix.count_tokens(project, &mut tokens.counters)?;
    let written = to.write(&matrix.all_files())?;
    Ok((to.dir().to_path_buf(), written))
}

/// Where a snapshot folder is written: the folder the caller named, used as it is (theirs to
/// choose), or the project's, checked now and pinned under its write root when written (see
/// `source::pin`).
#[derive(Debug)]
enum Destination {
    Named(PathBuf),
    Project(ProjectFolder),
}

impl Destination {
    fn of(project: &Project, dir: Option<&Path>) -> Result<Destination> {
        Ok(match dir {
            Some(d) => Destination::Named(d.to_path_buf()),
            None => Destination::Project(crate::output::snapshot::project_folder(project)?),
        })
    }

    fn dir(&self) -> &Path {
        match self {
            Destination::Named(d) => d,
            Destination::Project(f) => f.shown(),
        }
    }

    fn write(&self, files: &std::collections::BTreeMap<String, String>) -> Result<Written> {
        let to = match self {
            Destination::Named(d) => Pinned::unpinned(d),
            Destination::Project(f) => f.pin()?,
        };
        crate::output::snapshot::write(&to, files)
    }
}

/// Take over a snapshot folder an older promptc wrote (`dir`, default: the project's): its
/// summary is rewritten in the current format listing the files still as the older summary
/// recorded them, so the next `snapshot` may replace them. Returns the folder and those files.
pub fn adopt_snapshots(project: &Project, dir: Option<&Path>) -> Result<(PathBuf, Vec<String>)> {
    let to = Destination::of(project, dir)?;
    let dir = to.dir().to_path_buf();
    // A project's folder is pinned as for `snapshot` (when there is one to take over).
    let pinned = match &to {
        Destination::Project(f) if std::fs::symlink_metadata(&dir).is_ok() => f.pin()?,
        _ => Pinned::unpinned(&dir),
    };
    let adopted = crate::output::snapshot::adopt_older(pinned.path()).map_err(|e| pinned.relabel(e))?;
    Ok((dir, adopted))
}

/// Every file `snapshot` writes, by name, rendered but not written (`summary.json` without
/// token counts).
pub fn snapshot_files(project: &Project) -> Result<std::collections::BTreeMap<String, String>> {
    let matrix = Matrix::render(project)?;
    Ok(matrix.all_files())
}

/// The project compared with its snapshot folder (`dir`, default the project's).
#[derive(Debug)]
#[non_exhaustive]
pub struct Drift {
    /// The folder compared with.
    pub dir: PathBuf,
    /// What differs.
    pub report: DiffReport,
    matrix: Matrix,
    /// Where accepting the drift writes.
    to: Destination,
}

impl Drift {
    /// Whether the snapshot folder was written by an older promptc (its summary is of an
    /// older format): `snapshot --adopt` takes it over.
    pub fn older_folder(&self) -> bool {
        use crate::output::snapshot::{older_manifest, owned_files};
        matches!(owned_files(&self.dir), Ok(None)) && matches!(older_manifest(&self.dir), Ok(Some(_)))
    }

    /// Accept the drift: rewrite the snapshot folder with what the project renders now.
    pub fn accept(&self) -> Result<Written> {
        self.to.write(&self.matrix.all_files())
    }

    /// Accept the drift of the files `accept` says yes to (by file name); every other file
    /// keeps its committed text. `summary.json` is rewritten only when every drifted file is
    /// accepted, so it never describes files that were not; until then only its list of the
    /// files promptc wrote (with their hashes) follows, so the accepted files stay promptc's.
    /// The folder is replaced in one step.
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
        } else if let Some(listed) = crate::output::snapshot::relisted(&files) {
            files.insert(SUMMARY.to_string(), listed);
        }
        self.to.write(&files)
    }
}

/// Compare the project with its snapshot folder (`dir`, default the project's). Without drift
/// no tokenizer is built; with drift, the deltas carry token counts.
pub fn diff(project: &Project, dir: Option<&Path>, tokens: &mut TokenCounter) -> Result<Drift> {
    let to = Destination::of(project, dir)?;
    let dir = to.dir().to_path_buf();
    let (report, matrix) = crate::diff::against_snapshots(project, &dir, &mut tokens.counters)?;
    Ok(Drift { dir, report, matrix, to })
}

/// Compare two folders: snapshot folders, or artifact folders written by [`write_artifact`](crate::write_artifact).
pub fn diff_folders(a: &Path, b: &Path) -> Result<DiffReport> {
    crate::diff::folders(a, b)
}
