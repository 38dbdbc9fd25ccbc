//! Files: reading project files (paths confined to the project folder, size-bounded,
//! hashed), writing atomically, and parsing YAML with limits.

use std::path::{Component, Path, PathBuf};

use crate::diagnostic::{Diagnostic, Label};
use crate::error::{io_reason, Error, Result};

pub mod atomic;
pub mod folder;
pub mod pin;
pub mod yaml;
mod yaml_mistakes;

/// Largest project file promptc reads; anything bigger is almost certainly a mistake.
pub const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// Largest file promptc reads back that it wrote itself (snapshot files, records, caches).
pub const MAX_OUTPUT_BYTES: u64 = 64 * 1024 * 1024;

/// Why a file could not be read.
#[derive(Debug)]
pub enum ReadError {
    /// The operating system refused.
    Io(std::io::Error),
    /// Not a regular file: a folder, a FIFO (reading would block) or a device (it never ends).
    NotAFile,
    /// Larger than the limit, in bytes.
    TooLarge(u64),
}

impl ReadError {
    /// This failure as a located I/O error about `path`.
    pub fn into_error(self, path: &Path) -> Error {
        match self {
            ReadError::Io(e) => Error::io("read", path, &e),
            ReadError::NotAFile => Diagnostic::error(format!("`{}` is not a regular file", path.display()))
                .with_help("promptc reads only ordinary files: not folders, pipes or devices")
                .into_error(crate::error::ErrorKind::Io),
            ReadError::TooLarge(limit) => {
                Diagnostic::error(format!("`{}` is larger than {limit} bytes", path.display()))
                    .with_help("check that the path names the intended file")
                    .into_error(crate::error::ErrorKind::Io)
            }
        }
    }
}

/// Read `path` if it is a regular file of at most `limit` bytes: never blocks on a FIFO,
/// never reads a device or a file that grows without end.
pub fn read_regular(path: &Path, limit: u64) -> std::result::Result<Vec<u8>, ReadError> {
    use std::io::Read;
    let meta = std::fs::metadata(path).map_err(ReadError::Io)?;
    if !meta.is_file() {
        return Err(ReadError::NotAFile);
    }
    if meta.len() > limit {
        return Err(ReadError::TooLarge(limit));
    }
    let file = std::fs::File::open(path).map_err(ReadError::Io)?;
    // The file may have been swapped between the two looks: check what was opened.
    if !file.metadata().map_err(ReadError::Io)?.is_file() {
        return Err(ReadError::NotAFile);
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit + 1).read_to_end(&mut bytes).map_err(ReadError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge(limit));
    }
    Ok(bytes)
}

/// One file of the project, as read.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// Path relative to the project folder, `/`-separated: the file's identity.
    pub rel: String,
    /// Path as shown to the user.
    pub display: String,
    /// The file's text.
    pub text: String,
    /// Whether the bytes as stored began with a byte-order mark, dropped from `text`: the
    /// stored bytes are the mark and `text`, so the hash can be taken from them later.
    bom: bool,
    /// SHA-256 of the bytes, lower-case hex, taken on first need: only the compile cache reads
    /// it, and hashing every file cost a render about a seventh of its work on a large project.
    sha256: std::sync::OnceLock<String>,
}

/// Two reads of a file are equal when they hold the same text at the same path (the hash,
/// taken or not yet, follows from the bytes).
impl PartialEq for SourceFile {
    fn eq(&self, other: &Self) -> bool {
        self.rel == other.rel && self.display == other.display && self.text == other.text && self.bom == other.bom
    }
}

impl Eq for SourceFile {}

/// The byte-order mark as UTF-8 stores it.
const BOM: &[u8] = "\u{FEFF}".as_bytes();

impl SourceFile {
    /// A file holding `text` (no byte-order mark), as tests and the fuzz entry points make them.
    pub fn new(rel: impl Into<String>, display: impl Into<String>, text: impl Into<String>) -> Self {
        SourceFile {
            rel: rel.into(),
            display: display.into(),
            text: text.into(),
            bom: false,
            sha256: std::sync::OnceLock::new(),
        }
    }

    /// SHA-256 of the file's bytes as stored (with its byte-order mark, if it had one),
    /// lower-case hex.
    pub fn sha256(&self) -> &str {
        self.sha256.get_or_init(|| {
            if self.bom {
                crate::hash::sha256_hex_parts(&[BOM, self.text.as_bytes()])
            } else {
                crate::hash::sha256_hex(self.text.as_bytes())
            }
        })
    }

    /// A label pointing at a byte range of this file.
    pub fn label_bytes(&self, start: usize, end: usize) -> Label {
        Label::at(&self.display, &self.text, crate::diagnostic::Position::from_byte_range(&self.text, start, end))
    }
}

