// Long because: the PR comment's one home (rows, folding, the byte cap over all); tests are the last 190 lines.
//! The PR comment, as a reviewer reads it: a headline in words, one row per change as the user
//! made it (a tool added or removed, its description changed, a parameter added, removed or
//! changed, a section or message changed, lines promptc cannot name) with the cells it reaches
//! grouped and its own token change folded across providers, each distinct change once
//! under a title saying what changed, and the matrix of token changes folded at the end — up
//! to a byte cap, then a note naming what was left out. GitHub rejects comment bodies over
//! 65,536 characters; the default cap leaves room for a caller's own header.

use std::fmt::Write as _;

use std::collections::{BTreeMap, BTreeSet};

use super::{Change, ChangeKind, Delta, DiffReport, FileChange, Status};
use crate::diagnostic::is_line_break_or_control;

/// The default cap of `promptc diff --format markdown`, in bytes (a character is at least one
/// byte, so the text stays under GitHub's 65,536-character limit with margin).
pub const DEFAULT_MAX_BYTES: usize = 60_000;

/// The smallest cap: the headline, the closing note and a little room.
pub const MIN_MAX_BYTES: usize = 1_000;

// Every name placed in the comment (file, cell, section and tool names, folder labels) may come
// from a pull request: a committed snapshot folder's file names and `summary.json`. In the
// markdown it is code, never text: backticks when nothing in it can end the span or a table
// cell, else `<code>` with every ASCII character but letters, digits and `._-/` written as a
// numeric entity — which markdown shows as the character and never reads as syntax, so nothing
// can open a heading, link, image, HTML tag or table cell — and every line break or control
// character as a visible `\u{…}`. GitHub makes no mention, link or reference of text in code.

/// Whether `c` is shown as it is in `<code>` (everything else is an entity or an escape).
fn plain_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '/') || (!c.is_ascii() && !is_line_break_or_control(c))
}

/// `name` as the content of an HTML element: [`plain_char`]s as they are, other ASCII as
/// numeric entities, line breaks and controls as `\u{…}` (itself in entities).
fn entities(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if plain_char(c) {
            out.push(c);
        } else if is_line_break_or_control(c) {
            let _ = write!(out, "&#92;u&#123;{:04x}&#125;", c as u32);
        } else {
            let _ = write!(out, "&#{};", c as u32);
        }
    }
    out
}

/// `name` as inline code in HTML (a `<summary>`): `<code>` with [`entities`].
fn html_code(name: &str) -> String {
    format!("<code>{}</code>", entities(name))
}

/// `name` as inline code in markdown (a table cell, a list item): a backtick span when nothing in
/// it can end the span, the cell or the line, else [`html_code`].
fn code(name: &str) -> String {
    if !name.is_empty() && name.chars().all(|c| plain_char(c) || c == ' ') {
        format!("`{name}`")
    } else {
        html_code(name)
    }
}

/// A delta's item: its kind as it is (promptc's own word), the name after it as [`code`].
fn item(item: &str) -> String {
    match item.split_once(' ') {
        Some((kind, name)) => format!("{kind} {}", code(name)),
        None => item.to_string(),
    }
}

/// A cell pattern (`standard.*`) as inline code: a backtick span when it is names and `*`
/// only, else [`html_code`].
fn pattern(p: &str) -> String {
    if !p.is_empty() && p.chars().all(|c| plain_char(c) || c == '*') && p.is_ascii() {
        format!("`{p}`")
    } else {
        html_code(p)
    }
}

/// A folder label in running text (the headline): as it is when it is words of [`plain_char`]s
/// that GitHub cannot take for a web address, else [`html_code`].
fn label(name: &str) -> String {
    let words = name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '/' | ' '));
    if words && !name.is_empty() && !name.to_ascii_lowercase().contains("www.") {
        name.to_string()
    } else {
        html_code(name)
    }
}

fn signed(n: i64) -> String {
    if n > 0 {
        format!("+{n}")
    } else {
        n.to_string()
    }
}

/// A subject as the deltas name it (`tool read_file`) in markdown: its kind as it is, its name
/// as [`code`].
fn subject(s: &str) -> String {
    item(s)
}

