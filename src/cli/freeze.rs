//! `promptc freeze` and `promptc verify`: frozen-prompt records.

use super::*;

#[derive(Debug, Args)]
pub(crate) struct FreezeArgs {
    #[command(flatten)]
    pub(crate) cell: CellArgs,
    /// Where to write the record (JSON).
    #[arg(long, value_name = "FILE")]
    pub(crate) out: PathBuf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum VerifyFormat {
    /// A verdict and its reasons.
    Text,
    /// JSON for machines.
    Json,
}

#[derive(Debug, Args)]
pub(crate) struct VerifyArgs {
    /// The record written by `promptc freeze`.
    pub(crate) file: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = VerifyFormat::Text)]
    pub(crate) format: VerifyFormat,
}

pub(crate) fn freeze(project: &Project, args: &FreezeArgs) -> Result<ExitCode, Error> {
    if args.cell.subagent.is_some() {
        return Err(Error::usage(
            promptc::diagnostic::Diagnostic::error("sub-agent prompts are never frozen")
                .with_help("a sub-agent renders a fresh prompt for each run; freeze the main prompt (drop --subagent)"),
        ));
    }
    let req = request(&args.cell)?;
    let compiled = compile::compile(project, &req)?;
    let rec = promptc::output::freeze::record(project, &compiled, &req.runtime);
    promptc::source::atomic::write(&args.out, promptc::output::freeze::to_json(&rec).as_bytes())?;
    let _ = writeln!(
        std::io::stderr(),
        "froze {} ({}) into {}",
        compiled.selection.profile,
        compiled.transport,
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn verify(project: &Project, args: &VerifyArgs) -> Result<ExitCode, Error> {
    let rec = promptc::output::freeze::read(&args.file)?;
    let v = promptc::output::freeze::verify(project, &rec)?;
    print(&v.render(&args.file.display().to_string(), args.format == VerifyFormat::Json))?;
    Ok(if v.fresh { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
