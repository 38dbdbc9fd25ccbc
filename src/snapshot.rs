//! `promptc snapshot`: write the matrix under the snapshot folder.

use super::*;

#[derive(Debug, Args)]
pub(crate) struct SnapshotArgs {
    /// Snapshot folder (default: the project's `snapshots:` setting, else <project>/snapshots).
    #[arg(long, value_name = "DIR")]
    pub(crate) dir: Option<PathBuf>,
    /// Take over a folder an older promptc wrote first: the files still as its summary recorded
    /// them become promptc's again (any other file stays yours, and is never replaced).
    #[arg(long)]
    pub(crate) adopt: bool,
}

pub(crate) fn snapshot(project: &Project, args: &SnapshotArgs) -> Result<Exit, Error> {
    let dir = args.dir.as_deref();
    if args.adopt {
        let (folder, adopted) = promptc::adopt_snapshots(project, dir)?;
        let _ = writeln!(
            std::io::stderr(),
            "{}: took over {} files an older promptc wrote",
            folder.display(),
            adopted.len()
        );
    }
    let mut counter = TokenCounter::for_project(project, None, true);
    let (dir, w) = promptc::snapshot(project, dir, &mut counter)?;
    finish_counter(counter);
    let mut err = std::io::stderr().lock();
    for f in &w.written {
        let _ = writeln!(err, "wrote {}", dir.join(f).display());
    }
    for f in &w.removed {
        let _ = writeln!(err, "removed {}", dir.join(f).display());
    }
    let _ = writeln!(
        err,
        "{}: {} written, {} unchanged, {} removed",
        dir.display(),
        w.written.len(),
        w.unchanged,
        w.removed.len()
    );
    Ok(Exit::Success)
}
