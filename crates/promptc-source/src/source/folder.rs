//! Folders promptc owns (the snapshot matrix, a frozen artifact), replaced as a whole:
//!
//! - **Ownership.** A folder is promptc's when it is empty or holds a manifest of promptc's
//!   current format (the caller reads it: `summary.json`, `metadata.json`, an import's
//!   `promptc.yaml`) listing each file promptc wrote there with the SHA-256 of its bytes. A
//!   file is promptc's only while its bytes still match that hash, so a forged or outdated
//!   manifest cannot hand over a user's file: promptc refuses to write when a file it would
//!   replace or remove was edited, or was created by someone else under a name it writes.
//!   It refuses a non-empty folder without a manifest, and never reads anything else: other
//!   files are carried over by hard link.
//! - **Atomicity.** The new content is built in a sibling folder and switched in with one
//!   rename (`renameat2(RENAME_EXCHANGE)` on Linux, `renameatx_np(RENAME_SWAP)` on macOS;
//!   elsewhere two renames, and the next run restores the old folder if it was cut between
//!   them). An interrupted run leaves the previous complete folder, never a mix.
//! - **A lock.** Writers of one folder serialise on an advisory lock of its parent folder;
//!   temporary folders of killed runs (`.NAME.promptc-new-` then six random letters or digits; `-old-`, `-del-`:
//!   only these names, beside the target) are removed under that lock by the next run.
//! - **Swaps.** The folder being replaced and the one being built are each held open while
//!   read or filled (`pin::hold`), so swapping either for a link meanwhile reads or writes
//!   nothing elsewhere; for a folder a project names, the caller passes a path through its
//!   parent opened once (`pin::pin`), so every call here stays in that parent.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::diagnostic::{Diagnostic, Label};
use crate::error::{Error, ErrorKind, Result};

/// A file promptc keeps inside a folder while building it; a folder holding it is a
/// leftover of an interrupted run.
pub const PARTIAL_MARKER: &str = ".promptc-partial";

/// How long a writer waits for another one to finish with the same folder.
const LOCK_WAIT: Duration = Duration::from_secs(120);

/// What a folder's manifest says promptc wrote there.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Manifest {
    /// The manifest's own file name; it is replaced with the folder (a file cannot record its
    /// own hash).
    pub name: String,
    /// Every other file promptc wrote there, by name, with the SHA-256 hex of its bytes.
    pub files: BTreeMap<String, String>,
}

impl Manifest {
    /// Every file the manifest names, itself included.
    pub fn names(&self) -> BTreeSet<String> {
        self.files.keys().cloned().chain([self.name.clone()]).collect()
    }
}

/// Reads a folder's manifest: `Ok(Some(manifest))` if the folder holds a manifest of
/// promptc's current format, `Ok(None)` if it holds none (or an older or malformed one).
pub type OwnedFiles<'a> = &'a dyn Fn(&Path) -> Result<Option<Manifest>>;

/// What replacing a folder did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Replaced {
    /// Files created or changed.
    pub written: Vec<String>,
    /// Files already identical.
    pub unchanged: usize,
    /// Files promptc had written that are no longer part of the folder.
    pub removed: Vec<String>,
}

fn io(action: &str, path: &Path, e: &std::io::Error) -> Error {
    Error::io(action, path, e)
}

fn refuse(message: String, help: &str) -> Error {
    Diagnostic::error(message).with_help(help.to_string()).into_error(ErrorKind::Io)
}

/// An advisory lock on a folder, released on drop.
struct Lock {
    _file: std::fs::File,
}

/// Take the lock of `folder`, waiting for other promptc runs that hold it.
fn lock(folder: &Path) -> Result<Option<Lock>> {
    // Directories can be opened and locked on Unix; elsewhere there is no lock to take.
    let Ok(file) = std::fs::File::open(folder) else { return Ok(None) };
    let start = Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(Some(Lock { _file: file })),
            Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < LOCK_WAIT => {
                std::thread::sleep(Duration::from_millis(50))
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(refuse(
                    format!("another promptc has been writing into `{}` for two minutes", folder.display()),
                    "wait for it to finish, or stop it",
                ))
            }
            // Locks not supported on this file system: go on without one.
            Err(std::fs::TryLockError::Error(_)) => return Ok(None),
        }
    }
}

