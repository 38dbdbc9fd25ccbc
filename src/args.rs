//! Flags that pick one cell of the matrix and its runtime values, turned into a library request.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::Args;

use promptc::{CellOptions, Diagnostic, Error, Project, Provider, Request, SwitchValue, TokenCounter, Transport};

use super::{provider_values, transport_values, wants_color, Color, TransportArg};

/// Flags that pick one cell of the matrix and its runtime values.
#[derive(Debug, Args)]
pub(crate) struct CellArgs {
    /// Profile to render (default: chosen by the project's selection policy).
    #[arg(long)]
    pub(crate) profile: Option<String>,
    /// Model id, used by the selection policy (e.g. openai/o1-mini).
    #[arg(long, value_name = "ID")]
    pub(crate) model: Option<String>,
    /// Context window in tokens, used by the selection policy: 32000, 32_000, 32k, 1M (a fraction is
    /// rounded down; anything else is an error).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub(crate) context_window: Option<String>,
    /// Tool transport; `chat` renders the native cell through an open-weight model's chat
    /// template (`--chat-template FILE`, else the project's `chat_templates:`; render and report
    /// only).
    #[arg(long, value_parser = transport_values())]
    pub(crate) transport: Option<TransportArg>,
    /// Provider of the native tool projection.
    #[arg(long, value_parser = provider_values())]
    pub(crate) provider: Option<Provider>,
    /// Set a switch: NAME, NAME=true or NAME=false (repeatable).
    #[arg(long = "set", value_name = "NAME[=BOOL]")]
    pub(crate) sets: Vec<String>,
    /// Set a variable: NAME=VALUE (repeatable).
    #[arg(long = "var", value_name = "NAME=VALUE")]
    pub(crate) vars: Vec<String>,
    /// YAML or JSON file with `switches:`, `variables:`, `model:` and `context_window:` (`-`: read
    /// it from standard input).
    #[arg(long, value_name = "FILE")]
    pub(crate) context: Option<PathBuf>,
    /// Render this sub-agent's prompt (same profile and transport, its own tool allowlist).
    #[arg(long, value_name = "NAME")]
    pub(crate) subagent: Option<String>,
    /// Nonce of the untrusted-content delimiters (default: random per render).
    #[arg(long, value_name = "NONCE")]
    pub(crate) nonce: Option<String>,
    /// Drop a tool contribution whose template fails (with a warning) instead of failing.
    #[arg(long)]
    pub(crate) lenient: bool,
}

/// The request the flags describe. The flags are checked here, where their names are known,
/// so messages say which flag was wrong; the library checks the request again for callers
/// that are not the CLI.
pub(crate) fn request(project: &Project, cell: &CellArgs) -> Result<Request, Error> {
    if cell.transport == Some(TransportArg::Chat) {
        return Err(Error::usage(Diagnostic::error("the chat transport is rendered by `promptc render` and counted by `promptc report`").with_help(
            "use `promptc render --transport chat --chat-template FILE` (or `promptc report …`) for a chat template's text",
        )));
    }
    cell_request(project, cell)
}

/// The request for a chat cell (`--transport chat`): the native cell, projected for OpenAI
/// Chat Completions, whose prompt, messages and tools the chat template is given.
pub(crate) fn chat_request(project: &Project, cell: &CellArgs) -> Result<Request, Error> {
    if let Some(p) = cell.provider {
        return Err(Error::usage(Diagnostic::error(format!("--provider {p} has no effect with --transport chat")).with_help(
            "a chat template is given the tools as OpenAI Chat Completions writes them, as inference servers do; drop --provider",
        )));
    }
    cell_request(project, cell)
}

/// The request the flags describe, the transport as given.
fn cell_request(project: &Project, cell: &CellArgs) -> Result<Request, Error> {
    refuse_provider_without_projection(cell)?;
    // The flags as the library's cell options: the one conversion to a request, shared with
    // the Python and Node packages.
    let mut options = CellOptions::default();
    let mut problems = Vec::new();
    switch_flags(project, &cell.sets, &mut options, &mut problems);
    variable_flags(project, &cell.vars, &mut options, &mut problems);
    if let Some(w) = &cell.context_window {
        if let Err(e) = promptc::parse_context_window(w) {
            problems.push(Diagnostic::error(format!("invalid --context-window: {e}")).with_help(
                "give the window in tokens: --context-window 32000 (or 32k, 1M; a fraction is rounded down)",
            ));
        }
    }
    if !problems.is_empty() {
        return Err(Error::new(promptc::ErrorKind::Usage, problems));
    }
    options.profile = cell.profile.clone();
    options.model = cell.model.clone();
    options.context_window = cell.context_window.clone();
    options.transport = cell.transport.map(|t| match t {
        TransportArg::Of(t) => t.to_string(),
        TransportArg::Chat => Transport::Native.to_string(),
    });
    options.provider = cell.provider.map(|p| p.to_string());
    match cell.context.as_deref() {
        Some(p) if p.as_os_str() == "-" => options.context_text = Some(stdin_context()?),
        _ => options.context_file = cell.context.clone(),
    }
    options.nonce = cell.nonce.clone();
    options.lenient = cell.lenient;
    options.subagent = cell.subagent.clone();
    options.request()
}

