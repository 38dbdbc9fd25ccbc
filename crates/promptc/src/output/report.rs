//! Rendering accounts: one cell as a table (at most 100 columns), markdown, CSV (every table)
//! or JSON; the matrix side by side; budget and cache lines for stderr.

mod csv_tables;
mod items;

use crate::measure::account::{Account, SlotItem};
use crate::measure::tokens::CacheStats;
use crate::model::budget::Unit;
use crate::output::table::{markdown, table_within};

use csv_tables::csv_all;
use items::item_rows;

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// A table for people, at most 100 columns wide.
    Table,
    /// JSON for machines: every figure, sources in full.
    Json,
    /// GitHub-flavoured markdown for PR comments.
    Markdown,
    /// CSV for spreadsheets: every table, one `table` column telling them apart.
    Csv,
}

/// How rows are chosen and ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct View {
    /// Largest first instead of prompt order.
    pub by_tokens: bool,
    /// Only the largest N items (the rest summed in one row).
    pub top: Option<usize>,
    /// A row per tool parameter under its tool.
    pub params: bool,
    /// Every slot in the slot table, the ones that received no text too.
    pub all_slots: bool,
    /// The most columns a table may take (a terminal's width); `None`: its natural width.
    pub width: Option<usize>,
}

impl View {
    /// Prompt order, every item, no parameter rows.
    pub fn new() -> View {
        View::default()
    }

    /// Largest first instead of prompt order.
    pub fn by_tokens(mut self, by_tokens: bool) -> View {
        self.by_tokens = by_tokens;
        self
    }

    /// Only the largest `top` items (the rest summed in one row).
    pub fn top(mut self, top: Option<usize>) -> View {
        self.top = top;
        self
    }

    /// A row per tool parameter under its tool.
    pub fn params(mut self, params: bool) -> View {
        self.params = params;
        self
    }

    /// Every slot in the slot table, the ones that received no text too.
    pub fn all_slots(mut self, all_slots: bool) -> View {
        self.all_slots = all_slots;
        self
    }

    /// Tables at most `width` columns wide (cells wrap); `None`: their natural width.
    pub fn width(mut self, width: Option<usize>) -> View {
        self.width = width;
        self
    }
}

/// `text` cut to `max` characters by removing its middle (`sections/…/role.md.j2`).
fn middle(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max {
        return text.to_string();
    }
    let head = (max - 1) / 2;
    let tail = max - 1 - head;
    let h: String = text.chars().take(head).collect();
    let t: String = text.chars().skip(n - tail).collect();
    format!("{h}…{t}")
}

/// `text` cut to `max` characters by removing its start (`…/environment.md.j2`): a path's end
/// names the file (and line) it is.
fn front(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max {
        return text.to_string();
    }
    let t: String = text.chars().skip(n - (max - 1)).collect();
    format!("…{t}")
}

/// A token count, `≈` marking an estimate.
fn tokens_cell(a: &Account, n: u64) -> String {
    if a.tokenizer.exact {
        n.to_string()
    } else {
        format!("≈{n}")
    }
}

/// A share as a percentage with one decimal.
fn pct(share: f64) -> String {
    format!("{:.1}%", share * 100.0)
}