/// A field (`description`, `parameter path`, `parameter path, schema`) in markdown: the
/// parameter's name as [`code`].
fn field(f: &str) -> String {
    match f.strip_prefix("parameter ") {
        Some(rest) => match rest.strip_suffix(", schema") {
            Some(name) => format!("parameter {}, schema", code(name)),
            None => format!("parameter {}", code(rest)),
        },
        // promptc's own words (`description`, `schema`); anything else as code.
        None if f.chars().all(|c| c.is_ascii_lowercase() || c == ' ') => f.to_string(),
        None => code(f),
    }
}

/// A change's title in markdown: `tool `read_file`: parameter `path` added`.
fn title(c: &Change) -> String {
    match c.kind {
        ChangeKind::Lines => {
            let more = c.files.len().saturating_sub(1);
            let more = if more > 0 {
                format!(" and {more} more file{}", if more == 1 { "" } else { "s" })
            } else {
                String::new()
            };
            format!("lines in {}{more}", code(c.files.first().map_or("", String::as_str)))
        }
        ChangeKind::File => {
            format!("{}, {}", subject(&c.subject), c.fields.iter().map(|f| field(f)).collect::<Vec<_>>().join("; "))
        }
        ChangeKind::DescriptionChanged
        | ChangeKind::ParameterAdded
        | ChangeKind::ParameterRemoved
        | ChangeKind::ParameterChanged => format!("{}: {}", subject(&c.subject), what(c)),
        _ => format!("{} {}", subject(&c.subject), what(c)),
    }
}

/// An account split into its cell and provider (none for a cell without one).
fn split_account(account: &str) -> (&str, Option<&str>) {
    match account.rsplit_once('.') {
        Some((cell, p)) if crate::model::provider::Provider::ALL.iter().any(|x| x.as_str() == p) => (cell, Some(p)),
        _ => (account, None),
    }
}

/// The profile an account belongs to: its name's first part.
fn profile(account: &str) -> &str {
    account.split(['.', ' ']).next().unwrap_or(account)
}

/// Parts of a reach named before "and N more".
const NAMED_REACH: usize = 4;

/// Which accounts a change reaches, said against every account there is: "every cell", "every
/// cell of `standard`" (`standard.*`), a cell with all its providers (`standard.native.*`), or
/// single accounts.
fn reach(reached: &BTreeSet<&str>, universe: &[&str]) -> String {
    reach_in(reached, universe, (code, pattern))
}

/// How a name is written in a format (as code in markdown, as it is on a terminal).
pub(super) type Writer = fn(&str) -> String;

/// [`reach`] with the names and patterns written by `shown` (as code in markdown, as they are
/// on a terminal).
pub(super) fn reach_in(reached: &BTreeSet<&str>, universe: &[&str], (code, pattern): (Writer, Writer)) -> String {
    if reached.is_empty() {
        return "–".into();
    }
    if universe.iter().all(|a| reached.contains(a)) {
        return "every cell".into();
    }
    let mut parts: Vec<String> = Vec::new();
    let mut profiles: Vec<&str> = Vec::new();
    for a in universe.iter().chain(reached.iter()) {
        if !profiles.contains(&profile(a)) {
            profiles.push(profile(a));
        }
    }
    for p in profiles {
        let of: Vec<&str> = universe.iter().copied().filter(|a| profile(a) == p).collect();
        let hit: Vec<&str> = reached.iter().copied().filter(|a| profile(a) == p).collect();
        if hit.is_empty() {
            continue;
        }
        if !of.is_empty() && of.iter().all(|a| reached.contains(a)) {
            parts.push(pattern(&format!("{p}.*")));
            continue;
        }
        let mut cells: Vec<&str> = Vec::new();
        for a in &hit {
            let cell = split_account(a).0;
            if !cells.contains(&cell) {
                cells.push(cell);
            }
        }
        for cell in cells {
            let all: Vec<&str> = universe.iter().copied().filter(|a| split_account(a).0 == cell).collect();
            let whole = !all.is_empty() && all.iter().all(|a| reached.contains(a));
            match (whole, all.iter().any(|a| split_account(a).1.is_some())) {
                (true, true) => parts.push(pattern(&format!("{cell}.*"))),
                (true, false) => parts.push(code(cell)),
                (false, _) => parts.extend(hit.iter().filter(|a| split_account(a).0 == cell).map(|a| code(a))),
            }
        }
    }
    if parts.len() > NAMED_REACH {
        let more = parts.len() - (NAMED_REACH - 1);
        parts.truncate(NAMED_REACH - 1);
        format!("{} and {more} more", parts.join(", "))
    } else {
        parts.join(", ")
    }
}

