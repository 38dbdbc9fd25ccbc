//! The pipeline for one cell: resolve the request, render the sections, project the tools.
//! Everything that measures, writes or lints a cell starts from a [`Compiled`].

use std::collections::BTreeMap;

use indexmap::IndexMap;
use serde_json::Value;

use crate::diagnostic::Diagnostic;
use crate::error::{Error, Result};
use crate::model::provider::Provider;
use crate::model::section::{Generator, SectionSource};
use crate::model::selection::Selection;
use crate::model::transport::Transport;
use crate::model::Project;
use crate::projection::{self, ProjectionOptions};
use crate::render::{self, RenderedSection, SlotUse};
use crate::resolve::matrix::Cell;
use crate::resolve::runtime::Runtime;
use crate::resolve::tools::ActiveTool;
use crate::resolve::{self, Request, Resolved};

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
    pub(crate) projection: Option<Value>,
    /// The sub-agent this prompt belongs to, if any.
    pub(crate) subagent: Option<String>,
    /// How each injectable slot was filled.
    pub(crate) slots: Vec<SlotUse>,
    /// Problems that did not stop the render (a lenient render's dropped contributions).
    pub(crate) warnings: Vec<Diagnostic>,
    /// Where each section's text starts in the prompt, by index into `sections` (a layout may
    /// reorder or drop them): found once, here.
    pub(crate) offsets: Vec<Option<usize>>,
    /// The static prefix, computed once from `offsets`.
    pub(crate) prefix: StaticPrefix,
    /// Each active tool's text in the prompt of an xml or json cell (its documentation block, its
    /// action fragment), whether or not a section shows it; empty for native cells.
    pub(crate) tool_texts: Vec<ToolText>,
    /// The harness messages sent besides the system prompt (the profile's `messages:`).
    pub(crate) messages: Vec<render::RenderedMessage>,
    /// The templates rendered for this cell (sections, contributions, layout, the tool docs
    /// format): what its variables could shape.
    pub(crate) templates: Vec<String>,
}

/// One tool's part of a text-transport prompt, and each of its parameters' part of that.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ToolText {
    /// The tool's whole text.
    pub(crate) text: String,
    /// Each active parameter's part of it, in order.
    pub(crate) params: Vec<String>,
}

/// What `with` has that `without` lacks, when `without` is `with` less one contiguous run of
/// text (a parameter's lines, for a template that loops over the parameters).
fn removed_run(with: &str, without: &str) -> String {
    let prefix = with.bytes().zip(without.bytes()).take_while(|(a, b)| a == b).count();
    let (a, b) = (&with.as_bytes()[prefix..], &without.as_bytes()[prefix.min(without.len())..]);
    let suffix = a.iter().rev().zip(b.iter().rev()).take_while(|(x, y)| x == y).count();
    let mut start = prefix;
    // Never cut inside a character.
    while !with.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = with.len() - suffix;
    while end < with.len() && !with.is_char_boundary(end) {
        end += 1;
    }
    with.get(start..end.max(start)).unwrap_or_default().to_string()
}

/// The text-transport formats of one cell: each tool's documentation (the project's
/// `tool_docs.tool` template or the built-in block) and example calls (`tool_docs.call`).
struct TextFormat<'a> {
    project: &'a Project,
    ctx: Option<minijinja::Value>,
}

impl TextFormat<'_> {
    fn new<'a>(project: &'a Project, cell: &Resolved) -> TextFormat<'a> {
        let custom = project.tool_docs.tool.is_some() || project.tool_docs.call.is_some();
        let ctx = (custom && cell.transport == Transport::Xml)
            .then(|| render::template_context(project, cell).into_iter().collect());
        TextFormat { project, ctx }
    }

    fn render(&self, name: &str, ctx: minijinja::Value) -> Result<String> {
        let cap = self.project.templates.limits().section_bytes;
        Ok(self.project.templates.render(name, &ctx, cap)?.trim_end_matches('\n').to_string())
    }

    /// Each tool's text in the prompt of a `transport` cell. With the project's own template, a
    /// parameter's part is what disappears when the tool is rendered without it.
    fn tool_texts(&self, transport: Transport, tools: &[ActiveTool]) -> Result<Vec<ToolText>> {
        match (transport, &self.ctx, &self.project.tool_docs.tool) {
            (Transport::Native, ..) => Ok(Vec::new()),
            (Transport::Json, ..) => Ok(tools
                .iter()
                .map(|t| ToolText {
                    text: serde_json::to_string(&projection::actions::tool_fragment(t)).unwrap_or_default(),
                    params: t.params.iter().map(projection::actions::param_fragment).collect(),
                })
                .collect()),
            (Transport::Xml, Some(base), Some(name)) => tools
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let block = |t: &ActiveTool| {
                        let tool = minijinja::Value::from_serialize(render::tool_value(t));
                        self.render(name, minijinja::context! { tool, index => i + 1, ..base.clone() })
                    };
                    let text = block(t)?;
                    let mut params = Vec::with_capacity(t.params.len());
                    for k in 0..t.params.len() {
                        let mut less = t.clone();
                        less.params.remove(k);
                        params.push(removed_run(&text, &block(&less)?));
                    }
                    Ok(ToolText { text, params })
                })
                .collect(),
            (Transport::Xml, ..) => Ok(tools
                .iter()
                .map(|t| ToolText {
                    text: projection::xml::tool_block(t),
                    params: t.params.iter().map(projection::xml::param_text).collect(),
                })
                .collect()),
        }
    }

    /// The example calls of `tools` in a `transport` cell.
    fn examples(&self, transport: Transport, tools: &[ActiveTool]) -> Result<String> {
        match (&self.ctx, &self.project.tool_docs.call) {
            (Some(base), Some(name)) if transport == Transport::Xml => {
                projection::examples::examples_with(tools, |t, e| {
                    let arguments: Vec<Value> = e
                        .arguments
                        .iter()
                        .map(|(k, v)| {
                            let text = v.as_str().map_or_else(|| v.to_string(), str::to_string);
                            serde_json::json!({"name": k, "value": v, "text": text})
                        })
                        .collect();
                    let tool = minijinja::Value::from_serialize(render::tool_value(t));
                    let arguments = minijinja::Value::from_serialize(&arguments);
                    self.render(name, minijinja::context! { tool, arguments, ..base.clone() })
                })
            }
            _ => Ok(projection::examples::examples(transport, tools)),
        }
    }
}

