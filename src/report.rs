//! `promptc report`: tokens and bytes per section and tool, budgets.

use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ReportFormat {
    /// A table for people.
    Table,
    /// JSON for machines.
    Json,
    /// A markdown table for PR comments.
    Markdown,
    /// CSV for spreadsheets.
    Csv,
    /// One self-contained HTML page: matrix overview, treemaps, prompts, comparison.
    Html,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SortOrder {
    /// Prompt order (sections, then tools).
    Prompt,
    /// Largest first.
    Tokens,
}

#[derive(Debug, Args)]
pub(crate) struct ReportArgs {
    #[command(flatten)]
    pub(crate) cell: CellArgs,
    #[command(flatten)]
    pub(crate) chat: ChatArgs,
    /// Count a chat cell with the model's own tokenizer: a Hugging Face `tokenizer.json`.
    #[arg(long, value_name = "FILE")]
    pub(crate) tokenizer_file: Option<PathBuf>,
    /// Count every cell with this tokenizer: o200k_base, cl100k_base, p50k_base, r50k_base,
    /// gemma3 (or gemini) (exact), or claude (an estimate). Default: each provider's (OpenAI: the
    /// project's or the model's encoding; Anthropic: claude; Gemini: gemma3).
    #[arg(long, value_name = "NAME")]
    pub(crate) tokenizer: Option<String>,
    /// Every cell of the snapshot matrix (profiles × cases × transports × providers, sub-agents).
    #[arg(long)]
    pub(crate) matrix: bool,
    /// Row order.
    #[arg(long, value_enum, default_value_t = SortOrder::Prompt)]
    pub(crate) sort: SortOrder,
    /// Only the N largest rows (the rest summed in one row).
    #[arg(long, value_name = "N")]
    pub(crate) top: Option<usize>,
    /// A row per tool parameter (JSON and CSV always have them).
    #[arg(long)]
    pub(crate) params: bool,
    /// Every slot in the slot table, the ones that received no text too (JSON and CSV always
    /// have them).
    #[arg(long)]
    pub(crate) all: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ReportFormat::Table)]
    pub(crate) format: ReportFormat,
    /// Fit tables into N columns (cells wrap). Default: the terminal's width when printing to
    /// one (`COLUMNS`, else its window size), else each table's natural width.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(40..))]
    pub(crate) width: Option<u16>,
    /// Write the output to FILE (atomically) instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub(crate) out: Option<PathBuf>,
    /// Do not read or write the project's on-disk token and compile caches.
    #[arg(long)]
    pub(crate) no_cache: bool,
}

pub(crate) fn report(project: &Project, args: &ReportArgs, color: Color) -> Result<Exit, Error> {
    report_in(project, args, color, None)
}

/// `report`, with the counter and compile cache of a session kept across runs (`watch`).
pub(crate) fn report_in(
    project: &Project,
    args: &ReportArgs,
    color: Color,
    session: Option<&mut promptc::report::Session>,
) -> Result<Exit, Error> {
    use promptc::report::{self as show, Format, View};
    if args.chat.wanted(&args.cell) {
        return report_chat(project, args);
    }
    args.chat.refuse_without_chat()?;
    refuse_html_to_a_terminal(args)?;
    if args.tokenizer_file.is_some() {
        return Err(Error::usage(Diagnostic::error("--tokenizer-file counts chat cells").with_help(
            "add --transport chat --chat-template FILE: an open-weight model's text is what its tokenizer counts",
        )));
    }
    let req = request(project, &args.cell)?;
    let tokenizer = args.tokenizer.as_deref().map(|n| promptc::tokenizer_named(project, n)).transpose()?;
    let options = promptc::ReportOptions::new().tokenizer(tokenizer).matrix(args.matrix);
    // The library's session decides what is cached where; `watch` keeps one from run to run,
    // and `--no-cache` keeps nothing: every run counts and compiles afresh.
    let mut own = None;
    let session = match session.filter(|_| !args.no_cache) {
        Some(kept) => kept,
        None => own.insert(promptc::report::Session::once(!args.no_cache)),
    };
    let reported = session.report(project, &req, &options, args.format == ReportFormat::Html)?;
    super::args::cache_warnings(&reported.cache_warnings);
    let (report, page, stats) = (reported.report, reported.html, reported.token_cache);
    let compile_line = reported.compile_cache.map(show::compile_cache_line);
    // Its tokenizers are left to the exit, as `finish_counter` says why.
    if let Some(session) = own {
        std::mem::forget(session);
    }
    let format = match args.format {
        ReportFormat::Table => Format::Table,
        ReportFormat::Json => Format::Json,
        ReportFormat::Markdown => Format::Markdown,
        ReportFormat::Csv => Format::Csv,
        ReportFormat::Html => Format::Json, // the page is already built
    };
    let view = View::new()
        .by_tokens(args.sort == SortOrder::Tokens)
        .top(args.top)
        .params(args.params)
        .all_slots(args.all)
        .width(args.width.map(usize::from).or_else(|| args.out.is_none().then(super::terminal_width).flatten()));
    let out = match page {
        Some(html) => html,
        None if args.matrix => show::render_matrix(&report.accounts, format, view),
        None => show::render(&report.accounts[0], format, view),
    };
    let code = emit(&out, args.out.as_deref())?;
    let mut err = std::io::stderr().lock();
    let paint = wants_color(color, std::io::stderr().is_terminal());
    for w in &report.warnings {
        let _ = write!(err, "{}", w.render(paint));
    }
    if let Some(stats) = stats {
        let _ = writeln!(err, "{}", show::cache_line(stats));
    }
    if let Some(line) = compile_line {
        let _ = writeln!(err, "{line}");
    }
    let failures: Vec<String> = report.accounts.iter().flat_map(show::budget_failures).collect();
    for f in &failures {
        let _ = writeln!(err, "budget exceeded: {f}");
    }
    Ok(if failures.is_empty() { code } else { Exit::Found })
}

/// An HTML page is a file to open in a browser, never text for a terminal (74 KB of markup on
/// the example): refused before any work, naming the flag that writes it. A pipe or a
/// redirection (`> report.html`) still gets it.
fn refuse_html_to_a_terminal(args: &ReportArgs) -> Result<(), Error> {
    if args.format != ReportFormat::Html || args.out.is_some() || !std::io::stdout().is_terminal() {
        return Ok(());
    }
    let matrix = if args.matrix { " --matrix" } else { "" };
    Err(Error::usage(
        Diagnostic::error("the HTML report is a page for a browser, not text for this terminal")
            .with_help(format!("write it to a file: promptc report{matrix} --format html --out report.html")),
    ))
}