/// `a/b/../c` → `a/c`: lexical clean-up of a path for display (no file-system access).
pub fn clean_path(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.components().next_back(), Some(Component::Normal(_))) => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// The folder a project may write into on its own say-so (its snapshot folder, its token
/// cache): the repository holding it — the nearest folder at or above `project_root` with a
/// `.git` — else the folder holding the project. `project_root` is canonical.
///
/// The threat: a project from a pull request (it sits in a checkout, a repository) naming a
/// folder outside the checkout. The repository bounds it. A project outside any repository (a
/// copy, a source tarball) may write beside itself — `../snapshots`, as the shipped example
/// does — and no further up. Either way promptc writes only into an empty folder or one it
/// wrote (see `folder`), never through a symbolic link ([`confine`]), and checks this when it
/// writes, so commands that write nothing work wherever the project is.
pub fn write_root(project_root: &Path) -> PathBuf {
    match project_root.ancestors().find(|a| a.join(".git").exists()) {
        Some(repository) => repository.to_path_buf(),
        None => project_root.parent().unwrap_or(project_root).to_path_buf(),
    }
}

/// Folders of version-control systems: never a place promptc writes.
const VCS_FOLDERS: [&str; 6] = [".git", ".hg", ".svn", ".jj", ".bzr", "_darcs"];

/// The version-control folder (`.git`, …) one of `path`'s components names, if any.
pub fn vcs_folder(path: &Path) -> Option<String> {
    path.components()
        .find(|c| VCS_FOLDERS.iter().any(|v| c.as_os_str() == *v))
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
}

/// The version-control folder `target` lies in once resolved: made absolute from the working
/// directory, its longest existing part with links followed (`out -> .git/hooks` is inside
/// `.git`), the rest as written and cleaned (`a/../.git`). For paths the user names, which may
/// be anywhere else.
pub fn resolved_vcs_folder(target: &Path) -> Option<String> {
    let absolute = match std::env::current_dir() {
        Ok(cwd) => clean_path(&cwd.join(target)),
        Err(_) => clean_path(target),
    };
    let mut existing = absolute.as_path();
    let resolved = loop {
        if let Ok(real) = existing.canonicalize() {
            let rest = absolute.strip_prefix(existing).unwrap_or(Path::new(""));
            break clean_path(&real.join(rest));
        }
        match existing.parent() {
            Some(p) => existing = p,
            None => break absolute.clone(),
        }
    };
    // As written too: a folder named `.git` that the cleaning removed is still what was asked for.
    vcs_folder(&resolved).or_else(|| vcs_folder(&absolute))
}

/// Check that writing `target` stays inside `root` (both absolute; `root` canonical): the
/// path lies lexically inside `root`, every part of it that exists resolves — symbolic links
/// followed — inside `root`, and `target` itself is not a symbolic link; no part of it is a
/// version-control folder (`.git`, …). A project cannot make promptc write through a
/// committed link such as `h -> ~`, nor into a repository's own files. The check alone leaves a
/// race (a folder on the path swapped for a link after it): writes go through [`pin::pin`].
pub fn confine(root: &Path, target: &Path) -> std::result::Result<(), String> {
    let target = clean_path(target);
    let Ok(rest) = target.strip_prefix(root) else {
        return Err(format!("`{}` is outside `{}`", target.display(), root.display()));
    };
    // A version-control folder is never written: `snapshots: ../.git/refs/tags` would put files
    // among a repository's refs and break it.
    if let Some(vcs) = vcs_folder(rest) {
        return Err(format!(
            "`{}` is inside `{vcs}`, a version-control folder; promptc never writes there",
            target.display()
        ));
    }
    let mut at = root.to_path_buf();
    let parts: Vec<_> = rest.components().collect();
    for (i, part) in parts.iter().enumerate() {
        at.push(part);
        match std::fs::symlink_metadata(&at) {
            Err(_) => return Ok(()), // nothing further exists: promptc creates real folders
            Ok(m) if m.file_type().is_symlink() => {
                if i + 1 == parts.len() {
                    return Err(format!("`{}` is a symbolic link; promptc does not write through links", at.display()));
                }
                let resolved = at.canonicalize().map_err(|e| format!("`{}`: {}", at.display(), io_reason(&e)))?;
                if !resolved.starts_with(root) {
                    return Err(format!(
                        "`{}` is a symbolic link to `{}`, outside `{}`",
                        at.display(),
                        resolved.display(),
                        root.display()
                    ));
                }
            }
            Ok(_) => {}
        }
    }
    Ok(())
}

/// Texts that stand for project files, by project-relative path: an editor's unsaved buffers
/// (`promptc lsp`). `ProjectFs::read` takes a file's text from here before the disk, so a
/// project loads from what the user sees without writing anything; every other rule (paths
/// inside the project, the size limit) holds as for files on disk.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Overlay {
    /// Texts by normalised project-relative path (`/`-separated, no `.` or `..`).
    texts: std::collections::BTreeMap<String, String>,
}

