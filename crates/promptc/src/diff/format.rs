//! How a comparison is printed: unified diffs and a delta table for terminals, a PR comment in
//! markdown, JSON for machines.

use std::fmt::Write as _;

use super::{Change, Counts, DiffReport, Status};

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// Unified diffs and a delta table for terminals.
    Text,
    /// A PR comment: a summary, identical hunks once, within a byte cap (see
    /// [`render_markdown`](crate::snapshot::render_markdown)).
    Markdown,
    /// Machines.
    Json,
}

fn signed(n: i64) -> String {
    if n > 0 {
        format!("+{n}")
    } else {
        n.to_string()
    }
}

fn side(c: Option<Counts>, f: impl Fn(Counts) -> Option<u64>) -> String {
    c.and_then(f).map_or("–".into(), |n| n.to_string())
}

fn delta_rows(r: &DiffReport) -> Vec<Vec<String>> {
    r.deltas
        .iter()
        .map(|d| {
            vec![
                d.cell.clone(),
                d.item.clone(),
                side(d.before, |c| c.tokens),
                side(d.after, |c| c.tokens),
                d.tokens_delta().map_or("?".into(), signed),
                side(d.before, |c| Some(c.bytes)),
                side(d.after, |c| Some(c.bytes)),
                signed(d.bytes_delta()),
            ]
        })
        .collect()
}

const DELTA_HEADER: [&str; 8] =
    ["cell", "item", "tokens before", "tokens after", "Δ tokens", "bytes before", "bytes after", "Δ bytes"];

/// The one-line verdict, with the two sides' labels written by `label` (as they are for a
/// terminal; escaped for markdown).
pub(super) fn headline(r: &DiffReport, label: impl Fn(&str) -> String) -> String {
    let (old, new) = (label(&r.old), label(&r.new));
    if !r.drift() {
        return format!("no drift: {new} matches {old}");
    }
    let count = |s: Status| r.files.iter().filter(|f| f.status == s).count();
    format!(
        "drift: {} modified, {} missing from {}, {} no longer rendered",
        count(Status::Modified),
        count(Status::Added),
        old,
        count(Status::Removed)
    )
}

fn colorize(diff: &str) -> String {
    diff.lines()
        .map(|l| {
            let code = if l.starts_with("+++") || l.starts_with("---") {
                "1"
            } else if l.starts_with('+') {
                "32"
            } else if l.starts_with('-') {
                "31"
            } else if l.starts_with("@@") {
                "36"
            } else {
                return format!("{l}\n");
            };
            format!("\x1b[{code}m{l}\x1b[0m\n")
        })
        .collect()
}

/// Each change as the user made it, on a line: what it is, the cells it reaches and its own
/// token change (`tool read_file: parameter encoding added · standard.* · Δ tokens +21`).
fn change_lines(r: &DiffReport) -> String {
    let changes: Vec<&Change> = r.changes.iter().filter(|c| !c.is_file()).collect();
    if changes.is_empty() {
        return String::new();
    }
    let mut out = String::from("\nchanges:\n");
    let same = |s: &str| s.to_string();
    for c in changes {
        let (reached, universe) = super::markdown::reached(r, &[c]);
        let reach = super::markdown::reach_in(&reached, &universe, (same, same));
        let tokens = super::markdown::folded(&super::markdown::own_tokens(&[c]));
        let _ = writeln!(out, "  {} · {reach} · Δ tokens {tokens}", c.title());
    }
    out
}

/// Render a comparison.
pub fn render(r: &DiffReport, format: Format, color: bool) -> String {
    match format {
        Format::Json => crate::json::document(
            serde_json::json!({"drift": r.drift(), "old": r.old, "new": r.new, "files": r.files, "deltas": r.deltas,
                "changes": r.changes}),
        ),
        Format::Text => {
            let mut out = format!("{}\n", headline(r, str::to_string));
            out.push_str(&change_lines(r));
            for f in &r.files {
                match f.status {
                    // The summary's changes are the delta table below; its raw diff is noise.
                    Status::Modified if f.file == crate::output::snapshot::SUMMARY => {
                        let _ = writeln!(out, "\nmodified: {} (token and byte deltas in the table below)", f.file);
                    }
                    Status::Modified => {
                        out.push('\n');
                        out.push_str(&if color { colorize(&f.diff) } else { f.diff.clone() });
                    }
                    Status::Added => {
                        let _ = writeln!(out, "\nmissing from {}: {} ({} lines)", r.old, f.file, f.added_lines);
                    }
                    Status::Removed => {
                        let _ = writeln!(out, "\nno longer rendered: {} ({} lines)", f.file, f.removed_lines);
                    }
                }
            }
            if !r.deltas.is_empty() {
                let t = crate::output::table::table(&DELTA_HEADER, &delta_rows(r), &[2, 3, 4, 5, 6, 7]);
                let _ = write!(out, "\n{t}\n");
            }
            out
        }
        Format::Markdown => super::markdown::render(r, super::markdown::DEFAULT_MAX_BYTES),
    }
}
