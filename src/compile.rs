//! The pipeline for one matrix cell: resolve (profile, switches, tools) → render → project.

use std::collections::BTreeMap;

use indexmap::IndexMap;
use serde_json::Value;

use crate::catalog::ActiveTool;
use crate::context::{Runtime, RuntimeInput};
use crate::diagnostic::Diagnostic;
use crate::error::Result;
use crate::project::{Project, SectionSource};
use crate::providers::{self, ProjectionOptions, Provider};
use crate::render::{self, RenderedSection};
use crate::selection::{Selection, SelectionInput};
use crate::transport::Transport;

/// Everything a render request can specify; `None` means "use the project's default".
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// `--profile`, `--model`, `--context-window`.
    pub selection: SelectionInput,
    /// `--transport`.
    pub transport: Option<Transport>,
    /// `--provider`.
    pub provider: Option<Provider>,
    /// Switches and variables.
    pub runtime: RuntimeInput,
    /// `--subagent`: render this sub-agent's prompt instead of the main one.
    pub subagent: Option<String>,
}

/// One compiled cell: exactly what the model receives, plus how it was derived.
#[derive(Debug, Clone, PartialEq)]
pub struct Compiled {
    /// The chosen profile and why.
    pub selection: Selection,
    /// The transport.
    pub transport: Transport,
    /// The provider of the projection (`None` for XML, which has no tools JSON).
    pub provider: Option<Provider>,
    /// The runtime values used.
    pub runtime: Runtime,
    /// The active tools, in order.
    pub tools: Vec<ActiveTool>,
    /// The rendered sections, in prompt order (empty ones dropped).
    pub sections: Vec<RenderedSection>,
    /// The full system prompt text.
    pub prompt: String,
    /// The value of the request's `tools` field (native only).
    pub projection: Option<Value>,
    /// The sub-agent this prompt belongs to, if any.
    pub subagent: Option<String>,
    /// How each injectable slot was filled.
    pub slots: Vec<render::SlotUse>,
    /// Problems that did not stop the render (`--lenient`).
    pub warnings: Vec<Diagnostic>,
}

/// Resolve a request against the project's defaults and policy, then compile it.
pub fn compile(project: &Project, req: &Request) -> Result<Compiled> {
    compile_with(project, req, Runtime::resolve(project, &req.runtime)?)
}

/// [`compile`] with runtime values the caller already resolved from `req.runtime` (so a
/// context file is read once, and one nonce serves the whole command).
pub fn compile_with(project: &Project, req: &Request, runtime: Runtime) -> Result<Compiled> {
    let mut sel = req.selection.clone();
    if sel.model.is_none() {
        sel.model = runtime.model.clone();
    }
    if sel.context_window.is_none() {
        sel.context_window = runtime.context_window.clone();
    }
    let selection = project.selection.select(&sel);
    project.profile(&selection.profile)?;
    let transport = req.transport.unwrap_or(project.defaults.transport);
    if !project.transports.contains(&transport) {
        let mut d = Diagnostic::error(format!("transport `{transport}` is not enabled in this project"));
        if let Some(f) = project.files.get(&project.manifest) {
            d = match f.text.find("\ntransports:") {
                Some(i) => d.with_label(f.label_bytes(i + 1, i + 11)),
                None => d
                    .with_label(crate::diagnostic::Label::file(&f.display))
                    .with_note("the project declares no `transports:`, so it ships native and xml"),
            };
        }
        return Err(d
            .with_help(format!(
                "enabled transports: {}; add it to `transports:` in promptc.yaml",
                project.transports.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(", ")
            ))
            .into());
    }
    let provider = req.provider.unwrap_or(project.defaults.provider);
    if transport == Transport::Native && !project.providers.contains(&provider) {
        return Err(Diagnostic::error(format!("provider `{provider}` is not enabled in this project"))
            .with_help(format!(
                "enabled providers: {}; add it to `providers:` in promptc.yaml",
                project.providers.iter().map(|p| p.as_str()).collect::<Vec<_>>().join(", ")
            ))
            .into());
    }
    match &req.subagent {
        Some(name) => compile_subagent(project, selection, transport, provider, runtime, name),
        None => compile_cell(project, selection, transport, provider, runtime),
    }
}

