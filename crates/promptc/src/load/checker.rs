//! The loader's working context: the file being validated, the diagnostics collected so far,
//! and the checks every part of the loader shares (names, `when:` expressions, tags, references).

use std::collections::HashMap;

use indexmap::IndexMap;
use serde_saphyr::Location;

use crate::diagnostic::{known_names_help, Diagnostic, Label, Position, Span};
use crate::error::Diagnostics;
use crate::format::S;
use crate::model::condition::{Condition, ParseError};
use crate::model::untrusted::valid_tag;
use crate::model::Switch;
use crate::source::SourceFile;

pub(super) fn is_ident(s: &str, extra: &[char]) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(f) if f.is_ascii_alphabetic() || f == '_')
        && c.all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || extra.contains(&ch))
}

/// Loading context: the file being validated and the diagnostics collected so far.
pub(super) struct Checker<'a> {
    pub(super) file: &'a SourceFile,
    pub(super) diags: &'a mut Diagnostics,
    /// Where each `key:` pattern [`Checker::key_span`] looked far for occurs in the file, found
    /// once: a file whose keys are written otherwise (JSON's `"key":`) would otherwise be
    /// searched back to its start for every key of every entry.
    keys: std::cell::RefCell<HashMap<String, Vec<usize>>>,
}

/// How far back [`Checker::key_span`] searches before it uses the file's index of the key.
const KEY_WINDOW: usize = 4096;

impl<'a> Checker<'a> {
    /// A context for validating `file`, collecting into `diags`.
    pub(super) fn new(file: &'a SourceFile, diags: &'a mut Diagnostics) -> Checker<'a> {
        Checker { file, diags, keys: Default::default() }
    }
}

impl Checker<'_> {
    /// The span of a YAML node (a key or a scalar) in the current file.
    pub(super) fn span(&self, loc: &Location) -> Span {
        node_span(self.file, loc)
    }

    /// The span of mapping key `key` whose value starts at `value` (on the key's line or on a
    /// later one, for a block value), covering `key` alone.
    pub(super) fn key_span(&self, value: &Location, key: &str) -> Span {
        let at = self.span(value).start;
        let text = &self.file.text;
        let start = last_key(text, at, key, &mut self.keys.borrow_mut()).unwrap_or(at);
        Span { file: self.file.rel.clone(), start, end: (start + key.len()).min(text.len()) }
    }

    /// The span from mapping key `key` to the end of its scalar value at `value`
    /// (`name: read_file`).
    pub(super) fn entry_span(&self, value: &Location, key: &str) -> Span {
        let v = self.span(value);
        let key_at = self.key_span(value, key).start;
        Span { file: v.file, start: key_at, end: v.end }
    }

    pub(super) fn label(&self, loc: &Location) -> Label {
        crate::source::yaml::label(&self.file.display, &self.file.text, loc)
    }

    pub(super) fn error(&mut self, loc: &Location, msg: impl Into<String>, help: impl Into<String>) {
        let d = Diagnostic::error(msg).with_label(self.label(loc)).with_help(help);
        self.diags.push(d);
    }

    pub(super) fn warn(&mut self, loc: &Location, msg: impl Into<String>, help: impl Into<String>) {
        let d = Diagnostic::warning(msg).with_label(self.label(loc)).with_help(help);
        self.diags.push(d);
    }

    /// Parse a `when:` expression and check its switch names.
    pub(super) fn when(&mut self, w: &S, switches: &IndexMap<String, Switch>) -> Option<Condition> {
        match Condition::parse(&w.value) {
            Err(e) => {
                self.when_syntax(w, &e);
                None
            }
            Ok(c) => self.when_names(w, &c, switches).then_some(c),
        }
    }

    /// Report a `when:` expression that does not parse, at the character where it fails.
    fn when_syntax(&mut self, w: &S, e: &ParseError) {
        // Columns count from the opening quote of a quoted scalar.
        let quoted = self
            .file
            .text
            .split('\n')
            .nth((w.referenced.line() as usize).saturating_sub(1))
            .and_then(|l| l.chars().nth((w.referenced.column() as usize).saturating_sub(1)))
            .is_some_and(|c| c == '"' || c == '\'');
        let col = w.referenced.column() as usize
            + usize::from(quoted)
            + w.value[..e.offset.min(w.value.len())].chars().count();
        let pos = Position::new(w.referenced.line() as usize, col, 1);
        self.diags.push(
            Diagnostic::error(format!(
                "invalid switch expression `{}`: {}",
                crate::diagnostic::excerpt(&w.value, 60),
                e.message
            ))
            .with_label(Label::at(&self.file.display, &self.file.text, pos))
            .with_help("write switch names combined with `!`, `&&`, `||` and parentheses, e.g. `browser && !yolo`"),
        );
    }

    /// Check the switch names of a parsed `when:` expression, and how each is used; whether
    /// all are right.
    fn when_names(&mut self, w: &S, c: &Condition, switches: &IndexMap<String, Switch>) -> bool {
        let known: Vec<&str> = switches.keys().map(String::as_str).collect();
        let mut ok = true;
        for name in c.switch_names() {
            if !switches.contains_key(name) {
                ok = false;
                self.error(
                    &w.referenced,
                    format!("unknown switch `{name}` in `when: {}`", w.value),
                    known_names_help("switch", name, &known),
                );
            }
        }
        for name in c.flags() {
            if let Some(choice) = switches.get(name).and_then(|s| s.choice.as_ref()) {
                ok = false;
                self.error(
                    &w.referenced,
                    format!("switch `{name}` takes a value, it is not on or off, in `when: {}`", w.value),
                    format!("compare it: `{name} == \"{}\"`", choice.default),
                );
            }
        }
        for (name, value) in c.comparisons() {
            match switches.get(name).map(|s| s.choice.as_ref()) {
                Some(None) => {
                    ok = false;
                    self.error(
                        &w.referenced,
                        format!("switch `{name}` is on or off, it has no value to compare, in `when: {}`", w.value),
                        format!("write `{name}` or `!{name}`, or give the switch `values:`"),
                    );
                }
                Some(Some(choice)) if !choice.values.iter().any(|v| v == value) => {
                    ok = false;
                    self.error(
                        &w.referenced,
                        format!("`{value}` is not a value of switch `{name}` in `when: {}`", w.value),
                        known_names_help("value", value, &choice.values.iter().map(String::as_str).collect::<Vec<_>>()),
                    );
                }
                _ => {}
            }
        }
        ok
    }

    /// Check an untrusted-content tag.
    pub(super) fn tag(&mut self, t: &S) -> Option<String> {
        if valid_tag(&t.value) {
            Some(t.value.clone())
        } else {
            self.error(
                &t.referenced,
                format!("invalid untrusted-content tag `{}`", t.value),
                if t.value.ends_with("_END") {
                    "a tag may not end in _END: `<|TAG_END_nonce|>` is the closing delimiter, so such a tag could be \
                        confused with another's end"
                } else {
                    "tags are upper-case identifiers such as USER_RULES: they become `<|USER_RULES_nonce|>` delimiters"
                },
            );
            None
        }
    }

    /// Check that every name in `list` is one of `known`; return the valid ones.
    pub(super) fn refs(&mut self, list: &[S], known: &[&str], kind: &str, context: &str) -> Vec<String> {
        let known_set: std::collections::HashSet<&str> = known.iter().copied().collect();
        let mut seen = std::collections::HashSet::new();
        let mut out: Vec<String> = Vec::new();
        for item in list {
            if !known_set.contains(item.value.as_str()) {
                self.error(
                    &item.referenced,
                    format!("unknown {kind} `{}` in {context}", item.value),
                    known_names_help(kind, &item.value, known),
                );
            } else if !seen.insert(item.value.as_str()) {
                self.error(
                    &item.referenced,
                    format!("{kind} `{}` is listed twice in {context}", item.value),
                    "list each entry once",
                );
            } else {
                out.push(item.value.clone());
            }
        }
        out
    }
}

