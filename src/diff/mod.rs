//! Comparing rendered output with what is committed: file-level unified diffs and token/byte
//! deltas per cell and section, for terminals, PR comments (markdown) and machines (JSON).

use std::collections::BTreeMap;

use serde::Serialize;
use similar::TextDiff;

use crate::output::snapshot::{CellSummary, Measured, Summary};

mod format;
mod html;
mod markdown;

pub use format::{render, Format};
pub use html::render as render_html;
pub use markdown::{
    render as render_markdown, DEFAULT_MAX_BYTES as DEFAULT_MARKDOWN_BYTES, MIN_MAX_BYTES as MIN_MARKDOWN_BYTES,
};

/// How a file differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
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
}

/// Tokens and bytes of one side of a delta.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Counts {
    /// Tokens, when known.
    pub tokens: Option<u64>,
    /// Bytes.
    pub bytes: u64,
}

impl From<&Measured> for Counts {
    fn from(m: &Measured) -> Self {
        Counts { tokens: None, bytes: m.bytes }
    }
}

impl From<&crate::measure::Measure> for Counts {
    fn from(m: &crate::measure::Measure) -> Self {
        Counts { tokens: Some(m.tokens), bytes: m.bytes }
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
}

impl DiffReport {
    /// Whether anything differs.
    pub fn drift(&self) -> bool {
        !self.files.is_empty()
    }
}

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
            (Some(a), Some(b)) => {
                let d = TextDiff::from_lines(a.as_str(), b.as_str());
                let mut added = 0;
                let mut removed = 0;
                for change in d.iter_all_changes() {
                    match change.tag() {
                        similar::ChangeTag::Insert => added += 1,
                        similar::ChangeTag::Delete => removed += 1,
                        similar::ChangeTag::Equal => {}
                    }
                }
                let diff = d
                    .unified_diff()
                    .context_radius(3)
                    .header(&format!("{old_label}/{name}"), &format!("{new_label}/{name}"))
                    .to_string();
                out.push(FileChange {
                    file: name.clone(),
                    status: Status::Modified,
                    diff,
                    added_lines: added,
                    removed_lines: removed,
                });
            }
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

/// Changed items between two summaries: account by account when both were counted (the
/// figures `report` gives, per cell and provider), else file by file with bytes only.
pub fn deltas(old: &Summary, new: &Summary) -> Vec<Delta> {
    let counted = |s: &Summary| s.cells.iter().any(|c| !c.accounts.is_empty());
    if counted(old) && counted(new) {
        account_deltas(old, new)
    } else {
        file_deltas(old, new)
    }
}

/// Names in `new`'s order, then those only in `old`.
fn union<'a>(new: impl Iterator<Item = &'a str>, old: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut out: Vec<&str> = new.collect();
    for n in old {
        if !out.contains(&n) {
            out.push(n);
        }
    }
    out
}

fn account_deltas(old: &Summary, new: &Summary) -> Vec<Delta> {
    use crate::output::snapshot::{AccountSummary, Item};
    let all = |s: &'_ Summary| -> Vec<AccountSummary> { s.cells.iter().flat_map(|c| c.accounts.clone()).collect() };
    let (old_accounts, new_accounts) = (all(old), all(new));
    let find = |list: &[AccountSummary], name: &str| list.iter().find(|a| a.name == name).cloned();
    let mut out = Vec::new();
    let names = union(new_accounts.iter().map(|a| a.name.as_str()), old_accounts.iter().map(|a| a.name.as_str()));
    for name in names {
        let (o, n) = (find(&old_accounts, name), find(&new_accounts, name));
        let mut push =
            |item: String, before: Option<crate::measure::Measure>, after: Option<crate::measure::Measure>| {
                if before != after {
                    out.push(Delta {
                        cell: name.to_string(),
                        item,
                        before: before.as_ref().map(Counts::from),
                        after: after.as_ref().map(Counts::from),
                    });
                }
            };
        push("prompt".into(), o.as_ref().map(|a| a.prompt), n.as_ref().map(|a| a.prompt));
        if o.as_ref().or(n.as_ref()).is_some_and(|a| a.provider.is_some()) {
            push("tools".into(), o.as_ref().map(|a| a.tools), n.as_ref().map(|a| a.tools));
        }
        push("messages".into(), o.as_ref().and_then(|a| a.messages), n.as_ref().and_then(|a| a.messages));
        let items = |a: &Option<AccountSummary>, f: fn(&AccountSummary) -> &Vec<Item>| -> Vec<Item> {
            a.as_ref().map(|a| f(a).clone()).unwrap_or_default()
        };
        for (kind, f) in [
            ("section", (|a: &AccountSummary| &a.sections) as fn(&AccountSummary) -> &Vec<Item>),
            ("tool", |a: &AccountSummary| &a.tool_items),
        ] {
            let (before, after) = (items(&o, f), items(&n, f));
            for id in union(after.iter().map(|i| i.name.as_str()), before.iter().map(|i| i.name.as_str())) {
                let b = before.iter().find(|i| i.name == id).map(|i| i.sent);
                let a = after.iter().find(|i| i.name == id).map(|i| i.sent);
                push(format!("{kind} {id}"), b, a);
            }
        }
    }
    out
}