/// The kinds of temporary folders promptc makes beside a target `NAME`, as
/// `.NAME.promptc-KIND-` and six random letters or digits: a folder being built (`new`; after an exchange it holds the
/// retired folder), the previous folder moved aside by the two-rename fallback (`old`), and a
/// retired folder being removed (`del`).
const TEMP_KINDS: [&str; 3] = ["new", "old", "del"];

/// Random letters and digits ending a temporary folder's name.
const TEMP_SUFFIX: usize = 6;

/// A fresh, empty folder in `parent` to stand beside `name` (renaming a folder over an empty
/// one replaces it, so the fallback swap can use it too).
fn temp_folder(parent: &Path, name: &str, kind: &str) -> Result<PathBuf> {
    tempfile::Builder::new()
        .prefix(&format!(".{name}.promptc-{kind}-"))
        .rand_bytes(TEMP_SUFFIX)
        .tempdir_in(parent)
        .map(tempfile::TempDir::keep)
        .map_err(|e| io("create a temporary folder in", parent, &e))
}

/// The kind of promptc temporary folder `file` is beside target `name`, if it is one: exactly
/// the names `temp_folder` makes, so a user's folder of a similar name is never taken for one.
fn temp_kind(file: &str, name: &str) -> Option<&'static str> {
    let rest = file.strip_prefix('.')?.strip_prefix(name)?.strip_prefix(".promptc-")?;
    TEMP_KINDS.into_iter().find(|kind| {
        rest.strip_prefix(kind)
            .and_then(|r| r.strip_prefix('-'))
            .is_some_and(|r| r.len() == TEMP_SUFFIX && r.bytes().all(|b| b.is_ascii_alphanumeric()))
    })
}

/// Whether `p` holds regular files only, as every folder promptc writes does (a folder with
/// subfolders or links is not one of its leftovers, whatever its name).
fn flat(p: &Path) -> bool {
    std::fs::read_dir(p)
        .is_ok_and(|entries| entries.into_iter().all(|e| e.is_ok_and(|e| e.file_type().is_ok_and(|t| t.is_file()))))
}

/// The kind of what is at `p`, without following a symbolic link.
enum Entry {
    Missing,
    Folder,
    Other,
}

fn entry(p: &Path) -> Result<Entry> {
    match std::fs::symlink_metadata(p) {
        Ok(m) if m.is_dir() => Ok(Entry::Folder),
        Ok(_) => Ok(Entry::Other),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Entry::Missing),
        Err(e) => Err(io("inspect", p, &e)),
    }
}

/// Remove what interrupted runs left beside `name` in `parent`, and restore the folder if a
/// run was cut between the fallback's two renames. Only promptc's own temporary folders of this
/// target are touched (`temp_kind`), whatever point a run was killed at: while building
/// (`new`, partial), after the exchange (`new`, the retired folder), between the two renames
/// (`old`, the previous complete folder: restored when the target is missing), or while the
/// retired folder was being removed (`del`, partly removed).
fn recover(parent: &Path, name: &str, dir: &Path) -> Result<()> {
    let Ok(entries) = std::fs::read_dir(parent) else { return Ok(()) };
    let mut leftovers: Vec<(PathBuf, &str)> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| temp_kind(&e.file_name().to_string_lossy(), name).map(|kind| (e.path(), kind)))
        .filter(|(p, _)| flat(p))
        .collect();
    leftovers.sort();
    for (p, kind) in leftovers {
        if kind == "old" && matches!(entry(dir)?, Entry::Missing) {
            std::fs::rename(&p, dir).map_err(|e| io("restore", dir, &e))?;
        } else {
            // Best effort: what cannot be removed now is tried again by the next run.
            let _ = std::fs::remove_dir_all(&p);
        }
    }
    Ok(())
}

