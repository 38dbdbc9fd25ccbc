//! The report page: every account of a report, the prompt of each cell split into its
//! sections, and each native account's tool definitions, for the page's script to show as a
//! matrix overview, a treemap per cell, the prompt and tools, and a comparison of two cells.
//!
//! The figures are the report's own: the island's `report` member is exactly the document
//! `report --format json` prints for the same cells (one accounting model). Texts shared by
//! several cells (a section in every profile, a tool in every cell) are stored once, in
//! `texts`, and referred to by index, so the page of the whole matrix stays small.

use std::collections::{BTreeMap, HashMap};

use serde_json::{json, Value};

use crate::compile::Compiled;
use crate::measure::account::{projection_for, Account};
use crate::model::Project;
use crate::output::html::{document, escape, Page};
use crate::projection;
use crate::resolve::matrix::Cell;

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
/// index of the first segment after the cacheable prefix.
fn segments(c: &Compiled, texts: &mut Texts) -> (Vec<Segment>, usize) {
    let prompt = c.prompt.as_str();
    let mut placed: Vec<(usize, usize)> =
        c.offsets.iter().enumerate().filter_map(|(i, o)| o.map(|at| (at, i))).collect();
    placed.sort();
    let mut out = Vec::new();
    let mut at = 0;
    let mut cache_segment = None;
    let gap = |out: &mut Vec<Segment>, from: usize, to: usize, texts: &mut Texts| {
        if let Some(t) = prompt.get(from..to).filter(|t| !t.is_empty()) {
            out.push((None, texts.id(t)));
        }
    };
    for (start, i) in placed {
        let end = start + c.sections[i].text.len();
        if start < at || end > prompt.len() {
            continue; // a section whose text overlaps another's (a layout that repeats it) shows once
        }
        gap(&mut out, at, start, texts);
        if cache_segment.is_none() && start >= c.prefix.bytes {
            cache_segment = Some(out.len());
        }
        out.push((Some(i), texts.id(&prompt[start..end])));
        at = end;
    }
    gap(&mut out, at, prompt.len(), texts);
    let n = out.len();
    (out, cache_segment.unwrap_or(if c.prefix.bytes >= prompt.len() { n } else { n.saturating_sub(1) }))
}

/// The page's data: the report document, the text table, each cell's segments and each native
/// account's tool definitions (pretty JSON, one entry per tool, in order).
pub fn data(project: &Project, compiled: &[(Cell, Compiled)], accounts: &[Account]) -> Value {
    let mut texts = Texts::default();
    let by_stem: BTreeMap<String, &Compiled> = compiled.iter().map(|(cell, c)| (cell.stem(), c)).collect();
    let mut cells = serde_json::Map::new();
    for (stem, c) in &by_stem {
        let (segs, cache_segment) = segments(c, &mut texts);
        let segs: Vec<Value> = segs.iter().map(|(s, t)| json!([s, t])).collect();
        cells.insert(stem.clone(), json!({ "segments": segs, "cache_segment": cache_segment }));
    }
    let mut tools = serde_json::Map::new();
    for a in accounts {
        let (Some(provider), Some(c)) = (a.provider, by_stem.get(&a.cell)) else { continue };
        let v = projection_for(project, c, provider);
        let entries: Vec<Value> = projection::tool_entries(provider, &v)
            .into_iter()
            .map(|e| Value::from(texts.id(crate::json::to_pretty_json(e).trim_end())))
            .collect();
        tools.insert(a.name.clone(), Value::Array(entries));
    }
    json!({
        "format": crate::json::OUTPUT_FORMAT,
        "kind": "report",
        "project": project.name,
        "generator": format!("promptc {}", env!("CARGO_PKG_VERSION")),
        "report": crate::json::document_value(json!({ "accounts": accounts })),
        "texts": texts.list,
        "cells": cells,
        "tools": tools,
    })
}

/// The report page of `accounts` (with the compiled cells they measure).
pub fn render(project: &Project, compiled: &[(Cell, Compiled)], accounts: &[Account]) -> String {
    let data = data(project, compiled, accounts);
    let title = format!("promptc report: {}", project.name);
    let body = BODY.replace("{{title}}", &escape(&title));
    document(&Page { kind: "report", title: &title, body: &body, data: Some(&data), script: Some(SCRIPT) })
}
