//! The `chat` transport: a compiled cell put through an open-weight model's chat template, as
//! an inference server (vLLM, TGI, llama.cpp, Ollama) does before the model sees anything.
//!
//! The reference is `transformers`' `apply_chat_template(conversation, tools=TOOLS,
//! tokenize=False, add_generation_prompt=True, **variables)`: `conversation` is the cell's system
//! prompt (without its final newline) as a `system` message followed by its harness messages,
//! and `TOOLS` the cell's tools as the OpenAI Chat Completions projection writes them (`None`
//! when the cell has none, as a server passes for a request without tools). The template runs
//! in an environment set as transformers sets its own (see `env`).

mod shown;

pub use crate::model::chat::{ChatDate, ChatTemplate};
pub use shown::{dropped, session_cut, tools_shown, ToolsShown};

use indexmap::IndexMap;
use promptc_template::Value;

use crate::compile::Compiled;
use crate::diagnostic::Diagnostic;
use crate::error::{Error, ErrorKind, Result};
use crate::model::chat::ChatTemplateDecl;
use crate::model::transport::Transport;
use crate::model::Project;

/// How a chat template is applied: its variables and the date `strftime_now` reads.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ChatOptions {
    /// Extra template variables (`bos_token`, `eos_token`, any other: strings, or any JSON
    /// value, as `apply_chat_template`'s keyword arguments), over the template file's own
    /// special tokens; `bos_token` and `eos_token` are empty unless set somewhere.
    pub variables: IndexMap<String, serde_json::Value>,
    /// The date `strftime_now` formats (`None`: today, from the clock, in UTC).
    pub date: Option<ChatDate>,
}

impl ChatOptions {
    /// No variables; today's date.
    pub fn new() -> ChatOptions {
        ChatOptions::default()
    }

    /// A project entry's variables and date, with `over`'s on top (the command line's).
    pub fn of(decl: &ChatTemplateDecl, over: &ChatOptions) -> ChatOptions {
        let mut variables = decl.variables.clone();
        variables.extend(over.variables.iter().map(|(k, v)| (k.clone(), v.clone())));
        ChatOptions { variables, date: over.date.or(decl.date) }
    }

    /// Set a variable.
    pub fn variable(mut self, name: impl Into<String>, value: impl Into<serde_json::Value>) -> ChatOptions {
        self.variables.insert(name.into(), value.into());
        self
    }

    /// Fix the date `strftime_now` reads.
    pub fn date(mut self, date: ChatDate) -> ChatOptions {
        self.date = Some(date);
        self
    }
}

/// What a part of the templated text is.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChatPartKind {
    /// A section of the system prompt, by id.
    Section(String),
    /// A harness message's content, by position in the profile's `messages:` (0-based).
    Message(usize),
}

/// A located part of the templated text.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ChatPart {
    /// What it is.
    pub kind: ChatPartKind,
    /// Its bytes in [`ChatText::text`].
    pub range: std::ops::Range<usize>,
}

/// A cell's text as its chat template renders it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ChatText {
    /// The text the model receives.
    pub text: String,
    /// The template that rendered it (its file, and its name inside a `tokenizer_config.json`).
    pub template: String,
    /// The date `strftime_now` gave, `YYYY-MM-DD`.
    pub date: String,
    /// Whether the date was fixed by the caller (else it was today's).
    pub date_fixed: bool,
    /// The parts of the conversation found in the text as written: the system prompt's sections
    /// and the harness messages (a template that rewrites a message leaves its parts unfound).
    pub parts: Vec<ChatPart>,
    /// Whether the system prompt was found in the text as written.
    pub prompt_found: bool,
    /// Where the template uses something minijinja does not do as Jinja2 does: the text may
    /// differ from the server's there.
    pub warnings: Vec<Diagnostic>,
}

