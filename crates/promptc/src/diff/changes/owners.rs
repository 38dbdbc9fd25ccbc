//! Which item owns each line of a snapshot file, so a diff's line changes are credited to the
//! change the user made: a tool's description, one of its parameters, the tool as a whole, a
//! harness message.
//!
//! - **Tools files** (`*.tools.json`) and **messages files** (`*.messages.json`) are read
//!   exactly: the file is parsed and printed again as promptc prints JSON, each line with the
//!   value it belongs to (a file whose text is not that print is left unowned). A line inside a
//!   tool's entry belongs to its description, to a parameter (its schema, and its name in
//!   `required`), or else to the tool; a line of a wrapper holding exactly one tool (OpenAI's
//!   `{"type": "function", "function": {…}}`) to that tool.
//! - **Prompts** are read by the tools' texts both sides' tools files hold: a tool's block
//!   starts at the line naming it just above the line holding its description, and runs to a
//!   blank line or the next tool's block (the built-in XML tool docs, and templates shaped like
//!   them). Inside it, a line holding the description belongs to it, a line naming a parameter
//!   (`- path: …`, `<path>…</path>`) to that parameter, any other to the tool.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

/// What a line belongs to.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Owner {
    /// A part of a tool's text.
    Tool(String, Part),
    /// A harness message, by its place (1-based).
    Message(usize),
}

/// A part of a tool's text.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Part {
    /// Its name, structure, and anything not a part below.
    Whole,
    /// Its description.
    Description,
    /// One parameter (its schema, nested properties included).
    Param(String),
}

/// The keys of the JSON objects that hold a tool's parameter schema, across providers.
pub(crate) const SCHEMA_KEYS: [&str; 5] =
    ["parameters", "input_schema", "inputSchema", "parametersJsonSchema", "schema"];

/// A tool entry's name: an object with a string `name` and a string `description`.
pub(crate) fn entry_name(v: &Value) -> Option<&str> {
    match (v.get("name"), v.get("description")) {
        (Some(Value::String(n)), Some(Value::String(_))) if v.is_object() => Some(n),
        _ => None,
    }
}

/// How many tool entries `v` holds (itself included; entries are not searched inside).
fn entries_in(v: &Value) -> usize {
    if entry_name(v).is_some() {
        return 1;
    }
    match v {
        Value::Object(m) => m.values().map(entries_in).sum(),
        Value::Array(a) => a.iter().map(entries_in).sum(),
        _ => 0,
    }
}

/// The single tool entry inside `v`.
fn only_entry(v: &Value) -> Option<&str> {
    if let Some(n) = entry_name(v) {
        return Some(n);
    }
    let children: Box<dyn Iterator<Item = &Value>> = match v {
        Value::Object(m) => Box::new(m.values()),
        Value::Array(a) => Box::new(a.iter()),
        _ => return None,
    };
    children.filter(|c| entries_in(c) > 0).find_map(only_entry)
}

/// Where a value sits in a tools file, as far as owning its lines goes.
#[derive(Clone)]
enum At {
    /// Outside every tool.
    Free,
    /// A wrapper around one tool's entry.
    Wrapper(String),
    /// The tool's entry.
    Entry(String),
    /// The entry's parameter schema.
    Schema(String),
    /// The schema's `properties`.
    Properties(String),
    /// The schema's `required`.
    Required(String),
    /// Inside one part.
    Owned(String, Part),
}

impl At {
    /// The owner of the lines that open and close a value here.
    fn owner(&self) -> Option<Owner> {
        match self {
            At::Free => None,
            At::Owned(t, p) => Some(Owner::Tool(t.clone(), p.clone())),
            At::Wrapper(t) | At::Entry(t) | At::Schema(t) | At::Properties(t) | At::Required(t) => {
                Some(Owner::Tool(t.clone(), Part::Whole))
            }
        }
    }

    /// Where a child sits: under `key` (an object's) with value `v`.
    fn child(&self, key: Option<&str>, v: &Value) -> At {
        match self {
            At::Free => match (entry_name(v), entries_in(v)) {
                (Some(n), _) => At::Entry(n.to_string()),
                (None, 1) => only_entry(v).map_or(At::Free, |n| At::Wrapper(n.to_string())),
                _ => At::Free,
            },
            At::Wrapper(t) => match entry_name(v) {
                Some(n) if n == t => At::Entry(t.clone()),
                _ if entries_in(v) == 1 => At::Wrapper(t.clone()),
                _ => At::Owned(t.clone(), Part::Whole),
            },
            At::Entry(t) => match key {
                Some("description") => At::Owned(t.clone(), Part::Description),
                Some(k) if SCHEMA_KEYS.contains(&k) => At::Schema(t.clone()),
                _ => At::Owned(t.clone(), Part::Whole),
            },
            At::Schema(t) => match key {
                Some("properties") if v.is_object() => At::Properties(t.clone()),
                Some("required") if v.is_array() => At::Required(t.clone()),
                _ => At::Owned(t.clone(), Part::Whole),
            },
            At::Properties(t) => At::Owned(t.clone(), Part::Param(key.unwrap_or_default().to_string())),
            At::Required(t) => match v {
                Value::String(p) => At::Owned(t.clone(), Part::Param(p.clone())),
                _ => At::Owned(t.clone(), Part::Whole),
            },
            At::Owned(t, p) => At::Owned(t.clone(), p.clone()),
        }
    }
}

