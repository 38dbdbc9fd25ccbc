//! The report page: every account of a report, the prompt of each cell split into its
//! sections, and each native account's tool definitions, for the page's script to show as a
//! matrix overview, a treemap per cell, the prompt and tools, and a comparison of two cells.
//!
//! The figures are the report's own: the island's `report` member is exactly the document
//! `report --format json` prints for the same cells (one accounting model). Texts shared by
//! several cells (a section in every profile, a tool in every cell) are stored once, in
//! `texts`, and referred to by index, so the page of the whole matrix stays small.

use std::collections::{BTreeMap, HashMap};

use indexmap::IndexMap;
use serde::Serialize;

use crate::compile::Compiled;
use crate::error::Result;
use crate::measure::account::{projection_for, Account};
use crate::model::Project;
use crate::output::html::{document, escape, island, Page};
use crate::projection;

/// The page's script.
const SCRIPT: &str = include_str!("report.js");

/// The page's markup: the containers the script fills, and what a reader without script sees.
const BODY: &str = include_str!("report.html");

/// A table of distinct strings, each stored once and referred to by index.
#[derive(Default)]
struct Texts {
    list: Vec<String>,
    index: HashMap<String, usize>,
}

impl Texts {
    fn id(&mut self, text: &str) -> usize {
        if let Some(i) = self.index.get(text) {
            return *i;
        }
        let i = self.list.len();
        self.list.push(text.to_string());
        self.index.insert(text.to_string(), i);
        i
    }
}

/// One piece of a prompt: a section (its index among the cell's sections) or the layout text
/// between sections (`None`), as an index into the text table.
type Segment = (Option<usize>, usize);

/// `c`'s prompt cut into its sections and the text between them, in prompt order, and the
/// index of the first segment not wholly in the cacheable prefix.
fn segments(c: &Compiled, texts: &mut Texts) -> (Vec<Segment>, usize) {
    let prompt = c.prompt.as_str();
    let mut placed: Vec<(usize, usize)> =
        c.offsets.iter().enumerate().filter_map(|(i, o)| o.map(|at| (at, i))).collect();
    placed.sort();
    let mut out = Vec::new();
    let mut at = 0;
    // Where each segment ends: the cache segment is the one holding the cut (the first byte
    // another session changes), so what the page shows before it is all cacheable.
    let mut ends = Vec::new();
    let gap = |out: &mut Vec<Segment>, ends: &mut Vec<usize>, from: usize, to: usize, texts: &mut Texts| {
        if let Some(t) = prompt.get(from..to).filter(|t| !t.is_empty()) {
            out.push((None, texts.id(t)));
            ends.push(to);
        }
    };
    for (start, i) in placed {
        let end = start + c.sections[i].text.len();
        if start < at || end > prompt.len() {
            continue; // a section whose text overlaps another's (a layout that repeats it) shows once
        }
        gap(&mut out, &mut ends, at, start, texts);
        out.push((Some(i), texts.id(&prompt[start..end])));
        ends.push(end);
        at = end;
    }
    gap(&mut out, &mut ends, at, prompt.len(), texts);
    let cache_segment = ends.iter().position(|&end| end > c.prefix.bytes).unwrap_or(out.len());
    (out, cache_segment)
}

/// The report document as `report --format json` prints it (`"format"` first).
#[derive(Serialize)]
struct ReportDocument<'a> {
    format: u64,
    accounts: &'a [Account],
}

/// One cell's prompt: its segments and where the cacheable prefix ends.
#[derive(Serialize)]
struct CellPrompt {
    segments: Vec<Segment>,
    cache_segment: usize,
}

/// The page's data, serialised straight to the island (no intermediate `Value`).
#[derive(Serialize)]
pub struct Data<'a> {
    format: u64,
    kind: &'static str,
    project: &'a str,
    generator: String,
    report: ReportDocument<'a>,
    texts: Vec<String>,
    cells: BTreeMap<String, CellPrompt>,
    tools: IndexMap<String, Vec<usize>>,
    /// Each native cell's text through each of the project's chat templates covering it:
    /// `[template, text id]` pairs, by cell.
    chat: BTreeMap<String, Vec<(String, usize)>>,
}

/// The page's data: the report document, the text table, each cell's segments and each native
/// account's tool definitions (pretty JSON, one entry per tool, in order).
pub fn data<'a>(project: &'a Project, compiled: &[Compiled], accounts: &'a [Account]) -> Result<Data<'a>> {
    let mut texts = Texts::default();
    let by_stem: BTreeMap<String, &Compiled> = compiled.iter().map(|c| (c.cell().stem(), c)).collect();
    let mut cells = BTreeMap::new();
    let mut chat = BTreeMap::new();
    let budget = crate::compile::RunBudget::new(project)?;
    for (stem, c) in &by_stem {
        budget.charge(c)?;
        let (segments, cache_segment) = segments(c, &mut texts);
        cells.insert(stem.clone(), CellPrompt { segments, cache_segment });
        let through: Vec<(String, usize)> = crate::chat::project_texts(project, c)?
            .into_iter()
            .map(|(name, chat)| (name, texts.id(&chat.text)))
            .collect();
        if !through.is_empty() {
            chat.insert(stem.clone(), through);
        }
    }
    let mut tools = IndexMap::new();
    for a in accounts {
        let (Some(provider), Some(c)) = (a.provider, by_stem.get(&a.cell)) else { continue };
        let v = projection_for(project, c, provider);
        let entries = projection::tool_entries(provider, &v)
            .into_iter()
            .map(|e| texts.id(crate::json::to_pretty_json(e).trim_end()))
            .collect();
        tools.insert(a.name.clone(), entries);
    }
    Ok(Data {
        format: crate::json::OUTPUT_FORMAT,
        kind: "report",
        project: &project.name,
        generator: format!("promptc {}", env!("CARGO_PKG_VERSION")),
        report: ReportDocument { format: crate::json::OUTPUT_FORMAT, accounts },
        texts: texts.list,
        cells,
        tools,
        chat,
    })
}

/// The report page of `accounts` (with the compiled cells they measure).
pub fn render(project: &Project, compiled: &[Compiled], accounts: &[Account]) -> Result<String> {
    let data = island(&data(project, compiled, accounts)?);
    let title = format!("promptc report: {}", project.name);
    let body = BODY.replace("{{title}}", &escape(&title));
    Ok(document(&Page { kind: "report", title: &title, body: &body, island: Some(&data), script: Some(SCRIPT) }))
}
