//! `cargo bench --bench report`: cold `promptc report` on the example and on a synthetic
//! project 50× larger — wall time, tokens/s, peak memory — against the cost of tokenising the
//! same text alone; counting throughput; and a cached re-run that must build no tokenizer.
//!
//! Targets (2-core machine): report ≤ 1.2× tokenising alone, peak RSS ≤ 250 MB on the synthetic
//! project; o200k counting ≥ 10 MB/s.

mod support;

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

use promptc::{Project, Request};
use support::{median_run, ms};

/// Every distinct text `promptc report --matrix` counts (it counts each once).
fn counted_texts(project: &Project) -> BTreeSet<String> {
    promptc::matrix_texts(project).unwrap()
}

/// Environment variable that turns this bench binary into the baseline process: build the
/// o200k tokenizer, count the texts in the named JSON file, print the total, exit.
const BASELINE_ENV: &str = "PROMPTC_BENCH_TOKENIZE_ONLY";

/// Cold-process baseline: the same texts tokenised by a process that does nothing else, so it
/// pays the same start-up, page faults and tokenizer build as `promptc report` does.
fn tokenize_alone_process(texts: &BTreeSet<String>) -> Duration {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), serde_json::to_vec(texts).unwrap()).unwrap();
    let exe = std::env::current_exe().unwrap();
    let mut walls: Vec<Duration> = (0..5)
        .map(|_| {
            let start = Instant::now();
            let out = std::process::Command::new(&exe).env(BASELINE_ENV, file.path()).output().unwrap();
            assert!(out.status.success());
            start.elapsed()
        })
        .collect();
    walls.sort();
    walls[2]
}

/// Load the o200k tokenizer promptc uses (prebuilt tables) and count `texts`: (load time,
/// count time, tokens). The tables load once per process, so a second call's load is ~0.
fn tokenize_alone(texts: &BTreeSet<String>) -> (Duration, Duration, u64) {
    let start = Instant::now();
    let bpe = bpe_openai::o200k_base();
    let built = start.elapsed();
    let start = Instant::now();
    let tokens: u64 = texts.iter().map(|t| bpe.count(t.as_str()) as u64).sum();
    (built, start.elapsed(), tokens)
}

fn bench_project(label: &str, dir: &Path) -> f64 {
    let project = promptc::load(dir).unwrap();
    let texts = counted_texts(&project);
    let bytes: usize = texts.iter().map(String::len).sum();
    // Tokenising alone in this process, best of 5 (the cold cost is the separate process below).
    let (build, count, tokens) = (0..5).map(|_| tokenize_alone(&texts)).min_by_key(|(b, c, _)| *b + *c).unwrap();
    let alone = tokenize_alone_process(&texts);
    let report = median_run(dir, &["report", "--matrix", "--no-cache", "--format", "json"], 5);
    assert_eq!(report.code, Some(0), "{}", report.stderr);
    let ratio = report.wall.as_secs_f64() / alone.as_secs_f64();
    println!("{label}: {} distinct texts, {:.2} MB, {tokens} o200k tokens", texts.len(), bytes as f64 / 1e6);
    println!(
        "  in-process: tokenizer build {} + count {} = {:.1} MB/s, {:.0} tokens/s",
        ms(build),
        ms(count),
        bytes as f64 / 1e6 / count.as_secs_f64(),
        tokens as f64 / count.as_secs_f64()
    );
    println!("  cold process tokenising the same texts alone: {} (median of 5)", ms(alone));
    println!(
        "  cold `promptc report --matrix --no-cache`: {} (median of 5), {:.2}× tokenising alone \
         (target ≤ 1.2×), peak RSS {} (target ≤ 250 MB)",
        ms(report.wall),
        ratio,
        report.peak_kib.map_or("n/a (no /usr/bin/time)".into(), |k| format!("{:.1} MB", k as f64 / 1024.0))
    );
    ratio
}

fn main() {
    if let Some(path) = std::env::var_os(BASELINE_ENV) {
        let texts: Vec<String> = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        let bpe = bpe_openai::o200k_base();
        let tokens: usize = texts.iter().map(|t| bpe.count(t.as_str())).sum();
        println!("{tokens}");
        return;
    }
    // PROMPTC_BENCH_WRITE_SYNTH=DIR writes the synthetic project for profiling, then exits.
    if let Some(dir) = std::env::var_os("PROMPTC_BENCH_WRITE_SYNTH") {
        support::synthetic_example(Path::new(&dir), 50);
        return;
    }
    // `cargo bench` passes `--bench`; nothing else to parse.
    let example = support::repo().join("profiles");
    let r1 = bench_project("example", &example);
    let synth = tempfile::tempdir().unwrap();
    support::synthetic_example(synth.path(), 50);
    let r2 = bench_project("synthetic 50×", synth.path());

    // Counting throughput on 10 MB of prompt text with a built tokenizer.
    let project = promptc::load(&example).unwrap();
    let prompt = promptc::compile(&project, &Request::new()).unwrap().prompt().to_string();
    let big = prompt.repeat(10_000_000 / prompt.len() + 1);
    let start = Instant::now();
    let n = bpe_openai::o200k_base().count(big.as_str());
    let t = start.elapsed();
    println!(
        "o200k counting throughput (prebuilt, what promptc counts with): {:.1} MB in {} = {:.1} MB/s, {:.0} \
         tokens/s (target ≥ 10 MB/s)",
        big.len() as f64 / 1e6,
        ms(t),
        big.len() as f64 / 1e6 / t.as_secs_f64(),
        n as f64 / t.as_secs_f64()
    );
    // The same with tiktoken-rs (which promptc used before and still uses for other encodings).
    let start = Instant::now();
    let reference = tiktoken_rs::o200k_base().unwrap();
    let built = start.elapsed();
    let start = Instant::now();
    assert_eq!(reference.count_ordinary(&big), n, "the same count");
    let t = start.elapsed();
    println!("  tiktoken-rs: build {}, {:.1} MB/s", ms(built), big.len() as f64 / 1e6 / t.as_secs_f64());

    // A re-run over unchanged content answers from the disk cache and builds no tokenizer.
    let cached = tempfile::tempdir().unwrap();
    support::synthetic_example(cached.path(), 50);
    let manifest = cached.path().join("promptc.yaml");
    let mut m: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    m["tokens"] = serde_json::json!({"cache": ".promptc-cache/tokens.json"});
    std::fs::write(&manifest, serde_json::to_string(&m).unwrap()).unwrap();
    let first = support::run(cached.path(), &["report", "--matrix", "--format", "json"]);
    let second = median_run(cached.path(), &["report", "--matrix", "--format", "json"], 5);
    let line = second.stderr.lines().find(|l| l.starts_with("token cache:")).unwrap_or("").to_string();
    println!("synthetic 50× with the disk cache: first run {}, re-run {} ({line})", ms(first.wall), ms(second.wall));
    assert!(line.contains("tokenizer not built"), "the cached re-run built a tokenizer: {line}");
    println!("summary: report/tokenise-alone ratio example {r1:.2}×, synthetic {r2:.2}×");
}
