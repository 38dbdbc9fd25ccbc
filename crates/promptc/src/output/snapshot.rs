//! The snapshot matrix: every profile × case × transport (× provider for native tools)
//! rendered to named files, with a machine-readable summary, written under `snapshots/`.
//!
//! Long because the snapshot folder and its summary are written together (the summary's types
//! and figures beside the files they describe); its tests live in their own file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::compile::Compiled;
use crate::diagnostic::Diagnostic;
use crate::error::{Error, Result};
use crate::hash::sha256_hex;
use crate::json::to_pretty_json;
use crate::measure::account::Account;
use crate::measure::tokens::Counters;
use crate::measure::Measure;
use crate::model::provider::Provider;
use crate::model::transport::Transport;
use crate::model::Project;
use crate::projection::{self, ProjectionOptions};
use crate::render::command;
use crate::resolve::matrix::Cell;
use crate::resolve::resolve_matrix_cell;
use crate::source::folder::Manifest;
use crate::source::pin::Pinned;

/// The summary file's name.
pub const SUMMARY: &str = "summary.json";

/// The suffix of a pending snapshot file: the new text of `NAME` waiting for a review is
/// `NAME.new` in the same folder (`summary.json.new`: the new side's summary), listed in the
/// folder's summary like every file promptc writes there.
pub const PENDING_SUFFIX: &str = ".new";

/// Version of the summary format (2: the summary lists the files promptc wrote; 3: token
/// counts are per provider account, of what is sent; 4: it lists them with their hashes, and
/// only a summary of the current format makes a folder promptc's).
pub const SUMMARY_FORMAT: u32 = 4;

/// Size and hash of one file or section: what the summary records to tell whether it changed
/// (not a measure: its tokens are in the accounts).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fingerprint {
    /// File name or section id.
    pub name: String,
    /// UTF-8 bytes.
    pub bytes: u64,
    /// SHA-256 of the text.
    pub sha256: String,
}

/// Tokens and bytes of one named item of an account.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Item {
    /// Section id or tool name.
    pub name: String,
    /// What is sent.
    #[serde(flatten)]
    pub sent: Measure,
}

/// Tokens and bytes of one tool of an account, and of the parts of it a diff credits to a change
/// of that part alone (an edit of its description, a parameter added).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolSummary {
    /// Tool name.
    pub name: String,
    /// What is sent for it.
    #[serde(flatten)]
    pub sent: Measure,
    /// Its description's part (absent from summaries written before it was kept: unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<Measure>,
    /// Each parameter's part, in order (absent from summaries written before they were kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Vec<Item>>,
}

/// An account in the summary: the figures `report` gives for the same cell and provider.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccountSummary {
    /// The cell and provider: `standard.native.openai`.
    pub name: String,
    /// Provider (native cells).
    pub provider: Option<Provider>,
    /// How tokens were counted.
    pub tokenizer: String,
    /// The prompt as sent.
    pub prompt: Measure,
    /// The tools JSON as sent (compact; the snapshot file is pretty for review).
    pub tools: Measure,
    /// Prompt plus tools.
    pub total: Measure,
    /// What the provider bills, estimated.
    pub billed: u64,
    /// Tokens prompt caching can reuse.
    pub cacheable: u64,
    /// Each section as sent.
    pub sections: Vec<Item>,
    /// Each tool as sent (native: its JSON entry; xml and json: its part of the prompt).
    pub tool_items: Vec<ToolSummary>,
    /// The harness messages as sent, all together (absent when the profile has none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<crate::measure::Measure>,
    /// Each harness message as sent, named by its place (`1`, `2`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub message_items: Vec<Item>,
}

