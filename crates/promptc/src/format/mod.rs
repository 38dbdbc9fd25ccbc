//! The project's files as they are written on disk: serde types for `promptc.yaml`
//! (`manifest`, its per-entry types in `entries`), tool catalog files (`tool`) and `--context`
//! files (`context`), with the enums their values take (`values`).
//!
//! These types only describe shape; every cross-reference and rule is checked by the loader
//! (`load`) when they are turned into the validated model. The editor JSON Schema
//! (`promptc schema`) is derived from the same types (`schema`), so a key is declared once.

pub mod context;
pub mod entries;
pub mod manifest;
pub mod schema;
pub mod tool;
pub mod values;

use serde_saphyr::Spanned;

/// A string with its location in the file it came from.
pub type S = Spanned<String>;
