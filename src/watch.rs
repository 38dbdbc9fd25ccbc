//! `promptc watch render|report|check`: run the command, then again whenever a project file
//! changes. File events wake it (inotify, FSEvents, ReadDirectoryChangesW, through `notify`), so
//! an idle watch costs nothing and a save is seen within milliseconds; where the platform gives
//! none it polls. Either way a re-run follows only a real difference in the files' sizes,
//! times or contents (`stamp`), never an event alone. What promptc writes is not an input: the
//! command's `--out`, the snapshot folder, the token cache's shards and the compile cache,
//! promptc's temporary files and folders (`.promptc-*`, and the hidden `.NAME.promptc-*`
//! folders beside what it replaces) and hidden folders are never watched, so a watch never
//! re-runs itself. Errors are shown and the watch goes on; Ctrl-C ends it.

use super::*;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, SystemTime};

use notify::{EventKind, RecursiveMode, Watcher};

#[derive(Debug, Args)]
pub(crate) struct WatchArgs {
    /// Look for changes every `--interval` instead of waiting for file events (for network file
    /// systems, whose changes made on another machine raise no event here).
    #[arg(long)]
    pub(crate) poll: bool,
    /// How often to look for changes, in milliseconds, when polling (`--poll`, or where the
    /// platform gives no file events).
    #[arg(long, value_name = "MS", default_value_t = 300, value_parser = clap::value_parser!(u64).range(50..))]
    pub(crate) interval: u64,
    #[command(subcommand)]
    pub(crate) what: WatchWhat,
}

#[derive(Debug, Subcommand)]
pub(crate) enum WatchWhat {
    /// Re-render the prompt.
    Render(RenderArgs),
    /// Re-run the report.
    Report(ReportArgs),
    /// Re-run the lints.
    Check(CheckArgs),
}

/// Files watched at most (a project folder holding far more is not a prompt project).
const MAX_FILES: usize = 20_000;

/// Size and modification time of every input file under `root`, and for a file modified in
/// the last two seconds a hash of its content: modification times are coarse (a few
/// milliseconds), so two same-size writes within one tick differ only in content (git's
/// "racy" files).
type Stamp = BTreeMap<PathBuf, (u64, Option<SystemTime>, Option<u64>)>;

/// Largest file whose content is hashed.
const HASHED_BYTES: u64 = 16 << 20;

/// Files modified this recently are hashed as well.
const RACY: Duration = Duration::from_secs(2);

fn content_hash(path: &Path) -> Option<u64> {
    use std::hash::{Hash, Hasher};
    let bytes = std::fs::read(path).ok()?;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut h);
    Some(h.finish())
}

/// How long the files must be quiet after an event before the command runs again: an editor's
/// save is often several writes (a temporary file, a rename) a few milliseconds apart.
const QUIET: Duration = Duration::from_millis(15);

/// What wakes the watch to look for changes: file events where the platform gives them, else a
/// timer.
enum Wake {
    Events {
        /// Kept alive for as long as events are wanted.
        _watcher: notify::RecommendedWatcher,
        events: Receiver<notify::Result<notify::Event>>,
        /// How often to look should the events stop (their thread gone).
        interval: Duration,
    },
    Poll(Duration),
}

impl Wake {
    /// File events under `root`, or polling every `interval` when asked (`poll`) or when the
    /// platform refuses events (no inotify, its limits reached: said on stderr).
    fn new(root: &Path, interval: Duration, poll: bool) -> Wake {
        if poll {
            return Wake::Poll(interval);
        }
        let (tx, events) = mpsc::channel();
        // Links are not followed, as `stamp` follows none: a project's link to `/` must not
        // make the watch walk (and watch) the whole file system.
        let config = notify::Config::default().with_follow_symlinks(false);
        let watcher = notify::RecommendedWatcher::new(tx, config)
            .and_then(|mut w| w.watch(root, RecursiveMode::Recursive).map(|()| w));
        match watcher {
            Ok(w) => Wake::Events { _watcher: w, events, interval },
            Err(e) => {
                let _ = writeln!(
                    std::io::stderr(),
                    "promptc watch: no file events ({e}); looking for changes every {} ms",
                    interval.as_millis()
                );
                Wake::Poll(interval)
            }
        }
    }