impl From<&Account> for AccountSummary {
    fn from(a: &Account) -> Self {
        AccountSummary {
            name: a.name.clone(),
            provider: a.provider,
            tokenizer: a.tokenizer.name.clone(),
            prompt: a.prompt,
            tools: a.tools_sent,
            total: a.total,
            billed: a.billed.total,
            cacheable: a.cache.cacheable,
            sections: a.sections.iter().map(|s| Item { name: s.id.clone(), sent: s.sent }).collect(),
            tool_items: a
                .tools
                .iter()
                .map(|t| ToolSummary {
                    name: t.name.clone(),
                    sent: t.sent,
                    description: t.description,
                    params: Some(t.params.iter().map(|p| Item { name: p.name.clone(), sent: p.sent }).collect()),
                })
                .collect(),
            messages: (!a.messages.is_empty())
                .then(|| a.messages.iter().fold(crate::measure::Measure::default(), |t, m| t.plus(m.sent))),
            message_items: a
                .messages
                .iter()
                .enumerate()
                .map(|(i, m)| Item { name: (i + 1).to_string(), sent: m.sent })
                .collect(),
        }
    }
}

/// The summary of one cell.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CellSummary {
    /// File-name stem.
    pub cell: String,
    /// Profile.
    pub profile: String,
    /// Case, if any.
    pub case: Option<String>,
    /// Transport.
    pub transport: Transport,
    /// The prompt file.
    pub prompt: Fingerprint,
    /// Sections in prompt order.
    pub sections: Vec<Fingerprint>,
    /// Tools files by provider (native only).
    pub tools: BTreeMap<String, Fingerprint>,
    /// The harness messages file, when the profile declares messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<Fingerprint>,
    /// The cell through each of the project's chat templates that covers its profile (native
    /// cells), by template name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub chat: BTreeMap<String, Fingerprint>,
    /// The cell's accounts: one per provider (native), one for xml and json.
    #[serde(default)]
    pub accounts: Vec<AccountSummary>,
}

/// `summary.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// Summary format version.
    pub format: u32,
    /// Project name.
    pub project: String,
    /// Contract version.
    pub contract_version: u64,
    /// Every cell.
    pub cells: Vec<CellSummary>,
    /// Every other file promptc wrote in the folder, with its size and hash: what it may replace
    /// or remove while its bytes still match (anything else in the folder is the user's, never
    /// read or touched).
    #[serde(default)]
    pub files: Vec<Fingerprint>,
}

impl Summary {
    /// The summary without its accounts: what can be compared without a tokenizer.
    pub fn without_tokens(&self) -> Summary {
        let mut s = self.clone();
        for c in &mut s.cells {
            c.accounts.clear();
        }
        s
    }

    /// The summary as written: pretty JSON with a trailing newline.
    pub fn to_json(&self) -> String {
        to_pretty_json(&serde_json::to_value(self).unwrap_or_default())
    }
}

/// The rendered matrix: every file's contents by name, the summary, and the compiled cells.
#[derive(Debug, Clone)]
pub struct Matrix {
    /// Prompt and tools files by name (the summary is separate).
    pub files: BTreeMap<String, String>,
    /// The summary (accounts filled by [`Matrix::count_tokens`]).
    pub summary: Summary,
    /// Every cell, compiled.
    compiled: Vec<Compiled>,
}

fn fingerprint(name: &str, text: &str) -> Fingerprint {
    Fingerprint { name: name.to_string(), bytes: text.len() as u64, sha256: sha256_hex(text.as_bytes()) }
}

/// One cell's files and summary.
fn cell_output(
    project: &Project,
    cell: &Cell,
    c: &Compiled,
    budget: &crate::compile::RunBudget,
) -> Result<(Vec<(String, String)>, CellSummary)> {
    let stem = cell.stem();
    let prompt_name = format!("{stem}.prompt.md");
    let mut files = Vec::new();
    let mut tools = BTreeMap::new();
    if cell.transport == Transport::Native {
        for provider in &project.providers {
            let name = format!("{stem}.{provider}.tools.json");
            let opts = ProjectionOptions::of(project);
            let json = to_pretty_json(&projection::project(*provider, &c.tools, opts));
            tools.insert(provider.as_str().to_string(), fingerprint(&name, &json));
            files.push((name, json));
        }
    }
    let summary = CellSummary {
        cell: stem.clone(),
        profile: cell.profile.clone(),
        case: cell.case.clone(),
        transport: cell.transport,
        prompt: fingerprint(&prompt_name, &c.prompt),
        sections: c.sections.iter().map(|s| fingerprint(&s.id, &s.text)).collect(),
        tools,
        messages: None,
        chat: BTreeMap::new(),
        accounts: Vec::new(),
    };
    let mut summary = summary;
    // One file per cell, whatever the provider: the messages in the common shape (content a
    // string or `text` blocks). Each provider's own shape is a projection of it (`render`).
    if !c.messages.is_empty() {
        let m = crate::projection::messages::messages(None, &c.messages);
        let name = format!("{stem}.messages.json");
        let json = to_pretty_json(&m);
        summary.messages = Some(fingerprint(&name, &json));
        files.push((name, json));
    }
    for (template, chat) in crate::chat::project_texts_within(project, c, Some(budget))? {
        let text = chat.text;
        let name = format!("{stem}.chat-{template}.txt");
        summary.chat.insert(template, fingerprint(&name, &text));
        files.push((name, text));
    }
    files.push((prompt_name, c.prompt.clone()));
    Ok((files, summary))
}

