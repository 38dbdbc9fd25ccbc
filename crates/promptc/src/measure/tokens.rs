//! Token counting: exact for OpenAI encodings (tiktoken-rs, vocabularies embedded in the
//! binary), labelled estimates for other model families, and a content-addressed cache so
//! unchanged text is never tokenised twice — and a fully cached run never builds a tokenizer.
//!
//! The disk cache (`disk`: binary shards beside the path the project names) is an optimisation
//! only: a project may commit a hostile one. A shard is read only if it is a regular file
//! inside the project of at most [`MAX_SHARD_BYTES`](disk::MAX_SHARD_BYTES), written only inside
//! the project and never through a symbolic link, and any failure is a warning. Every shard
//! carries a MAC (HMAC-SHA-256 under a key in the user's cache folder, `key`): a shard without
//! this user's MAC — a cache committed from another machine, or poisoned — is passed over and
//! its counts made again, so the cache can cost time but never change a figure. A count that
//! cannot be right (zero, or more tokens than the text has bytes) is recounted too. A shard
//! keeps at most [`MAX_SHARD_ENTRIES`](disk::MAX_SHARD_ENTRIES) counts, evicting what the run
//! did not use. [`Counters`] serves every encoding of a run from one cache.

mod background;
mod chunks;
mod counters;
mod disk;
mod engine;
mod gemma;
mod key;
mod marks;

pub(crate) use background::{key_of, keyed, Background};
pub use counters::Counters;
pub use disk::{is_shard, CacheFile};
pub(crate) use disk::{read_confined, write_confined};
use engine::Engine;
pub(crate) use key::Mac;
pub use marks::Mark;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde::Serialize;

use crate::diagnostic::Diagnostic;
use crate::error::Result;
use crate::hash::sha256_hex;
use crate::model::tokenizer::Tokenizer;
use disk::{cache_warning, read_shard, shard_of, write_shard, SHARDS};

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