/// The context read from standard input (`--context -`), read once: a command that compiles
/// again (`watch`) is given the same text, since standard input can be read only once. A
/// process-wide cell, because standard input itself is process-wide.
fn stdin_context() -> Result<String, Error> {
    use std::io::Read;
    static TEXT: std::sync::OnceLock<Result<String, String>> = std::sync::OnceLock::new();
    // The bound the library puts on a context file read from disk (4 MiB).
    let limit: u64 = 4 * 1024 * 1024;
    let read = TEXT.get_or_init(|| {
        let mut buf = Vec::new();
        std::io::stdin()
            .take(limit + 1)
            .read_to_end(&mut buf)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        if buf.len() as u64 > limit {
            return Err(format!("the context on standard input is larger than {limit} bytes"));
        }
        String::from_utf8(buf).map_err(|_| "the context on standard input is not valid UTF-8".to_string())
    });
    read.clone().map_err(|m| {
        Error::usage(Diagnostic::error(m).with_help("pipe a YAML or JSON context: switches, variables, model"))
    })
}

/// `--provider` with a transport that sends no tools JSON is a mistake, said before anything
/// else.
fn refuse_provider_without_projection(cell: &CellArgs) -> Result<(), Error> {
    if let (Some(TransportArg::Of(t @ (Transport::Xml | Transport::Json))), Some(_)) = (cell.transport, cell.provider) {
        return Err(Error::usage(
            Diagnostic::error(format!("--provider has no effect with --transport {t}")).with_help(format!(
                "the {t} transport describes the tools inside the prompt and sends no tools JSON; drop --provider"
            )),
        ));
    }
    Ok(())
}

/// The `--set` flags as switch values in `options`; each bad flag is a problem.
fn switch_flags(project: &Project, sets: &[String], options: &mut CellOptions, problems: &mut Vec<Diagnostic>) {
    let choices = project.choices();
    let mut names: Vec<&str> = project.switches().iter().map(|(n, _)| *n).collect();
    names.extend(choices.iter().map(|(n, _, _)| *n));
    for s in sets {
        match switch_flag(s, &choices, &names) {
            Ok(switch) => options.switches.push(switch),
            Err(problem) => problems.push(*problem),
        }
    }
}

/// One `--set` flag: NAME=VALUE for a string-valued switch (one of its `choices`), else NAME,
/// NAME=true or NAME=false for one of the switches `names` (which include the choices). A bad
/// flag is its problem, boxed (a diagnostic is large).
fn switch_flag(
    s: &str,
    choices: &[(&str, &[String], &str)],
    names: &[&str],
) -> Result<(String, SwitchValue), Box<Diagnostic>> {
    let (name, value) = match s.split_once('=') {
        Some((n, v)) => (n.trim(), Some(v)),
        None => (s.trim(), None),
    };
    if let Some((_, values, _)) = choices.iter().find(|(n, _, _)| *n == name) {
        return match value.filter(|v| values.iter().any(|x| x == v)) {
            Some(v) => Ok((name.to_string(), SwitchValue::Is(v.to_string()))),
            None => Err(Box::new(
                Diagnostic::error(match value {
                    Some(v) => format!("invalid value `{v}` for switch `{name}` in --set {s}"),
                    None => format!("switch `{name}` takes a value in --set {s}"),
                })
                .with_help(format!("write --set {name}=VALUE with one of: {}", values.join(", "))),
            )),
        };
    }
    if !names.contains(&name) {
        return Err(Box::new(
            Diagnostic::error(format!("unknown switch `{name}` in --set {s}"))
                .with_help(promptc::known_names_help("switch", name, names)),
        ));
    }
    match value.map_or(Some(true), parse_bool) {
        Some(b) => Ok((name.to_string(), SwitchValue::On(b))),
        None => Err(Box::new(
            Diagnostic::error(format!(
                "invalid value `{}` for switch `{name}` in --set {s}",
                value.unwrap_or_default()
            ))
            .with_help("switch values are true or false (also yes/no, on/off, 1/0)"),
        )),
    }
}

/// The `--var NAME=VALUE` flags as variable values in `options`; each bad flag is a problem.
fn variable_flags(project: &Project, vars: &[String], options: &mut CellOptions, problems: &mut Vec<Diagnostic>) {
    let variables = project.variables();
    for v in vars {
        let Some((name, value)) = v.split_once('=') else {
            problems.push(Diagnostic::error(format!("--var {v} has no value")).with_help("write --var NAME=VALUE"));
            continue;
        };
        let name = name.trim();
        if variables.contains(&name) {
            options.variables.push((name.to_string(), value.into()));
        } else {
            problems.push(
                Diagnostic::error(format!("unknown variable `{name}` in --var {v}"))
                    .with_help(promptc::known_names_help("variable", name, &variables)),
            );
        }
    }
}

/// A boolean flag value the way people write them.
fn parse_bool(s: &str) -> Option<bool> {
    match s.trim().to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" | "1" => Some(true),
        "false" | "no" | "off" | "0" => Some(false),
        _ => None,
    }
}

/// Save the token cache and print its warnings (a cache problem never fails a command).
pub(crate) fn save_tokens(counter: &mut TokenCounter) {
    counter.save();
    cache_warnings(counter.warnings());
}

/// A command is done counting: save the token cache, print its warnings, and leave the counter
/// to the process's exit. Its tokenizer tables take about a tenth of a second to free, which a
/// command about to exit has no reason to spend.
pub(crate) fn finish_counter(mut counter: TokenCounter) {
    save_tokens(&mut counter);
    std::mem::forget(counter);
}

/// Print a cache's warnings on stderr.
pub(crate) fn cache_warnings<'a>(warnings: impl IntoIterator<Item = &'a promptc::Diagnostic>) {
    let color = wants_color(Color::Auto, std::io::stderr().is_terminal());
    let mut err = std::io::stderr().lock();
    for w in warnings {
        let _ = write!(err, "{}", w.render(color));
    }
}
