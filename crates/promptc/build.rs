//! Prepares o200k_base's tables in a form that loads fast. `bpe-openai` ships them as
//! MessagePack, whose decoding (every byte of the token table read as a tagged number) is most
//! of a cold `promptc report`; the same tables written with postcard load in about 60% of the
//! time. The tables are `bpe-openai`'s own, decoded here once and written again: the counts are
//! unchanged (the tiktoken golden tests and a differential test against `bpe-openai` hold it).
//!
//! promptc only counts (`BytePairEncoding::count`, the backtracking encoder), which reads the
//! token lengths, the longest-match automaton, the split table, the pair lookup and the
//! next-prefix table. The other tables — the map from a token's bytes to its id and the two
//! automata that find every overlapping token, for encoders promptc never runs — are written
//! empty (a one-pattern automaton where one must be valid): decoding and hashing them was a
//! third of loading the tokenizer.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// `bpe::BytePairEncoding` field for field as postcard writes it: a struct is its fields in
/// order, a map a sequence of pairs, an automaton its bytes (written as postcard writes a
/// `Vec<u8>`: the length, then the bytes).
#[derive(Serialize, Deserialize)]
struct Tables {
    all_tokens: Vec<u8>,
    token_starts: Vec<u32>,
    bytes_hash_to_token: Vec<(u32, u32)>,
    split_table: Vec<(u32, u32)>,
    pair_lookup: Vec<((u32, u32), u32)>,
    longest_searcher: Vec<u8>,
    overlapping_searcher: Vec<u8>,
    overlapping_searcher_rev: Vec<u8>,
    next_prefix_match: Vec<u32>,
    hash_factor: u64,
}

fn main() {
    // ok: every expect below runs at compile time on tables embedded in bpe-openai (no user
    // input reaches a build script); failing loudly there is the only useful outcome.
    println!("cargo:rerun-if-changed=build.rs");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    gemma3::write(&out);
    let full = postcard::to_stdvec(&bpe_openai::o200k_base().bpe).expect("o200k_base's tables serialize");
    let mut tables: Tables = postcard::from_bytes(&full).expect("the tables read back field for field");
    assert_eq!(postcard::to_stdvec(&tables).expect("tables serialize"), full, "the mirror writes the same bytes");
    let tiny = daachorse::DoubleArrayAhoCorasick::<u32>::new(["\u{0}"]).expect("a one-pattern automaton").serialize();
    tables.bytes_hash_to_token = Vec::new();
    tables.overlapping_searcher = tiny.clone();
    tables.overlapping_searcher_rev = tiny;
    let stripped = postcard::to_stdvec(&tables).expect("tables serialize");
    std::fs::write(out.join("o200k_base.postcard"), stripped).expect("OUT_DIR is writable");
}

/// The Gemma 3 SentencePiece model (`models/`, see its SOURCES.json) as the tables promptc's
/// Gemini tokenizer reads (`src/measure/tokens/gemma.rs`): the pieces a merge may make —
/// normal and user-defined — sorted by their bytes, with their scores and which are
/// user-defined, so counting looks a piece up by binary search with nothing to build at run
/// time. The model is read with a few lines of protobuf decoding, and everything the tokenizer
/// takes for granted about it (BPE, byte fallback, the identity normalizer that only turns
/// spaces into `▁`, no unused pieces to re-segment) is checked here, so another model fails the
/// build instead of counting wrong.
mod gemma3 {
    use sha2::{Digest, Sha256};
    use std::path::Path;

    const MODEL: &str = "models/gemma3_cleaned_262144_v2.spiece.model";
    /// What google-genai's loader checks the file against (`_TOKENIZERS["gemma3"]`).
    const SHA256: &str = "1299c11d7cf632ef3b4e11937501358ada021bbdf7c47638d13c0ee982f2e79c";

    /// One field of a protobuf message: its number and its value (a varint, or the bytes of a
    /// length-delimited field, or a fixed32's bits).
    enum Field<'a> {
        Varint(u64),
        Bytes(&'a [u8]),
        Fixed32(u32),
    }

