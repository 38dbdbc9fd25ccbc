//! The frozen prompt artifact: prompt text, tool projection and metadata that pins down
//! exactly which inputs produced them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::compile::Compiled;
use crate::error::Result;
use crate::hash::sha256_hex;
use crate::model::{Project, Provider, Transport};
use crate::source::folder::Manifest;

/// Version of the artifact metadata format.
pub const ARTIFACT_FORMAT: u32 = 1;

/// The promptc version that wrote an artifact.
pub const PROMPTC_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Hash and size of one section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SectionMeta {
    /// Section id.
    pub id: String,
    /// Where it was declared.
    pub origin: String,
    /// Whether it reads dynamic variables.
    pub dynamic: bool,
    /// UTF-8 bytes.
    pub bytes: usize,
    /// SHA-256 of its text.
    pub sha256: String,
}

/// Hashes of everything that shaped a cell.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Inputs {
    /// Project files by project-relative path.
    pub files: BTreeMap<String, String>,
    /// Values (canonical JSON) of the variables the cell's templates read, by name.
    pub variables: IndexMap<String, String>,
    /// The `--context` file, if one was used.
    pub context_file: Option<String>,
}

/// `metadata.json` of a frozen artifact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Metadata {
    /// Artifact format version.
    pub format: u32,
    /// promptc version.
    pub promptc_version: String,
    /// Project name.
    pub project: String,
    /// The project's contract version.
    pub contract_version: u64,
    /// Profile name.
    pub profile: String,
    /// Why that profile was chosen.
    pub profile_reason: String,
    /// Transport.
    pub transport: Transport,
    /// Provider of the projection (null for the xml and json transports).
    pub provider: Option<Provider>,
    /// Model id, when one was given.
    pub model: Option<String>,
    /// The sub-agent this prompt belongs to, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent: Option<String>,
    /// Nonce of the untrusted-content delimiters, when the prompt or a message has it — in
    /// wrapped text, or where a template reads `nonce` (a live render's nonce is random, so it
    /// is recorded only when it shaped the text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nonce: Option<String>,
    /// Every switch's resolved value.
    pub switches: BTreeMap<String, bool>,
    /// Every string-valued switch's resolved value (absent when the project has none).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub choices: BTreeMap<String, String>,
    /// Active tool ids, in order.
    pub tools: Vec<String>,
    /// Hashes of the inputs.
    pub inputs: Inputs,
    /// Per-section hashes, in prompt order.
    pub sections: Vec<SectionMeta>,
    /// SHA-256 of the prompt text.
    pub prompt_sha256: String,
    /// SHA-256 of the tools JSON (native only).
    pub tools_sha256: Option<String>,
    /// SHA-256 of `messages.json`, when the profile declares harness messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages_sha256: Option<String>,
    /// Where the prompt's static prefix ends (the cache breakpoint); absent in older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<crate::compile::StaticPrefix>,
    /// In an artifact folder's `metadata.json`: the other files promptc wrote there (what it
    /// may replace or remove on the next `render --out`). Absent elsewhere.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
}

impl Metadata {
    /// Describe a compiled cell.
    pub fn new(project: &Project, c: &Compiled, tools_json: Option<&str>) -> Metadata {
        Metadata {
            format: ARTIFACT_FORMAT,
            promptc_version: PROMPTC_VERSION.to_string(),
            project: project.name.clone(),
            contract_version: project.contract_version,
            profile: c.selection.profile.clone(),
            profile_reason: c.selection.reason.clone(),
            transport: c.transport,
            provider: c.provider,
            model: c.runtime.model.clone(),
            subagent: c.subagent.clone(),
            // Wrapped text or a template reading `nonce` put it in the prompt or a message.
            nonce: (c.prompt.contains(&c.runtime.nonce)
                || c.messages.iter().flat_map(|m| &m.blocks).any(|b| b.contains(&c.runtime.nonce)))
            .then(|| c.runtime.nonce.clone()),
            switches: c.runtime.switches.clone(),
            choices: c.runtime.choices.clone(),
            tools: c.tools.iter().map(|t| t.name.clone()).collect(),
            inputs: Inputs {
                files: c.input_files(project),
                variables: c.input_variables(project),
                context_file: c.runtime.context_file.as_ref().map(|f| f.sha256.clone()),
            },
            sections: c
                .sections
                .iter()
                .map(|s| SectionMeta {
                    id: s.id.clone(),
                    origin: s.origin.clone(),
                    dynamic: s.dynamic,
                    bytes: s.text.len(),
                    sha256: s.sha256.clone(),
                })
                .collect(),
            prompt_sha256: sha256_hex(c.prompt.as_bytes()),
            tools_sha256: tools_json.map(|t| sha256_hex(t.as_bytes())),
            messages_sha256: c.messages_json().map(|m| sha256_hex(crate::json::to_pretty_json(&m).as_bytes())),
            cache: Some(c.static_prefix()),
            files: Vec::new(),
        }
    }
}

/// The files of an artifact, ready to write: (file name, contents).
pub fn artifact_files(project: &Project, c: &Compiled) -> Vec<(String, String)> {
    let tools_json = c.projection.as_deref().map(crate::json::to_pretty_json);
    let mut meta = Metadata::new(project, c, tools_json.as_deref());
    let mut files = vec![(PROMPT_FILE.to_string(), c.prompt.clone())];
    if let Some(t) = tools_json {
        files.push((TOOLS_FILE.to_string(), t));
    }
    if let Some(m) = c.messages_json() {
        files.push((MESSAGES_FILE.to_string(), crate::json::to_pretty_json(&m)));
    }
    meta.files = files.iter().map(|(n, _)| n.clone()).collect();
    let mut meta_json = serde_json::to_string_pretty(&meta).unwrap_or_default(); // ok: plain data always serialises
    meta_json.push('\n');
    files.push((METADATA_FILE.to_string(), meta_json));
    files
}

