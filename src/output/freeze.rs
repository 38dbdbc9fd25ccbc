//! Frozen prompts for running agents: `freeze` records exactly what a task was started with;
//! `verify` recompiles the same request against the current project and says whether the
//! frozen prompt is still fresh, and if not, why.

use std::collections::BTreeMap;
use std::path::Path;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::compile::{compile_cell, Compiled};
use crate::diagnostic::{Diagnostic, Label, Position};
use crate::error::{Error, Result};
use crate::model::provider::Provider;
use crate::model::selection::Selection;
use crate::model::transport::Transport;
use crate::model::Project;
use crate::output::artifact::{Metadata, PROMPTC_VERSION};
use crate::resolve::runtime::Runtime;

/// Version of the frozen-record format this promptc writes and reads.
pub const RECORD_FORMAT: u32 = 1;

/// What was asked for: enough to recompile the same cell later.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct FrozenRequest {
    /// The resolved profile.
    pub profile: String,
    /// Transport.
    pub transport: Transport,
    /// Provider (native only).
    pub provider: Option<Provider>,
    /// Model id, if one was given.
    pub model: Option<String>,
    /// Switches set explicitly (flags or context file); others follow the project's defaults.
    pub switches: BTreeMap<String, bool>,
    /// Variables set explicitly; others follow the project's defaults.
    pub variables: IndexMap<String, Value>,
    /// String-valued switches set explicitly; others follow the project's defaults.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub choices: BTreeMap<String, String>,
    /// Nonce of the untrusted-content delimiters in the frozen prompt.
    #[serde(default)]
    pub nonce: String,
}

/// A frozen prompt: the prompt, the projection and how they were made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct FrozenRecord {
    /// Record format version.
    pub format: u32,
    /// The promptc that wrote it.
    pub promptc_version: String,
    /// The request, for recompiling.
    pub request: FrozenRequest,
    /// Metadata of the compiled cell (hashes of inputs and sections).
    pub metadata: Metadata,
    /// The system prompt.
    pub prompt: String,
    /// The tool projection (native only).
    pub tools: Option<Value>,
    /// The harness messages (when the profile declares some).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<Value>,
    /// What the frozen prompt costs: the account `report` gives for it (absent in records of
    /// older promptc versions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account: Option<crate::output::snapshot::AccountSummary>,
}

