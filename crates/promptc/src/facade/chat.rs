//! The chat transport's jobs: a cell through a chat template (`render --transport chat`), and
//! its tokens with the model's own tokenizer (`report --transport chat`).

use serde_json::json;

use crate::chat::{self, ChatOptions, ChatTemplate, ChatText};
use crate::compile::Compiled;
use crate::error::Result;
use crate::measure::chat::{ChatAccount, HfTokenizer};
use crate::model::chat::ChatTemplateDecl;
use crate::model::{Project, Transport};
use crate::resolve::Request;

use super::TokenCounter;

/// A cell rendered through a chat template.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ChatRender {
    /// The cell as compiled: the native transport, projected for OpenAI Chat Completions.
    pub compiled: Compiled,
    /// The templated text.
    pub chat: ChatText,
    /// The tools the template was given (OpenAI Chat Completions' form), `None` when the cell
    /// has none.
    pub tools: Option<serde_json::Value>,
}

impl ChatRender {
    /// The tools the template was given, as `render --tools --provider openai` prints them
    /// (`[]` for a cell without tools, to which the template is given none).
    pub fn tools_json(&self) -> String {
        crate::json::to_pretty_json(self.tools.as_ref().unwrap_or(&serde_json::Value::Array(Vec::new())))
    }

    /// `render --transport chat --format json`: the text, the template, the date
    /// `strftime_now` gave, and the conversation's parts located in the text.
    pub fn to_json(&self) -> String {
        let c = &self.compiled;
        crate::json::document(json!({
            "transport": "chat",
            "profile": c.selection.profile,
            "case": c.case,
            "subagent": c.subagent,
            "template": self.chat.template,
            "date": self.chat.date,
            "date_fixed": self.chat.date_fixed,
            "text": self.chat.text,
            "prompt_found": self.chat.prompt_found,
            "parts": self.chat.parts.iter().map(|p| {
                let mut v = match &p.kind {
                    chat::ChatPartKind::Section(id) => json!({"kind": "section", "id": id}),
                    chat::ChatPartKind::Message(i) => json!({"kind": "message", "index": i + 1}),
                };
                v["start"] = json!(p.range.start);
                v["end"] = json!(p.range.end);
                v
            }).collect::<Vec<_>>(),
        }))
    }
}

/// The request's cell as a chat template renders it: compiled with the native transport
/// (whatever transport and provider it asked for), its tools as OpenAI Chat Completions writes
/// them. `template` is the caller's (`--chat-template FILE`, with `options`); without one, the
/// project's `chat_templates:` entry for the request's model, else the first for the cell's
/// profile, with its variables and date (`options` on top).
pub fn render_chat(
    project: &Project,
    request: &Request,
    template: Option<&ChatTemplate>,
    options: &ChatOptions,
) -> Result<ChatRender> {
    let (compiled, template, options, _) = chat_cell(project, request, template, options)?;
    let chat = chat::apply(project, &compiled, &template, &options)?;
    let tools = chat::tools(project, &compiled);
    Ok(ChatRender { compiled, chat, tools })
}

/// The compiled cell, the template and options that render it, and the project's entry they
/// come from (none for the caller's own template).
fn chat_cell<'p>(
    project: &'p Project,
    request: &Request,
    template: Option<&ChatTemplate>,
    options: &ChatOptions,
) -> Result<(Compiled, ChatTemplate, ChatOptions, Option<&'p ChatTemplateDecl>)> {
    // The native cell with the project's own provider (the template is given the OpenAI
    // Chat Completions form of its tools whichever providers the project enables).
    let mut req = request.clone().transport(Transport::Native);
    req.provider = None;
    let compiled = crate::compile::compile(project, &req)?;
    if let Some(t) = template {
        return Ok((compiled, t.clone(), options.clone(), None));
    }
    let decls = &project.chat_templates;
    let by_model = request.model.as_deref().and_then(|m| decls.values().find(|d| d.for_model(m)));
    let decl = by_model.or_else(|| decls.values().find(|d| d.covers(compiled.profile())));
    match decl {
        Some(d) => Ok((compiled, d.template.clone(), ChatOptions::of(d, options), Some(d))),
        None => Err(crate::diagnostic::Diagnostic::error(format!(
            "no chat template for profile `{}`{}",
            compiled.profile(),
            request.model.as_deref().map(|m| format!(" or model `{m}`")).unwrap_or_default()
        ))
        .with_help("name a chat template file, or declare one under `chat_templates:` in promptc.yaml")
        .into_error(crate::error::ErrorKind::Usage)),
    }
}

