//! Tests of file comparison and summary deltas.

use std::collections::BTreeMap;

use super::{compare_files, deltas, Status};
use crate::output::snapshot::{CellSummary, Fingerprint, Summary};

fn files(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

#[test]
fn classifies_changes() {
    let old = files(&[("a", "1\n2\n"), ("b", "x\n"), ("gone", "g\n")]);
    let new = files(&[("a", "1\n3\n"), ("b", "x\n"), ("new", "n\nm\n")]);
    let c = compare_files(&old, &new, "old", "new");
    let summary: Vec<(&str, Status)> = c.iter().map(|f| (f.file.as_str(), f.status)).collect();
    assert_eq!(summary, [("a", Status::Modified), ("gone", Status::Removed), ("new", Status::Added)]);
    assert_eq!(c[0].diff, "--- old/a\n+++ new/a\n@@ -1,2 +1,2 @@\n 1\n-2\n+3\n");
    assert_eq!((c[0].added_lines, c[0].removed_lines), (1, 1));
}

#[test]
fn deltas_report_only_changed_items() {
    use crate::measure::Measure;
    use crate::output::snapshot::SUMMARY_FORMAT;
    use crate::output::snapshot::{AccountSummary, Item};
    let m = |tokens: u64| Measure { tokens, bytes: tokens * 4 };
    let item = |name: &str, tokens: u64| Item { name: name.into(), sent: m(tokens) };
    let account = |sections: Vec<Item>, prompt: u64| AccountSummary {
        name: "s.native.openai".into(),
        provider: Some(crate::model::provider::Provider::OpenAiChat),
        tokenizer: "o200k_base".into(),
        prompt: m(prompt),
        tools: m(100),
        total: m(prompt + 100),
        billed: prompt + 120,
        cacheable: prompt,
        sections,
        tool_items: vec![crate::output::snapshot::ToolSummary {
            name: "read".into(),
            sent: m(100),
            description: Some(m(10)),
            params: Some(vec![item("path", 20)]),
        }],
        messages: None,
        message_items: Vec::new(),
    };
    let file = |name: &str, sha: &str| Fingerprint { name: name.into(), bytes: 1, sha256: sha.into() };
    let sum = |a: AccountSummary| Summary {
        format: SUMMARY_FORMAT,
        project: "p".into(),
        contract_version: 1,
        cells: vec![CellSummary {
            cell: "s.native".into(),
            profile: "s".into(),
            case: None,
            transport: crate::model::transport::Transport::Native,
            prompt: file("s.native.prompt.md", "x"),
            sections: Vec::new(),
            tools: BTreeMap::new(),
            messages: None,
            chat: Default::default(),
            accounts: vec![a],
        }],
        files: Vec::new(),
    };
    let old = sum(account(vec![item("a", 10), item("b", 5)], 15));
    let new = sum(account(vec![item("a", 12), item("b", 5), item("c", 1)], 18));
    let d = deltas(&old, &new);
    let items: Vec<(&str, &str, Option<i64>)> =
        d.iter().map(|d| (d.cell.as_str(), d.item.as_str(), d.tokens_delta())).collect();
    assert_eq!(
        items,
        [
            ("s.native.openai", "prompt", Some(3)),
            ("s.native.openai", "section a", Some(2)),
            ("s.native.openai", "section c", Some(1))
        ]
    );
}

/// A file whose changed region spans more than `MAX_DIFF_LINES` lines: no hunks, a note saying
/// why, every line of the region counted; the lines both sides share at the ends are not.
#[test]
fn a_change_too_large_to_diff_is_reported_without_hunks() {
    use super::MAX_DIFF_LINES;
    let unique = |tag: &str, n: usize| -> String { (0..n).map(|i| format!("{tag} {i}\n")).collect() };
    let (head, tail) = ("same start\n".repeat(5), "same end\n".repeat(7));
    let old = format!("{head}{}{tail}", unique("old", MAX_DIFF_LINES));
    let new = format!("{head}{}{tail}", unique("new", 3));
    let c = compare_files(&files(&[("big.md", &old)]), &files(&[("big.md", &new)]), "old", "new");
    assert!(c[0].too_large);
    assert_eq!((c[0].added_lines, c[0].removed_lines), (3, MAX_DIFF_LINES));
    let note = super::too_large_note(MAX_DIFF_LINES + 3);
    assert_eq!(c[0].diff, format!("--- old/big.md\n+++ new/big.md\n{note}\n"));
    assert!(note.contains("too large to show line by line (10003 changed lines"), "{note}");
    // Exactly at the limit: diffed line by line, as before.
    let old = format!("{head}{}{tail}", unique("old", MAX_DIFF_LINES - 3));
    let c = compare_files(&files(&[("big.md", &old)]), &files(&[("big.md", &new)]), "old", "new");
    assert!(!c[0].too_large && c[0].diff.starts_with("--- old/big.md\n+++ new/big.md\n@@ -3,"));
    assert_eq!((c[0].added_lines, c[0].removed_lines), (3, MAX_DIFF_LINES - 3));
}
