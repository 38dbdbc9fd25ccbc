//! The item table of one account: its sections, the layout's own text, its tools (and
//! their parameters), largest first or in prompt order, the smallest summed when only the top
//! are kept, and the totals below.

use crate::compile::OUTSIDE_SECTIONS;
use crate::measure::account::{Account, ToolItem};
use crate::measure::Measure;

use super::{bar_of, front, middle, pct, tokens_cell, View};

/// The row of what a tools JSON holds besides its tools' entries.
pub(crate) const TOOLS_FRAMING: &str = "(tools JSON framing)";

/// One row of the item table, before formatting.
struct Item {
    item: String,
    sent: Measure,
    share: f64,
    kind: &'static str,
    source: String,
    /// Rows kept with the item above (a tool's parameters).
    children: Vec<Item>,
}

/// `m`'s share of everything the account sends.
fn share_of(a: &Account, m: Measure) -> f64 {
    if a.total.tokens == 0 {
        0.0
    } else {
        m.tokens as f64 / a.total.tokens as f64
    }
}

/// The items of `a` in the view's order, the rest summed when it keeps only the top ones.
fn items(a: &Account, view: View) -> Vec<Item> {
    let mut out: Vec<Item> = Vec::new();
    let row = |item: String, sent: Measure, kind: &'static str, source: String| Item {
        item,
        sent,
        share: share_of(a, sent),
        kind,
        source,
        children: Vec::new(),
    };
    for s in &a.sections {
        // A section the layout leaves out or rewrites: its tokens are the layout's.
        let kind = match (s.placed, s.dynamic) {
            (false, _) => "layout",
            (true, true) => "dynamic",
            (true, false) => "static",
        };
        let mut item = Item { share: s.share, ..row(s.id.clone(), s.sent, kind, s.source.clone()) };
        // The tools the section describes (xml and json cells) are parts of its row, shown
        // under it: each tool, then its parameters.
        for t in a.tools.iter().filter(|t| t.part_of.as_deref() == Some(s.id.as_str())) {
            let mut tool = tool_item(a, t, view);
            let params = std::mem::take(&mut tool.children);
            item.children.push(tool);
            item.children.extend(params.into_iter().map(|p| Item { item: format!("  {}", p.item), ..p }));
        }
        out.push(item);
    }
    if a.layout.bytes > 0 {
        let kind = if a.layout_dynamic { "dynamic" } else { "static" };
        out.push(row(OUTSIDE_SECTIONS.into(), a.layout, kind, a.layout_source.clone()));
    }
    let holders: Vec<&str> = a.sections.iter().map(|s| s.id.as_str()).collect();
    let own_rows = a.tools.iter().filter(|t| t.part_of.as_deref().is_none_or(|h| !holders.contains(&h)));
    out.extend(own_rows.map(|t| tool_item(a, t, view)));
    if a.tools_framing.bytes > 0 {
        out.push(row(TOOLS_FRAMING.into(), a.tools_framing, "tool", "the tools JSON's brackets and commas".into()));
    }
    for (i, m) in a.messages.iter().enumerate() {
        let mut r = row(
            format!("message {} · {}", i + 1, m.role.as_str()),
            m.sent,
            if m.dynamic { "dynamic" } else { "static" },
            m.sections.join(", "),
        );
        r.children = m
            .blocks
            .iter()
            .enumerate()
            .map(|(j, b)| row(format!("  · block {}", j + 1), *b, "block", String::new()))
            .collect();
        out.push(r);
    }
    if view.by_tokens {
        out.sort_by(|x, y| y.sent.tokens.cmp(&x.sent.tokens).then_with(|| x.item.cmp(&y.item)));
        // A section's tools keep their parameters under them.
        for i in out.iter_mut().filter(|i| !i.children.iter().any(|c| c.kind == "in docs")) {
            i.children.sort_by(|x, y| y.sent.tokens.cmp(&x.sent.tokens).then_with(|| x.item.cmp(&y.item)));
        }
    }
    if let Some(n) = view.top.filter(|n| *n < out.len()) {
        let rest = out.split_off(n);
        // Rows that are part of another row (a tool described in a section) add nothing.
        let sum = rest.iter().fold(Measure::default(), |m, i| if i.kind == "in docs" { m } else { m.plus(i.sent) });
        let share = if a.total.tokens == 0 { 0.0 } else { sum.tokens as f64 / a.total.tokens as f64 };
        out.push(Item {
            item: format!("… {} more", rest.len()),
            sent: sum,
            share,
            kind: "",
            source: String::new(),
            children: Vec::new(),
        });
    }
    out
}

/// A tool's row, with a row per parameter when the view asks for them.
fn tool_item(a: &Account, t: &ToolItem, view: View) -> Item {
    let children = if view.params {
        t.params
            .iter()
            .map(|p| Item {
                item: format!("  · {}", p.name),
                sent: p.sent,
                share: share_of(a, p.sent),
                kind: "param",
                source: String::new(),
                children: Vec::new(),
            })
            .collect()
    } else {
        Vec::new()
    };
    Item {
        item: match &t.part_of {
            Some(_) => format!("  └ {}", t.name),
            None => format!("tool {}", t.name),
        },
        sent: t.sent,
        share: t.share,
        kind: if t.part_of.is_some() { "in docs" } else { "tool" },
        source: t.source.clone(),
        children,
    }
}