/// Where each section's text starts in `prompt`. Sections usually appear in order, so each
/// search starts where the previous one ended: linear in the prompt's size.
fn place(prompt: &str, sections: &[RenderedSection]) -> Vec<Option<usize>> {
    let mut from = 0;
    sections
        .iter()
        .map(|s| {
            let at = prompt
                .get(from..)
                .and_then(|rest| rest.find(&s.text))
                .map(|i| i + from)
                .or_else(|| prompt.find(&s.text));
            if let Some(i) = at {
                from = i + s.text.len();
            }
            at
        })
        .collect()
}

/// The static prefix of `prompt` given its sections and their offsets.
fn static_prefix_of(prompt: &str, sections: &[RenderedSection], offsets: &[Option<usize>]) -> StaticPrefix {
    let mut placed: Vec<(usize, &RenderedSection)> =
        sections.iter().zip(offsets).filter_map(|(s, o)| o.map(|i| (i, s))).collect();
    placed.sort_by_key(|(i, _)| *i);
    let first = placed.iter().position(|(_, s)| s.dynamic);
    let bytes = first.map_or(prompt.len(), |i| placed[i].0);
    let last_static = placed[..first.unwrap_or(placed.len())].last().map(|(_, s)| s.id.clone());
    StaticPrefix { bytes, last_static, first_dynamic: first.map(|i| placed[i].1.id.clone()) }
}

/// Where a prompt stops being the same from one session to the next: the end of its static
/// prefix, which provider prompt caching can reuse.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct StaticPrefix {
    /// Bytes of the prompt before the first section that changes between sessions (the whole
    /// prompt when none does).
    pub bytes: usize,
    /// The last static section before that point: where a cache breakpoint goes.
    pub last_static: Option<String>,
    /// The first section that changes between sessions, if any.
    pub first_dynamic: Option<String>,
}

/// Resolve a request against the project's defaults and policy, then compile it.
pub fn compile(project: &Project, req: &Request) -> Result<Compiled> {
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
    compile_resolved(project, resolve::resolve_cell(project, selection, transport, provider, runtime)?)
}

/// Compile a cell of the matrix with its case's runtime values.
pub fn compile_matrix_cell(project: &Project, cell: &Cell) -> Result<Compiled> {
    compile_resolved(project, resolve::resolve_matrix_cell(project, cell)?)
}

/// The stack size of the threads promptc compiles on (template rendering recurses, up to the
/// project's limits).
pub(crate) const COMPILE_STACK: usize = 16 << 20;

/// Compile every cell of the project's matrix (profiles × cases × transports, and sub-agents)
/// with its case's runtime values, spread over the machine's cores; in matrix order.
pub fn compile_matrix(project: &Project) -> Result<Vec<(Cell, Compiled)>> {
    let cells = crate::resolve::matrix::cells(project);
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, cells.len().max(1));
    let mut slots: Vec<Option<Result<Compiled>>> = (0..cells.len()).map(|_| None).collect();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .filter_map(|w| {
                let cells = &cells;
                // A larger stack than the default 2 MiB: template rendering recurses.
                std::thread::Builder::new()
                    .stack_size(COMPILE_STACK)
                    .spawn_scoped(scope, move || {
                        (w..cells.len())
                            .step_by(workers)
                            .map(|i| (i, compile_matrix_cell(project, &cells[i])))
                            .collect::<Vec<_>>()
                    })
                    .ok()
            })
            .collect();
        for h in handles {
            for (i, out) in h.join().unwrap_or_default() {
                slots[i] = Some(out);
            }
        }
    });
    cells
        .into_iter()
        .zip(slots)
        .map(|(cell, slot)| {
            let c = slot.unwrap_or_else(|| {
                Err(Error::new(
                    crate::error::ErrorKind::Internal,
                    vec![Diagnostic::error(format!("cell `{}` failed to compile", cell.stem()))],
                ))
            })?;
            Ok((cell, c))
        })
        .collect()
}