/// Prose wrapped at 100 columns (the width of every table).
fn wrap(text: &str, max: usize) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > max {
            out.push_str(&line);
            out.push('\n');
            line = format!("  {word}");
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// A bar of up to 8 eighth-blocks for `share` of `largest` (the largest row fills the bar).
fn bar_of(share: f64, largest: f64) -> String {
    if largest <= 0.0 {
        return String::new();
    }
    bar(share / largest)
}

/// A bar of up to 8 eighth-blocks for a fraction 0–1.
fn bar(share: f64) -> String {
    const BLOCKS: [char; 8] = ['▏', '▎', '▍', '▌', '▋', '▊', '▉', '█'];
    let eighths = (share.clamp(0.0, 1.0) * 64.0).round() as usize; // 8 cells × 8 eighths
    let mut s = "█".repeat(eighths / 8);
    if !eighths.is_multiple_of(8) {
        s.push(BLOCKS[eighths % 8 - 1]);
    }
    s
}

/// A budget's measured value with its unit.
fn unit_value(n: u64, unit: Unit) -> String {
    match unit {
        Unit::Tokens => format!("{n} tokens"),
        Unit::Bytes => format!("{n} bytes"),
    }
}

/// The budget table's rows.
fn budget_rows(a: &Account) -> Vec<Vec<String>> {
    a.budgets
        .iter()
        .map(|c| {
            vec![
                c.scope.to_string(),
                unit_value(c.actual, c.limit.unit),
                c.limit.to_string(),
                if c.exceeded { format!("OVER by {}", c.excess()) } else { "ok".into() },
            ]
        })
        .collect()
}

/// The slot table's rows: the slots that received text (every slot with `all_slots`), then
/// the totals — how many tools declare a contribution, how many rendered one, and what the
/// slots cost — saying how many empty slots it left out.
fn slot_rows(a: &Account, view: View) -> Vec<Vec<String>> {
    let list = |v: &[String]| if v.is_empty() { "–".to_string() } else { v.join(", ") };
    let shown: Vec<&SlotItem> = a.slots.iter().filter(|s| view.all_slots || s.sent.bytes > 0).collect();
    let mut rows: Vec<Vec<String>> = shown
        .iter()
        .map(|s| {
            vec![
                format!("slot {}", s.slot),
                list(&s.declaring),
                list(&s.contributing),
                tokens_cell(a, s.sent.tokens),
                s.sent.bytes.to_string(),
            ]
        })
        .collect();
    let distinct = |pick: fn(&SlotItem) -> &[String]| {
        let names: std::collections::BTreeSet<&String> = a.slots.iter().flat_map(pick).collect();
        match names.len() {
            1 => "1 tool".to_string(),
            n => format!("{n} tools"),
        }
    };
    let hidden = a.slots.len() - shown.len();
    rows.push(vec![
        match hidden {
            0 => "total".to_string(),
            n => format!("total ({n} empty not shown)"),
        },
        distinct(|s| &s.declaring),
        distinct(|s| &s.contributing),
        tokens_cell(a, a.slots.iter().map(|s| s.sent.tokens).sum()),
        a.slots.iter().map(|s| s.sent.bytes).sum::<u64>().to_string(),
    ]);
    rows
}

/// The billed total, `≈` marking an estimate.
pub(super) fn billed_total(a: &Account) -> String {
    format!("{}{}", if a.billed.exact { "" } else { "≈" }, a.billed.total)
}

/// The line above an account's table: project, cell, tokenizer.
fn heading(a: &Account) -> String {
    let exact = if a.tokenizer.exact { "exact" } else { "estimate" };
    format!("{} · {} · {} ({exact})", a.project, a.name, a.tokenizer.name)
}

/// The cacheable prefix, in a sentence: where the request first changes between sessions, and
/// why.
fn cache_sentence(a: &Account) -> String {
    let why = a.cache.why.as_deref().map(|w| format!(", which {w}")).unwrap_or_default();
    let end = match (&a.cache.ends_at, &a.cache.breakpoint_after) {
        (Some(e), Some(b)) => format!("breakpoint after `{b}`, before `{e}`{why}"),
        (Some(e), None) => format!("no section is whole before the first change, in `{e}`{why}"),
        (None, _) => "nothing changes between sessions".into(),
    };
    let how = match (a.cache.measured, &a.cache.note) {
        (true, None) => String::new(),
        (true, Some(note)) => format!("; {note}"),
        (false, note) => format!(
            "; estimated from what templates read, not measured{}",
            note.as_deref().map(|n| format!(" ({n})")).unwrap_or_default()
        ),
    };
    format!("cacheable prefix: {} tokens, uncached: {} ({end}{how})", a.cache.cacheable, a.cache.uncached)
}

/// Render one account.
pub fn render(a: &Account, format: Format, view: View) -> String {
    match format {
        Format::Json => json(std::slice::from_ref(a)),
        Format::Table => {
            let (h, rows) = item_rows(a, view, false);
            // Sentences wrap at 100 columns, or at a narrower table's width.
            let line_width = view.width.map_or(100, |w| w.min(100));
            let mut out = format!("{}\n{}\n", heading(a), table_within(&h, &rows, &[1, 2, 3], view.width));
            for l in items::legend(a) {
                out.push_str(&wrap(&l, line_width));
            }
            out.push_str(&wrap(&format!("billed {}: {}", billed_total(a), a.billed.method), line_width));
            out.push_str(&wrap(&cache_sentence(a), line_width));
            if !a.budgets.is_empty() {
                out.push_str(&format!(
                    "{}\n",
                    table_within(&["budget", "actual", "limit", "status"], &budget_rows(a), &[1, 2], view.width)
                ));
            }
            if !a.slots.is_empty() {
                let h = ["slot", "declaring", "contributing", "tokens", "bytes"];
                out.push_str(&format!("{}\n", table_within(&h, &slot_rows(a, view), &[3, 4], view.width)));
            }
            out
        }
        Format::Markdown => {
            let (h, rows) = item_rows(a, view, true);
            let mut out = format!("### {}\n\n{}", heading(a), markdown(&h, &rows, &[1, 2, 3]));
            for l in items::legend(a) {
                out.push_str(&format!("\n{l}\n"));
            }
            out.push_str(&format!("\nbilled {}: {}\n\n{}\n", billed_total(a), a.billed.method, cache_sentence(a)));
            if !a.budgets.is_empty() {
                out.push_str(&format!(
                    "\n{}",
                    markdown(&["budget", "actual", "limit", "status"], &budget_rows(a), &[1, 2])
                ));
            }
            if !a.slots.is_empty() {
                let h = ["slot", "declaring", "contributing", "tokens", "bytes"];
                out.push_str(&format!("\n{}", markdown(&h, &slot_rows(a, view), &[3, 4])));
            }
            out
        }
        Format::Csv => csv_all(std::slice::from_ref(a), view),
    }
}

/// The JSON of a report: `{"format": 1, "accounts": [...]}` (`schema/report.schema.json`).
fn json(accounts: &[Account]) -> String {
    /// The document [`crate::json::document`] would make, printed without building a
    /// `serde_json::Value` of every account first (a large matrix's is hundreds of MB).
    #[derive(serde::Serialize)]
    struct Document<'a> {
        format: u64,
        accounts: &'a [Account],
    }
    crate::json::to_pretty_json(&Document { format: crate::json::OUTPUT_FORMAT, accounts })
}