/// Token deltas folded: one figure when every account agrees, else the most common one and the
/// providers that differ (`+1 (anthropic +2)`); a provider whose cells differ shows its range.
pub(super) fn folded(values: &[(&str, Option<i64>)]) -> String {
    if values.is_empty() {
        return "–".into();
    }
    let mut by: Vec<(&str, Vec<Option<i64>>)> = Vec::new();
    for (a, v) in values {
        let label = split_account(a).1.unwrap_or("prompt");
        match by.iter_mut().find(|(l, _)| *l == label) {
            Some((_, vs)) => vs.push(*v),
            None => by.push((label, vec![*v])),
        }
    }
    let shown: Vec<(&str, String)> = by
        .iter()
        .map(|(l, vs)| {
            let known: Option<Vec<i64>> = vs.iter().copied().collect();
            let text = match known {
                None => "?".to_string(),
                Some(k) => {
                    let (lo, hi) = (k.iter().min().copied().unwrap_or(0), k.iter().max().copied().unwrap_or(0));
                    if lo == hi {
                        signed(lo)
                    } else {
                        format!("{}…{}", signed(lo), signed(hi))
                    }
                }
            };
            (*l, text)
        })
        .collect();
    // The most common figure, the first one on a tie.
    let mut common = &shown[0].1;
    let mut best = 0;
    for (_, t) in &shown {
        let n = shown.iter().filter(|(_, u)| u == t).count();
        if n > best {
            (common, best) = (t, n);
        }
    }
    let others: Vec<String> = shown.iter().filter(|(_, t)| t != common).map(|(l, t)| format!("{l} {t}")).collect();
    if others.is_empty() {
        common.clone()
    } else {
        format!("{common} ({})", others.join(", "))
    }
}

/// The accounts changes alike reach (those with a figure of them, else those of their files),
/// and every account they could reach (those that have their subject, else every account).
pub(super) fn reached<'a>(r: &'a DiffReport, cs: &[&'a Change]) -> (BTreeSet<&'a str>, Vec<&'a str>) {
    let universe: Vec<&str> = if r.accounts.is_empty() {
        let mut u: Vec<&str> = Vec::new();
        for d in &r.deltas {
            if !u.contains(&d.cell.as_str()) {
                u.push(&d.cell);
            }
        }
        u
    } else {
        let subject = cs.first().map_or("", |c| c.subject.as_str());
        let having: Vec<&str> = r
            .accounts
            .iter()
            .filter(|(_, items)| items.iter().any(|i| i == subject))
            .map(|(a, _)| a.as_str())
            .collect();
        if having.is_empty() {
            r.accounts.iter().map(|(a, _)| a.as_str()).collect()
        } else {
            having
        }
    };
    let deltas: Vec<&Delta> = cs.iter().flat_map(|c| &c.deltas).collect();
    let reached: BTreeSet<&str> = if deltas.is_empty() {
        let stems: BTreeSet<&str> = cs.iter().flat_map(|c| c.files.iter().map(|f| super::changes::stem(f))).collect();
        let from_universe: BTreeSet<&str> =
            universe.iter().copied().filter(|a| stems.iter().any(|s| super::changes::account_of(a, s))).collect();
        if from_universe.is_empty() {
            stems
        } else {
            from_universe
        }
    } else {
        deltas.iter().map(|d| d.cell.as_str()).collect()
    };
    (reached, universe)
}

/// The own token change of changes alike in each account they reach (alike changes share
/// their item's figure: it is counted once).
pub(super) fn own_tokens<'a>(cs: &[&'a Change]) -> Vec<(&'a str, Option<i64>)> {
    let mut tokens: Vec<(&str, Option<i64>)> = Vec::new();
    for d in cs.iter().flat_map(|c| &c.deltas) {
        if !tokens.iter().any(|(a, _)| *a == d.cell) {
            tokens.push((&d.cell, d.tokens_delta()));
        }
    }
    tokens
}

