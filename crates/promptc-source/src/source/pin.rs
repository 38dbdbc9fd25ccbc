//! Writing where a project says, immune to the path being swapped meanwhile. `confine` checks a
//! path once; every later call would resolve it again, so a folder on the way swapped for a
//! symbolic link after the check could send the write elsewhere. [`pin`] instead opens the
//! target's parent folder once, walking from the write root one component at a time with
//! `openat(O_NOFOLLOW | O_DIRECTORY)` (a missing component is made with `mkdirat`, a real
//! folder; a symbolic link is followed only where `confine` allows one, and the folder it
//! opened must lie inside the root), and hands back a path through that open folder:
//! `/proc/self/fd/N/NAME`, which the kernel resolves to the open folder itself, whatever
//! happens to the path's folders afterwards. Everything then goes through that path (see
//! `folder::replace`), and messages are put back on the path the user knows
//! ([`Pinned::relabel`]).
//!
//! A folder the user named on the command line ([`named`]) is resolved once as written (its
//! links are the user's) and its parent held open the same way, so a swap cannot split or
//! redirect the write after that.
//!
//! Linux only: elsewhere, or without `/proc`, the checked path is used as it is (a swap racing
//! the write can still redirect it there).

use std::path::{Path, PathBuf};

use crate::error::Error;

/// An open folder (Linux); elsewhere nothing is held.
#[cfg(target_os = "linux")]
type Fd = rustix::fd::OwnedFd;
#[cfg(not(target_os = "linux"))]
type Fd = ();

/// A target path whose parent folder is held open: use [`path`](Self::path) for every call.
#[derive(Debug)]
pub struct Pinned {
    /// The path every filesystem call uses.
    path: PathBuf,
    /// The open parent's `/proc/self/fd/N` and how it is shown, to put messages back.
    alias: Option<(String, String)>,
    /// The open parent folder, held as long as the path is used.
    _parent: Option<Fd>,
}

impl Pinned {
    /// `path` used as it is.
    pub fn unpinned(path: &Path) -> Pinned {
        Pinned { path: path.to_path_buf(), alias: None, _parent: None }
    }

    /// The path to operate on.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `text` with the pinned path put back as the user knows it.
    pub fn show(&self, text: &str) -> String {
        let Some((via, shown)) = &self.alias else { return text.to_string() };
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(i) = rest.find(via.as_str()) {
            let after = &rest[i + via.len()..];
            out.push_str(&rest[..i]);
            // `/proc/self/fd/5` is not a prefix of `/proc/self/fd/57`.
            rest = after;
            if after.starts_with(|c: char| c.is_ascii_digit()) {
                out.push_str(via);
            } else if !shown.is_empty() {
                out.push_str(shown);
            } else if let Some(inside) = after.strip_prefix('/') {
                // A folder in the working directory is shown by its name alone.
                rest = inside;
            } else {
                out.push('.');
            }
        }
        out.push_str(rest);
        out
    }

    /// `e` with every pinned path in its diagnostics put back as the user knows it.
    pub fn relabel(&self, mut e: Error) -> Error {
        if self.alias.is_none() {
            return e;
        }
        for d in e.diagnostics_mut() {
            d.message = self.show(&d.message);
            d.notes = d.notes.iter().map(|n| self.show(n)).collect();
            d.help = d.help.as_deref().map(|h| self.show(h));
            d.label_text = d.label_text.as_deref().map(|t| self.show(t));
            if let Some(label) = &mut d.label {
                label.file = self.show(&label.file);
            }
        }
        e
    }
}

/// Check `target` with `confine` (`root` canonical, `target` absolute) and pin its parent
/// folder, creating the missing ones; `shown` is how the user knows `target`. The error says
/// why the path cannot be used, as `confine`'s do.
pub fn pin(root: &Path, target: &Path, shown: &Path) -> std::result::Result<Pinned, String> {
    super::confine(root, target)?;
    let target = super::clean_path(target);
    #[cfg(target_os = "linux")]
    if Path::new("/proc/self/fd").is_dir() {
        return linux::pin(root, &target, shown);
    }
    let _ = shown;
    Ok(Pinned::unpinned(&target))
}

/// Pin the parent of `target`, a folder the user named on the command line (`render --out`,
/// `snapshot --dir`): its path is resolved once, as the user wrote it (links the user's path
/// goes through are theirs to have), the missing folders made, and every later call goes
/// through the open parent, so a folder on the way swapped for a link meanwhile cannot split
/// or redirect the write (Linux; elsewhere the path as it is).
pub fn named(target: &Path) -> std::io::Result<Pinned> {
    #[cfg(target_os = "linux")]
    if Path::new("/proc/self/fd").is_dir() {
        use rustix::fd::AsRawFd;
        let Some(name) = target.file_name() else { return Ok(Pinned::unpinned(target)) };
        let parent = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        std::fs::create_dir_all(parent)?;
        let fd = rustix::fs::openat(rustix::fs::CWD, parent, linux::DIR, linux::NO_MODE)?;
        let via = format!("/proc/self/fd/{}", fd.as_raw_fd());
        let shown = target.parent().map_or_else(String::new, |p| p.display().to_string());
        return Ok(Pinned { path: Path::new(&via).join(name), alias: Some((via, shown)), _parent: Some(fd) });
    }
    Ok(Pinned::unpinned(target))
}

