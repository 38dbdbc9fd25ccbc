//! Token marks: at a byte of a text, how many of the text's tokens start before it and how many
//! end by it. Every figure promptc prints for a part of a text is a difference of marks — a
//! section's tokens are those that start inside it, the cacheable prefix the tokens that end
//! before the first byte another session changes — so the parts of a text partition its count
//! by construction: they sum to it, and none is negative. A token that straddles a border
//! belongs to the part it starts in.
//!
//! The text is tokenised once, whole, as the provider's tokenizer would (never part by part,
//! which counts differently around the borders). o200k_base counts its chunks (see `chunks`):
//! no token crosses a cut, so only a chunk with a border strictly inside it is encoded token by
//! token; the others are counted, or found in the memo.

use super::chunks::{chunks, Memo};
use super::engine::Bpe;
use super::gemma::segments;

/// Tokens of a text before a byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Mark {
    /// Tokens that start before the byte.
    pub starts: u64,
    /// Tokens that end at or before it (`starts`, less one when a token straddles the byte).
    pub ends: u64,
}

impl Mark {
    /// The mark of a text's whole count.
    pub(crate) fn all(count: u64) -> Mark {
        Mark { starts: count, ends: count }
    }
}

/// The marks of `text` at `points` (byte offsets, sorted, at most `text.len()`), counted with
/// `bpe` and chunks remembered in `memo`.
pub(super) fn marks(bpe: &Bpe, memo: &mut Memo, text: &str, points: &[usize]) -> Vec<Mark> {
    match bpe {
        Bpe::Prebuilt(t) => by_chunks(memo, chunks(text), points, |c| t.count(c), |c| bpe.token_lens(c)),
        Bpe::Gemma(g) => by_chunks(memo, segments(text), points, |c| g.count(c), |c| g.token_lens(c)),
        Bpe::Built(_) => from_lens(&bpe.token_lens(text), 0, points),
    }
}

/// Marks over a text's chunks (in order, covering it): `count` counts a chunk, `lens` gives
/// its tokens' byte lengths.
fn by_chunks<'t>(
    memo: &mut Memo,
    chunks: impl Iterator<Item = &'t str>,
    points: &[usize],
    count: impl Fn(&str) -> usize,
    lens: impl Fn(&str) -> Vec<usize>,
) -> Vec<Mark> {
    let mut out = Vec::with_capacity(points.len());
    let mut next = points.iter().copied().peekable();
    let (mut start, mut before) = (0usize, 0u64);
    for chunk in chunks {
        let end = start + chunk.len();
        // Points at the chunk's start: every token so far ends there.
        while next.next_if(|&p| p <= start).is_some() {
            out.push(Mark::all(before));
        }
        let inside: Vec<usize> = std::iter::from_fn(|| next.next_if(|&p| p < end)).collect();
        let n = if inside.is_empty() {
            memo.chunk(chunk, &count) as u64
        } else {
            let l = lens(chunk);
            let rel: Vec<usize> = inside.iter().map(|p| p - start).collect();
            out.extend(from_lens(&l, before, &rel));
            l.len() as u64
        };
        before += n;
        start = end;
    }
    out.extend(next.map(|_| Mark::all(before)));
    out
}

/// Marks at `points` (bytes of a chunk with `before` tokens of the text before it) from the
/// chunk's tokens' byte lengths.
fn from_lens(lens: &[usize], before: u64, points: &[usize]) -> Vec<Mark> {
    let mut out = Vec::with_capacity(points.len());
    let (mut i, mut token_start, mut done) = (0usize, 0usize, 0u64);
    for &p in points {
        // Tokens that end by `p`.
        while i < lens.len() && token_start + lens[i] <= p {
            token_start += lens[i];
            i += 1;
            done += 1;
        }
        let straddles = i < lens.len() && token_start < p;
        out.push(Mark { starts: before + done + u64::from(straddles), ends: before + done });
    }
    out
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn o200k() -> &'static bpe_openai::Tokenizer {
        bpe_openai::o200k_base()
    }

    /// The marks of `text` at `points` from the whole text's tokens, encoded at once.
    fn whole(text: &str, points: &[usize]) -> Vec<Mark> {
        let t = o200k();
        let lens: Vec<usize> = t.encode(text).into_iter().map(|id| t.bpe.token_len(id)).collect();
        from_lens(&lens, 0, points)
    }

    /// The marks by chunks, through `memo`, as a run takes them.
    fn chunked(memo: &mut Memo, text: &str, points: &[usize]) -> Vec<Mark> {
        let t = o200k();
        let lens = |c: &str| t.encode(c).into_iter().map(|id| t.bpe.token_len(id)).collect();
        by_chunks(memo, chunks(text), points, |c| t.count(c), lens)
    }

    /// Char boundaries of `text` picked by `seeds` (sorted, with repeats, both ends allowed).
    fn points_of(text: &str, seeds: &[usize]) -> Vec<usize> {
        let bounds: Vec<usize> = (0..=text.len()).filter(|&i| text.is_char_boundary(i)).collect();
        let mut points: Vec<usize> = seeds.iter().map(|s| bounds[s % bounds.len()]).collect();
        points.sort_unstable();
        points
    }

    #[test]
    fn marks_from_token_lengths_count_starts_and_ends() {
        // Tokens: [0,3) [3,4) [4,8).
        let m = from_lens(&[3, 1, 4], 10, &[0, 2, 3, 5, 8]);
        let pairs: Vec<(u64, u64)> = m.iter().map(|m| (m.starts, m.ends)).collect();
        assert_eq!(pairs, [(10, 10), (11, 10), (11, 11), (13, 12), (13, 13)]);
    }

    proptest! {
        /// Marks taken chunk by chunk are the whole text's, at any points: prompts, JSON and
        /// text that straddles the chunks' rules (line feeds, punctuation, non-ASCII).
        #[test]
        fn marks_by_chunks_are_the_whole_texts(
            text in "([a-z]{1,6}|[ .,:{}\\[\\]\"]|\n|\n\n|é|日本|'s|123| {2,4}){0,60}",
            seeds in proptest::collection::vec(any::<usize>(), 0..8),
        ) {
            let points = points_of(&text, &seeds);
            let mut memo = Memo::default();
            prop_assert_eq!(chunked(&mut memo, &text, &points), whole(&text, &points));
            // Again through the memo that now holds the chunks.
            prop_assert_eq!(chunked(&mut memo, &text, &points), whole(&text, &points));
        }
    }

    /// Over every text a report of the example and every good fixture counts, marks at many
    /// points agree with the whole text's, and the mark at the end is the text's count.
    #[test]
    fn marks_by_chunks_are_the_whole_texts_over_the_example_and_the_fixtures() {
        let mut memo = Memo::default();
        let mut checked = 0;
        for text in crate::measure::tokens::chunks::tests::texts_of_the_example_and_the_fixtures() {
            let seeds: Vec<usize> = (0..24).map(|i| i * 7919 + text.len() / 3).collect();
            let mut points = points_of(&text, &seeds);
            points.push(text.len());
            let got = chunked(&mut memo, &text, &points);
            assert_eq!(got, whole(&text, &points), "{text:?}");
            assert_eq!(got.last().unwrap().starts, o200k().count(&text) as u64);
            checked += 1;
        }
        assert!(checked > 400, "{checked} texts");
    }
}
