//! Token counting: exact for OpenAI encodings (tiktoken-rs, vocabularies embedded in the
//! binary), labelled estimates for other model families, and a content-addressed cache so
//! unchanged text is never tokenised twice — and a fully cached run never builds a tokenizer.
//!
//! The disk cache is an optimisation only: a project may commit a hostile one. It is read only
//! if it is a regular file inside the project of at most [`MAX_CACHE_BYTES`], written only
//! inside the project and never through a symbolic link, and any failure is a warning. A count
//! that cannot be right (zero, or more tokens than the text has bytes) is recounted, and the
//! cache keeps at most [`MAX_CACHE_ENTRIES`] counts per encoding.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use tiktoken_rs::CoreBPE;

use crate::diagnostic::Diagnostic;
use crate::error::Result;
use crate::hash::sha256_hex;
use crate::model::tokenizer::{Encoding, Tokenizer};

/// Build the BPE tables from the embedded vocabulary (the expensive step: ~100 ms).
fn build(encoding: Encoding) -> Result<CoreBPE> {
    let r = match encoding {
        Encoding::O200kBase => tiktoken_rs::o200k_base(),
        Encoding::Cl100kBase => tiktoken_rs::cl100k_base(),
        Encoding::P50kBase => tiktoken_rs::p50k_base(),
        Encoding::R50kBase => tiktoken_rs::r50k_base(),
    };
    r.map_err(|e| {
        Diagnostic::error(format!("cannot build the {} tokenizer: {e}", encoding.name()))
            .into_error(crate::error::ErrorKind::Internal)
    })
}

/// Cache effectiveness of one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[non_exhaustive]
pub struct CacheStats {
    /// Distinct texts answered from the cache.
    pub hits: u64,
    /// Distinct texts that had to be tokenised.
    pub misses: u64,
    /// Whether a tokenizer was built at all.
    pub tokenizer_built: bool,
}

/// On-disk cache format.
#[derive(Debug, Default, Serialize, Deserialize)]
struct DiskCache {
    format: u32,
    /// Counts by encoding name, then by SHA-256 of the text.
    counts: BTreeMap<String, BTreeMap<String, u64>>,
}

const DISK_FORMAT: u32 = 1;

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

/// Counts tokens with one tokenizer, remembering every distinct text it has seen.
pub struct Counter {
    tokenizer: Tokenizer,
    bpe: OnceLock<CoreBPE>,
    /// A tokenizer being built on another thread (see [`Counter::prefetch`]).
    pending: Option<std::thread::JoinHandle<Result<CoreBPE>>>,
    cache: HashMap<String, u64>,
    /// Texts already looked up in this run, so repeated lookups do not skew the statistics.
    seen: std::collections::HashSet<String>,
    disk: Option<CacheFile>,
    disk_loaded: bool,
    dirty: bool,
    stats: CacheStats,
    /// Cache problems: reported, never fatal.
    warnings: Vec<Diagnostic>,
}

fn cache_warning(path: &Path, what: &str, why: &str) -> Diagnostic {
    Diagnostic::warning(format!("token cache `{}` {what}: {why}", path.display()))
        .with_note("the cache only saves time: counts are computed afresh")
}

impl std::fmt::Debug for Counter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Counter")
            .field("tokenizer", &self.tokenizer)
            .field("cached", &self.cache.len())
            .field("stats", &self.stats)
            .finish()
    }
}

impl Counter {
    /// A counter; with `disk`, counts are loaded from and saved to that file.
    pub fn new(tokenizer: Tokenizer, disk: Option<CacheFile>) -> Counter {
        let mut cache = HashMap::new();
        let mut disk_loaded = false;
        let mut warnings = Vec::new();
        if let Some(file) = &disk {
            match read_disk(file) {
                Ok(Some(d)) => {
                    if let Some(counts) = d.counts.get(tokenizer.encoding().name()) {
                        cache.extend(counts.iter().map(|(k, v)| (k.clone(), *v)));
                        disk_loaded = true;
                    }
                }
                Ok(None) => {}
                Err(w) => warnings.push(*w),
            }
        }
        Counter {
            tokenizer,
            bpe: OnceLock::new(),
            pending: None,
            cache,
            seen: Default::default(),
            disk,
            disk_loaded,
            dirty: false,
            stats: CacheStats::default(),
            warnings,
        }
    }

