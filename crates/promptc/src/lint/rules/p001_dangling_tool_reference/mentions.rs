//! When a text names a tool the way a model reads one: a snake/kebab-case name anywhere, a
//! plain one-word name only in call-like forms (backticks, call syntax, an XML tag, an arrow,
//! after a call verb, before "tool", a JSON value), so that ordinary English stays quiet.

/// Whether `c` continues a tool name (names are ASCII words with `_` and `-`).
fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// Words that make the next word a tool being called: `use clarify`, `call search.`.
const CALL_VERBS: &[&str] = &["use", "call", "invoke", "using", "calling", "invoking", "via"];

/// Words that may follow a called tool's name (`use clarify to ask`), so that `use search
/// results` stays ordinary English.
const AFTER_CALLED: &[&str] =
    &["to", "for", "with", "first", "instead", "when", "if", "and", "or", "then", "tool", "tools", "again"];

/// The ASCII word that ends just before byte `at` (spaces skipped), lower-cased.
fn word_before(text: &str, at: usize) -> String {
    let head = text[..at].trim_end_matches([' ', '\t']);
    let start = head
        .rfind(|c: char| !c.is_ascii_alphabetic())
        .map_or(0, |i| i + head[i..].chars().next().map_or(1, char::len_utf8));
    head[start..].to_ascii_lowercase()
}

/// The ASCII word that starts at byte `at` (spaces skipped), lower-cased, and whether only
/// spaces came before it.
fn word_after(text: &str, at: usize) -> String {
    let tail = text[at..].trim_start_matches([' ', '\t']);
    let end = tail.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(tail.len());
    tail[..end].to_ascii_lowercase()
}

/// Whether what follows a called name ends the phrase: the end, punctuation, a line break, a
/// CJK character, or one of [`AFTER_CALLED`].
fn ends_call_phrase(text: &str, end: usize) -> bool {
    let tail = text[end..].trim_start_matches([' ', '\t']);
    match tail.chars().next() {
        None => true,
        Some(c) if c.is_ascii_alphabetic() => AFTER_CALLED.contains(&word_after(text, end).as_str()),
        Some(c) => !c.is_ascii_alphanumeric(),
    }
}

/// Words that make `NAME tool` a noun phrase naming a tool (`the clarify tool`), where
/// `You call tools` is a verb.
const DETERMINERS: &[&str] = &["the", "a", "an", "this", "that", "your", "its", "their", "our"];

/// Whether the occurrence of a plain (one-word) tool name at `start..end` reads as a tool
/// reference. `tags`: an XML tag counts (not where the name is also a parameter's, whose tags
/// the tool docs show).
fn reads_as_tool(text: &str, start: usize, end: usize, tags: bool) -> bool {
    let head = &text[..start];
    let before = head.chars().next_back();
    let after = text[end..].chars().next();
    let ticked = before == Some('`') && after == Some('`');
    let called = matches!(after, Some('(' | '（'));
    let tag = tags && (head.ends_with('<') || head.ends_with("</")) && matches!(after, Some('>' | ' ' | '/' | '\n'));
    let trimmed = head.trim_end_matches([' ', '\t']);
    let arrow = ["→", "->", "=>", "⇒", "➜", "⟶"].iter().any(|a| trimmed.ends_with(a));
    let verb = (CALL_VERBS.contains(&word_before(text, start).as_str())
        || ["调用", "使用", "用"].iter().any(|v| trimmed.ends_with(v)))
        && ends_call_phrase(text, end);
    let noun = (word_after(text, end) == "tool" && DETERMINERS.contains(&word_before(text, start).as_str()))
        || text[end..].trim_start().starts_with("工具");
    let json = before == Some('"') && after == Some('"') && head[..head.len() - 1].trim_end().ends_with(':');
    ticked || called || tag || arrow || verb || noun || json
}

/// Byte offsets where `text` names `tool` as a tool: a snake/kebab-case name as a whole word,
/// or a plain name in one of the forms [`reads_as_tool`] knows.
pub(super) fn tool_mentions(text: &str, tool: &str) -> Vec<usize> {
    mentions(text, tool, true)
}

/// [`tool_mentions`], with or without the XML-tag form.
pub(super) fn mentions(text: &str, tool: &str, tags: bool) -> Vec<usize> {
    if tool.is_empty() {
        return Vec::new();
    }
    let distinctive = tool.contains('_') || tool.contains('-');
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = text[from..].find(tool) {
        let start = from + i;
        let end = start + tool.len();
        let before = text[..start].chars().next_back();
        let after = text[end..].chars().next();
        let bounded = !before.is_some_and(is_word_char) && !after.is_some_and(is_word_char);
        if bounded && (distinctive || reads_as_tool(text, start, end, tags)) {
            out.push(start);
        }
        from = end;
    }
    out
}

/// Whether `text` names `tool` at all (for the tests).
#[cfg(test)]
pub(super) fn names_tool(text: &str, tool: &str) -> bool {
    !tool_mentions(text, tool).is_empty()
}

/// Which catalog tool names occur in a text at all (as substrings), found in one pass: only
/// those are then read closely with [`mentions`].
pub(super) struct Names<'a> {
    names: Vec<&'a str>,
    finder: Option<aho_corasick::AhoCorasick>,
}

impl<'a> Names<'a> {
    /// The finder of `names`.
    pub(super) fn new(names: Vec<&'a str>) -> Self {
        let finder = aho_corasick::AhoCorasick::new(&names).ok();
        Names { names, finder }
    }

    /// The names occurring in `text` that `keep` accepts, in catalog order.
    pub(super) fn in_text(&self, text: &str, keep: impl Fn(&str) -> bool) -> Vec<&'a str> {
        let Some(f) = &self.finder else {
            return self.names.iter().copied().filter(|n| keep(n) && text.contains(n)).collect();
        };
        let mut seen = vec![false; self.names.len()];
        for m in f.find_overlapping_iter(text) {
            seen[m.pattern().as_usize()] = true;
        }
        self.names.iter().zip(seen).filter(|(n, s)| *s && keep(n)).map(|(n, _)| *n).collect()
    }
}

#[cfg(test)]
#[path = "mentions_tests.rs"]
mod tests;