/// A chat cell's tokens.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ChatReport {
    /// The cell and its templated text.
    pub render: ChatRender,
    /// Its tokens, whole and in parts.
    pub account: ChatAccount,
    /// What counted them: the tokenizer file, or the project's encoding.
    pub tokenizer: String,
    /// Whether the counts are the model's own (a tokenizer file), not an OpenAI encoding's.
    pub exact: bool,
    /// What the template leaves out of the cell (the system prompt, every tool), and why a
    /// share could not be told.
    pub warnings: Vec<crate::diagnostic::Diagnostic>,
    /// Why the cacheable prefix could not be measured, when it could not.
    pub unmeasured: Option<String>,
}

impl ChatReport {
    /// `report --transport chat --format json`.
    pub fn to_json(&self) -> String {
        let r = &self.render;
        let total = self.account.total.tokens;
        crate::json::document(json!({
            "transport": "chat",
            "profile": r.compiled.selection.profile,
            "case": r.compiled.case,
            "template": r.chat.template,
            "date": r.chat.date,
            "tokenizer": {"name": self.tokenizer, "model_own": self.exact},
            "total": self.account.total,
            "rows": self.account.rows,
            "cache": self.account.cacheable.map(|c| json!({"cacheable": c, "uncached": total - c})),
            "warnings": self.warnings.iter().map(|w| w.message.clone()).collect::<Vec<_>>(),
        }))
    }
}

/// Count the request's chat cell: with `tokenizer` (the model's `tokenizer.json`) when given,
/// else with `counter`'s encoding (an estimate for an open-weight model, said so).
pub fn report_chat(
    project: &Project,
    request: &Request,
    template: Option<&ChatTemplate>,
    options: &ChatOptions,
    tokenizer: Option<&HfTokenizer>,
    counter: &mut TokenCounter,
) -> Result<ChatReport> {
    let (compiled, template, options, decl) = chat_cell(project, request, template, options)?;
    // The caller's tokenizer, else the project entry's.
    let own;
    let tokenizer = match (tokenizer, decl.and_then(|d| d.tokenizer.as_ref())) {
        (Some(t), _) => Some(t),
        (None, Some((rel, span))) => {
            own = project_tokenizer(project, rel, span)?;
            Some(&own)
        }
        (None, None) => None,
    };
    // One date for every render, so the tools block is the only difference it makes.
    let fixed = options.date.is_some();
    let options = match options.date {
        Some(_) => options,
        None => options.date(chat::ChatDate::now()),
    };
    let mut text = chat::apply(project, &compiled, &template, &options)?;
    text.date_fixed = fixed;
    let shown = chat::tools_shown(project, &compiled, &template, &options, &text);
    let cut = chat::session_cut(project, &compiled, &template, &options, &text);
    let name = decl.map_or_else(|| template.display(!compiled.tools.is_empty()), |d| d.name.clone());
    let warnings = chat::dropped(&name, &compiled, &text, &shown);
    let tools = chat::tools(project, &compiled);
    let render = ChatRender { compiled, chat: text, tools };
    let measured = cut.as_ref().ok().copied();
    let (account, name, exact) = match tokenizer {
        Some(t) => {
            let mut marks = |s: &str, points: &[usize]| t.marks(s, points);
            let a = crate::measure::chat::account(&render.compiled, &render.chat, &shown, measured, &mut marks)?;
            (a, t.display().to_string(), true)
        }
        None => {
            let name = counter.tokenizer().name();
            let mut marks = |s: &str, points: &[usize]| counter.marks(s, points);
            (crate::measure::chat::account(&render.compiled, &render.chat, &shown, measured, &mut marks)?, name, false)
        }
    };
    Ok(ChatReport { render, account, tokenizer: name, exact, warnings, unmeasured: cut.err() })
}

/// A `chat_templates:` entry's `tokenizer:`, read from the project.
fn project_tokenizer(project: &Project, rel: &str, span: &crate::diagnostic::Span) -> Result<HfTokenizer> {
    let at = || project.label(span);
    let limit = crate::measure::chat::MAX_TOKENIZER_FILE;
    let (norm, bytes) = project.fs.read_bytes(rel, limit, Some(&at))?;
    let display = project.fs.display(&norm);
    HfTokenizer::from_bytes(&display, &bytes).map_err(|why| {
        crate::diagnostic::Diagnostic::error(format!("cannot use the tokenizer file {display}: {why}"))
            .with_label(at())
            .with_help("give a Hugging Face `tokenizer.json` (the file beside a model's weights)")
            .into_error(crate::error::ErrorKind::Project)
    })
}
