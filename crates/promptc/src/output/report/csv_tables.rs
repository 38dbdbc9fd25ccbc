//! Every table of every account as one CSV, for spreadsheets: a `table` column says which
//! (`item`, `budget`, `slot`, `cell`), a `cell` column which account, and figures are whole
//! (no `≈`, no cut names).

use crate::measure::account::Account;
use crate::model::budget::Unit;
use crate::output::table::csv;

use super::items::item_rows;
use super::View;

/// Every table of every account as one CSV: a `table` column says which (`item`, `budget`,
/// `slot`, `cell`), a `cell` column which account.
pub(super) fn csv_all(accounts: &[Account], view: View) -> String {
    let header = ["table", "cell", "item", "tokens", "bytes", "share", "kind", "source", "limit", "status"];
    let mut rows = Vec::new();
    for a in accounts {
        item_csv_rows(a, view, &mut rows);
        budget_csv_rows(a, &mut rows);
        slot_csv_rows(a, &mut rows);
    }
    if accounts.len() > 1 {
        rows.extend(accounts.iter().map(cell_csv_row));
    }
    csv(&header, &rows)
}

/// The item table of `a`, parameters included, names and sources whole.
fn item_csv_rows(a: &Account, view: View, rows: &mut Vec<Vec<String>>) {
    let (_, items) = item_rows(a, View { params: true, ..view }, true);
    for r in items {
        rows.push(vec![
            "item".into(),
            a.name.clone(),
            r[0].trim().to_string(),
            r[1].trim_start_matches('≈').to_string(),
            r[2].clone(),
            r[3].clone(),
            r[5].clone(),
            r[6].clone(),
            String::new(),
            String::new(),
        ]);
    }
}

/// The budgets of `a`: the figure under its unit's column.
fn budget_csv_rows(a: &Account, rows: &mut Vec<Vec<String>>) {
    for c in &a.budgets {
        rows.push(vec![
            "budget".into(),
            a.name.clone(),
            c.scope.to_string(),
            if c.limit.unit == Unit::Tokens { c.actual.to_string() } else { String::new() },
            if c.limit.unit == Unit::Bytes { c.actual.to_string() } else { String::new() },
            String::new(),
            String::new(),
            String::new(),
            c.limit.to_string(),
            if c.exceeded { "over".into() } else { "ok".into() },
        ]);
    }
}

/// The slots of `a`, with the tools declaring and contributing to each.
fn slot_csv_rows(a: &Account, rows: &mut Vec<Vec<String>>) {
    for s in &a.slots {
        rows.push(vec![
            "slot".into(),
            a.name.clone(),
            s.slot.clone(),
            s.sent.tokens.to_string(),
            s.sent.bytes.to_string(),
            String::new(),
            format!("declaring: {}", s.declaring.join(" ")),
            format!("contributing: {}", s.contributing.join(" ")),
            String::new(),
            String::new(),
        ]);
    }
}

/// One account's totals, for the matrix.
fn cell_csv_row(a: &Account) -> Vec<String> {
    vec![
        "cell".into(),
        a.name.clone(),
        String::new(),
        a.total.tokens.to_string(),
        a.total.bytes.to_string(),
        String::new(),
        a.tokenizer.name.clone(),
        String::new(),
        String::new(),
        if a.budgets.is_empty() {
            "-".into()
        } else if a.over_budget() {
            "over".into()
        } else {
            "ok".into()
        },
    ]
}
