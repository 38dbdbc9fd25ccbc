//! The PR comment: a summary first (per cell: the prompt's and each provider's tools' token
//! deltas), then the changes with identical hunks shown once for all the files they occur
//! in, up to a byte cap, then a note naming what was left out. GitHub rejects comment bodies
//! over 65,536 characters; the default cap leaves room for a caller's own header.

use std::fmt::Write as _;

use super::{Delta, DiffReport, FileChange, Status};
use crate::diagnostic::is_line_break_or_control;

/// The default cap of `promptc diff --format markdown`, in bytes (a character is at least one
/// byte, so the text stays under GitHub's 65,536-character limit with margin).
pub const DEFAULT_MAX_BYTES: usize = 60_000;

/// The smallest cap: the headline, the closing note and a little room.
pub const MIN_MAX_BYTES: usize = 1_000;

/// Files named in a group's heading before "and N more".
const NAMED_FILES: usize = 6;

/// A hunk of a unified diff: its `@@` line and its body.
struct Hunk<'a> {
    header: &'a str,
    body: &'a str,
}

/// The hunks of a unified diff (the `---`/`+++` header dropped).
fn hunks(diff: &str) -> Vec<Hunk<'_>> {
    let mut out = Vec::new();
    let mut starts: Vec<usize> = Vec::new();
    let mut offset = 0;
    for line in diff.split_inclusive('\n') {
        if line.starts_with("@@") {
            starts.push(offset);
        }
        offset += line.len();
    }
    for (i, &start) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(diff.len());
        let text = &diff[start..end];
        let header_end = text.find('\n').map_or(text.len(), |n| n + 1);
        out.push(Hunk { header: &text[..header_end], body: &text[header_end..] });
    }
    out
}

/// One change shown once: a hunk body and every file (with its `@@` line) it occurs in.
struct Group<'a> {
    body: &'a str,
    places: Vec<(&'a str, &'a str)>,
}

/// Identical hunks grouped across files, in order of first appearance (files are sorted).
fn groups<'a>(files: &[&'a FileChange]) -> Vec<Group<'a>> {
    let mut out: Vec<Group<'a>> = Vec::new();
    let mut index: std::collections::HashMap<&'a str, usize> = std::collections::HashMap::new();
    for f in files {
        for h in hunks(&f.diff) {
            match index.get(h.body) {
                Some(&i) => out[i].places.push((f.file.as_str(), h.header)),
                None => {
                    index.insert(h.body, out.len());
                    out.push(Group { body: h.body, places: vec![(f.file.as_str(), h.header)] });
                }
            }
        }
    }
    out
}

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

/// A hunk's `@@ -1,3 +1,4 @@` line as inline code in HTML: as it is when it is one (digits and
/// `@ ,+-`), else [`html_code`] (a file name with a line break can put any line where a hunk
/// header would be).
fn hunk_header(header: &str) -> String {
    if header.starts_with("@@ ")
        && header.chars().all(|c| c.is_ascii_digit() || matches!(c, '@' | ' ' | ',' | '+' | '-'))
    {
        format!("<code>{header}</code>")
    } else {
        html_code(header)
    }
}

/// A delta's item: its kind as it is (promptc's own word), the name after it as [`code`].
fn item(item: &str) -> String {
    match item.split_once(' ') {
        Some((kind, name)) => format!("{kind} {}", code(name)),
        None => item.to_string(),
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

/// Per cell (and provider): the prompt's and the tools' token deltas, the bytes, and how many
/// sections and tools changed (each is in the full table).
fn summary(r: &DiffReport) -> String {
    let mut cells: Vec<&str> = Vec::new();
    for d in &r.deltas {
        if !cells.contains(&d.cell.as_str()) {
            cells.push(&d.cell);
        }
    }
    if cells.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "\n| cell | Δ tokens prompt | Δ tokens tools | Δ bytes | changed |\n| --- | ---: | ---: | ---: | --- |\n",
    );
    for cell in cells {
        let of = |pred: &dyn Fn(&str) -> bool| -> Vec<&Delta> {
            r.deltas.iter().filter(|d| d.cell == cell && pred(&d.item)).collect()
        };
        let tokens = |ds: &[&Delta]| -> String {
            if ds.is_empty() {
                return "0".into();
            }
            ds.iter().map(|d| d.tokens_delta()).sum::<Option<i64>>().map_or("?".into(), signed)
        };
        let prompt = of(&|i| i == "prompt");
        let tools = of(&|i| i == "tools" || i.starts_with("tools "));
        let bytes: i64 = prompt.iter().chain(&tools).map(|d| d.bytes_delta()).sum();
        let count = |prefix: &str| of(&|i| i.starts_with(prefix)).len();
        let mut changed = Vec::new();
        for (prefix, one, many) in [("section ", "section", "sections"), ("tool ", "tool", "tools")] {
            match count(prefix) {
                0 => {}
                1 => changed.push(format!("1 {one}")),
                n => changed.push(format!("{n} {many}")),
            }
        }
        let changed = if changed.is_empty() { "–".to_string() } else { changed.join(", ") };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {changed} |",
            code(cell),
            tokens(&prompt),
            tokens(&tools),
            signed(bytes)
        );
    }
    out
}