/// The conversation and tools a chat template is given, as JSON values.
fn conversation(compiled: &Compiled) -> serde_json::Value {
    let prompt = compiled.prompt().strip_suffix('\n').unwrap_or(compiled.prompt());
    let mut messages = vec![serde_json::json!({"role": "system", "content": prompt})];
    // transformers' messages: content one string, or a list of `{"type": "text"}` blocks.
    messages.extend(
        crate::projection::messages::messages(None, &compiled.messages).as_array().into_iter().flatten().cloned(),
    );
    serde_json::Value::Array(messages)
}

/// The tools a chat template is given: the cell's tools as OpenAI Chat Completions writes them,
/// or none when it has none.
pub fn tools(project: &Project, compiled: &Compiled) -> Option<serde_json::Value> {
    if compiled.tools.is_empty() {
        return None;
    }
    let options = crate::projection::ProjectionOptions::of(project);
    Some(crate::projection::project(crate::model::provider::Provider::OpenAiChat, &compiled.tools, options))
}

/// Render `compiled` (a native cell) through `template`.
pub fn apply(
    project: &Project,
    compiled: &Compiled,
    template: &ChatTemplate,
    options: &ChatOptions,
) -> Result<ChatText> {
    if compiled.transport != Transport::Native {
        return Err(Diagnostic::error("a chat template renders a native cell").into_error(ErrorKind::Internal));
    }
    let cap = project.templates.limits().prompt_bytes;
    let tools = tools(project, compiled);
    // One reading of the clock: the date the text was made with is the date recorded.
    let date = options.date.unwrap_or_else(ChatDate::now);
    let dated = ChatOptions { date: Some(date), ..options.clone() };
    let text = render(project, template, &conversation(compiled), tools.as_ref(), &dated, cap)?;
    let (parts, prompt_found) = locate(compiled, &text);
    let chosen = template.choose(tools.is_some())?;
    let warnings = crate::model::chat::differences::find(&chosen.display, &chosen.text);
    Ok(ChatText {
        warnings,
        text,
        template: template.display(tools.is_some()),
        date: date.ymd(),
        date_fixed: options.date.is_some(),
        parts,
        prompt_found,
    })
}

/// `compiled` through each of the project's chat templates that covers its profile, with the
/// entry's variables and date: what the servers of the project's open-weight models send
/// (native cells only; none for others). A template that fails for the cell is an error naming
/// the cell and the template.
pub fn project_texts(project: &Project, compiled: &Compiled) -> Result<Vec<(String, ChatText)>> {
    project_texts_within(project, compiled, None)
}

/// [`project_texts`], each text charged to a run's `budget` (a whole-matrix run: many cells
/// through many templates must stay within `limits.matrix_bytes` like the prompts).
pub fn project_texts_within(
    project: &Project,
    compiled: &Compiled,
    budget: Option<&crate::compile::RunBudget>,
) -> Result<Vec<(String, ChatText)>> {
    let mut out = Vec::new();
    if compiled.transport != Transport::Native {
        return Ok(out);
    }
    for decl in project.chat_templates.values().filter(|d| d.covers(compiled.profile())) {
        let options = ChatOptions::of(decl, &ChatOptions::new());
        let chat = apply(project, compiled, &decl.template, &options).map_err(|e| in_cell(e, compiled, &decl.name))?;
        if let Some(b) = budget {
            b.charge_bytes(chat.text.len(), compiled)?;
        }
        out.push((decl.name.clone(), chat));
    }
    Ok(out)
}

/// A chat template's failure on a cell, saying which cell and how to leave it out.
fn in_cell(mut e: Error, compiled: &Compiled, template: &str) -> Error {
    let stem = compiled.cell().stem();
    for d in e.diagnostics_mut() {
        d.notes.push(format!("while rendering cell `{stem}` through chat template `{template}`"));
        if d.help.is_none() {
            d.help = Some(format!(
                "if the template cannot render this profile, list the ones it can under `chat_templates.{template}.profiles`"
            ));
        }
    }
    e
}

