//! The token cache on disk: where it lives, its format, and reading and writing it.
//!
//! Each encoding's counts are kept in [`SHARDS`] files beside the path the project names
//! (`tokens.json` → `tokens.o200k_base.0.bin` … `tokens.o200k_base.f.bin`), a count going to the
//! shard of its key's first hex digit. A shard is binary: [`MAGIC`], then fixed-size records
//! (the text's SHA-256, the byte of a mark or [`WHOLE`] for the text's count, the count, little
//! endian), sorted, then an HMAC-SHA-256 under the user's key (`key`) over the magic, the
//! encoding, the shard's number and the records. So a run reads and verifies a few megabytes
//! with one MAC per file instead of parsing text, and writes back only the shards it added to.
//!
//! A project may commit a hostile cache, so a shard is read only as a bounded regular file
//! inside the project, written only inside it, any problem becomes a warning, and a shard is
//! believed only whole, with the MAC this user's key gives it (a shard anyone else wrote — a
//! committed cache, or an edited one — is passed over and its counts made again). A shard holds
//! at most [`MAX_SHARD_ENTRIES`] records: past that, saving keeps the run's own counts first
//! and then as many others as fit (eviction, never a refusal to save).

use std::path::{Path, PathBuf};

use crate::diagnostic::Diagnostic;

/// Shards per encoding: a count's shard is its key's first hex digit.
pub(super) const SHARDS: usize = 16;

/// Records one shard keeps at most (so about a million counts per encoding).
pub const MAX_SHARD_ENTRIES: usize = 65_536;

/// The first bytes of every shard: the format, whose version another build's files differ by.
const MAGIC: &[u8] = b"promptc token cache 3\n";

/// Bytes of a record: SHA-256 (32), the mark's byte (4), the count (8).
const RECORD: usize = 44;

/// Bytes of the MAC that ends a shard.
const MAC_BYTES: usize = 32;

/// The mark's byte of a record that holds a text's whole count.
const WHOLE: u32 = u32::MAX;

/// Largest shard promptc reads; a bigger one is ignored (and rewritten within the bound).
pub const MAX_SHARD_BYTES: u64 = (MAGIC.len() + MAX_SHARD_ENTRIES * RECORD + MAC_BYTES) as u64;

/// Where a project's token cache lives: the path it names, beside which its shards are kept,
/// and the folder they must stay inside.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheFile {
    /// The path the project names (`tokens.cache`); the shards are named after it.
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

    /// Shard `shard` of `encoding`'s counts: `tokens.json` → `tokens.o200k_base.3.bin`.
    pub(super) fn shard(&self, encoding: &str, shard: usize) -> CacheFile {
        CacheFile { path: self.path.with_extension(format!("{encoding}.{shard:x}.bin")), root: self.root.clone() }
    }
}

/// Whether `path` is a shard of the token cache named `named` (`tokens.json` →
/// `tokens.ENCODING.N.bin` in the same folder, for an encoding promptc counts with).
pub fn is_shard(named: &Path, path: &Path) -> bool {
    let (Some(stem), Some(name)) =
        (named.file_stem().and_then(|s| s.to_str()), path.file_name().and_then(|s| s.to_str()))
    else {
        return false;
    };
    let shard = name.strip_prefix(stem).and_then(|n| n.strip_prefix('.')).and_then(|n| n.strip_suffix(".bin"));
    path.parent() == named.parent()
        && shard.and_then(|s| s.rsplit_once('.')).is_some_and(|(encoding, n)| {
            crate::model::tokenizer::Encoding::parse(encoding).is_some()
                && n.len() == 1
                && n.chars().all(|c| c.is_ascii_hexdigit())
        })
}

/// The shard a cache key (a text's SHA-256 in hex, then `@byte` for a mark) belongs to.
pub(super) fn shard_of(key: &str) -> usize {
    key.bytes().next().and_then(|b| (b as char).to_digit(16)).unwrap_or(0) as usize
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

/// Write `bytes` to `file` atomically, never outside the project folder or through a link out
/// of it, even one swapped in while it is written (the folder is pinned: `source::pin`); the
/// error says why it was not written.
pub(crate) fn write_confined(file: &CacheFile, bytes: &[u8]) -> std::result::Result<(), String> {
    let pinned = crate::source::pin::pin(&file.root, &file.path, &file.path)?;
    crate::source::atomic::write(pinned.path(), bytes).map_err(|e| pinned.relabel(e).to_string())
}

/// The MAC of a shard's records under the user's key, bound to its encoding and number (so a
/// shard copied to another name is not believed).
fn shard_mac(encoding: &str, shard: usize, records: &[u8]) -> [u8; MAC_BYTES] {
    let mut mac = super::key::Mac::new();
    mac.update(MAGIC);
    mac.update(&(encoding.len() as u64).to_le_bytes());
    mac.update(encoding.as_bytes());
    mac.update(&(shard as u64).to_le_bytes());
    mac.update(records);
    mac.finish()
}

/// The counts in shard `shard` of `encoding`'s cache beside `file`, as cache keys: empty if
/// there is none, or if this user's key did not write it (its counts are made again); a
/// warning if it cannot be used.
pub(super) fn read_shard(
    file: &CacheFile,
    encoding: &str,
    shard: usize,
) -> std::result::Result<Vec<(String, u64)>, Box<Diagnostic>> {
    let file = file.shard(encoding, shard);
    let bytes = match read_confined(&file, MAX_SHARD_BYTES) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return Ok(Vec::new()),
        Err(why) => return Err(Box::new(cache_warning(&file.path, "was not read", &why))),
    };
    let body_len = bytes.len().checked_sub(MAGIC.len() + MAC_BYTES).filter(|n| n % RECORD == 0);
    let (Some(body_len), true) = (body_len, bytes.starts_with(MAGIC)) else {
        return Err(Box::new(cache_warning(&file.path, "was not read", "it is not a token cache promptc wrote")));
    };
    let (records, mac) = bytes[MAGIC.len()..].split_at(body_len);
    if !super::key::same(&shard_mac(encoding, shard, records), mac) {
        return Ok(Vec::new());
    }
    Ok(records.chunks_exact(RECORD).map(|r| (key_string(r), u64_le(&r[36..44]))).collect())
}

