//! Hover: what a name is (its kind, description and declaration's facts) and, for tools and
//! sections, what it costs in each cell of the matrix — from the accounts `report --matrix`
//! makes, grouped by figure so one line says "412 tokens in standard.native.openai, …; 0 in
//! lite.…".

use std::collections::BTreeMap;

use lsp_types::{Hover, HoverContents, MarkupContent, MarkupKind};
use promptc::report::Account;
use promptc::{Symbol, SymbolKind};

use super::lookup::{target_at, Target};
use super::state::{Analysis, State};
use super::text::range;

/// Cell names shown per figure before "and N more".
const NAMES_SHOWN: usize = 4;

/// The hover of byte `at` of project file `rel`.
pub(crate) fn hover(state: &State, rel: &str, at: usize) -> Option<Hover> {
    let analysis = state.analysis.as_ref()?;
    let text = state.text(rel)?;
    let markdown = |value| HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value });
    let Some((target, word)) = target_at(analysis, rel, &text, at) else {
        // Anywhere else in a section's template: the section.
        let section = section_of(analysis, rel)?;
        return Some(Hover { contents: markdown(symbol_text(analysis, section)), range: None });
    };
    let value = match target {
        Target::Symbol(i) => symbol_text(analysis, &analysis.symbols[i]),
        Target::File(file) => match section_of(analysis, &file) {
            Some(section) => symbol_text(analysis, section),
            None => file_text(analysis, &file),
        },
    };
    Some(Hover { contents: markdown(value), range: Some(range(&text, word.start, word.end, state.enc)) })
}

/// The section whose text is file `rel`, when exactly one is.
fn section_of<'a>(analysis: &'a Analysis, rel: &str) -> Option<&'a Symbol> {
    let mut sections = analysis.symbols.iter().filter(|s| s.text_file.as_deref() == Some(rel));
    let first = sections.next()?;
    sections.next().is_none().then_some(first)
}

/// `figure` of each account (`None`: the item is not in that cell, 0), grouped by figure, the
/// largest first: `412 tokens in a, b; 0 in c`.
pub(crate) fn per_cell(accounts: &[Account], figure: impl Fn(&Account) -> Option<u64>) -> String {
    let mut groups: BTreeMap<std::cmp::Reverse<u64>, Vec<&str>> = BTreeMap::new();
    for a in accounts {
        groups.entry(std::cmp::Reverse(figure(a).unwrap_or(0))).or_default().push(&a.name);
    }
    let mut parts = Vec::new();
    for (i, (std::cmp::Reverse(n), names)) in groups.iter().enumerate() {
        let unit = if i == 0 { " tokens" } else { "" };
        let shown = names.iter().take(NAMES_SHOWN).copied().collect::<Vec<_>>().join(", ");
        let more = names.len().saturating_sub(NAMES_SHOWN);
        let more = if more > 0 { format!(" and {more} more") } else { String::new() };
        parts.push(format!("{n}{unit} in {shown}{more}"));
    }
    parts.join("; ")
}

/// A section's figure in an account, and whether it is inside the cacheable prefix there.
fn section_in(a: &Account, id: &str) -> Option<(u64, bool)> {
    let at = a.sections.iter().position(|s| s.id == id)?;
    let cacheable = match &a.cache.breakpoint_after {
        Some(last) => a.sections.iter().position(|s| &s.id == last).is_some_and(|b| at <= b),
        None => false,
    };
    Some((a.sections[at].sent.tokens, cacheable))
}

fn symbol_text(analysis: &Analysis, sym: &Symbol) -> String {
    let mut out = format!("**{} `{}`**", sym.kind.name(), sym.name);
    if !sym.detail.is_empty() {
        out.push_str(&format!(" — {}", sym.detail));
    }
    if !sym.description.is_empty() {
        out.push_str(&format!("\n\n{}", sym.description.trim()));
    }
    let accounts = &analysis.accounts;
    match sym.kind {
        SymbolKind::Tool if !accounts.is_empty() => {
            let figure = |a: &Account| a.tools.iter().find(|t| t.name == sym.name).map(|t| t.sent.tokens);
            out.push_str(&format!("\n\n{}", per_cell(accounts, figure)));
        }
        SymbolKind::Section if !accounts.is_empty() => {
            out.push_str(&format!("\n\n{}", per_cell(accounts, |a| section_in(a, &sym.name).map(|s| s.0))));
            let cached: Vec<&str> =
                accounts.iter().filter(|a| section_in(a, &sym.name).is_some_and(|s| s.1)).map(|a| &*a.name).collect();
            let shown = accounts.iter().filter(|a| section_in(a, &sym.name).is_some()).count();
            out.push_str(&format!(
                "\n\nIn the cacheable prefix in {} of the {shown} cells that show it{}",
                cached.len(),
                if cached.is_empty() || cached.len() == shown {
                    String::new()
                } else {
                    format!(": {}", cached.join(", "))
                }
            ));
        }
        SymbolKind::Switch | SymbolKind::Variable => {
            let set = if sym.set_by.is_empty() { "no case".to_string() } else { sym.set_by.join(", ") };
            out.push_str(&format!("\n\nSet by the cases: {set}"));
        }
        _ => {}
    }
    out.push_str(&format!("\n\nDeclared in `{}`", sym.file));
    out
}

fn file_text(analysis: &Analysis, file: &str) -> String {
    let sections: Vec<&str> =
        analysis.symbols.iter().filter(|s| s.text_file.as_deref() == Some(file)).map(|s| s.name.as_str()).collect();
    let mut out = format!("**file `{file}`**");
    if !sections.is_empty() {
        out.push_str(&format!("\n\nThe text of section {}", sections.join(", ")));
    }
    out
}
