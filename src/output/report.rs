//! Rendering reports: one cell as a table, JSON, markdown or CSV; the matrix side by side;
//! budget and cache lines for stderr.

use crate::json::to_pretty_json;
use crate::measure::budget::Scope;
use crate::measure::report::{MatrixRow, Report};
use crate::measure::tokens::CacheStats;
use crate::measure::Measure;
use crate::model::budget::Unit;
use crate::model::transport::Transport;
use crate::output::table::{csv, markdown, table};

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

/// Render one report.
pub fn render(r: &Report, format: Format) -> String {
    match format {
        Format::Json => to_pretty_json(&serde_json::to_value(r).unwrap_or_default()),
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

/// Render the side-by-side summary of every cell.
pub fn render_matrix(reports: &[Report], format: Format) -> String {
    let summaries: Vec<MatrixRow> = reports.iter().map(MatrixRow::from).collect();
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
        Format::Json => to_pretty_json(&serde_json::to_value(&summaries).unwrap_or_default()),
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
