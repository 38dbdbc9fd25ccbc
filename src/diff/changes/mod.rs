//! What changed, by name: the line changes of every modified file grouped into changes a
//! reviewer decides on once — a tool's description or parameter (read from the tools files
//! both sides hold, and recognised wherever its text appears: every provider's JSON, the XML
//! tool docs of a prompt), or the same lines changed in several files (titled with the section
//! they sit in when the deltas name exactly one). Each change knows the files and line ranges it
//! touches, so a caller can take some changes of a file and keep the others ([`apply`]).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use similar::{DiffOp, TextDiff};

use super::{Delta, FileChange, Status};

/// One change: what it is to, the lines once, and every place it occurs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Change {
    /// What it changes, as the deltas name items (`tool read_file`, `section rules`); empty
    /// when promptc cannot name it.
    pub subject: String,
    /// Which texts of the subject (`description`, `parameter path`); empty for lines promptc
    /// grouped by their text.
    pub fields: Vec<String>,
    /// The change once: `-` old and `+` new lines (a text of a tool split at sentences), long
    /// lines shortened around what changed.
    pub diff: String,
    /// The files it changes, sorted.
    pub files: Vec<String>,
    /// Stable while the change is the same (a hash of what it is and its texts): what
    /// `--accept`/`--reject` and a resumed review name it by.
    pub key: String,
    /// Where it is: (file, index of the changed run among the file's line changes, or
    /// [`WHOLE_FILE`]).
    #[serde(skip)]
    pub(crate) places: Vec<(String, usize)>,
}

impl Change {
    /// Whether the change is a whole file (added, removed, too large to diff by line).
    pub fn is_file(&self) -> bool {
        self.places.iter().any(|(_, r)| *r == WHOLE_FILE)
    }

    /// `tool read_file, description; parameter path` — the subject and its fields in words.
    pub fn title(&self) -> String {
        if self.is_file() {
            return format!("{}, {}", self.subject, self.fields.join("; "));
        }
        match (self.subject.is_empty(), self.fields.is_empty()) {
            (true, _) => format!("lines in {}", files_phrase(&self.files)),
            (false, true) => self.subject.clone(),
            (false, false) => format!("{}, {}", self.subject, self.fields.join("; ")),
        }
    }
}

fn files_phrase(files: &[String]) -> String {
    match files {
        [one] => one.clone(),
        [first, rest @ ..] => format!("{first} and {} more file{}", rest.len(), if rest.len() == 1 { "" } else { "s" }),
        [] => "no file".into(),
    }
}

/// The keys of the JSON objects that hold a tool's parameter schema, across providers.
const SCHEMA_KEYS: [&str; 5] = ["parameters", "input_schema", "inputSchema", "parametersJsonSchema", "schema"];

