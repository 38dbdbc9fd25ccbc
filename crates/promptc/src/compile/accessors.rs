//! What a [`Compiled`] cell shows its callers: the prompt, the projection, the cell's choices
//! and the inputs that shaped it.

use std::collections::{BTreeMap, BTreeSet};

use indexmap::IndexMap;
use serde_json::Value;

use crate::diagnostic::Diagnostic;
use crate::error::{Error, Result};
use crate::model::provider::Provider;
use crate::model::section::SectionSource;
use crate::model::transport::Transport;
use crate::model::Project;
use crate::render::{RenderedSection, SlotUse};

use super::{Compiled, StaticPrefix};

impl Compiled {
    /// The cell of the matrix this is: profile, case, transport and sub-agent.
    pub(crate) fn cell(&self) -> crate::resolve::matrix::Cell {
        crate::resolve::matrix::Cell {
            profile: self.selection.profile.clone(),
            case: self.case.clone(),
            transport: self.transport,
            subagent: self.subagent.clone(),
        }
    }

    /// The matrix case whose values it was compiled with (`None` outside the matrix).
    pub fn case(&self) -> Option<&str> {
        self.case.as_deref()
    }

    /// Bytes of the text the cell makes — its prompt and harness messages — as a run's size
    /// cap charges them.
    pub(crate) fn text_bytes(&self) -> usize {
        self.prompt.len() + self.messages.iter().map(|m| m.len()).sum::<usize>() + self.tools_json_bytes()
    }

    /// How long the tools JSON is as written (counted, not built: a run charges it against
    /// `limits.matrix_bytes` like the prompt, since `snapshot` writes it for every cell).
    fn tools_json_bytes(&self) -> usize {
        struct Count(usize);
        impl std::io::Write for Count {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0 += b.len();
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut n = Count(0);
        if let Some(p) = &self.projection {
            // ok: writing to a counter cannot fail, and a Value always serialises.
            let _ = serde_json::to_writer(&mut n, p.as_ref());
        }
        n.0
    }

    /// The full system prompt.
    pub fn prompt(&self) -> &str {
        &self.prompt
    }

    /// The harness messages as the provider's request lists them (`[{"role", "content"}]`, a
    /// string or content blocks; Gemini's `[{"role", "parts"}]`), or `None` when the profile
    /// declares none.
    pub fn messages_json(&self) -> Option<Value> {
        (!self.messages.is_empty()).then(|| crate::projection::messages::messages(self.provider, &self.messages))
    }

    /// The value of the request's `tools` field (native cells only).
    pub fn projection(&self) -> Option<&Value> {
        self.projection.as_deref()
    }

    /// The tool projection as written (pretty JSON); the xml and json transports have none.
    pub fn tools_json(&self) -> Result<String> {
        match &self.projection {
            Some(p) => Ok(crate::json::to_pretty_json(p.as_ref())),
            None => Err(Error::usage(
                Diagnostic::error(format!(
                    "the {} transport has no tool projection: its tools are described in the prompt",
                    self.transport
                ))
                .with_help("compile the native transport to get the tools JSON"),
            )),
        }
    }

    /// The static prefix of the prompt (see [`StaticPrefix`]), from each section's place in
    /// the prompt (a layout may reorder sections) and whether it is dynamic.
    pub fn static_prefix(&self) -> StaticPrefix {
        self.prefix.clone()
    }

    /// The sections in the order they appear in the prompt, with their offsets.
    pub(crate) fn placed_sections(&self) -> Vec<(usize, &RenderedSection)> {
        let mut placed: Vec<(usize, &RenderedSection)> =
            self.sections.iter().zip(&self.offsets).filter_map(|(s, o)| o.map(|i| (i, s))).collect();
        placed.sort_by_key(|(i, _)| *i);
        placed
    }

    /// The profile compiled.
    pub fn profile(&self) -> &str {
        &self.selection.profile
    }

    /// Why that profile was chosen (one line).
    pub fn profile_reason(&self) -> &str {
        &self.selection.reason
    }

    /// The transport.
    pub fn transport(&self) -> Transport {
        self.transport
    }

    /// The provider of the projection (`None` for the xml and json transports).
    pub fn provider(&self) -> Option<Provider> {
        self.provider
    }

    /// The sub-agent this prompt belongs to, if any.
    pub fn subagent(&self) -> Option<&str> {
        self.subagent.as_deref()
    }

    /// The active tools' names, in order.
    pub fn tool_names(&self) -> Vec<&str> {
        self.tools.iter().map(|t| t.name.as_str()).collect()
    }

    /// The rendered sections, in prompt order (empty ones dropped).
    pub fn sections(&self) -> &[RenderedSection] {
        &self.sections
    }

    /// How each injectable slot was filled.
    pub fn slots(&self) -> &[SlotUse] {
        &self.slots
    }

    /// Every switch's value in this cell.
    pub fn switches(&self) -> &BTreeMap<String, bool> {
        &self.runtime.switches
    }

    /// Every variable's value in this cell, in declaration order.
    pub fn variables(&self) -> &IndexMap<String, Value> {
        &self.runtime.variables
    }

    /// The nonce of the untrusted-content delimiters.
    pub fn nonce(&self) -> &str {
        &self.runtime.nonce
    }

    /// Problems that did not stop the compile (a lenient compile's dropped contributions).
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.warnings
    }

    /// SHA-256 of every project file that shaped this cell, by project-relative path.
    pub fn input_files(&self, project: &Project) -> BTreeMap<String, String> {
        let mut out = BTreeMap::new();
        let mut add = |rel: &str| {
            if let Some(f) = project.files.get(rel) {
                out.insert(f.rel.clone(), f.sha256().to_string());
            }
        };
        add(&project.manifest);
        for t in project.catalog.tools() {
            add(&t.file);
        }
        if let Some(l) = &project.layout {
            add(l);
        }
        if let Some(profile) = project.profiles.get(&self.selection.profile) {
            for id in &profile.sections {
                if let Some(SectionSource::Template(name)) = project.sections.get(id).map(|s| &s.source) {
                    add(name);
                }
            }
        }
        for f in project.templates.included_files() {
            out.insert(f.rel.clone(), f.sha256().to_string());
        }
        out
    }

    /// SHA-256 of the value (canonical JSON) of each variable a template of this cell reads, by
    /// name: a variable nothing reads shaped nothing, so changing it changes no record.
    pub fn input_variables(&self, project: &Project) -> IndexMap<String, String> {
        let read: BTreeSet<&String> =
            self.templates.iter().filter_map(|t| project.template_reads.get(t)).flatten().collect();
        self.runtime
            .variables
            .iter()
            .filter(|(k, _)| read.contains(k))
            .map(|(k, v)| (k.clone(), crate::hash::sha256_hex(v.to_string().as_bytes())))
            .collect()
    }
}
