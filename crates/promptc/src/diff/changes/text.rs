//! How a change's lines are shown, and the tools' texts read from a tools file: what names a
//! region of a prompt no tool's block holds (a template that shows a tool's text its own way).

use std::collections::{BTreeMap, BTreeSet};

use similar::{DiffOp, TextDiff};

use super::owners::SCHEMA_KEYS;
use super::{Ident, Kind};
use crate::diff::{FileChange, Status};

/// Every text of every tool in a tools file: (tool, field) → text. A tool is an object with a
/// string `name` and a string `description` (openai's `function`, anthropic's entries, gemini's
/// declarations, MCP's tools); its fields are `description` and, per parameter, `parameter P`
/// (its description) and `parameter P, schema` (its other strings: enums, formats).
pub(super) fn tool_texts(json: &str) -> BTreeMap<(String, String), String> {
    fn schema(v: &serde_json::Value, param: Option<&str>, tool: &str, out: &mut BTreeMap<(String, String), String>) {
        fn push(out: &mut BTreeMap<(String, String), String>, tool: &str, field: String, text: &str) {
            let slot = out.entry((tool.to_string(), field)).or_default();
            if !slot.is_empty() {
                slot.push('\n');
            }
            slot.push_str(text);
        }
        match v {
            serde_json::Value::Object(map) => {
                for (k, x) in map {
                    match (k.as_str(), x) {
                        ("properties", serde_json::Value::Object(props)) => {
                            for (p, s) in props {
                                let name = param.map_or_else(|| p.clone(), |q| format!("{q}.{p}"));
                                schema(s, Some(&name), tool, out);
                            }
                        }
                        ("description", serde_json::Value::String(s)) => {
                            push(out, tool, param.map_or_else(|| "schema".into(), |p| format!("parameter {p}")), s)
                        }
                        _ => schema(x, param, tool, out),
                    }
                }
            }
            serde_json::Value::Array(items) => items.iter().for_each(|x| schema(x, param, tool, out)),
            serde_json::Value::String(s) => {
                push(out, tool, param.map_or_else(|| "schema".into(), |p| format!("parameter {p}, schema")), s)
            }
            _ => {}
        }
    }
    fn walk(v: &serde_json::Value, out: &mut BTreeMap<(String, String), String>) {
        match v {
            serde_json::Value::Object(map) => {
                if let (Some(serde_json::Value::String(name)), Some(serde_json::Value::String(d))) =
                    (map.get("name"), map.get("description"))
                {
                    out.insert((name.clone(), "description".into()), d.clone());
                    for k in SCHEMA_KEYS {
                        if let Some(s) = map.get(k) {
                            schema(s, None, name, out);
                        }
                    }
                } else {
                    map.values().for_each(|x| walk(x, out));
                }
            }
            serde_json::Value::Array(items) => items.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = BTreeMap::new();
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(json) {
        walk(&v, &mut out);
    }
    out
}

/// A text of a tool that differs between the two sides.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct TextChange {
    pub(super) tool: String,
    pub(super) field: String,
    pub(super) old: String,
    pub(super) new: String,
}

/// A line as the text it carries: itself trimmed, and a JSON string's value when it is one
/// (`"description": "…",`).
pub(super) fn readings(line: &str) -> Vec<String> {
    let t = line.trim().trim_end_matches(',');
    let mut out = vec![t.to_string()];
    let value = match t.find("\": \"") {
        Some(i) if t.starts_with('"') => &t[i + 3..],
        _ => t,
    };
    if value.starts_with('"') {
        if let Ok(s) = serde_json::from_str::<String>(value) {
            out.push(s);
        }
    }
    out
}

/// The most characters of context kept each side of what changed in a long line.
const CONTEXT_CHARS: usize = 40;

/// The fewest characters cut from a line's start or end (a shorter cut shows them instead).
const MIN_CUT: usize = 20;

/// A line shortened to the part from `start` to `end` (in characters), with `…` for what is cut.
fn clip(chars: &[char], start: usize, end: usize) -> String {
    let mut s = if start > 0 { String::from("…") } else { String::new() };
    s.extend(&chars[start..end]);
    if end < chars.len() {
        s.push('…');
    }
    s
}

/// A removed and an added line shown around what differs between them: their common start and
/// end cut to [`CONTEXT_CHARS`].
pub(super) fn clip_pair(a: &str, b: &str) -> (String, String) {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let most = a.len().min(b.len()) - prefix;
    let suffix = a.iter().rev().zip(b.iter().rev()).take(most).take_while(|(x, y)| x == y).count();
    // Cut only what is worth a `…`, at a space when one is near.
    let mut start = prefix.saturating_sub(CONTEXT_CHARS);
    if start < MIN_CUT {
        start = 0;
    } else if let Some(i) = a[start..prefix].iter().take(12).position(|c| *c == ' ') {
        start += i + 1;
    }
    let mut keep = suffix.saturating_sub(CONTEXT_CHARS);
    if keep < MIN_CUT {
        keep = 0;
    } else if let Some(i) = a[a.len() - suffix..a.len() - keep].iter().rev().take(12).position(|c| *c == ' ') {
        keep += i + 1;
    }
    (clip(&a, start, a.len() - keep), clip(&b, start, b.len() - keep))
}

/// The most characters a line without a partner is shown with.
const LINE_CHARS: usize = 2 * CONTEXT_CHARS + 40;

fn clip_one(l: &str) -> String {
    let chars: Vec<char> = l.chars().collect();
    clip(&chars, 0, chars.len().min(LINE_CHARS))
}

/// A run of removed and added lines as diff lines: paired lines shortened around what differs.
pub(super) fn show_run(removed: &[&str], added: &[&str]) -> String {
    let strip = |l: &&str| l.strip_suffix('\n').unwrap_or(l).to_string();
    let (removed, added): (Vec<String>, Vec<String>) =
        (removed.iter().map(strip).collect(), added.iter().map(strip).collect());
    let mut out = String::new();
    if removed.len() == added.len() {
        let pairs: Vec<(String, String)> = removed.iter().zip(&added).map(|(a, b)| clip_pair(a, b)).collect();
        pairs.iter().for_each(|(a, _)| out.push_str(&format!("-{a}\n")));
        pairs.iter().for_each(|(_, b)| out.push_str(&format!("+{b}\n")));
    } else {
        removed.iter().for_each(|a| out.push_str(&format!("-{}\n", clip_one(a))));
        added.iter().for_each(|b| out.push_str(&format!("+{}\n", clip_one(b))));
    }
    out
}

/// A text cut into lines and each line into sentences, so a one-word edit of a paragraph is one
/// sentence changed.
fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut rest = line;
        while let Some(i) = [". ", "? ", "! ", "; "].iter().filter_map(|p| rest.find(p)).min() {
            out.push(format!("{}\n", &rest[..=i]));
            rest = &rest[i + 2..];
        }
        out.push(format!("{rest}\n"));
    }
    out
}