/// Every text of every tool in a tools file: (tool, field) → text. A tool is an object with a
/// string `name` and a string `description` (openai's `function`, anthropic's entries, gemini's
/// declarations, MCP's tools); its fields are `description` and, per parameter, `parameter P`
/// (its description) and `parameter P, schema` (its other strings: enums, formats).
fn tool_texts(json: &str) -> BTreeMap<(String, String), String> {
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
struct TextChange {
    tool: String,
    field: String,
    old: String,
    new: String,
}

/// A line as the text it carries: itself trimmed, and a JSON string's value when it is one
/// (`"description": "…",`).
fn readings(line: &str) -> Vec<String> {
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

/// The line changes of a file, in order: (removed lines, added lines) of each run that differs.
/// Lines replaced one for one are a run each (a tool's description and its parameters' sit on
/// adjacent lines in some formats, and each is its own change).
fn runs<'a>(old: &'a str, new: &'a str) -> Vec<(Vec<&'a str>, Vec<&'a str>)> {
    let d = TextDiff::from_lines(old, new);
    let (o, n) = (d.old_slices(), d.new_slices());
    let mut out = Vec::new();
    for op in d.ops() {
        let (a, b) = (op.old_range(), op.new_range());
        match *op {
            DiffOp::Equal { .. } => {}
            DiffOp::Replace { old_len, new_len, .. } if old_len == new_len => {
                out.extend(a.zip(b).map(|(i, j)| (vec![o[i]], vec![n[j]])));
            }
            _ => out.push((o[a].to_vec(), n[b].to_vec())),
        }
    }
    out
}

/// `new` with only the runs `take` accepts (by index, as [`runs`] numbers them) applied to
/// `old`: the text of a file of which some changes are accepted and the others kept.
pub fn apply(old: &str, new: &str, take: impl Fn(usize) -> bool) -> String {
    let d = TextDiff::from_lines(old, new);
    let (o, n) = (d.old_slices(), d.new_slices());
    let mut out = String::with_capacity(new.len().max(old.len()));
    let mut run = 0;
    let mut pick = |out: &mut String, old_lines: &[&str], new_lines: &[&str]| {
        let lines = if take(run) { new_lines } else { old_lines };
        lines.iter().for_each(|l| out.push_str(l));
        run += 1;
    };
    for op in d.ops() {
        let (a, b) = (op.old_range(), op.new_range());
        match *op {
            DiffOp::Equal { .. } => o[a].iter().for_each(|l| out.push_str(l)),
            DiffOp::Replace { old_len, new_len, .. } if old_len == new_len => {
                a.zip(b).for_each(|(i, j)| pick(&mut out, &o[i..=i], &n[j..=j]));
            }
            _ => pick(&mut out, &o[a], &n[b]),
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
fn clip_pair(a: &str, b: &str) -> (String, String) {
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
fn show_run(removed: &[&str], added: &[&str]) -> String {
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
fn text_diff(old: &str, new: &str) -> String {
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

/// The stem of a snapshot file: the cell (and provider) it belongs to.
pub(crate) fn stem(file: &str) -> &str {
    for suffix in [".tools.json", ".prompt.md", ".messages.json", ".md", ".json"] {
        if let Some(s) = file.strip_suffix(suffix) {
            return s;
        }
    }
    file
}

/// Whether `account` is one of the cell `stem`'s accounts (the stem itself, or it and a
/// provider: a last part without a dot).
pub(crate) fn account_of(account: &str, stem: &str) -> bool {
    account == stem || account.strip_prefix(stem).and_then(|r| r.strip_prefix('.')).is_some_and(|r| !r.contains('.'))
}

/// The place of a change that is a whole file (added, removed, or too large to diff by line).
pub(crate) const WHOLE_FILE: usize = usize::MAX;

/// A whole file as one change: `file NAME`, what happened to it, decided as a whole.
fn whole_file(f: &FileChange, old: Option<&String>, new: Option<&String>) -> Change {
    let (what, diff) = match f.status {
        Status::Added => ("new".to_string(), format!("new file, {} lines\n", f.added_lines)),
        Status::Removed => {
            ("no longer rendered".to_string(), format!("no longer rendered, {} lines\n", f.removed_lines))
        }
        Status::Modified => (
            "too large to show line by line".to_string(),
            format!("{}\n", super::too_large_note(f.added_lines + f.removed_lines)),
        ),
    };
    let hash = |t: Option<&String>| t.map_or_else(String::new, |t| crate::hash::sha256_hex(t.as_bytes()));
    let key_text = format!("file\0{}\0{}\0{}", f.file, hash(old), hash(new));
    Change {
        subject: format!("file {}", f.file),
        fields: vec![what],
        diff,
        files: vec![f.file.clone()],
        key: crate::hash::sha256_hex(key_text.as_bytes())[..12].to_string(),
        places: vec![(f.file.clone(), WHOLE_FILE)],
    }
}

/// Group every line change of the modified files into named changes, in order of first
/// appearance (files sorted by name); each file added, removed or too large to diff by line is
/// a change of its own (`file NAME`), after them.
pub fn changes(
    old: &BTreeMap<String, String>,
    new: &BTreeMap<String, String>,
    files: &[FileChange],
    deltas: &[Delta],
) -> Vec<Change> {
    let modified: Vec<&FileChange> = files
        .iter()
        .filter(|f| f.status == Status::Modified && !f.too_large && f.file != crate::output::snapshot::SUMMARY)
        .collect();
    // The tools' texts that differ, from every tools file both sides hold (one too large to
    // diff line by line too: reading its JSON is linear, and names its tools' changes in the
    // files that are diffed).
    let mut texts: BTreeSet<TextChange> = BTreeSet::new();
    let json = files.iter().filter(|f| f.status == Status::Modified && f.file.ends_with(".json"));
    for f in json.filter(|f| f.file != crate::output::snapshot::SUMMARY) {
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
    let texts: Vec<TextChange> = texts.into_iter().collect();
    // Which texts a line holds, found in one pass over it (thousands of changed texts are as
    // cheap as one): an automaton of every old text and one of every new text.
    let automaton = |side: fn(&TextChange) -> &str| {
        aho_corasick::AhoCorasick::new(texts.iter().map(side)).ok().filter(|_| !texts.is_empty())
    };
    let (olds, news) = (automaton(|t| t.old.as_str()), automaton(|t| t.new.as_str()));
    // For each line, the texts found in any of its readings.
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
    let mut out: Vec<Change> = Vec::new();
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    for f in &modified {
        let (Some(a), Some(b)) = (old.get(&f.file), new.get(&f.file)) else { continue };
        for (i, (removed, added)) in runs(a, b).into_iter().enumerate() {
            let (r, ad) = (found(&olds, &removed), found(&news, &added));
            let any = |lines: &[BTreeSet<usize>], t: usize| lines.iter().any(|l| l.contains(&t));
            let in_removed: BTreeSet<usize> = r.iter().flatten().copied().collect();
            let explained: Vec<usize> = in_removed.into_iter().filter(|&t| any(&ad, t)).collect();
            let covered = |lines: &[BTreeSet<usize>]| lines.iter().all(|l| explained.iter().any(|t| l.contains(t)));
            let named = !explained.is_empty()
                && covered(&r)
                && covered(&ad)
                && explained.iter().all(|&t| texts[t].tool == texts[explained[0]].tool);
            // A field is one change whatever texts each provider gives it (a format appended,
            // a conversion's note): the key names the field and every variant of it.
            let mut fields: Vec<&str> = Vec::new();
            for &t in &explained {
                if !fields.contains(&texts[t].field.as_str()) {
                    fields.push(&texts[t].field);
                }
            }
            let key_text = if named {
                let tool = &texts[explained[0]].tool;
                let variants = texts.iter().filter(|t| &t.tool == tool && fields.contains(&t.field.as_str()));
                let each: Vec<String> =
                    variants.map(|t| format!("{}\0{}\0{}\0{}", t.tool, t.field, t.old, t.new)).collect();
                each.join("\0\0")
            } else {
                format!("lines\0{}\0{}", removed.concat(), added.concat())
            };
            let key = crate::hash::sha256_hex(key_text.as_bytes())[..12].to_string();
            match index.get(&key) {
                Some(&c) => {
                    out[c].places.push((f.file.clone(), i));
                    if out[c].files.last() != Some(&f.file) {
                        out[c].files.push(f.file.clone());
                    }
                }
                None => {
                    let (subject, fields, diff) = if named {
                        let tool = &texts[explained[0]].tool;
                        // Each field's first variant shows the edit.
                        let diff = fields
                            .iter()
                            .filter_map(|f| texts.iter().find(|t| &t.tool == tool && t.field == *f))
                            .map(|t| text_diff(&t.old, &t.new))
                            .collect();
                        (format!("tool {tool}"), fields.iter().map(|f| f.to_string()).collect(), diff)
                    } else {
                        (String::new(), Vec::new(), show_run(&removed, &added))
                    };
                    index.insert(key.clone(), out.len());
                    out.push(Change {
                        subject,
                        fields,
                        diff,
                        files: vec![f.file.clone()],
                        key,
                        places: vec![(f.file.clone(), i)],
                    });
                }
            }
        }
    }
    for c in out.iter_mut().filter(|c| c.subject.is_empty()) {
        c.files.sort();
        if let Some(section) = one_section(&c.files, deltas) {
            c.subject = format!("section {section}");
        }
    }
    out.iter_mut().for_each(|c| c.files.sort());
    for f in files.iter().filter(|f| f.file != crate::output::snapshot::SUMMARY) {
        if f.status != Status::Modified || f.too_large {
            out.push(whole_file(f, old.get(&f.file), new.get(&f.file)));
        }
    }
    out
}

/// The one section whose change every file's cell has in the deltas, if there is exactly one.
fn one_section(files: &[String], deltas: &[Delta]) -> Option<String> {
    let mut common: Option<BTreeSet<&str>> = None;
    for f in files {
        if !f.ends_with(".prompt.md") {
            return None;
        }
        let s = stem(f);
        let here: BTreeSet<&str> =
            deltas.iter().filter(|d| account_of(&d.cell, s)).filter_map(|d| d.item.strip_prefix("section ")).collect();
        common = Some(match common {
            None => here,
            Some(c) => c.intersection(&here).copied().collect(),
        });
    }
    match common?.into_iter().collect::<Vec<_>>().as_slice() {
        [one] => Some(one.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn modified(file: &str) -> FileChange {
        FileChange {
            file: file.into(),
            status: Status::Modified,
            diff: String::new(),
            added_lines: 1,
            removed_lines: 1,
            too_large: false,
        }
    }

    fn tools(desc: &str, param: &str) -> String {
        serde_json::to_string_pretty(&serde_json::json!([{"type": "function", "function": {"name": "read_file",
            "description": desc, "parameters": {"type": "object", "properties": {"path": {"type": "string",
            "description": param}}}}}]))
        .unwrap()
    }

    #[test]
    fn a_tool_text_changed_in_json_and_xml_is_one_change() {
        let old: BTreeMap<String, String> = [
            ("a.native.openai.tools.json".to_string(), tools("Read a file. Use it often.", "Path.")),
            (
                "a.xml.prompt.md".to_string(),
                "## read_file\nDescription: Read a file. Use it often.\n- path: Path.\n".into(),
            ),
        ]
        .into();
        let new: BTreeMap<String, String> = [
            ("a.native.openai.tools.json".to_string(), tools("Read a whole file. Use it often.", "Path.")),
            (
                "a.xml.prompt.md".to_string(),
                "## read_file\nDescription: Read a whole file. Use it often.\n- path: Path.\n".into(),
            ),
        ]
        .into();
        let files = vec![modified("a.native.openai.tools.json"), modified("a.xml.prompt.md")];
        let c = changes(&old, &new, &files, &[]);
        assert_eq!(c.len(), 1, "{c:#?}");
        assert_eq!(c[0].title(), "tool read_file, description");
        assert_eq!(c[0].files, ["a.native.openai.tools.json", "a.xml.prompt.md"]);
        assert_eq!(c[0].diff, "-Read a file.\n+Read a whole file.\n");
    }

    /// A tools file too large to diff line by line is one whole-file change, and still names
    /// the tool whose text changed in the files that are diffed.
    #[test]
    fn a_tools_file_too_large_to_diff_still_names_the_tools() {
        let json = "a.native.openai.tools.json".to_string();
        let xml = "a.xml.prompt.md".to_string();
        let old: BTreeMap<String, String> =
            [(json.clone(), tools("Read a file.", "Path.")), (xml.clone(), "Description: Read a file.\n".into())]
                .into();
        let new: BTreeMap<String, String> = [
            (json.clone(), tools("Read a whole file.", "Path.")),
            (xml.clone(), "Description: Read a whole file.\n".into()),
        ]
        .into();
        let files = vec![FileChange { too_large: true, ..modified(&json) }, modified(&xml)];
        let c = changes(&old, &new, &files, &[]);
        let titles: Vec<String> = c.iter().map(Change::title).collect();
        assert_eq!(
            titles,
            ["tool read_file, description", "file a.native.openai.tools.json, too large to show line by line"]
        );
        assert_eq!(c[0].files, [xml]);
    }

    #[test]
    fn unnamed_lines_are_grouped_by_their_text_and_titled_by_the_one_changed_section() {
        let old: BTreeMap<String, String> = [
            ("a.xml.prompt.md".to_string(), "x\nold rule\ny\n".to_string()),
            ("b.xml.prompt.md".into(), "old rule\n".into()),
        ]
        .into();
        let new: BTreeMap<String, String> = [
            ("a.xml.prompt.md".to_string(), "x\nnew rule\ny\n".to_string()),
            ("b.xml.prompt.md".into(), "new rule\n".into()),
        ]
        .into();
        let files = vec![modified("a.xml.prompt.md"), modified("b.xml.prompt.md")];
        let delta = |cell: &str| Delta { cell: cell.into(), item: "section rules".into(), before: None, after: None };
        let c = changes(&old, &new, &files, &[delta("a.xml"), delta("b.xml")]);
        assert_eq!(c.len(), 1, "{c:#?}");
        assert_eq!(c[0].title(), "section rules");
        assert_eq!(c[0].diff, "-old rule\n+new rule\n");
        let c = changes(&old, &new, &files, &[delta("a.xml")]);
        assert_eq!(c[0].title(), "lines in a.xml.prompt.md and 1 more file");
    }

    #[test]
    fn apply_takes_the_chosen_runs_only() {
        let (old, new) = ("a\nb\nc\nd\ne\n", "a\nB\nc\nd\nE\n");
        assert_eq!(apply(old, new, |_| true), new);
        assert_eq!(apply(old, new, |_| false), old);
        assert_eq!(apply(old, new, |i| i == 1), "a\nb\nc\nd\nE\n");
        assert_eq!(runs(old, new).len(), 2);
    }

    #[test]
    fn long_lines_are_shortened_around_the_change() {
        let a = format!("{} middle {}", "x".repeat(100), "y".repeat(100));
        let b = format!("{} centre {}", "x".repeat(100), "y".repeat(100));
        let (ca, cb) = clip_pair(&a, &b);
        assert!(ca.starts_with('…') && ca.ends_with('…') && ca.contains("middle"), "{ca}");
        assert!(cb.contains("centre") && cb.chars().count() < 100, "{cb}");
    }

    #[test]
    fn accounts_belong_to_their_cell_only() {
        assert!(account_of("standard.native.openai", "standard.native"));
        assert!(account_of("standard.xml", "standard.xml"));
        assert!(!account_of("standard.native.subagent-researcher.openai", "standard.native"));
        assert_eq!(stem("standard.native.openai.tools.json"), "standard.native.openai");
    }
}