/// Remove what killed runs left beside `dir` (see `recover`) without writing it: for a command
/// that may write the folder but has nothing to write this time (`review` with nothing to
/// decide), so a killed run's copy never lingers for `git add -A` to commit.
pub fn sweep(dir: &Path) -> Result<()> {
    let Some(name) = dir.file_name().map(|n| n.to_string_lossy().into_owned()) else { return Ok(()) };
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !parent.is_dir() {
        return Ok(());
    }
    let _lock = lock(&parent)?;
    recover(&parent, &name, dir)
}

/// Remove a retired folder: first renamed to a `del` name, so a run killed half-way through
/// the removal leaves a folder the next run knows is to be removed, never restored.
fn retire(parent: &Path, name: &str, old: &Path) {
    let doomed = match temp_folder(parent, name, "del") {
        // Renaming a folder over an empty one replaces it on Unix; elsewhere remove in place.
        Ok(d) if std::fs::rename(old, &d).is_ok() => d,
        Ok(d) => {
            let _ = std::fs::remove_dir(&d);
            old.to_path_buf()
        }
        Err(_) => old.to_path_buf(),
    };
    let _ = std::fs::remove_dir_all(doomed);
}

/// Write the file at `at` (shown as `path`) with `contents` and flush it to disk.
fn write_file(at: &Path, path: &Path, contents: &[u8]) -> Result<()> {
    let mut f = std::fs::File::create(at).map_err(|e| io("create", path, &e))?;
    f.write_all(contents).map_err(|e| io("write", path, &e))?;
    f.sync_all().map_err(|e| io("flush", path, &e))
}

/// Swap two folders in one step where the system can; `false` where it cannot.
#[cfg(any(target_os = "linux", target_os = "macos"))]
fn exchange(a: &Path, b: &Path) -> bool {
    use rustix::fs::{renameat_with, RenameFlags, CWD};
    renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).is_ok()
}

#[cfg(not(any(target_os = "linux", target_os = "macos")))]
fn exchange(_: &Path, _: &Path) -> bool {
    false
}

/// Flush a folder's entries to disk.
fn sync_folder(p: &Path) {
    // Flushing a folder's entries is best effort: not every platform can open a folder.
    if let Ok(f) = std::fs::File::open(p) {
        let _ = f.sync_all();
    }
}

/// Replace the promptc-owned content of `dir` with `files` (name → contents, flat), as one
/// step. `owned` reads the folder's manifest, which must be one of `files`.
pub fn replace(dir: &Path, files: &BTreeMap<String, Vec<u8>>, owned: OwnedFiles) -> Result<Replaced> {
    replace_superseding(dir, files, owned, &|_| false)
}

/// [`replace`], where a file the manifest does not list but `superseded` names (a pending
/// `NAME.new` snapshot copied in from CI, once `NAME` is written anew) is promptc's format made
/// stale by this write: removed with the old folder instead of carried over, and reported as
/// removed.
pub fn replace_superseding(
    dir: &Path,
    files: &BTreeMap<String, Vec<u8>>,
    owned: OwnedFiles,
    superseded: &dyn Fn(&str) -> bool,
) -> Result<Replaced> {
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).ok_or_else(|| {
        refuse(format!("`{}` does not name a folder", dir.display()), "give a folder path such as `snapshots`")
    })?;
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(|e| io("create folder", &parent, &e))?;
    let _lock = lock(&parent)?;
    recover(&parent, &name, dir)?;

    let now = current(dir, files, owned, superseded)?;
    let mut result = Replaced::default();
    for (n, text) in files {
        match now.owned.get(n) {
            Some(old) if old == text => result.unchanged += 1,
            _ => result.written.push(n.clone()),
        }
    }
    result.removed = now.owned.keys().filter(|n| !files.contains_key(*n)).cloned().collect();
    result.removed.extend(now.stale.iter().filter(|n| !files.contains_key(*n)).cloned());
    if result.written.is_empty() && result.removed.is_empty() {
        return Ok(result);
    }
    let from = now.held.as_ref().map_or(dir, |h| h.path());
    let new = build(&parent, &name, (dir, from), files, &now.foreign)?;
    switch_in(&parent, &name, dir, &new, now.existed)?;
    Ok(result)
}

