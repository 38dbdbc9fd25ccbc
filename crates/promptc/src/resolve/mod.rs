//! Resolving a request: the project's defaults and selection policy applied once, giving a
//! typed [`Resolved`] cell — profile, transport, provider, switches, variables, active tools,
//! sections — that rendering and projection take as it is.

use crate::diagnostic::{known_names_help, Diagnostic, Label};
use crate::error::{Error, Result};
use crate::model::provider::Provider;
use crate::model::selection::{Selection, SelectionInput};
use crate::model::transport::Transport;
use crate::model::{Project, SUBAGENT_SWITCH};

use std::path::PathBuf;

use serde_json::Value;

pub mod matrix;
pub mod options;
pub mod runtime;
pub mod session;
pub mod tools;
pub mod values;

use matrix::{case_runtime, Cell};
use runtime::Runtime;
use tools::{active_tools, ActiveTool};

/// Everything a compile request can specify; `None` (or empty) means "use the project's
/// default". Build one with the chained setters:
///
/// ```
/// use promptc::{Request, Transport};
///
/// let req = Request::new().profile("lite").transport(Transport::Xml).switch("browser", true);
/// assert_eq!(req.profile.as_deref(), Some("lite"));
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Request {
    /// The profile; wins over the selection policy.
    pub profile: Option<String>,
    /// The model id the selection policy looks at (and the report's tokenizer follows).
    pub model: Option<String>,
    /// Context window in tokens, for profile selection: `32000`, `32_000`, `3.2e4`, `32k`, `1M`
    /// (a fraction is rounded down; anything else is a usage error).
    pub context_window: Option<String>,
    /// The transport.
    pub transport: Option<Transport>,
    /// The provider of the native projection (only with the native transport).
    pub provider: Option<Provider>,
    /// Switch values, applied in order after the context file.
    pub switches: Vec<(String, bool)>,
    /// String-valued switch values, applied in order after the context file.
    pub choices: Vec<(String, String)>,
    /// Variable values, applied in order after the context file.
    pub variables: Vec<(String, Value)>,
    /// A YAML or JSON file with `switches:`, `variables:`, `model:` and `context_window:`.
    pub context_file: Option<PathBuf>,
    /// The text of such a file given in memory (standard input), named `<stdin>` in messages and
    /// records; it takes the place of `context_file`.
    pub context_text: Option<String>,
    /// The untrusted-content nonce (default: random per compile).
    pub nonce: Option<String>,
    /// Drop a tool contribution whose template fails (with a warning) instead of failing.
    pub lenient: bool,
    /// Compile this sub-agent's prompt instead of the main one.
    pub subagent: Option<String>,
}

impl Request {
    /// A request for the project's defaults.
    pub fn new() -> Request {
        Request::default()
    }

    /// Ask for `profile`.
    pub fn profile(mut self, profile: impl Into<String>) -> Request {
        self.profile = Some(profile.into());
        self
    }

    /// The model id.
    pub fn model(mut self, model: impl Into<String>) -> Request {
        self.model = Some(model.into());
        self
    }

    /// The context window, as given.
    pub fn context_window(mut self, window: impl Into<String>) -> Request {
        self.context_window = Some(window.into());
        self
    }

    /// Ask for `transport`.
    pub fn transport(mut self, transport: Transport) -> Request {
        self.transport = Some(transport);
        self
    }

    /// Ask for `provider`'s projection.
    pub fn provider(mut self, provider: Provider) -> Request {
        self.provider = Some(provider);
        self
    }

    /// Set switch `name`.
    pub fn switch(mut self, name: impl Into<String>, on: bool) -> Request {
        self.switches.push((name.into(), on));
        self
    }

    /// Set string-valued switch `name` to `value` (one of its `values:`).
    pub fn choice(mut self, name: impl Into<String>, value: impl Into<String>) -> Request {
        self.choices.push((name.into(), value.into()));
        self
    }

    /// Set variable `name`.
    pub fn variable(mut self, name: impl Into<String>, value: impl Into<Value>) -> Request {
        self.variables.push((name.into(), value.into()));
        self
    }

    /// Read runtime values from a context file.
    pub fn context_file(mut self, path: impl Into<PathBuf>) -> Request {
        self.context_file = Some(path.into());
        self
    }

    /// Read runtime values from a context file's text (standard input), named `<stdin>`.
    pub fn context_text(mut self, text: impl Into<String>) -> Request {
        self.context_text = Some(text.into());
        self
    }

    /// Use `nonce` for the untrusted-content delimiters.
    pub fn nonce(mut self, nonce: impl Into<String>) -> Request {
        self.nonce = Some(nonce.into());
        self
    }

    /// Drop failing tool contributions with a warning instead of failing.
    pub fn lenient(mut self, lenient: bool) -> Request {
        self.lenient = lenient;
        self
    }

    /// Compile sub-agent `name`'s prompt.
    pub fn subagent(mut self, name: impl Into<String>) -> Request {
        self.subagent = Some(name.into());
        self
    }
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
    resolve_with(project, req, Runtime::resolve(project, req)?)
}

/// [`resolve`] with runtime values the caller already resolved from `req` (so a context file
/// is read once, and one nonce serves the whole command).
pub fn resolve_with(project: &Project, req: &Request, runtime: Runtime) -> Result<Resolved> {
    let selection = project.selection.select(&SelectionInput {
        explicit: req.profile.clone(),
        model: req.model.clone().or_else(|| runtime.model.clone()),
        context_window: req.context_window.clone().or_else(|| runtime.context_window.clone()),
    });
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
    if let (Transport::Xml | Transport::Json, Some(p)) = (transport, req.provider) {
        return Err(Error::usage(
            Diagnostic::error(format!("provider `{p}` has no effect with the {transport} transport")).with_help(
                format!("the {transport} transport describes the tools inside the prompt and sends no tools JSON"),
            ),
        ));
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
    let texts = values::ToolTexts::new(project, &runtime, &profile.name, transport);
    let tools = active_tools(
        &project.catalog,
        &profile.name,
        &profile.tools,
        &runtime.switches,
        &runtime.choices,
        Some(&texts),
    )?;
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
    let texts = values::ToolTexts::new(project, &runtime, &profile.name, transport);
    let tools: Vec<ActiveTool> = tools::active_tools_where(
        &project.catalog,
        &profile.name,
        &profile.tools,
        &runtime.switches,
        &runtime.choices,
        |t| sub.tools.contains(&t.name) && !t.spawns_subagents,
        Some(&texts),
    )?;
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
