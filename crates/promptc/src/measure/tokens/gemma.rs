//! The Gemini tokenizer: the Gemma 3 SentencePiece model (262,144 pieces) that every Gemini
//! model counts with and that google-genai's `LocalTokenizer` loads, encoded as SentencePiece's
//! BPE model encodes (`bpe_model.cc`), so the counts are the SDK's.
//!
//! The model is built in: build.rs checks the file's SHA-256 (the one google-genai checks),
//! checks what this encoder takes for granted of it, and writes the pieces a merge may make,
//! sorted by their bytes, with their scores (`gemma3.pieces`). Nothing is parsed or built at
//! run time: a piece is found by binary search over the embedded table, so a run that counts
//! no Gemini cell pays nothing, and one that does pays no load.
//!
//! How SentencePiece encodes with this model:
//! - **Normalize**: the identity normalizer; only a space becomes `▁` (U+2581). No dummy
//!   prefix, whitespace kept as it is.
//! - **Split** into symbols: at each place, the longest user-defined piece that starts there
//!   (runs of line feeds, tabs or `▁`, `<start_of_turn>`, HTML tags, `<unusedN>` …) is one
//!   frozen symbol that never merges; otherwise one character.
//! - **Merge**: repeatedly the adjacent pair whose joined bytes are a piece with the highest
//!   score (the leftmost of equals), until no pair is a piece.
//! - **Byte fallback**: a symbol that is no piece (a character the vocabulary lacks) is one
//!   token per UTF-8 byte.
//!
//! The conformance test (`conformance/test_gemini_tokens.py`) holds the counts to
//! google-genai's over every Gemini cell of the example and the fixtures, and a unit test to the
//! counts SentencePiece itself gave for a set of texts (`tests/golden/gemma3.json`).

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::sync::OnceLock;

/// The tables build.rs wrote: the piece count `n`, `n + 1` end offsets (u32), `n` scores
/// (f32), `n` user-defined flags (u8), then the pieces' bytes, sorted.
static PIECES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/gemma3.pieces"));

/// The Gemma 3 pieces, read in place from [`PIECES`].
pub(in crate::measure::tokens) struct Gemma {
    n: usize,
    ends: &'static [u8],
    scores: &'static [u8],
    user: &'static [u8],
    bytes: &'static [u8],
    /// The user-defined pieces (6,410), found once, on first need.
    user_pieces: OnceLock<UserPieces>,
}

fn u32_at(b: &[u8], i: usize) -> u32 {
    let mut word = [0u8; 4];
    word.copy_from_slice(&b[i * 4..i * 4 + 4]);
    u32::from_le_bytes(word)
}

impl Gemma {
    /// The embedded model's tables.
    pub(in crate::measure::tokens) fn new() -> Gemma {
        let n = u32_at(PIECES, 0) as usize;
        let (ends, rest) = PIECES[4..].split_at((n + 1) * 4);
        let (scores, rest) = rest.split_at(n * 4);
        let (user, bytes) = rest.split_at(n);
        Gemma { n, ends, scores, user, bytes, user_pieces: OnceLock::new() }
    }