/// The artifact's prompt file.
pub const PROMPT_FILE: &str = "prompt.md";
/// The artifact's tools file (native only).
pub const TOOLS_FILE: &str = "tools.json";
/// The artifact's harness messages (only when the profile declares some).
pub const MESSAGES_FILE: &str = "messages.json";
/// The artifact's metadata file, which lists the artifact's other files.
pub const METADATA_FILE: &str = "metadata.json";

/// The files promptc wrote in artifact folder `dir` with their hashes, from its
/// `metadata.json`; `None` if the folder holds no metadata of promptc's current format (one
/// that lists its files, each with its hash among the metadata's `*_sha256`). Nothing else in
/// the folder is read.
pub fn owned_files(dir: &Path) -> Result<Option<Manifest>> {
    let path = dir.join(METADATA_FILE);
    let bytes = match crate::source::read_regular(&path, crate::source::MAX_OUTPUT_BYTES) {
        Ok(b) => b,
        Err(crate::source::ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.into_error(&path)),
    };
    let Ok(meta) = serde_json::from_slice::<Metadata>(&bytes) else { return Ok(None) };
    // Metadata written before it listed its files is an older format: not promptc's.
    if meta.format != ARTIFACT_FORMAT || meta.files.is_empty() {
        return Ok(None);
    }
    let mut files = BTreeMap::new();
    for name in &meta.files {
        let hash = match name.as_str() {
            PROMPT_FILE => Some(&meta.prompt_sha256),
            TOOLS_FILE => meta.tools_sha256.as_ref(),
            MESSAGES_FILE => meta.messages_sha256.as_ref(),
            _ => None,
        };
        match hash {
            Some(h) if crate::hash::is_sha256(h) => files.insert(name.clone(), h.clone()),
            _ => return Ok(None),
        };
    }
    Ok(Some(Manifest { name: METADATA_FILE.to_string(), files }))
}

/// `render --format json`: metadata, sections, prompt and projection in one document.
pub fn render_json(project: &Project, c: &Compiled) -> String {
    let mut doc = serde_json::json!({
        "metadata": c.metadata(project),
        "sections": c.sections,
        "prompt": c.prompt,
        "tools": c.projection.as_deref(),
        "cache": c.static_prefix(),
    });
    if let Some(m) = c.messages_json() {
        doc["messages"] = m;
    }
    if let Some(request) = anthropic_cached_request(c) {
        doc["anthropic_request"] = request;
    }
    crate::json::document(doc)
}

/// For an Anthropic cell: the request's `system` blocks and `tools` with prompt caching — a
/// `cache_control` breakpoint on the last static block of the system prompt (the dynamic rest
/// follows in its own block) and on the last tool. The blocks' texts add up to the prompt.
pub fn anthropic_cached_request(c: &Compiled) -> Option<serde_json::Value> {
    use serde_json::json;
    if !c.provider.is_some_and(|p| p.info().cache_control_request) {
        return None;
    }
    let cut = c.static_prefix().bytes;
    let breakpoint = json!({"type": "ephemeral"});
    let mut system = Vec::new();
    if cut > 0 {
        system.push(json!({"type": "text", "text": &c.prompt[..cut], "cache_control": breakpoint}));
    }
    if cut < c.prompt.len() {
        system.push(json!({"type": "text", "text": &c.prompt[cut..]}));
    }
    let mut tools = c.projection.as_deref().cloned().unwrap_or_else(|| json!([]));
    if let Some(last) = tools.as_array_mut().and_then(|a| a.last_mut()) {
        last["cache_control"] = breakpoint;
    }
    Some(json!({"system": system, "tools": tools}))
}

impl Compiled {
    /// The artifact metadata: profile, transport, provider, switches, tools, and the hashes
    /// of every input and section.
    pub fn metadata(&self, project: &Project) -> Metadata {
        let tools_json = self.projection.as_deref().map(crate::json::to_pretty_json);
        Metadata::new(project, self, tools_json.as_deref())
    }

    /// For an Anthropic cell, the request's `system` blocks and `tools` with prompt-caching
    /// breakpoints (as `render --format json` gives them); `None` for other providers.
    pub fn anthropic_request(&self) -> Option<serde_json::Value> {
        anthropic_cached_request(self)
    }

    /// Prompt, sections, projection and metadata as one JSON document (`render --format json`).
    pub fn to_json(&self, project: &Project) -> String {
        render_json(project, self)
    }
}

/// Write the artifact into `dir` as one step (see `source::folder`): only into an empty folder
/// or one promptc wrote, replacing only its own files; returns the paths written.
pub fn write_artifact(dir: &Path, project: &Project, c: &Compiled) -> Result<Vec<PathBuf>> {
    let files: BTreeMap<String, Vec<u8>> =
        artifact_files(project, c).into_iter().map(|(n, t)| (n, t.into_bytes())).collect();
    let pinned = crate::source::pin::named(dir).map_err(|e| crate::error::Error::io("create folder", dir, &e))?;
    let done = crate::source::folder::replace(pinned.path(), &files, &owned_files).map_err(|e| pinned.relabel(e))?;
    Ok(done.written.iter().map(|n| dir.join(n)).collect())
}