/// Lines of `v` printed as promptc prints JSON (two-space indent), each with its owner.
fn print(v: &Value, at: &At, indent: usize, prefix: &str, suffix: &str, out: &mut Vec<(String, Option<Owner>)>) {
    let pad = "  ".repeat(indent);
    let scalar = |v: &Value| serde_json::to_string(v).unwrap_or_default(); // ok: a Value always serialises
    match v {
        Value::Array(a) if !a.is_empty() => {
            out.push((format!("{pad}{prefix}["), at.owner()));
            for (i, x) in a.iter().enumerate() {
                let comma = if i + 1 < a.len() { "," } else { "" };
                print(x, &at.child(None, x), indent + 1, "", comma, out);
            }
            out.push((format!("{pad}]{suffix}"), at.owner()));
        }
        Value::Object(m) if !m.is_empty() => {
            out.push((format!("{pad}{prefix}{{"), at.owner()));
            for (i, (k, x)) in m.iter().enumerate() {
                let comma = if i + 1 < m.len() { "," } else { "" };
                let key = format!("{}: ", scalar(&Value::String(k.clone())));
                print(x, &at.child(Some(k), x), indent + 1, &key, comma, out);
            }
            out.push((format!("{pad}}}{suffix}"), at.owner()));
        }
        _ => out.push((format!("{pad}{prefix}{}{suffix}", scalar(v)), at.owner())),
    }
}

/// The owner of each line of a snapshot JSON file (`None` for every line when the text is not
/// promptc's print of its JSON): tools in a tools file, messages in a messages file.
pub(crate) fn json_owners(file: &str, text: &str) -> Option<Vec<Option<Owner>>> {
    let v: Value = serde_json::from_str(text).ok()?;
    let mut lines = Vec::new();
    if file.ends_with(".messages.json") {
        let Value::Array(messages) = &v else { return None };
        lines.push(("[".to_string(), None));
        for (i, m) in messages.iter().enumerate() {
            let comma = if i + 1 < messages.len() { "," } else { "" };
            let at = At::Owned(String::new(), Part::Whole);
            let start = lines.len();
            print(m, &at, 1, "", comma, &mut lines);
            lines[start..].iter_mut().for_each(|l| l.1 = Some(Owner::Message(i + 1)));
        }
        lines.push(("]".to_string(), None));
        if messages.is_empty() {
            lines = vec![("[]".to_string(), None)];
        }
    } else {
        // The file's own brackets are no tool's, even around a single tool.
        let root = entry_name(&v).map_or(At::Free, |n| At::Entry(n.to_string()));
        print(&v, &root, 0, "", "", &mut lines);
    }
    let same = lines.len() == text.lines().count() && lines.iter().zip(text.lines()).all(|((l, _), t)| l == t);
    same.then(|| lines.into_iter().map(|(_, o)| o).collect())
}

/// The texts of one tool, as the tools files of one side hold them (every provider's, every
/// profile's wording).
#[derive(Debug, Default, Clone)]
pub(crate) struct ToolTexts {
    /// Its descriptions.
    pub(crate) descriptions: BTreeSet<String>,
    /// Each parameter's descriptions, by name.
    pub(crate) params: BTreeMap<String, BTreeSet<String>>,
}

/// Every tool of one side's tools files, by name.
pub(crate) type ToolIndex = BTreeMap<String, ToolTexts>;

/// Add the tools of a tools file's JSON to `index`.
pub(crate) fn index_tools(v: &Value, index: &mut ToolIndex) {
    if let Some(name) = entry_name(v) {
        let t = index.entry(name.to_string()).or_default();
        if let Some(Value::String(d)) = v.get("description") {
            t.descriptions.insert(d.clone());
        }
        for k in SCHEMA_KEYS {
            if let Some(Value::Object(props)) = v.get(k).and_then(|s| s.get("properties")) {
                for (p, s) in props {
                    let texts = t.params.entry(p.clone()).or_default();
                    if let Some(Value::String(d)) = s.get("description") {
                        texts.insert(d.clone());
                    }
                }
            }
        }
        return;
    }
    match v {
        Value::Object(m) => m.values().for_each(|x| index_tools(x, index)),
        Value::Array(a) => a.iter().for_each(|x| index_tools(x, index)),
        _ => {}
    }
}

/// Where `word` occurs in `line` as a whole word (not inside a longer name), first.
fn word_at(line: &str, word: &str) -> Option<usize> {
    let is_name = |c: char| c.is_alphanumeric() || c == '_';
    let mut from = 0;
    while let Some(i) = line[from..].find(word) {
        let at = from + i;
        let before = line[..at].chars().next_back();
        let after = line[at + word.len()..].chars().next();
        if !before.is_some_and(is_name) && !after.is_some_and(is_name) {
            return Some(at);
        }
        from = at + word.len().max(1);
    }
    None
}