impl Overlay {
    /// An empty overlay: every file is read from the disk.
    pub fn new() -> Overlay {
        Overlay::default()
    }

    /// Let `text` stand for the file at project-relative path `rel` (`sections/role.md.j2`).
    pub fn insert(&mut self, rel: impl Into<String>, text: impl Into<String>) {
        self.texts.insert(rel.into(), text.into());
    }

    /// Read `rel` from the disk again.
    pub fn remove(&mut self, rel: &str) {
        self.texts.remove(rel);
    }

    /// The text standing for `rel`, if any.
    pub fn get(&self, rel: &str) -> Option<&str> {
        self.texts.get(rel).map(String::as_str)
    }

    /// How many files the overlay holds.
    pub fn len(&self) -> usize {
        self.texts.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }
}

/// Reads files of one project folder, refusing paths that leave it.
#[derive(Debug, Clone)]
pub struct ProjectFs {
    root: PathBuf,
    display_root: PathBuf,
    /// Texts read instead of the disk's (shared: every clone of a project's reader sees the same).
    overlay: std::sync::Arc<Overlay>,
}

impl ProjectFs {
    /// A reader rooted at `root` (shown to the user as `display_root`).
    pub fn new(root: &Path, display_root: &Path) -> Result<Self> {
        let canonical = root.canonicalize().map_err(|e| Error::io("open project folder", root, &e))?;
        Ok(ProjectFs { root: canonical, display_root: display_root.to_path_buf(), overlay: Default::default() })
    }

    /// This reader with `overlay`'s texts standing for the files they name.
    pub fn with_overlay(mut self, overlay: std::sync::Arc<Overlay>) -> Self {
        self.overlay = overlay;
        self
    }

    /// The canonical project folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// How `rel` is shown to the user.
    pub fn display(&self, rel: &str) -> String {
        let p = self.display_root.join(rel);
        let s = p.to_string_lossy().replace('\\', "/");
        s.strip_prefix("./").map(str::to_string).unwrap_or(s)
    }

    /// Check that `rel` is a plain relative path inside the project and normalise it.
    pub fn normalize(&self, rel: &str) -> std::result::Result<String, String> {
        if rel.is_empty() {
            return Err("the path is empty".into());
        }
        let path = Path::new(rel);
        let mut parts: Vec<String> = Vec::new();
        for c in path.components() {
            match c {
                Component::Normal(p) => parts.push(p.to_string_lossy().into_owned()),
                Component::CurDir => {}
                Component::ParentDir => {
                    if parts.pop().is_none() {
                        return Err("the path leaves the project folder".into());
                    }
                }
                Component::RootDir | Component::Prefix(_) => {
                    return Err("absolute paths are not allowed; use a path relative to the project folder".into())
                }
            }
        }
        if parts.is_empty() {
            return Err("the path names the project folder itself".into());
        }
        Ok(parts.join("/"))
    }

    /// Whether `rel` names nothing inside the project (no file, folder or link there), so a
    /// read of it fails for no other reason than absence. A path that leaves the project, or
    /// whose nearest existing folder lies outside it (through a link), is never "missing":
    /// reading it is refused.
    pub fn missing(&self, rel: &str) -> bool {
        let Ok(norm) = self.normalize(rel) else { return false };
        if self.overlay.get(&norm).is_some() {
            return false;
        }
        let full = self.root.join(norm);
        if !matches!(std::fs::symlink_metadata(&full), Err(e) if e.kind() == std::io::ErrorKind::NotFound) {
            return false;
        }
        let existing = full.ancestors().skip(1).find(|a| a.exists());
        existing.and_then(|a| a.canonicalize().ok()).is_some_and(|a| a.starts_with(&self.root))
    }

    /// Read the project file `rel`; `from` locates the reference for error messages.
    /// `from` is only called when reading fails (building a label scans the referring file).
    pub fn read(&self, rel: &str, from: Option<&dyn Fn() -> Label>) -> Result<SourceFile> {
        if let Some(file) = self.read_overlay(rel, from)? {
            return Ok(file);
        }
        let (norm, bytes) = self.read_bytes(rel, MAX_FILE_BYTES, from)?;
        let text = self.decode(&norm, bytes)?;
        // A byte-order mark is an editor's artefact, never prompt text: drop it (the hash is of
        // the bytes as stored, so `bom` remembers it).
        let (text, bom) = match text.strip_prefix('\u{FEFF}') {
            Some(rest) => (rest.to_string(), true),
            None => (text, false),
        };
        Ok(SourceFile { display: self.display(&norm), rel: norm, text, bom, sha256: std::sync::OnceLock::new() })
    }

