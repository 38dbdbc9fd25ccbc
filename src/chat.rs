//! `--transport chat`: the flags that name a chat template and its variables, and how `render`
//! and `report` print a chat cell.

use super::*;
use promptc::open_weight::{ChatDate, ChatOptions, ChatRowKind, ChatTemplate, HfTokenizer};

/// The chat template of `--transport chat` and what it is given.
#[derive(Debug, Args)]
pub(crate) struct ChatArgs {
    /// The model's chat template: a `.jinja` file or a `tokenizer_config.json` (implies
    /// `--transport chat`).
    #[arg(long, value_name = "FILE")]
    pub(crate) chat_template: Option<PathBuf>,
    /// Which of a `tokenizer_config.json`'s named templates (default: `tool_use` when the cell
    /// has tools and the file has one, else `default`, as transformers chooses).
    #[arg(long, value_name = "NAME", requires = "chat_template")]
    pub(crate) chat_template_name: Option<String>,
    /// A template variable: NAME=TEXT, or NAME:=JSON for another value (`tools_in_user_message:=false`)
    /// (repeatable; `bos_token` and `eos_token` are empty unless set here or in a
    /// tokenizer_config.json).
    #[arg(long = "chat-template-var", value_name = "NAME=VALUE")]
    pub(crate) chat_vars: Vec<String>,
    /// The date `strftime_now` gives, YYYY-MM-DD (default: today, UTC).
    #[arg(long, value_name = "DATE")]
    pub(crate) chat_template_date: Option<String>,
}

impl ChatArgs {
    /// Whether the flags ask for the chat transport.
    pub(crate) fn wanted(&self, cell: &CellArgs) -> bool {
        self.chat_template.is_some() || cell.transport == Some(TransportArg::Chat)
    }

    /// The chat flags given without the chat transport: a mistake, said before anything else.
    pub(crate) fn refuse_without_chat(&self) -> Result<(), Error> {
        let stray = [
            (!self.chat_vars.is_empty()).then_some("--chat-template-var"),
            self.chat_template_date.as_ref().map(|_| "--chat-template-date"),
        ];
        match stray.into_iter().flatten().next() {
            Some(flag) => Err(Error::usage(
                Diagnostic::error(format!("{flag} has no effect without --transport chat"))
                    .with_help("add --transport chat (the project's chat template) or --chat-template FILE"),
            )),
            None => Ok(()),
        }
    }

    /// The template and its options, the flags checked.
    pub(crate) fn read(&self, cell: &CellArgs) -> Result<(Option<ChatTemplate>, ChatOptions), Error> {
        if let Some(TransportArg::Of(t)) = cell.transport {
            return Err(Error::usage(
                Diagnostic::error(format!("--chat-template has no effect with --transport {t}"))
                    .with_help("a chat template renders the chat transport: use --transport chat, or drop --transport"),
            ));
        }
        // Without a file, the project's `chat_templates:` entry for the cell is used.
        let template = self
            .chat_template
            .as_deref()
            .map(|p| ChatTemplate::read(p, self.chat_template_name.as_deref()))
            .transpose()
            .map_err(with_flags)?;
        let mut options = ChatOptions::new();
        for v in &self.chat_vars {
            let bad = |why: &str| {
                Error::usage(Diagnostic::error(format!("invalid --chat-template-var `{v}`: {why}")).with_help(
                    "give NAME=TEXT or NAME:=JSON, e.g. --chat-template-var bos_token='<s>' or \
                     --chat-template-var tools_in_user_message:=false",
                ))
            };
            let Some((name, value)) = v.split_once('=').filter(|(n, _)| !n.is_empty() && *n != ":") else {
                return Err(bad("no NAME="));
            };
            options = match name.strip_suffix(':') {
                Some(name) => {
                    let json: serde_json::Value =
                        serde_json::from_str(value).map_err(|e| bad(&format!("not JSON: {e}")))?;
                    options.variable(name, json)
                }
                None => options.variable(name, value),
            };
        }
        if let Some(d) = &self.chat_template_date {
            let date = ChatDate::parse(d).ok_or_else(|| {
                Error::usage(
                    Diagnostic::error(format!("invalid --chat-template-date `{d}`"))
                        .with_help("give a date as YYYY-MM-DD, e.g. --chat-template-date 2024-07-26"),
                )
            })?;
            options = options.date(date);
        }
        Ok((template, options))
    }
}

/// A usage error about choosing a chat template, with the flags that choose one: the library
/// says what is missing in its own words and names no flag.
fn with_flags(mut e: Error) -> Error {
    if e.kind() == promptc::ErrorKind::Usage {
        if let Some(d) = e.diagnostics_mut().first_mut() {
            d.notes.push(
                "on the command line, --chat-template FILE names a template file and --chat-template-name NAME \
                 picks one of its named templates"
                    .into(),
            );
        }
    }
    e
}