/// Render a resolved cell and project its tools.
pub fn compile_resolved(project: &Project, cell: Resolved) -> Result<Compiled> {
    // Generated sections describe the tools in the prompt: the projections (or the project's own
    // text format) produce that text.
    let format = TextFormat::new(project, &cell);
    let tool_texts = format.tool_texts(cell.transport, &cell.tools)?;
    let generate = |g: Generator| -> Result<String> {
        Ok(match (g, cell.transport) {
            (Generator::ToolDocs, Transport::Xml) => {
                tool_texts.iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join(&project.tool_docs.separator)
            }
            (Generator::ActionSchema, Transport::Json) => {
                projection::actions::prompt_block(&cell.tools).map_err(|clash| clash_error(project, &clash))?
            }
            (Generator::ToolExamples, transport) => format.examples(transport, &cell.tools)?,
            (Generator::ToolGuidance, _) => {
                cell.tools.iter().filter_map(|t| t.guidance.as_deref()).collect::<Vec<_>>().join("\n\n")
            }
            // Tool docs are the xml transport's, the action schema the json transport's: the
            // other transports describe their tools elsewhere (the projection, the schema).
            (Generator::ToolDocs, Transport::Native | Transport::Json)
            | (Generator::ActionSchema, Transport::Native | Transport::Xml) => String::new(),
        })
    };
    let r = render::render(project, &cell, &generate)?;
    let mut templates = r.templates.clone();
    if format.ctx.is_some() {
        templates.extend(project.tool_docs.tool.iter().chain(&project.tool_docs.call).cloned());
    }
    let (provider, projection) = match cell.transport {
        Transport::Native => (
            Some(cell.provider),
            Some(projection::project(cell.provider, &cell.tools, ProjectionOptions { strict: project.strict_tools })),
        ),
        Transport::Xml | Transport::Json => (None, None),
    };
    let offsets = place(&r.prompt, &r.sections);
    let prefix = static_prefix_of(&r.prompt, &r.sections, &offsets);
    Ok(Compiled {
        offsets,
        prefix,
        selection: cell.selection,
        transport: cell.transport,
        provider,
        runtime: cell.runtime,
        tools: cell.tools,
        sections: r.sections,
        prompt: r.prompt,
        projection,
        subagent: cell.subagent,
        slots: r.slots,
        warnings: r.warnings,
        tool_texts,
        templates,
        messages: r.messages,
    })
}

/// A json-actions clash names a tool: point the error at that tool's declaration.
fn clash_error(project: &Project, clash: &projection::actions::FieldClash) -> Error {
    let d = clash.diagnostic();
    Error::project(match project.catalog.get(&clash.tool) {
        Some(t) => d.with_label(project.label(&t.name_span)),
        None => d,
    })
}

impl Compiled {
    /// The full system prompt.
    pub fn prompt(&self) -> &str {
        &self.prompt
    }

    /// The harness messages as a provider's `messages` list: `[{"role", "content"}]`, or
    /// `None` when the profile declares none.
    pub fn messages_json(&self) -> Option<Value> {
        (!self.messages.is_empty()).then(|| {
            Value::Array(
                self.messages.iter().map(|m| serde_json::json!({"role": m.role.as_str(), "content": m.text})).collect(),
            )
        })
    }

    /// The value of the request's `tools` field (native cells only).
    pub fn projection(&self) -> Option<&Value> {
        self.projection.as_ref()
    }

    /// The tool projection as written (pretty JSON); the xml and json transports have none.
    pub fn tools_json(&self) -> Result<String> {
        match &self.projection {
            Some(p) => Ok(crate::json::to_pretty_json(p)),
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
        if let Some(profile) = project.profiles.get(&self.selection.profile) {
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

    /// SHA-256 of the value (canonical JSON) of each variable a template of this cell reads, by
    /// name: a variable nothing reads shaped nothing, so changing it changes no record.
    pub fn input_variables(&self, project: &Project) -> IndexMap<String, String> {
        let read: std::collections::BTreeSet<&String> =
            self.templates.iter().filter_map(|t| project.template_reads.get(t)).flatten().collect();
        self.runtime
            .variables
            .iter()
            .filter(|(k, _)| read.contains(k))
            .map(|(k, v)| (k.clone(), crate::hash::sha256_hex(v.to_string().as_bytes())))
            .collect()
    }
}
