//! Tables for people (comfy-table), PR comments (markdown) and spreadsheets (CSV), shared by
//! every command that prints rows.

use std::fmt::Write as _;

/// A comfy-table with the given right-aligned columns (shared by report and diff output).
pub fn table(header: &[&str], rows: &[Vec<String>], right: &[usize]) -> String {
    table_within(header, rows, right, None)
}

/// [`table`] at most `width` columns wide (a terminal's): cells wrap to fit; `None` lays the
/// table out at its natural width, the same on every machine.
pub fn table_within(header: &[&str], rows: &[Vec<String>], right: &[usize], width: Option<usize>) -> String {
    let mut t = comfy_table::Table::new();
    t.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED);
    if let Some(w) = width {
        t.set_content_arrangement(comfy_table::ContentArrangement::Dynamic);
        t.set_width(u16::try_from(w).unwrap_or(u16::MAX));
    }
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

/// A GitHub-flavoured markdown table with the given right-aligned columns.
pub fn markdown(header: &[&str], rows: &[Vec<String>], right: &[usize]) -> String {
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

/// CSV with a header row.
pub fn csv(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", header.iter().map(|h| csv_field(h)).collect::<Vec<_>>().join(","));
    for row in rows {
        let _ = writeln!(out, "{}", row.iter().map(|c| csv_field(c)).collect::<Vec<_>>().join(","));
    }
    out
}