/// A change's words after its subject in markdown: `description changed`, `parameter `path`
/// added`, `added`, `in 2 files`.
fn what(c: &Change) -> String {
    match (c.kind, c.parameter()) {
        (ChangeKind::Lines, _) => {
            format!("in {} file{}", c.files.len(), if c.files.len() == 1 { "" } else { "s" })
        }
        (_, Some(p)) => c.what().replacen(&format!("parameter {p}"), &format!("parameter {}", code(p)), 1),
        _ => c.what(),
    }
}

/// One row per change as the user made it — a tool added or removed, a parameter added,
/// removed or changed, a description, a section or a message changed, lines promptc cannot name
/// — with the cells it reaches and its own token change (changes alike in all three are one row).
fn change_rows(r: &DiffReport) -> String {
    if r.changes.iter().all(|c| c.is_file()) {
        return String::new();
    }
    let mut rows: Vec<Vec<&Change>> = Vec::new();
    for c in r.changes.iter().filter(|c| !c.is_file()) {
        let alike = |d: &&Change| {
            c.kind != ChangeKind::Lines && (d.kind, &d.subject, &d.fields) == (c.kind, &c.subject, &c.fields)
        };
        match rows.iter_mut().find(|cs| alike(&cs[0])) {
            Some(cs) => cs.push(c),
            None => rows.push(vec![c]),
        }
    }
    let mut out = String::from(
        "\n| change | what | reaches (of the cells that have it) | Δ tokens |\n| --- | --- | --- | ---: |\n",
    );
    for cs in rows {
        let c = cs[0];
        let (reached, universe) = reached(r, &cs);
        let tokens = own_tokens(&cs);
        let name = if c.kind == ChangeKind::Lines { "lines".to_string() } else { subject(&c.subject) };
        let _ = writeln!(out, "| {name} | {} | {} | {} |", what(c), reach(&reached, &universe), folded(&tokens));
    }
    out
}

/// The matrix, folded: a row per cell, a column per provider (and `prompt` for cells without
/// one), each the account's token change over its prompt, tools and messages.
fn matrix_table(r: &DiffReport) -> String {
    let mut cells: Vec<&str> = Vec::new();
    let mut columns: Vec<&str> = Vec::new();
    let mut figures: BTreeMap<(&str, &str), Option<i64>> = BTreeMap::new();
    for d in r.deltas.iter().filter(|d| matches!(d.item.as_str(), "prompt" | "tools" | "messages")) {
        let (cell, p) = split_account(&d.cell);
        let p = p.unwrap_or("prompt");
        if !cells.contains(&cell) {
            cells.push(cell);
        }
        if !columns.contains(&p) {
            columns.push(p);
        }
        let slot = figures.entry((cell, p)).or_insert(Some(0));
        *slot = slot.zip(d.tokens_delta()).map(|(a, b)| a + b);
    }
    if cells.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "\n<details><summary>Δ tokens of every changed cell ({})</summary>\n\n| cell | {} |\n| --- |{}\n",
        cells.len(),
        columns.join(" | "),
        " ---: |".repeat(columns.len())
    );
    for cell in cells {
        let row: Vec<String> = columns
            .iter()
            .map(|p| match figures.get(&(cell, *p)) {
                None => String::new(),
                Some(t) => t.map_or("?".into(), signed),
            })
            .collect();
        let _ = writeln!(out, "| {} | {} |", code(cell), row.join(" | "));
    }
    out.push_str("\n</details>\n");
    out
}

/// A change shown once: its title, and its lines in a diff fence.
fn change_block(c: &Change) -> String {
    let fence = fence(&c.diff);
    let places = if c.files.len() > 1 { format!(" · {} files", c.files.len()) } else { String::new() };
    format!("\n**{}**{places}\n{fence}diff\n{}{fence}\n", title(c), c.diff)
}
/// A code fence longer than any backtick run in `text`, so a diff of markdown cannot close it.
fn fence(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    "`".repeat((longest + 1).max(3))
}

