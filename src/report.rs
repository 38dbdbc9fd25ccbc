//! The report: where the prompt budget goes. One row per section (prompt order), one per tool
//! of the projection, totals, and budget checks — as a table, JSON, markdown or CSV.

use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;

use crate::budget::{Check, Scope, Unit};
use crate::compile::Compiled;
use crate::error::Result;
use crate::project::Project;
use crate::providers::{self, Provider};
use crate::tokens::{CacheStats, Counter};
use crate::transport::Transport;

/// Tokens and bytes of one piece of text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Measure {
    /// Tokens with the report's tokenizer.
    pub tokens: u64,
    /// UTF-8 bytes.
    pub bytes: u64,
}

impl Measure {
    fn of(counter: &mut Counter, text: &str) -> Result<Measure> {
        Ok(Measure { tokens: counter.count(text)?, bytes: text.len() as u64 })
    }

    fn plus(self, o: Measure) -> Measure {
        Measure { tokens: self.tokens + o.tokens, bytes: self.bytes + o.bytes }
    }

    fn get(self, unit: Unit) -> u64 {
        match unit {
            Unit::Tokens => self.tokens,
            Unit::Bytes => self.bytes,
        }
    }
}

/// One section's row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SectionRow {
    /// Section id.
    pub id: String,
    /// Its size.
    #[serde(flatten)]
    pub size: Measure,
    /// Share of the total tokens (prompt + tools), 0–1.
    pub share: f64,
    /// Whether it reads dynamic variables.
    pub dynamic: bool,
    /// Where it comes from.
    pub source: String,
}

/// One tool's row: the tokens of its own JSON entry (native) or XML block (xml).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolRow {
    /// Tool name.
    pub name: String,
    /// Its toolset.
    pub toolset: String,
    /// Its size.
    #[serde(flatten)]
    pub size: Measure,
    /// Share of the total tokens, 0–1.
    pub share: f64,
    /// True for xml and json, where the tool is described inside the prompt (the tool_docs or
    /// action_schema section).
    pub in_prompt: bool,
}

/// How the counts were made.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TokenizerInfo {
    /// Tokenizer name.
    pub name: String,
    /// Whether counts are exact.
    pub exact: bool,
    /// How counts are obtained.
    pub method: String,
}

/// Report totals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Totals {
    /// The prompt text.
    pub prompt: Measure,
    /// The tool projection sent beside the prompt (zero for XML).
    pub tools: Measure,
    /// Prompt plus tools.
    pub total: Measure,
}

/// The report of one cell.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// Project name.
    pub project: String,
    /// Profile.
    pub profile: String,
    /// Transport.
    pub transport: Transport,
    /// Provider (native only).
    pub provider: Option<Provider>,
    /// Tokenizer.
    pub tokenizer: TokenizerInfo,
    /// Sections in prompt order.
    pub sections: Vec<SectionRow>,
    /// Text outside sections: separators and layout headings (prompt minus sections).
    pub layout: Measure,
    /// Where that text comes from: the layout template, or the blank lines between sections.
    pub layout_source: String,
    /// Tools in projection order.
    pub tools: Vec<ToolRow>,
    /// Totals.
    pub totals: Totals,
    /// Every budget of the profile, checked.
    pub budgets: Vec<Check>,
    /// Each injectable slot: tools declaring a contribution, tools contributing, bytes.
    pub slots: Vec<crate::render::SlotUse>,
}

impl Report {
    /// Whether any budget is exceeded.
    pub fn over_budget(&self) -> bool {
        self.budgets.iter().any(|c| c.exceeded)
    }

    /// A one-line name of the cell: `standard.native.openai`.
    pub fn cell(&self) -> String {
        match self.provider {
            Some(p) => format!("{}.{}.{}", self.profile, self.transport, p),
            None => format!("{}.{}", self.profile, self.transport),
        }
    }
}

