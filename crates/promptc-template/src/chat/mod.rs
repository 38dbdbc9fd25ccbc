//! Chat templates, as transformers applies them: where one comes from (a `.jinja` file, or a
//! `tokenizer_config.json`'s named ones and special tokens), the date `strftime_now` reads, where
//! minijinja would not do what Python's Jinja2 does (found once, at load), the Markup rewrite,
//! and the environment a chat template renders in. The compiler's `chat` step gives it a
//! compiled cell's messages and tools.

mod date;
pub mod differences;
mod env;
pub mod markup;
mod template;

pub use date::ChatDate;
pub use env::render;
pub use template::{ChatTemplate, Chosen, MAX_TEMPLATE_FILE};