/// A folder held open while it is used: its contents are reached through the open folder, so
/// swapping the folder for a link afterwards sends nothing elsewhere (Linux; elsewhere the
/// path as it is). A symbolic link at `dir` is refused.
#[derive(Debug)]
pub struct Held {
    path: PathBuf,
    _fd: Option<Fd>,
}

impl Held {
    /// The path to reach the folder's contents by.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Hold the folder `dir` open (see [`Held`]).
pub fn hold(dir: &Path) -> std::io::Result<Held> {
    #[cfg(target_os = "linux")]
    if Path::new("/proc/self/fd").is_dir() {
        use rustix::fd::AsRawFd;
        let fd = rustix::fs::openat(rustix::fs::CWD, dir, linux::DIR | rustix::fs::OFlags::NOFOLLOW, linux::NO_MODE)?;
        return Ok(Held { path: PathBuf::from(format!("/proc/self/fd/{}", fd.as_raw_fd())), _fd: Some(fd) });
    }
    Ok(Held { path: dir.to_path_buf(), _fd: None })
}

#[cfg(target_os = "linux")]
mod linux {
    use std::ffi::OsStr;
    use std::path::{Path, PathBuf};

    use rustix::fd::{AsRawFd, OwnedFd};
    use rustix::fs::{mkdirat, openat, statat, AtFlags, FileType, Mode, OFlags, CWD};
    use rustix::io::Errno;

    use super::Pinned;
    use crate::error::io_reason;

    /// Opening a folder to work in.
    pub(super) const DIR: OFlags = OFlags::RDONLY.union(OFlags::DIRECTORY).union(OFlags::CLOEXEC);
    pub(super) const NO_MODE: Mode = Mode::empty();

    fn why(at: &Path, e: Errno) -> String {
        format!("`{}`: {}", at.display(), io_reason(&e.into()))
    }

    /// The path the kernel resolves to the open folder `fd`.
    fn via(fd: &OwnedFd) -> String {
        format!("/proc/self/fd/{}", fd.as_raw_fd())
    }

    pub(super) fn pin(root: &Path, target: &Path, shown: &Path) -> Result<Pinned, String> {
        let (Ok(rest), Some(name)) = (target.strip_prefix(root), target.file_name()) else {
            return Err(format!("`{}` does not name a folder inside `{}`", target.display(), root.display()));
        };
        let mut fd = openat(CWD, root, DIR, NO_MODE).map_err(|e| why(root, e))?;
        let mut at = root.to_path_buf();
        for part in rest.parent().into_iter().flat_map(Path::components) {
            at.push(part);
            fd = step(&fd, part.as_os_str(), root, &at)?;
        }
        let via = via(&fd);
        let shown_parent = shown.parent().map_or_else(PathBuf::new, Path::to_path_buf);
        Ok(Pinned {
            path: Path::new(&via).join(name),
            alias: Some((via, shown_parent.display().to_string())),
            _parent: Some(fd),
        })
    }

    /// Open `name` in the open folder `dir` (the path `at`): a real folder, made if missing; a
    /// symbolic link only when the folder it opens lies inside `root` (as `confine` allows).
    fn step(dir: &OwnedFd, name: &OsStr, root: &Path, at: &Path) -> Result<OwnedFd, String> {
        match openat(dir, name, DIR | OFlags::NOFOLLOW, NO_MODE) {
            Ok(fd) => return Ok(fd),
            Err(Errno::NOENT) => {
                match mkdirat(dir, name, Mode::from_raw_mode(0o777)) {
                    Ok(()) | Err(Errno::EXIST) => {}
                    Err(e) => return Err(why(at, e)),
                }
                return openat(dir, name, DIR | OFlags::NOFOLLOW, NO_MODE).map_err(|e| why(at, e));
            }
            // `O_NOFOLLOW` met a link (or something that is no folder): looked at below.
            Err(Errno::LOOP | Errno::NOTDIR) => {}
            Err(e) => return Err(why(at, e)),
        }
        let link = statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)
            .is_ok_and(|s| FileType::from_raw_mode(s.st_mode) == FileType::Symlink);
        if !link {
            return Err(format!("`{}` is not a folder", at.display()));
        }
        let fd = openat(dir, name, DIR, NO_MODE).map_err(|e| why(at, e))?;
        // Where the link led, as the kernel knows the folder now open.
        let real = std::fs::read_link(via(&fd)).map_err(|e| format!("`{}`: {}", at.display(), io_reason(&e)))?;
        let inside = real.strip_prefix(root).is_ok_and(|rest| {
            !rest.components().any(|c| super::super::VCS_FOLDERS.iter().any(|v| c.as_os_str() == *v))
        });
        if !inside {
            return Err(format!(
                "`{}` is a symbolic link to `{}`, outside `{}`",
                at.display(),
                real.display(),
                root.display()
            ));
        }
        Ok(fd)
    }
}

// What is pinned is Linux's; elsewhere paths are used as they are.
#[cfg(all(test, target_os = "linux"))]
#[path = "pin_tests.rs"]
mod tests;