/// A tool text's change as diff lines: the sentences that differ.
pub(super) fn text_diff(old: &str, new: &str) -> String {
    let (a, b) = (sentences(old), sentences(new));
    let (a, b): (Vec<&str>, Vec<&str>) =
        (a.iter().map(String::as_str).collect(), b.iter().map(String::as_str).collect());
    let d = TextDiff::from_slices(&a, &b);
    let mut out = String::new();
    for op in d.ops() {
        if !matches!(op, DiffOp::Equal { .. }) {
            out.push_str(&show_run(&a[op.old_range()], &b[op.new_range()]));
        }
    }
    out
}

/// The tools' texts that differ between the two sides of every tools file both hold (one too
/// large to diff line by line too: reading its JSON is linear, and names its tools' changes in
/// the files that are diffed): what names a region no item's block holds.
pub(super) fn text_changes(
    old: &BTreeMap<String, String>,
    new: &BTreeMap<String, String>,
    files: &[FileChange],
) -> Vec<TextChange> {
    let mut texts: BTreeSet<TextChange> = BTreeSet::new();
    let json = files.iter().filter(|f| f.status == Status::Modified && f.file.ends_with(".tools.json"));
    for f in json {
        let (Some(a), Some(b)) = (old.get(&f.file), new.get(&f.file)) else { continue };
        let (a, b) = (tool_texts(a), tool_texts(b));
        for (k, old_text) in &a {
            match b.get(k) {
                Some(new_text) if new_text != old_text && !old_text.is_empty() && !new_text.is_empty() => {
                    texts.insert(TextChange {
                        tool: k.0.clone(),
                        field: k.1.clone(),
                        old: old_text.clone(),
                        new: new_text.clone(),
                    });
                }
                _ => {}
            }
        }
    }
    texts.into_iter().collect()
}

