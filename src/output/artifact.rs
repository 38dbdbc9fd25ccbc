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

/// Version of the artifact metadata format.
pub const ARTIFACT_FORMAT: u32 = 1;

/// The promptc version that wrote an artifact.
pub const PROMPTC_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Hash and size of one section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
pub struct Inputs {
    /// Project files by project-relative path.
    pub files: BTreeMap<String, String>,
    /// Variable values (canonical JSON) by name.
    pub variables: IndexMap<String, String>,
    /// The `--context` file, if one was used.
    pub context_file: Option<String>,
}

/// `metadata.json` of a frozen artifact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
    /// Nonce of the untrusted-content delimiters, when the prompt has any (a live render's
    /// nonce is random, so it is recorded only when it shaped the text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nonce: Option<String>,
    /// Every switch's resolved value.
    pub switches: BTreeMap<String, bool>,
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
            nonce: c.prompt.contains(&format!("_{}|>", c.runtime.nonce)).then(|| c.runtime.nonce.clone()),
            switches: c.runtime.switches.clone(),
            tools: c.tools.iter().map(|t| t.name.clone()).collect(),
            inputs: Inputs {
                files: c.input_files(project),
                variables: c.input_variables(),
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
        }
    }
}

/// The files of an artifact, ready to write: (file name, contents).
pub fn artifact_files(project: &Project, c: &Compiled) -> Vec<(String, String)> {
    let tools_json = c.projection.as_ref().map(crate::json::to_pretty_json);
    let meta = Metadata::new(project, c, tools_json.as_deref());
    let mut meta_json = serde_json::to_string_pretty(&meta).unwrap_or_default(); // ok: plain data always serialises
    meta_json.push('\n');
    let mut files = vec![("prompt.md".to_string(), c.prompt.clone())];
    if let Some(t) = tools_json {
        files.push(("tools.json".to_string(), t));
    }
    files.push(("metadata.json".to_string(), meta_json));
    files
}

/// `render --format json`: metadata, sections, prompt and projection in one document.
pub fn render_json(project: &Project, c: &Compiled) -> String {
    crate::json::to_pretty_json(&serde_json::json!({
        "metadata": c.metadata(project),
        "sections": c.sections,
        "prompt": c.prompt,
        "tools": c.projection,
    }))
}

impl Compiled {
    /// The artifact metadata: profile, transport, provider, switches, tools, and the hashes
    /// of every input and section.
    pub fn metadata(&self, project: &Project) -> Metadata {
        let tools_json = self.projection.as_ref().map(crate::json::to_pretty_json);
        Metadata::new(project, self, tools_json.as_deref())
    }

    /// Prompt, sections, projection and metadata as one JSON document (`render --format json`).
    pub fn to_json(&self, project: &Project) -> String {
        render_json(project, self)
    }
}

/// Write the artifact into `dir` (each file atomically); returns the paths written.
pub fn write_artifact(dir: &Path, project: &Project, c: &Compiled) -> Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for (name, contents) in artifact_files(project, c) {
        let path = dir.join(&name);
        crate::source::atomic::write(&path, contents.as_bytes())?;
        written.push(path);
    }
    // A tools.json left over from an earlier native render would contradict an XML artifact.
    if c.projection.is_none() {
        let stale = dir.join("tools.json");
        if stale.is_file() {
            std::fs::remove_file(&stale).map_err(|e| crate::error::Error::io("remove stale", &stale, &e))?;
        }
    }
    Ok(written)
}