/// What changed, in words, for a reader with ten seconds: the tools, sections and messages
/// whose text changed (by name, as code), and each profile's largest change in tokens across its
/// cells. Empty without a change of any item.
fn changed_in_words(r: &DiffReport) -> String {
    let changes: Vec<&Change> = r.changes.iter().filter(|c| !c.is_file()).collect();
    if !changes.is_empty() {
        return format!("\n**Changed:** {}{}\n", changes_in_words(&changes), largest(r));
    }
    let mut names: Vec<&str> = Vec::new();
    for d in &r.deltas {
        let named = ["tool ", "section ", "message "].iter().any(|k| d.item.starts_with(k));
        if named && !names.contains(&d.item.as_str()) {
            names.push(&d.item);
        }
    }
    if names.is_empty() {
        return String::new();
    }
    let shown: Vec<String> = names
        .iter()
        .take(12)
        .map(|n| match n.split_once(' ') {
            Some((kind, name)) => format!("{kind} {}", code(name)),
            None => code(n),
        })
        .collect();
    let more = if names.len() > 12 { format!(" and {} more", names.len() - 12) } else { String::new() };
    format!("\n**Changed:** {}{more}{}\n", shown.join(", "), largest(r))
}

/// The changes in words: each named when there are a few ("tool `read_file`: description
/// changed"), else counted by kind ("21 tool descriptions, 9 parameters added and 1 section").
fn changes_in_words(changes: &[&Change]) -> String {
    if changes.len() <= 3 {
        let named: Vec<String> = changes.iter().map(|c| title(c)).collect();
        return named.join(", ");
    }
    let mut kinds: Vec<(&str, &str, usize)> = Vec::new();
    for c in changes {
        let each = [match c.kind {
            ChangeKind::ToolAdded => ("tool added", "tools added"),
            ChangeKind::ToolRemoved => ("tool removed", "tools removed"),
            ChangeKind::ToolChanged => ("tool changed", "tools changed"),
            ChangeKind::DescriptionChanged => ("tool description", "tool descriptions"),
            ChangeKind::ParameterAdded => ("parameter added", "parameters added"),
            ChangeKind::ParameterRemoved => ("parameter removed", "parameters removed"),
            ChangeKind::ParameterChanged => ("parameter changed", "parameters changed"),
            ChangeKind::SectionChanged => ("section", "sections"),
            ChangeKind::MessageChanged => ("message", "messages"),
            _ => ("other change", "other changes"),
        }];
        for (one, many) in each {
            match kinds.iter_mut().find(|(o, _, _)| *o == one) {
                Some((_, _, n)) => *n += 1,
                None => kinds.push((one, many, 1)),
            }
        }
    }
    let words: Vec<String> =
        kinds.iter().map(|(one, many, n)| if *n == 1 { format!("1 {one}") } else { format!("{n} {many}") }).collect();
    match words.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => words.join(""),
    }
}

/// ` · largest token change: `standard` +36, `lite` +1` — each profile's largest change in
/// tokens over its cells' prompt, tools and messages; empty without counts.
fn largest(r: &DiffReport) -> String {
    let mut profiles: Vec<(&str, i64)> = Vec::new();
    for d in r.deltas.iter().filter(|d| matches!(d.item.as_str(), "prompt" | "tools" | "messages")) {
        let Some(t) = d.tokens_delta() else { continue };
        let profile = profile(&d.cell);
        match profiles.iter_mut().find(|(p, _)| *p == profile) {
            Some((_, max)) if t.abs() > max.abs() => *max = t,
            Some(_) => {}
            None => profiles.push((profile, t)),
        }
    }
    if profiles.is_empty() {
        return String::new();
    }
    let each: Vec<String> = profiles.iter().map(|(p, t)| format!("{} {t:+}", code(p))).collect();
    format!(" · **largest token change:** {}", each.join(", "))
}

/// Changes shown one by one; more are folded under one heading.
const OPEN_CHANGES: usize = 8;

