//! A frozen record checked (it is what `freeze` wrote, for a transport and provider the
//! project enables) and compared with what the project compiles now: fresh or stale, and why.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::compile::compile_cell;
use crate::diagnostic::Diagnostic;
use crate::error::{Error, Result};
use crate::model::provider::Provider;
use crate::model::selection::Selection;
use crate::model::transport::Transport;
use crate::model::Project;
use crate::output::artifact::Metadata;
use crate::projection::{entry_function, tool_entries};
use crate::resolve::runtime::Runtime;

use super::{FrozenRecord, FrozenRequest};

/// One reason a frozen prompt is stale, or a change that did not affect it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
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
    /// A string-valued switch resolves to another value now.
    StringSwitch {
        /// Switch name.
        name: String,
        /// Frozen value (absent if the switch is new).
        frozen: Option<String>,
        /// Current value (absent if removed).
        current: Option<String>,
    },
    /// A tool's definition changed, or the tool appeared or disappeared.
    Tool {
        /// The tool's name as the model sees it.
        name: String,
        /// `changed`, `added` or `removed`.
        change: String,
    },
    /// The tool projection changed while every tool stayed the same (their order, or the
    /// request's wrapper around them).
    Tools,
    /// The cell's text through one of the project's chat templates changed, appeared or
    /// disappeared.
    Chat {
        /// The `chat_templates:` entry.
        template: String,
        /// `changed`, `added` or `removed`.
        change: String,
    },
    /// A harness message changed, appeared or disappeared.
    Message {
        /// Its place in the list, from 1.
        index: usize,
        /// Who sends it (`user`, `assistant`).
        role: String,
        /// `changed`, `added` or `removed`.
        change: String,
    },
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
            Finding::StringSwitch { name, frozen, current } => {
                let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| "absent".into());
                write!(f, "switch `{name}` differs: {} → {}", opt(frozen), opt(current))
            }
            Finding::Tool { name, change } => write!(f, "tool {change}: {name}"),
            Finding::Tools => f.write_str("tool projection changed: the tools' order or the wrapper around them"),
            Finding::Message { index, role, change } => write!(f, "message {change}: {index} ({role})"),
            Finding::Chat { template, change } => write!(f, "text through chat template {change}: {template}"),
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

/// The keys of two maps that were removed, changed or added, sorted.
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
    let rt = runtime(project, &rec.request);
    let provider = rec.request.provider.unwrap_or(project.defaults.provider);
    let sel = Selection { profile: rec.request.profile.clone(), reason: "frozen record".into() };
    let current = compile_cell(project, sel, rec.request.transport, provider, rt)?;
    let tools_json = current.projection.as_deref().map(crate::json::to_pretty_json);
    let meta = Metadata::new(project, &current, tools_json.as_deref());
    let outputs = Outputs {
        provider: rec.request.provider,
        frozen_tools: rec.tools.as_ref(),
        current_tools: current.projection(),
        frozen_messages: rec.messages.as_ref(),
        current_messages: current.messages_json(),
    };
    let mut verdict = compare(&rec.metadata, &meta, &outputs);
    // What an open-weight model's server sends: the cell through each chat template.
    let frozen: BTreeMap<String, String> = rec.chat.iter().map(|(k, v)| (k.clone(), v.text.clone())).collect();
    let now: BTreeMap<String, String> =
        crate::chat::project_texts(project, &current)?.into_iter().map(|(k, v)| (k, v.text)).collect();
    let chat = compare_maps(&frozen, &now);
    if !chat.is_empty() {
        verdict.fresh = false;
        verdict
            .reasons
            .extend(chat.into_iter().map(|(template, change)| Finding::Chat { template, change: change.into() }));
    }
    Ok(verdict)
}

/// What the frozen record and the recompiled cell send besides the prompt, to name what changed
/// in them.
struct Outputs<'a> {
    provider: Option<Provider>,
    frozen_tools: Option<&'a Value>,
    current_tools: Option<&'a Value>,
    frozen_messages: Option<&'a Value>,
    current_messages: Option<Value>,
}