/// `render --transport chat`: the templated text exactly as the template made it (no newline
/// added), its JSON, or the tools JSON the template was given.
pub(crate) fn render_chat(project: &Project, args: &RenderArgs, color: Color) -> Result<Exit, Error> {
    let (template, options) = args.chat.read(&args.cell)?;
    if args.out.is_some() {
        return Err(Error::usage(
            Diagnostic::error("--out does not write chat cells").with_help(
                "print the text (`promptc render --transport chat … > FILE`) or its JSON with --format json",
            ),
        ));
    }
    let r = promptc::render_chat(project, &chat_request(project, &args.cell)?, template.as_ref(), &options)
        .map_err(with_flags)?;
    warn(&r.compiled, color);
    let paint = wants_color(color, std::io::stderr().is_terminal());
    let mut err = std::io::stderr().lock();
    // A project's templates were warned about when it loaded; a file named here is not.
    for w in r.chat.warnings.iter().filter(|_| args.chat.chat_template.is_some()) {
        let _ = write!(err, "{}", w.render(paint));
    }
    drop(err);
    let out = match args.format {
        RenderFormat::Text if args.tools => r.tools_json(),
        RenderFormat::Text => r.chat.text.clone(),
        RenderFormat::Json => r.to_json(),
    };
    print(&out)
}

/// `report --transport chat`: the templated text's tokens, whole and by part.
pub(crate) fn report_chat(project: &Project, args: &ReportArgs) -> Result<Exit, Error> {
    let (template, options) = args.chat.read(&args.cell)?;
    if args.matrix {
        return Err(Error::usage(
            Diagnostic::error("--matrix does not cover chat cells")
                .with_help("report one chat cell at a time: drop --matrix and pick it with --profile"),
        ));
    }
    let tokenizer = args.tokenizer_file.as_deref().map(HfTokenizer::read).transpose()?;
    let named = args.tokenizer.as_deref().map(|n| promptc::tokenizer_named(project, n)).transpose()?;
    let mut counter = TokenCounter::for_project(project, named, !args.no_cache);
    let req = chat_request(project, &args.cell)?;
    let report = promptc::report_chat(project, &req, template.as_ref(), &options, tokenizer.as_ref(), &mut counter)
        .map_err(with_flags)?;
    finish_counter(counter);
    let mut err = std::io::stderr().lock();
    let differences = report.render.chat.warnings.iter().filter(|_| args.chat.chat_template.is_some());
    for w in differences.chain(&report.warnings) {
        let _ = write!(err, "{}", w.render(std::io::stderr().is_terminal()));
    }
    drop(err);
    let out = match args.format {
        ReportFormat::Json => report.to_json(),
        ReportFormat::Table => chat_table(&report),
        other => {
            return Err(Error::usage(
                Diagnostic::error(format!("--format {} does not show chat cells", format_name(other)))
                    .with_help("use --format table or --format json"),
            ))
        }
    };
    emit(&out, args.out.as_deref())
}

fn format_name(f: ReportFormat) -> &'static str {
    match f {
        ReportFormat::Table => "table",
        ReportFormat::Json => "json",
        ReportFormat::Markdown => "markdown",
        ReportFormat::Csv => "csv",
        ReportFormat::Html => "html",
    }
}

/// The account as a table: one row per part, then the total.
fn chat_table(report: &promptc::open_weight::ChatReport) -> String {
    let r = &report.render;
    let counted = if report.exact {
        format!("tokenizer {}", report.tokenizer)
    } else {
        format!("{} (an OpenAI encoding, not the model's: give --tokenizer-file for its own counts)", report.tokenizer)
    };
    let mut rows: Vec<(String, String, String)> = vec![("part".into(), "tokens".into(), "bytes".into())];
    for row in &report.account.rows {
        let name = match &row.kind {
            ChatRowKind::Section { id, offset } => {
                format!("section {id}{}", if offset.is_some() { "" } else { " (not in the text as written)" })
            }
            ChatRowKind::Message { index, role, offset } => {
                format!("message {index} ({role}){}", if offset.is_some() { "" } else { " (not found as written)" })
            }
            ChatRowKind::Tools { count, known } => format!(
                "tools block ({count} tool{}){}",
                if *count == 1 { "" } else { "s" },
                if *known { "" } else { " (unknown: in the template's row)" }
            ),
            ChatRowKind::Template => "template (headers, special tokens, its own text)".into(),
            _ => "other".into(),
        };
        rows.push((name, row.tokens.to_string(), row.bytes.to_string()));
    }
    rows.push(("total".into(), report.account.total.tokens.to_string(), report.account.total.bytes.to_string()));
    let w0 = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0);
    let w1 = rows.iter().map(|r| r.1.len()).max().unwrap_or(0);
    let w2 = rows.iter().map(|r| r.2.len()).max().unwrap_or(0);
    let mut out = format!(
        "chat cell {} through {} (date {}{})\ncounted with {counted}\n\n",
        r.compiled.profile(),
        r.chat.template,
        r.chat.date,
        if r.chat.date_fixed { "" } else { ", today" }
    );
    for (i, (a, b, c)) in rows.iter().enumerate() {
        if i == rows.len() - 1 {
            out.push_str(&format!("{}\n", "-".repeat(w0 + w1 + w2 + 4)));
        }
        out.push_str(&format!("{a:<w0$}  {b:>w1$}  {c:>w2$}\n"));
    }
    let total = report.account.total.tokens;
    match (report.account.cacheable, &report.unmeasured) {
        (Some(c), _) if c == total => out.push_str(&format!("cacheable prefix: {c} tokens (nothing changes between sessions)\n")),
        (Some(c), _) => out.push_str(&format!(
            "cacheable prefix: {c} tokens, uncached: {} (another session's text, on another date, differs from there)\n",
            total - c
        )),
        (None, why) => out.push_str(&format!(
            "cacheable prefix: not measured ({})\n",
            why.as_deref().unwrap_or("no second session")
        )),
    }
    out
}