/// The PR comment for a comparison, at most `max_bytes` long (at least [`MIN_MARKDOWN_BYTES`](crate::snapshot::MIN_MARKDOWN_BYTES)):
/// the headline and a note are always there; then, while they fit, one row per changed thing
/// (the cells it reaches, its token change folded across providers), each distinct change once
/// under a title saying what changed, the files added, removed or too large to diff, and the
/// matrix of token changes folded at the end.
pub fn render(r: &DiffReport, max_bytes: usize) -> String {
    let mut out = format!("### promptc diff — {}\n", super::format::headline(r, label));
    out.push_str(&changed_in_words(r));
    let max_bytes = max_bytes.max(MIN_MAX_BYTES);
    let mut left_out: Vec<String> = Vec::new();
    // Room for the closing note.
    let budget = max_bytes.saturating_sub(400);
    let fits = |out: &String, block: &str, reserve: usize| out.len() + block.len() + reserve <= budget;
    let rows = change_rows(r);
    if fits(&out, &rows, 0) {
        out.push_str(&rows);
    } else if !rows.is_empty() {
        left_out.push("the table of changes".into());
    }
    // Whole files (added, removed, too large) are in the list of files below.
    let changes: Vec<&Change> = r.changes.iter().filter(|c| !c.is_file()).collect();
    let folded = changes.len() > OPEN_CHANGES;
    let (open, close) = if folded {
        (format!("\n<details><summary>The {} changes, each once</summary>\n", changes.len()), "\n</details>\n")
    } else {
        (String::new(), "")
    };
    let mut shown = 0;
    let mut started = false;
    for c in &changes {
        let block = change_block(c);
        let head = if started { "" } else { open.as_str() };
        if fits(&out, &format!("{head}{block}"), close.len()) {
            out.push_str(head);
            out.push_str(&block);
            started = true;
            shown += 1;
        }
    }
    if started {
        out.push_str(close);
    }
    if shown < changes.len() {
        let n = changes.len() - shown;
        left_out.push(format!("{n} change{}", if n == 1 { "" } else { "s" }));
    }
    let others: Vec<&FileChange> = r
        .files
        .iter()
        .filter(|f| f.file != crate::output::snapshot::SUMMARY && (f.status != Status::Modified || f.too_large))
        .collect();
    if !others.is_empty() {
        let mut list = String::from("\n");
        for f in others {
            let what = match f.status {
                Status::Modified => format!(
                    "modified, +{} −{}: {}",
                    f.added_lines,
                    f.removed_lines,
                    super::too_large_note(f.added_lines + f.removed_lines)
                ),
                Status::Added => format!("missing from {}", label(&r.old)),
                Status::Removed => "no longer rendered".into(),
            };
            let _ = writeln!(list, "- {} ({what})", code(&f.file));
        }
        if fits(&out, &list, 0) {
            out.push_str(&list);
        } else {
            left_out.push("the list of added and removed files".into());
        }
    }
    let matrix = matrix_table(r);
    if fits(&out, &matrix, 0) {
        out.push_str(&matrix);
    } else if !matrix.is_empty() {
        left_out.push("the table of every cell".into());
    }
    if !left_out.is_empty() {
        let _ = write!(
            out,
            "\n> Left out to stay within {max_bytes} bytes: {}. Run `promptc diff` for everything.\n",
            left_out.join(", ")
        );
    }
    out
}
#[cfg(test)]
mod tests {
    use super::*;

    fn change(file: &str, diff: &str) -> FileChange {
        FileChange {
            file: file.into(),
            status: Status::Modified,
            diff: diff.into(),
            added_lines: 1,
            removed_lines: 1,
            too_large: false,
        }
    }

    fn report(files: Vec<FileChange>) -> DiffReport {
        DiffReport {
            old: "snapshots".into(),
            new: "project".into(),
            files,
            deltas: Vec::new(),
            changes: Vec::new(),
            accounts: Vec::new(),
        }
    }

    /// A report of files whose old and new texts are given, with its changes.
    fn compared(pairs: &[(&str, &str, &str)], deltas: Vec<Delta>) -> DiffReport {
        let old: BTreeMap<String, String> = pairs.iter().map(|(f, a, _)| (f.to_string(), a.to_string())).collect();
        let new: BTreeMap<String, String> = pairs.iter().map(|(f, _, b)| (f.to_string(), b.to_string())).collect();
        let files = super::super::compare_files(&old, &new, "snapshots", "rendered");
        let changes = super::super::changes(&old, &new, &files, &deltas);
        DiffReport { deltas, changes, ..report(files) }
    }

    fn delta(cell: &str, item: &str, before: u64, after: u64) -> Delta {
        let counts = |t: u64| Some(super::super::Counts { tokens: Some(t), bytes: t * 4 });
        Delta { cell: cell.into(), item: item.into(), before: counts(before), after: counts(after) }
    }

    #[test]
    fn identical_lines_are_shown_once_for_every_file() {
        let r = compared(&[("one.md", "a\nb\nd\n", "a\nc\nd\n"), ("two.md", "x\nb\ny\n", "x\nc\ny\n")], vec![]);
        let md = render(&r, DEFAULT_MAX_BYTES);
        assert_eq!(md.matches("-b\n+c").count(), 1, "{md}");
        assert!(md.contains("**lines in `one.md` and 1 more file** · 2 files"), "{md}");
        assert!(md.contains("| lines | in 2 files |"), "{md}");
    }

