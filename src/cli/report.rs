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
    use promptc::measure::report;
    use promptc::output::report::{self as show, Format};
    let req = request(&args.cell)?;
    let runtime = promptc::resolve::runtime::Runtime::resolve(project, &req.runtime)?;
    let model = args.cell.model.clone().or_else(|| runtime.model.clone());
    let tokenizer = report::choose_tokenizer(project, args.tokenizer.as_deref(), model.as_deref())?;
    let disk =
        if args.no_cache { None } else { project.tokens.cache.as_ref().map(|rel| project.fs().root().join(rel)) };
    let mut counter = promptc::measure::tokens::Counter::new(tokenizer, disk);
    counter.prefetch();
    let cells = if args.matrix {
        report::matrix_cells(project, &runtime, req.provider.unwrap_or(project.defaults.provider))?
    } else {
        vec![compile::compile_with(project, &req, runtime)?]
    };
    let mut reports = Vec::new();
    for c in &cells {
        reports.push(report::build(project, c, &mut counter)?);
    }
    counter.save()?;
    let stats = counter.stats();
    let cached = counter.disk_path().is_some();
    // The tokenizer's tables take tens of milliseconds to free; the process is about to exit.
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
    if cached {
        let _ = writeln!(err, "{}", show::cache_line(stats));
    }
    let failures: Vec<String> = reports.iter().flat_map(show::budget_failures).collect();
    for f in &failures {
        let _ = writeln!(err, "budget exceeded: {f}");
    }
    Ok(if failures.is_empty() { code } else { ExitCode::from(1) })
}
