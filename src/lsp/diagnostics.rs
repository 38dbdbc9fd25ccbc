//! promptc's diagnostics as the protocol's: one list per document, each on the range its label
//! points at, the rule code as `code`, the notes and help under the message, and a
//! did-you-mean suggestion kept in `data` for the code action that applies it, with the suggested
//! name's declaration as related information.

use std::collections::BTreeMap;

use lsp_server::Notification;
use lsp_types::{
    Diagnostic as LspDiagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString,
    PublishDiagnosticsParams, Range,
};
use promptc::{Diagnostic, Severity};

use super::state::State;
use super::text::{range, span_of};

/// What a code action needs to apply a diagnostic's suggestion: the name to write instead.
pub(crate) const SUGGESTION: &str = "replaceWith";

/// The name a help line suggests (`did you mean `list_files`? …`).
fn suggestion(help: &str) -> Option<&str> {
    let rest = help.split("did you mean `").nth(1)?;
    rest.split('`').next().filter(|s| !s.is_empty())
}

/// Where a diagnostic lands: the project-relative file (the manifest when it names none) and
/// the byte range there.
fn place(state: &State, d: &Diagnostic) -> (String, Option<(usize, usize)>) {
    let manifest = state.manifest_rel();
    let Some(label) = &d.label else { return (manifest, None) };
    let path = std::path::Path::new(&label.file);
    let absolute = if path.is_absolute() { path.to_path_buf() } else { state.root.join(path) };
    let Ok(rest) = absolute.strip_prefix(&state.root) else { return (manifest, None) };
    let rel = rest.to_string_lossy().replace('\\', "/");
    let span = label.position.and_then(|p| {
        let text = state.text(&rel)?;
        Some(span_of(&text, p.line, p.column, p.len))
    });
    (rel, span)
}

/// One diagnostic in the protocol's terms.
fn convert(state: &State, d: &Diagnostic, span: Option<(usize, usize)>, text: Option<&str>) -> LspDiagnostic {
    let range = match (span, text) {
        (Some((start, end)), Some(text)) => range(text, start, end, state.enc),
        _ => Range::default(),
    };
    let mut message = d.message.clone();
    for note in &d.notes {
        message.push_str(&format!("\nnote: {note}"));
    }
    if let Some(help) = &d.help {
        message.push_str(&format!("\nhelp: {help}"));
    }
    let suggested = d.help.as_deref().and_then(suggestion);
    let data = suggested.map(|s| serde_json::json!({ SUGGESTION: s }));
    let related = suggested.and_then(|s| declared(state, s)).map(|at| vec![at]);
    LspDiagnostic {
        range,
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
            // Notes, and any kind a later promptc adds, inform without asking for a fix.
            _ => DiagnosticSeverity::INFORMATION,
        }),
        code: d.code.map(|c| NumberOrString::String(c.to_string())),
        source: Some("promptc".into()),
        message,
        data,
        related_information: related,
        ..LspDiagnostic::default()
    }
}

/// Where the name a suggestion names is declared, as related information.
fn declared(state: &State, name: &str) -> Option<DiagnosticRelatedInformation> {
    let sym = state.analysis.as_ref()?.symbols.iter().find(|s| s.name == name)?;
    let text = state.text(&sym.file)?;
    Some(DiagnosticRelatedInformation {
        location: Location::new(state.uri(&sym.file), range(&text, sym.start, sym.end, state.enc)),
        message: format!("{} `{name}` is declared here", sym.kind.name()),
    })
}

/// The diagnostics of every document that has some, by project-relative path, each list in
/// the order promptc reports them.
pub(crate) fn by_file(state: &State) -> BTreeMap<String, Vec<LspDiagnostic>> {
    let mut out: BTreeMap<String, Vec<LspDiagnostic>> = BTreeMap::new();
    let mut texts: BTreeMap<String, Option<String>> = BTreeMap::new();
    for d in &state.diagnostics() {
        let (rel, span) = place(state, d);
        let text = texts.entry(rel.clone()).or_insert_with(|| state.text(&rel));
        let converted = convert(state, d, span, text.as_deref());
        // The same finding in many cells is one diagnostic on its line.
        let list = out.entry(rel).or_default();
        if !list.contains(&converted) {
            list.push(converted);
        }
    }
    out
}

/// The notifications that bring the client up to date: each document with diagnostics gets
/// its list, each that had some last time and has none now an empty one, and so does each open
/// document (so the editor knows its text was analysed, even when nothing is wrong).
pub(crate) fn publish(state: &mut State) -> Vec<Notification> {
    let mut lists = by_file(state);
    for rel in state.docs.keys() {
        lists.entry(rel.clone()).or_default();
    }
    let mut out = Vec::new();
    for rel in state.published.iter().filter(|r| !lists.contains_key(*r)) {
        out.push(notification(state, rel, Vec::new()));
    }
    for (rel, list) in &lists {
        out.push(notification(state, rel, list.clone()));
    }
    state.published = lists.into_iter().filter(|(_, l)| !l.is_empty()).map(|(rel, _)| rel).collect();
    out
}

fn notification(state: &State, rel: &str, diagnostics: Vec<LspDiagnostic>) -> Notification {
    let params = PublishDiagnosticsParams { uri: state.uri(rel), diagnostics, version: None };
    Notification::new("textDocument/publishDiagnostics".into(), params)
}
