//! `diff --format html`: the snapshots (or folder A) against now (or folder B) as one static,
//! self-contained page: each change as the user made it (its reach, its own token change, its
//! lines), what changed per cell with token and byte deltas (prompt, each section, tools), then
//! each file's unified diff. It needs no script: the page is the same
//! shell as the report's, with `script-src 'none'`.

use std::fmt::Write as _;

use super::{Change, Counts, Delta, DiffReport, Status};
use crate::output::html::{document, escape, Page};

/// Files whose diffs the page shows unfolded; with more, each starts folded.
const OPEN_FILES: usize = 10;

/// `n` with thousands separators (`12,345`), as the report page writes numbers.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn signed(n: i64) -> String {
    match n {
        n if n > 0 => format!("+{}", grouped(n.unsigned_abs())),
        n if n < 0 => format!("−{}", grouped(n.unsigned_abs())),
        _ => "±0".into(),
    }
}

fn class_of(n: i64) -> &'static str {
    match n {
        n if n > 0 => "up",
        n if n < 0 => "down",
        _ => "same",
    }
}

fn counts_cells(c: Option<Counts>) -> (String, String) {
    match c {
        Some(c) => (c.tokens.map_or("?".into(), grouped), grouped(c.bytes)),
        None => ("—".into(), "—".into()),
    }
}

/// The delta table of one cell.
fn cell_table(out: &mut String, cell: &str, deltas: &[&Delta]) {
    let _ = writeln!(
        out,
        "<h3 id=\"cell-{id}\">{cell}</h3>\n<div class=\"scroll\"><table class=\"grid deltas\" data-cell=\"{id}\">\
         <thead><tr><th scope=\"col\">item</th><th scope=\"col\" class=\"n\">tokens before</th>\
         <th scope=\"col\" class=\"n\">tokens after</th><th scope=\"col\" class=\"n\">Δ tokens</th>\
         <th scope=\"col\" class=\"n\">bytes before</th><th scope=\"col\" class=\"n\">bytes after</th>\
         <th scope=\"col\" class=\"n\">Δ bytes</th></tr></thead><tbody>",
        id = escape(cell),
        cell = escape(cell)
    );
    for d in deltas {
        let (tb, bb) = counts_cells(d.before);
        let (ta, ba) = counts_cells(d.after);
        let dt = match d.tokens_delta() {
            Some(n) => format!("<td class=\"n d {}\" data-delta=\"{n}\">{}</td>", class_of(n), signed(n)),
            None => "<td class=\"n\">?</td>".into(),
        };
        let db = d.bytes_delta();
        let state = match (d.before.is_some(), d.after.is_some()) {
            (false, true) => " class=\"only-b\"",
            (true, false) => " class=\"only-a\"",
            _ => "",
        };
        let _ = writeln!(
            out,
            "<tr{state} data-item=\"{item}\"><th scope=\"row\">{item}</th><td class=\"n\">{tb}</td><td class=\"n\">{ta}</td>{dt}\
             <td class=\"n\">{bb}</td><td class=\"n\">{ba}</td><td class=\"n d {}\" data-delta=\"{db}\">{}</td></tr>",
            class_of(db),
            signed(db),
            item = escape(&d.item),
        );
    }
    out.push_str("</tbody></table></div>\n");
}

/// A unified diff with each line marked as added, removed, hunk header or context.
fn diff_lines(out: &mut String, diff: &str) {
    out.push_str("<pre>");
    for line in diff.lines() {
        let class = if line.starts_with("+++") || line.starts_with("---") {
            "l-file"
        } else if line.starts_with('+') {
            "l-add"
        } else if line.starts_with('-') {
            "l-del"
        } else if line.starts_with("@@") {
            "l-hunk"
        } else {
            "l-ctx"
        };
        let _ = write!(out, "<span class=\"{class}\">{}</span>", escape(line));
    }
    out.push_str("</pre>\n");
}

/// The diff page of `r`.
pub fn render(r: &DiffReport) -> String {
    let title = format!("promptc diff: {} → {}", r.old, r.new);
    let mut body = String::new();
    header(&mut body, r, &title);
    body.push_str("</header>\n<main>\n");
    changes_section(&mut body, r);
    if !r.deltas.is_empty() {
        deltas_section(&mut body, &r.deltas);
    }
    if r.drift() {
        files_section(&mut body, r);
    }
    let _ = writeln!(body, "</main>\n<footer class=\"muted\">promptc {}</footer>", env!("CARGO_PKG_VERSION"));
    document(&Page { kind: "diff", title: &title, body: &body, island: None, script: None })
}

/// The page's title and verdict: how many files differ and how, or that none does.
fn header(body: &mut String, r: &DiffReport, title: &str) {
    let _ = writeln!(body, "<header class=\"top\"><h1>{}</h1>", escape(title));
    let count = |s: Status| r.files.iter().filter(|f| f.status == s).count();
    let (added, removed): (usize, usize) =
        r.files.iter().fold((0, 0), |(a, d), f| (a + f.added_lines, d + f.removed_lines));
    if r.drift() {
        let _ = writeln!(
            body,
            "<p id=\"verdict\" class=\"drift\">Drift: {} files differ ({} modified, {} added, {} removed; \
             +{added} −{removed} lines).</p>",
            r.files.len(),
            count(Status::Modified),
            count(Status::Added),
            count(Status::Removed)
        );
    } else {
        body.push_str("<p id=\"verdict\" class=\"clean\">No drift: every file matches.</p>\n");
    }
}

