//! The token counter callers keep across calls.

use crate::error::Result;
use crate::measure::tokens::Counters;
use crate::model::tokenizer::Tokenizer;
use crate::model::Project;

/// Counts tokens, remembering every text it has counted (and, with a project's cache file,
/// every text counted by earlier runs). Keep one and pass it to every call that measures:
/// building a tokenizer takes a few hundred milliseconds, and each encoding is built once.
///
/// ```
/// use promptc::{Encoding, TokenCounter, Tokenizer};
///
/// let mut counter = TokenCounter::new(Tokenizer::Exact(Encoding::O200kBase));
/// assert_eq!(counter.count("hello world")?, 2);
/// # Ok::<(), promptc::Error>(())
/// ```
#[derive(Debug)]
pub struct TokenCounter {
    pub(crate) counters: Counters,
    tokenizer: Tokenizer,
}

impl TokenCounter {
    /// A counter with no disk cache; [`TokenCounter::count`] uses `tokenizer`.
    pub fn new(tokenizer: Tokenizer) -> TokenCounter {
        TokenCounter { counters: Counters::new(None), tokenizer }
    }

    /// A counter that reads and writes the project's token cache file, if the project names one
    /// and `cache` is true; [`TokenCounter::count`] uses `tokenizer`, default the project's.
    pub fn for_project(project: &Project, tokenizer: Option<Tokenizer>, cache: bool) -> TokenCounter {
        let disk = crate::measure::tokens::CacheFile::of_project(project).filter(|_| cache);
        TokenCounter { counters: Counters::new(disk), tokenizer: tokenizer.unwrap_or(project.tokens.tokenizer) }
    }

    /// Tokens in `text` (estimates are rounded up).
    pub fn count(&mut self, text: &str) -> Result<u64> {
        self.counters.count(&self.tokenizer, text)
    }

    /// The marks of `text` at byte `points`: tokens that start before each, and that end by it.
    pub(crate) fn marks(&mut self, text: &str, points: &[usize]) -> Result<Vec<crate::measure::tokens::Mark>> {
        let key = crate::measure::tokens::key_of(text);
        self.counters.marks(&self.tokenizer, &key, text, points)
    }

    /// The tokenizer [`TokenCounter::count`] uses.
    pub fn tokenizer(&self) -> Tokenizer {
        self.tokenizer
    }

    /// Save new counts to the cache file, if there is one. A cache that cannot be saved is
    /// not an error: see [`TokenCounter::warnings`].
    pub fn save(&mut self) {
        self.counters.save();
    }

    /// Problems with the cache file: it was ignored (unreadable, too large, a link out of the
    /// project) or could not be saved. The counts are right either way.
    pub fn warnings(&self) -> Vec<&crate::diagnostic::Diagnostic> {
        self.counters.warnings()
    }

    /// Whether a tokenizer has been built (a fully cached run builds none).
    pub fn tokenizer_built(&self) -> bool {
        self.counters.stats().tokenizer_built
    }

    /// Hits and misses so far; `None` without a cache file.
    pub fn cache_stats(&self) -> Option<crate::measure::tokens::CacheStats> {
        self.counters.disk_path().map(|_| self.counters.stats())
    }
}