/// What a folder holds before it is replaced.
struct Current {
    /// Whether the folder exists.
    existed: bool,
    /// The files promptc wrote there (its manifest lists them), with their contents.
    owned: BTreeMap<String, Vec<u8>>,
    /// Other regular files, carried over into the new folder.
    foreign: Vec<String>,
    /// Files not listed that the write supersedes: left behind with the old folder.
    stale: Vec<String>,
    /// The folder, held open while it is read and its files carried over: swapping it for a
    /// link meanwhile reads nothing elsewhere.
    held: Option<super::pin::Held>,
}

/// How many files a refusal names, one diagnostic each.
const SHOWN: usize = 10;

/// What `dir` holds now, and whose it is: refused when it is not a folder, or holds files
/// while no manifest says promptc wrote them, or holds a folder or link promptc did not write,
/// or when a file promptc would replace or remove (one its manifest lists, or one of the names
/// in `files`) is not byte for byte what promptc wrote or would write.
fn current(
    dir: &Path,
    files: &BTreeMap<String, Vec<u8>>,
    owned: OwnedFiles,
    superseded: &dyn Fn(&str) -> bool,
) -> Result<Current> {
    let mut now =
        Current { existed: false, owned: BTreeMap::new(), foreign: Vec::new(), stale: Vec::new(), held: None };
    match entry(dir)? {
        Entry::Missing => return Ok(now),
        Entry::Other => {
            return Err(refuse(
                format!("`{}` is not a folder", dir.display()),
                "promptc writes a folder there; move the file or symbolic link away, or choose another folder",
            ))
        }
        Entry::Folder => now.existed = true,
    }
    let held = super::pin::hold(dir).map_err(|e| io("open folder", dir, &e))?;
    let mut names: Vec<(String, bool)> = Vec::new();
    for e in std::fs::read_dir(held.path()).map_err(|e| io("read folder", dir, &e))? {
        let e = e.map_err(|e| io("read folder", dir, &e))?;
        let is_file = e.file_type().is_ok_and(|t| t.is_file());
        names.push((e.file_name().to_string_lossy().into_owned(), is_file));
    }
    names.retain(|(n, _)| n != PARTIAL_MARKER);
    names.sort();
    now.held = Some(held);
    if names.is_empty() {
        return Ok(now);
    }
    let Some(manifest) = owned(dir)? else {
        let shown: Vec<&str> = names.iter().take(5).map(|(n, _)| n.as_str()).collect();
        return Err(refuse(
            format!(
                "`{}` holds files promptc did not write ({}{})",
                dir.display(),
                shown.join(", "),
                if names.len() > 5 { ", …" } else { "" }
            ),
            "promptc writes only into an empty folder or one it wrote before (with a manifest of its current \
             format); choose another folder, or move these files out of it",
        ));
    };
    let mut not_ours = Vec::new();
    for (n, is_file) in names {
        if !is_file {
            return Err(refuse(
                format!("`{}` holds `{n}`, which promptc did not write and cannot carry over", dir.display()),
                "move that folder or link out of the folder promptc writes",
            ));
        }
        let listed = n == manifest.name || manifest.files.contains_key(&n);
        if !listed && is_file && superseded(&n) {
            now.stale.push(n);
            continue;
        }
        if !listed && !files.contains_key(&n) {
            now.foreign.push(n);
            continue;
        }
        let at = now.held.as_ref().map_or_else(|| dir.join(&n), |h| h.path().join(&n));
        let bytes = super::read_regular(&at, super::MAX_OUTPUT_BYTES).map_err(|e| e.into_error(&dir.join(&n)))?;
        // Identical bytes lose nothing when replaced, whoever wrote them.
        let same = files.get(&n) == Some(&bytes);
        let proven =
            n == manifest.name || manifest.files.get(&n).is_some_and(|h| *h == crate::hash::sha256_hex(&bytes));
        if same || proven {
            now.owned.insert(n, bytes);
        } else {
            not_ours.push((n, listed));
        }
    }
    if !not_ours.is_empty() {
        return Err(not_provably_ours(dir, &manifest.name, &not_ours));
    }
    Ok(now)
}

