//! Two sets of files compared by name: each differing file with its unified diff and its
//! counts of added and removed lines.

use std::collections::BTreeMap;

use similar::{ChangeTag, TextDiff};

use super::{FileChange, Status};

/// Compare two sets of files by name.
pub fn compare_files(
    old: &BTreeMap<String, String>,
    new: &BTreeMap<String, String>,
    old_label: &str,
    new_label: &str,
) -> Vec<FileChange> {
    let mut names: Vec<&String> = old.keys().chain(new.keys()).collect();
    names.sort();
    names.dedup();
    let mut out = Vec::new();
    for name in names {
        match (old.get(name), new.get(name)) {
            (Some(a), Some(b)) if a == b => {}
            (Some(a), Some(b)) => out.push(modified(name, a, b, old_label, new_label)),
            (None, Some(b)) => out.push(FileChange {
                file: name.clone(),
                status: Status::Added,
                diff: String::new(),
                added_lines: b.lines().count(),
                removed_lines: 0,
                too_large: false,
            }),
            (Some(a), None) => out.push(FileChange {
                file: name.clone(),
                status: Status::Removed,
                diff: String::new(),
                added_lines: 0,
                removed_lines: a.lines().count(),
                too_large: false,
            }),
            (None, None) => {}
        }
    }
    out
}

/// The most lines a file's changed region (what is left once the lines both sides share at
/// the start and the end are set aside, old and new lines together) may span to be diffed line
/// by line. Myers' algorithm costs about (lines × differences): a committed snapshot of 100,000
/// unique lines took half a minute. Beyond this the file is reported as modified with its line
/// counts, but without hunks. A count of lines, not a time limit, so every machine prints the
/// same report.
pub const MAX_DIFF_LINES: usize = 10_000;

/// The one line a file too large to diff line by line shows in place of its hunks.
pub fn too_large_note(changed_lines: usize) -> String {
    format!(
        "too large to show line by line ({changed_lines} changed lines, more than {MAX_DIFF_LINES}); \
         compare the files with git diff --no-index"
    )
}

/// The lines `a` and `b` share at their start and at their end (never overlapping).
fn common_ends(a: &[&str], b: &[&str]) -> (usize, usize) {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..].iter().rev().zip(b[prefix..].iter().rev()).take_while(|(x, y)| x == y).count();
    (prefix, suffix)
}

/// A file present on both sides with different text `a` (old) and `b` (new): its unified diff,
/// headed with each side's label, and its line counts.
fn modified(name: &str, a: &str, b: &str, old_label: &str, new_label: &str) -> FileChange {
    let header = (format!("{old_label}/{name}"), format!("{new_label}/{name}"));
    let (old_lines, new_lines): (Vec<&str>, Vec<&str>) =
        (a.split_inclusive('\n').collect(), b.split_inclusive('\n').collect());
    let (prefix, suffix) = common_ends(&old_lines, &new_lines);
    let (removed, added) = (old_lines.len() - prefix - suffix, new_lines.len() - prefix - suffix);
    if removed + added > MAX_DIFF_LINES {
        // Every line of the changed region counts as removed and added: an upper bound, found
        // in linear time.
        let diff = format!("--- {}\n+++ {}\n{}\n", header.0, header.1, too_large_note(removed + added));
        return FileChange {
            file: name.to_string(),
            status: Status::Modified,
            diff,
            added_lines: added,
            removed_lines: removed,
            too_large: true,
        };
    }
    let d = TextDiff::from_lines(a, b);
    let mut added = 0;
    let mut removed = 0;
    for change in d.iter_all_changes() {
        match change.tag() {
            ChangeTag::Insert => added += 1,
            ChangeTag::Delete => removed += 1,
            ChangeTag::Equal => {}
        }
    }
    let diff = d.unified_diff().context_radius(3).header(&header.0, &header.1).to_string();
    FileChange {
        file: name.to_string(),
        status: Status::Modified,
        diff,
        added_lines: added,
        removed_lines: removed,
        too_large: false,
    }
}