impl Matrix {
    /// Render every cell (spread over the machine's cores: cells are independent).
    pub fn render(project: &Project) -> Result<Matrix> {
        let compiled = crate::compile::compile_matrix(project)?;
        let mut files = BTreeMap::new();
        for (name, text) in commands(project)? {
            files.insert(name, text);
        }
        let mut cells_out = Vec::new();
        // The run's cap counts the chat texts too (the prompts were charged as they compiled).
        let budget = crate::compile::RunBudget::new(project)?;
        for c in &compiled {
            budget.charge(c)?;
            let (f, summary) = cell_output(project, &c.cell(), c, &budget)?;
            files.extend(f);
            cells_out.push(summary);
        }
        let summary = Summary {
            format: SUMMARY_FORMAT,
            project: project.name.clone(),
            contract_version: project.contract_version,
            cells: cells_out,
            files: files.iter().map(|(name, text)| fingerprint(name, text)).collect(),
        };
        Ok(Matrix { files, summary, compiled })
    }

    /// Count every account of the matrix into the summary (the figures `report --matrix`
    /// gives for the same cells).
    pub fn count_tokens(&mut self, project: &Project, counters: &mut Counters) -> Result<Vec<Account>> {
        let (accounts, _) = crate::measure::account::accounts(project, &self.compiled, None, None, counters)?;
        for cell in &mut self.summary.cells {
            cell.accounts = accounts.iter().filter(|a| a.cell == cell.cell).map(AccountSummary::from).collect();
        }
        Ok(accounts)
    }

    /// Every file of the snapshot folder, summary included (tokens must have been counted).
    pub fn all_files(&self) -> BTreeMap<String, String> {
        let mut f = self.files.clone();
        f.insert(SUMMARY.to_string(), self.summary.to_json());
        f
    }
}

/// Every command's text per profile (`standard.command-deep-planning.md`), rendered with the
/// profile's defaults and the project's default transport.
fn commands(project: &Project) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    if project.commands.is_empty() {
        return Ok(out);
    }
    for profile in project.profiles.keys() {
        let cell = Cell { profile: profile.clone(), case: None, transport: project.defaults.transport, subagent: None };
        let c = resolve_matrix_cell(project, &cell)?;
        for name in project.commands.keys() {
            out.push((format!("{profile}.command-{name}.md"), command::render(project, &c, name)?));
        }
    }
    Ok(out)
}

/// Whether a manifest may name `name`: a plain, visible file name of the folder itself.
pub(crate) fn plain_name(name: &str) -> bool {
    !name.is_empty() && !name.starts_with('.') && !name.contains(['/', '\\', '\0']) && name != ".."
}

/// The folder's `summary.json` as JSON; `None` if it has none, or one that is not JSON.
fn summary_json(dir: &Path) -> Result<Option<serde_json::Value>> {
    Ok(summary_bytes(dir)?.and_then(|bytes| serde_json::from_slice(&bytes).ok()))
}

/// The bytes of the folder's `summary.json`; `None` if it has none.
fn summary_bytes(dir: &Path) -> Result<Option<Vec<u8>>> {
    let path = dir.join(SUMMARY);
    match crate::source::read_regular(&path, crate::source::MAX_OUTPUT_BYTES) {
        Ok(b) => Ok(Some(b)),
        Err(crate::source::ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e.into_error(&path)),
    }
}