    /// Wait until something under `root` may have changed: an event on an input (then until
    /// the files are quiet for [`QUIET`]), or one polling interval.
    fn wait(&self, root: &Path, skip: &Skip) {
        match self {
            Wake::Poll(interval) => std::thread::sleep(*interval),
            Wake::Events { events, interval, .. } => {
                loop {
                    match events.recv() {
                        Ok(e) if relevant(&e, root, skip) => break,
                        Ok(_) => continue,
                        // The events' thread is gone: nothing will wake us again, so poll.
                        Err(_) => return std::thread::sleep(*interval),
                    }
                }
                while !matches!(
                    events.recv_timeout(QUIET),
                    Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected)
                ) {}
            }
        }
    }
}

/// Whether a file event may concern an input (see [`stamp`]): not a read, not only paths
/// promptc writes, in hidden folders or named as its temporary files. An error (a lost event, an
/// overflowed queue) may hide anything.
fn relevant(event: &notify::Result<notify::Event>, root: &Path, skip: &Skip) -> bool {
    let Ok(event) = event else { return true };
    if event.need_rescan() {
        return true;
    }
    if matches!(event.kind, EventKind::Access(_)) {
        return false;
    }
    event.paths.is_empty() || event.paths.iter().any(|p| is_input(p, root, skip))
}

/// Whether `path` could be one of the files [`stamp`] looks at.
fn is_input(path: &Path, root: &Path, skip: &Skip) -> bool {
    let Ok(rel) = path.strip_prefix(root) else { return false };
    let names: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    let Some((last, folders)) = names.split_last() else { return false };
    !skipped(path, skip) && !last.starts_with(".promptc-") && !folders.iter().any(|f| f.starts_with('.'))
}

/// What promptc writes, never an input: paths (and what is inside them), and the files of the
/// project's caches.
struct Skip {
    paths: Vec<PathBuf>,
    /// The token cache the project names (resolved): its shards and the compile cache beside it.
    cache: Option<PathBuf>,
}

/// Whether `path` is one of `skip`'s paths or inside one, or a cache file.
fn skipped(path: &Path, skip: &Skip) -> bool {
    skip.paths.iter().any(|s| path.starts_with(s))
        || skip.cache.as_deref().is_some_and(|c| promptc::is_cache_file(c, path))
}

/// The project's input files: every regular file under its folder except what promptc writes
/// (`skip`), its temporary files (`.promptc-…`) and hidden folders (`.git`, `.promptc-cache`),
/// without following links.
fn stamp(root: &Path, skip: &Skip) -> Stamp {
    let mut out = Stamp::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            let file_name = entry.file_name();
            let name = file_name.to_string_lossy();
            let hidden = name.starts_with('.');
            let Ok(meta) = entry.metadata() else { continue };
            // An atomic write's temporary file comes and goes while promptc writes.
            if name.starts_with(".promptc-") || skipped(&path, skip) {
                continue;
            }
            if meta.is_dir() && !hidden {
                stack.push(path);
            } else if meta.is_file() && out.len() < MAX_FILES {
                let modified = meta.modified().ok();
                let racy = modified.is_none_or(|m| m.elapsed().map_or(true, |age| age < RACY));
                // Only files a project could read are hashed (a huge file is judged by size).
                let hash = if racy && meta.len() <= HASHED_BYTES { content_hash(&path) } else { None };
                out.insert(path, (meta.len(), modified, hash));
            }
        }
    }
    out
}

/// Whether a file is the same in two stamps: same size and time, and the same content when
/// both hashed it (a file stops being hashed once it is old enough to be trusted).
fn same(a: &(u64, Option<SystemTime>, Option<u64>), b: &(u64, Option<SystemTime>, Option<u64>)) -> bool {
    a.0 == b.0 && a.1 == b.1 && (a.2.is_none() || b.2.is_none() || a.2 == b.2)
}

/// What changed between two stamps (empty when nothing did).
fn changed(before: &Stamp, after: &Stamp) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> =
        after.iter().filter(|(p, s)| !before.get(*p).is_some_and(|b| same(b, s))).map(|(p, _)| p.clone()).collect();
    out.extend(before.keys().filter(|p| !after.contains_key(*p)).cloned());
    out
}