/// Render `text` as a chat template with a small conversation and one tool (the fuzz target's
/// entry): any input must end in text or an error, never a panic, an abort or a hang.
pub(crate) fn fuzz_render(text: &str) {
    let template = ChatTemplate::from_text("fuzz.jinja", text);
    let messages = serde_json::json!([
        {"role": "system", "content": "You are a test."},
        {"role": "user", "content": "Hi <b> 'there'"}
    ]);
    let tools = serde_json::json!([{"type": "function", "function": {"name": "f", "description": "d",
        "parameters": {"type": "object", "properties": {"a": {"type": ["string", "null"]}}}}}]);
    let options = ChatOptions::new().date(ChatDate::parse("2024-07-26").unwrap_or_else(ChatDate::now));
    let _ = render_text(&template, &messages, Some(&tools), &options, 1 << 20);
}

/// Render the template with `messages` and `tools` for `project`: with a render permit, and
/// on the current cell's account (`template::work`).
fn render(
    project: &Project,
    template: &ChatTemplate,
    messages: &serde_json::Value,
    tools: Option<&serde_json::Value>,
    options: &ChatOptions,
    cap: usize,
) -> Result<String> {
    let chosen = template.choose(tools.is_some())?;
    project.templates.check_work("the chat template", &chosen.display)?;
    let _permit = project.templates.permit();
    let (text, spent) = render_text(template, messages, tools, options, cap)?;
    project.templates.work().add(spent);
    Ok(text)
}

/// Render the template with `messages` and `tools`: the text, and the fuel it spent.
fn render_text(
    template: &ChatTemplate,
    messages: &serde_json::Value,
    tools: Option<&serde_json::Value>,
    options: &ChatOptions,
    cap: usize,
) -> Result<(String, u64)> {
    let chosen = template.choose(tools.is_some())?;
    let date = options.date.unwrap_or_else(ChatDate::now);
    let mut ctx: IndexMap<String, Value> = IndexMap::new();
    for (k, v) in template.special_tokens() {
        ctx.insert(k.clone(), Value::from(v.clone()));
    }
    for k in ["bos_token", "eos_token"] {
        ctx.entry(k.to_string()).or_insert_with(|| Value::from(""));
    }
    for (k, v) in &options.variables {
        ctx.insert(k.clone(), Value::from_serialize(v));
    }
    ctx.insert("messages".into(), Value::from_serialize(messages));
    ctx.insert("tools".into(), tools.map_or(Value::from(()), Value::from_serialize));
    ctx.insert("documents".into(), Value::from(()));
    ctx.insert("add_generation_prompt".into(), Value::from(true));
    promptc_template::chat::render(&chosen, Value::from_iter(ctx), date, cap)
}

/// Find the system prompt's sections and the harness messages in the templated text: each
/// where it is written, searched in conversation order.
fn locate(compiled: &Compiled, text: &str) -> (Vec<ChatPart>, bool) {
    let mut parts = Vec::new();
    let prompt = compiled.prompt().strip_suffix('\n').unwrap_or(compiled.prompt());
    let mut from = 0;
    let prompt_at = (!prompt.is_empty()).then(|| text.find(prompt)).flatten();
    if let Some(base) = prompt_at {
        for (at, s) in compiled.placed_sections() {
            let end = (at + s.text.len()).min(prompt.len());
            parts.push(ChatPart { kind: ChatPartKind::Section(s.id.clone()), range: base + at..base + end });
        }
        from = base + prompt.len();
    }
    for (i, m) in compiled.messages.iter().enumerate() {
        // Each block in turn; the message spans from its first block to its last.
        let mut range: Option<std::ops::Range<usize>> = None;
        for block in m.blocks.iter().filter(|b| !b.is_empty()) {
            if let Some(at) = text[from..].find(block.as_str()) {
                let (start, end) = (from + at, from + at + block.len());
                range = Some(range.map_or(start..end, |r| r.start..end));
                from = end;
            }
        }
        if let Some(range) = range {
            parts.push(ChatPart { kind: ChatPartKind::Message(i), range });
        }
    }
    (parts, prompt_at.is_some())
}