/// The files promptc wrote in snapshot folder `dir` with their hashes, from its `summary.json`;
/// `None` if the folder has no summary of promptc's current format (an older summary, which
/// listed no hashes, or a malformed one, is not promptc's). Nothing else in the folder is read.
pub fn owned_files(dir: &Path) -> Result<Option<Manifest>> {
    /// A key that is there, whatever its value (`null` too); read without building it.
    #[derive(Default)]
    struct Present(bool);
    impl<'de> Deserialize<'de> for Present {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Present, D::Error> {
            serde::de::IgnoredAny::deserialize(d).map(|_| Present(true))
        }
    }
    /// What the listing needs of a summary: its cells and accounts (most of its bytes) are
    /// passed over, never built.
    #[derive(Deserialize)]
    struct Listing {
        format: Option<serde_json::Value>,
        #[serde(default)]
        cells: Present,
        files: Option<Vec<Fingerprint>>,
    }
    let Some(bytes) = summary_bytes(dir)? else { return Ok(None) };
    let Ok(v) = serde_json::from_slice::<Listing>(&bytes) else { return Ok(None) };
    if v.format.as_ref().and_then(|f| f.as_u64()) != Some(u64::from(SUMMARY_FORMAT)) || !v.cells.0 {
        return Ok(None);
    }
    let Some(listed) = v.files else {
        return Ok(None);
    };
    let mut files = BTreeMap::new();
    for f in listed {
        if !plain_name(&f.name) || f.name == SUMMARY || !crate::hash::is_sha256(&f.sha256) {
            return Ok(None);
        }
        files.insert(f.name, f.sha256);
    }
    Ok(Some(Manifest { name: SUMMARY.to_string(), files }))
}

/// The files an older summary (formats 1–3, which listed files without hashes) names, with
/// the hashes its cells recorded for them (prompts, tools, messages); a file it lists with no
/// recorded hash (a command's text) has an empty one. `None` without such a summary. What it says
/// is read to compare a folder (`diff`) and, when the user asks (`snapshot --adopt`), to take
/// over the files still as it recorded them — never to write on its own say-so.
pub fn older_manifest(dir: &Path) -> Result<Option<Manifest>> {
    let Some(v) = summary_json(dir)? else { return Ok(None) };
    let older = v.get("format").and_then(|f| f.as_u64()).is_some_and(|f| (1..u64::from(SUMMARY_FORMAT)).contains(&f));
    let Some(listed) = v.get("files").and_then(|f| f.as_array()).filter(|_| older) else { return Ok(None) };
    let listed: BTreeSet<&str> =
        listed.iter().filter_map(|n| n.as_str()).filter(|n| plain_name(n) && *n != SUMMARY).collect();
    let mut files = BTreeMap::new();
    recorded_hashes(v.get("cells").unwrap_or(&serde_json::Value::Null), &listed, &mut files);
    // Listed without a recorded hash: read to compare, never taken over.
    for name in listed {
        files.entry(name.to_string()).or_default();
    }
    Ok(Some(Manifest { name: SUMMARY.to_string(), files }))
}

/// Every `{name, sha256}` under `v` whose name is one of `listed`.
fn recorded_hashes(v: &serde_json::Value, listed: &BTreeSet<&str>, out: &mut BTreeMap<String, String>) {
    match v {
        serde_json::Value::Object(m) => {
            let name = m.get("name").and_then(|n| n.as_str()).filter(|n| listed.contains(n));
            let sha = m.get("sha256").and_then(|h| h.as_str()).filter(|h| crate::hash::is_sha256(h));
            if let (Some(name), Some(sha)) = (name, sha) {
                out.insert(name.to_string(), sha.to_string());
            }
            m.values().for_each(|x| recorded_hashes(x, listed, out));
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| recorded_hashes(x, listed, out)),
        _ => {}
    }
}

/// The files a snapshot folder lists, to read them: its summary's, of the current format or
/// an older one (see [`older_manifest`]).
pub fn listed_files(dir: &Path) -> Result<Option<Manifest>> {
    match owned_files(dir)? {
        Some(m) => Ok(Some(m)),
        None => older_manifest(dir),
    }
}

