//! `cargo bench --bench incremental`: re-runs on the synthetic 50× project (1,000+ tools), as
//! `promptc watch` makes them — the project reloaded every time, the token counter and the
//! compile cache kept — against a cold run; `watch render`'s re-render after a one-file edit;
//! the whole-matrix report against tokenising its texts alone; and the same re-runs as separate
//! processes (the token and compile caches on disk); `check` at twice the tools.
//!
//! Targets (issue 29, 2-core machine): a warm re-run ≤ 0.15× a cold run; after a one-section
//! edit ≤ 0.25×; a re-render after a one-file edit ≤ 100 ms; the whole-matrix report ≤ 1.1×
//! tokenising its texts alone; peak RSS ≤ 250 MB.

mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use promptc::{CompileCache, Project, ReportOptions, Request, TokenCounter, Tokenizer};
use support::{median_run, ms};

fn counter() -> TokenCounter {
    TokenCounter::new(Tokenizer::Exact(promptc::Encoding::O200kBase))
}

fn matrix() -> ReportOptions {
    ReportOptions::new().matrix(true)
}

/// The median of `n` timings of `f`.
fn median(n: usize, mut f: impl FnMut() -> Duration) -> Duration {
    let mut t: Vec<Duration> = (0..n).map(|_| f()).collect();
    t.sort();
    t[n / 2]
}

/// Append a line to a section's template: the one-section edit.
fn edit(dir: &Path, file: &str, k: usize) {
    let path = dir.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, format!("{text}\nEdit number {k}.\n")).unwrap();
}

/// A report run as `watch report --matrix` makes it: reload, report with what is kept.
fn rerun(dir: &Path, tokens: &mut TokenCounter, cache: &mut CompileCache) -> (Duration, promptc::Report) {
    let start = Instant::now();
    let project = promptc::load(dir).unwrap();
    let report = promptc::report_cached(&project, &Request::new(), &matrix(), tokens, cache).unwrap();
    (start.elapsed(), report)
}

fn in_process(dir: &Path) {
    // Cold: a new counter (the tokenizer's tables are loaded once per process, so build them
    // first: the cold run here is the work, not the start-up) and an empty cache.
    let mut warmup = counter();
    warmup.count("warm up the tokenizer tables").unwrap();
    let cold = median(3, || rerun(dir, &mut counter(), &mut CompileCache::new()).0);
    let (mut tokens, mut cache) = (counter(), CompileCache::new());
    let (_, first) = rerun(dir, &mut tokens, &mut cache);
    let warm = median(5, || {
        let (t, report) = rerun(dir, &mut tokens, &mut cache);
        assert_eq!(report, first, "a warm re-run is the same report");
        assert_eq!(cache.stats().compiled, 0);
        t
    });
    let mut k = 0;
    let (mut compiled, mut reused) = (0, 0);
    let edited = median(5, || {
        k += 1;
        edit(dir, "sections/mcp_servers_7.md.j2", k);
        let (t, _) = rerun(dir, &mut tokens, &mut cache);
        (compiled, reused) = (cache.stats().compiled, cache.stats().reused);
        t
    });
    // An edit every cell reads: the whole matrix is recompiled, only the tools' parts reused.
    let everywhere = median(3, || {
        k += 1;
        edit(dir, "sections/role_3.md.j2", k);
        rerun(dir, &mut tokens, &mut cache).0
    });
    println!("in process (watch report --matrix), synthetic 50×:");
    println!("  cold (new counter, empty cache): {}", ms(cold));
    println!("  warm re-run: {} = {:.3}× cold (target ≤ 0.15×)", ms(warm), warm.as_secs_f64() / cold.as_secs_f64());
    println!(
        "  after a one-section edit: {} = {:.3}× cold (target ≤ 0.25×; {compiled} cells compiled, {reused} reused)",
        ms(edited),
        edited.as_secs_f64() / cold.as_secs_f64()
    );
    println!(
        "  after editing a section every cell renders: {} = {:.3}× cold ({} cells compiled)",
        ms(everywhere),
        everywhere.as_secs_f64() / cold.as_secs_f64(),
        cache.stats().compiled
    );
}

/// `watch render`: reload the project after a one-file edit and compile the default cell.
fn rerender(dir: &Path) {
    let mut k = 100;
    let mut load = Duration::ZERO;
    let total = median(7, || {
        k += 1;
        edit(dir, "sections/role_3.md.j2", k);
        let start = Instant::now();
        let project: Project = promptc::load(dir).unwrap();
        load = start.elapsed();
        let c = promptc::compile(&project, &Request::new()).unwrap();
        std::hint::black_box(c.prompt().len());
        start.elapsed()
    });
    println!("watch render re-render after a one-file edit: {} (target ≤ 100 ms; load {})", ms(total), ms(load));
}

