//! Counting by chunks (`measure::tokens::chunks`): any text counts the same with o200k_base
//! cut at the places the chunker chooses as whole. The dictionary's JSON and markdown pieces
//! bring the punctuation runs and line breaks where the cuts are made.
#![no_main]

libfuzzer_sys::fuzz_target!(|text: &str| promptc::fuzz::chunked_count(text));