    #[test]
    fn a_row_per_tool_with_its_reach_and_tokens_folded() {
        let json = |d: &str| format!("[{{\"name\": \"read_file\", \"description\": \"{d}\"}}]\n");
        let (a, b) = (json("Read a file."), json("Read a whole file."));
        let mut deltas = Vec::new();
        let mut pairs = Vec::new();
        let names: Vec<String> = ["openai", "anthropic", "gemini"]
            .iter()
            .flat_map(|p| ["standard.native", "standard.yolo.native"].map(|c| format!("{c}.{p}")))
            .collect();
        for n in &names {
            deltas.push(delta(n, "tool read_file, description", 10, if n.ends_with("anthropic") { 12 } else { 11 }));
            pairs.push((format!("{n}.tools.json"), a.clone(), b.clone()));
        }
        let pairs: Vec<(&str, &str, &str)> =
            pairs.iter().map(|(f, a, b)| (f.as_str(), a.as_str(), b.as_str())).collect();
        let mut r = compared(&pairs, deltas);
        let has = |n: &str| (n.to_string(), vec!["tool read_file".to_string()]);
        r.accounts = names.iter().map(|n| has(n)).collect();
        r.accounts.push(has("lite.native.openai"));
        r.accounts.push(("lite.native.gemini".into(), vec![]));
        let md = render(&r, DEFAULT_MAX_BYTES);
        assert!(md.contains("| tool `read_file` | description changed | `standard.*` | +1 (anthropic +2) |"), "{md}");
        assert!(
            md.contains(
                "**tool `read_file`: description changed** · 6 files\n```diff\n-Read a file.\n+Read a whole file.\n```"
            ),
            "{md}"
        );
        assert!(md.contains("**Changed:** tool `read_file`: description changed"), "{md}");
        r.accounts.remove(names.len());
        // Every cell that has the tool.
        assert!(render(&r, DEFAULT_MAX_BYTES).contains("| every cell |"));
    }

