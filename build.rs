//! Prepares o200k_base's tables in a form that loads fast. `bpe-openai` ships them as
//! MessagePack, whose decoding (every byte of the token table read as a tagged number) is most
//! of a cold `promptc report`; the same tables written with postcard load in about 60% of the
//! time. The tables are `bpe-openai`'s own, decoded here once and written again: the counts are
//! unchanged (the tiktoken golden tests and a differential test against `bpe-openai` hold it).

use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let tables = postcard::to_stdvec(&bpe_openai::o200k_base().bpe).expect("o200k_base's tables serialize");
    std::fs::write(out.join("o200k_base.postcard"), tables).expect("OUT_DIR is writable");
}
