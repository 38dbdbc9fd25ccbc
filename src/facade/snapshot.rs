//! Snapshots: the matrix written to a folder, and the project or two folders compared.

use std::path::{Path, PathBuf};

use crate::diff::DiffReport;
use crate::error::Result;
use crate::model::Project;
use crate::output::snapshot::{Matrix, Written};

use super::tokens::TokenCounter;

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

/// Take over a snapshot folder an older promptc wrote (`dir`, default: the project's): its
/// summary is rewritten in the current format listing the files still as the older summary
/// recorded them, so the next `snapshot` may replace them. Returns the folder and those files.
pub fn adopt_snapshots(project: &Project, dir: Option<&Path>) -> Result<(PathBuf, Vec<String>)> {
    let dir = match dir {
        Some(d) => d.to_path_buf(),
        None => crate::output::snapshot::confined_folder(project)?,
    };
    let adopted = crate::output::snapshot::adopt_older(&dir)?;
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
        crate::output::snapshot::write(&self.dir, &self.matrix.all_files())
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

/// Compare two folders: snapshot folders, or artifact folders written by [`write_artifact`](crate::write_artifact).
pub fn diff_folders(a: &Path, b: &Path) -> Result<DiffReport> {
    crate::diff::folders(a, b)
}