/// Render the matrix: one row per account, side by side.
pub fn render_matrix(accounts: &[Account], format: Format, view: View) -> String {
    if format == Format::Json {
        return json(accounts);
    }
    if format == Format::Csv {
        return csv_all(accounts, view);
    }
    let mut order: Vec<&Account> = accounts.iter().collect();
    if view.by_tokens {
        order.sort_by(|x, y| y.total.tokens.cmp(&x.total.tokens).then_with(|| x.name.cmp(&y.name)));
    }
    if let Some(n) = view.top {
        order.truncate(n);
    }
    let header = ["cell", "prompt", "tools", "sent", "billed", "cached", "budget"];
    // The figures take about 62 columns with the padding and borders; a narrower table gives
    // the cell names what is left (cut in the middle), never less than 12.
    let name_max = view.width.map_or(36, |w| w.saturating_sub(62).clamp(12, 36));
    let rows: Vec<Vec<String>> = order
        .iter()
        .map(|a| {
            vec![
                middle(&a.name, name_max),
                tokens_cell(a, a.prompt.tokens),
                if a.provider.is_some() { tokens_cell(a, a.tools_sent.tokens) } else { "in prompt".into() },
                tokens_cell(a, a.total.tokens),
                billed_total(a),
                tokens_cell(a, a.cache.cacheable),
                if a.budgets.is_empty() {
                    "-".into()
                } else if a.over_budget() {
                    "OVER".into()
                } else {
                    "ok".into()
                },
            ]
        })
        .collect();
    let right = [1, 2, 3, 4, 5];
    match format {
        Format::Markdown => markdown(&header, &rows, &right),
        Format::Table | Format::Json | Format::Csv => {
            let project = accounts.first().map(|a| a.project.clone()).unwrap_or_default();
            let estimates = accounts.iter().any(|a| !a.tokenizer.exact);
            let note = if estimates { " (≈: estimate)" } else { "" };
            format!(
                "{project} · matrix · {} cells{note}\n{}\n",
                accounts.len(),
                table_within(&header, &rows, &right, view.width)
            )
        }
    }
}

/// One line per exceeded budget, naming the cell, provider and counting method.
pub fn budget_failures(a: &Account) -> Vec<String> {
    a.budgets
        .iter()
        .filter(|c| c.exceeded)
        .map(|c| format!("{}: {} (counted with {})", a.name, c.describe(), a.tokenizer.name))
        .collect()
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

/// The line that says what the compile cache did for a matrix report: `compile cache: 11 cells
/// reused, 1 compiled`.
pub fn compile_cache_line(stats: crate::memo::CompileStats) -> String {
    format!("compile cache: {} cells reused, {} compiled", stats.reused, stats.compiled)
}

#[cfg(test)]
#[path = "report_tests.rs"]
mod tests;