/// Write shard `shard` of `encoding`'s cache beside `file`: the counts of `entries` (cache keys
/// of that shard), at most [`MAX_SHARD_ENTRIES`] — those in `keep` first, then the others, each
/// part in key order.
pub(super) fn write_shard<'a>(
    file: &CacheFile,
    encoding: &str,
    shard: usize,
    entries: impl IntoIterator<Item = (&'a str, u64)>,
    keep: impl Fn(&str) -> bool,
) -> std::result::Result<(), String> {
    let (mut kept, mut others): (Vec<_>, Vec<_>) = entries.into_iter().partition(|(k, _)| keep(k));
    // Which of each part stay, when not all do, is decided in key order.
    kept.sort_unstable();
    others.sort_unstable();
    let mut records: Vec<([u8; 36], u64)> =
        kept.into_iter().chain(others).filter_map(|(k, n)| Some((key_bytes(k)?, n))).take(MAX_SHARD_ENTRIES).collect();
    records.sort_unstable();
    let mut body = Vec::with_capacity(records.len() * RECORD);
    for (key, n) in &records {
        body.extend_from_slice(key);
        body.extend_from_slice(&n.to_le_bytes());
    }
    let mut out = Vec::with_capacity(MAGIC.len() + body.len() + MAC_BYTES);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&body);
    out.extend_from_slice(&shard_mac(encoding, shard, &body));
    write_confined(&file.shard(encoding, shard), &out)
}

/// A cache key as a record's first 36 bytes (SHA-256, then the mark's byte or [`WHOLE`]);
/// `None` for a key no record holds (a mark past 4 GiB, which is then only counted again).
fn key_bytes(key: &str) -> Option<[u8; 36]> {
    let (sha, at) = match key.split_once('@') {
        Some((sha, at)) => (sha, at.parse::<u32>().ok().filter(|&p| p != WHOLE)?),
        None => (key, WHOLE),
    };
    let digits = sha.as_bytes();
    if digits.len() != 64 {
        return None;
    }
    let mut out = [0u8; 36];
    for (i, byte) in out[..32].iter_mut().enumerate() {
        let hi = (digits[2 * i] as char).to_digit(16)?;
        let lo = (digits[2 * i + 1] as char).to_digit(16)?;
        *byte = (hi * 16 + lo) as u8;
    }
    out[32..].copy_from_slice(&at.to_le_bytes());
    Some(out)
}

/// The cache key a record's first 36 bytes hold (see [`key_bytes`]).
fn key_string(record: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(76);
    for &b in &record[..32] {
        out.push(HEX[usize::from(b >> 4)] as char);
        out.push(HEX[usize::from(b & 15)] as char);
    }
    let at = u32::from_le_bytes([record[32], record[33], record[34], record[35]]);
    if at != WHOLE {
        out.push('@');
        out.push_str(&at.to_string());
    }
    out
}

fn u64_le(b: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(b);
    u64::from_le_bytes(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip_through_records() {
        let sha = "0123456789abcdef".repeat(4);
        for key in [sha.clone(), format!("{sha}@0"), format!("{sha}@17"), format!("{sha}@4294967294")] {
            assert_eq!(key_string(&key_bytes(&key).unwrap()), key);
        }
        for bad in [format!("{sha}@4294967295"), format!("{sha}@-1"), format!("{sha}@x"), "ab".into(), "g".repeat(64)] {
            assert_eq!(key_bytes(&bad), None, "{bad}");
        }
        assert_eq!(shard_of(&sha), 0);
        assert_eq!(shard_of("f0"), 15);
    }

    #[test]
    fn shards_are_named_after_the_cache_path() {
        let f = CacheFile { path: "/p/.promptc-cache/tokens.json".into(), root: "/p".into() };
        assert_eq!(f.shard("o200k_base", 10).path, Path::new("/p/.promptc-cache/tokens.o200k_base.a.bin"));
        let g = CacheFile { path: "/p/cache".into(), root: "/p".into() };
        assert_eq!(g.shard("gemma3", 0).path, Path::new("/p/cache.gemma3.0.bin"));
        for (named, path) in [(&f, f.shard("o200k_base", 10).path), (&g, g.shard("gemma3", 0).path)] {
            assert!(is_shard(&named.path, &path), "{path:?}");
        }
        for other in [
            "/p/.promptc-cache/tokens.json",
            "/p/tokens.o200k_base.a.bin",
            "/p/.promptc-cache/tokens.x.bin",
            "/p/.promptc-cache/tokens.notes.a.bin",
            "/p/.promptc-cache/tokens.o200k_base.10.bin",
        ] {
            assert!(!is_shard(&f.path, Path::new(other)), "{other}");
        }
    }
}
