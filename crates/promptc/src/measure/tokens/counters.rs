//! Token counters for every encoding a run needs, sharing one disk cache.

use std::collections::BTreeMap;
use std::path::Path;

use crate::diagnostic::Diagnostic;
use crate::error::Result;
use crate::model::tokenizer::{Encoding, Tokenizer};

use super::{CacheFile, CacheStats, Counter, Mark};

/// `base` tokens of the tokenizer's encoding as `tokenizer` counts them (estimates round up).
pub(super) fn scaled(tokenizer: &Tokenizer, base: u64) -> u64 {
    match tokenizer {
        Tokenizer::Exact(_) => base,
        Tokenizer::Estimate { factor, .. } => (base as f64 * factor).ceil() as u64,
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

    /// The counter of `encoding`, made on first use.
    pub(super) fn counter(&mut self, encoding: Encoding) -> &mut Counter {
        let disk = &self.disk;
        self.by_encoding.entry(encoding).or_insert_with(|| Counter::new(Tokenizer::Exact(encoding), disk.clone()))
    }

    /// Whether any encoding's second tokenizer has been built (see `background`).
    pub(super) fn helping(&self) -> bool {
        self.by_encoding.values().any(|c| c.helper.built())
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
        Ok(scaled(tokenizer, base))
    }

    /// The marks of `text` (whose cache key is `key`, see [`keyed`](super::keyed)) at
    /// `points`, with `tokenizer` (an estimate scales each, rounding up as counts do, so the
    /// mark at the text's end is its count): see [`Mark`].
    pub(crate) fn marks(
        &mut self,
        tokenizer: &Tokenizer,
        key: &str,
        text: &str,
        points: &[usize],
    ) -> Result<Vec<Mark>> {
        let marks = self.counter(tokenizer.encoding()).marks(key, text, points)?;
        Ok(marks
            .into_iter()
            .map(|m| Mark { starts: scaled(tokenizer, m.starts), ends: scaled(tokenizer, m.ends) })
            .collect())
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
