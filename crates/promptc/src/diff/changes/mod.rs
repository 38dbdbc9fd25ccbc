//! What changed, by name: the line changes of every modified file grouped into the changes the
//! user made — a tool added or removed, a parameter added, removed or changed, a tool's
//! description changed, a section or a harness message changed — each decided once by a
//! reviewer, with its own token figure in each account it reaches (from the summaries' items:
//! a tool's, its description's, a parameter's, a section's, a message's; never a cell's total).
//!
//! Which item a line belongs to is read from the files (`owners`: tools and messages files
//! exactly, the tools' blocks of a prompt by their texts); a region of the diff is cut where its
//! owners change (`runs`), and the runs of one change gather across files: every provider's JSON
//! and the XML tool docs carrying the same edit are one change. An item whose lines read the
//! same on both sides of a file changed nothing there: its lines go with the change beside
//! them. A region no tool's block holds is named by the changed tool text it carries (`text`).
//! Lines no item owns are grouped by their text, titled with the one section they change when
//! the deltas say which (`section`). Each change
//! knows its files and line ranges, so a caller can take some changes of a file and keep the
//! others ([`apply`]).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::{Delta, FileChange, Status};

mod owners;
mod runs;
mod section;
mod text;

pub(crate) use runs::{apply, Run};

use owners::{Owner, Part, ToolIndex};
use section::one_section;
use text::{show_run, text_changes, Texts};

/// What a change is, as the user made it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Kind {
    /// A tool the old side lacks.
    ToolAdded,
    /// A tool the new side lacks.
    ToolRemoved,
    /// A tool's own text (its name's lines, its structure) with no part of it changed.
    ToolChanged,
    /// A tool's description.
    DescriptionChanged,
    /// A parameter of a tool the old side lacks.
    ParameterAdded,
    /// A parameter of a tool the new side lacks.
    ParameterRemoved,
    /// A parameter's schema or description.
    ParameterChanged,
    /// A section's text.
    SectionChanged,
    /// A harness message's text.
    MessageChanged,
    /// Lines promptc cannot name.
    Lines,
    /// A whole file added, removed, or too large to diff by line.
    File,
}

/// One change: what it is, the lines once, every place it occurs, and its own figures.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Change {
    /// What it is.
    pub kind: Kind,
    /// What it changes, as the deltas name items (`tool read_file`, `section rules`,
    /// `message 1`, `file NAME`); empty when promptc cannot name it.
    pub subject: String,
    /// Which part of the subject (`description`, `parameter path`); what happened to a whole
    /// file (`new`); empty for a whole tool, section or message, and for unnamed lines.
    pub fields: Vec<String>,
    /// The change once: `-` old and `+` new lines (a text of a tool split at sentences), long
    /// lines shortened around what changed.
    pub diff: String,
    /// The files it changes, sorted.
    pub files: Vec<String>,
    /// Stable while the change is the same (a hash of what it is and its texts): what
    /// `--accept`/`--reject` and a resumed review name it by.
    pub key: String,
    /// Its own figure in each account it reaches: the deltas of the item it changes (the tool
    /// for a tool added, the parameter for a parameter added, the description, the section),
    /// in the accounts of its files; empty when the summaries hold no figure for it.
    pub deltas: Vec<Delta>,
    /// Where it is: each file and its lines (`None`: the whole file).
    #[serde(skip)]
    pub(crate) places: Vec<(String, Option<Run>)>,
}

impl Change {
    /// Whether the change is a whole file (added, removed, too large to diff by line).
    pub fn is_file(&self) -> bool {
        self.kind == Kind::File
    }

    /// The subject's name without its kind (`read_file` of `tool read_file`).
    pub fn name(&self) -> &str {
        self.subject.split_once(' ').map_or(self.subject.as_str(), |(_, n)| n)
    }

    /// The parameter a change to one is about.
    pub fn parameter(&self) -> Option<&str> {
        self.fields.first().and_then(|f| f.strip_prefix("parameter "))
    }