    fn piece(&self, i: usize) -> &'static [u8] {
        &self.bytes[u32_at(self.ends, i) as usize..u32_at(self.ends, i + 1) as usize]
    }

    /// The index of piece `p`, if it is one.
    fn find(&self, p: &[u8]) -> Option<usize> {
        let (mut lo, mut hi) = (0, self.n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.piece(mid).cmp(p) {
                Ordering::Less => lo = mid + 1,
                Ordering::Greater => hi = mid,
                Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    fn score(&self, i: usize) -> f32 {
        f32::from_bits(u32_at(self.scores, i))
    }

    fn user_pieces(&self) -> &UserPieces {
        self.user_pieces.get_or_init(|| {
            let sorted: Vec<&'static [u8]> =
                (0..self.n).filter(|&i| self.user[i] == 1).map(|i| self.piece(i)).collect();
            let mut first = [false; 256];
            sorted.iter().for_each(|p| first[usize::from(p[0])] = true);
            UserPieces { sorted, first }
        })
    }

    /// The longest user-defined piece at the start of `rest`, as its length: a walk down the
    /// sorted pieces, narrowing to those that share `rest`'s first `k` bytes, as a trie would.
    fn user_prefix(&self, rest: &[u8]) -> Option<usize> {
        let u = self.user_pieces();
        if !u.first[usize::from(rest[0])] {
            return None;
        }
        let (mut lo, mut hi, mut best) = (0, u.sorted.len(), None);
        for (k, &b) in rest.iter().enumerate() {
            // Every piece in lo..hi starts with rest[..k]; sorted, those of length k come first,
            // then the others by their byte k.
            let range = &u.sorted[lo..hi];
            let from = range.partition_point(|p| p.len() <= k || p[k] < b);
            let to = range.partition_point(|p| p.len() <= k || p[k] <= b);
            (lo, hi) = (lo + from, lo + to);
            if lo == hi {
                break;
            }
            if u.sorted[lo].len() == k + 1 {
                best = Some(k + 1);
            }
        }
        best
    }

    /// The tokens of `text`, as their byte lengths in `text`, in order: they sum to its length.
    pub(in crate::measure::tokens) fn token_lens(&self, text: &str) -> Vec<usize> {
        let (normalized, symbols) = self.split(text);
        let symbols = self.merge(&normalized, symbols);
        let mut out = Vec::with_capacity(symbols.len());
        for s in symbols.iter().filter(|s| s.len > 0) {
            let piece = &normalized[s.start..s.start + s.len];
            if s.frozen || self.find(piece).is_some() {
                out.push(s.original);
            } else {
                // Byte fallback: the symbol is one character the vocabulary lacks, never a space.
                out.extend(std::iter::repeat_n(1, s.len));
            }
        }
        out
    }

    /// The number of tokens of `text`.
    pub(in crate::measure::tokens) fn count(&self, text: &str) -> usize {
        self.token_lens(text).len()
    }

    /// `text` normalized (spaces as `▁`), and its first symbols: user-defined pieces and
    /// characters.
    fn split(&self, text: &str) -> (Vec<u8>, Vec<Symbol>) {
        let mut normalized = Vec::with_capacity(text.len() + text.len() / 4);
        // Each normalized byte's length in `text` as the first byte of its character.
        let mut original = Vec::with_capacity(text.len() + text.len() / 4);
        for c in text.chars() {
            if c == ' ' {
                normalized.extend_from_slice("▁".as_bytes());
                original.extend([1, 0, 0]);
            } else {
                let mut buf = [0u8; 4];
                let s = c.encode_utf8(&mut buf);
                normalized.extend_from_slice(s.as_bytes());
                original.push(s.len());
                original.extend(std::iter::repeat_n(0, s.len() - 1));
            }
        }
        let mut symbols = Vec::new();
        let mut at = 0;
        while at < normalized.len() {
            let user = self.user_prefix(&normalized[at..]);
            let len = user.unwrap_or_else(|| utf8_len(normalized[at]));
            let n = symbols.len();
            symbols.push(Symbol {
                start: at,
                len,
                original: original[at..at + len].iter().sum(),
                frozen: user.is_some(),
                prev: n.checked_sub(1),
                next: None,
            });
            if let Some(p) = n.checked_sub(1) {
                symbols[p].next = Some(n);
            }
            at += len;
        }
        (normalized, symbols)
    }

    /// SentencePiece's BPE merges over `symbols` (merged-away symbols are left empty).
    fn merge(&self, normalized: &[u8], mut symbols: Vec<Symbol>) -> Vec<Symbol> {
        let mut agenda = BinaryHeap::new();
        let pair = |symbols: &[Symbol], left: Option<usize>, right: Option<usize>| -> Option<Pair> {
            let (l, r) = (left?, right?);
            let (a, b) = (&symbols[l], &symbols[r]);
            if a.frozen || b.frozen {
                return None;
            }
            let size = a.len + b.len;
            let i = self.find(&normalized[a.start..a.start + size])?;
            Some(Pair { score: self.score(i), left: l, right: r, size })
        };
        for i in 1..symbols.len() {
            agenda.extend(pair(&symbols, Some(i - 1), Some(i)));
        }
        while let Some(top) = agenda.pop() {
            let (l, r) = (top.left, top.right);
            if symbols[l].len == 0 || symbols[r].len == 0 || symbols[l].len + symbols[r].len != top.size {
                continue;
            }
            symbols[l].len = top.size;
            symbols[l].original += symbols[r].original;
            symbols[l].next = symbols[r].next;
            if let Some(n) = symbols[r].next {
                symbols[n].prev = Some(l);
            }
            symbols[r].len = 0;
            agenda.extend(pair(&symbols, symbols[l].prev, Some(l)));
            agenda.extend(pair(&symbols, Some(l), symbols[l].next));
        }
        symbols
    }
}

/// `text` cut between each two neighbouring characters that stand side by side in no piece:
/// pieces whose tokens, in order, are the tokens of `text`, so each can be counted (and
/// remembered) on its own, as o200k_base's chunks are. Gemma's pieces never end in a space
/// (`▁` leads a word), so compact JSON and prose are cut at nearly every word.
///
/// Exact by construction, for this model or any other the build embeds: the split's
/// left-to-right scan takes one user-defined piece or one character at a time, and neither
/// spans the cut (it would hold both neighbours side by side), so the scan reaches the cut and
/// goes on from there as at the start of a text; a merge makes a piece, so none joins symbols
/// across it. SentencePiece's order of merges (highest score, leftmost of equals), restricted
/// to one side, is the order that side alone would take.
pub(in crate::measure::tokens) fn segments(text: &str) -> impl Iterator<Item = &str> {
    super::chunks::cut_where(text, |t, p| match (t[..p].chars().next_back(), t[p..].chars().next()) {
        (Some(a), Some(b)) => !joined(a, b),
        _ => false,
    })
}

/// `gemma3.joins` (build.rs): a bitmap of the ASCII pairs `a * 128 + b` that stand side by side
/// inside some piece, then the other such pairs as sorted little-endian `u64`s (`a << 32 | b`).
static JOINS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/gemma3.joins"));

/// Bytes of the ASCII bitmap at the head of [`JOINS`].
const ASCII_JOINS: usize = 128 * 128 / 8;

/// Whether characters `a` then `b` of a text stand side by side inside some piece (a space
/// counts as the `▁` it is normalized to).
fn joined(a: char, b: char) -> bool {
    let code = |c: char| u32::from(if c == ' ' { '▁' } else { c });
    let (a, b) = (code(a), code(b));
    if a < 128 && b < 128 {
        let i = (a * 128 + b) as usize;
        return JOINS[i / 8] & (1 << (i % 8)) != 0;
    }
    let key = u64::from(a) << 32 | u64::from(b);
    let pairs = &JOINS[ASCII_JOINS..];
    let at = |i: usize| {
        let mut word = [0u8; 8];
        word.copy_from_slice(&pairs[i * 8..i * 8 + 8]);
        u64::from_le_bytes(word)
    };
    let (mut lo, mut hi) = (0, pairs.len() / 8);
    while lo < hi {
        let mid = (lo + hi) / 2;
        match at(mid).cmp(&key) {
            Ordering::Less => lo = mid + 1,
            Ordering::Greater => hi = mid,
            Ordering::Equal => return true,
        }
    }
    false
}

/// The user-defined pieces, sorted by their bytes, and which bytes start one.
struct UserPieces {
    sorted: Vec<&'static [u8]>,
    first: [bool; 256],
}

/// The length of the UTF-8 character whose first byte is `b`.
fn utf8_len(b: u8) -> usize {
    match b {
        0xf0.. => 4,
        0xe0.. => 3,
        0xc0.. => 2,
        _ => 1,
    }
}

/// A symbol: a range of the normalized text.
#[derive(Debug, Clone, Copy)]
struct Symbol {
    start: usize,
    /// Bytes in the normalized text (0: merged into the symbol before it).
    len: usize,
    /// Bytes in the original text.
    original: usize,
    /// A user-defined piece: never merged.
    frozen: bool,
    prev: Option<usize>,
    next: Option<usize>,
}

/// Two adjacent symbols whose joined bytes are a piece: a candidate merge.
#[derive(Debug, PartialEq)]
struct Pair {
    score: f32,
    left: usize,
    right: usize,
    /// Bytes of the joined symbol: a pair whose symbols have changed since is stale.
    size: usize,
}

impl Eq for Pair {}

impl Ord for Pair {
    /// The highest score first, then the leftmost (SentencePiece's `SymbolPairComparator`).
    fn cmp(&self, other: &Pair) -> Ordering {
        self.score.total_cmp(&other.score).then_with(|| other.left.cmp(&self.left))
    }
}

impl PartialOrd for Pair {
    fn partial_cmp(&self, other: &Pair) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
#[path = "gemma_tests.rs"]
mod tests;