impl Outputs<'_> {
    /// Each tool whose entry in the projection changed, appeared or disappeared, by the name the
    /// model sees; without a projection (the xml and json transports, whose tool docs are a
    /// section) the active tools that appeared or disappeared.
    fn tools(&self, old: &Metadata, meta: &Metadata) -> Vec<Finding> {
        let by_name = |provider: Provider, projection: Option<&Value>| -> BTreeMap<String, Value> {
            let entries = projection.map(|p| tool_entries(provider, p)).unwrap_or_default();
            entries
                .into_iter()
                .map(|e| {
                    let f = entry_function(provider, e);
                    (f.get("name").and_then(Value::as_str).unwrap_or_default().to_string(), e.clone())
                })
                .collect()
        };
        let changes = match self.provider {
            Some(p) => compare_maps(&by_name(p, self.frozen_tools), &by_name(p, self.current_tools)),
            None => {
                let ids = |m: &Metadata| -> BTreeMap<String, ()> { m.tools.iter().map(|t| (t.clone(), ())).collect() };
                compare_maps(&ids(old), &ids(meta))
            }
        };
        changes.into_iter().map(|(name, change)| Finding::Tool { name, change: change.into() }).collect()
    }

    /// Each harness message that changed, appeared or disappeared, by its place in the list.
    fn messages(&self) -> Vec<Finding> {
        let list = |v: Option<&Value>| v.and_then(Value::as_array).cloned().unwrap_or_default();
        let (old, new) = (list(self.frozen_messages), list(self.current_messages.as_ref()));
        let role = |m: &Value| m.get("role").and_then(Value::as_str).unwrap_or_default().to_string();
        (0..old.len().max(new.len()))
            .filter_map(|i| {
                let (change, m) = match (old.get(i), new.get(i)) {
                    (Some(a), Some(b)) if a == b => return None,
                    (Some(_), Some(b)) => ("changed", b),
                    (Some(a), None) => ("removed", a),
                    (None, Some(b)) => ("added", b),
                    (None, None) => return None,
                };
                Some(Finding::Message { index: i + 1, role: role(m), change: change.into() })
            })
            .collect()
    }
}

/// The runtime values of the frozen request, over the project's defaults: only names the
/// project still has are applied.
fn runtime(project: &Project, request: &FrozenRequest) -> Runtime {
    let mut rt = Runtime::defaults(project);
    for (k, v) in &request.switches {
        if rt.switches.contains_key(k) {
            rt.switches.insert(k.clone(), *v);
        }
    }
    // A value the switch no longer allows is not applied: the recompiled prompt then differs.
    for (k, v) in &request.choices {
        let allowed = project.switches.get(k).and_then(|s| s.choice.as_ref()).is_some_and(|c| c.values.contains(v));
        if allowed {
            rt.choices.insert(k.clone(), v.clone());
        }
    }
    for (k, v) in &request.variables {
        if rt.variables.contains_key(k) {
            rt.variables.insert(k.clone(), v.clone());
        }
    }
    rt.model = request.model.clone();
    if !request.nonce.is_empty() {
        rt.nonce = request.nonce.clone();
    }
    rt
}

/// The verdict on frozen metadata `old`, compared with the metadata `meta` of the cell
/// compiled now.
fn compare(old: &Metadata, meta: &Metadata, outputs: &Outputs<'_>) -> Verdict {
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
    let switch_findings = switch_findings(old, meta);
    let sections = |m: &Metadata| -> BTreeMap<String, String> {
        m.sections.iter().map(|s| (s.id.clone(), s.sha256.clone())).collect()
    };
    let section_findings: Vec<Finding> = compare_maps(&sections(old), &sections(meta))
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
        let tools = outputs.tools(old, meta);
        if tools.is_empty() {
            reasons.push(Finding::Tools);
        }
        reasons.extend(tools);
    }
    if messages_changed {
        reasons.extend(outputs.messages());
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
    Verdict { fresh, reasons, notes }
}

/// The switches, on/off and string-valued, that resolve differently now, by name.
fn switch_findings(old: &Metadata, meta: &Metadata) -> Vec<Finding> {
    let mut names: Vec<&String> =
        old.switches.keys().chain(meta.switches.keys()).chain(old.choices.keys()).chain(meta.choices.keys()).collect();
    names.sort();
    names.dedup();
    let mut out = Vec::new();
    for n in names {
        let (a, b) = (old.switches.get(n).copied(), meta.switches.get(n).copied());
        if a != b {
            out.push(Finding::Switch { name: n.clone(), frozen: a, current: b });
        }
        let (a, b) = (old.choices.get(n).cloned(), meta.choices.get(n).cloned());
        if a != b {
            out.push(Finding::StringSwitch { name: n.clone(), frozen: a, current: b });
        }
    }
    out
}