/// Every text a report of `c` counts: the prompt, each section, the whole projection and
/// each tool's JSON entry (native) or XML block (xml).
pub fn counted_texts(c: &Compiled) -> Vec<String> {
    let mut texts = vec![c.prompt.clone()];
    texts.extend(c.sections.iter().map(|s| s.text.clone()));
    match (&c.projection, c.provider) {
        (Some(projection), Some(provider)) => {
            texts.push(compact(projection));
            texts.extend(providers::tool_entries(provider, projection).into_iter().map(compact));
        }
        _ => texts.extend(c.tools.iter().map(|t| in_prompt_text(c.transport, t))),
    }
    texts
}

/// Measure a compiled cell.
pub fn build(project: &Project, c: &Compiled, counter: &mut Counter) -> Result<Report> {
    let texts = counted_texts(c);
    counter.prime(&texts.iter().map(String::as_str).collect::<Vec<_>>())?;
    let prompt = Measure::of(counter, &c.prompt)?;
    let mut sections = Vec::new();
    let mut in_sections = Measure::default();
    for s in &c.sections {
        let m = Measure::of(counter, &s.text)?;
        in_sections = in_sections.plus(m);
        sections.push(SectionRow {
            id: s.id.clone(),
            size: m,
            share: 0.0,
            dynamic: s.dynamic,
            source: s.origin.clone(),
        });
    }
    let mut tools = Vec::new();
    let tools_total = match (&c.projection, c.provider) {
        (Some(projection), Some(provider)) => {
            let entries = providers::tool_entries(provider, projection);
            for (t, entry) in c.tools.iter().zip(entries) {
                let m = Measure::of(counter, &compact(entry))?;
                tools.push(ToolRow {
                    name: t.name.clone(),
                    toolset: t.toolset.clone(),
                    size: m,
                    share: 0.0,
                    in_prompt: false,
                });
            }
            Measure::of(counter, &compact(projection))?
        }
        _ => {
            for t in &c.tools {
                let m = Measure::of(counter, &in_prompt_text(c.transport, t))?;
                tools.push(ToolRow {
                    name: t.name.clone(),
                    toolset: t.toolset.clone(),
                    size: m,
                    share: 0.0,
                    in_prompt: true,
                });
            }
            Measure::default()
        }
    };
    let total = prompt.plus(tools_total);
    let share = |tokens: u64| if total.tokens == 0 { 0.0 } else { tokens as f64 / total.tokens as f64 };
    for s in &mut sections {
        s.share = share(s.size.tokens);
    }
    for t in &mut tools {
        t.share = share(t.size.tokens);
    }
    let layout = Measure {
        tokens: prompt.tokens.saturating_sub(in_sections.tokens),
        bytes: prompt.bytes.saturating_sub(in_sections.bytes),
    };
    let totals = Totals { prompt, tools: tools_total, total };
    let budget = &project.profile(&c.selection.profile)?.budget;
    let mut budgets = Vec::new();
    for (scope, amount, measure) in [
        (Scope::Total, budget.total, total),
        (Scope::Prompt, budget.prompt, prompt),
        (Scope::Tools, budget.tools, tools_total),
    ] {
        if let Some(a) = amount {
            budgets.push(Check::new(scope, a, measure.get(a.unit)));
        }
    }
    for (id, a) in &budget.sections {
        let m = sections.iter().find(|s| &s.id == id).map(|s| s.size).unwrap_or_default();
        budgets.push(Check::new(Scope::Section(id.clone()), *a, m.get(a.unit)));
    }
    let t = counter.tokenizer();
    Ok(Report {
        project: project.name.clone(),
        profile: c.selection.profile.clone(),
        transport: c.transport,
        provider: c.provider,
        tokenizer: TokenizerInfo { name: t.name(), exact: t.exact(), method: t.method() },
        sections,
        layout,
        layout_source: project.layout.clone().unwrap_or_else(|| "blank lines between sections".into()),
        tools,
        totals,
        budgets,
        slots: c.slots.clone(),
    })
}

