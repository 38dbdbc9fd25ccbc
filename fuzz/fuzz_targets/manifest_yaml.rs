//! The manifest's YAML into the raw manifest types: alias bombs, deep nesting, odd scalars.
#![no_main]

libfuzzer_sys::fuzz_target!(|text: &str| promptc::fuzz::manifest_yaml(text));