/// Which runtime values were set explicitly: those that differ from the project defaults or
/// were named, by flags or in the context file alike (the same request records the same
/// values whichever way it was given).
fn explicit(project: &Project, rt: &Runtime) -> (BTreeMap<String, bool>, IndexMap<String, Value>) {
    let defaults = Runtime::defaults(project);
    let switches = rt
        .switches
        .iter()
        .filter(|(k, v)| defaults.switches.get(*k) != Some(v) || rt.named.contains(*k))
        .map(|(k, v)| (k.clone(), *v))
        .collect();
    let variables = rt
        .variables
        .iter()
        .filter(|(k, v)| defaults.variables.get(*k) != Some(v) || rt.named.contains(*k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    (switches, variables)
}

/// The string-valued switches set explicitly, as [`explicit`] finds the rest.
fn explicit_choices(project: &Project, rt: &Runtime) -> BTreeMap<String, String> {
    let defaults = Runtime::defaults(project);
    rt.choices
        .iter()
        .filter(|(k, v)| defaults.choices.get(*k) != Some(v) || rt.named.contains(*k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// Build the record of a compiled cell.
pub fn record(project: &Project, c: &Compiled, account: Option<&crate::measure::account::Account>) -> FrozenRecord {
    let tools_json = c.projection.as_ref().map(crate::json::to_pretty_json);
    let (switches, variables) = explicit(project, &c.runtime);
    FrozenRecord {
        format: RECORD_FORMAT,
        promptc_version: PROMPTC_VERSION.to_string(),
        request: FrozenRequest {
            profile: c.selection.profile.clone(),
            transport: c.transport,
            provider: c.provider,
            model: c.runtime.model.clone(),
            switches,
            variables,
            choices: explicit_choices(project, &c.runtime),
            nonce: c.runtime.nonce.clone(),
        },
        metadata: Metadata::new(project, c, tools_json.as_deref()),
        prompt: c.prompt.clone(),
        tools: c.projection.clone(),
        messages: c.messages_json(),
        account: account.map(crate::output::snapshot::AccountSummary::from),
    }
}

impl FrozenRecord {
    /// The record as the JSON file `verify` reads.
    pub fn to_json(&self) -> String {
        crate::json::to_pretty_json(&serde_json::to_value(self).unwrap_or_default())
    }
}

/// Read a record, refusing unreadable, malformed and newer-format files with a clear error.
pub fn read(path: &Path) -> Result<FrozenRecord> {
    use crate::source::ReadError;
    let display = path.display().to_string();
    let bytes = crate::source::read_regular(path, crate::source::MAX_OUTPUT_BYTES).map_err(|e| match e {
        ReadError::Io(e) => Error::io("read frozen record", path, &e),
        ReadError::NotAFile => Error::record(
            Diagnostic::error(format!("frozen record `{display}` is not a regular file"))
                .with_help("pass the JSON file written by `promptc freeze` (not a folder, pipe or device)"),
        ),
        ReadError::TooLarge(n) => Error::record(
            Diagnostic::error(format!("frozen record `{display}` is larger than {n} bytes"))
                .with_help("a frozen record holds one prompt; check the path"),
        ),
    })?;
    let text = String::from_utf8(bytes).map_err(|_| {
        Error::record(
            Diagnostic::error(format!("frozen record `{display}` is not valid UTF-8"))
                .with_help("a frozen record is the JSON file `promptc freeze` writes"),
        )
    })?;
    parse(&text, &display)
}

/// Parse a record's JSON text (`display` names it in messages), with the checks of [`read`].
pub fn parse(text: &str, display: &str) -> Result<FrozenRecord> {
    // serde_json appends " at line L column C"; the label carries the location.
    let plain = |e: &serde_json::Error| {
        let s = e.to_string();
        s.find(" at line ").map_or(s.clone(), |i| s[..i].to_string())
    };
    let located = |e: &serde_json::Error, msg: String| -> Error {
        let pos = Position::new(e.line().max(1), e.column().max(1), 1);
        Diagnostic::error(msg)
            .with_label(Label::at(display, text, pos))
            .with_help("a frozen record is the JSON file `promptc freeze` writes; freeze the prompt again")
            .into_error(crate::error::ErrorKind::Record)
    };
    let value: Value = serde_json::from_str(text)
        .map_err(|e| located(&e, format!("frozen record is not valid JSON: {}", plain(&e))))?;
    let format = value.get("format").and_then(Value::as_u64);
    match format {
        Some(f) if f > RECORD_FORMAT as u64 => {
            let by = value.get("promptc_version").and_then(Value::as_str).unwrap_or("a newer promptc");
            return Err(Diagnostic::error(format!(
                "frozen record `{display}` has format {f}, newer than this promptc reads ({RECORD_FORMAT})"
            ))
            .with_note(format!("it was written by promptc {by}; this is promptc {PROMPTC_VERSION}"))
            .with_help("upgrade promptc to verify it")
            .into_error(crate::error::ErrorKind::Record));
        }
        None if value.get("format").is_some() => {
            return Err(Diagnostic::error(format!(
                "`{display}` is not a frozen record: its `format` field is {}, not a whole number",
                crate::diagnostic::excerpt(&value["format"].to_string(), 40)
            ))
            .with_help("pass the JSON file written by `promptc freeze`")
            .into_error(crate::error::ErrorKind::Record))
        }
        None => {
            return Err(Diagnostic::error(format!("`{display}` is not a frozen record: it has no `format` field"))
                .with_help("pass the JSON file written by `promptc freeze`")
                .into_error(crate::error::ErrorKind::Record))
        }
        _ => {}
    }
    serde_json::from_str(text).map_err(|e| located(&e, format!("invalid frozen record: {}", plain(&e))))
}

/// One reason a frozen prompt is stale, or a change that did not affect it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Finding {
    /// The contract version changed.
    ContractVersion {
        /// Frozen value.
        frozen: u64,
        /// Current value.
        current: u64,
    },
    /// An input file changed, appeared or disappeared.
    InputFile {
        /// Project-relative path.
        file: String,
        /// `changed`, `added` or `removed`.
        change: String,
    },
    /// A switch resolves differently now.
    Switch {
        /// Switch name.
        name: String,
        /// Frozen value (absent if the switch is new).
        frozen: Option<bool>,
        /// Current value (absent if removed).
        current: Option<bool>,
    },
    /// A section's text changed, appeared or disappeared.
    Section {
        /// Section id.
        id: String,
        /// `changed`, `added` or `removed`.
        change: String,
    },
    /// The tool projection changed.
    Tools,
    /// The harness messages changed.
    Messages,
    /// The promptc version differs (informational).
    PromptcVersion {
        /// Frozen value.
        frozen: String,
        /// Current value.
        current: String,
    },
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let opt = |b: &Option<bool>| b.map_or("absent".to_string(), |v| v.to_string());
        match self {
            Finding::ContractVersion { frozen, current } => {
                write!(f, "contract version bumped: {frozen} → {current}")
            }
            Finding::InputFile { file, change } => write!(f, "input file {change}: {file}"),
            Finding::Switch { name, frozen, current } => {
                write!(f, "switch `{name}` differs: {} → {}", opt(frozen), opt(current))
            }
            Finding::Section { id, change } => write!(f, "section {change}: {id}"),
            Finding::Tools => f.write_str("tool projection changed"),
            Finding::Messages => f.write_str("harness messages changed"),
            Finding::PromptcVersion { frozen, current } => write!(f, "promptc version {frozen} → {current}"),
        }
    }
}

/// The verdict on a frozen record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Verdict {
    /// Whether the frozen prompt is still what the project compiles.
    pub fresh: bool,
    /// Why it is stale (empty when fresh).
    pub reasons: Vec<Finding>,
    /// Changes that did not alter the compiled output.
    pub notes: Vec<Finding>,
}

impl Verdict {
    /// The verdict for people (`fresh: …` / `stale: …` and one line per reason and note), or
    /// as JSON.
    pub fn render(&self, record: &str, json: bool) -> String {
        if json {
            return crate::json::document(serde_json::to_value(self).unwrap_or_default());
        }
        let mut s = if self.fresh {
            format!("fresh: {record} is what the project compiles\n")
        } else {
            format!("stale: {record} no longer matches the project\n")
        };
        for r in &self.reasons {
            s.push_str(&format!("  - {r}\n"));
        }
        for n in &self.notes {
            s.push_str(&format!("  note: {n}\n"));
        }
        s
    }
}

fn compare_maps<V: PartialEq>(
    frozen: &BTreeMap<String, V>,
    current: &BTreeMap<String, V>,
) -> Vec<(String, &'static str)> {
    let mut out = Vec::new();
    for (k, v) in frozen {
        match current.get(k) {
            None => out.push((k.clone(), "removed")),
            Some(c) if c != v => out.push((k.clone(), "changed")),
            _ => {}
        }
    }
    out.extend(current.keys().filter(|k| !frozen.contains_key(*k)).map(|k| (k.clone(), "added")));
    out.sort();
    out
}

/// A record whose content disagrees with its own hashes, or whose request cannot have come
/// from `freeze`: an error, never "fresh" or "stale".
fn tampered(what: String) -> Error {
    Error::record(
        Diagnostic::error(format!("the frozen record was edited after it was frozen: {what}"))
            .with_help("a frozen record is evidence of what a task started with; freeze the prompt again"),
    )
}

/// Check that the record is what `freeze` wrote: its prompt and tools match the hashes in
/// its metadata, its request agrees with its metadata, and every request field is valid the
/// way the command line would require.
pub fn check_record(project: &Project, rec: &FrozenRecord) -> Result<()> {
    let m = &rec.metadata;
    if crate::hash::sha256_hex(rec.prompt.as_bytes()) != m.prompt_sha256 {
        return Err(tampered("its prompt does not match `metadata.prompt_sha256`".into()));
    }
    let tools_sha = rec.tools.as_ref().map(|t| crate::hash::sha256_hex(crate::json::to_pretty_json(t).as_bytes()));
    if tools_sha != m.tools_sha256 {
        return Err(tampered("its tools do not match `metadata.tools_sha256`".into()));
    }
    let messages_sha =
        rec.messages.as_ref().map(|v| crate::hash::sha256_hex(crate::json::to_pretty_json(v).as_bytes()));
    if messages_sha != m.messages_sha256 {
        return Err(tampered("its messages do not match `metadata.messages_sha256`".into()));
    }
    let r = &rec.request;
    if r.profile != m.profile || r.transport != m.transport || r.provider != m.provider {
        return Err(tampered("its request names another profile, transport or provider than its metadata".into()));
    }
    if (r.transport == Transport::Native) != r.provider.is_some() {
        return Err(tampered(format!(
            "a {} record {} a provider",
            r.transport,
            if r.provider.is_some() { "names" } else { "lacks" }
        )));
    }
    if !r.nonce.is_empty() && !crate::model::untrusted::valid_nonce(&r.nonce) {
        return Err(tampered(format!(
            "its nonce `{}` is not 4 to 32 ASCII letters or digits",
            crate::diagnostic::excerpt(&r.nonce, 40)
        )));
    }
    if m.nonce.as_deref().is_some_and(|n| n != r.nonce) {
        return Err(tampered("its request's nonce differs from its metadata's".into()));
    }
    if !project.transports.contains(&r.transport) {
        return Err(Error::usage(
            Diagnostic::error(format!(
                "the record was frozen with the {} transport, which this project does not enable",
                r.transport
            ))
            .with_help("verify it against the project it was frozen from, or add the transport to `transports:`"),
        ));
    }
    if let Some(p) = r.provider.filter(|p| !project.providers.contains(p)) {
        return Err(Error::usage(
            Diagnostic::error(format!("the record was frozen for provider `{p}`, which this project does not enable"))
                .with_help("verify it against the project it was frozen from, or add the provider to `providers:`"),
        ));
    }
    Ok(())
}

/// Check the record (see [`check_record`]), recompile its request against `project` and
/// compare.
pub fn verify(project: &Project, rec: &FrozenRecord) -> Result<Verdict> {
    check_record(project, rec)?;
    let mut rt = Runtime::defaults(project);
    for (k, v) in &rec.request.switches {
        if rt.switches.contains_key(k) {
            rt.switches.insert(k.clone(), *v);
        }
    }
    // A value the switch no longer allows is not applied: the recompiled prompt then differs.
    for (k, v) in &rec.request.choices {
        let allowed = project.switches.get(k).and_then(|s| s.choice.as_ref()).is_some_and(|c| c.values.contains(v));
        if allowed {
            rt.choices.insert(k.clone(), v.clone());
        }
    }
    for (k, v) in &rec.request.variables {
        if rt.variables.contains_key(k) {
            rt.variables.insert(k.clone(), v.clone());
        }
    }
    rt.model = rec.request.model.clone();
    if !rec.request.nonce.is_empty() {
        rt.nonce = rec.request.nonce.clone();
    }
    let provider = rec.request.provider.unwrap_or(project.defaults.provider);
    let sel = Selection { profile: rec.request.profile.clone(), reason: "frozen record".into() };
    let current = compile_cell(project, sel, rec.request.transport, provider, rt)?;
    let tools_json = current.projection.as_ref().map(crate::json::to_pretty_json);
    let meta = Metadata::new(project, &current, tools_json.as_deref());
    let old = &rec.metadata;

    let mut reasons = Vec::new();
    let mut notes = Vec::new();
    if old.contract_version != meta.contract_version {
        reasons.push(Finding::ContractVersion { frozen: old.contract_version, current: meta.contract_version });
    }
    let messages_changed = old.messages_sha256 != meta.messages_sha256;
    let output_changed =
        old.prompt_sha256 != meta.prompt_sha256 || old.tools_sha256 != meta.tools_sha256 || messages_changed;
    let file_findings: Vec<Finding> = compare_maps(&old.inputs.files, &meta.inputs.files)
        .into_iter()
        .map(|(file, change)| Finding::InputFile { file, change: change.into() })
        .collect();
    let mut switch_names: Vec<&String> = old.switches.keys().chain(meta.switches.keys()).collect();
    switch_names.sort();
    switch_names.dedup();
    let switch_findings: Vec<Finding> = switch_names
        .into_iter()
        .filter(|n| old.switches.get(*n) != meta.switches.get(*n))
        .map(|n| Finding::Switch {
            name: n.clone(),
            frozen: old.switches.get(n).copied(),
            current: meta.switches.get(n).copied(),
        })
        .collect();
    let sections = |m: &Metadata| -> BTreeMap<String, String> {
        m.sections.iter().map(|s| (s.id.clone(), s.sha256.clone())).collect()
    };
    let section_findings: Vec<Finding> = compare_maps(&sections(old), &sections(&meta))
        .into_iter()
        .map(|(id, change)| Finding::Section { id, change: change.into() })
        .collect();
    let tools_changed = old.tools_sha256 != meta.tools_sha256;
    // Changed inputs and switches explain a stale prompt; when the output is identical they are
    // only notes (e.g. a tool file edited in a tool this cell does not use).
    let explain = if output_changed || !reasons.is_empty() { &mut reasons } else { &mut notes };
    explain.extend(file_findings);
    explain.extend(switch_findings);
    reasons.extend(section_findings);
    if tools_changed {
        reasons.push(Finding::Tools);
    }
    if messages_changed {
        reasons.push(Finding::Messages);
    }
    if old.promptc_version != meta.promptc_version {
        notes.push(Finding::PromptcVersion {
            frozen: old.promptc_version.clone(),
            current: meta.promptc_version.clone(),
        });
    }
    let fresh = !output_changed && old.contract_version == meta.contract_version;
    if fresh {
        reasons.clear();
    }
    Ok(Verdict { fresh, reasons, notes })
}