/// The text one tool adds to the prompt of an xml or json cell: its XML block, or its part
/// of the action schema (its rule and its parameters).
fn in_prompt_text(transport: Transport, t: &crate::catalog::ActiveTool) -> String {
    match transport {
        Transport::Json => compact(&crate::actions::tool_fragment(t)),
        Transport::Native | Transport::Xml => crate::xml::tool_block(t),
    }
}

fn compact(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default() // ok: a Value always serialises
}

/// The tokenizer for a report: `--tokenizer` wins, then a known `--model`, then the project's.
pub fn choose_tokenizer(
    project: &Project,
    name: Option<&str>,
    model: Option<&str>,
) -> Result<crate::tokens::Tokenizer> {
    let factors = &project.tokens.factors;
    if let Some(n) = name {
        return crate::tokens::Tokenizer::from_name(n, factors);
    }
    Ok(model.and_then(|m| crate::tokens::Tokenizer::for_model(m, factors)).unwrap_or(project.tokens.tokenizer))
}

/// Every profile × transport cell of the project with the request's runtime values; native
/// cells use `provider`.
pub fn matrix_cells(project: &Project, runtime: &crate::context::Runtime, provider: Provider) -> Result<Vec<Compiled>> {
    let mut out = Vec::new();
    for profile in project.profiles.keys() {
        for transport in &project.transports {
            let sel = crate::selection::Selection { profile: profile.clone(), reason: "matrix".into() };
            out.push(crate::compile::compile_cell(project, sel, *transport, provider, runtime.clone())?);
        }
    }
    Ok(out)
}

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A comfy-table for people.
    Table,
    /// JSON for machines.
    Json,
    /// A GitHub-flavoured markdown table for PR comments.
    Markdown,
    /// CSV for spreadsheets.
    Csv,
}

fn tokens_cell(r: &Report, n: u64) -> String {
    if r.tokenizer.exact {
        n.to_string()
    } else {
        format!("≈{n}")
    }
}

fn pct(share: f64) -> String {
    format!("{:.1}%", share * 100.0)
}

fn budget_cell(r: &Report, scope: &Scope) -> String {
    match r.budgets.iter().find(|c| &c.scope == scope) {
        Some(c) if c.exceeded => format!("OVER by {} (limit {})", c.excess(), c.limit),
        Some(c) => format!("ok (limit {})", c.limit),
        None => String::new(),
    }
}

/// The rows shared by the table, markdown and CSV renderings.
fn rows(r: &Report) -> (Vec<&'static str>, Vec<Vec<String>>) {
    let with_budget = !r.budgets.is_empty();
    let mut header = vec!["item", "tokens", "bytes", "share", "kind", "source"];
    if with_budget {
        header.push("budget");
    }
    let mut out = Vec::new();
    let mut push = |mut row: Vec<String>, scope: Option<Scope>| {
        if with_budget {
            row.push(scope.map(|s| budget_cell(r, &s)).unwrap_or_default());
        }
        out.push(row);
    };
    for s in &r.sections {
        let kind = if s.dynamic { "dynamic" } else { "static" };
        push(
            vec![
                s.id.clone(),
                tokens_cell(r, s.size.tokens),
                s.size.bytes.to_string(),
                pct(s.share),
                kind.into(),
                s.source.clone(),
            ],
            Some(Scope::Section(s.id.clone())),
        );
    }
    if r.layout.bytes > 0 {
        let share =
            if r.totals.total.tokens == 0 { 0.0 } else { r.layout.tokens as f64 / r.totals.total.tokens as f64 };
        push(
            vec![
                "(outside sections)".into(),
                tokens_cell(r, r.layout.tokens),
                r.layout.bytes.to_string(),
                pct(share),
                "static".into(),
                r.layout_source.clone(),
            ],
            None,
        );
    }
    for t in &r.tools {
        let source = match (t.in_prompt, r.transport) {
            (true, Transport::Json) => format!("{} (in action_schema)", t.toolset),
            (true, _) => format!("{} (in tool_docs)", t.toolset),
            (false, _) => t.toolset.clone(),
        };
        push(
            vec![
                format!("tool {}", t.name),
                tokens_cell(r, t.size.tokens),
                t.size.bytes.to_string(),
                pct(t.share),
                "tool".into(),
                source,
            ],
            None,
        );
    }
    let total_share =
        |m: Measure| if r.totals.total.tokens == 0 { 0.0 } else { m.tokens as f64 / r.totals.total.tokens as f64 };
    push(
        vec![
            "= prompt".into(),
            tokens_cell(r, r.totals.prompt.tokens),
            r.totals.prompt.bytes.to_string(),
            pct(total_share(r.totals.prompt)),
            String::new(),
            String::new(),
        ],
        Some(Scope::Prompt),
    );
    let tools_source = if r.transport == Transport::Native { String::new() } else { "in the prompt".to_string() };
    push(
        vec![
            "= tools".into(),
            tokens_cell(r, r.totals.tools.tokens),
            r.totals.tools.bytes.to_string(),
            pct(total_share(r.totals.tools)),
            String::new(),
            tools_source,
        ],
        Some(Scope::Tools),
    );
    push(
        vec![
            "= prompt + tools".into(),
            tokens_cell(r, r.totals.total.tokens),
            r.totals.total.bytes.to_string(),
            pct(1.0_f64.min(total_share(r.totals.total))),
            String::new(),
            String::new(),
        ],
        Some(Scope::Total),
    );
    (header, out)
}

