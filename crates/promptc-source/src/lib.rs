//! promptc's foundation: what every other crate reports through.
//!
//! - [`source`]: a project's files, read safely (paths cleaned, no link followed out of the
//!   project, sizes capped) and written atomically, with their text kept for spans; YAML read
//!   with positions, and the mistakes a YAML slip makes explained.
//! - [`diagnostic`]: located diagnostics (file, line, column, snippet, help) and their spans.
//! - [`error`]: the one error type, an [`error::ErrorKind`] and its diagnostics.
//! - [`code`]: the lint rule codes diagnostics carry; [`hash`] and [`json`]: the stable hashes
//!   and JSON forms the caches and outputs share.
//!
//! Nothing here knows what a prompt is: the template engine (`promptc-template`) and the compiler
//! (`promptc-compiler`) build on it, and it depends on neither.

// A library returns data and lets its caller print and exit.
#![deny(clippy::print_stdout, clippy::print_stderr, clippy::exit)]

pub mod code;
pub mod diagnostic;
pub mod error;
pub mod hash;
pub mod json;
pub mod source;
