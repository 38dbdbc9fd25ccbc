//! A drift decided change by change: each change accepted (the committed files take it),
//! rejected (dropped) or skipped (left pending for the next review). The committed files and the
//! pending ones that follow are computed here, from the two sides' texts; the facade writes them
//! into the snapshot folder in one step.
//!
//! Pending snapshots are the new texts of the drifted files, as `NAME.new` beside each
//! committed file, and the new side's summary as `summary.json.new` (whose list of files names
//! the files the new side has). A file that the new side removes is pending while it is absent
//! from that list and has no `.new`; a rejected removal leaves its committed text as its `.new`.

use std::collections::BTreeMap;

use super::changes::{apply, Run};
use super::{Change, DiffReport, Status};
use crate::output::snapshot::{Summary, PENDING_SUFFIX, SUMMARY};

/// What a reviewer decided for one change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Decision {
    /// The committed files take the change.
    Accept,
    /// The change is dropped: the committed files keep their text and nothing stays pending.
    Reject,
    /// Decided later: the change stays pending.
    Skip,
}

/// The two sides of a review: the committed files and what the project renders (or what was left
/// pending), summaries included.
#[derive(Debug, Clone, Default)]
pub struct Sides {
    /// The committed files, `summary.json` included, pending files left out.
    pub committed: BTreeMap<String, String>,
    /// The new side's files, its `summary.json` included.
    pub new: BTreeMap<String, String>,
}

impl Sides {
    /// The sides of a snapshot folder's files (as read: committed and pending together) and the
    /// rendered matrix (`None`: the pending files are the new side). Without pending files and
    /// without a rendered matrix, both sides are the committed files.
    pub fn of(folder: BTreeMap<String, String>, rendered: Option<BTreeMap<String, String>>) -> Sides {
        let (committed, pending) = split_pending(folder);
        let new = match rendered {
            Some(r) => r,
            None => pending_side(&committed, &pending),
        };
        Sides { committed, new }
    }
}

/// A folder's files split into the committed ones and the pending ones (by the committed name).
pub fn split_pending(folder: BTreeMap<String, String>) -> (BTreeMap<String, String>, BTreeMap<String, String>) {
    let mut committed = BTreeMap::new();
    let mut pending = BTreeMap::new();
    for (name, text) in folder {
        match name.strip_suffix(PENDING_SUFFIX) {
            Some(base) if !base.is_empty() => pending.insert(base.to_string(), text),
            _ => committed.insert(name, text),
        };
    }
    (committed, pending)
}

/// A folder's committed files as they were before any pending file was written: the pending
/// files left out, and left out of the summary's list of files. Returns them and how many
/// pending files there were.
pub fn committed_only(folder: BTreeMap<String, String>) -> (BTreeMap<String, String>, usize) {
    let (mut committed, pending) = split_pending(folder);
    if !pending.is_empty() {
        let parsed = committed.get(SUMMARY).and_then(|s| serde_json::from_str::<Summary>(s).ok());
        if let Some(mut s) = parsed {
            s.files.retain(|f| !f.name.ends_with(PENDING_SUFFIX));
            committed.insert(SUMMARY.to_string(), s.to_json());
        }
    }
    (committed, pending.len())
}

/// The names a summary lists, with their hashes.
fn listed(summary: Option<&String>) -> Option<BTreeMap<String, String>> {
    let s: Summary = serde_json::from_str(summary?).ok()?;
    Some(s.files.into_iter().map(|f| (f.name, f.sha256)).collect())
}

/// The new side that pending files describe: every file the pending summary lists or that has a
/// `.new`, as pending or else as committed; the pending summary as `summary.json`. No pending
/// summary: nothing is pending, the new side is the committed one.
fn pending_side(committed: &BTreeMap<String, String>, pending: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    let Some(names) = listed(pending.get(SUMMARY)) else { return committed.clone() };
    let mut new = BTreeMap::new();
    for name in names.keys().chain(pending.keys()).filter(|n| *n != SUMMARY) {
        if let Some(text) = pending.get(name).or_else(|| committed.get(name)) {
            new.insert(name.clone(), text.clone());
        }
    }
    if let Some(s) = pending.get(SUMMARY) {
        new.insert(SUMMARY.to_string(), s.clone());
    }
    new
}

