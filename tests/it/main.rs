//! The integration tests, one binary (linked once, its tests run in one pool): a module per
//! subject, and `common`, the helpers they share (the benchmarks include it too).

mod common;

mod accounting;
mod bad_input;
mod chat;
mod check;
mod cli;
mod compile_cache;
mod composition;
mod conformance;
mod design_notes;
mod docs;
mod edges;
mod fuzz_seeds;
mod hostile;
mod html;
mod import;
mod layers;
mod library;
mod lsp;
mod render;
mod report;
mod requests;
mod review;
mod roles;
mod snapshot;
mod templates;
mod terminal;
mod tokens_golden;
