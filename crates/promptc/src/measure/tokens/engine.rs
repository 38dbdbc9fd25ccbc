//! One encoding's tokenizer, built once on first need (or ahead of it, on a thread of its own)
//! and shared by the counter that owns it and a counting thread.
//!
//! o200k_base, the default encoding, loads prebuilt: `bpe-openai`'s tables, written again
//! with postcard when promptc is compiled (build.rs) with only what counting reads, are decoded
//! (~15 ms, against ~45 ms from `bpe-openai`'s own MessagePack and ~100 ms for tiktoken-rs to
//! build them from the vocabulary) and count with tiktoken's own pre-tokenization, so the
//! counts are tiktoken's (the golden tests, differential tests against tiktoken-rs and
//! `bpe-openai`, and the conformance check hold it to that). Only `count` is ever called on it:
//! the tables of bpe's other encoders are left empty. The tables cost ~12 MB of binary, so the
//! other encodings (cl100k_base, p50k_base, r50k_base) are built by tiktoken-rs when first
//! needed.

use std::sync::{Mutex, OnceLock};
use std::thread::JoinHandle;

use tiktoken_rs::CoreBPE;

/// A built tokenizer.
pub(in crate::measure::tokens) enum Bpe {
    /// Tables prepared at compile time (`bpe-openai`'s, re-encoded by build.rs).
    Prebuilt(Box<bpe_openai::Tokenizer>),
    /// Built from the embedded vocabulary by tiktoken-rs.
    Built(CoreBPE),
    /// The Gemma 3 SentencePiece model, read in place (Gemini, see `gemma`).
    Gemma(Box<Gemma>),
}

impl Bpe {
    /// The tokens of `text` with special-token text counted as ordinary text (tiktoken's
    /// `encode_ordinary`), whole: what [`Bpe::count_chunked`] is tested against.
    #[cfg(test)]
    pub(in crate::measure::tokens) fn count(&self, text: &str) -> usize {
        match self {
            Bpe::Prebuilt(t) => t.count(text),
            Bpe::Built(b) => b.count_ordinary(text),
            Bpe::Gemma(g) => g.count(text),
        }
    }

    /// The byte lengths of the tokens of `text`, in order (special-token text as ordinary
    /// text): what marks inside a text are read from.
    pub(in crate::measure::tokens) fn token_lens(&self, text: &str) -> Vec<usize> {
        match self {
            Bpe::Prebuilt(t) => t.encode(text).into_iter().map(|id| t.bpe.token_len(id)).collect(),
            Bpe::Built(b) => b
                .encode_ordinary(text)
                .into_iter()
                .map(|rank| b.decode_bytes(&[rank]).map_or(0, |bytes| bytes.len()))
                .collect(),
            Bpe::Gemma(g) => g.token_lens(text),
        }
    }

    /// [`Bpe::count`], by chunks remembered in `memo` where the encoding allows it (o200k_base's
    /// pre-tokenization, see `chunks`; Gemma's neighbours no piece joins, see `gemma::segments`): the
    /// same count.
    pub(in crate::measure::tokens) fn count_chunked(&self, memo: &mut Memo, text: &str) -> usize {
        match self {
            Bpe::Prebuilt(t) => memo.count(text, |chunk| t.count(chunk)),
            Bpe::Built(b) => b.count_ordinary(text),
            Bpe::Gemma(g) => super::gemma::segments(text).map(|s| memo.chunk(s, |c| g.count(c))).sum(),
        }
    }
}

use super::chunks::Memo;
use super::gemma::Gemma;
use super::marks::Mark;
use crate::diagnostic::Diagnostic;
use crate::error::{ErrorKind, Result};
use crate::model::tokenizer::Encoding;

/// A tokenizer that is built when first asked for.
pub(in crate::measure::tokens) struct Engine {
    encoding: Encoding,
    bpe: OnceLock<Bpe>,
    /// A build started ahead of need (see [`Engine::prefetch`]).
    pending: Mutex<Option<JoinHandle<Result<Bpe>>>>,
    /// The chunks this tokenizer has counted, kept as long as it is (a `watch` session).
    memo: Mutex<Memo>,
}

impl Engine {
    pub(in crate::measure::tokens) fn new(encoding: Encoding) -> Engine {
        Engine { encoding, bpe: OnceLock::new(), pending: Mutex::new(None), memo: Mutex::default() }
    }

    /// Start building on another thread, unless built or being built.
    pub(in crate::measure::tokens) fn prefetch(&self) {
        let Ok(mut pending) = self.pending.lock() else { return };
        if pending.is_some() || self.bpe.get().is_some() {
            return;
        }
        let encoding = self.encoding;
        *pending = std::thread::Builder::new().name("tokenizer".into()).spawn(move || build(encoding)).ok();
    }

    /// Whether the tokenizer has been built and used.
    pub(in crate::measure::tokens) fn built(&self) -> bool {
        self.bpe.get().is_some()
    }

    /// The tokenizer, built now (or joined from a prefetch) if it is not yet.
    pub(in crate::measure::tokens) fn get(&self) -> Result<&Bpe> {
        if let Some(bpe) = self.bpe.get() {
            return Ok(bpe);
        }
        // The lock makes a second caller wait for the first build instead of building twice.
        let mut pending = self.pending.lock().map_err(|_| internal("the tokenizer build failed"))?;
        if self.bpe.get().is_none() {
            let built = match pending.take() {
                Some(handle) => handle.join().unwrap_or_else(|_| build(self.encoding))?,
                None => build(self.encoding)?,
            };
            let _ = self.bpe.set(built);
        }
        drop(pending);
        self.bpe.get().ok_or_else(|| internal("tokenizer unavailable"))
    }
}

