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

pub(crate) fn freeze(project: &Project, args: &FreezeArgs) -> Result<Exit, Error> {
    if args.cell.subagent.is_some() {
        // The library refuses too; this says which flag to drop.
        return Err(Error::usage(
            Diagnostic::error("sub-agent prompts are never frozen")
                .with_help("a sub-agent renders a fresh prompt for each run; freeze the main prompt (drop --subagent)"),
        ));
    }
    let mut counter = TokenCounter::for_project(project, None, true);
    let rec = promptc::freeze(project, &request(project, &args.cell)?, &mut counter)?;
    finish_counter(counter);
    promptc::write_record(&rec, &args.out)?;
    let _ = writeln!(
        std::io::stderr(),
        "froze {} ({}) into {}",
        rec.request.profile,
        rec.request.transport,
        args.out.display()
    );
    Ok(Exit::Success)
}

pub(crate) fn verify(project: &Project, args: &VerifyArgs) -> Result<Exit, Error> {
    let rec = promptc::read_record(&args.file)?;
    let v = promptc::verify(project, &rec)?;
    print(&v.render(&args.file.display().to_string(), args.format == VerifyFormat::Json))?;
    Ok(if v.fresh { Exit::Success } else { Exit::Found })
}
