//! Frozen records: written for a running agent, read back, and verified against the project.

use std::path::Path;

use crate::diagnostic::Diagnostic;
use crate::error::{Error, Result};
use crate::model::Project;
use crate::output::freeze::{FrozenRecord, Verdict};
use crate::resolve::Request;

use super::compile;
use super::tokens::TokenCounter;

/// Freeze the request's cell: the record a running agent keeps, to [`verify`] later, with its
/// account (what it costs, as `report` gives it). Sub-agent prompts are never frozen: a
/// sub-agent renders a fresh prompt for each run.
pub fn freeze(project: &Project, request: &Request, tokens: &mut TokenCounter) -> Result<FrozenRecord> {
    if request.subagent.is_some() {
        return Err(Error::usage(
            Diagnostic::error("sub-agent prompts are never frozen")
                .with_help("a sub-agent renders a fresh prompt for each run; freeze the main prompt instead"),
        ));
    }
    let compiled = compile(project, request)?;
    let model = request.model.clone().or_else(|| compiled.runtime.model.clone());
    let (tokenizer, _) = crate::measure::account::tokenizer_for(project, compiled.provider, model.as_deref(), None);
    let account = crate::measure::account::account(
        project,
        &compiled,
        compiled.provider,
        &tokenizer,
        model.as_deref(),
        &mut tokens.counters,
    )?;
    crate::output::freeze::record(project, &compiled, Some(&account))
}

/// Write a frozen record to `path` (atomically: an interrupted write leaves the old file).
pub fn write_record(record: &FrozenRecord, path: &Path) -> Result<()> {
    crate::source::atomic::write(path, record.to_json().as_bytes())
}

/// Read a frozen record, refusing unreadable, malformed and newer-format files.
pub fn read_record(path: &Path) -> Result<FrozenRecord> {
    crate::output::freeze::read(path)
}

/// Parse a frozen record from its JSON text, with the checks of [`read_record`]; `display`
/// names it in messages.
pub fn parse_record(text: &str, display: &str) -> Result<FrozenRecord> {
    crate::output::freeze::parse(text, display)
}

/// Whether a frozen record is still what the project compiles for the same request, and if
/// not, every reason why.
pub fn verify(project: &Project, record: &FrozenRecord) -> Result<Verdict> {
    crate::output::freeze::verify(project, record)
}
