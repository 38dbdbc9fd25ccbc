//! promptc: a prompt compiler and inspector for LLM agents.
//!
//! Data flows one way: [`project`] loads and validates a YAML project; [`context`] and
//! [`selection`] resolve the runtime switches, variables and profile; [`catalog`] picks the
//! active tools; [`render`] renders the sections; [`providers`] and [`xml`] project the tools;
//! [`artifact`] writes the result. [`compile`] strings the steps together for one cell.
//!
//! ```
//! use promptc::compile::{compile, Request};
//! use promptc::project::{self, Project};
//!
//! let manifest = project::discover(Some(std::path::Path::new("profiles")))?;
//! let project = Project::load(&manifest)?;
//! let cell = compile(&project, &Request::default())?;
//! assert!(cell.prompt.starts_with("You are Forge"));
//! assert_eq!(cell.projection.is_some(), cell.transport == promptc::transport::Transport::Native);
//! # Ok::<(), promptc::Error>(())
//! ```

pub mod actions;
pub mod artifact;
pub mod atomic;
pub mod budget;
pub mod catalog;
pub mod command;
pub mod compile;
pub mod condition;
pub mod context;
pub mod diagnostic;
pub mod diff;
pub mod error;
pub mod freeze;
pub mod init;
pub mod lint;
pub mod manifest;
pub mod project;
pub mod project_schema;
pub mod providers;
pub mod render;
pub mod report;
pub mod schema;
pub mod selection;
pub mod snapshot;
pub mod source;
pub mod template;
pub mod tokens;
pub mod transport;
pub mod untrusted;
pub mod xml;
pub mod yaml;

pub use error::{Error, Result};