fn file_deltas(old: &Summary, new: &Summary) -> Vec<Delta> {
    let old_cells: BTreeMap<&str, &CellSummary> = old.cells.iter().map(|c| (c.cell.as_str(), c)).collect();
    let new_cells: BTreeMap<&str, &CellSummary> = new.cells.iter().map(|c| (c.cell.as_str(), c)).collect();
    let order = union(new.cells.iter().map(|c| c.cell.as_str()), old.cells.iter().map(|c| c.cell.as_str()));
    let mut out = Vec::new();
    for cell in order {
        let (o, n) = (old_cells.get(cell), new_cells.get(cell));
        let mut push = |item: String, before: Option<&Measured>, after: Option<&Measured>| {
            if before.map(|m| &m.sha256) != after.map(|m| &m.sha256) {
                out.push(Delta {
                    cell: cell.to_string(),
                    item,
                    before: before.map(Counts::from),
                    after: after.map(Counts::from),
                });
            }
        };
        push("prompt".into(), o.map(|c| &c.prompt), n.map(|c| &c.prompt));
        let ids = union(
            n.map(|c| c.sections.iter().map(|s| s.name.as_str()).collect::<Vec<_>>()).unwrap_or_default().into_iter(),
            o.map(|c| c.sections.iter().map(|s| s.name.as_str()).collect::<Vec<_>>()).unwrap_or_default().into_iter(),
        );
        for id in ids {
            let before = o.and_then(|c| c.sections.iter().find(|s| s.name == id));
            let after = n.and_then(|c| c.sections.iter().find(|s| s.name == id));
            push(format!("section {id}"), before, after);
        }
        let mut providers: Vec<&String> = o.map(|c| c.tools.keys().collect()).unwrap_or_default();
        providers.extend(n.map(|c| c.tools.keys().collect::<Vec<_>>()).unwrap_or_default());
        providers.sort();
        providers.dedup();
        for p in providers {
            push(format!("tools {p}"), o.and_then(|c| c.tools.get(p)), n.and_then(|c| c.tools.get(p)));
        }
        push("messages".into(), o.and_then(|c| c.messages.as_ref()), n.and_then(|c| c.messages.as_ref()));
    }
    out
}

