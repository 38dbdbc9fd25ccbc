//! Snapshots: the matrix written to a folder, and the project or two folders compared.

use std::path::{Path, PathBuf};

use crate::diff::{Change, Decision, DiffReport, Sides};
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

    /// Remove what killed runs left beside the folder (`source::folder::sweep`), best effort:
    /// a folder that cannot be pinned now is the write's error, when there is one.
    fn sweep(&self) {
        let pinned = match self {
            Destination::Named(d) if d.parent().is_none_or(|p| p.as_os_str().is_empty() || p.is_dir()) => {
                crate::source::pin::named(d).ok()
            }
            Destination::Named(_) => None,
            Destination::Project(f) => f.pin().ok(),
        };
        if let Some(p) = pinned {
            let _ = crate::source::folder::sweep(p.path());
        }
    }

    fn write(&self, files: &std::collections::BTreeMap<String, String>) -> Result<Written> {
        let to = match self {
            Destination::Named(d) => {
                crate::source::pin::named(d).map_err(|e| crate::error::Error::io("create folder", d, &e))?
            }
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
    /// How many pending files the folder holds (`diff --pending`, a review's skipped changes).
    pending: usize,
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
        use crate::output::snapshot::{owned_files, read_owned, PENDING_SUFFIX, SUMMARY};
        let (mut files, pending) = crate::diff::split_pending(read_owned(&self.dir, &owned_files)?);
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
            // Everything accepted: nothing is pending any more.
            if let Some(summary) = new.get(SUMMARY) {
                files.insert(SUMMARY.to_string(), summary.clone());
            }
        } else {
            // Pending files stay, but for the files now accepted.
            for (name, text) in pending {
                if name == SUMMARY || !accept(&name) {
                    files.insert(format!("{name}{PENDING_SUFFIX}"), text);
                }
            }
            if let Some(listed) = crate::output::snapshot::relisted(&files) {
                files.insert(SUMMARY.to_string(), listed);
            }
        }
        self.to.write(&files)
    }

    /// How many pending files the folder holds.
    pub fn pending_files(&self) -> usize {
        self.pending
    }

    /// Write the drift as pending snapshots in the folder (`NAME.new` beside each drifted file,
    /// `summary.json.new`), replacing earlier pending ones; without drift, remove them. The
    /// committed files are left as they are. Returns how many pending files there are now.
    pub fn write_pending(&self) -> Result<usize> {
        use crate::output::snapshot::{owned_files, read_owned};
        let folder = read_owned(&self.dir, &owned_files)?;
        if !self.report.drift() {
            // No drift (and no token counts to write): earlier pending files are removed.
            if self.pending > 0 {
                self.to.write(&without_pending(&crate::diff::split_pending(folder).0))?;
            }
            return Ok(0);
        }
        let sides = Sides::of(folder, Some(self.matrix.all_files()));
        let outcome = crate::diff::outcome(&sides, &self.report, |_| Decision::Skip);
        self.to.write(&outcome.folder())?;
        Ok(outcome.pending.len())
    }
}

/// A folder's committed files with its summary's list of files made to match them (no pending
/// file listed).
fn without_pending(
    committed: &std::collections::BTreeMap<String, String>,
) -> std::collections::BTreeMap<String, String> {
    let mut files = committed.clone();
    if let Some(listed) = crate::output::snapshot::relisted(&files) {
        files.insert(crate::output::snapshot::SUMMARY.to_string(), listed);
    }
    files
}

/// A snapshot folder's drift, reviewed change by change: the pending files when the folder holds
/// them (`diff --pending`, an earlier review's skipped changes), else what the project renders.
#[derive(Debug)]
#[non_exhaustive]
pub struct Review {
    /// The snapshot folder.
    pub dir: PathBuf,
    /// The changes to decide (`report.changes`), with the files and deltas they come from.
    pub report: DiffReport,
    /// Whether the new side is the folder's pending files (else what the project renders).
    pub from_pending: bool,
    sides: Sides,
    to: Destination,
}

/// What a review did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Reviewed {
    /// Changes accepted.
    pub accepted: usize,
    /// Changes rejected.
    pub rejected: usize,
    /// Changes skipped, left pending.
    pub skipped: usize,
    /// Pending files left in the folder.
    pub pending_files: usize,
}

impl Review {
    /// Write the decisions (`decide` is asked once per change, in order): accepted changes into
    /// the committed files, skipped ones left pending, rejected ones dropped — the snapshot folder
    /// replaced in one step, and only when something changes.
    pub fn finish(&self, decide: impl Fn(&Change) -> Decision) -> Result<Reviewed> {
        let outcome = crate::diff::outcome(&self.sides, &self.report, decide);
        let reviewed = Reviewed {
            accepted: outcome.accepted,
            rejected: outcome.rejected,
            skipped: outcome.skipped,
            pending_files: outcome.pending.len(),
        };
        if self.report.changes.is_empty() {
            // Nothing to decide: stale pending files are removed, nothing else is written (the
            // new side's summary may lack the token counts a drift would have made).
            if self.from_pending {
                self.to.write(&without_pending(&self.sides.committed))?;
            }
            return Ok(Reviewed::default());
        }
        // The folder is replaced only where it changes (`source::folder`).
        self.to.write(&outcome.folder())?;
        Ok(reviewed)
    }
}

/// Review the drift of the project's snapshot folder (`dir`, default the project's): the pending
/// files when the folder holds them, else what the project renders (tokens counted for the
/// deltas only then).
pub fn review(project: &Project, dir: Option<&Path>, tokens: &mut TokenCounter) -> Result<Review> {
    use crate::output::snapshot::{owned_files, read_owned, SUMMARY};
    let to = Destination::of(project, dir)?;
    // A review may write the folder: what a killed one left goes now, whatever this one decides.
    to.sweep();
    let dir = to.dir().to_path_buf();
    let folder = read_owned(&dir, &owned_files)?;
    let (_, pending) = crate::diff::split_pending(folder.clone());
    if pending.contains_key(SUMMARY) {
        let sides = Sides::of(folder, None);
        let label = dir.display().to_string();
        let report = crate::diff::compare(&sides.committed, &sides.new, (&label, "pending"), "pending");
        return Ok(Review { dir, report, from_pending: true, sides, to });
    }
    let (report, matrix, _) = crate::diff::against_snapshots(project, &dir, &mut tokens.counters)?;
    let sides = Sides::of(folder, Some(matrix.all_files()));
    Ok(Review { dir, report, from_pending: false, sides, to })
}

/// Compare the project with its snapshot folder (`dir`, default the project's). Without drift
/// no tokenizer is built; with drift, the deltas carry token counts.
pub fn diff(project: &Project, dir: Option<&Path>, tokens: &mut TokenCounter) -> Result<Drift> {
    let to = Destination::of(project, dir)?;
    let dir = to.dir().to_path_buf();
    let (report, matrix, pending) = crate::diff::against_snapshots(project, &dir, &mut tokens.counters)?;
    Ok(Drift { dir, report, matrix, to, pending })
}

/// Compare two folders: snapshot folders, or artifact folders written by [`write_artifact`](crate::write_artifact).
pub fn diff_folders(a: &Path, b: &Path) -> Result<DiffReport> {
    crate::diff::folders(a, b)
}