/// What a review leaves: the committed files and the pending ones (by committed name, the
/// pending summary as `summary.json`), to be written together.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Outcome {
    /// The committed files after the review (`summary.json` is the new side's once every file is
    /// as the new side has it, else the committed one).
    pub committed: BTreeMap<String, String>,
    /// What stays pending; empty when nothing does.
    pub pending: BTreeMap<String, String>,
    /// Changes accepted, rejected and skipped.
    pub accepted: usize,
    /// Changes rejected.
    pub rejected: usize,
    /// Changes skipped (still pending).
    pub skipped: usize,
}

impl Outcome {
    /// Every file of the snapshot folder: the committed ones, the pending ones as `NAME.new`, and
    /// the committed summary's list of files made to match them all (so promptc owns the pending
    /// files too, and may replace or remove them later).
    pub fn folder(&self) -> BTreeMap<String, String> {
        let mut files = self.committed.clone();
        for (name, text) in &self.pending {
            files.insert(format!("{name}{PENDING_SUFFIX}"), text.clone());
        }
        if let Some(listed) = crate::output::snapshot::relisted(&files) {
            files.insert(SUMMARY.to_string(), listed);
        }
        files
    }
}

/// Apply the decisions (`decide` is asked once per change of `report`, which compares `sides`).
pub fn outcome(sides: &Sides, report: &DiffReport, decide: impl Fn(&Change) -> Decision) -> Outcome {
    let decisions: Vec<Decision> = report.changes.iter().map(&decide).collect();
    let mut out = Outcome { committed: sides.committed.clone(), ..Outcome::default() };
    for d in &decisions {
        match d {
            Decision::Accept => out.accepted += 1,
            Decision::Reject => out.rejected += 1,
            Decision::Skip => out.skipped += 1,
        }
    }
    // The decision of each place: file → its runs and their decisions, or the whole file's.
    let mut runs: BTreeMap<&str, Vec<(&Run, Decision)>> = BTreeMap::new();
    let mut whole: BTreeMap<&str, Decision> = BTreeMap::new();
    for (c, d) in report.changes.iter().zip(&decisions) {
        for (f, r) in &c.places {
            match r {
                Some(r) => runs.entry(f.as_str()).or_default().push((r, *d)),
                None => {
                    whole.insert(f.as_str(), *d);
                }
            }
        }
    }
    let mut side: BTreeMap<String, String> = sides.new.clone();
    side.remove(SUMMARY);
    for f in report.files.iter().filter(|f| f.file != SUMMARY) {
        let (old, new) = (sides.committed.get(&f.file), sides.new.get(&f.file));
        match (f.status, old, new) {
            (Status::Modified, Some(old), Some(new)) if !f.too_large => {
                let of = runs.get(f.file.as_str()).map(Vec::as_slice).unwrap_or_default();
                let pick = |keep: fn(Decision) -> bool| -> Vec<Run> {
                    of.iter().filter(|(_, d)| keep(*d)).map(|(r, _)| (*r).clone()).collect()
                };
                let taken = apply(old, new, &pick(|d| d == Decision::Accept));
                let kept = apply(old, new, &pick(|d| d != Decision::Reject));
                out.committed.insert(f.file.clone(), taken);
                side.insert(f.file.clone(), kept);
            }
            _ => match (whole.get(f.file.as_str()).copied().unwrap_or(Decision::Skip), old, new) {
                (Decision::Accept, _, Some(new)) => {
                    out.committed.insert(f.file.clone(), new.clone());
                }
                (Decision::Accept, _, None) => {
                    out.committed.remove(&f.file);
                }
                (Decision::Reject, Some(old), _) => {
                    side.insert(f.file.clone(), old.clone());
                }
                (Decision::Reject, None, _) => {
                    side.remove(&f.file);
                }
                _ => {}
            },
        }
    }
    let listed = listed(sides.new.get(SUMMARY)).unwrap_or_default();
    let files_now: BTreeMap<String, String> = out
        .committed
        .iter()
        .filter(|(n, _)| *n != SUMMARY)
        .map(|(n, t)| (n.clone(), crate::hash::sha256_hex(t.as_bytes())))
        .collect();
    if !listed.is_empty() && files_now == listed {
        // Every file as the new side has it: its summary describes them.
        if let Some(s) = sides.new.get(SUMMARY) {
            out.committed.insert(SUMMARY.to_string(), s.clone());
        }
        return out;
    }
    for (name, text) in side {
        let same = out.committed.get(&name) == Some(&text);
        if !same || !listed.contains_key(&name) {
            out.pending.insert(name, text);
        }
    }
    // Removals still pending: committed files the new side neither lists nor keeps.
    let removals =
        out.committed.keys().any(|n| n != SUMMARY && !listed.contains_key(n) && !out.pending.contains_key(n));
    let changes_left = out.pending.iter().any(|(n, t)| out.committed.get(n) != Some(t));
    if !changes_left && !removals {
        out.pending.clear();
    } else if let Some(s) = sides.new.get(SUMMARY) {
        out.pending.insert(SUMMARY.to_string(), s.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(files: &[(&str, &str)]) -> String {
        let listed: Vec<serde_json::Value> = files
            .iter()
            .map(|(n, t)| serde_json::json!({"name": n, "bytes": t.len(), "sha256": crate::hash::sha256_hex(t.as_bytes())}))
            .collect();
        serde_json::json!({"format": crate::output::snapshot::SUMMARY_FORMAT, "project": "p", "contract_version": 1,
            "cells": [], "files": listed})
        .to_string()
    }

    fn map(files: &[(&str, &str)]) -> BTreeMap<String, String> {
        files.iter().map(|(n, t)| (n.to_string(), t.to_string())).collect()
    }

    /// Committed `a` (two lines changed), `gone` (removed), no `added`; the new side changes
    /// both lines of `a`, removes `gone`, adds `added`.
    fn sides() -> Sides {
        let new_files = [("a.md", "A\nb\nc\nD\n"), ("added.md", "new\n")];
        let mut committed = map(&[("a.md", "a\nb\nc\nd\n"), ("gone.md", "old\n")]);
        committed.insert(SUMMARY.into(), summary(&[("a.md", "a\nb\nc\nd\n"), ("gone.md", "old\n")]));
        let mut new = map(&new_files);
        new.insert(SUMMARY.into(), summary(&new_files));
        Sides { committed, new }
    }

    fn report(s: &Sides) -> DiffReport {
        super::super::compare(&s.committed, &s.new, ("old", "new"), "new")
    }

    #[test]
    fn accepting_everything_takes_the_new_summary_and_leaves_nothing_pending() {
        let s = sides();
        let r = report(&s);
        assert_eq!(r.changes.len(), 4, "{:#?}", r.changes);
        let o = outcome(&s, &r, |_| Decision::Accept);
        assert_eq!(o.committed, s.new);
        assert!(o.pending.is_empty());
    }

    #[test]
    fn each_decision_does_what_it_says() {
        let s = sides();
        let r = report(&s);
        let decide = |c: &Change| match c.title().as_str() {
            t if t.starts_with("lines in a.md") && c.diff.contains("+A") => Decision::Accept,
            t if t.starts_with("lines in a.md") => Decision::Skip,
            "file gone.md, no longer rendered" => Decision::Reject,
            "file added.md, new" => Decision::Skip,
            other => panic!("{other}"),
        };
        let o = outcome(&s, &r, decide);
        assert_eq!(o.committed["a.md"], "A\nb\nc\nd\n", "only the accepted line");
        assert_eq!(o.committed["gone.md"], "old\n");
        assert_eq!(o.committed[SUMMARY], s.committed[SUMMARY], "not every file is new: the old summary stays");
        assert_eq!(o.pending["a.md"], "A\nb\nc\nD\n");
        assert_eq!(o.pending["added.md"], "new\n");
        assert_eq!(o.pending["gone.md"], "old\n", "the rejected removal is kept as committed");
        assert_eq!(o.pending[SUMMARY], s.new[SUMMARY]);
        assert_eq!((o.accepted, o.rejected, o.skipped), (1, 1, 2));

        // Read back: the pending side shows the skipped changes only.
        let folder = o.folder();
        assert!(folder.contains_key("a.md.new") && folder.contains_key("summary.json.new"));
        let again = Sides::of(folder, None);
        let r = report(&again);
        let titles: Vec<String> = r.changes.iter().map(|c| c.title()).collect();
        assert_eq!(titles, ["lines in a.md", "file added.md, new"]);
        // Accepting them makes the folder the new side, nothing pending.
        let o = outcome(&again, &r, |_| Decision::Accept);
        assert!(o.pending.is_empty(), "{:?}", o.pending);
        assert_eq!(o.committed["a.md"], "A\nb\nc\nD\n");
        assert_eq!(o.committed.get("gone.md").map(String::as_str), Some("old\n"), "its removal was rejected");
    }

    #[test]
    fn rejecting_everything_leaves_nothing_pending() {
        let s = sides();
        let o = outcome(&s, &report(&s), |_| Decision::Reject);
        assert!(o.pending.is_empty(), "{:?}", o.pending);
        assert_eq!(o.committed, s.committed);
    }
}