/// The full delta table, collapsed.
fn delta_table(r: &DiffReport) -> String {
    if r.deltas.is_empty() {
        return String::new();
    }
    let mut out = String::from("\n<details><summary>Every changed section and tools file</summary>\n\n");
    out.push_str("| cell | item | Δ tokens | Δ bytes |\n| --- | --- | ---: | ---: |\n");
    for d in &r.deltas {
        let tokens = d.tokens_delta().map_or("?".into(), signed);
        let _ = writeln!(out, "| {} | {} | {tokens} | {} |", code(&d.cell), item(&d.item), signed(d.bytes_delta()));
    }
    out.push_str("\n</details>\n");
    out
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

/// The smallest room worth a cut change.
const MIN_CUT: usize = 1_000;

/// A group as a collapsed block; with `room`, its body cut at a line so the block fits.
fn group_block(g: &Group<'_>, room: Option<usize>) -> String {
    let fence = fence(g.body);
    let body = match room {
        None => g.body.to_string(),
        Some(room) => {
            // Heading, fences and the cut line take about 600 bytes with six file names.
            let keep = room.saturating_sub(700);
            let mut end = 0;
            for line in g.body.split_inclusive('\n') {
                if end + line.len() > keep {
                    break;
                }
                end += line.len();
            }
            let left = g.body[end..].lines().count();
            format!(
                "{}… {left} more line{} of this change left out\n",
                &g.body[..end],
                if left == 1 { "" } else { "s" }
            )
        }
    };
    let title = match g.places.as_slice() {
        [(file, header)] => format!("{} {}", html_code(file), hunk_header(header.trim_end())),
        places => {
            let named: Vec<String> = places.iter().take(NAMED_FILES).map(|(f, _)| html_code(f)).collect();
            let more = places.len().saturating_sub(NAMED_FILES);
            let more = if more > 0 { format!(" and {more} more") } else { String::new() };
            format!("same change in {} files: {}{more}", places.len(), named.join(", "))
        }
    };
    format!("\n<details><summary>{title}</summary>\n\n{fence}diff\n{body}{fence}\n\n</details>\n")
}

/// What changed, in words, for a reader with ten seconds: the tools, sections and messages
/// whose text changed (by name, as code), and each profile's largest change in tokens across its
/// cells. Empty without a change of any item.
fn changed_in_words(r: &DiffReport) -> String {
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
    // Each profile's largest token change over its cells' prompt, tools and messages.
    let mut profiles: Vec<(&str, i64)> = Vec::new();
    for d in r.deltas.iter().filter(|d| matches!(d.item.as_str(), "prompt" | "tools" | "messages")) {
        let Some(t) = d.tokens_delta() else { continue };
        let profile = d.cell.split(['.', ' ']).next().unwrap_or(&d.cell);
        match profiles.iter_mut().find(|(p, _)| *p == profile) {
            Some((_, max)) if t.abs() > max.abs() => *max = t,
            Some(_) => {}
            None => profiles.push((profile, t)),
        }
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
    let mut line = format!("\n**Changed:** {}{more}", shown.join(", "));
    if !profiles.is_empty() {
        let each: Vec<String> = profiles.iter().map(|(p, t)| format!("{} {t:+}", code(p))).collect();
        line.push_str(&format!(" · **largest token change:** {}", each.join(", ")));
    }
    line.push('\n');
    line
}

/// The PR comment for a comparison, at most `max_bytes` long (at least [`MIN_MARKDOWN_BYTES`](crate::snapshot::MIN_MARKDOWN_BYTES)):
/// the headline and a note are always there; the summary table, the full delta table and the
/// changes follow while they fit, a change too long for the room left is cut at a line.
pub fn render(r: &DiffReport, max_bytes: usize) -> String {
    let mut out = format!("### promptc diff — {}\n", super::format::headline(r, label));
    out.push_str(&changed_in_words(r));
    let max_bytes = max_bytes.max(MIN_MAX_BYTES);
    let mut left_out: Vec<String> = Vec::new();
    let mut left_out_cut = 0;
    // Room for the closing note.
    let budget = max_bytes.saturating_sub(400);
    let mut add = |out: &mut String, block: String, what: String| {
        if out.len() + block.len() <= budget {
            out.push_str(&block);
        } else if !what.is_empty() {
            left_out.push(what);
        }
    };
    add(&mut out, summary(r), "the summary table".into());
    add(&mut out, delta_table(r), "the table of every changed item".into());
    // Files with hunks; the summary (its changes are the tables) and files too large to diff
    // line by line are listed with the added and removed files.
    let hunked =
        |f: &FileChange| f.status == Status::Modified && f.file != crate::output::snapshot::SUMMARY && !f.too_large;
    let modified: Vec<&FileChange> = r.files.iter().filter(|f| hunked(f)).collect();
    for g in groups(&modified) {
        let files = g.places.len();
        let what = format!("a change in {files} file{}", if files == 1 { "" } else { "s" });
        let block = group_block(&g, None);
        // A change larger than what is left is shown cut rather than dropped, while the room
        // left is worth it.
        let room = budget.saturating_sub(out.len());
        if out.len() + block.len() > budget && room >= MIN_CUT {
            add(&mut out, group_block(&g, Some(room)), String::new());
            left_out_cut += 1;
            continue;
        }
        add(&mut out, block, what);
    }
    let others: Vec<&FileChange> = r.files.iter().filter(|f| !hunked(f)).collect();
    if !others.is_empty() {
        let mut list = String::from("\n");
        for f in others {
            let what = match f.status {
                Status::Modified if f.file == crate::output::snapshot::SUMMARY => {
                    "modified: token and byte deltas above".to_string()
                }
                Status::Modified if f.too_large => format!(
                    "modified, +{} −{}: {}",
                    f.added_lines,
                    f.removed_lines,
                    super::too_large_note(f.added_lines + f.removed_lines)
                ),
                Status::Modified => "modified: token and byte deltas above".to_string(),
                Status::Added => format!("missing from {}", label(&r.old)),
                Status::Removed => "no longer rendered".into(),
            };
            let _ = writeln!(list, "- {} ({what})", code(&f.file));
        }
        add(&mut out, list, "the list of added and removed files".into());
    }
    if left_out_cut > 0 {
        left_out.push("the end of a long change".into());
    }
    if !left_out.is_empty() {
        let _ = write!(
            out,
            "\n> Left out to stay within {max_bytes} bytes: {}. Run `promptc diff` for everything.\n",
            summarize(&left_out)
        );
    }
    out
}

/// "3 changes in 40 files" style: counts of the same kind merged.
fn summarize(items: &[String]) -> String {
    let changes = items.iter().filter(|i| i.starts_with("a change in")).count();
    let files: usize =
        items.iter().filter_map(|i| i.strip_prefix("a change in ")?.split(' ').next()?.parse::<usize>().ok()).sum();
    let mut parts: Vec<String> = items.iter().filter(|i| !i.starts_with("a change in")).cloned().collect();
    if changes > 0 {
        parts.push(format!(
            "{changes} change{} ({files} file hunk{})",
            if changes == 1 { "" } else { "s" },
            if files == 1 { "" } else { "s" }
        ));
    }
    parts.join(", ")
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
        DiffReport { old: "snapshots".into(), new: "project".into(), files, deltas: Vec::new() }
    }

    const HUNK: &str = "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n d\n";

    #[test]
    fn identical_hunks_are_shown_once_for_every_file() {
        let other = "--- a/y\n+++ b/y\n@@ -7,3 +7,3 @@\n a\n-b\n+c\n d\n";
        let r = report(vec![change("one.md", HUNK), change("two.md", other)]);
        let md = render(&r, DEFAULT_MAX_BYTES);
        assert_eq!(md.matches("-b\n+c").count(), 1, "{md}");
        assert!(md.contains("same change in 2 files: <code>one.md</code>, <code>two.md</code>"), "{md}");
    }

    #[test]
    fn distinct_hunks_are_shown_each() {
        let other = "--- a/y\n+++ b/y\n@@ -1,3 +1,3 @@\n a\n-b\n+z\n d\n";
        let md = render(&report(vec![change("one.md", HUNK), change("two.md", other)]), DEFAULT_MAX_BYTES);
        assert!(md.contains("+c") && md.contains("+z"));
        assert!(md.contains("<code>one.md</code> <code>@@ -1,3 +1,3 @@</code>"), "{md}");
    }

    #[test]
    fn the_cap_holds_and_says_what_it_left_out() {
        let files: Vec<FileChange> = (0..200)
            .map(|i| {
                change(&format!("f{i:03}.md"), &format!("--- a\n+++ b\n@@ -1 +1 @@\n-{}\n+{i}\n", "x".repeat(500)))
            })
            .collect();
        let md = render(&report(files), 10_000);
        assert!(md.len() <= 10_000, "{}", md.len());
        assert!(md.contains("Left out to stay within 10000 bytes"), "{md}");
        assert!(md.contains("changes (") && md.contains("file hunks)"), "{md}");
    }

    #[test]
    fn a_long_change_is_cut_not_dropped() {
        let body: String = (0..3000).map(|i| format!("+line {i}\n")).collect();
        let diff = format!("--- a\n+++ b\n@@ -0,0 +1,3000 @@\n{body}");
        let md = render(&report(vec![change("big.md", &diff)]), 20_000);
        assert!(md.len() <= 20_000, "{}", md.len());
        assert!(md.contains("+line 0\n") && !md.contains("+line 2999\n"), "{md}");
        assert!(md.contains("more lines of this change left out"), "{md}");
        assert!(md.contains("Left out to stay within 20000 bytes: the end of a long change."), "{md}");
    }

    #[test]
    fn tiny_caps_are_raised_to_the_minimum() {
        let files: Vec<FileChange> =
            (0..50).map(|i| change(&format!("f{i}.md"), &format!("--- a\n+++ b\n@@ -1 +1 @@\n-a\n+{i}\n"))).collect();
        assert!(render(&report(files), 10).len() <= MIN_MAX_BYTES);
    }

    #[test]
    fn fences_outgrow_backticks_in_the_diff() {
        let diff = "--- a\n+++ b\n@@ -1 +1 @@\n-```\n+````\n";
        let md = render(&report(vec![change("x.md", diff)]), DEFAULT_MAX_BYTES);
        assert!(md.contains("`````diff\n"), "{md}");
    }

    /// A committed snapshot file name, cell, section and folder label with line breaks,
    /// backticks, a heading, a mention, a link, an image and HTML: the comment shows them as
    /// code and none of them as markdown.
    #[test]
    fn hostile_names_are_code_never_markdown() {
        let evil = "x\n\n# Heading @octocat [link](https://evil.example) ![i](https://evil.example/i.png) <img src=x> ``` |\u{2028}y";
        let diff = format!("--- a/{evil}\n+++ b/{evil}\n@@ -1 +1 @@\n-a\n+b\n");
        let mut r = report(vec![
            change(&format!("{evil}.prompt.md"), &diff),
            FileChange { status: Status::Added, ..change(&format!("{evil}.tools.json"), "") },
            FileChange { status: Status::Removed, ..change(&format!("www.evil.example{evil}"), "") },
        ]);
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
        for row in md.lines().filter(|l| l.starts_with('|')) {
            assert!(matches!(row.matches('|').count(), 5 | 6), "a cell too many: {row}");
        }
        let fences = md.lines().filter(|l| l.starts_with("```")).count();
        assert_eq!(fences % 2, 0, "{md}");
    }

    #[test]
    fn hunks_split_on_their_headers() {
        let diff = "--- a\n+++ b\n@@ -1 +1 @@\n-a\n+b\n@@ -9 +9 @@\n-c\n+d\n";
        let h = hunks(diff);
        assert_eq!(h.len(), 2);
        assert_eq!(h[1].header, "@@ -9 +9 @@\n");
        assert_eq!(h[1].body, "-c\n+d\n");
    }
}