/// The refusal to replace or remove files promptc cannot prove it wrote (name, whether the
/// manifest lists it): one located diagnostic per file.
fn not_provably_ours(dir: &Path, manifest: &str, files: &[(String, bool)]) -> Error {
    let help = format!(
        "promptc replaces or removes only files whose bytes match the hash its `{manifest}` recorded; \
         move these files out of `{}` (or delete them if you do not need them), then run again",
        dir.display()
    );
    let mut diagnostics: Vec<Diagnostic> = files
        .iter()
        .take(SHOWN)
        .map(|(n, listed)| {
            let why = if *listed {
                format!("changed since promptc wrote it (its bytes do not match the hash in `{manifest}`)")
            } else {
                format!("not written by promptc (`{manifest}` does not list it)")
            };
            Diagnostic::error(format!("promptc would replace or remove `{n}`, which is {why}"))
                .with_label(Label::file(dir.join(n).display().to_string()))
                .with_help(help.clone())
        })
        .collect();
    if files.len() > SHOWN {
        if let Some(last) = diagnostics.last_mut() {
            *last = last.clone().with_note(format!("and {} more such files", files.len() - SHOWN));
        }
    }
    Error::new(ErrorKind::Io, diagnostics)
}

/// Build the new folder beside the old one, marked partial until it is switched in; any
/// failure removes it and leaves the old one untouched. The old folder is `dir` in messages
/// and `from` (held open) to carry its files over.
fn build(
    parent: &Path,
    name: &str,
    (dir, from): (&Path, &Path),
    files: &BTreeMap<String, Vec<u8>>,
    foreign: &[String],
) -> Result<PathBuf> {
    let new = temp_folder(parent, name, "new")?;
    let fill = || -> Result<()> {
        // Filled through the open folder: swapping it for a link meanwhile writes nothing elsewhere.
        let held = super::pin::hold(&new).map_err(|e| io("open folder", &new, &e))?;
        let into = held.path();
        write_file(&into.join(PARTIAL_MARKER), &new.join(PARTIAL_MARKER), b"")?;
        for (n, text) in files {
            write_file(&into.join(n), &new.join(n), text)?;
        }
        for n in foreign {
            std::fs::hard_link(from.join(n), into.join(n)).map_err(|e| io("carry over", &dir.join(n), &e))?;
        }
        sync_folder(into);
        Ok(())
    };
    if let Err(e) = fill() {
        let _ = std::fs::remove_dir_all(&new);
        return Err(e);
    }
    Ok(new)
}

/// Put the built folder `new` in place of `dir`: a rename when there was none, an atomic
/// exchange where the system has one, else two renames (put back on failure).
fn switch_in(parent: &Path, name: &str, dir: &Path, new: &Path, existed: bool) -> Result<()> {
    let retired = if !existed {
        std::fs::rename(new, dir).map_err(|e| io("create", dir, &e))?;
        None
    } else if exchange(new, dir) {
        Some(new.to_path_buf())
    } else {
        let old = temp_folder(parent, name, "old")?;
        std::fs::rename(dir, &old).map_err(|e| io("move aside", dir, &e))?;
        if let Err(e) = std::fs::rename(new, dir) {
            let _ = std::fs::rename(&old, dir);
            let _ = std::fs::remove_dir_all(new);
            return Err(io("replace", dir, &e));
        }
        Some(old)
    };
    let _ = std::fs::remove_file(dir.join(PARTIAL_MARKER));
    sync_folder(parent);
    if let Some(old) = retired {
        retire(parent, name, &old);
    }
    Ok(())
}

#[cfg(test)]
#[path = "folder_tests.rs"]
mod tests;
