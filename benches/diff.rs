//! `cargo bench --bench diff`: `promptc diff` on the example and on synthetic projects with
//! 500 and 1,000 tools and 16 cells — wall time, growth with size (2× input should cost
//! ≤ 2.2× time), the no-change CI case against rendering the matrix once, and a committed
//! snapshot file of 100,000 unique lines (too large to diff line by line).

mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use promptc::TokenCounter;
use support::{median_run, ms};

/// Shape the matrix as 2 profiles × 4 cases (defaults + 3 named) × 2 transports = 16 cells,
/// without sub-agents or commands.
fn sixteen_cells(dir: &Path) {
    let manifest = dir.join("promptc.yaml");
    let mut m: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    let obj = m.as_object_mut().unwrap();
    obj.remove("subagents");
    obj.remove("commands");
    m["cases"] = serde_json::json!({
        "all-capabilities": {"switches": {"browser": true, "mcp": true, "web": true, "subagents": true}},
        "yolo": {"switches": {"yolo": true}},
        "no-focus": {"switches": {"focus_chain": false}}
    });
    m["snapshots"] = serde_json::json!("snapshots");
    std::fs::write(&manifest, serde_json::to_string_pretty(&m).unwrap()).unwrap();
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// In-process medians of (load + render the matrix) and (load + diff against snapshots).
fn in_process(dir: &Path) -> (Duration, Duration) {
    let render = median(
        (0..5)
            .map(|_| {
                let t = Instant::now();
                let p = promptc::load(dir).unwrap();
                promptc::snapshot_files(&p).unwrap();
                t.elapsed()
            })
            .collect(),
    );
    let diff = median(
        (0..5)
            .map(|_| {
                let t = Instant::now();
                let p = promptc::load(dir).unwrap();
                let mut counter = TokenCounter::for_project(&p, None, false);
                let d = promptc::diff(&p, None, &mut counter).unwrap();
                assert!(!d.report.drift());
                assert!(!counter.tokenizer_built(), "no drift must not build a tokenizer");
                t.elapsed()
            })
            .collect(),
    );
    (render, diff)
}

struct Figures {
    cells: usize,
    tools: usize,
    no_change: Duration,
    drift: Duration,
}

fn bench(label: &str, dir: &Path, edit: &dyn Fn(&Path)) -> Figures {
    let snap = support::run(dir, &["snapshot"]);
    assert_eq!(snap.code, Some(0), "{}", snap.stderr);
    let p = promptc::load(dir).unwrap();
    let files = promptc::snapshot_files(&p).unwrap();
    let cells = files.keys().filter(|f| f.ends_with(".prompt.md")).count();
    let tools = p.tool_names().len();
    let (render, diff_in) = in_process(dir);
    let no_change = median_run(dir, &["diff"], 5);
    assert_eq!(no_change.code, Some(0), "{}", String::from_utf8_lossy(&no_change.stdout));
    edit(dir);
    let drift = median_run(dir, &["diff", "--format", "json"], 5);
    assert_eq!(drift.code, Some(1));
    println!(
        "{label}: {tools} tools, {cells} cells, {} snapshot files",
        std::fs::read_dir(dir.join("snapshots")).unwrap().count()
    );
    println!(
        "  no change: `promptc diff` {} (peak RSS {}); in-process load+diff {} vs load+render matrix {} ({:.2}×)",
        ms(no_change.wall),
        no_change.peak_kib.map_or("n/a".into(), |k| format!("{:.1} MB", k as f64 / 1024.0)),
        ms(diff_in),
        ms(render),
        diff_in.as_secs_f64() / render.as_secs_f64()
    );
    println!("  one tool description changed: `promptc diff --format json` {}", ms(drift.wall));
    Figures { cells, tools, no_change: no_change.wall, drift: drift.wall }
}

fn edit_read_file(dir: &Path) {
    let p = dir.join("tools/files.yaml");
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(&p, text.replacen("Read the contents of a file", "Read the full contents of a file", 1)).unwrap();
}

/// A committed snapshot file of `lines` unique lines against the rendered prompt: the file is
/// too large to diff line by line (`MAX_DIFF_LINES`), so `diff` costs about a read of it (a
/// line-by-line diff of 100,000 lines took half a minute).
fn huge_snapshot(dir: &Path, lines: u64) {
    let file = dir.join("snapshots/standard.native.prompt.md");
    let text: String =
        (0..lines).map(|i| format!("line {i} {:016x}\n", i.wrapping_mul(0x9e37_79b9_7f4a_7c15))).collect();
    std::fs::write(file, text).unwrap();
    let run = median_run(dir, &["diff"], 3);
    assert_eq!(run.code, Some(1));
    assert!(String::from_utf8_lossy(&run.stdout).contains("too large to show line by line"));
    println!("committed snapshot of {lines} unique lines: `promptc diff` {}", ms(run.wall));
}

fn main() {
    let example = tempfile::tempdir().unwrap();
    support::synthetic_example(example.path(), 1);
    sixteen_cells(example.path());
    bench("example (16 cells)", example.path(), &edit_read_file);
    huge_snapshot(example.path(), 100_000);

    let mut figures = Vec::new();
    for factor in [24, 48] {
        let d = tempfile::tempdir().unwrap();
        support::synthetic_example(d.path(), factor);
        sixteen_cells(d.path());
        figures.push(bench(&format!("synthetic ×{factor}"), d.path(), &edit_read_file));
    }
    let (a, b) = (&figures[0], &figures[1]);
    println!(
        "growth {} → {} tools ({} cells): no-change diff {:.2}×, drift diff {:.2}× \
         (target ≤ 2.2× for 2× input)",
        a.tools,
        b.tools,
        b.cells,
        b.no_change.as_secs_f64() / a.no_change.as_secs_f64(),
        b.drift.as_secs_f64() / a.drift.as_secs_f64()
    );
}
