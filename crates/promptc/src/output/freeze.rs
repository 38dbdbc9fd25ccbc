//! Frozen prompts for running agents: `freeze` records exactly what a task was started with;
//! `verify` recompiles the same request against the current project and says whether the
//! frozen prompt is still fresh, and if not, why.
//!
//! This file holds the record and reading it; `freeze/verify.rs` checks a record and compares
//! it with what the project compiles now.

mod verify;

pub use verify::{verify, Finding, Verdict};

use std::collections::BTreeMap;
use std::path::Path;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::compile::Compiled;
use crate::diagnostic::{Diagnostic, Label, Position};
use crate::error::{Error, Result};
use crate::model::provider::Provider;
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
    /// The cell through each of the project's chat templates that covers its profile (native
    /// cells), by template name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub chat: BTreeMap<String, FrozenChat>,
}

/// A cell's text through one chat template, as frozen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct FrozenChat {
    /// The date `strftime_now` gave (`YYYY-MM-DD`).
    pub date: String,
    /// The templated text.
    pub text: String,
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
pub fn record(
    project: &Project,
    c: &Compiled,
    account: Option<&crate::measure::account::Account>,
) -> Result<FrozenRecord> {
    let tools_json = c.projection.as_deref().map(crate::json::to_pretty_json);
    let (switches, variables) = explicit(project, &c.runtime);
    Ok(FrozenRecord {
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
        tools: c.projection.as_deref().cloned(),
        messages: c.messages_json(),
        account: account.map(crate::output::snapshot::AccountSummary::from),
        chat: crate::chat::project_texts(project, c)?
            .into_iter()
            .map(|(name, chat)| (name, FrozenChat { date: chat.date, text: chat.text }))
            .collect(),
    })
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