/// Compile one fully specified cell.
pub fn compile_cell(
    project: &Project,
    selection: Selection,
    transport: Transport,
    provider: Provider,
    runtime: Runtime,
) -> Result<Compiled> {
    let profile = project.profile(&selection.profile)?;
    let tools = project.catalog.resolve(&profile.name, &profile.tools, &runtime.switches);
    finish(project, selection, &profile.sections, transport, provider, runtime, tools, None)
}

/// Compile a sub-agent's prompt: the same profile and transport, the `subagent_run` switch
/// on, the profile's active tools filtered by the sub-agent's allowlist, and never a tool
/// that spawns sub-agents (no recursion), even if the allowlist names one.
pub fn compile_subagent(
    project: &Project,
    selection: Selection,
    transport: Transport,
    provider: Provider,
    mut runtime: Runtime,
    name: &str,
) -> Result<Compiled> {
    let Some(sub) = project.subagents.get(name) else {
        let known: Vec<&str> = project.subagents.keys().map(String::as_str).collect();
        return Err(Diagnostic::error(format!("unknown sub-agent `{name}`"))
            .with_help(crate::diagnostic::known_names_help("sub-agent", name, &known))
            .into());
    };
    let profile = project.profile(&selection.profile)?;
    runtime.switches.insert(crate::project::SUBAGENT_SWITCH.to_string(), true);
    let tools: Vec<ActiveTool> = project
        .catalog
        .resolve(&profile.name, &profile.tools, &runtime.switches)
        .into_iter()
        .filter(|t| sub.tools.contains(&t.name) && !t.spawns_subagents)
        .collect();
    let sections = sub.sections.clone().unwrap_or_else(|| profile.sections.clone());
    finish(project, selection, &sections, transport, provider, runtime, tools, Some(name.to_string()))
}

#[allow(clippy::too_many_arguments)]
fn finish(
    project: &Project,
    selection: Selection,
    sections: &[String],
    transport: Transport,
    provider: Provider,
    runtime: Runtime,
    tools: Vec<ActiveTool>,
    subagent: Option<String>,
) -> Result<Compiled> {
    let profile = project.profile(&selection.profile)?;
    let r = render::render(project, profile, sections, transport, &runtime, &tools)?;
    let (provider, projection) = match transport {
        Transport::Native => (
            Some(provider),
            Some(providers::project(provider, &tools, ProjectionOptions { strict: project.strict_tools })),
        ),
        Transport::Xml | Transport::Json => (None, None),
    };
    Ok(Compiled {
        selection,
        transport,
        provider,
        runtime,
        tools,
        sections: r.sections,
        prompt: r.prompt,
        projection,
        subagent,
        slots: r.slots,
        warnings: r.warnings,
    })
}

impl Compiled {
    /// The tool projection as written (`render --tools`); XML and JSON cells have none.
    pub fn tools_json(&self) -> Result<String> {
        match &self.projection {
            Some(p) => Ok(providers::to_pretty_json(p)),
            None => Err(Diagnostic::error(format!(
                "the {} transport has no tool projection: its tools are described in the prompt",
                self.transport
            ))
            .with_help("use --transport native to get the tools JSON, or drop --tools to print the prompt")
            .into()),
        }
    }

    /// SHA-256 of every project file that shaped this cell, by project-relative path.
    pub fn input_files(&self, project: &Project) -> BTreeMap<String, String> {
        let mut out = BTreeMap::new();
        let mut add = |rel: &str| {
            if let Some(f) = project.files.get(rel) {
                out.insert(f.rel.clone(), f.sha256.clone());
            }
        };
        add(&project.manifest);
        for t in project.catalog.tools() {
            add(&t.file);
        }
        if let Some(l) = &project.layout {
            add(l);
        }
        if let Ok(profile) = project.profile(&self.selection.profile) {
            for id in &profile.sections {
                if let Some(SectionSource::Template(name)) = project.sections.get(id).map(|s| &s.source) {
                    add(name);
                }
            }
        }
        for f in project.templates.included_files() {
            out.insert(f.rel.clone(), f.sha256.clone());
        }
        out
    }

    /// SHA-256 of each variable's value (canonical JSON), by name.
    pub fn input_variables(&self) -> IndexMap<String, String> {
        self.runtime
            .variables
            .iter()
            .map(|(k, v)| (k.clone(), crate::source::sha256_hex(v.to_string().as_bytes())))
            .collect()
    }
}
