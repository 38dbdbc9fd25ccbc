//! The pipeline for one cell: resolve the request, render the sections, project the tools.
//! Everything that measures, writes or lints a cell starts from a [`Compiled`].

mod accessors;
mod matrix;
mod prefix;
pub(crate) mod session;
mod text_format;

pub(crate) use matrix::COMPILE_STACK;
pub use matrix::{compile_matrix, RunBudget};
pub use prefix::{StaticPrefix, OUTSIDE_SECTIONS};
pub use session::{MessageCut, SessionDiff};
pub(crate) use text_format::ToolText;

use serde_json::Value;

use crate::diagnostic::Diagnostic;
use crate::error::{Error, Result};
use crate::model::provider::Provider;
use crate::model::section::Generator;
use crate::model::selection::Selection;
use crate::model::transport::Transport;
use crate::model::Project;
use crate::projection::{self, ProjectionOptions};
use crate::render::{self, RenderedSection, SlotUse};
use crate::resolve::matrix::Cell;
use crate::resolve::runtime::Runtime;
use crate::resolve::tools::ActiveTool;
use crate::resolve::{self, Request, Resolved};
use prefix::{place, static_prefix_of};
use text_format::TextFormat;

/// One compiled cell: exactly what the model receives, plus how it was derived.
#[derive(Debug, Clone, PartialEq)]
pub struct Compiled {
    /// The chosen profile and why.
    pub(crate) selection: Selection,
    /// The transport.
    pub(crate) transport: Transport,
    /// The provider of the projection (`None` for xml and json, which have no tools JSON).
    pub(crate) provider: Option<Provider>,
    /// The runtime values used.
    pub(crate) runtime: Runtime,
    /// The active tools, in order.
    pub(crate) tools: Vec<ActiveTool>,
    /// The rendered sections, in prompt order (empty ones dropped).
    pub(crate) sections: Vec<RenderedSection>,
    /// The full system prompt text.
    pub(crate) prompt: String,
    /// The value of the request's `tools` field (native only).
    pub(crate) projection: Option<std::sync::Arc<Value>>,
    /// The sub-agent this prompt belongs to, if any.
    pub(crate) subagent: Option<String>,
    /// The matrix case whose runtime values it was compiled with (`None`: the project's
    /// defaults or a request's own values). With the profile, transport and sub-agent above, the
    /// cell's identity ([`Compiled::cell`]): carried here, never beside it.
    pub(crate) case: Option<String>,
    /// How each injectable slot was filled.
    pub(crate) slots: Vec<SlotUse>,
    /// Problems that did not stop the render (a lenient render's dropped contributions).
    pub(crate) warnings: Vec<Diagnostic>,
    /// Where each section's text starts in the prompt, by index into `sections` (a layout may
    /// reorder or drop them): found once, here.
    pub(crate) offsets: Vec<Option<usize>>,
    /// The static prefix, computed once from `offsets` and `session`.
    pub(crate) prefix: StaticPrefix,
    /// Where the request parts from another session's: measured by compiling the cell again
    /// with another session's values.
    pub(crate) session: SessionDiff,
    /// Each active tool's text in the prompt of an xml or json cell (its documentation block, its
    /// action fragment), whether or not a section shows it; empty for native cells.
    pub(crate) tool_texts: Vec<ToolText>,
    /// The harness messages sent besides the system prompt (the profile's `messages:`).
    pub(crate) messages: Vec<render::RenderedMessage>,
    /// The templates rendered for this cell (sections, contributions, layout, the tool docs
    /// format): what its variables could shape.
    pub(crate) templates: Vec<String>,
}

/// Resolve a request against the project's defaults and policy, then compile it.
pub fn compile(project: &Project, req: &Request) -> Result<Compiled> {
    project.templates.work().open();
    compile_resolved(project, resolve::resolve(project, req)?)
}

/// Compile one fully specified main-prompt cell.
pub fn compile_cell(
    project: &Project,
    selection: Selection,
    transport: Transport,
    provider: Provider,
    runtime: Runtime,
) -> Result<Compiled> {
    project.templates.work().open();
    compile_resolved(project, resolve::resolve_cell(project, selection, transport, provider, runtime)?)
}

/// Compile a cell of the matrix with its case's runtime values.
pub fn compile_matrix_cell(project: &Project, cell: &Cell) -> Result<Compiled> {
    project.templates.work().open();
    let mut c = compile_resolved(project, resolve::resolve_matrix_cell(project, cell)?)?;
    c.case = cell.case.clone();
    Ok(c)
}

/// Render a resolved cell and project its tools, then measure what changes between sessions
/// (the cell compiled again with another session's values, see `session`). Its renders go on
/// the current thread's account, which the caller opened before resolving the cell (resolving
/// renders its variables); the second compile's too: measuring is work the cell costs.
pub fn compile_resolved(project: &Project, cell: Resolved) -> Result<Compiled> {
    let mut c = compile_once(project, cell)?;
    // The other session is compared by its texts and tools, never its projection: none is made.
    c.session = session::measure(project, &c, |other| compile_with(project, other, false));
    c.prefix = static_prefix_of(project, &c);
    Ok(c)
}

