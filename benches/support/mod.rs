//! Shared benchmark support: a synthetic project N× the size of the shipped example, and
//! process measurements (wall time, peak memory).

#![allow(dead_code)]

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

#[path = "../../tests/it/common.rs"]
mod common;

use common::copy_dir;
pub use common::repo;

fn yaml(path: &Path) -> Value {
    serde_saphyr::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Write into `dir` a copy of the example where every section and every tool exists `factor`
/// times (copies differ in wording, so nothing is deduplicated). The layout is dropped so
/// every section copy reaches the prompt; budgets are dropped so reports exit 0.
pub fn synthetic_example(dir: &Path, factor: usize) {
    let src = repo().join("profiles");
    copy_dir(&src, dir);
    let mut m = yaml(&src.join("promptc.yaml"));
    let obj = m.as_object_mut().unwrap();
    obj.remove("layout");
    obj.remove("tokens");
    // The copy lives outside any repository: its snapshots stay inside it.
    obj.insert("snapshots".into(), json!("snapshots"));
    let sections = obj["sections"].as_object().unwrap().clone();
    let mut new_sections = serde_json::Map::new();
    for (id, s) in &sections {
        new_sections.insert(id.clone(), s.clone());
        for k in 1..factor {
            let copy = if let Some(t) = s.get("template").and_then(Value::as_str) {
                let text = std::fs::read_to_string(src.join(t)).unwrap();
                let file = format!("sections/{id}_{k}.md.j2");
                std::fs::write(dir.join(&file), format!("{text}\nThis is variant {k} of the {id} section.\n")).unwrap();
                let mut c = s.clone();
                c["template"] = json!(file);
                c
            } else if let Some(t) = s.get("text").and_then(Value::as_str) {
                let mut c = s.clone();
                c["text"] = json!(format!("{t}\nVariant {k}.\n"));
                c
            } else {
                continue; // generated sections exist once
            };
            new_sections.insert(format!("{id}_{k}"), copy);
        }
    }
    obj.insert("sections".into(), Value::Object(new_sections.clone()));
    let tool_files: Vec<String> =
        obj["tools"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect();
    let mut copies_of: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for f in &tool_files {
        let tools = yaml(&src.join(f));
        let mut out = Vec::new();
        for t in tools.as_array().unwrap() {
            let name = t["name"].as_str().unwrap().to_string();
            out.push(t.clone());
            for k in 1..factor {
                let mut c = t.clone();
                let copy = format!("{name}_{k}");
                c["name"] = json!(copy);
                c["description"] = json!(format!("{} (variant {k})", t["description"].as_str().unwrap().trim_end()));
                copies_of.entry(name.clone()).or_default().push(copy);
                out.push(c);
            }
        }
        std::fs::write(dir.join(f), serde_json::to_string_pretty(&out).unwrap()).unwrap();
    }
    for (_, p) in obj["profiles"].as_object_mut().unwrap() {
        let p = p.as_object_mut().unwrap();
        p.remove("budget");
        let mut secs = Vec::new();
        for id in p["sections"].as_array().unwrap() {
            let id = id.as_str().unwrap();
            secs.push(json!(id));
            for k in 1..factor {
                let copy = format!("{id}_{k}");
                if new_sections.contains_key(&copy) {
                    secs.push(json!(copy));
                }
            }
        }
        p.insert("sections".into(), Value::Array(secs));
        for key in ["tools", "exclude"] {
            if let Some(list) = p.get(key).and_then(Value::as_array).cloned() {
                let mut expanded = Vec::new();
                for t in list {
                    let name = t.as_str().unwrap().to_string();
                    expanded.push(json!(name));
                    expanded.extend(copies_of.get(&name).into_iter().flatten().map(|c| json!(c)));
                }
                p.insert(key.into(), Value::Array(expanded));
            }
        }
    }
    std::fs::write(dir.join("promptc.yaml"), serde_json::to_string_pretty(&m).unwrap()).unwrap();
}

/// One run of the release binary: wall time and peak resident memory (when GNU time exists).
pub struct Run {
    pub wall: Duration,
    pub peak_kib: Option<u64>,
    pub stdout: Vec<u8>,
    pub stderr: String,
    pub code: Option<i32>,
}

/// Run `promptc args` in `dir`, measured.
pub fn run(dir: &Path, args: &[&str]) -> Run {
    let gnu_time = Path::new("/usr/bin/time").is_file();
    let mut cmd = if gnu_time {
        let mut c = Command::new("/usr/bin/time");
        c.args(["-f", "PROMPTC_BENCH_PEAK_KIB=%M", env!("CARGO_BIN_EXE_promptc")]);
        c
    } else {
        Command::new(env!("CARGO_BIN_EXE_promptc"))
    };
    cmd.current_dir(dir).args(args);
    let start = Instant::now();
    let out = cmd.output().unwrap();
    let wall = start.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let peak_kib =
        stderr.lines().find_map(|l| l.strip_prefix("PROMPTC_BENCH_PEAK_KIB=")).and_then(|v| v.trim().parse().ok());
    Run { wall, peak_kib, stdout: out.stdout, stderr, code: out.status.code() }
}

/// The median of `n` measured runs.
pub fn median_run(dir: &Path, args: &[&str], n: usize) -> Run {
    let mut runs: Vec<Run> = (0..n).map(|_| run(dir, args)).collect();
    runs.sort_by_key(|r| r.wall);
    runs.swap_remove(n / 2)
}

/// Milliseconds with one decimal.
pub fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}
