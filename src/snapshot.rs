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
    /// List every file written or removed (by default one line sums them up).
    #[arg(short = 'v', long)]
    pub(crate) verbose: bool,
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
    if args.verbose {
        for f in &w.written {
            let _ = writeln!(err, "wrote {}", dir.join(f).display());
        }
        for f in &w.removed {
            let _ = writeln!(err, "removed {}", dir.join(f).display());
        }
    }
    // The folder as the user would type it from here.
    let shown =
        std::env::current_dir().ok().and_then(|here| dir.strip_prefix(here).ok().map(std::path::Path::to_path_buf));
    let shown = shown.filter(|p| !p.as_os_str().is_empty()).unwrap_or_else(|| dir.clone());
    let removed = match w.removed.len() {
        0 => String::new(),
        n => format!(", {n} removed"),
    };
    let _ = writeln!(
        err,
        "wrote {} files to {}/ ({} changed{removed})",
        w.written.len() + w.unchanged,
        shown.display(),
        w.written.len()
    );
    Ok(Exit::Success)
}