    /// Problems with the disk cache so far (it was ignored, or could not be saved).
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.warnings
    }

    /// Start building the tokenizer on another thread when it will almost surely be needed
    /// (no disk cache to answer from), so the build overlaps with loading and rendering.
    /// With a disk cache, nothing is built until a text misses it.
    pub fn prefetch(&mut self) {
        if self.disk_loaded || self.pending.is_some() || self.bpe.get().is_some() {
            return;
        }
        let encoding = self.tokenizer.encoding();
        self.pending = std::thread::Builder::new().name("tokenizer".into()).spawn(move || build(encoding)).ok();
    }

    fn bpe(&mut self) -> Result<&CoreBPE> {
        if self.bpe.get().is_none() {
            let built = match self.pending.take() {
                Some(handle) => match handle.join() {
                    Ok(r) => r?,
                    Err(_) => build(self.tokenizer.encoding())?,
                },
                None => build(self.tokenizer.encoding())?,
            };
            self.stats.tokenizer_built = true;
            let _ = self.bpe.set(built);
        }
        self.bpe
            .get()
            .ok_or_else(|| Diagnostic::error("tokenizer unavailable").into_error(crate::error::ErrorKind::Internal))
    }

    /// Count every text not counted yet, spreading the work over the machine's cores.
    pub fn prime(&mut self, texts: &[&str]) -> Result<()> {
        let keyed: Vec<(String, &str)> =
            texts.iter().filter(|t| !t.is_empty()).map(|t| (sha256_hex(t.as_bytes()), *t)).collect();
        self.prime_keyed(keyed)
    }

    /// Count statistics once per distinct text of the run: a hit if the cache knew it.
    fn note_seen(&mut self, key: &str) {
        if self.seen.insert(key.to_string()) {
            if self.cache.contains_key(key) {
                self.stats.hits += 1;
            } else {
                self.stats.misses += 1;
            }
        }
    }

    /// [`Counter::prime`] with each text's cache key already computed.
    fn prime_keyed(&mut self, keyed: Vec<(String, &str)>) -> Result<()> {
        let mut todo: Vec<(String, &str)> = Vec::new();
        let mut queued = std::collections::HashSet::new();
        for (key, t) in keyed {
            if self.cache.get(&key).is_some_and(|n| !plausible(*n, t)) {
                self.cache.remove(&key);
            }
            self.note_seen(&key);
            if !self.cache.contains_key(&key) && queued.insert(key.clone()) {
                todo.push((key, t));
            }
        }
        if todo.is_empty() {
            return Ok(());
        }
        let bpe = self.bpe()?;
        let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(todo.len());
        // Largest texts first, each to the least loaded worker: balanced without splitting text.
        todo.sort_by_key(|(_, t)| std::cmp::Reverse(t.len()));
        let mut buckets: Vec<(usize, Vec<&(String, &str)>)> = (0..workers).map(|_| (0, Vec::new())).collect();
        for item in &todo {
            if let Some(b) = buckets.iter_mut().min_by_key(|b| b.0) {
                b.0 += item.1.len();
                b.1.push(item);
            }
        }
        let counted: Vec<(String, u64)> = std::thread::scope(|scope| {
            let handles: Vec<_> = buckets
                .iter()
                .map(|(_, items)| {
                    scope.spawn(move || {
                        items.iter().map(|(k, t)| (k.clone(), bpe.count_ordinary(t) as u64)).collect::<Vec<_>>()
                    })
                })
                .collect();
            handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
        });
        for (k, n) in counted {
            self.cache.insert(k, n);
        }
        self.dirty = true;
        Ok(())
    }

    /// Tokens in `text` (estimates are rounded up).
    pub fn count(&mut self, text: &str) -> Result<u64> {
        let base = self.base_count(text)?;
        Ok(match self.tokenizer {
            Tokenizer::Exact(_) => base,
            Tokenizer::Estimate { factor, .. } => (base as f64 * factor).ceil() as u64,
        })
    }

    fn base_count(&mut self, text: &str) -> Result<u64> {
        if text.is_empty() {
            return Ok(0);
        }
        // One hash per lookup: texts primed earlier are answered here without re-hashing.
        let key = sha256_hex(text.as_bytes());
        if let Some(n) = self.cache.get(&key).copied() {
            if plausible(n, text) {
                self.note_seen(&key);
                return Ok(n);
            }
            // A count no text of this length can have came from a tampered cache: recount.
            self.cache.remove(&key);
        }
        self.prime_keyed(vec![(key.clone(), text)])?;
        self.cache.get(&key).copied().ok_or_else(|| {
            Diagnostic::error("token count missing after counting").into_error(crate::error::ErrorKind::Internal)
        })
    }

    /// What the cache did so far.
    pub fn stats(&self) -> CacheStats {
        self.stats
    }

    /// Write new counts to the disk cache (atomically), merged with what is there. Never
    /// fails: a cache that cannot be written is a warning (see [`Counter::warnings`]).
    pub fn save(&mut self) {
        let Some(file) = self.disk.clone() else { return };
        if !self.dirty {
            return;
        }
        let mut d =
            read_disk(&file).ok().flatten().unwrap_or(DiskCache { format: DISK_FORMAT, counts: BTreeMap::new() });
        let entry = d.counts.entry(self.tokenizer.encoding().name().to_string()).or_default();
        entry.extend(self.cache.iter().map(|(k, v)| (k.clone(), *v)));
        if entry.len() > MAX_CACHE_ENTRIES {
            // Past the bound, keep what this run used: the rest is recounted when next needed.
            entry.retain(|k, _| self.seen.contains(k));
        }
        let write = || -> std::result::Result<(), String> {
            crate::source::confine(&file.root, &file.path)?;
            let json = serde_json::to_vec(&d).map_err(|e| e.to_string())?;
            crate::source::atomic::write(&file.path, &json).map_err(|e| e.to_string())
        };
        match write() {
            Ok(()) => self.dirty = false,
            Err(why) => self.warnings.push(cache_warning(&file.path, "was not saved", &why)),
        }
    }
}

