//! The text-transport formats of a cell: each tool's text in an xml or json prompt (the
//! project's own `tool_docs:` templates or the built-in blocks), each parameter's part of that
//! text, and the example calls.

use crate::diagnostic::Diagnostic;
use serde_json::Value;

use crate::error::Result;
use crate::model::transport::Transport;
use crate::model::Project;
use crate::projection;
use crate::render;
use crate::resolve::tools::ActiveTool;
use crate::resolve::Resolved;

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
    let end = end.max(start);
    let (s, e) = at_line_start(with.as_bytes(), start, end);
    with.get(s..e).or_else(|| with.get(start..end)).unwrap_or_default().to_string()
}

/// The run `[start, end)` of `text` slid left to start a line, where it can be: removing
/// `* part…\n` before `* location…` leaves a run `part…\n* ` just as well, but that one
/// overlaps the next parameter's lines, and the parameters' parts must not overlap (each is a
/// range of the prompt its tokens are counted in). A run slides while the byte before it is
/// its last (the text without it is the same); one that cannot reach a line start stays.
fn at_line_start(text: &[u8], start: usize, end: usize) -> (usize, usize) {
    let (mut s, mut e) = (start, end);
    while s > 0 && e > s && text[s - 1] != b'\n' && text[s - 1] == text[e - 1] {
        s -= 1;
        e -= 1;
    }
    if s == 0 || text[s - 1] == b'\n' {
        (s, e)
    } else {
        (start, end)
    }
}

/// The warning for a parameter whose share of its tool's docs is unknown: the project's
/// `tool_docs.tool` template fails on the tool without it (`error`).
fn unknown_share(tool: &str, param: &str, error: &crate::error::Error) -> Diagnostic {
    let why = error.diagnostics().first().map_or_else(String::new, |d| d.message.clone());
    Diagnostic::warning(format!(
        "the report counts no tokens for parameter `{param}` of `{tool}` in the tool docs: the `tool_docs.tool` \
         template fails on the tool without it ({why})"
    ))
    .with_help(
        "the tool's whole text is counted; to see each parameter's share, let the template render a tool without it",
    )
}

/// The text-transport formats of one cell: each tool's documentation (the project's
/// `tool_docs.tool` template or the built-in block) and example calls (`tool_docs.call`).
pub(super) struct TextFormat<'a> {
    project: &'a Project,
    /// The template context of the project's own `tool_docs:` templates: only for an xml cell of
    /// a project that declares them (the built-in formats need none).
    ctx: Option<promptc_template::Value>,
}

impl TextFormat<'_> {
    /// The formats of `cell`.
    pub(super) fn new<'a>(project: &'a Project, cell: &Resolved) -> TextFormat<'a> {
        let custom = project.tool_docs.tool.is_some() || project.tool_docs.call.is_some();
        let ctx = (custom && cell.transport == Transport::Xml)
            .then(|| render::template_context(project, cell).into_iter().collect());
        TextFormat { project, ctx }
    }

    /// Whether the project's own `tool_docs:` templates write this cell's tool texts (so they
    /// count among the templates the cell rendered).
    pub(super) fn uses_project_templates(&self) -> bool {
        self.ctx.is_some()
    }

    /// One of the project's `tool_docs:` templates rendered, capped as a section is, without its
    /// trailing newlines.
    fn render(&self, name: &str, ctx: promptc_template::Value) -> Result<String> {
        let cap = self.project.templates.limits().section_bytes;
        let text = self.project.templates.render(name, &ctx, cap)?;
        // The final newlines go (the separator says what comes between two tools), unless the
        // project keeps every byte as rendered (`assembly: {trim: false}`).
        Ok(if self.project.assembly.trim { text.trim_end_matches('\n').to_string() } else { text })
    }

    /// Each tool's text in the prompt of a `transport` cell. With the project's own template, a
    /// parameter's part is what disappears when the tool is rendered without it.
    /// A parameter whose share cannot be worked out (see below) is counted as none, with a
    /// warning in `warnings`.
    pub(super) fn tool_texts(
        &self,
        transport: Transport,
        tools: &[ActiveTool],
        warnings: &mut Vec<Diagnostic>,
    ) -> Result<Vec<ToolText>> {
        let warnings = std::cell::RefCell::new(warnings);
        match (transport, &self.ctx, &self.project.tool_docs.tool) {
            (Transport::Native, ..) => Ok(Vec::new()),
            (Transport::Json, ..) => Ok(tools
                .iter()
                .map(|t| ToolText {
                    text: serde_json::to_string(&projection::actions::tool_fragment(t)).unwrap_or_default(),
                    params: projection::actions::param_fragments(t),
                })
                .collect()),
            (Transport::Xml, Some(base), Some(name)) => {
                // The prompt's cap holds the tools' texts together: stop at the tool that
                // crosses it, not after rendering every tool (and again without each parameter).
                let (cap, mut total) = (self.project.templates.limits().prompt_bytes, 0usize);
                tools
                    .iter()
                    .enumerate()
                    .map(|(i, t)| {
                        let block = |t: &ActiveTool| {
                            let tool = promptc_template::Value::from_serialize(render::tool_value(t));
                            self.render(name, promptc_template::context! { tool, index => i + 1, ..base.clone() })
                        };
                        let text = block(t)?;
                        total += text.len() + 2;
                        if total > cap {
                            return Err(render::prompt_too_large(self.project, total, cap));
                        }
                        let mut params = Vec::with_capacity(t.params.len());
                        for k in 0..t.params.len() {
                            let mut less = t.clone();
                            less.params.remove(k);
                            // The tool without one parameter may not render (a template reading
                            // `tool.parameters[0]` of a one-parameter tool) while the tool does:
                            // that parameter's part is unknown, counted as none, and said so.
                            match block(&less) {
                                Ok(without) => params.push(removed_run(&text, &without)),
                                Err(e) => {
                                    params.push(String::new());
                                    warnings.borrow_mut().push(unknown_share(&t.name, &t.params[k].name, &e));
                                }
                            }
                        }
                        Ok(ToolText { text, params })
                    })
                    .collect()
            }
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
    pub(super) fn examples(&self, transport: Transport, tools: &[ActiveTool]) -> Result<String> {
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
                    let tool = promptc_template::Value::from_serialize(render::tool_value(t));
                    let arguments = promptc_template::Value::from_serialize(&arguments);
                    self.render(name, promptc_template::context! { tool, arguments, ..base.clone() })
                })
            }
            _ => Ok(projection::examples::examples(transport, tools)),
        }
    }
}