/// Compare the project's current matrix with its snapshot folder. Without drift this reads,
/// renders and compares only: no tokenizer is built. With drift, the new side's tokens are
/// counted for the deltas and the returned matrix is ready to be written (`--update`).
pub fn against_snapshots(
    project: &crate::model::Project,
    dir: &std::path::Path,
    counter: &mut crate::measure::tokens::Counters,
) -> crate::error::Result<(DiffReport, crate::output::snapshot::Matrix)> {
    use crate::output::snapshot::{owned_files, read_owned, Matrix, SUMMARY};
    // Read and parse the committed side on a second core while this one renders: the no-change
    // case then costs about one matrix render.
    let (rendered, read) = std::thread::scope(|scope| {
        let reader = scope.spawn(|| -> crate::error::Result<(BTreeMap<String, String>, Option<Summary>)> {
            let old = read_owned(dir, &owned_files)?;
            let summary = old.get(SUMMARY).and_then(|s| serde_json::from_str(s).ok());
            Ok((old, summary))
        });
        let rendered = Matrix::render(project);
        let read = reader.join().unwrap_or_else(|_| {
            Err(crate::diagnostic::Diagnostic::error("reading the snapshot folder failed")
                .into_error(crate::error::ErrorKind::Internal))
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
            DiffReport { old: label, new: "the project".into(), files: Vec::new(), deltas: Vec::new() },
            matrix,
        ));
    }
    matrix.count_tokens(project, counter)?;
    if let Some(t) = old_summary_text {
        old.insert(SUMMARY.to_string(), t);
    }
    let files = compare_files(&old, &matrix.all_files(), &label, "rendered");
    let deltas = old_summary.as_ref().map(|o| deltas(o, &matrix.summary)).unwrap_or_default();
    Ok((DiffReport { old: label, new: "the project".into(), files, deltas }, matrix))
}

/// A summary built from a frozen artifact folder's `metadata.json` (bytes and hashes; tokens
/// unknown), so two artifact folders can be compared section by section.
fn summary_from_artifact(files: &BTreeMap<String, String>) -> Option<Summary> {
    let meta: crate::output::artifact::Metadata = serde_json::from_str(files.get("metadata.json")?).ok()?;
    let cell =
        crate::resolve::matrix::cell_name(&meta.profile, None, meta.transport, meta.subagent.as_deref(), meta.provider);
    let prompt = files.get("prompt.md")?;
    let mut tools = BTreeMap::new();
    if let (Some(t), Some(p)) = (files.get("tools.json"), meta.provider) {
        tools.insert(
            p.as_str().to_string(),
            Measured {
                name: "tools.json".into(),
                bytes: t.len() as u64,
                sha256: crate::hash::sha256_hex(t.as_bytes()),
            },
        );
    }
    Some(Summary {
        format: crate::output::snapshot::SUMMARY_FORMAT,
        project: meta.project.clone(),
        contract_version: meta.contract_version,
        files: Vec::new(),
        cells: vec![CellSummary {
            cell,
            profile: meta.profile.clone(),
            case: None,
            transport: meta.transport,
            prompt: Measured {
                name: "prompt.md".into(),
                bytes: prompt.len() as u64,
                sha256: crate::hash::sha256_hex(prompt.as_bytes()),
            },
            sections: meta
                .sections
                .iter()
                .map(|s| Measured { name: s.id.clone(), bytes: s.bytes as u64, sha256: s.sha256.clone() })
                .collect(),
            tools,
            messages: files.get("messages.json").map(|m| Measured {
                name: "messages.json".into(),
                bytes: m.len() as u64,
                sha256: crate::hash::sha256_hex(m.as_bytes()),
            }),
            accounts: Vec::new(),
        }],
    })
}

/// Compare two folders: snapshot folders (deltas from their `summary.json`) or frozen
/// artifact folders (deltas from their `metadata.json`).
pub fn folders(a: &std::path::Path, b: &std::path::Path) -> crate::error::Result<DiffReport> {
    use crate::output::snapshot::{read_owned, SUMMARY};
    // A snapshot folder (summary.json) or an artifact folder (metadata.json): only the files
    // its manifest lists are read.
    let either = |dir: &std::path::Path| -> crate::error::Result<Option<std::collections::BTreeSet<String>>> {
        Ok(match crate::output::snapshot::owned_files(dir)? {
            Some(s) => Some(s),
            None => crate::output::artifact::owned_files(dir)?,
        })
    };
    for p in [a, b] {
        if !p.is_dir() {
            return Err(crate::diagnostic::Diagnostic::error(format!("`{}` is not a folder", p.display()))
                .with_help("two folders compare when both are snapshot folders or both are frozen artifact folders")
                .into_error(crate::error::ErrorKind::Usage));
        }
    }
    let (old, new) = (read_owned(a, &either)?, read_owned(b, &either)?);
    let files = compare_files(&old, &new, &a.display().to_string(), &b.display().to_string());
    let parse = |f: &BTreeMap<String, String>| {
        f.get(SUMMARY).and_then(|s| serde_json::from_str::<Summary>(s).ok()).or_else(|| summary_from_artifact(f))
    };
    let artifact = |f: &BTreeMap<String, String>| !f.contains_key(SUMMARY);
    let deltas = match (parse(&old), parse(&new)) {
        (Some(mut o), Some(mut n)) => {
            // Two artifacts are one prompt each, whatever their cells are called (another
            // profile, provider or transport): compare them as one cell named for both, not as a
            // cell removed and another added.
            if artifact(&old) && artifact(&new) {
                if let ([oc], [nc]) = (o.cells.as_mut_slice(), n.cells.as_mut_slice()) {
                    if oc.cell != nc.cell {
                        let both = format!("{} → {}", oc.cell, nc.cell);
                        (oc.cell, nc.cell) = (both.clone(), both);
                    }
                }
            }
            deltas(&o, &n)
        }
        _ => Vec::new(),
    };
    Ok(DiffReport { old: a.display().to_string(), new: b.display().to_string(), files, deltas })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
    }

    #[test]
    fn classifies_changes() {
        let old = files(&[("a", "1\n2\n"), ("b", "x\n"), ("gone", "g\n")]);
        let new = files(&[("a", "1\n3\n"), ("b", "x\n"), ("new", "n\nm\n")]);
        let c = compare_files(&old, &new, "old", "new");
        let summary: Vec<(&str, Status)> = c.iter().map(|f| (f.file.as_str(), f.status)).collect();
        assert_eq!(summary, [("a", Status::Modified), ("gone", Status::Removed), ("new", Status::Added)]);
        assert_eq!(c[0].diff, "--- old/a\n+++ new/a\n@@ -1,2 +1,2 @@\n 1\n-2\n+3\n");
        assert_eq!((c[0].added_lines, c[0].removed_lines), (1, 1));
    }

    #[test]
    fn deltas_report_only_changed_items() {
        use crate::measure::Measure;
        use crate::output::snapshot::SUMMARY_FORMAT;
        use crate::output::snapshot::{AccountSummary, Item};
        let m = |tokens: u64| Measure { tokens, bytes: tokens * 4 };
        let item = |name: &str, tokens: u64| Item { name: name.into(), sent: m(tokens) };
        let account = |sections: Vec<Item>, prompt: u64| AccountSummary {
            name: "s.native.openai".into(),
            provider: Some(crate::model::provider::Provider::OpenAiChat),
            tokenizer: "o200k_base".into(),
            prompt: m(prompt),
            tools: m(100),
            total: m(prompt + 100),
            billed: prompt + 120,
            cacheable: prompt,
            sections,
            tool_items: vec![item("read", 100)],
            messages: None,
        };
        let file = |name: &str, sha: &str| Measured { name: name.into(), bytes: 1, sha256: sha.into() };
        let sum = |a: AccountSummary| Summary {
            format: SUMMARY_FORMAT,
            project: "p".into(),
            contract_version: 1,
            cells: vec![CellSummary {
                cell: "s.native".into(),
                profile: "s".into(),
                case: None,
                transport: crate::model::transport::Transport::Native,
                prompt: file("s.native.prompt.md", "x"),
                sections: Vec::new(),
                tools: BTreeMap::new(),
                messages: None,
                accounts: vec![a],
            }],
            files: Vec::new(),
        };
        let old = sum(account(vec![item("a", 10), item("b", 5)], 15));
        let new = sum(account(vec![item("a", 12), item("b", 5), item("c", 1)], 18));
        let d = deltas(&old, &new);
        let items: Vec<(&str, &str, Option<i64>)> =
            d.iter().map(|d| (d.cell.as_str(), d.item.as_str(), d.tokens_delta())).collect();
        assert_eq!(
            items,
            [
                ("s.native.openai", "prompt", Some(3)),
                ("s.native.openai", "section a", Some(2)),
                ("s.native.openai", "section c", Some(1))
            ]
        );
    }
}
