//! The secret that authenticates the token cache's shards and the compile cache's entries. A project may commit its cache (it
//! may come from a pull request), so a count is believed only with a MAC made with a key that
//! lives outside every project: the user's cache folder (`$XDG_CACHE_HOME/promptc/key`, else
//! `~/.cache/promptc/key`), created readable by its owner only on first use. Where no such
//! folder is usable the key is random and held in memory for the run: the cache then never
//! answers, it only costs a recount.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use sha2::{Digest, Sha256};

/// Bytes of the key.
const KEY_BYTES: usize = 32;

/// Hex digits of a tag: 128 bits, beyond any search for a forgery.
const TAG_HEX: usize = 32;

/// The key of this process: read (or created) once, on first need.
fn key() -> &'static [u8; KEY_BYTES] {
    static KEY: OnceLock<[u8; KEY_BYTES]> = OnceLock::new();
    KEY.get_or_init(|| key_path().and_then(|p| load_or_create(&p)).unwrap_or_else(random_key))
}

/// Where the user's key lives, from the environment; `None` without a cache folder to use.
fn key_path() -> Option<PathBuf> {
    let absolute = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    let base = std::env::var_os("XDG_CACHE_HOME")
        .and_then(absolute)
        .or_else(|| std::env::var_os("HOME").and_then(absolute).map(|h| h.join(".cache")))?;
    Some(base.join("promptc").join("key"))
}

/// The key at `path`, created there (owner-only) if there is none; `None` if it can be neither
/// read nor created, or is not a key promptc wrote.
fn load_or_create(path: &Path) -> Option<[u8; KEY_BYTES]> {
    if let Some(k) = read_key(path) {
        return Some(k);
    }
    let dir = path.parent()?;
    create_private_dir(dir).ok()?;
    let mut file = tempfile::NamedTempFile::new_in(dir).ok()?;
    std::io::Write::write_all(&mut file, hex(&random_key()).as_bytes()).ok()?;
    file.as_file().sync_all().ok()?;
    // Never replace a key another run made meanwhile: both then use the one on disk.
    let _ = file.persist_noclobber(path);
    read_key(path)
}

/// The key in the file at `path`: a regular file of 64 hex digits.
fn read_key(path: &Path) -> Option<[u8; KEY_BYTES]> {
    let bytes = crate::source::read_regular(path, 4 * KEY_BYTES as u64).ok()?;
    let text = std::str::from_utf8(&bytes).ok()?.trim();
    if text.len() != 2 * KEY_BYTES {
        return None;
    }
    let mut key = [0u8; KEY_BYTES];
    for (i, byte) in key.iter_mut().enumerate() {
        *byte = u8::from_str_radix(text.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(key)
}

/// `dir` and its parents, the new ones readable by their owner only.
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// A key no one else can know. The standard library seeds each `RandomState` with 128 bits
/// from the operating system's generator; those hashes, with the time and the process id, go
/// through SHA-256 (no dependency is needed for a secret that only guards a cache).
fn random_key() -> [u8; KEY_BYTES] {
    use std::hash::{BuildHasher, Hasher};
    let mut seed = Sha256::new();
    for round in 0u64..4 {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(round);
        seed.update(h.finish().to_le_bytes());
    }
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    seed.update(now.as_nanos().to_le_bytes());
    seed.update(std::process::id().to_le_bytes());
    seed.finalize().into()
}

/// Lower-case hex of `bytes`.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// An HMAC-SHA-256 under the user's key, over a message given in parts (a compile cache entry
/// is megabytes: it is fed as it lies, never copied into one buffer).
pub(crate) struct Mac {
    inner: Sha256,
    outer: Sha256,
}

impl Mac {
    /// A MAC under the user's key (see the module).
    pub(crate) fn new() -> Mac {
        Mac::with_key(key())
    }

    /// A MAC under `key`.
    fn with_key(key: &[u8; KEY_BYTES]) -> Mac {
        const BLOCK: usize = 64;
        let mut padded = [0u8; BLOCK];
        padded[..KEY_BYTES].copy_from_slice(key);
        let inner_pad: [u8; BLOCK] = padded.map(|b| b ^ 0x36);
        let outer_pad: [u8; BLOCK] = padded.map(|b| b ^ 0x5c);
        Mac { inner: Sha256::new().chain_update(inner_pad), outer: Sha256::new().chain_update(outer_pad) }
    }

    /// Add the next part of the message.
    pub(crate) fn update(&mut self, bytes: &[u8]) {
        self.inner.update(bytes);
    }

    /// The MAC of the message.
    pub(crate) fn finish(self) -> [u8; 32] {
        self.outer.chain_update(self.inner.finalize()).finalize().into()
    }

    /// The tag of the message: the MAC's first [`TAG_HEX`] hex digits.
    pub(crate) fn tag(self) -> String {
        let mut out = hex(&self.finish());
        out.truncate(TAG_HEX);
        out
    }

    /// Whether `tag` is the message's tag (in constant time).
    pub(crate) fn verify(self, tag: &str) -> bool {
        same(self.tag().as_bytes(), tag.as_bytes())
    }
}

/// `right == given`, in time that depends only on their lengths.
pub(super) fn same(right: &[u8], given: &[u8]) -> bool {
    right.len() == given.len() && right.iter().zip(given).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// HMAC-SHA-256 (RFC 2104) of `message` under `key`.
    fn hmac(key: &[u8; KEY_BYTES], message: &[u8]) -> [u8; 32] {
        let mut mac = Mac::with_key(key);
        mac.update(message);
        mac.finish()
    }

    /// HMAC matches Python's `hmac` module.
    #[test]
    fn hmac_matches_a_reference_value() {
        // Python: hmac.new(bytes(range(32)), b"what do ya want for nothing?", "sha256").hexdigest()
        let key: [u8; 32] = std::array::from_fn(|i| i as u8);
        assert_eq!(
            hex(&hmac(&key, b"what do ya want for nothing?")),
            "099805f4ac310786968565c098db515cc50862b420ae31e20238312344bed36a"
        );
    }

    #[test]
    fn tags_depend_on_the_message_and_the_key() {
        let mac = |key: &[u8; 32], parts: &[&[u8]]| {
            let mut mac = Mac::with_key(key);
            parts.iter().for_each(|p| mac.update(p));
            mac
        };
        let (k, other) = ([7u8; 32], [8u8; 32]);
        assert_eq!(mac(&k, &[b"ab", b"c"]).tag(), mac(&k, &[b"abc"]).tag(), "the parts make one message");
        assert_ne!(mac(&k, &[b"a"]).tag(), mac(&k, &[b"b"]).tag());
        assert_ne!(mac(&k, &[b"a"]).tag(), mac(&other, &[b"a"]).tag());
        assert_eq!(mac(&k, &[b"m"]).tag().len(), TAG_HEX);
        assert_eq!(mac(&k, &[b"m"]).finish(), mac(&k, &[b"m"]).finish(), "deterministic");
        assert!(mac(&k, &[b"m"]).verify(&mac(&k, &[b"m"]).tag()) && !mac(&k, &[b"m"]).verify(&mac(&k, &[b"n"]).tag()));
    }

    #[test]
    fn a_key_file_is_created_owner_only_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("promptc/key");
        let k = load_or_create(&path).unwrap();
        assert_eq!(load_or_create(&path), Some(k), "the same key on the next run");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        }
        assert_ne!(random_key(), random_key());
    }
}