fn slot_rows(r: &Report) -> (Vec<&'static str>, Vec<Vec<String>>) {
    let list = |v: &[String]| if v.is_empty() { "–".to_string() } else { v.join(", ") };
    let rows = r
        .slots
        .iter()
        .map(|s| vec![format!("slot {}", s.slot), list(&s.declaring), list(&s.contributing), s.bytes.to_string()])
        .collect();
    (vec!["slot", "tools declaring", "tools contributing", "bytes"], rows)
}

fn heading(r: &Report) -> String {
    let exact = if r.tokenizer.exact { "exact" } else { "estimate" };
    format!("{} · {} · tokenizer {} ({exact})", r.project, r.cell(), r.tokenizer.name)
}

/// A comfy-table with the given right-aligned columns (shared by report and diff output).
pub(crate) fn table(header: &[&str], rows: &[Vec<String>], right: &[usize]) -> String {
    let mut t = comfy_table::Table::new();
    t.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED);
    t.set_header(header.to_vec());
    for row in rows {
        t.add_row(row.clone());
    }
    for i in right {
        if let Some(c) = t.column_mut(*i) {
            c.set_cell_alignment(comfy_table::CellAlignment::Right);
        }
    }
    t.to_string()
}

fn markdown(header: &[&str], rows: &[Vec<String>], right: &[usize]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "| {} |", header.join(" | "));
    let seps: Vec<&str> = (0..header.len()).map(|i| if right.contains(&i) { "---:" } else { "---" }).collect();
    let _ = writeln!(out, "| {} |", seps.join(" | "));
    for row in rows {
        let cells: Vec<String> = row.iter().map(|c| c.replace('|', "\\|")).collect();
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    out
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn csv(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", header.iter().map(|h| csv_field(h)).collect::<Vec<_>>().join(","));
    for row in rows {
        let _ = writeln!(out, "{}", row.iter().map(|c| csv_field(c)).collect::<Vec<_>>().join(","));
    }
    out
}

/// Render one report.
pub fn render(r: &Report, format: Format) -> String {
    match format {
        Format::Json => providers::to_pretty_json(&serde_json::to_value(r).unwrap_or_default()),
        Format::Table => {
            let (h, rows) = rows(r);
            let mut out = format!("{}\n{}\n", heading(r), table(&h, &rows, &[1, 2, 3]));
            if !r.slots.is_empty() {
                let (h, rows) = slot_rows(r);
                out.push_str(&format!("{}\n", table(&h, &rows, &[3])));
            }
            out
        }
        Format::Markdown => {
            let (h, rows) = rows(r);
            let mut out = format!("### {}\n\n{}", heading(r), markdown(&h, &rows, &[1, 2, 3]));
            if !r.slots.is_empty() {
                let (h, rows) = slot_rows(r);
                out.push_str(&format!("\n{}", markdown(&h, &rows, &[3])));
            }
            out
        }
        Format::Csv => {
            let (h, rows) = rows(r);
            csv(&h, &rows)
        }
    }
}

/// The one-line summary of a cell in `--matrix` mode.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CellSummary {
    /// `profile.transport[.provider]`.
    pub cell: String,
    /// Non-empty sections.
    pub sections: usize,
    /// Active tools.
    pub tools: usize,
    /// Totals.
    #[serde(flatten)]
    pub totals: Totals,
    /// Whether every budget holds.
    pub within_budget: bool,
    /// Whether counts are exact.
    pub exact: bool,
}

