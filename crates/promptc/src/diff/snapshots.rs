//! The project's current matrix compared with its snapshot folder.

use std::collections::BTreeMap;
use std::path::Path;

use crate::diagnostic::Diagnostic;
use crate::error::{ErrorKind, Result};
use crate::measure::tokens::Counters;
use crate::model::Project;
use crate::output::snapshot::{listed_files, read_owned, Matrix, Summary, SUMMARY};

use super::{changes, compare_files, deltas, DiffReport};

/// Compare the project's current matrix with its snapshot folder. Without drift this reads,
/// renders and compares only: no tokenizer is built. With drift, the new side's tokens are
/// counted for the deltas and the returned matrix is ready to be written (`--update`). Pending
/// files in the folder (see `diff::review`) are left out of the comparison; their count is
/// returned with it.
pub fn against_snapshots(project: &Project, dir: &Path, counter: &mut Counters) -> Result<(DiffReport, Matrix, usize)> {
    // Read and parse the committed side on a second core while this one renders: the no-change
    // case then costs about one matrix render.
    let (rendered, read) = std::thread::scope(|scope| {
        let reader = scope.spawn(|| read_owned(dir, &listed_files));
        let rendered = Matrix::render(project);
        let read = reader.join().unwrap_or_else(|_| {
            Err(Diagnostic::error("reading the snapshot folder failed").into_error(ErrorKind::Internal))
        });
        (rendered, read)
    });
    let mut matrix = rendered?;
    // Pending files (`diff --pending`, a review's skipped changes) are no part of the comparison.
    let (mut old, pending) = super::committed_only(read?);
    let old_summary: Option<Summary> = old.get(SUMMARY).and_then(|s| serde_json::from_str(s).ok());
    let old_summary_text = old.remove(SUMMARY);
    let label = dir.display().to_string();
    let unchanged = old == matrix.files && old_summary.as_ref().is_some_and(|s| s.without_tokens() == matrix.summary);
    if unchanged {
        return Ok((
            DiffReport {
                old: label,
                new: "the project".into(),
                files: Vec::new(),
                deltas: Vec::new(),
                changes: Vec::new(),
                accounts: Vec::new(),
            },
            matrix,
            pending,
        ));
    }
    matrix.count_tokens(project, counter)?;
    if let Some(t) = old_summary_text {
        old.insert(SUMMARY.to_string(), t);
    }
    Ok((compare(&old, &matrix.all_files(), (&label, "the project"), "rendered"), matrix, pending))
}

/// Two sides of a snapshot folder compared: each differing file (its diff headed with
/// `old_label` and `files_label`), the deltas of their summaries (when both have one), the
/// changes by name, and both sides' accounts.
pub fn compare(
    old: &BTreeMap<String, String>,
    new: &BTreeMap<String, String>,
    (old_label, new_label): (&str, &str),
    files_label: &str,
) -> DiffReport {
    let summary = |m: &BTreeMap<String, String>| m.get(SUMMARY).and_then(|s| serde_json::from_str::<Summary>(s).ok());
    let files = compare_files(old, new, old_label, files_label);
    let (o, n) = (summary(old), summary(new));
    let deltas = match (&o, &n) {
        (Some(o), Some(n)) => deltas(o, n),
        _ => Vec::new(),
    };
    let changes = changes(old, new, &files, &deltas);
    let accounts = super::accounts(o.as_ref(), n.as_ref());
    DiffReport { old: old_label.to_string(), new: new_label.to_string(), files, deltas, changes, accounts }
}