/// The shortest description that marks a tool's block (a shorter one may be any line's).
const MIN_MARK: usize = 12;

/// Whether `line` holds (a line of) one of `texts`.
fn holds(line: &str, texts: &BTreeSet<String>) -> bool {
    let t = line.trim();
    texts.iter().any(|d| {
        let first = d.lines().next().unwrap_or_default().trim();
        (first.len() >= MIN_MARK && t.contains(first)) || (t.len() >= MIN_MARK && d.contains(t))
    })
}

/// How many lines above a tool's description line its name may be (`## read_file`).
const NAME_ABOVE: usize = 2;

/// The owner of each line of a prompt: the lines of each tool's block (see the module's
/// documentation), by the tools of `index`.
pub(crate) fn prompt_owners(text: &str, index: &ToolIndex) -> Vec<Option<Owner>> {
    let lines: Vec<&str> = text.lines().collect();
    let mut owners: Vec<Option<Owner>> = vec![None; lines.len()];
    // Each block's first line and its tool, from the description lines whose tool is named
    // on them or just above.
    // One pass over each line finds every description in it (thousands of tools cost as one).
    let marks: Vec<(&str, &str)> = index
        .iter()
        .flat_map(|(name, t)| {
            t.descriptions.iter().map(move |d| (d.lines().next().unwrap_or_default().trim(), name.as_str()))
        })
        .filter(|(d, _)| d.len() >= MIN_MARK)
        .collect();
    let Ok(ac) = aho_corasick::AhoCorasick::new(marks.iter().map(|(d, _)| d)) else { return owners };
    let mut starts: Vec<(usize, &str)> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        for m in ac.find_overlapping_iter(line) {
            let name = marks[m.pattern().as_usize()].1;
            let named = (i.saturating_sub(NAME_ABOVE)..=i).find(|&j| word_at(lines[j], name).is_some());
            if let Some(j) = named {
                if !starts.contains(&(j, name)) {
                    starts.push((j, name));
                }
            }
        }
    }
    starts.sort();
    for (k, &(start, name)) in starts.iter().enumerate() {
        let next = starts.get(k + 1).map_or(lines.len(), |s| s.0);
        let t = &index[name];
        for i in start..next {
            if lines[i].trim().is_empty() {
                break;
            }
            let part = if holds(lines[i], &t.descriptions) {
                Part::Description
            } else {
                // The parameter named first on the line (its description marks it too).
                let named = t
                    .params
                    .iter()
                    .filter_map(|(p, d)| {
                        word_at(lines[i], p).map(|at| (at, p)).or_else(|| holds(lines[i], d).then_some((usize::MAX, p)))
                    })
                    .min();
                named.map_or(Part::Whole, |(_, p)| Part::Param(p.clone()))
            };
            owners[i] = Some(Owner::Tool(name.to_string(), part));
        }
    }
    owners
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tools_file_is_owned_line_by_line() {
        let v = serde_json::json!([{"type": "function", "function": {"name": "read", "description": "Read it.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}}]);
        let text = crate::json::to_pretty_json(&v);
        let owners = json_owners("a.openai.tools.json", &text).expect("promptc's own print");
        let lines: Vec<(&str, Option<Owner>)> = text.lines().map(str::trim).zip(owners).collect();
        let tool = |p: Part| Some(Owner::Tool("read".into(), p));
        assert_eq!(lines[0], ("[", None));
        assert_eq!(lines[2], ("\"type\": \"function\",", tool(Part::Whole)));
        assert_eq!(lines[5], ("\"description\": \"Read it.\",", tool(Part::Description)));
        assert!(lines.contains(&("\"type\": \"string\"", tool(Part::Param("path".into())))), "{lines:#?}");
        assert!(lines.contains(&("\"path\"", tool(Part::Param("path".into())))), "{lines:#?}");
        assert_eq!(json_owners("a.openai.tools.json", &text.replace("  ", "   ")), None);
    }

    #[test]
    fn a_prompt_block_is_owned_by_its_tool_and_parameters() {
        let mut index = ToolIndex::new();
        let t = index.entry("read_file".into()).or_default();
        t.descriptions.insert("Read the contents of a file.".into());
        t.params.insert("path".into(), BTreeSet::new());
        let text = "# Tools\n\n## read_file\nDescription: Read the contents of a file.\nParameters:\n\
                    - path: (required, string) Where.\nUsage:\n<read_file>\n<path>path here</path>\n</read_file>\n\n\
                    # Rules\n- read_file first.\n";
        let owners = prompt_owners(text, &index);
        let tool = |p: Part| Some(Owner::Tool("read_file".into(), p));
        let path = tool(Part::Param("path".into()));
        assert_eq!(owners[..2], [None, None]);
        assert_eq!(
            owners[2..10],
            [
                tool(Part::Whole),
                tool(Part::Description),
                tool(Part::Whole),
                path.clone(),
                tool(Part::Whole),
                tool(Part::Whole),
                path,
                tool(Part::Whole)
            ]
        );
        assert_eq!(owners[10..], [None, None, None]);
    }
}