    /// What happened, in words after the subject: `added`, `description changed`,
    /// `parameter path added`, `changed`.
    pub fn what(&self) -> String {
        let p = self.parameter().unwrap_or_default();
        match self.kind {
            Kind::ToolAdded => "added".into(),
            Kind::ToolRemoved => "removed".into(),
            Kind::ToolChanged | Kind::SectionChanged | Kind::MessageChanged => "changed".into(),
            Kind::DescriptionChanged => "description changed".into(),
            Kind::ParameterAdded => format!("parameter {p} added"),
            Kind::ParameterRemoved => format!("parameter {p} removed"),
            Kind::ParameterChanged => format!("parameter {p} changed"),
            Kind::Lines => format!("in {}", files_phrase(&self.files)),
            Kind::File => self.fields.join("; "),
        }
    }

    /// `tool read_file: parameter path added`, `tool web_fetch added`, `section rules changed`,
    /// `lines in a.md`, `file a.md, new` — the change in words.
    pub fn title(&self) -> String {
        match self.kind {
            Kind::Lines => format!("lines {}", self.what()),
            Kind::File => format!("{}, {}", self.subject, self.what()),
            Kind::DescriptionChanged | Kind::ParameterAdded | Kind::ParameterRemoved | Kind::ParameterChanged => {
                format!("{}: {}", self.subject, self.what())
            }
            _ => format!("{} {}", self.subject, self.what()),
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

/// What a run of lines is a change to: its kind, subject and field.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Ident {
    kind: Kind,
    subject: String,
    field: Option<String>,
}

impl runs::Owned for Ident {
    fn supports(&self, other: &Self) -> bool {
        self.kind == Kind::ToolChanged && other.subject == self.subject
    }
}

impl Ident {
    fn tool(kind: Kind, tool: &str, field: Option<String>) -> Ident {
        Ident { kind, subject: format!("tool {tool}"), field }
    }

    /// The delta item that holds its own figure.
    fn item(&self) -> Option<String> {
        match (self.kind, &self.field) {
            (
                Kind::ToolAdded | Kind::ToolRemoved | Kind::ToolChanged | Kind::SectionChanged | Kind::MessageChanged,
                _,
            ) => Some(self.subject.clone()),
            (
                Kind::DescriptionChanged | Kind::ParameterAdded | Kind::ParameterRemoved | Kind::ParameterChanged,
                Some(f),
            ) => Some(format!("{}, {f}", self.subject)),
            _ => None,
        }
    }
}

/// The tools and parameters one side of a file has, by its owned lines.
#[derive(Default)]
struct Present {
    tools: BTreeSet<String>,
    params: BTreeSet<(String, String)>,
}

impl Present {
    fn of(owners: &[Option<Owner>]) -> Present {
        let mut p = Present::default();
        for o in owners.iter().flatten() {
            if let Owner::Tool(t, part) = o {
                p.tools.insert(t.clone());
                if let Part::Param(n) = part {
                    p.params.insert((t.clone(), n.clone()));
                }
            }
        }
        p
    }
}

/// The change a line of a file is part of, by its owner and what each side has.
fn ident(owner: &Owner, old: &Present, new: &Present) -> Ident {
    match owner {
        Owner::Message(n) => Ident { kind: Kind::MessageChanged, subject: format!("message {n}"), field: None },
        Owner::Tool(t, part) => {
            let (in_old, in_new) = (old.tools.contains(t), new.tools.contains(t));
            match (in_old, in_new, part) {
                (false, _, _) => Ident::tool(Kind::ToolAdded, t, None),
                (_, false, _) => Ident::tool(Kind::ToolRemoved, t, None),
                (_, _, Part::Whole) => Ident::tool(Kind::ToolChanged, t, None),
                (_, _, Part::Description) => Ident::tool(Kind::DescriptionChanged, t, Some("description".into())),
                (_, _, Part::Param(p)) => {
                    let key = (t.clone(), p.clone());
                    let kind = match (old.params.contains(&key), new.params.contains(&key)) {
                        (false, _) => Kind::ParameterAdded,
                        (_, false) => Kind::ParameterRemoved,
                        _ => Kind::ParameterChanged,
                    };
                    Ident::tool(kind, t, Some(format!("parameter {p}")))
                }
            }
        }
    }
}

/// The owner of each line of one side of a file.
fn owners_of(file: &str, text: &str, index: &ToolIndex) -> Vec<Option<Owner>> {
    let lines = text.split_inclusive('\n').count();
    let owned = if file.ends_with(".json") {
        owners::json_owners(file, text)
    } else {
        Some(owners::prompt_owners(text, index))
    };
    match owned {
        Some(o) if o.len() == lines => o,
        _ => vec![None; lines],
    }
}

/// Leave unowned the lines of every item whose lines read the same on both sides of a file
/// (trailing commas aside): it did not change there, and a diff that aligns its lines with a
/// neighbour's identical ones (`},` and `"strict": true` closing two entries alike) must not
/// credit it with a change. Such lines go with the change beside them.
fn unown_unchanged(old: (&[&str], &mut [Option<Owner>]), new: (&[&str], &mut [Option<Owner>])) {
    let text = |lines: &[&str], owners: &[Option<Owner>]| -> BTreeMap<Owner, String> {
        let mut out: BTreeMap<Owner, String> = BTreeMap::new();
        for (l, o) in lines.iter().zip(owners.iter()) {
            if let Some(o) = o {
                let slot = out.entry(o.clone()).or_default();
                slot.push_str(l.trim_end_matches(['\n', '\r']).trim_end_matches(','));
                slot.push('\n');
            }
        }
        out
    };
    let (a, b) = (text(old.0, old.1), text(new.0, new.1));
    let same: BTreeSet<&Owner> = a.iter().filter(|(o, t)| b.get(*o) == Some(t)).map(|(o, _)| o).collect();
    for o in old.1.iter_mut().chain(new.1.iter_mut()) {
        if o.as_ref().is_some_and(|x| same.contains(x)) {
            *o = None;
        }
    }
}

/// A run of lines of one file that is part of a change, with its text (its removed lines, a
/// NUL, its added lines): what a change's key and its byte change are read from.
struct Place {
    file: String,
    run: Run,
    text: String,
}

/// The changes being gathered: by what they are, in order of first appearance.
#[derive(Default)]
struct Gathered {
    list: Vec<(Ident, Vec<Place>)>,
    index: BTreeMap<Ident, usize>,
}

impl Gathered {
    fn add(&mut self, id: Ident, file: &str, run: Run, text: String) {
        let at = *self.index.entry(id.clone()).or_insert_with(|| {
            self.list.push((id, Vec::new()));
            self.list.len() - 1
        });
        self.list[at].1.push(Place { file: file.to_string(), run, text });
    }
}

/// Group every line change of the modified files into named changes, in order of first
/// appearance (files sorted by name); each file added, removed or too large to diff by line is
/// a change of its own (`file NAME`), after them. Each change's figures are read from `deltas`.
pub fn changes(
    old: &BTreeMap<String, String>,
    new: &BTreeMap<String, String>,
    files: &[FileChange],
    deltas: &[Delta],
) -> Vec<Change> {
    let summary = crate::output::snapshot::SUMMARY;
    let modified: Vec<&FileChange> =
        files.iter().filter(|f| f.status == Status::Modified && !f.too_large && f.file != summary).collect();
    // Each side's tools, from the tools files that changed: what marks their blocks in prompts.
    let (mut old_tools, mut new_tools) = (ToolIndex::new(), ToolIndex::new());
    for f in files.iter().filter(|f| f.status == Status::Modified && f.file.ends_with(".tools.json")) {
        for (side, index) in [(old, &mut old_tools), (new, &mut new_tools)] {
            if let Some(v) = side.get(&f.file).and_then(|t| serde_json::from_str(t).ok()) {
                owners::index_tools(&v, index);
            }
        }
    }
    let texts = Texts::new(text_changes(old, new, files));
    // Named changes, and lines no item owns grouped by their text, in order of first appearance.
    let mut gathered_all = Gathered::default();
    for f in &modified {
        let (Some(a), Some(b)) = (old.get(&f.file), new.get(&f.file)) else { continue };
        let (ol, nl): (Vec<&str>, Vec<&str>) = (a.split_inclusive('\n').collect(), b.split_inclusive('\n').collect());
        let (mut oo, mut no) = (owners_of(&f.file, a, &old_tools), owners_of(&f.file, b, &new_tools));
        let (po, pn) = (Present::of(&oo), Present::of(&no));
        unown_unchanged((&ol, &mut oo), (&nl, &mut no));
        let oi: Vec<Option<Ident>> = oo.iter().map(|o| o.as_ref().map(|o| ident(o, &po, &pn))).collect();
        let ni: Vec<Option<Ident>> = no.iter().map(|o| o.as_ref().map(|o| ident(o, &po, &pn))).collect();
        for region in runs::regions(&ol, &nl) {
            for (run, id) in runs::cut(&region, (&ol, &oi), (&nl, &ni)) {
                let (removed, added) = (&ol[run.old.clone()], &nl[run.new.clone()]);
                let text = format!("{}\0{}", removed.concat(), added.concat());
                match id.or_else(|| texts.explain(removed, added)) {
                    Some(id) => gathered_all.add(id, &f.file, run, text),
                    None => {
                        let id = Ident { kind: Kind::Lines, subject: String::new(), field: Some(text.clone()) };
                        gathered_all.add(id, &f.file, run, text);
                    }
                }
            }
        }
    }
    let mut out: Vec<Change> = Vec::new();
    for (id, places) in gathered_all.list {
        out.push(gathered(id, places, &texts, (old, new), deltas));
    }
    // A tool's own lines are credited its whole figure only when nothing else of it changed.
    let parts: BTreeSet<String> = out
        .iter()
        .filter(|c| c.subject.starts_with("tool ") && c.kind != Kind::ToolChanged)
        .map(|c| c.subject.clone())
        .collect();
    for c in out.iter_mut().filter(|c| c.kind == Kind::ToolChanged && parts.contains(&c.subject)) {
        c.deltas.clear();
    }
    for f in files.iter().filter(|f| f.file != summary) {
        if f.status != Status::Modified || f.too_large {
            out.push(whole_file(f, old.get(&f.file), new.get(&f.file)));
        }
    }
    out
}

/// One change from its runs: its diff (shown from a prompt when it has one: easier read than
/// JSON), files, key and figures.
fn gathered(
    mut id: Ident,
    places: Vec<Place>,
    texts: &Texts,
    (old, new): (&BTreeMap<String, String>, &BTreeMap<String, String>),
    deltas: &[Delta],
) -> Change {
    let mut files: Vec<String> = places.iter().map(|p| p.file.clone()).collect();
    files.sort();
    files.dedup();
    if id.kind == Kind::Lines {
        if let Some(section) = one_section(&places, deltas) {
            id = Ident { kind: Kind::SectionChanged, subject: format!("section {section}"), field: id.field };
        }
    }
    let shown = files.iter().find(|f| !f.ends_with(".json")).unwrap_or(&files[0]).clone();
    let diff = texts.diff(&id).unwrap_or_else(|| {
        let lines = |m: &BTreeMap<String, String>| -> Vec<String> {
            m.get(&shown).map(|t| t.split_inclusive('\n').map(str::to_string).collect()).unwrap_or_default()
        };
        let (ol, nl) = (lines(old), lines(new));
        places
            .iter()
            .filter(|p| p.file == shown)
            .map(|Place { run: r, .. }| {
                let removed: Vec<&str> = ol.get(r.old.clone()).unwrap_or_default().iter().map(String::as_str).collect();
                let added: Vec<&str> = nl.get(r.new.clone()).unwrap_or_default().iter().map(String::as_str).collect();
                show_run(&removed, &added)
            })
            .collect()
    });
    let mut each: Vec<&str> = places.iter().map(|p| p.text.as_str()).collect();
    each.sort_unstable();
    each.dedup();
    let named =
        if id.kind == Kind::Lines { String::new() } else { format!("{:?}\0{}\0{:?}", id.kind, id.subject, id.field) };
    let key_text = format!("{named}\0\0{}", each.join("\0\0"));
    let own = id.item().map(|item| {
        deltas
            .iter()
            .filter(|d| d.item == item && files.iter().any(|f| account_of(&d.cell, stem(f))))
            .cloned()
            .collect()
    });
    let fields = match id.kind {
        Kind::DescriptionChanged | Kind::ParameterAdded | Kind::ParameterRemoved | Kind::ParameterChanged => {
            id.field.iter().cloned().collect()
        }
        _ => Vec::new(),
    };
    Change {
        kind: id.kind,
        subject: id.subject,
        fields,
        diff,
        files,
        key: crate::hash::sha256_hex(key_text.as_bytes())[..12].to_string(),
        deltas: own.unwrap_or_default(),
        places: places.into_iter().map(|p| (p.file, Some(p.run))).collect(),
    }
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
        kind: Kind::File,
        subject: format!("file {}", f.file),
        fields: vec![what],
        diff,
        files: vec![f.file.clone()],
        key: crate::hash::sha256_hex(key_text.as_bytes())[..12].to_string(),
        deltas: Vec::new(),
        places: vec![(f.file.clone(), None)],
    }
}

#[cfg(test)]
mod tests;
