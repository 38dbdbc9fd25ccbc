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
}

#[derive(Debug, Args)]
pub(crate) struct ReportArgs {
    #[command(flatten)]
    pub(crate) cell: CellArgs,
    /// Tokenizer: o200k_base (default), cl100k_base, p50k_base, r50k_base (exact), or claude,
    /// gemini (estimates). Default: the one --model maps to, else the project's.
    #[arg(long, value_name = "NAME")]
    pub(crate) tokenizer: Option<String>,
    /// Summarise every profile × transport cell side by side.
    #[arg(long)]
    pub(crate) matrix: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ReportFormat::Table)]
    pub(crate) format: ReportFormat,
    /// Do not read or write the project's on-disk token cache.
    #[arg(long)]
    pub(crate) no_cache: bool,
}

pub(crate) fn report(project: &Project, args: &ReportArgs) -> Result<ExitCode, Error> {
    use promptc::report::{self as show, Format};
    let req = request(project, &args.cell)?;
    let tokenizer = promptc::report_tokenizer(project, &req, args.tokenizer.as_deref())?;
    let mut counter = TokenCounter::for_project(project, Some(tokenizer), !args.no_cache);
    let reports = promptc::report(project, &req, args.matrix, &mut counter)?;
    save_tokens(&mut counter);
    let stats = counter.cache_stats();
    // The tokenizer's tables take a tenth of a second to free; the process is about to exit.
    std::mem::forget(counter);
    let format = match args.format {
        ReportFormat::Table => Format::Table,
        ReportFormat::Json => Format::Json,
        ReportFormat::Markdown => Format::Markdown,
        ReportFormat::Csv => Format::Csv,
    };
    let out = if args.matrix { show::render_matrix(&reports, format) } else { show::render(&reports[0], format) };
    let code = print(&out)?;
    let mut err = std::io::stderr().lock();
    if let Some(stats) = stats {
        let _ = writeln!(err, "{}", show::cache_line(stats));
    }
    let failures: Vec<String> = reports.iter().flat_map(show::budget_failures).collect();
    for f in &failures {
        let _ = writeln!(err, "budget exceeded: {f}");
    }
    Ok(if failures.is_empty() { code } else { ExitCode::from(1) })
}