/// Token counters for every encoding a run needs, sharing one disk cache: exact counts per
/// encoding, and estimates (a model family's factor times the `o200k_base` count) on top.
/// Each encoding's tokenizer is built only if a text misses the cache.
#[derive(Debug)]
pub struct Counters {
    disk: Option<CacheFile>,
    by_encoding: BTreeMap<Encoding, Counter>,
}

impl Counters {
    /// Counters reading and writing `disk`, if given.
    pub fn new(disk: Option<CacheFile>) -> Counters {
        Counters { disk, by_encoding: BTreeMap::new() }
    }

    fn counter(&mut self, encoding: Encoding) -> &mut Counter {
        let disk = &self.disk;
        self.by_encoding.entry(encoding).or_insert_with(|| Counter::new(Tokenizer::Exact(encoding), disk.clone()))
    }

    /// Start building `encoding`'s tokenizer in the background if its counts will be needed.
    pub fn prefetch(&mut self, encoding: Encoding) {
        self.counter(encoding).prefetch();
    }

    /// Count every text not counted yet with `tokenizer`'s encoding, in parallel.
    pub fn prime(&mut self, tokenizer: &Tokenizer, texts: &[&str]) -> Result<()> {
        self.counter(tokenizer.encoding()).prime(texts)
    }

    /// Tokens of `text` with `tokenizer` (estimates are rounded up).
    pub fn count(&mut self, tokenizer: &Tokenizer, text: &str) -> Result<u64> {
        let base = self.counter(tokenizer.encoding()).count(text)?;
        Ok(match tokenizer {
            Tokenizer::Exact(_) => base,
            Tokenizer::Estimate { factor, .. } => (base as f64 * factor).ceil() as u64,
        })
    }

    /// Save every encoding's new counts (problems become warnings).
    pub fn save(&mut self) {
        for c in self.by_encoding.values_mut() {
            c.save();
        }
    }

    /// Problems with the disk cache, each once.
    pub fn warnings(&self) -> Vec<&Diagnostic> {
        let mut out: Vec<&Diagnostic> = Vec::new();
        for w in self.by_encoding.values().flat_map(|c| c.warnings()) {
            if !out.iter().any(|o| o.message == w.message) {
                out.push(w);
            }
        }
        out
    }

    /// Cache effectiveness over every encoding.
    pub fn stats(&self) -> CacheStats {
        self.by_encoding.values().fold(CacheStats::default(), |a, c| {
            let s = c.stats();
            CacheStats {
                hits: a.hits + s.hits,
                misses: a.misses + s.misses,
                tokenizer_built: a.tokenizer_built || s.tokenizer_built,
            }
        })
    }

    /// Where the disk cache lives, if any.
    pub fn disk_path(&self) -> Option<&Path> {
        self.disk.as_ref().map(|f| f.path.as_path())
    }
}

/// Whether `n` can be the token count of non-empty `text`: every token covers at least one
/// byte, and any text has at least one token.
fn plausible(n: u64, text: &str) -> bool {
    n >= 1 && n <= text.len() as u64
}

/// Read the disk cache: `Ok(None)` if there is none yet (or it is of an older format), a warning
/// if it cannot be used.
fn read_disk(file: &CacheFile) -> std::result::Result<Option<DiskCache>, Box<Diagnostic>> {
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

#[cfg(test)]
#[path = "tokens_tests.rs"]
mod tests;