/// The item rows: (header, rows); `full` keeps sources and names whole (markdown, CSV). In a
/// table narrower than its natural width, the bar and then the source column go before any
/// name is shortened, and a name too long still is cut at a word boundary ([`shorten`]).
pub(super) fn item_rows(a: &Account, view: View, full: bool) -> (Vec<&'static str>, Vec<Vec<String>>) {
    let columns = Columns::within(if full { None } else { view.width });
    let mut header = vec!["item", "tokens", "bytes", "share", "", "kind", "source"];
    let fit = |s: &str| if full { s.to_string() } else { shorten(s, columns.item) };
    // A dropped source column (width 0) is removed below; its cells are left empty.
    let fit_source = |s: &str| match (full, columns.source) {
        (true, _) => s.to_string(),
        (false, 0) => String::new(),
        (false, w) => front(s, w),
    };
    let mut rows = Vec::new();
    let list = items(a, view);
    // The largest item fills its bar (the summed "… more" row is not an item).
    let largest = list.iter().filter(|i| !i.kind.is_empty()).map(|i| i.share).fold(0.0, f64::max);
    let mut push = |i: &Item| {
        rows.push(vec![
            fit(&i.item),
            tokens_cell(a, i.sent.tokens),
            i.sent.bytes.to_string(),
            pct(i.share),
            bar_of(i.share, largest),
            i.kind.to_string(),
            fit_source(&i.source),
        ]);
    };
    for i in list {
        push(&i);
        for c in &i.children {
            push(c);
        }
    }
    let in_messages = a.messages.iter().fold(Measure::default(), |t, m| t.plus(m.sent));
    for (label, m) in
        [("= prompt", a.prompt), ("= tools JSON", a.tools_sent), ("= messages", in_messages), ("= sent", a.total)]
    {
        if (label == "= tools JSON" && a.provider.is_none()) || (label == "= messages" && a.messages.is_empty()) {
            continue;
        }
        rows.push(vec![
            label.into(),
            tokens_cell(a, m.tokens),
            m.bytes.to_string(),
            pct(share_of(a, m).min(1.0)),
            String::new(),
            String::new(),
            String::new(),
        ]);
    }
    rows.push(vec![
        "= billed".into(),
        super::billed_total(a),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
        // A citation: its start names the source, its end the section.
        if full || columns.source == 0 { a.billed.source.clone() } else { middle(&a.billed.source, columns.source) },
    ]);
    // Columns dropped to fit, last first so the indices stay right.
    for (keep, i) in [(columns.source > 0, 6), (columns.bar, 4)] {
        if !keep {
            header.remove(i);
            for r in &mut rows {
                r.remove(i);
            }
        }
    }
    (header, rows)
}

/// What the legend under an item table says about the rows of `a` whose names are not
/// self-explanatory.
pub(super) fn legend(a: &Account) -> Vec<String> {
    let mut out = Vec::new();
    if a.layout.bytes > 0 {
        out.push(format!(
            "{OUTSIDE_SECTIONS}: prompt text no section renders: what the layout writes between \
            sections (headings, separators), and sections it rewrites"
        ));
    }
    if a.tools_framing.bytes > 0 {
        out.push(format!("{TOOLS_FRAMING}: the brackets, commas and keys around the tools' own entries"));
    }
    out
}

/// The item table's layout at a width: how wide the item and source columns are, and whether
/// the bar shows.
struct Columns {
    item: usize,
    /// 0: the source column is dropped.
    source: usize,
    bar: bool,
}

impl Columns {
    /// Natural: item 26 and source 20 characters, with the bar. In a table at most `width`
    /// columns wide the bar (11 columns with padding and border) goes first, then the source
    /// (20 + 3); the item column takes what the numbers and kind (42 columns with the borders)
    /// leave, and is shortened only below that.
    fn within(width: Option<usize>) -> Columns {
        const NATURAL: Columns = Columns { item: 26, source: 20, bar: true };
        const FIXED: usize = 42;
        const BAR: usize = 11;
        const SOURCE: usize = 23;
        let Some(w) = width else { return NATURAL };
        if w >= FIXED + BAR + SOURCE + NATURAL.item {
            return Columns { item: (w - FIXED - BAR - SOURCE).min(40), ..NATURAL };
        }
        if w >= FIXED + SOURCE + NATURAL.item {
            return Columns { item: NATURAL.item, source: w - FIXED - SOURCE - NATURAL.item + 20, bar: false }.capped();
        }
        Columns { item: w.saturating_sub(FIXED).max(12), source: 0, bar: false }
    }

    /// The source column never wider than its natural 20 characters; the item takes the rest.
    fn capped(self) -> Columns {
        let extra = self.source.saturating_sub(20);
        Columns { item: (self.item + extra).min(40), source: self.source.min(20), bar: self.bar }
    }
}

/// `text` cut to at most `max` characters at a word boundary (a space, `_`, `-`, `.` or `/`),
/// ending in `…`: `tool execute_command` at 14 is `tool execute_…`, never `tool e…ommand`. A text
/// whose last boundary would leave less than two thirds of the room is cut at `max - 1`.
pub(super) fn shorten(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max {
        return text.to_string();
    }
    let keep: String = text.chars().take(max.saturating_sub(1)).collect();
    let cut = keep
        .char_indices()
        .filter(|(_, c)| matches!(c, ' ' | '_' | '-' | '.' | '/'))
        .map(|(i, c)| i + c.len_utf8())
        // A boundary that would drop more than a third of the room is no better than a hard cut.
        .rfind(|i| *i * 3 >= keep.len() * 2)
        .unwrap_or(keep.len());
    format!("{}…", &keep[..cut])
}