    #[test]
    fn reach_names_whole_cells_and_single_accounts() {
        let universe = ["s.native.openai", "s.native.gemini", "s.xml", "l.native.openai", "l.native.gemini", "l.xml"];
        let reached = |a: &[&'static str]| a.iter().copied().collect::<BTreeSet<&str>>();
        assert_eq!(reach(&reached(&["s.native.openai", "s.native.gemini"]), &universe), "`s.native.*`");
        assert_eq!(reach(&reached(&["s.native.openai", "s.native.gemini", "s.xml"]), &universe), "`s.*`");
        assert_eq!(reach(&reached(&["s.native.openai", "l.xml"]), &universe), "`s.native.openai`, `l.xml`");
    }

    #[test]
    fn the_cap_holds_and_says_what_it_left_out() {
        let pairs: Vec<(String, String, String)> =
            (0..200).map(|i| (format!("f{i:03}.md"), format!("{}\n", "x".repeat(500)), format!("{i}\n"))).collect();
        let pairs: Vec<(&str, &str, &str)> =
            pairs.iter().map(|(f, a, b)| (f.as_str(), a.as_str(), b.as_str())).collect();
        let md = render(&compared(&pairs, vec![]), 10_000);
        assert!(md.len() <= 10_000, "{}", md.len());
        assert!(md.contains("Left out to stay within 10000 bytes"), "{md}");
        assert!(md.contains(" changes. Run `promptc diff` for everything."), "{md}");
        assert_eq!(md.matches("<details>").count(), md.matches("</details>").count(), "{md}");
    }

    #[test]
    fn tiny_caps_are_raised_to_the_minimum() {
        let pairs: Vec<(String, String, String)> =
            (0..50).map(|i| (format!("f{i}.md"), "a\n".into(), format!("{i}\n"))).collect();
        let pairs: Vec<(&str, &str, &str)> =
            pairs.iter().map(|(f, a, b)| (f.as_str(), a.as_str(), b.as_str())).collect();
        assert!(render(&compared(&pairs, vec![]), 10).len() <= MIN_MAX_BYTES);
    }

    #[test]
    fn fences_outgrow_backticks_in_the_diff() {
        let md = render(&compared(&[("x.md", "```\n", "````\n")], vec![]), DEFAULT_MAX_BYTES);
        assert!(md.contains("`````diff\n"), "{md}");
    }

    /// A committed snapshot file name, cell, section and folder label with line breaks,
    /// backticks, a heading, a mention, a link, an image and HTML: the comment shows them as
    /// code and none of them as markdown.
    #[test]
    fn hostile_names_are_code_never_markdown() {
        let evil = "x\n\n# Heading @octocat [link](https://evil.example) ![i](https://evil.example/i.png) <img src=x> ``` |\u{2028}y";
        let mut r = compared(&[(&format!("{evil}.prompt.md"), "a\n", "b\n")], vec![]);
        r.files.push(FileChange { status: Status::Added, ..change(&format!("{evil}.tools.json"), "") });
        r.files.push(FileChange { status: Status::Removed, ..change(&format!("www.evil.example{evil}"), "") });
        r.old = evil.into();
        r.deltas = vec![Delta {
            cell: evil.into(),
            item: format!("section {evil}"),
            before: None,
            after: Some(super::super::Counts { tokens: Some(1), bytes: 1 }),
        }];
        let md = render(&r, DEFAULT_MAX_BYTES);
        assert_inert(&md);
        assert!(md.contains("<code>x&#92;u&#123;000a&#125;&#92;u&#123;000a&#125;&#35;&#32;Heading"), "{md}");
    }

    /// Tool and parameter names from a committed tools file (a pull request's) are code in the
    /// rows, the titles and the headline.
    #[test]
    fn hostile_tool_and_parameter_names_are_code() {
        let evil = "x` <img src=x> [l](https://evil.example) |\n# H";
        let tools = |d: &str| {
            serde_json::to_string_pretty(&serde_json::json!([{"name": evil, "description": d, "parameters": {
                "type": "object", "properties": {format!("a, {evil}"): {"type": "string", "description": d}}}}]))
            .unwrap()
        };
        let (a, b) = (tools("Old text."), tools("New text."));
        let delta = |cell: &str| delta(cell, &format!("tool {evil}"), 1, 2);
        let r = compared(&[("s.native.openai.tools.json", &a, &b)], vec![delta("s.native.openai")]);
        let kinds: Vec<ChangeKind> = r.changes.iter().map(|c| c.kind).collect();
        assert_eq!(kinds, [ChangeKind::DescriptionChanged, ChangeKind::ParameterChanged], "{:#?}", r.changes);
        let md = render(&r, DEFAULT_MAX_BYTES);
        assert_inert(&md);
        assert!(md.contains("-Old text.\n+New text."), "{md}");
    }

    /// Markdown in which no name opened anything: one heading (the headline), no mention, link,
    /// image, HTML tag but promptc's own, table row broken, or raw line separator.
    pub(crate) fn assert_inert(md: &str) {
        let headings: Vec<&str> = md.lines().filter(|l| l.trim_start().starts_with('#')).collect();
        assert_eq!(headings.len(), 1, "{headings:?}\n{md}");
        for bad in ["@octocat", "](", "![", "<img", "\u{2028}", "https:"] {
            assert!(!md.contains(bad), "{bad:?} in\n{md}");
        }
        // GitHub links `www.` only at a line's start or after a space or `*_~(`.
        for (at, _) in md.match_indices("www.") {
            let before = md[..at].chars().next_back();
            assert!(before.is_some_and(|c| !c.is_whitespace() && !"*_~(".contains(c)), "a web address in\n{md}");
        }
        let tags: std::collections::BTreeSet<&str> =
            md.split('<').skip(1).filter_map(|t| t.split(['>', ' ']).next()).collect();
        let ours: std::collections::BTreeSet<&str> =
            ["details", "/details", "summary", "/summary", "code", "/code"].into_iter().collect();
        assert!(tags.is_subset(&ours), "{tags:?}\n{md}");
        // Every row of a table has its header's cells.
        let mut header: Option<usize> = None;
        for line in md.lines() {
            if !line.starts_with('|') {
                header = None;
                continue;
            }
            let cells = line.matches('|').count();
            assert_eq!(*header.get_or_insert(cells), cells, "a cell too many: {line}");
        }
        let fences = md.lines().filter(|l| l.starts_with("```")).count();
        assert_eq!(fences % 2, 0, "{md}");
    }
}
