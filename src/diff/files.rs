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
            }),
            (Some(a), None) => out.push(FileChange {
                file: name.clone(),
                status: Status::Removed,
                diff: String::new(),
                added_lines: 0,
                removed_lines: a.lines().count(),
            }),
            (None, None) => {}
        }
    }
    out
}

/// A file present on both sides with different text `a` (old) and `b` (new): its unified diff,
/// headed with each side's label, and its line counts.
fn modified(name: &str, a: &str, b: &str, old_label: &str, new_label: &str) -> FileChange {
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
    let diff = d
        .unified_diff()
        .context_radius(3)
        .header(&format!("{old_label}/{name}"), &format!("{new_label}/{name}"))
        .to_string();
    FileChange { file: name.to_string(), status: Status::Modified, diff, added_lines: added, removed_lines: removed }
}