    fn varint(b: &[u8], at: &mut usize) -> u64 {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = b[*at];
            *at += 1;
            v |= u64::from(byte & 0x7f) << shift;
            if byte < 0x80 {
                break;
            }
        }
        v
    }

    fn fields(b: &[u8]) -> Vec<(u64, Field<'_>)> {
        let mut at = 0;
        let mut out = Vec::new();
        while at < b.len() {
            let key = varint(b, &mut at);
            let value = match key & 7 {
                0 => Field::Varint(varint(b, &mut at)),
                1 => {
                    at += 8;
                    continue;
                }
                2 => {
                    let n = varint(b, &mut at) as usize;
                    at += n;
                    Field::Bytes(&b[at - n..at])
                }
                5 => {
                    at += 4;
                    Field::Fixed32(u32::from_le_bytes(b[at - 4..at].try_into().expect("four bytes")))
                }
                t => panic!("{MODEL}: protobuf wire type {t}"),
            };
            out.push((key >> 3, value));
        }
        out
    }

    fn varint_of(fs: &[(u64, Field)], n: u64) -> Option<u64> {
        fs.iter().find_map(|(k, v)| match v {
            Field::Varint(x) if *k == n => Some(*x),
            _ => None,
        })
    }

    fn bytes_of<'a>(fs: &[(u64, Field<'a>)], n: u64) -> Option<&'a [u8]> {
        fs.iter().find_map(|(k, v)| match v {
            Field::Bytes(x) if *k == n => Some(*x),
            _ => None,
        })
    }

    pub(super) fn write(out: &Path) {
        println!("cargo:rerun-if-changed={MODEL}");
        let model = std::fs::read(MODEL).expect("the Gemma 3 model is in models/");
        let digest: String = Sha256::digest(&model).iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(digest, SHA256, "{MODEL} is not the model google-genai checks for");
        let top = fields(&model);
        let trainer = fields(bytes_of(&top, 2).expect("a trainer spec"));
        let normalizer = fields(bytes_of(&top, 3).expect("a normalizer spec"));
        assert_eq!(varint_of(&trainer, 3), Some(2), "a BPE model");
        assert_eq!(varint_of(&trainer, 35), Some(1), "byte fallback");
        assert_eq!(varint_of(&trainer, 24).unwrap_or(0), 0, "whitespace as a prefix, not a suffix");
        assert_eq!(bytes_of(&normalizer, 1), Some(&b"identity"[..]), "the identity normalizer");
        assert!(bytes_of(&normalizer, 2).is_none_or(<[u8]>::is_empty), "no character map");
        assert_eq!(varint_of(&normalizer, 3), Some(0), "no dummy prefix");
        assert_eq!(varint_of(&normalizer, 4), Some(0), "extra whitespace kept");
        assert_eq!(varint_of(&normalizer, 5).unwrap_or(1), 1, "spaces escaped as U+2581");
        // (bytes, score, user-defined) of every piece a merge may make.
        let mut pieces: Vec<(&[u8], f32, bool)> = Vec::new();
        for (k, v) in &top {
            let (1, Field::Bytes(p)) = (k, v) else { continue };
            let f = fields(p);
            let score = f.iter().find_map(|(k, v)| match v {
                Field::Fixed32(x) if *k == 2 => Some(f32::from_bits(*x)),
                _ => None,
            });
            // Types: 1 normal (the default), 2 unknown, 3 control, 4 user-defined, 5 unused, 6 byte.
            match varint_of(&f, 3).unwrap_or(1) {
                t @ (1 | 4) => pieces.push((bytes_of(&f, 1).unwrap_or_default(), score.unwrap_or(0.0), t == 4)),
                5 => panic!("{MODEL}: unused pieces would need re-segmenting"),
                _ => {}
            }
        }
        pieces.sort_by(|a, b| a.0.cmp(b.0));
        assert!(pieces.windows(2).all(|w| w[0].0 != w[1].0), "each piece once");
        write_joins(out, &pieces);
        let mut table = Vec::new();
        table.extend((pieces.len() as u32).to_le_bytes());
        let mut end = 0u32;
        table.extend(0u32.to_le_bytes());
        for (p, ..) in &pieces {
            end += p.len() as u32;
            table.extend(end.to_le_bytes());
        }
        pieces.iter().for_each(|(_, s, _)| table.extend(s.to_le_bytes()));
        pieces.iter().for_each(|(.., u)| table.push(u8::from(*u)));
        pieces.iter().for_each(|(p, ..)| table.extend_from_slice(p));
        std::fs::write(out.join("gemma3.pieces"), table).expect("OUT_DIR is writable");
    }

    /// Which two characters stand side by side inside some piece (`gemma3.joins`): where two
    /// neighbours never do, no symbol can span them, so `gemma::segments` cuts there. Written as
    /// a bitmap of ASCII pairs (`a * 128 + b`, 2,048 bytes), then the other pairs as sorted
    /// little-endian `u64`s (`a << 32 | b`). Spaces are `▁` here, as in the normalized text.
    fn write_joins(out: &Path, pieces: &[(&[u8], f32, bool)]) {
        let mut ascii = vec![0u8; 128 * 128 / 8];
        let mut other = std::collections::BTreeSet::new();
        for (p, ..) in pieces {
            let p = std::str::from_utf8(p).expect("every piece a merge may make is UTF-8");
            let chars: Vec<u32> = p.chars().map(u32::from).collect();
            for w in chars.windows(2) {
                if w[0] < 128 && w[1] < 128 {
                    let i = (w[0] * 128 + w[1]) as usize;
                    ascii[i / 8] |= 1 << (i % 8);
                } else {
                    other.insert(u64::from(w[0]) << 32 | u64::from(w[1]));
                }
            }
        }
        let mut table = ascii;
        other.iter().for_each(|pair| table.extend(pair.to_le_bytes()));
        std::fs::write(out.join("gemma3.joins"), table).expect("OUT_DIR is writable");
    }
}
