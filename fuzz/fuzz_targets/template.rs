//! Template sources: the guard, compiling and rendering with output caps. A blow-up must end
//! in an error within the size and time limits.
#![no_main]

libfuzzer_sys::fuzz_target!(|text: &str| promptc::fuzz::template(text));
