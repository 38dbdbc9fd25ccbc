//! The token cache on disk: where it lives, its format, and reading and writing it. A project
//! may commit a hostile cache, so it is read only as a bounded regular file inside the project,
//! written only inside it, any problem becomes a warning, and a count is believed only with a
//! tag made with the user's own key (`key`), which no project holds.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::diagnostic::Diagnostic;

/// On-disk cache format.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(super) struct DiskCache {
    /// The format version ([`DISK_FORMAT`]); another version is ignored.
    pub(super) format: u32,
    /// Counts by encoding name, then by SHA-256 of the text.
    pub(super) counts: BTreeMap<String, BTreeMap<String, Entry>>,
}

/// One count and its tag (see `key`), written `[count, "tag"]`: a count is believed only with
/// the tag this user's key gives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Entry(pub(super) u64, pub(super) String);

impl Entry {
    /// `count` tokens of `encoding` for the text whose SHA-256 is `text_sha`, tagged.
    pub(super) fn tagged(encoding: &str, text_sha: &str, count: u64) -> Entry {
        Entry(count, super::key::tag(encoding, text_sha, count))
    }

    /// Whether the tag is this user's tag of the entry.
    pub(super) fn verified(&self, encoding: &str, text_sha: &str) -> bool {
        super::key::verify(encoding, text_sha, self.0, &self.1)
    }
}

impl DiskCache {
    /// The entries of `encoding` whose tags verify: a count anyone else wrote (a cache committed
    /// by another machine, or edited) is dropped, and the text is counted again.
    pub(super) fn verified<'a>(&'a self, encoding: &'a str) -> impl Iterator<Item = (&'a String, u64)> + 'a {
        self.counts
            .get(encoding)
            .into_iter()
            .flatten()
            .filter(move |(k, e)| e.verified(encoding, k))
            .map(|(k, e)| (k, e.0))
    }
}

/// The version of the cache format this build writes and reads: 2 tags every count (format 1's
/// untagged counts are ignored).
pub(super) const DISK_FORMAT: u32 = 2;

/// Largest cache file promptc reads; a bigger one is ignored (and rewritten smaller).
pub const MAX_CACHE_BYTES: u64 = 32 * 1024 * 1024;

/// Most counts the cache keeps per encoding; past it, only this run's counts are kept.
pub const MAX_CACHE_ENTRIES: usize = 200_000;

/// Where a project's token cache lives: a file, and the folder it must stay inside.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheFile {
    /// The cache file.
    pub path: PathBuf,
    /// The project folder (canonical): the cache is read and written only inside it.
    pub root: PathBuf,
}

impl CacheFile {
    /// The token cache file `project` names, if any, kept inside the project's folder.
    pub(crate) fn of_project(project: &crate::model::Project) -> Option<CacheFile> {
        let root = project.fs().root();
        project.tokens.cache.as_ref().map(|rel| CacheFile { path: root.join(rel), root: root.to_path_buf() })
    }
}

/// A cache problem as a warning: the cache only saves time, so nothing fails because of it.
pub(super) fn cache_warning(path: &Path, what: &str, why: &str) -> Diagnostic {
    Diagnostic::warning(format!("token cache `{}` {what}: {why}", path.display()))
        .with_note("the cache only saves time: counts are computed afresh")
}

/// The bytes of `file`, read as a bounded regular file inside its project folder: `Ok(None)`
/// if there is none; the error says why it was not read (for a warning).
pub(crate) fn read_confined(file: &CacheFile, max: u64) -> std::result::Result<Option<Vec<u8>>, String> {
    let path = &file.path;
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(None);
    }
    crate::source::confine(&file.root, path)?;
    crate::source::read_regular(path, max).map(Some).map_err(|e| match e {
        crate::source::ReadError::Io(e) => crate::error::io_reason(&e),
        crate::source::ReadError::NotAFile => "it is not a regular file".into(),
        crate::source::ReadError::TooLarge(n) => format!("it is larger than {n} bytes"),
    })
}

/// Read the disk cache: `Ok(None)` if there is none yet (or it is of an older format), a warning
/// if it cannot be used.
pub(super) fn read_disk(file: &CacheFile) -> std::result::Result<Option<DiskCache>, Box<Diagnostic>> {
    let path = &file.path;
    let Some(bytes) =
        read_confined(file, MAX_CACHE_BYTES).map_err(|why| Box::new(cache_warning(path, "was not read", &why)))?
    else {
        return Ok(None);
    };
    /// The version alone, so a cache of another format is passed over whatever its entries are.
    #[derive(Deserialize)]
    struct Version {
        format: u32,
    }
    let not_ours = || Box::new(cache_warning(path, "was not read", "it is not a token cache promptc wrote"));
    match serde_json::from_slice::<Version>(&bytes) {
        Ok(v) if v.format == DISK_FORMAT => {
            serde_json::from_slice::<DiskCache>(&bytes).map(Some).map_err(|_| not_ours())
        }
        Ok(_) => Ok(None),
        Err(_) => Err(not_ours()),
    }
}

/// Write `bytes` to `file` atomically, never outside the project folder or through a link out
/// of it, even one swapped in while it is written (the folder is pinned: `source::pin`); the
/// error says why it was not written.
pub(crate) fn write_confined(file: &CacheFile, bytes: &[u8]) -> std::result::Result<(), String> {
    let pinned = crate::source::pin::pin(&file.root, &file.path, &file.path)?;
    crate::source::atomic::write(pinned.path(), bytes).map_err(|e| pinned.relabel(e).to_string())
}

/// Write `cache` to `file` (see [`write_confined`]).
pub(super) fn write_disk(file: &CacheFile, cache: &DiskCache) -> std::result::Result<(), String> {
    let json = serde_json::to_vec(cache).map_err(|e| e.to_string())?;
    write_confined(file, &json)
}
