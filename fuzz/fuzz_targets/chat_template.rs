//! Chat template sources (`--chat-template`, `chat_templates:`): the guard, compiling and
//! rendering in transformers' environment, on fuel with the output capped.
#![no_main]

libfuzzer_sys::fuzz_target!(|text: &str| promptc::fuzz::chat_template(text));
