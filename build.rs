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