impl Engine {
    /// Count each of `texts` (keyed by their cache keys), building the tokenizer if need be.
    /// Chunks are looked up in and added to this engine's memo; when another thread is
    /// counting with it, in a memo of this call's own (the counts are the same).
    pub(in crate::measure::tokens) fn count_all(&self, texts: &[(String, &str)]) -> Result<Vec<(String, u64)>> {
        let bpe = self.get()?;
        let mut own = Memo::default();
        let mut shared = self.memo.try_lock().ok();
        let memo = shared.as_deref_mut().unwrap_or(&mut own);
        Ok(texts.iter().map(|(k, t)| (k.clone(), bpe.count_chunked(memo, t) as u64)).collect())
    }
}

impl Engine {
    /// The marks of `text` at `points` (sorted byte offsets): see `marks`. Chunks are looked up
    /// in this engine's memo, as [`Engine::count_all`] does.
    pub(in crate::measure::tokens) fn marks(&self, text: &str, points: &[usize]) -> Result<Vec<Mark>> {
        let bpe = self.get()?;
        let mut own = Memo::default();
        let mut shared = self.memo.try_lock().ok();
        let memo = shared.as_deref_mut().unwrap_or(&mut own);
        Ok(super::marks::marks(bpe, memo, text, points))
    }
}

fn internal(message: &str) -> crate::error::Error {
    Diagnostic::error(message).into_error(ErrorKind::Internal)
}

/// The tokenizer of `encoding`: prebuilt tables loaded (o200k_base), the Gemma 3 tables read
/// in place (gemma3), or the BPE tables built from the embedded vocabulary (the expensive step:
/// ~100 ms).
fn build(encoding: Encoding) -> Result<Bpe> {
    let r = match encoding {
        Encoding::O200kBase => return o200k_base().map(|t| Bpe::Prebuilt(Box::new(t))),
        Encoding::Gemma3 => return Ok(Bpe::Gemma(Box::new(Gemma::new()))),
        Encoding::Cl100kBase => tiktoken_rs::cl100k_base(),
        Encoding::P50kBase => tiktoken_rs::p50k_base(),
        Encoding::R50kBase => tiktoken_rs::r50k_base(),
    };
    r.map(Bpe::Built).map_err(|e| {
        Diagnostic::error(format!("cannot build the {} tokenizer: {e}", encoding.name()))
            .into_error(ErrorKind::Internal)
    })
}

/// o200k_base's tables as build.rs wrote them.
static O200K_BASE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/o200k_base.postcard"));

/// o200k_base: the tables decoded, and tiktoken's pre-tokenization as `bpe-openai` writes it
/// for o200k_base (its negative look-ahead `\s+(?!\S)` rewritten as a pattern whose last
/// character is dropped from the match, the second pattern's `true`).
fn o200k_base() -> Result<bpe_openai::Tokenizer> {
    let bpe = postcard::from_bytes(O200K_BASE).map_err(|e| internal(&format!("o200k_base's tables: {e}")))?;
    let pat1 = [
        "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
        "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
        "\\p{N}{1,3}",
        " ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*",
        "\\s*[\\r\\n]+",
        "\\s+$",
    ]
    .join("|");
    bpe_openai::Tokenizer::new_lookahead(bpe, &[(&pat1, false), ("\\s+\\s", true), ("\\s+", false)], false)
        .map_err(|e| internal(&format!("o200k_base's pattern: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Texts that stress pre-tokenization: every character class the patterns name, runs of
    /// whitespace before and after text and at the end, contractions in both cases, digits in
    /// runs, CRLF, and a deterministic mix of them.
    fn texts() -> Vec<String> {
        let pieces = [
            "hello",
            " world",
            "  ",
            "\n",
            "\r\n",
            "\t",
            "   \n\n  ",
            "'s",
            "'LL",
            "'Re",
            "123456",
            "3.14",
            "日本語",
            "한국어",
            "Ünïcödé",
            "émoji 🌱🚀",
            "\u{200d}",
            "a\u{301}",
            "ΑΒΓ",
            "{\"k\": [1, 2]}",
            "fn main() {}",
            "<tag attr=\"x\">",
            "--flag=value",
            "    indented",
            "UPPER lower MiXeD",
            "!!!",
            "...",
            "\u{a0}",
            "\u{2028}",
            "ﬁ",
            "x".repeat(300).leak(),
            " ".repeat(257).leak(),
        ];
        let mut out: Vec<String> = pieces.iter().map(|p| p.to_string()).collect();
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..3000 {
            let mut s = String::new();
            for _ in 0..(state % 12) {
                state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                s.push_str(pieces[(state >> 33) as usize % pieces.len()]);
            }
            out.push(s);
        }
        out
    }

    #[test]
    fn prebuilt_tokenizers_count_as_tiktoken_builds_them() {
        let reference = tiktoken_rs::o200k_base().unwrap_or_else(|e| panic!("{e}"));
        let prebuilt = build(Encoding::O200kBase).unwrap_or_else(|e| panic!("{e:?}"));
        assert!(matches!(prebuilt, Bpe::Prebuilt(_)));
        for t in texts() {
            assert_eq!(prebuilt.count(&t), reference.count_ordinary(&t), "o200k_base on {t:?}");
        }
    }

    /// The re-encoded tables and the patterns written here are `bpe-openai`'s own.
    #[test]
    fn the_re_encoded_tokenizer_counts_as_bpe_openais() {
        let ours = o200k_base().unwrap_or_else(|e| panic!("{e:?}"));
        let theirs = bpe_openai::o200k_base();
        for t in texts() {
            assert_eq!(ours.count(t.as_str()), theirs.count(t.as_str()), "o200k_base on {t:?}");
        }
    }
}