/// Take over a snapshot folder an older promptc wrote: its `summary.json` is rewritten in the
/// current format, listing the files whose bytes are still what the older summary recorded
/// (the rest stay the user's, and a later write refuses to touch them). Returns the files
/// taken over; nothing is done to a folder of the current format or without an older summary.
pub fn adopt_older(dir: &Path) -> Result<Vec<String>> {
    // The folder itself held open, never through a link: its summary is rewritten in place.
    let held = crate::source::pin::hold(dir).map_err(|e| Error::io("open", dir, &e))?;
    let dir = held.path();
    if owned_files(dir)?.is_some() {
        return Ok(Vec::new());
    }
    let Some(older) = older_manifest(dir)? else { return Ok(Vec::new()) };
    let mut kept = Vec::new();
    for (name, sha) in older.files.iter().filter(|(_, sha)| crate::hash::is_sha256(sha)) {
        let path = dir.join(name);
        let Ok(bytes) = crate::source::read_regular(&path, crate::source::MAX_OUTPUT_BYTES) else { continue };
        if crate::hash::sha256_hex(&bytes) == *sha {
            kept.push(Fingerprint { name: name.clone(), bytes: bytes.len() as u64, sha256: sha.clone() });
        }
    }
    let summary = serde_json::json!({"format": SUMMARY_FORMAT, "cells": [], "files": kept});
    crate::source::atomic::write(&dir.join(SUMMARY), crate::json::to_pretty_json(&summary).as_bytes())?;
    Ok(kept.into_iter().map(|f| f.name).collect())
}

/// Read a UTF-8 text file promptc wrote, bounded in size.
fn read_text(p: &Path) -> Result<Option<String>> {
    match crate::source::read_regular(p, crate::source::MAX_OUTPUT_BYTES) {
        Ok(bytes) => String::from_utf8(bytes).map(Some).map_err(|e| {
            Diagnostic::error(format!(
                "`{}` is not valid UTF-8 (invalid byte at offset {})",
                p.display(),
                e.utf8_error().valid_up_to()
            ))
            .with_help("snapshot and artifact folders hold text written by promptc; remove or regenerate the file")
            .into_error(crate::error::ErrorKind::Io)
        }),
        Err(crate::source::ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e.into_error(p)),
    }
}

/// Read the files promptc wrote in `dir`, by name, as `owned` lists them; a missing folder
/// reads as empty, a non-empty folder without a manifest is an error.
pub fn read_owned(dir: &Path, owned: crate::source::folder::OwnedFiles) -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    match std::fs::symlink_metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(Error::io("read folder", dir, &e)),
        Ok(m) if !m.is_dir() => {
            return Err(Diagnostic::error(format!("`{}` is not a folder", dir.display()))
                .with_help("promptc reads snapshot and artifact folders it wrote")
                .into_error(crate::error::ErrorKind::Io))
        }
        Ok(_) => {}
    }
    let Some(manifest) = owned(dir)? else {
        let empty = std::fs::read_dir(dir).map_err(|e| Error::io("read folder", dir, &e))?.next().is_none();
        if empty {
            return Ok(out);
        }
        return Err(Diagnostic::error(format!("`{}` is not a folder promptc wrote", dir.display()))
            .with_help(
                "it holds no summary.json (snapshot folder) or metadata.json (artifact folder) of promptc's; a \
                 snapshot folder an older promptc wrote is taken over with `promptc snapshot --adopt`",
            )
            .into_error(crate::error::ErrorKind::Io));
    };
    for name in manifest.names() {
        if let Some(text) = read_text(&dir.join(&name))? {
            out.insert(name, text);
        }
    }
    Ok(out)
}

/// What a snapshot write did.
pub type Written = crate::source::folder::Replaced;

