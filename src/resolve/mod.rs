//! Resolving a request: the project's defaults and selection policy applied once, giving a
//! typed [`Resolved`] cell — profile, transport, provider, switches, variables, active tools,
//! sections — that rendering and projection take as it is.

use crate::diagnostic::{known_names_help, Diagnostic, Label};
use crate::error::{Error, Result};
use crate::model::provider::Provider;
use crate::model::selection::{Selection, SelectionInput};
use crate::model::transport::Transport;
use crate::model::{Project, SUBAGENT_SWITCH};

pub mod matrix;
pub mod runtime;
pub mod tools;

use matrix::{case_runtime, Cell};
use runtime::{Runtime, RuntimeInput};
use tools::{active_tools, ActiveTool};

/// Everything a compile request can specify; `None` means "use the project's default".
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// The explicit profile, model id and context window that selection looks at.
    pub selection: SelectionInput,
    /// The transport.
    pub transport: Option<Transport>,
    /// The provider of the native projection.
    pub provider: Option<Provider>,
    /// Switches and variables.
    pub runtime: RuntimeInput,
    /// Compile this sub-agent's prompt instead of the main one.
    pub subagent: Option<String>,
}

/// A request resolved against the project: one cell, fully specified.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    /// The chosen profile (known to the project) and why.
    pub selection: Selection,
    /// The transport (enabled in the project).
    pub transport: Transport,
    /// The provider of the native projection.
    pub provider: Provider,
    /// The runtime values.
    pub runtime: Runtime,
    /// The active tools, in order.
    pub tools: Vec<ActiveTool>,
    /// The section ids to render, in order (the profile's, or the sub-agent's).
    pub sections: Vec<String>,
    /// The sub-agent this prompt belongs to, if any.
    pub subagent: Option<String>,
}

/// Resolve a request: runtime values, then selection, transport and provider.
pub fn resolve(project: &Project, req: &Request) -> Result<Resolved> {
    resolve_with(project, req, Runtime::resolve(project, &req.runtime)?)
}

/// [`resolve`] with runtime values the caller already resolved from `req.runtime` (so a
/// context file is read once, and one nonce serves the whole command).
pub fn resolve_with(project: &Project, req: &Request, runtime: Runtime) -> Result<Resolved> {
    let mut sel = req.selection.clone();
    if sel.model.is_none() {
        sel.model = runtime.model.clone();
    }
    if sel.context_window.is_none() {
        sel.context_window = runtime.context_window.clone();
    }
    let selection = project.selection.select(&sel);
    let transport = req.transport.unwrap_or(project.defaults.transport);
    if !project.transports.contains(&transport) {
        let mut d = Diagnostic::error(format!("transport `{transport}` is not enabled in this project"));
        d = match &project.transports_span {
            Some(span) => d.with_label(project.label(span)),
            None => d
                .with_label(Label::file(project.fs().display(&project.manifest)))
                .with_note("the project declares no `transports:`, so it ships native and xml"),
        };
        return Err(Error::usage(d.with_help(format!(
            "enabled transports: {}; add it to `transports:` in promptc.yaml",
            project.transports.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(", ")
        ))));
    }
    let provider = req.provider.unwrap_or(project.defaults.provider);
    if transport == Transport::Native && !project.providers.contains(&provider) {
        return Err(Error::usage(
            Diagnostic::error(format!("provider `{provider}` is not enabled in this project")).with_help(format!(
                "enabled providers: {}; add it to `providers:` in promptc.yaml",
                project.providers.iter().map(|p| p.as_str()).collect::<Vec<_>>().join(", ")
            )),
        ));
    }
    match &req.subagent {
        Some(name) => resolve_subagent(project, selection, transport, provider, runtime, name),
        None => resolve_cell(project, selection, transport, provider, runtime),
    }
}

/// Resolve one fully specified main-prompt cell.
pub fn resolve_cell(
    project: &Project,
    selection: Selection,
    transport: Transport,
    provider: Provider,
    runtime: Runtime,
) -> Result<Resolved> {
    let profile = project.profile(&selection.profile)?;
    let tools = active_tools(&project.catalog, &profile.name, &profile.tools, &runtime.switches);
    let sections = profile.sections.clone();
    Ok(Resolved { selection, transport, provider, runtime, tools, sections, subagent: None })
}

/// Resolve a sub-agent's cell: the same profile and transport, the `subagent_run` switch on,
/// the profile's active tools filtered by the sub-agent's allowlist, and never a tool that
/// spawns sub-agents (no recursion), even if the allowlist names one.
pub fn resolve_subagent(
    project: &Project,
    selection: Selection,
    transport: Transport,
    provider: Provider,
    mut runtime: Runtime,
    name: &str,
) -> Result<Resolved> {
    let Some(sub) = project.subagents.get(name) else {
        let known: Vec<&str> = project.subagents.keys().map(String::as_str).collect();
        return Err(Error::usage(
            Diagnostic::error(format!("unknown sub-agent `{name}`")).with_help(known_names_help(
                "sub-agent",
                name,
                &known,
            )),
        ));
    };
    let profile = project.profile(&selection.profile)?;
    runtime.switches.insert(SUBAGENT_SWITCH.to_string(), true);
    let tools: Vec<ActiveTool> = active_tools(&project.catalog, &profile.name, &profile.tools, &runtime.switches)
        .into_iter()
        .filter(|t| sub.tools.contains(&t.name) && !t.spawns_subagents)
        .collect();
    let sections = sub.sections.clone().unwrap_or_else(|| profile.sections.clone());
    Ok(Resolved { selection, transport, provider, runtime, tools, sections, subagent: Some(name.to_string()) })
}

/// Resolve a cell of the matrix with its case's runtime values (native cells with the
/// project's first provider; other providers' projections derive from the same tools).
pub fn resolve_matrix_cell(project: &Project, cell: &Cell) -> Result<Resolved> {
    let provider = project.providers.first().copied().unwrap_or(project.defaults.provider);
    let sel = Selection { profile: cell.profile.clone(), reason: "snapshot matrix".into() };
    let runtime = case_runtime(project, cell.case.as_deref(), &cell.stem());
    match &cell.subagent {
        Some(sub) => resolve_subagent(project, sel, cell.transport, provider, runtime, sub),
        None => resolve_cell(project, sel, cell.transport, provider, runtime),
    }
}
