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
    print(&promptc::command(project, &request(project, &args.cell)?, &args.name)?)
}
