//! The fuzz targets' seeds replayed through the fuzz entry points (`promptc::fuzz`), in the
//! ordinary test build: every seed `scripts/fuzz.sh` gives a corpus (the repository's `when:`
//! expressions, manifests, templates, chat templates, frozen records and snapshot texts) must
//! return, and the chunked count must equal the whole one. The coverage-guided runs that grow
//! these corpora need a nightly toolchain and their own instrumented build (`scripts/fuzz.sh`);
//! this keeps the entry points they call working on every change at the cost of a test.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::common;

/// Every file under the repository's fixtures and example project, by path from the root.
fn files() -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    for dir in ["fixtures", "profiles", "snapshots"] {
        for (path, bytes) in common::tree(&common::repo().join(dir)) {
            out.insert(PathBuf::from(dir).join(path), bytes);
        }
    }
    out
}

/// Run `f` on each seed, naming the seed a panic came from.
fn replay<'a>(target: &str, seeds: impl IntoIterator<Item = (String, &'a [u8])>, f: impl Fn(&[u8])) -> usize {
    let mut n = 0;
    for (name, bytes) in seeds {
        let run = std::panic::AssertUnwindSafe(|| f(bytes));
        if std::panic::catch_unwind(run).is_err() {
            panic!("fuzz target {target} panicked on the seed {name}");
        }
        n += 1;
    }
    n
}

fn text(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).unwrap_or("")
}

fn named<'a>(
    files: &'a BTreeMap<PathBuf, Vec<u8>>,
    keep: impl Fn(&str) -> bool + 'a,
) -> impl Iterator<Item = (String, &'a [u8])> + 'a {
    files.iter().filter_map(move |(p, b)| {
        let p = p.to_string_lossy().replace('\\', "/");
        keep(&p).then_some((p, b.as_slice()))
    })
}

/// The `when:` values a file holds, as `scripts/fuzz.sh` seeds the condition corpus: quoted
/// or bare up to a space, comma or brace.
fn when_values(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices("when:") {
        let rest = text[at + 5..].trim_start_matches(' ');
        let value = match rest.strip_prefix('"') {
            Some(quoted) => quoted.split('"').next().unwrap_or(""),
            None => rest.split([' ', ',', '}', '\n']).next().unwrap_or(""),
        };
        if !value.is_empty() {
            out.push(value.to_string());
        }
    }
    out
}

#[test]
fn every_fuzz_seed_returns_through_its_entry_point() {
    let files = files();
    let mut counts = BTreeMap::new();

    let mut whens: Vec<String> = files.values().flat_map(|b| when_values(text(b))).collect();
    whens.sort();
    whens.dedup();
    let seeds = whens.iter().map(|w| (w.clone(), w.as_bytes()));
    counts.insert("condition", replay("condition", seeds, |b| promptc::fuzz::condition(text(b))));

    let manifests = named(&files, |p| p.ends_with("promptc.yaml") && !p.starts_with("snapshots/"));
    counts.insert("manifest_yaml", replay("manifest_yaml", manifests, |b| promptc::fuzz::manifest_yaml(text(b))));

    let templates = named(&files, |p| p.ends_with(".j2") && !p.starts_with("snapshots/"));
    counts.insert("template", replay("template", templates, |b| promptc::fuzz::template(text(b))));

    let chat = named(&files, |p| p.starts_with("fixtures/chat-templates/") && p.ends_with(".jinja"));
    counts.insert("chat_template", replay("chat_template", chat, |b| promptc::fuzz::chat_template(text(b))));

    let example = common::project("profiles");
    let records = named(&files, |p| p.starts_with("fixtures/bad/frozen-") && p.ends_with(".json"));
    counts.insert("record", replay("record", records, |b| promptc::fuzz::record(b, example)));

    let small = |p: &str| p.starts_with("snapshots/") && (p.ends_with(".md") || p.ends_with(".json"));
    let texts = named(&files, small).filter(|(_, b)| b.len() < 64 << 10).take(200);
    counts.insert("chunked_count", replay("chunked_count", texts, |b| promptc::fuzz::chunked_count(text(b))));

    // Each corpus has real seeds: a moved fixture folder must not empty one silently.
    for (target, n) in &counts {
        assert!(*n >= 3, "the {target} seeds: only {n} found ({counts:?})");
    }
}

#[test]
fn the_condition_seeds_are_read_as_the_fuzz_script_reads_them() {
    let got = when_values("a: {when: \"mcp && !browser\"}\nb: {type: string, when: yolo}\nc:\n  when: (x)\n");
    assert_eq!(got, ["mcp && !browser", "yolo", "(x)"]);
}