/// The byte offset of a 1-based (line, column in characters) position in `text`.
/// The span of a YAML node (a key or a scalar) of `file`.
pub(super) fn node_span(file: &SourceFile, loc: &Location) -> Span {
    let text = &file.text;
    let start = match loc.span().byte_offset() {
        Some(b) => b as usize,
        // Without byte information, count from the line and column.
        None => line_column_offset(text, loc.line() as usize, loc.column() as usize),
    }
    .min(text.len());
    let len = loc.span().byte_len().map_or(0, |l| l as usize);
    Span { file: file.rel.clone(), start, end: (start + len).min(text.len()) }
}

fn line_column_offset(text: &str, line: usize, column: usize) -> usize {
    let line_start: usize = text.split_inclusive('\n').take(line.saturating_sub(1)).map(str::len).sum();
    let rest = &text[line_start.min(text.len())..];
    line_start + rest.char_indices().nth(column.saturating_sub(1)).map_or(rest.len(), |(i, _)| i)
}

/// Where `key:` last occurs in `text` ending by `at` (`text[..at].rfind("key:")`): within
/// [`KEY_WINDOW`] when it is there (then no occurrence further back can be later), else from
/// `index`, which keeps each pattern's occurrences once found.
fn last_key(text: &str, at: usize, key: &str, index: &mut HashMap<String, Vec<usize>>) -> Option<usize> {
    let pattern = format!("{key}:");
    let from = crate::diagnostic::floor_char_boundary(text, at.saturating_sub(KEY_WINDOW));
    if let Some(i) = text.get(from..at)?.rfind(&pattern) {
        return Some(from + i);
    }
    let found = index.entry(pattern).or_insert_with_key(|p| occurrences(text, p));
    let ends_by = found.partition_point(|&s| s + key.len() < at);
    ends_by.checked_sub(1).and_then(|i| found.get(i)).copied()
}

/// Every start of `pattern` in `text`, overlapping ones too, in order.
fn occurrences(text: &str, pattern: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = text.get(from..).and_then(|t| t.find(pattern)) {
        out.push(from + i);
        // The next character: an occurrence may overlap this one.
        from += i + text[from + i..].chars().next().map_or(1, char::len_utf8);
    }
    out
}

#[cfg(test)]
mod key_tests {
    use super::*;

    /// The index and the window give what searching back from `at` gives, for every `at`.
    #[test]
    fn last_key_is_rfind() {
        let json = (0..400).map(|i| format!("{{\"name\": \"t{i}\", \"description\": \"é\"}},\n")).collect::<String>();
        let yaml = (0..400).map(|i| format!("- name: t{i}\n  description: >-\n    é{i}\n")).collect::<String>();
        let odd = "a:a:a:a: é a:a:".repeat(500);
        for (text, key) in [(&json, "name"), (&yaml, "name"), (&yaml, "description"), (&odd, "a:a"), (&odd, "a")] {
            let mut index = HashMap::new();
            for at in (0..=text.len()).filter(|&i| text.is_char_boundary(i)).step_by(7) {
                assert_eq!(last_key(text, at, key, &mut index), text[..at].rfind(&format!("{key}:")), "{key} at {at}");
            }
        }
    }
}