/// Counts tokens with one tokenizer, remembering every distinct text it has seen.
pub struct Counter {
    tokenizer: Tokenizer,
    /// The tokenizer itself, built on first need; shared with a counting thread.
    engine: Arc<Engine>,
    /// A second tokenizer, for the thread that owns this counter to count with while a
    /// counting thread uses the first (see `background`); built only if it helps.
    helper: Engine,
    cache: HashMap<String, u64>,
    /// Texts already looked up in this run, so repeated lookups do not skew the statistics.
    seen: HashSet<String>,
    /// Texts handed to a counting thread whose counts have not come back yet.
    queued: HashSet<String>,
    disk: Option<CacheFile>,
    disk_loaded: bool,
    /// The shards this run added counts to: only those are written back.
    dirty: [bool; SHARDS],
    stats: CacheStats,
    /// Cache problems: reported, never fatal.
    warnings: Vec<Diagnostic>,
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
            for shard in 0..SHARDS {
                match read_shard(file, tokenizer.encoding().name(), shard) {
                    Ok(counts) => cache.extend(counts),
                    Err(w) => warnings.push(*w),
                }
            }
            disk_loaded = !cache.is_empty();
        }
        Counter {
            tokenizer,
            engine: Arc::new(Engine::new(tokenizer.encoding())),
            helper: Engine::new(tokenizer.encoding()),
            cache,
            seen: Default::default(),
            queued: Default::default(),
            disk,
            disk_loaded,
            dirty: [false; SHARDS],
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
        if !self.disk_loaded {
            self.engine.prefetch();
        }
    }

    /// Count every text not counted yet.
    pub fn prime(&mut self, texts: &[&str]) -> Result<()> {
        self.prime_keyed(keyed(texts))
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

    /// [`Counter::prime`] with each text's cache key already computed. Counting runs on this
    /// thread: the tokenizer's regex keeps one scratch pool, and threads sharing it contend so
    /// much that two counting threads are slower than one (measured: 1.49 s against 1.03 s for
    /// 40 MB). A [`Background`] thread counts beside other work instead.
    fn prime_keyed(&mut self, keyed: Vec<(String, &str)>) -> Result<()> {
        let todo = self.unknown(keyed);
        if todo.is_empty() {
            return Ok(());
        }
        let counted = self.engine.count_all(&todo)?;
        self.store(counted);
        Ok(())
    }

    /// The texts of `keyed` this counter has no count for, each once;
    /// notes every one as seen.
    fn unknown<'t>(&mut self, keyed: Vec<(String, &'t str)>) -> Vec<(String, &'t str)> {
        let mut todo: Vec<(String, &str)> = Vec::new();
        let mut batch = HashSet::new();
        for (key, t) in keyed {
            if self.cache.get(&key).is_some_and(|n| !plausible(*n, t)) {
                self.cache.remove(&key);
            }
            self.note_seen(&key);
            if !self.cache.contains_key(&key) && batch.insert(key.clone()) {
                todo.push((key, t));
            }
        }
        todo
    }

    /// Remember counts made for this counter (here or on a counting thread).
    fn store(&mut self, counted: Vec<(String, u64)>) {
        for (k, n) in counted {
            self.queued.remove(&k);
            self.dirty[shard_of(&k)] = true;
            self.cache.insert(k, n);
        }
    }

    /// Tokens in `text` (estimates are rounded up).
    pub fn count(&mut self, text: &str) -> Result<u64> {
        let base = self.base_count(text)?;
        Ok(counters::scaled(&self.tokenizer, base))
    }

    fn base_count(&mut self, text: &str) -> Result<u64> {
        if text.is_empty() {
            return Ok(0);
        }
        self.base_count_keyed(sha256_hex(text.as_bytes()), text)
    }

    /// [`Counter::base_count`] of non-empty `text` whose cache key is `key`.
    fn base_count_keyed(&mut self, key: String, text: &str) -> Result<u64> {
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

    /// The marks of `text` (whose cache key is `key`) at `points` (byte offsets, any order; one
    /// mark each, in their order): see `marks`. Each mark is remembered, and saved with the
    /// counts, under the text's key and its byte, so the parts of a text counted in an earlier
    /// run are found without tokenising it again.
    pub(crate) fn marks(&mut self, key: &str, text: &str, points: &[usize]) -> Result<Vec<Mark>> {
        let total = if text.is_empty() { 0 } else { self.base_count_keyed(key.to_string(), text)? };
        let mut order: Vec<usize> = points.to_vec();
        order.sort_unstable();
        order.dedup();
        let mut found: HashMap<usize, Mark> = HashMap::new();
        let mut todo = Vec::new();
        for &p in &order {
            let mark_key = format!("{key}@{p}");
            match self.cache.get(&mark_key) {
                _ if p == 0 => _ = found.insert(p, Mark::default()),
                _ if p >= text.len() => _ = found.insert(p, Mark::all(total)),
                Some(&packed) if plausible_mark(packed, p) => {
                    found.insert(p, Mark { starts: packed / 2, ends: packed / 2 - packed % 2 });
                    self.seen.insert(mark_key);
                }
                _ => todo.push(p),
            }
        }
        if !todo.is_empty() {
            for (p, m) in todo.iter().zip(self.engine.marks(text, &todo)?) {
                let mark_key = format!("{key}@{p}");
                self.dirty[shard_of(&mark_key)] = true;
                self.cache.insert(mark_key.clone(), m.starts * 2 + (m.starts - m.ends));
                self.seen.insert(mark_key);
                found.insert(*p, m);
            }
        }
        Ok(points.iter().map(|p| found.get(p).copied().unwrap_or_default()).collect())
    }

    /// What the cache did so far.
    pub fn stats(&self) -> CacheStats {
        CacheStats { tokenizer_built: self.engine.built() || self.helper.built(), ..self.stats }
    }

    /// Write the shards this run added counts to (each atomically), merged with what another
    /// run saved there meanwhile. Never fails: a shard that cannot be written is a warning
    /// (see [`Counter::warnings`]).
    pub fn save(&mut self) {
        let Some(file) = self.disk.clone() else { return };
        let encoding = self.tokenizer.encoding().name();
        let dirty = self.dirty;
        // This run's counts by shard, in one pass over them.
        let mut ours: Vec<Vec<(&str, u64)>> = vec![Vec::new(); SHARDS];
        for (k, v) in &self.cache {
            let shard = shard_of(k);
            if dirty[shard] {
                ours[shard].push((k.as_str(), *v));
            }
        }
        let mut failed = None;
        for (shard, ours) in ours.into_iter().enumerate().filter(|(s, _)| dirty[*s]) {
            // What is on disk now (a concurrent run's counts), then this run's over it.
            let on_disk = read_shard(&file, encoding, shard).unwrap_or_default();
            let mut entries: HashMap<&str, u64> = on_disk.iter().map(|(k, v)| (k.as_str(), *v)).collect();
            entries.extend(ours);
            // Past the bound, what this run used is kept first: the rest is counted again when
            // next needed.
            if let Err(why) = write_shard(&file, encoding, shard, entries, |k| self.seen.contains(k)) {
                // One warning says it: the other shards would fail alike.
                failed = Some(cache_warning(&file.shard(encoding, shard).path, "was not saved", &why));
                break;
            }
        }
        match failed {
            Some(w) => self.warnings.push(w),
            None => self.dirty = [false; SHARDS],
        }
    }
}

/// Panics unless `text` counts the same with o200k_base by chunks (fresh and remembered) as
/// whole: the fuzz target `chunked_count`.
pub(crate) fn check_chunked_count(text: &str) {
    let bpe = bpe_openai::o200k_base();
    let whole = bpe.count(text);
    let mut memo = chunks::Memo::default();
    for _ in 0..2 {
        assert_eq!(memo.count(text, |c| bpe.count(c)), whole, "{text:?} by chunks");
    }
}

/// Whether `n` can be the token count of non-empty `text`: every token covers at least one
/// byte, and any text has at least one token.
fn plausible(n: u64, text: &str) -> bool {
    n >= 1 && n <= text.len() as u64
}

/// Whether `packed` (a mark's tokens started, twice, plus one when a token straddles the byte)
/// can be the mark at byte `p` (not 0) of a text: at least one token starts before it, at most
/// one per byte.
fn plausible_mark(packed: u64, p: usize) -> bool {
    let starts = packed / 2;
    starts >= 1 && starts <= p as u64 && starts >= packed % 2
}

#[cfg(test)]
#[path = "tokens_tests.rs"]
mod tests;