    /// Project file `rel` as the overlay holds it (`None` when it holds no text for it): the
    /// path is checked as for a read from the disk, and so is the size.
    fn read_overlay(&self, rel: &str, from: Option<&dyn Fn() -> Label>) -> Result<Option<SourceFile>> {
        if self.overlay.is_empty() {
            return Ok(None);
        }
        let Ok(norm) = self.normalize(rel) else { return Ok(None) }; // the disk read says why
        let Some(text) = self.overlay.get(&norm) else { return Ok(None) };
        if text.len() as u64 > MAX_FILE_BYTES {
            let mut d = Diagnostic::error(format!(
                "`{}` is {} bytes, more than the {MAX_FILE_BYTES} byte limit for project files",
                self.display(&norm),
                text.len()
            ))
            .with_help("split the file");
            if let Some(l) = from {
                d = d.with_label(l());
            }
            return Err(d.into_error(crate::error::ErrorKind::Project));
        }
        let (text, bom) = match text.strip_prefix('\u{FEFF}') {
            Some(rest) => (rest.to_string(), true),
            None => (text.to_string(), false),
        };
        Ok(Some(SourceFile { display: self.display(&norm), rel: norm, text, bom, sha256: std::sync::OnceLock::new() }))
    }

    /// The bytes of project file `rel` (inside the project, through no link out of it, a
    /// regular file of at most `limit` bytes), with its normalised path.
    pub fn read_bytes(&self, rel: &str, limit: u64, from: Option<&dyn Fn() -> Label>) -> Result<(String, Vec<u8>)> {
        let fail = |msg: String, help: &str| -> Error {
            let mut d = Diagnostic::error(msg).with_help(help.to_string());
            if let Some(l) = from {
                d = d.with_label(l());
            }
            d.into_error(crate::error::ErrorKind::Project)
        };
        let norm = self.normalize(rel).map_err(|why| {
            fail(format!("invalid path `{rel}`: {why}"), "project files live inside the folder that holds promptc.yaml")
        })?;
        let full = self.root.join(&norm);
        let canonical = match full.canonicalize() {
            Ok(p) => p,
            Err(e) => {
                return Err(fail(
                    format!("cannot read `{}`: {}", self.display(&norm), io_reason(&e)),
                    "check the path; it is relative to the project folder",
                ))
            }
        };
        if !canonical.starts_with(&self.root) {
            return Err(fail(
                format!("`{}` resolves outside the project folder", self.display(&norm)),
                "a symbolic link may not point outside the project",
            ));
        }
        let meta = std::fs::metadata(&canonical)
            .map_err(|e| fail(format!("cannot read `{}`: {}", self.display(&norm), io_reason(&e)), "check the file"))?;
        if !meta.is_file() {
            return Err(fail(format!("`{}` is not a file", self.display(&norm)), "point at a file, not a folder"));
        }
        if meta.len() > limit {
            return Err(fail(
                format!(
                    "`{}` is {} bytes, more than the {} byte limit for project files",
                    self.display(&norm),
                    meta.len(),
                    limit
                ),
                "split the file, or check that the path names the intended file",
            ));
        }
        let bytes = read_regular(&canonical, limit).map_err(|e| match e {
            ReadError::Io(e) => {
                fail(format!("cannot read `{}`: {}", self.display(&norm), io_reason(&e)), "check the file")
            }
            ReadError::NotAFile => fail(format!("`{}` is not a file", self.display(&norm)), "point at a file"),
            ReadError::TooLarge(_) => fail(
                format!("`{}` is more than the {limit} byte limit for project files", self.display(&norm)),
                "split the file",
            ),
        })?;
        Ok((norm, bytes))
    }

    /// The text of project file `norm`, refused with the position of its first invalid byte
    /// when it is not UTF-8.
    fn decode(&self, norm: &str, bytes: Vec<u8>) -> Result<String> {
        match String::from_utf8(bytes) {
            Ok(t) => Ok(t),
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                let lossy = String::from_utf8_lossy(e.as_bytes()).into_owned();
                let valid = String::from_utf8_lossy(&e.as_bytes()[..at]).into_owned();
                let p = crate::diagnostic::Position::from_byte_range(&valid, valid.len(), valid.len());
                Err(Diagnostic::error(format!("`{}` is not valid UTF-8", self.display(norm)))
                    .with_label(Label::at(
                        self.display(norm),
                        &lossy,
                        crate::diagnostic::Position::new(p.line, p.column, 1),
                    ))
                    .with_label_text("invalid byte here")
                    .with_help("save the file as UTF-8")
                    .into_error(crate::error::ErrorKind::Project))
            }
        }
    }
}

#[cfg(test)]
mod tests;