/// Finds which changed tool texts a region's lines hold: an automaton of every old text and one
/// of every new text, so thousands of changed texts cost one pass over each line.
pub(super) struct Texts {
    list: Vec<TextChange>,
    olds: Option<aho_corasick::AhoCorasick>,
    news: Option<aho_corasick::AhoCorasick>,
}

impl Texts {
    pub(super) fn new(list: Vec<TextChange>) -> Texts {
        let automaton = |side: fn(&TextChange) -> &str| {
            aho_corasick::AhoCorasick::new(list.iter().map(side)).ok().filter(|_| !list.is_empty())
        };
        let (olds, news) = (automaton(|t| t.old.as_str()), automaton(|t| t.new.as_str()));
        Texts { list, olds, news }
    }

    /// The one tool field every line of the region is explained by (its old text in the
    /// removed lines, its new one in the added lines), if there is one.
    pub(super) fn explain(&self, removed: &[&str], added: &[&str]) -> Option<Ident> {
        let found = |ac: &Option<aho_corasick::AhoCorasick>, lines: &[&str]| -> Vec<BTreeSet<usize>> {
            lines
                .iter()
                .map(|l| {
                    let mut hits = BTreeSet::new();
                    if let Some(ac) = ac {
                        for reading in readings(l) {
                            hits.extend(ac.find_overlapping_iter(&reading).map(|m| m.pattern().as_usize()));
                        }
                    }
                    hits
                })
                .collect()
        };
        let (r, ad) = (found(&self.olds, removed), found(&self.news, added));
        let in_removed: BTreeSet<usize> = r.iter().flatten().copied().collect();
        let explained: Vec<usize> = in_removed.into_iter().filter(|&t| ad.iter().any(|l| l.contains(&t))).collect();
        let covered = |lines: &[BTreeSet<usize>]| lines.iter().all(|l| explained.iter().any(|t| l.contains(t)));
        let first = &self.list[*explained.first()?];
        let field = |t: &TextChange| t.field.trim_end_matches(", schema").to_string();
        let one = explained.iter().all(|&t| self.list[t].tool == first.tool && field(&self.list[t]) == field(first));
        if !(one && covered(&r) && covered(&ad)) {
            return None;
        }
        let kind = if field(first) == "description" { Kind::DescriptionChanged } else { Kind::ParameterChanged };
        Some(Ident::tool(kind, &first.tool, Some(field(first))))
    }

    /// The edit of a named field, once: each variant's sentences that differ (the first variant).
    pub(super) fn diff(&self, id: &Ident) -> Option<String> {
        let f = id.field.as_deref()?;
        let t = self.list.iter().find(|t| {
            format!("tool {}", t.tool) == id.subject && (t.field == f || t.field == format!("{f}, schema"))
        })?;
        Some(text_diff(&t.old, &t.new))
    }
}
