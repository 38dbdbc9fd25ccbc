//! `when:` expressions: parse, evaluate, list names. Deep nesting must be an error, not a
//! stack overflow.
#![no_main]

libfuzzer_sys::fuzz_target!(|text: &str| promptc::fuzz::condition(text));
