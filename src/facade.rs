//! The library facade: the few calls another program needs, each a thin composition of the
//! layers. The CLI and the language bindings are built on these.

use std::path::Path;

use crate::compile::Compiled;
use crate::error::Result;
use crate::model::Project;
use crate::resolve::Request;

/// Load and validate the project at `path`: a folder holding `promptc.yaml`, or the manifest
/// itself.
pub fn load(path: &Path) -> Result<Project> {
    Project::load(&crate::load::discover(Some(path))?)
}

/// Compile one cell: resolve the request against the project, render the prompt, project the
/// tools.
pub fn compile(project: &Project, request: &Request) -> Result<Compiled> {
    crate::compile::compile(project, request)
}