/// `p` as an absolute path the way the file system spells it (links and `..` resolved through
/// its nearest existing ancestor; the rest, not yet created, appended), so it compares with the
/// paths found under the resolved project folder.
fn resolved(p: &Path) -> PathBuf {
    let absolute = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let mut missing = Vec::new();
    let mut at = absolute.as_path();
    loop {
        if let Ok(real) = at.canonicalize() {
            return missing.iter().rev().fold(real, |path, name| path.join(name));
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                missing.push(name.to_os_string());
                at = parent;
            }
            _ => return absolute,
        }
    }
}

/// What the watched command writes, from its own flags: `render --out DIR`, `report --out
/// FILE`; and the default token cache folder.
fn written_by(root: &Path, what: &WatchWhat) -> Vec<PathBuf> {
    let out = match what {
        WatchWhat::Render(a) => a.out.as_deref(),
        WatchWhat::Report(a) => a.out.as_deref(),
        WatchWhat::Check(_) => None,
    };
    out.map(resolved).into_iter().chain([root.join(".promptc-cache")]).collect()
}

pub(crate) fn watch(cli: &Cli, args: &WatchArgs, level_flags: &[(String, Level)]) -> Result<Exit, Error> {
    let manifest = super::discover(cli)?;
    let root = resolved(manifest.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")));
    let interval = Duration::from_millis(args.interval);
    let written = written_by(&root, &args.what);
    let mut skip = Skip { paths: written.clone(), cache: None };
    let mut last = stamp(&root, &skip);
    let mut run = 1;
    let mut reason = String::from("first run");
    // The token counter and the compile cache live across runs: a re-run recounts and
    // recompiles only what the edit reached.
    let mut session = promptc::report::Session::kept(true);
    let wake = Wake::new(&root, interval, args.poll);
    // Tool files whose text is unchanged are not parsed again.
    let memo = promptc::LoadMemo::new();
    loop {
        let _ = writeln!(std::io::stderr(), "── promptc watch: run {run} ({reason}) ──");
        match Project::load_overlaid(&manifest, std::sync::Arc::default(), Some(&memo)) {
            Ok(project) => {
                // The project may name its outputs anew: what they hold was never an input.
                skip = Skip {
                    paths: written.iter().cloned().chain(project.snapshot_folder().map(|p| resolved(&p))).collect(),
                    cache: project.token_cache().map(|p| resolved(&p)),
                };
                last.retain(|p, _| !skipped(p, &skip));
                let color = wants_color(cli.color, std::io::stderr().is_terminal());
                if !matches!(args.what, WatchWhat::Check(_)) {
                    let mut err = std::io::stderr().lock();
                    for w in project.warnings() {
                        let _ = write!(err, "{}", w.render(color));
                    }
                }
                let result = match &args.what {
                    WatchWhat::Render(a) => render(&project, a, cli.color),
                    WatchWhat::Report(a) => {
                        let result = super::report::report_in(&project, a, cli.color, Some(&mut session));
                        let stats = session.compile_stats();
                        if a.matrix && !a.no_cache {
                            let _ = writeln!(
                                std::io::stderr(),
                                "compile cache: {} cells compiled, {} reused",
                                stats.compiled,
                                stats.reused
                            );
                        }
                        result
                    }
                    WatchWhat::Check(a) => check(&project, a, level_flags, cli.color),
                };
                if let Err(e) = result {
                    show(&e, cli.color);
                }
            }
            Err(e) => show(&e, cli.color),
        }
        let _ = std::io::stdout().flush();
        // Wait for a change; when polling, then until the files are quiet for one interval (an
        // editor's save is often several writes; events wait for quiet themselves).
        let mut now = stamp(&root, &skip);
        while changed(&last, &now).is_empty() {
            wake.wait(&root, &skip);
            now = stamp(&root, &skip);
        }
        if matches!(wake, Wake::Poll(_)) {
            loop {
                std::thread::sleep(interval);
                let settled = stamp(&root, &skip);
                if changed(&now, &settled).is_empty() {
                    break;
                }
                now = settled;
            }
        }
        let files = changed(&last, &now);
        reason = match files.as_slice() {
            [one] => format!("{} changed", one.strip_prefix(&root).unwrap_or(one).display()),
            many => format!("{} files changed", many.len()),
        };
        last = now;
        run += 1;
    }
}

fn show(e: &Error, choice: Color) {
    let color = wants_color(choice, std::io::stderr().is_terminal());
    let mut err = std::io::stderr().lock();
    for d in e.diagnostics() {
        let _ = write!(err, "{}", d.render(color));
    }
}
