//! `promptc command NAME`: a slash command's text.

use super::*;

#[derive(Debug, Args)]
pub(crate) struct CommandArgs {
    /// The command's name.
    pub(crate) name: String,
    #[command(flatten)]
    pub(crate) cell: CellArgs,
}

pub(crate) fn command(project: &Project, args: &CommandArgs) -> Result<Exit, Error> {
    let unused = [("--provider", args.cell.provider.is_some()), ("--lenient", args.cell.lenient)];
    if let Some((flag, _)) = unused.iter().find(|(_, given)| *given) {
        return Err(Error::usage(
            Diagnostic::error(format!("{flag} has no effect on a slash command")).with_help(
                "a command's text sees the profile, transport, switches, variables and tools; drop the flag",
            ),
        ));
    }
    print(&promptc::command(project, &request(project, &args.cell)?, &args.name)?)
}