/// Each change as the user made it: what it is, the cells it reaches, its own token change, and
/// its lines once.
fn changes_section(body: &mut String, r: &DiffReport) {
    let changes: Vec<&Change> = r.changes.iter().filter(|c| !c.is_file()).collect();
    if changes.is_empty() {
        return;
    }
    body.push_str(
        "<section id=\"changes\" aria-labelledby=\"changes-title\"><h2 id=\"changes-title\">Changes</h2>\n\
         <div class=\"scroll\"><table class=\"grid changes\"><thead><tr><th scope=\"col\">change</th>\
         <th scope=\"col\">reaches</th><th scope=\"col\" class=\"n\">Δ tokens</th></tr></thead><tbody>\n",
    );
    let same = |s: &str| s.to_string();
    for c in &changes {
        let (reached, universe) = super::markdown::reached(r, &[c]);
        let reach = super::markdown::reach_in(&reached, &universe, (same, same));
        let tokens = super::markdown::folded(&super::markdown::own_tokens(&[c]));
        let _ = writeln!(
            body,
            "<tr data-kind=\"{kind}\" data-key=\"{key}\"><th scope=\"row\">{title}</th><td>{reach}</td>\
             <td class=\"n\">{tokens}</td></tr>",
            kind = escape(
                &serde_json::to_value(c.kind).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
            ),
            key = escape(&c.key),
            title = escape(&c.title()),
            reach = escape(&reach),
            tokens = escape(&tokens),
        );
    }
    body.push_str("</tbody></table></div>\n");
    for c in &changes {
        let _ = write!(body, "<details data-key=\"{}\"><summary>{}</summary>", escape(&c.key), escape(&c.title()));
        diff_lines(body, &c.diff);
        body.push_str("</details>\n");
    }
    body.push_str("</section>\n");
}

/// What changed per cell: one delta table per cell, cells in the order they first appear.
fn deltas_section(body: &mut String, deltas: &[Delta]) {
    body.push_str(
        "<section id=\"deltas\" aria-labelledby=\"deltas-title\"><h2 id=\"deltas-title\">What changed, per cell</h2>\n",
    );
    body.push_str(
        "<p class=\"muted\">Tokens and bytes sent before and after; Δ is after − before. \
         “?” where a side was not counted.</p>\n",
    );
    let mut cells: Vec<&str> = Vec::new();
    for d in deltas {
        if !cells.contains(&d.cell.as_str()) {
            cells.push(&d.cell);
        }
    }
    for cell in cells {
        let list: Vec<&Delta> = deltas.iter().filter(|d| d.cell == cell).collect();
        cell_table(body, cell, &list);
    }
    body.push_str("</section>\n");
}

/// Each differing file with its status, line counts and unified diff.
fn files_section(body: &mut String, r: &DiffReport) {
    body.push_str(
        "<section id=\"files\" class=\"files\" aria-labelledby=\"files-title\"><h2 id=\"files-title\">Files</h2>\n",
    );
    // Every diff open while there are few; a long list starts folded, names and counts shown.
    let open = if r.files.len() <= OPEN_FILES { " open" } else { "" };
    for f in &r.files {
        let status = match f.status {
            Status::Modified => "modified",
            Status::Added => "added",
            Status::Removed => "removed",
        };
        let _ = write!(
            body,
            "<details{open} data-file=\"{file}\"><summary><span class=\"st-{status}\">{status}</span> <code>{file}</code> \
             <span class=\"muted\">+{} −{}</span></summary>",
            f.added_lines,
            f.removed_lines,
            file = escape(&f.file)
        );
        if f.diff.is_empty() {
            let what = if f.status == Status::Added { "new: not in the old folder" } else { "no longer produced" };
            let _ = write!(body, "<p class=\"muted\">{what}</p>");
        } else {
            diff_lines(body, &f.diff);
        }
        body.push_str("</details>\n");
    }
    body.push_str("</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::FileChange;

    fn report() -> DiffReport {
        DiffReport {
            old: "snapshots".into(),
            new: "<project>".into(),
            files: vec![FileChange {
                file: "a<b>.prompt.md".into(),
                status: Status::Modified,
                diff: "--- a\n+++ b\n@@ -1 +1 @@\n-old </script>\n+new\n".into(),
                added_lines: 1,
                removed_lines: 1,
                too_large: false,
            }],
            deltas: vec![Delta {
                cell: "standard.native".into(),
                item: "section rules".into(),
                before: Some(Counts { tokens: Some(10), bytes: 40 }),
                after: Some(Counts { tokens: Some(7), bytes: 31 }),
            }],
            changes: vec![],
            accounts: vec![],
        }
    }

    #[test]
    fn deltas_and_lines_are_marked_and_escaped() {
        let html = render(&report());
        assert!(html.contains("data-delta=\"-3\">−3</td>"), "{html}");
        assert!(html.contains("data-delta=\"-9\">−9</td>"));
        assert!(html.contains("<span class=\"l-del\">-old &lt;/script&gt;</span>"));
        assert!(html.contains("<code>a&lt;b&gt;.prompt.md</code>"));
        assert!(html.contains("&lt;project&gt;"));
        assert!(!html.contains("<script"));
    }

    #[test]
    fn numbers_are_grouped() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(1234567), "1,234,567");
        assert_eq!(signed(-12345), "−12,345");
    }

    #[test]
    fn no_drift_says_so() {
        let html = render(&DiffReport {
            old: "a".into(),
            new: "b".into(),
            files: vec![],
            deltas: vec![],
            changes: vec![],
            accounts: vec![],
        });
        assert!(html.contains("No drift"));
    }
}
