//! `promptc diff`: compare with the snapshots (or two folders), `--update`.

use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum DiffFormat {
    /// Unified diffs and a delta table.
    Text,
    /// A PR comment: delta table and collapsed diffs.
    Markdown,
    /// JSON for machines.
    Json,
}

#[derive(Debug, Args)]
pub(crate) struct DiffArgs {
    /// Two folders to compare instead (snapshot folders or `render --out` artifact folders).
    #[arg(num_args = 2, value_names = ["A", "B"])]
    pub(crate) folders: Vec<PathBuf>,
    /// Accept the drift: rewrite the snapshots (same as `promptc snapshot`).
    #[arg(long, conflicts_with = "folders")]
    pub(crate) update: bool,
    /// Snapshot folder (default: the project's `snapshots:` setting).
    #[arg(long, value_name = "DIR", conflicts_with = "folders")]
    pub(crate) dir: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = DiffFormat::Text)]
    pub(crate) format: DiffFormat,
}

pub(crate) fn diff_output(r: &promptc::snapshot::DiffReport, format: DiffFormat, color: Color) -> Result<Exit, Error> {
    use promptc::snapshot::Format;
    let f = match format {
        DiffFormat::Text => Format::Text,
        DiffFormat::Markdown => Format::Markdown,
        DiffFormat::Json => Format::Json,
    };
    print(&promptc::snapshot::render(r, f, wants_color(color, std::io::stdout().is_terminal())))?;
    Ok(if r.drift() { Exit::Found } else { Exit::Success })
}

pub(crate) fn diff(project: &Project, args: &DiffArgs, color: Color) -> Result<Exit, Error> {
    let mut counter = TokenCounter::for_project(project, None, true);
    let drift = promptc::diff(project, args.dir.as_deref(), &mut counter)?;
    save_tokens(&mut counter);
    std::mem::forget(counter); // see report(): no need to free the tokenizer before exit
    if args.update {
        if drift.report.drift() {
            let w = drift.accept()?;
            let _ = writeln!(
                std::io::stderr(),
                "{}: {} written, {} removed",
                drift.dir.display(),
                w.written.len(),
                w.removed.len()
            );
        }
        diff_output(&drift.report, args.format, color)?;
        return Ok(Exit::Success);
    }
    diff_output(&drift.report, args.format, color)
}
