//! Profile roles are declared, never taken from a name: the shipped example with its profiles
//! renamed everywhere (`standard` → `spacious`, `lite` → `mini`: the same lengths, so byte
//! counts stay comparable, and the same order, so sorted lists do) compiles to the same snapshot matrix but for the names, and its
//! selection policy still picks the compact profile for small models.

use std::collections::BTreeMap;
use std::path::Path;

use crate::common::{copy_dir, promptc_in, repo};

/// Every whole-word `standard` and `lite` renamed.
fn rename(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        out.push_str(match word.as_str() {
            "standard" => "spacious",
            "lite" => "mini",
            w => w,
        });
        word.clear();
    };
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// Files under `dir` by path relative to it (`/`-separated).
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    crate::common::tree(dir).into_iter().map(|(p, b)| (p.to_string_lossy().replace('\\', "/"), b)).collect()
}

/// The text with what legitimately follows from the content changing masked: delimiter nonces
/// (`<|TAG_1a2b3c4d|>`, derived from the content), SHA-256 digests and, in the summary, token
/// counts (a name and a nonce tokenize differently; byte counts stay, the names being as long).
fn masked(text: &str) -> String {
    let text = masked_hex(text);
    let mut out = String::new();
    for line in text.split_inclusive('\n') {
        let key = line.trim_start().split(':').next().unwrap_or_default();
        match key {
            "\"tokens\"" | "\"billed\"" | "\"cacheable\"" => out.push_str(&line[..line.find(':').unwrap_or(0)]),
            _ => out.push_str(line),
        }
    }
    out
}

/// Nonces and digests masked.
fn masked_hex(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find(|c: char| c.is_ascii_hexdigit()) {
        let run = rest[i..].find(|c: char| !c.is_ascii_hexdigit()).map_or(rest.len() - i, |n| n);
        let hex = &rest[i..i + run];
        let before = &rest[..i];
        let is_nonce = run == 8 && before.ends_with('_') && rest[i + run..].starts_with("|>");
        let is_digest = run == 64 && !before.ends_with(|c: char| c.is_ascii_alphanumeric());
        out.push_str(before);
        out.push_str(if is_nonce || is_digest { "#" } else { hex });
        rest = &rest[i + run..];
    }
    out.push_str(rest);
    out
}

#[test]
fn renaming_the_example_profiles_changes_nothing_but_the_names() {
    let tmp = tempfile::tempdir().unwrap();
    let (before, after) = (tmp.path().join("before"), tmp.path().join("after"));
    copy_dir(&repo().join("profiles"), &before.join("profiles"));
    copy_dir(&repo().join("profiles"), &after.join("profiles"));
    // Every reference renamed: keys, lists, `defaults:`, `selection:`, `check.subsets`, file names.
    for (rel, bytes) in files(&after.join("profiles")) {
        let old = after.join("profiles").join(&rel);
        std::fs::remove_file(&old).unwrap();
        let new = after.join("profiles").join(rename(&rel));
        std::fs::write(new, rename(std::str::from_utf8(&bytes).unwrap())).unwrap();
    }
    for dir in [&before, &after] {
        let out = promptc_in(dir, &["-C", "profiles", "snapshot"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{}: {stderr}", dir.display());
        assert!(!stderr.contains("warning"), "{stderr}");
    }
    let (old, new) = (files(&before.join("snapshots")), files(&after.join("snapshots")));
    let expected: BTreeMap<String, String> =
        old.iter().map(|(rel, b)| (rename(rel), masked(&rename(std::str::from_utf8(b).unwrap())))).collect();
    let got: BTreeMap<String, String> =
        new.iter().map(|(rel, b)| (rel.clone(), masked(std::str::from_utf8(b).unwrap()))).collect();
    assert_eq!(expected.keys().collect::<Vec<_>>(), got.keys().collect::<Vec<_>>());
    assert!(expected.keys().any(|k| k.starts_with("mini.")), "{:?}", expected.keys());
    for (rel, text) in &expected {
        assert!(&got[rel] == text, "{rel} differs beyond the names");
    }
    // `check` finds the same (nothing) in both: the subset pair is declared, not named.
    let check = |dir: &Path| {
        let out = promptc_in(dir, &["-C", "profiles", "check", "--format", "json"]);
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (v["errors"].clone(), v["warnings"].clone(), v["diagnostics"].clone())
    };
    assert_eq!(check(&before), check(&after));
    // The subset pair is declared, not named: the compact profile growing a tool its superset
    // lacks is P005 under either names.
    for (dir, exclude) in [(&before, "standard"), (&after, "spacious")] {
        let manifest = dir.join("profiles/promptc.yaml");
        let text = std::fs::read_to_string(&manifest).unwrap();
        let at = text.find(&format!("  {exclude}:\n")).unwrap();
        let edited =
            format!("{}{}", &text[..at], text[at..].replacen("    exclude: []", "    exclude: [take_note]", 1));
        std::fs::write(&manifest, edited).unwrap();
    }
    let grown = |dir: &Path| {
        let out = promptc_in(dir, &["-C", "profiles", "check", "--format", "json"]);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (out.status.code(), v["diagnostics"].to_string())
    };
    let (code, old) = grown(&before);
    assert_eq!(code, Some(1), "{old}");
    assert!(old.contains("profile `lite` has tool `take_note`, which `standard` lacks"), "{old}");
    assert_eq!(grown(&after), (Some(1), rename(&old)));
    // The selection policy names its profile: a small model still gets the compact one.
    let out = promptc_in(&after, &["-C", "profiles", "render", "--model", "openai/o1-mini", "--out", "art"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let meta = std::fs::read_to_string(after.join("art/metadata.json")).unwrap();
    assert!(meta.contains("\"profile\": \"mini\""), "{meta}");
}

#[test]
fn masking_hides_only_nonces_and_digests() {
    let d = "a".repeat(64);
    assert_eq!(masked(&format!("<|RULES_0a1b2c3d|> x {d} cafe 1234abcd")), "<|RULES_#|> x # cafe 1234abcd");
    assert_eq!(masked("  \"tokens\": 12,\n  \"bytes\": 40,\n"), "  \"tokens\"  \"bytes\": 40,\n");
    assert_eq!(rename("lite.native standard_x literal standard"), "mini.native standard_x literal spacious");
}
