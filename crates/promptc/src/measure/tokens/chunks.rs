//! Counting a text by its chunks, each distinct chunk tokenised once.
//!
//! o200k_base splits a text into pieces with a regular expression before it merges bytes into
//! tokens, and never merges across pieces: the count of a text is the sum of its pieces'. So a
//! text cut where a piece always ends, and where the next piece starts as it would at the start
//! of a text, counts as the sum of its parts. The texts of a run repeat each other (a prompt is
//! its sections, a tools JSON is its tools' entries, every cell of a matrix shares most of
//! them), so counting each distinct chunk once and remembering it ([`Memo`]) tokenises a
//! fraction of the bytes, and an edit recounts the chunks it reached.
//!
//! Where o200k_base's pieces always end (its pattern: letters with at most one leading
//! character that is no letter, digit or line break; 1–3 digits; ` ?` + a run of characters
//! that are no space, letter or digit + `[\r\n/]*`; `\s*[\r\n]+`; other whitespace):
//!
//! - **After a line feed followed by printable ASCII other than `/`.** Every piece holding a
//!   line feed is whitespace ending in line breaks or a punctuation run's `[\r\n/]*` tail, and
//!   neither reaches past a character that is no whitespace, line break or `/`. The next
//!   character starts a piece, as at the start of a text (no pattern looks behind).
//! - **Before an ASCII letter or digit preceded by two ASCII punctuation characters other than
//!   `/`.** Both belong to one punctuation run (a letter piece takes one leading character only
//!   when a letter follows it, and a run's tail holds only `\r`, `\n` and `/`); the run ends at
//!   the letter or digit, which starts a piece. This cuts compact JSON (`"},{"name":"`).
//!
//! Not every such place is a cut: one is taken after a line feed always, and between
//! punctuation and a letter when a hash of the eight bytes before it is a multiple of
//! [`SPACING`] — chosen by content, so a chunk of text found in two places is cut alike in
//! both. The other encodings' patterns differ (r50k's and p50k's `\s+(?!\S)` ends a piece
//! before a line feed that ends a text, not after it), so only o200k_base is counted by chunks.
//! Tests hold chunked counts to whole-text counts over every text a matrix of the example and
//! the fixtures counts, and over generated texts built from the characters at the edges of
//! these rules.

use std::collections::HashMap;

/// One in this many places between punctuation and a letter or digit is a cut (by a hash of the
/// bytes before it): chunks of compact JSON are then some tens of bytes, long enough that
/// looking a chunk up costs less than tokenising it, short enough to be found again.
const SPACING: u64 = 4;

/// Bytes of chunk text a [`Memo`] keeps at most; past that it still counts, but remembers no
/// more (every figure stays exact; only speed is bounded).
const MEMO_BYTES: usize = 64 << 20;

/// Chunks longer than this are counted but not remembered: a text that long without a cut
/// repeats as a whole text, which the token cache already remembers.
const MEMO_CHUNK_BYTES: usize = 16 << 10;

/// Token counts of chunks counted so far.
#[derive(Default)]
pub(in crate::measure::tokens) struct Memo {
    counts: HashMap<Box<str>, u32>,
    /// Chunk text held, with a per-entry overhead.
    bytes: usize,
}

impl Memo {
    /// The count of `text`: the sum over its chunks, each looked up here or counted with
    /// `count` (and remembered, while the memo has room).
    pub(in crate::measure::tokens) fn count(&mut self, text: &str, count: impl Fn(&str) -> usize) -> usize {
        chunks(text).map(|chunk| self.chunk(chunk, &count)).sum()
    }

    /// The count of one chunk: looked up here, or counted with `count` (and remembered, while
    /// the memo has room).
    pub(in crate::measure::tokens) fn chunk(&mut self, chunk: &str, count: impl Fn(&str) -> usize) -> usize {
        if let Some(&n) = self.counts.get(chunk) {
            return n as usize;
        }
        let n = count(chunk);
        let cost = chunk.len() + 48;
        if chunk.len() <= MEMO_CHUNK_BYTES && self.bytes + cost <= MEMO_BYTES {
            if let Ok(small) = u32::try_from(n) {
                self.counts.insert(chunk.into(), small);
                self.bytes += cost;
            }
        }
        n
    }
}

/// Whether `b` is ASCII punctuation other than `/` (a character o200k_base's punctuation runs
/// hold that their line-break tail does not).
fn punct(b: u8) -> bool {
    b.is_ascii_punctuation() && b != b'/'
}

/// Whether text may be cut before byte `p` of `b` (see the module's comment): after a line feed
/// followed by printable ASCII other than `/`, or before an ASCII letter or digit preceded by two
/// punctuation characters other than `/`, when the content there says so.
fn cut_before(b: &[u8], p: usize) -> bool {
    let c = b[p];
    if b[p - 1] == b'\n' {
        return c.is_ascii_graphic() && c != b'/';
    }
    p >= 2 && c.is_ascii_alphanumeric() && punct(b[p - 1]) && punct(b[p - 2]) && chosen(&b[p.saturating_sub(8)..p])
}

/// Whether a cut after `window` is taken: FNV-1a of the bytes is a multiple of [`SPACING`].
fn chosen(window: &[u8]) -> bool {
    let h = window.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &x| (h ^ u64::from(x)).wrapping_mul(0x0100_0000_01b3));
    h % SPACING == 0
}

/// The chunks of `text`, in order; they concatenate to `text`.
pub(in crate::measure::tokens) fn chunks(text: &str) -> impl Iterator<Item = &str> {
    cut_where(text, |t, p| cut_before(t.as_bytes(), p))
}

/// `text` cut before each character boundary `p > 0` where `cut(text, p)` holds, in order; the
/// pieces concatenate to `text` and none is empty. The one cutting loop under o200k_base's
/// chunks and Gemma's segments.
pub(in crate::measure::tokens) fn cut_where(
    text: &str,
    cut: impl Fn(&str, usize) -> bool,
) -> impl Iterator<Item = &str> {
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= text.len() {
            return None;
        }
        let end = (start + 1..text.len()).find(|&p| text.is_char_boundary(p) && cut(text, p)).unwrap_or(text.len());
        let piece = &text[start..end];
        start = end;
        Some(piece)
    })
}

#[cfg(test)]
#[path = "chunks_tests.rs"]
pub(super) mod tests;
