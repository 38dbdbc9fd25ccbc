//! Two folders compared: snapshot folders (deltas from their `summary.json`) or frozen
//! artifact folders (deltas from their `metadata.json`).

use std::collections::BTreeMap;
use std::path::Path;

use crate::diagnostic::Diagnostic;
use crate::error::{ErrorKind, Result};
use crate::hash::sha256_hex;
use crate::output::artifact::Metadata;
use crate::output::snapshot::{read_owned, CellSummary, Fingerprint, Summary, SUMMARY, SUMMARY_FORMAT};
use crate::resolve::matrix::cell_name;

use super::{changes, compare_files, deltas, DiffReport};

/// A summary built from a frozen artifact folder's `metadata.json` (bytes and hashes; tokens
/// unknown), so two artifact folders can be compared section by section.
fn summary_from_artifact(files: &BTreeMap<String, String>) -> Option<Summary> {
    let meta: Metadata = serde_json::from_str(files.get("metadata.json")?).ok()?;
    let cell = cell_name(&meta.profile, None, meta.transport, meta.subagent.as_deref(), meta.provider);
    let prompt = files.get("prompt.md")?;
    let mut tools = BTreeMap::new();
    if let (Some(t), Some(p)) = (files.get("tools.json"), meta.provider) {
        tools.insert(
            p.as_str().to_string(),
            Fingerprint { name: "tools.json".into(), bytes: t.len() as u64, sha256: sha256_hex(t.as_bytes()) },
        );
    }
    Some(Summary {
        format: SUMMARY_FORMAT,
        project: meta.project.clone(),
        contract_version: meta.contract_version,
        files: Vec::new(),
        cells: vec![CellSummary {
            cell,
            profile: meta.profile.clone(),
            case: None,
            transport: meta.transport,
            prompt: Fingerprint {
                name: "prompt.md".into(),
                bytes: prompt.len() as u64,
                sha256: sha256_hex(prompt.as_bytes()),
            },
            sections: meta
                .sections
                .iter()
                .map(|s| Fingerprint { name: s.id.clone(), bytes: s.bytes as u64, sha256: s.sha256.clone() })
                .collect(),
            tools,
            chat: Default::default(),
            messages: files.get("messages.json").map(|m| Fingerprint {
                name: "messages.json".into(),
                bytes: m.len() as u64,
                sha256: sha256_hex(m.as_bytes()),
            }),
            accounts: Vec::new(),
        }],
    })
}

/// Compare two folders: snapshot folders (deltas from their `summary.json`) or frozen
/// artifact folders (deltas from their `metadata.json`).
pub fn folders(a: &Path, b: &Path) -> Result<DiffReport> {
    // A snapshot folder (summary.json) or an artifact folder (metadata.json): only the files
    // its manifest lists are read.
    let either = |dir: &Path| -> Result<Option<crate::source::folder::Manifest>> {
        Ok(match crate::output::snapshot::listed_files(dir)? {
            Some(s) => Some(s),
            None => crate::output::artifact::owned_files(dir)?,
        })
    };
    for p in [a, b] {
        if !p.is_dir() {
            return Err(Diagnostic::error(format!("`{}` is not a folder", p.display()))
                .with_help("two folders compare when both are snapshot folders or both are frozen artifact folders")
                .into_error(ErrorKind::Usage));
        }
    }
    // Pending snapshots (`NAME.new`, see `diff::review`) are no part of either side.
    let (old, _) = super::committed_only(read_owned(a, &either)?);
    let (new, _) = super::committed_only(read_owned(b, &either)?);
    let files = compare_files(&old, &new, &a.display().to_string(), &b.display().to_string());
    let parse = |f: &BTreeMap<String, String>| {
        f.get(SUMMARY).and_then(|s| serde_json::from_str::<Summary>(s).ok()).or_else(|| summary_from_artifact(f))
    };
    let artifact = |f: &BTreeMap<String, String>| !f.contains_key(SUMMARY);
    let accounts = super::accounts(parse(&old).as_ref(), parse(&new).as_ref());
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
    let changes = changes(&old, &new, &files, &deltas);
    Ok(DiffReport { old: a.display().to_string(), new: b.display().to_string(), files, deltas, changes, accounts })
}
