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
/// counted for the deltas and the returned matrix is ready to be written (`--update`).
pub fn against_snapshots(project: &Project, dir: &Path, counter: &mut Counters) -> Result<(DiffReport, Matrix)> {
    // Read and parse the committed side on a second core while this one renders: the no-change
    // case then costs about one matrix render.
    let (rendered, read) = std::thread::scope(|scope| {
        let reader = scope.spawn(|| -> Result<(BTreeMap<String, String>, Option<Summary>)> {
            let old = read_owned(dir, &listed_files)?;
            let summary = old.get(SUMMARY).and_then(|s| serde_json::from_str(s).ok());
            Ok((old, summary))
        });
        let rendered = Matrix::render(project);
        let read = reader.join().unwrap_or_else(|_| {
            Err(Diagnostic::error("reading the snapshot folder failed").into_error(ErrorKind::Internal))
        });
        (rendered, read)
    });
    let mut matrix = rendered?;
    let (mut old, old_summary) = read?;
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
        ));
    }
    matrix.count_tokens(project, counter)?;
    if let Some(t) = old_summary_text {
        old.insert(SUMMARY.to_string(), t);
    }
    let new = matrix.all_files();
    let files = compare_files(&old, &new, &label, "rendered");
    let deltas = old_summary.as_ref().map(|o| deltas(o, &matrix.summary)).unwrap_or_default();
    let changes = changes(&old, &new, &files, &deltas);
    let accounts = super::accounts(&matrix.summary);
    Ok((DiffReport { old: label, new: "the project".into(), files, deltas, changes, accounts }, matrix))
}