/// Write `files` as the snapshot folder `to`, in one step: only into an empty folder or one
/// promptc wrote, removing only files it wrote, never reading others (see `source::folder`).
/// A project's folder is pinned ([`ProjectFolder::pin`]): every call goes through its open
/// parent, and messages name the folder as the user knows it.
pub fn write(to: &Pinned, files: &BTreeMap<String, String>) -> Result<Written> {
    let dir = to.path();
    let bytes: BTreeMap<String, Vec<u8>> = files.iter().map(|(k, v)| (k.clone(), v.as_bytes().to_vec())).collect();
    // A pending `NAME.new` the summary does not list (copied in from CI) is stale once `NAME` is
    // written again: accepted, rejected or superseded, it goes.
    let superseded = |n: &str| n.strip_suffix(PENDING_SUFFIX).is_some_and(|stem| files.contains_key(stem));
    crate::source::folder::replace_superseding(dir, &bytes, &owned_files, &superseded).map_err(|mut e| {
        // Refused because an older promptc wrote the folder: say how to take it over.
        if matches!(older_manifest(dir), Ok(Some(_))) {
            if let Some(d) = e.diagnostics_mut().first_mut() {
                d.notes.push(
                    "an older promptc wrote this folder: `promptc snapshot --adopt` takes over the files still as it \
                     wrote them"
                        .into(),
                );
            }
        }
        to.relabel(e)
    })
}

/// The folder's `summary.json` (in `files`, with the folder's other files) with its list of
/// files made to match them, name and hash; the rest of the summary as it was. `None` when
/// `files` holds no summary of the current format.
pub fn relisted(files: &BTreeMap<String, String>) -> Option<String> {
    let mut summary: Summary = serde_json::from_str(files.get(SUMMARY)?).ok()?;
    if summary.format != SUMMARY_FORMAT {
        return None;
    }
    summary.files = files.iter().filter(|(n, _)| *n != SUMMARY).map(|(n, t)| fingerprint(n, t)).collect();
    Some(summary.to_json())
}

/// The snapshot folder of a project.
pub fn folder(project: &Project) -> PathBuf {
    crate::source::clean_path(&project.root.join(&project.snapshots))
}

/// The snapshot folder a project names, checked ([`project_folder`]), to be pinned when it
/// is written ([`ProjectFolder::pin`]).
#[derive(Debug, Clone)]
pub struct ProjectFolder {
    /// The write root (canonical).
    root: PathBuf,
    /// The folder, under the canonical project folder.
    target: PathBuf,
    /// The folder as the user knows it.
    shown: PathBuf,
}

impl ProjectFolder {
    /// The folder as the user knows it.
    pub fn shown(&self) -> &Path {
        &self.shown
    }

    /// Pin the folder to write it: its parent is opened once from the write root, never
    /// through a link out of it, and every call goes through that open folder, so swapping a
    /// folder on the path for a link while promptc writes sends nothing elsewhere (see
    /// `source::pin`). Made here, the folder's missing parents are made too.
    pub fn pin(&self) -> Result<Pinned> {
        crate::source::pin::pin(&self.root, &self.target, &self.shown).map_err(|why| {
            Diagnostic::error(format!("cannot write the snapshot folder `{}`: {why}", self.shown.display()))
                .with_help(
                    "a project may only name folders inside its repository, never through a symbolic link out \
                     of it; run again once the path is back in place",
                )
                .into_error(crate::error::ErrorKind::Io)
        })
    }
}

/// The snapshot folder the project names, checked when it is used to stay inside the write
/// root (see `source::write_root`), no committed symbolic link leading it elsewhere.
pub fn project_folder(project: &Project) -> Result<ProjectFolder> {
    let target = project.fs().root().join(&project.snapshots);
    // The write root itself is no snapshot folder: it holds the project.
    let whole = crate::source::clean_path(&target) == project.write_root;
    let checked = if whole {
        Err(format!("it is `{}` itself, which holds the project", project.write_root.display()))
    } else {
        crate::source::confine(&project.write_root, &target)
    };
    checked.map_err(|why| {
        let mut d = Diagnostic::error(format!(
            "cannot use the snapshot folder `{}`: {why}",
            crate::diagnostic::excerpt(&project.snapshots, 80)
        ))
        .with_help(
            "a project may only name folders inside its repository (outside one, inside the folder holding the \
             project); a snapshot folder the caller names may be anywhere",
        );
        if let Some(span) = &project.snapshots_span {
            d = d.with_label(project.label(span));
        }
        d.into_error(crate::error::ErrorKind::Project)
    })?;
    Ok(ProjectFolder { root: project.write_root.clone(), target, shown: folder(project) })
}

#[cfg(test)]
#[path = "snapshot_tests.rs"]
mod tests;
