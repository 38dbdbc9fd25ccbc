//! The token cache on disk: where it lives, its format, and reading and writing it. A project
//! may commit a hostile cache, so it is read only as a bounded regular file inside the project,
//! written only inside it, and any problem becomes a warning.

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
    pub(super) counts: BTreeMap<String, BTreeMap<String, u64>>,
}

/// The version of the cache format this build writes and reads.
pub(super) const DISK_FORMAT: u32 = 1;

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

/// A cache problem as a warning: the cache only saves time, so nothing fails because of it.
pub(super) fn cache_warning(path: &Path, what: &str, why: &str) -> Diagnostic {
    Diagnostic::warning(format!("token cache `{}` {what}: {why}", path.display()))
        .with_note("the cache only saves time: counts are computed afresh")
}

/// Read the disk cache: `Ok(None)` if there is none yet (or it is of an older format), a warning
/// if it cannot be used.
pub(super) fn read_disk(file: &CacheFile) -> std::result::Result<Option<DiskCache>, Box<Diagnostic>> {
    let path = &file.path;
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(None);
    }
    crate::source::confine(&file.root, path).map_err(|why| Box::new(cache_warning(path, "was not read", &why)))?;
    let bytes = crate::source::read_regular(path, MAX_CACHE_BYTES).map_err(|e| {
        let why = match e {
            crate::source::ReadError::Io(e) => crate::error::io_reason(&e),
            crate::source::ReadError::NotAFile => "it is not a regular file".into(),
            crate::source::ReadError::TooLarge(n) => format!("it is larger than {n} bytes"),
        };
        Box::new(cache_warning(path, "was not read", &why))
    })?;
    match serde_json::from_slice::<DiskCache>(&bytes) {
        Ok(d) if d.format == DISK_FORMAT => Ok(Some(d)),
        Ok(_) => Ok(None),
        Err(_) => Err(Box::new(cache_warning(path, "was not read", "it is not a token cache promptc wrote"))),
    }
}

/// Write `cache` to `file` atomically, never outside the project folder or through a link out
/// of it; the error says why it was not written.
pub(super) fn write_disk(file: &CacheFile, cache: &DiskCache) -> std::result::Result<(), String> {
    crate::source::confine(&file.root, &file.path)?;
    let json = serde_json::to_vec(cache).map_err(|e| e.to_string())?;
    crate::source::atomic::write(&file.path, &json).map_err(|e| e.to_string())
}