impl From<&Report> for CellSummary {
    fn from(r: &Report) -> Self {
        CellSummary {
            cell: r.cell(),
            sections: r.sections.len(),
            tools: r.tools.len(),
            totals: r.totals,
            within_budget: !r.over_budget(),
            exact: r.tokenizer.exact,
        }
    }
}

/// Render the side-by-side summary of every cell.
pub fn render_matrix(reports: &[Report], format: Format) -> String {
    let summaries: Vec<CellSummary> = reports.iter().map(CellSummary::from).collect();
    let header =
        vec!["cell", "sections", "tools", "prompt tokens", "tools tokens", "total tokens", "total bytes", "budget"];
    let rows: Vec<Vec<String>> = reports
        .iter()
        .zip(&summaries)
        .map(|(r, s)| {
            vec![
                s.cell.clone(),
                s.sections.to_string(),
                s.tools.to_string(),
                tokens_cell(r, s.totals.prompt.tokens),
                tokens_cell(r, s.totals.tools.tokens),
                tokens_cell(r, s.totals.total.tokens),
                s.totals.total.bytes.to_string(),
                if r.budgets.is_empty() {
                    "-".into()
                } else if s.within_budget {
                    "ok".into()
                } else {
                    "OVER".into()
                },
            ]
        })
        .collect();
    let right = [1, 2, 3, 4, 5, 6];
    match format {
        Format::Table => {
            let tok = reports.first().map(|r| format!(" · tokenizer {}", r.tokenizer.name)).unwrap_or_default();
            let project = reports.first().map(|r| r.project.clone()).unwrap_or_default();
            format!("{project} · matrix{tok}\n{}\n", table(&header, &rows, &right))
        }
        Format::Markdown => markdown(&header, &rows, &right),
        Format::Csv => csv(&header, &rows),
        Format::Json => providers::to_pretty_json(&serde_json::to_value(&summaries).unwrap_or_default()),
    }
}

/// One line per exceeded budget, for stderr.
pub fn budget_failures(r: &Report) -> Vec<String> {
    r.budgets
        .iter()
        .filter(|c| c.exceeded)
        .map(|c| {
            format!(
                "{}: {} is {}, {} over its budget of {}",
                r.cell(),
                c.scope,
                unit_value(c.actual, c.limit.unit),
                c.excess(),
                c.limit
            )
        })
        .collect()
}

fn unit_value(n: u64, unit: Unit) -> String {
    match unit {
        Unit::Tokens => format!("{n} tokens"),
        Unit::Bytes => format!("{n} bytes"),
    }
}

/// Cache statistics line for stderr (only when a disk cache is in use).
pub fn cache_line(stats: CacheStats) -> String {
    format!(
        "token cache: {} hits, {} misses, tokenizer {}",
        stats.hits,
        stats.misses,
        if stats.tokenizer_built { "built" } else { "not built" }
    )
}
