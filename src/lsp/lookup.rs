//! What the text at a position names: a declaration of the project (a tool, section, switch,
//! …) or a project file. The library says where each name is declared ([`promptc::symbols`]);
//! this reads only the word under the cursor and what stands right before it (`switches.`),
//! since a name in a template or a description is prose the model has no span for.

use promptc::{Symbol, SymbolKind};

use super::state::Analysis;

/// What a position names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// A declaration: its index in [`Analysis::symbols`].
    Symbol(usize),
    /// A project file, by project-relative path.
    File(String),
}

/// A name's byte range in its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Word {
    pub(crate) start: usize,
    pub(crate) end: usize,
}

fn is_name(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-'
}

fn is_path(c: char) -> bool {
    is_name(c) || c == '.' || c == '/'
}

/// The run of characters `keep` accepts around byte `at` of `text`.
fn run_at(text: &str, at: usize, keep: fn(char) -> bool) -> Option<Word> {
    let at = at.min(text.len());
    if !text.is_char_boundary(at) {
        return None;
    }
    let start = text[..at].char_indices().rev().take_while(|(_, c)| keep(*c)).last().map_or(at, |(i, _)| i);
    let end = text[at..].char_indices().find(|(_, c)| !keep(*c)).map_or(text.len(), |(i, _)| at + i);
    (end > start).then_some(Word { start, end })
}

/// The name (letters, digits, `_`, `-`) at byte `at`.
pub(crate) fn word_at(text: &str, at: usize) -> Option<Word> {
    run_at(text, at, is_name)
}

/// Whether a file holds templates (promptc's own YAML files hold names, not template code).
pub(crate) fn is_template(rel: &str) -> bool {
    !(rel.ends_with(".yaml") || rel.ends_with(".yml"))
}

/// The order in which kinds claim a name used in a file: in templates a bare name is a tool in
/// a string, else a variable or a switch read as a name; in YAML a section in a profile's list
/// comes before a variable of the same name.
fn kinds(rel: &str) -> &'static [SymbolKind] {
    use SymbolKind::*;
    if is_template(rel) {
        &[Tool, Variable, Switch, Section, Profile, Case, Slot]
    } else {
        &[Tool, Section, Switch, Variable, Profile, Case, Slot]
    }
}

/// What the text of file `rel` names at byte `at`, and the name's range.
pub(crate) fn target_at(analysis: &Analysis, rel: &str, text: &str, at: usize) -> Option<(Target, Word)> {
    let symbols = &analysis.symbols;
    // On a declaration itself.
    if let Some(i) = symbols.iter().position(|s| s.file == rel && s.start <= at && at <= s.end) {
        return Some((Target::Symbol(i), Word { start: symbols[i].start, end: symbols[i].end }));
    }
    if let Some(word) = word_at(text, at) {
        let name = &text[word.start..word.end];
        let before = &text[..word.start];
        let kind_first = if before.ends_with("switches.") {
            Some(SymbolKind::Switch)
        } else if before.ends_with("variables.") {
            Some(SymbolKind::Variable)
        } else {
            None
        };
        let order = kind_first.into_iter().chain(kinds(rel).iter().copied());
        for kind in order {
            if let Some(i) = find(symbols, kind, name) {
                return Some((Target::Symbol(i), word));
            }
        }
    }
    // A file named by a path: a section's `template:`, a `tools:` entry, an include.
    let word = run_at(text, at, is_path)?;
    let path = text[word.start..word.end].trim_matches('.');
    let files = analysis.project.file_paths();
    let file =
        files.iter().find(|f| **f == path).or_else(|| files.iter().find(|f| f.ends_with(&format!("/{path}"))))?;
    Some((Target::File(file.to_string()), word))
}

/// The declaration of `name` as a `kind`.
pub(crate) fn find(symbols: &[Symbol], kind: SymbolKind, name: &str) -> Option<usize> {
    symbols.iter().position(|s| s.kind == kind && s.name == name)
}

/// Every place file `rel` of `text` names the declaration `sym` (its declaration included when
/// it is in that file): whole words equal to its name that [`target_at`] resolves to it.
pub(crate) fn mentions(analysis: &Analysis, rel: &str, text: &str, sym: usize) -> Vec<Word> {
    let name = &analysis.symbols[sym].name;
    let mut out = Vec::new();
    for (i, _) in text.match_indices(name.as_str()) {
        let Some(word) = word_at(text, i) else { continue };
        if word.start != i || word.end != i + name.len() {
            continue;
        }
        if matches!(target_at(analysis, rel, text, i), Some((Target::Symbol(s), _)) if s == sym) {
            out.push(word);
        }
    }
    out
}
