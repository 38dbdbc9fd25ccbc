//! Code actions and inlay hints. A code action applies the did-you-mean suggestion a
//! diagnostic carries (in its `data`); inlay hints show what a tool or a section costs — after
//! a tool's `name:` in its tool file, at the top of a section's template — as the range of its
//! figures over the cells that have it.

use std::collections::HashMap;

use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, Diagnostic, InlayHint, InlayHintKind, InlayHintLabel, Position,
    TextEdit, Uri, WorkspaceEdit,
};
use promptc::report::Account;
use promptc::SymbolKind;

use super::diagnostics::SUGGESTION;
use super::state::State;
use super::text::{offset, position, range};

/// The quick fixes for the diagnostics the client sends back (those of document `uri`).
pub(crate) fn code_actions(
    state: &State,
    uri: &Uri,
    rel: &str,
    diagnostics: &[Diagnostic],
) -> Vec<CodeActionOrCommand> {
    let Some(text) = state.text(rel) else { return Vec::new() };
    let mut out = Vec::new();
    for d in diagnostics {
        let Some(name) = d.data.as_ref().and_then(|v| v.get(SUGGESTION)).and_then(|v| v.as_str()) else { continue };
        let (mut start, mut end) = (offset(&text, d.range.start, state.enc), offset(&text, d.range.end, state.enc));
        // The underline of a name in a template covers its quotes: the name is inside them.
        let quoted = &text[start..end];
        let quotes = |q: char| quoted.starts_with(q) && quoted.ends_with(q);
        if quoted.len() >= 2 && (quotes('"') || quotes('\'')) {
            start += 1;
            end -= 1;
        }
        let edit = TextEdit::new(range(&text, start, end, state.enc), name.to_string());
        out.push(CodeActionOrCommand::CodeAction(CodeAction {
            title: format!("Change to `{name}`"),
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(vec![d.clone()]),
            edit: Some(WorkspaceEdit {
                changes: Some(HashMap::from([(uri.clone(), vec![edit])])),
                ..Default::default()
            }),
            is_preferred: Some(true),
            ..CodeAction::default()
        }));
    }
    out
}

/// `380–412 tokens` (or `412 tokens`) over the cells where `figure` has a value.
fn spread(accounts: &[Account], figure: impl Fn(&Account) -> Option<u64>) -> Option<String> {
    let values: Vec<u64> = accounts.iter().filter_map(figure).collect();
    let (min, max) = (values.iter().min()?, values.iter().max()?);
    let cells = format!("{} of {} cells", values.len(), accounts.len());
    Some(if min == max { format!("{min} tokens ({cells})") } else { format!("{min}–{max} tokens ({cells})") })
}

fn hint(at: Position, label: String) -> InlayHint {
    InlayHint {
        position: at,
        label: InlayHintLabel::String(label),
        kind: None,
        text_edits: None,
        tooltip: None,
        padding_left: Some(true),
        padding_right: Some(true),
        data: None,
    }
}

/// The inlay hints of file `rel`.
pub(crate) fn inlay_hints(state: &State, rel: &str) -> Vec<InlayHint> {
    let (Some(analysis), Some(text)) = (state.analysis.as_ref(), state.text(rel)) else { return Vec::new() };
    if !state.hints || analysis.accounts.is_empty() {
        return Vec::new();
    }
    let accounts = &analysis.accounts;
    let mut out = Vec::new();
    for sym in &analysis.symbols {
        if sym.kind == SymbolKind::Tool && sym.file == rel {
            let figure = |a: &Account| a.tools.iter().find(|t| t.name == sym.name).map(|t| t.sent.tokens);
            let end_of_line = text[sym.end..].find('\n').map_or(text.len(), |i| sym.end + i);
            let label = spread(accounts, figure).unwrap_or_else(|| "in no cell".into());
            out.push(InlayHint {
                kind: Some(InlayHintKind::TYPE),
                ..hint(position(&text, end_of_line, state.enc), label)
            });
        }
        if sym.kind == SymbolKind::Section && sym.text_file.as_deref() == Some(rel) {
            let figure = |a: &Account| a.sections.iter().find(|s| s.id == sym.name).map(|s| s.sent.tokens);
            let label =
                format!("section {}: {}", sym.name, spread(accounts, figure).unwrap_or_else(|| "in no cell".into()));
            out.push(hint(Position::new(0, 0), label));
        }
    }
    out
}
