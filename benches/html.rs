//! `cargo bench --bench html`: the HTML report against the JSON report it embeds, and the
//! page in headless chromium.
//!
//! - `report --matrix --format html` on the example and on a 1,000-tool synthetic project,
//!   against `report --matrix --format json` on the same project (target: ≤ 1.5×), with the
//!   page's size;
//! - when Node.js, chromium and `tests/browser`'s playwright-core are installed
//!   (`scripts/browser-test.sh` installs them), each page's time to interactive in headless
//!   chromium (target: ≤ 2 s for the 1,000-tool project), measured by `tests/browser/bench.js`.

mod support;

use std::path::Path;
use std::process::Command;

use support::{median_run, ms, repo};

/// The synthetic project's factor: the example's 21 tools, 48 times (1,008 tools).
const FACTOR: usize = 48;

fn compare(label: &str, dir: &Path, pages: &Path) -> Vec<std::path::PathBuf> {
    let json = median_run(dir, &["report", "--matrix", "--format", "json"], 5);
    assert_eq!(json.code, Some(0), "{}", json.stderr);
    let mut out = Vec::new();
    let matrix = pages.join(format!("{label}-matrix.html"));
    let m = matrix.to_str().unwrap();
    let html = median_run(dir, &["report", "--matrix", "--format", "html", "--out", m], 5);
    assert_eq!(html.code, Some(0), "{}", html.stderr);
    let size = std::fs::metadata(&matrix).unwrap().len();
    println!(
        "{label}: report --matrix --format json {} · --format html {} = {:.2}× (target ≤ 1.5×); \
         page {:.2} MB (JSON report {:.2} MB)",
        ms(json.wall),
        ms(html.wall),
        html.wall.as_secs_f64() / json.wall.as_secs_f64(),
        size as f64 / 1e6,
        json.stdout.len() as f64 / 1e6
    );
    out.push(matrix);
    let one = pages.join(format!("{label}-cell.html"));
    let single = median_run(dir, &["report", "--format", "html", "--out", one.to_str().unwrap()], 5);
    assert_eq!(single.code, Some(0), "{}", single.stderr);
    println!(
        "{label}: one cell's page (report --format html) {} · {:.2} MB",
        ms(single.wall),
        std::fs::metadata(&one).unwrap().len() as f64 / 1e6
    );
    out.push(one);
    out
}

/// Time to interactive in headless chromium, or why it was not measured.
fn in_browser(page: &Path) {
    let dir = repo().join("tests/browser");
    let chromium = std::env::var("PROMPTC_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    if !dir.join("node_modules/playwright-core").is_dir() || !Path::new(&chromium).exists() {
        println!(
            "  in chromium: not measured (run scripts/browser-test.sh once to install chromium and playwright-core)"
        );
        return;
    }
    let out =
        Command::new("node").arg(dir.join("bench.js")).arg(page).arg("5").env("PROMPTC_CHROMIUM", &chromium).output();
    match out {
        Ok(o) if o.status.success() => println!("  in chromium: {}", String::from_utf8_lossy(&o.stdout).trim()),
        Ok(o) => println!("  in chromium: failed: {}", String::from_utf8_lossy(&o.stderr).trim()),
        Err(e) => println!("  in chromium: not measured (node: {e})"),
    }
}

fn main() {
    let pages = tempfile::tempdir().unwrap();
    let example = repo().join("profiles");
    for page in compare("example", &example, pages.path()) {
        in_browser(&page);
    }
    let synth = tempfile::tempdir().unwrap();
    support::synthetic_example(synth.path(), FACTOR);
    let tools = promptc::load(synth.path()).unwrap().tool_names().len();
    println!("synthetic ×{FACTOR}: {tools} tools in the catalog");
    for page in compare("synthetic", synth.path(), pages.path()) {
        in_browser(&page);
    }
}
