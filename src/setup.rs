//! Commands that need no project: `schema`, `init`, `completions`.

use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SchemaKind {
    /// promptc.yaml
    Manifest,
    /// A tool catalog file.
    Tools,
}

#[derive(Debug, Args)]
pub(crate) struct SchemaArgs {
    /// Which file's schema.
    #[arg(value_enum, default_value_t = SchemaKind::Manifest)]
    pub(crate) kind: SchemaKind,
}

#[derive(Debug, Args)]
pub(crate) struct InitArgs {
    /// Folder to create the project in (default: the current folder).
    pub(crate) dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell.
    pub(crate) shell: clap_complete::Shell,
}

pub(crate) fn init(dir: &std::path::Path) -> Result<Exit, Error> {
    let written = promptc::init(dir)?;
    let mut err = std::io::stderr().lock();
    for p in &written {
        let _ = writeln!(err, "created {}", p.display());
    }
    let _ = writeln!(err, "next: promptc -C {} render", dir.display());
    Ok(Exit::Success)
}
