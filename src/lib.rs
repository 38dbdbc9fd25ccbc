//! promptc: a prompt compiler and inspector for LLM agents.
//!
//! The modules are layers that follow the data, each importing only from the layers listed
//! before it (a test enforces the order; ARCHITECTURE.md is the map):
//!
//! | layer | what it holds |
//! |---|---|
//! | foundation: [`error`], [`diagnostic`], [`code`], [`json`], [`hash`] | errors, located diagnostics, lint codes, output helpers |
//! | [`source`] | reading project files safely and parsing YAML with limits |
//! | [`model`] | the typed project: profiles, sections, slots, catalog, parameters, conditions, selection, budgets |
//! | [`load`](mod@load) | the raw file formats and the loader that validates them into the model |
//! | [`resolve`] | a request resolved into one typed cell; the matrix of cells |
//! | [`render`] | templates rendered with the cell's context, untrusted content, slots |
//! | [`projection`] | the tools as each provider's JSON, XML docs, JSON actions; provider limits |
//! | [`compile`](mod@compile) | the pipeline of one cell: resolve → render → project |
//! | [`measure`] | tokens, budgets, the report data |
//! | [`output`] | artifacts, snapshots, frozen records, tables and report formats |
//! | [`lint`], [`diff`] | `check`'s rules; comparing with snapshots |
//!
//! ```
//! use promptc::{compile, load, Request, Transport};
//!
//! let project = load(std::path::Path::new("profiles"))?;
//! let cell = compile(&project, &Request::default())?;
//! assert!(cell.prompt.starts_with("You are Forge"));
//! assert_eq!(cell.projection.is_some(), cell.transport == Transport::Native);
//! # Ok::<(), promptc::Error>(())
//! ```

pub mod code;
pub mod diagnostic;
pub mod error;
pub mod hash;
pub mod json;

pub mod source;

pub mod model;

pub mod load;

pub mod resolve;

pub mod render;

pub mod projection;

pub mod compile;

pub mod measure;

pub mod output;

pub mod diff;
pub mod lint;

mod facade;

pub use compile::Compiled;
pub use error::{Error, ErrorKind, Result};
pub use facade::*;
pub use model::{Project, Provider, Transport};
pub use resolve::Request;