/// The whole-matrix report against tokenising its texts alone, both in process with the
/// tokenizer's tables loaded, each text counted once.
fn against_tokenising(dir: &Path) {
    let project = promptc::load(dir).unwrap();
    let texts = promptc::matrix_texts(&project).unwrap();
    let bpe = bpe_openai::o200k_base();
    let alone = median(3, || {
        let start = Instant::now();
        let n: usize = texts.iter().map(|t| bpe.count(t.as_str())).sum();
        std::hint::black_box(n);
        start.elapsed()
    });
    let report = median(3, || {
        let start = Instant::now();
        promptc::report(&project, &Request::new(), &matrix(), &mut counter()).unwrap();
        start.elapsed()
    });
    println!(
        "whole-matrix report (project loaded) {} vs tokenising its {} texts alone {}: {:.2}× (target ≤ 1.1×)",
        ms(report),
        texts.len(),
        ms(alone),
        report.as_secs_f64() / alone.as_secs_f64()
    );
}

/// The same as separate processes: cold without caches, re-runs with the token and compile
/// caches on disk.
fn processes(dir: &Path) {
    let manifest = dir.join("promptc.yaml");
    let mut m: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    m["tokens"] = serde_json::json!({"cache": ".promptc-cache/tokens.json"});
    std::fs::write(&manifest, serde_json::to_string(&m).unwrap()).unwrap();
    let args = ["report", "--matrix", "--format", "json"];
    let cold = median_run(dir, &["report", "--matrix", "--no-cache", "--format", "json"], 3);
    assert_eq!(cold.code, Some(0), "{}", cold.stderr);
    support::run(dir, &args);
    let warm = median_run(dir, &args, 3);
    assert_eq!(warm.stdout, cold.stdout, "the same report from the caches");
    edit(dir, "sections/mcp_servers_7.md.j2", 1000);
    let edited = support::run(dir, &args);
    let peak = |r: &support::Run| r.peak_kib.map_or("n/a".into(), |k| format!("{:.1} MB", k as f64 / 1024.0));
    println!("separate processes, synthetic 50×:");
    println!("  cold `report --matrix --no-cache`: {} (peak RSS {}; target ≤ 250 MB)", ms(cold.wall), peak(&cold));
    println!(
        "  re-run with the token and compile caches: {} = {:.3}× cold (peak RSS {}; {})",
        ms(warm.wall),
        warm.wall.as_secs_f64() / cold.wall.as_secs_f64(),
        peak(&warm),
        compile_line(&warm)
    );
    println!(
        "  after a one-section edit: {} = {:.3}× cold ({})",
        ms(edited.wall),
        edited.wall.as_secs_f64() / cold.wall.as_secs_f64(),
        compile_line(&edited)
    );
}

/// `check` on the 50× project and on one twice its size: linear in tools × cells means the
/// second takes about twice the first (target ≤ 2.3×, issue 41).
fn check_scaling(dir: &Path) {
    let double = tempfile::tempdir().unwrap();
    support::synthetic_example(double.path(), 100);
    let once = support::median_run(dir, &["check"], 3);
    let twice = support::median_run(double.path(), &["check"], 3);
    let ratio = twice.wall.as_secs_f64() / once.wall.as_secs_f64();
    println!(
        "check: {} at 50x, {} at 100x: {ratio:.2}x for twice the tools (target <= 2.3x)",
        ms(once.wall),
        ms(twice.wall)
    );
}

/// What a run's compile cache did, as it said on stderr.
fn compile_line(r: &support::Run) -> &str {
    r.stderr.lines().find(|l| l.starts_with("compile cache: ")).unwrap_or("no compile cache line")
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else to parse. PROMPTC_SYNTH_DIR=DIR writes the
    // synthetic project into DIR (to profile a command on it) instead of measuring.
    if let Some(dir) = std::env::var_os("PROMPTC_SYNTH_DIR") {
        support::synthetic_example(Path::new(&dir), 50);
        return;
    }
    let synth = tempfile::tempdir().unwrap();
    support::synthetic_example(synth.path(), 50);
    in_process(synth.path());
    rerender(synth.path());
    against_tokenising(synth.path());
    processes(synth.path());
    check_scaling(synth.path());
}
