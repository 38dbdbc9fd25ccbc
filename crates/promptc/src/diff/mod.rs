//! Comparing rendered output with what is committed: file-level unified diffs and token/byte
//! deltas per cell and section, for terminals, PR comments (markdown) and machines (JSON).

use serde::Serialize;

use crate::measure::Measure;
use crate::output::snapshot::Fingerprint;

mod changes;
mod deltas;
mod files;
mod folders;
mod format;
mod html;
mod markdown;
mod review;
mod snapshots;

pub use changes::{changes, Change, Kind as ChangeKind};
pub use deltas::deltas;
pub use files::{compare_files, too_large_note, MAX_DIFF_LINES};
pub use folders::folders;
pub use format::{render, Format};
pub use html::render as render_html;
pub use markdown::{
    render as render_markdown, DEFAULT_MAX_BYTES as DEFAULT_MARKDOWN_BYTES, MIN_MAX_BYTES as MIN_MARKDOWN_BYTES,
};
pub use review::{committed_only, outcome, split_pending, Decision, Sides};
pub use snapshots::{against_snapshots, compare};

/// How a file differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Status {
    /// Present on both sides with different text.
    Modified,
    /// Only on the new side (missing from the old folder).
    Added,
    /// Only on the old side (no longer produced).
    Removed,
}

/// One differing file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct FileChange {
    /// File name.
    pub file: String,
    /// How it differs.
    pub status: Status,
    /// Unified diff (modified files only).
    pub diff: String,
    /// Lines added and removed.
    pub added_lines: usize,
    /// Lines added and removed.
    pub removed_lines: usize,
    /// The changed region spans more than [`MAX_DIFF_LINES`] lines: `diff` holds the header and
    /// a note instead of hunks, and the line counts are every line of that region.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub too_large: bool,
}

/// Tokens and bytes of one side of a delta: a [`Measure`] whose tokens are unknown for files
/// promptc did not count.
pub type Counts = Measure<Option<u64>>;

impl From<&Fingerprint> for Counts {
    fn from(m: &Fingerprint) -> Self {
        Measure { tokens: None, bytes: m.bytes }
    }
}

impl From<&Measure> for Counts {
    fn from(m: &Measure) -> Self {
        Counts::from(*m)
    }
}

/// A changed item of a cell: the prompt, a section or a tools file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Delta {
    /// Cell stem.
    pub cell: String,
    /// `prompt`, `section rules`, `tools openai`.
    pub item: String,
    /// Before (absent when added).
    pub before: Option<Counts>,
    /// After (absent when removed).
    pub after: Option<Counts>,
}

impl Delta {
    /// Token change, when both sides are known.
    pub fn tokens_delta(&self) -> Option<i64> {
        let b = self.before.map_or(Some(0), |c| c.tokens)?;
        let a = self.after.map_or(Some(0), |c| c.tokens)?;
        Some(a as i64 - b as i64)
    }

    /// Byte change.
    pub fn bytes_delta(&self) -> i64 {
        self.after.map_or(0, |c| c.bytes as i64) - self.before.map_or(0, |c| c.bytes as i64)
    }
}

/// The result of a comparison.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct DiffReport {
    /// What the old side is (`snapshots`, a folder).
    pub old: String,
    /// What the new side is.
    pub new: String,
    /// Differing files, sorted by name.
    pub files: Vec<FileChange>,
    /// Changed items with their token and byte deltas.
    pub deltas: Vec<Delta>,
    /// The files' line changes grouped into named changes (tool texts, sections, lines).
    #[serde(skip)]
    pub changes: Vec<Change>,
    /// Every account (cell and provider) of either side, the new side's first, with the items it
    /// has on either side (`tool read_file`): what a change's reach is said against ("every cell of `standard`
    /// that has the tool").
    #[serde(skip)]
    pub accounts: Vec<(String, Vec<String>)>,
}

/// Every account of either side's summary (a cell and provider; a cell without providers is its
/// own), the new side's in its order first, with the items it has on either side (`section
/// rules`, `tool read_file`): a tool removed from a cell is still one it could reach.
fn accounts(
    old: Option<&crate::output::snapshot::Summary>,
    new: Option<&crate::output::snapshot::Summary>,
) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = new.map(accounts_of).unwrap_or_default();
    for (name, items) in old.map(accounts_of).unwrap_or_default() {
        match out.iter_mut().find(|(n, _)| *n == name) {
            Some((_, have)) => {
                for i in items {
                    if !have.contains(&i) {
                        have.push(i);
                    }
                }
            }
            None => out.push((name, items)),
        }
    }
    out
}

fn accounts_of(s: &crate::output::snapshot::Summary) -> Vec<(String, Vec<String>)> {
    s.cells
        .iter()
        .flat_map(|c| {
            if c.accounts.is_empty() {
                vec![(c.cell.clone(), c.sections.iter().map(|x| format!("section {}", x.name)).collect())]
            } else {
                c.accounts
                    .iter()
                    .map(|a| {
                        let sections = a.sections.iter().map(|x| format!("section {}", x.name));
                        (
                            a.name.clone(),
                            sections
                                .chain(a.tool_items.iter().map(|x| format!("tool {}", x.name)))
                                .chain(a.message_items.iter().map(|x| format!("message {}", x.name)))
                                .collect(),
                        )
                    })
                    .collect()
            }
        })
        .collect()
}

impl DiffReport {
    /// Whether anything differs.
    pub fn drift(&self) -> bool {
        !self.files.is_empty()
    }

    /// A change's own token change in the accounts it reaches, folded across providers: `+1`,
    /// or `+1 (anthropic +2)`; `–` when the summaries hold no figure for what it changes.
    pub fn change_tokens(&self, c: &Change) -> String {
        let values: Vec<(&str, Option<i64>)> = c.deltas.iter().map(|d| (d.cell.as_str(), d.tokens_delta())).collect();
        markdown::folded(&values)
    }
}

#[cfg(test)]
mod tests;