/// `c` as another session would compile it — the same values [`compile_resolved`] measured it
/// with (see `session`) — for what is made from a compiled cell later (a chat template's text):
/// `None` when no second compile succeeded.
pub(crate) fn other_session(project: &Project, c: &Compiled) -> Option<Compiled> {
    let variation = c.session.variation?;
    session::other(project, c, variation).and_then(|other| compile_once(project, other)).ok()
}

/// [`compile_resolved`] without measuring sessions: the request, as this session sends it.
fn compile_once(project: &Project, cell: Resolved) -> Result<Compiled> {
    compile_with(project, cell, true)
}

/// [`compile_once`], with the native projection of the tools made only if `projected`.
fn compile_with(project: &Project, cell: Resolved, projected: bool) -> Result<Compiled> {
    // Generated sections describe the tools in the prompt: the projections (or the project's own
    // text format) produce that text.
    let format = TextFormat::new(project, &cell);
    let mut format_warnings = Vec::new();
    let tool_texts = format.tool_texts(cell.transport, &cell.tools, &mut format_warnings)?;
    let generate = |g: Generator| -> Result<String> {
        Ok(match (g, cell.transport) {
            (Generator::ToolDocs, Transport::Xml) => {
                tool_texts.iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join(&project.tool_docs.separator)
            }
            (Generator::ActionSchema, Transport::Json) => {
                projection::actions::prompt_block(&cell.tools).map_err(|clash| clash_error(project, &clash))?
            }
            (Generator::ToolExamples, transport) => format.examples(transport, &cell.tools)?,
            (Generator::ToolGuidance, _) => cell
                .tools
                .iter()
                .filter_map(|t| t.guidance.as_deref())
                .collect::<Vec<_>>()
                .join(&project.assembly.guidance_separator),
            // Tool docs are the xml transport's, the action schema the json transport's: the
            // other transports describe their tools elsewhere (the projection, the schema).
            (Generator::ToolDocs, Transport::Native | Transport::Json)
            | (Generator::ActionSchema, Transport::Native | Transport::Xml) => String::new(),
        })
    };
    let mut r = render::render(project, &cell, &generate)?;
    r.warnings.extend(format_warnings);
    let mut templates = r.templates.clone();
    templates.extend(cell.tools.iter().flat_map(|t| t.text_templates.iter().cloned()));
    if format.uses_project_templates() {
        templates.extend(project.tool_docs.tool.iter().chain(&project.tool_docs.call).cloned());
    }
    let (provider, projection) = match cell.transport {
        Transport::Native => (
            Some(cell.provider),
            projected.then(|| {
                std::sync::Arc::new(projection::project(cell.provider, &cell.tools, ProjectionOptions::of(project)))
            }),
        ),
        Transport::Xml | Transport::Json => (None, None),
    };
    let offsets = place(&r.prompt, &r.sections);
    r.warnings.extend(unplaced(project, &r.sections, &offsets));
    Ok(Compiled {
        offsets,
        prefix: StaticPrefix::default(),
        session: SessionDiff::default(),
        selection: cell.selection,
        transport: cell.transport,
        provider,
        runtime: cell.runtime,
        tools: cell.tools,
        sections: r.sections,
        prompt: r.prompt,
        projection,
        subagent: cell.subagent,
        case: None,
        slots: r.slots,
        warnings: r.warnings,
        tool_texts,
        templates,
        messages: r.messages,
    })
}

/// A warning for each section that renders text the prompt does not hold as rendered: a layout
/// that leaves it out or rewrites it. Its tokens are then the layout's (`(outside sections)`),
/// and a figure for it would be false, so the report gives it none; this says why.
fn unplaced(project: &Project, sections: &[render::RenderedSection], offsets: &[Option<usize>]) -> Vec<Diagnostic> {
    let layout = project.layout.as_deref().unwrap_or("the layout");
    sections
        .iter()
        .zip(offsets)
        .filter(|(s, at)| at.is_none() && !s.text.is_empty())
        .map(|(s, _)| {
            Diagnostic::warning(format!(
                "section `{}` renders {} bytes that the prompt does not hold as rendered: {layout} leaves it out or rewrites it",
                s.id,
                s.text.len()
            ))
            .with_note("the report counts what the prompt holds of it as the layout's text, `(outside sections)`")
            .with_help(format!("print `sections.{}` as it is in {layout}, or leave the section out of the profile", s.id))
        })
        .collect()
}

/// A json-actions clash names a tool: point the error at that tool's declaration.
fn clash_error(project: &Project, clash: &projection::actions::FieldClash) -> Error {
    let d = clash.diagnostic();
    Error::project(match project.catalog.get(&clash.tool) {
        Some(t) => d.with_label(project.label(&t.name_span)),
        None => d,
    })
}
