//! Flags that pick one cell of the matrix and its runtime values, turned into a library request.

use super::*;

/// Flags that pick one cell of the matrix and its runtime values.
#[derive(Debug, Args)]
pub(crate) struct CellArgs {
    /// Profile to render (default: chosen by the project's selection policy).
    #[arg(long)]
    pub(crate) profile: Option<String>,
    /// Model id, used by the selection policy (e.g. openai/o1-mini).
    #[arg(long, value_name = "ID")]
    pub(crate) model: Option<String>,
    /// Context window in tokens, used by the selection policy; invalid values count as unknown.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub(crate) context_window: Option<String>,
    /// Tool transport.
    #[arg(long, value_parser = parse_transport)]
    pub(crate) transport: Option<Transport>,
    /// Provider of the native tool projection.
    #[arg(long, value_parser = parse_provider)]
    pub(crate) provider: Option<Provider>,
    /// Set a switch: NAME, NAME=true or NAME=false (repeatable).
    #[arg(long = "set", value_name = "NAME[=BOOL]")]
    pub(crate) sets: Vec<String>,
    /// Set a variable: NAME=VALUE (repeatable).
    #[arg(long = "var", value_name = "NAME=VALUE")]
    pub(crate) vars: Vec<String>,
    /// YAML or JSON file with `switches:`, `variables:`, `model:` and `context_window:`.
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

pub(crate) fn request(cell: &CellArgs) -> Result<Request, Error> {
    if let (Some(t @ (Transport::Xml | Transport::Json)), Some(_)) = (cell.transport, cell.provider) {
        return Err(Error::usage(
            promptc::diagnostic::Diagnostic::error(format!("--provider has no effect with --transport {t}")).with_help(
                format!(
                    "the {t} transport describes the tools inside the prompt and sends no tools JSON; drop --provider"
                ),
            ),
        ));
    }
    Ok(Request {
        selection: SelectionInput {
            explicit: cell.profile.clone(),
            model: cell.model.clone(),
            context_window: cell.context_window.clone(),
        },
        transport: cell.transport,
        provider: cell.provider,
        runtime: RuntimeInput {
            sets: cell.sets.clone(),
            vars: cell.vars.clone(),
            context_file: cell.context.clone(),
            nonce: cell.nonce.clone(),
            lenient: cell.lenient,
        },
        subagent: cell.subagent.clone(),
    })
}

pub(crate) fn token_counter(project: &Project) -> promptc::measure::tokens::Counter {
    let disk = project.tokens.cache.as_ref().map(|rel| project.fs().root().join(rel));
    promptc::measure::tokens::Counter::new(project.tokens.tokenizer, disk)
}
