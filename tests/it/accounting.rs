//! One token truth: for every cell and provider of the shipped example and of a real-size
//! coding agent (34 tools, two profiles, cases, a sub-agent, budgets), `report --matrix`,
//! a single-cell `report`, `snapshots/summary.json`, `check` (its cacheable prefixes and budget
//! findings) and `diff` deltas give the same sent figures, item by item.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = common::promptc_in(dir, args);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(dir: &Path, args: &[&str]) -> Value {
    let (code, out, err) = run(dir, args);
    assert!(code == 0 || code == 1, "promptc {args:?} exited {code}: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("promptc {args:?}: {e}\n{out}"))
}

/// A temporary repository holding a copy of `project` (a folder of the repository) as
/// `project/`, its snapshot folder beside the manifest.
fn workspace(project: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    common::copy_dir(&common::repo().join(project), &dir.path().join("project"));
    let manifest = dir.path().join("project/promptc.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    // Both projects keep their snapshots inside the copy.
    std::fs::write(&manifest, text.replace("snapshots: ../snapshots", "snapshots: snapshots")).unwrap();
    dir
}

/// Accounts by name from `report --matrix --format json`.
fn report_accounts(dir: &Path) -> BTreeMap<String, Value> {
    let r = json(dir, &["-C", "project", "report", "--matrix", "--format", "json", "--no-cache"]);
    r["accounts"].as_array().unwrap().iter().map(|a| (a["name"].as_str().unwrap().to_string(), a.clone())).collect()
}

/// Accounts by name from `summary.json`.
fn summary_accounts(dir: &Path) -> BTreeMap<String, Value> {
    let text = std::fs::read_to_string(dir.join("project/snapshots/summary.json")).unwrap();
    let s: Value = serde_json::from_str(&text).unwrap();
    s["cells"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["accounts"].as_array().unwrap().clone())
        .map(|a| (a["name"].as_str().unwrap().to_string(), a))
        .collect()
}

fn items(list: &Value, key: &str) -> Vec<(String, Value)> {
    list.as_array().unwrap().iter().map(|i| (i[key].as_str().unwrap().to_string(), i["sent"].clone())).collect()
}

/// The summary's view of an account equals the report's, item by item.
fn assert_same(name: &str, report: &Value, summary: &Value) {
    assert_eq!(report["prompt"], summary["prompt"], "{name}: prompt");
    assert_eq!(report["tools_sent"], summary["tools"], "{name}: tools");
    assert_eq!(report["total"], summary["total"], "{name}: total");
    assert_eq!(report["billed"]["total"], summary["billed"], "{name}: billed");
    assert_eq!(report["cache"]["cacheable"], summary["cacheable"], "{name}: cacheable");
    assert_eq!(report["tokenizer"]["name"], summary["tokenizer"], "{name}: tokenizer");
    let summary_sections: Vec<(String, Value)> = summary["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (i["name"].as_str().unwrap().to_string(), serde_json::json!({"tokens": i["tokens"], "bytes": i["bytes"]}))
        })
        .collect();
    assert_eq!(items(&report["sections"], "id"), summary_sections, "{name}: sections");
    let summary_tools: Vec<(String, Value)> = summary["tool_items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (i["name"].as_str().unwrap().to_string(), serde_json::json!({"tokens": i["tokens"], "bytes": i["bytes"]}))
        })
        .collect();
    assert_eq!(items(&report["tools"], "name"), summary_tools, "{name}: tools");
}

/// `edit` = (tool file, text, replacement): a one-phrase change to a tool description.
/// `min_exceeded`: budgets the project exceeds on purpose, so the comparison of check's and
/// report's findings cannot pass on two empty lists.
fn check_agreement(project: &str, min_accounts: usize, min_exceeded: usize, edit: (&str, &str, &str)) {
    let w = workspace(project);
    let dir = w.path();
    let (code, _, err) = run(dir, &["-C", "project", "snapshot"]);
    assert_eq!(code, 0, "{err}");
    let report = report_accounts(dir);
    let summary = summary_accounts(dir);
    assert!(report.len() >= min_accounts, "{project}: only {} accounts", report.len());
    assert_eq!(report.keys().collect::<Vec<_>>(), summary.keys().collect::<Vec<_>>(), "{project}: the same cells");
    for (name, a) in &report {
        assert_same(name, a, &summary[name]);
    }

    // A single-cell report of each native default cell equals its matrix account; computed in
    // process (the library's report of the cell, rendered as `report --format json` prints it),
    // so it also shows that the library's figures are the binary's.
    let loaded = promptc::load(&dir.join("project")).unwrap();
    common::with_counter(|counter| {
        for provider in ["openai", "openai-responses", "anthropic", "gemini"] {
            for profile in ["standard", "lite"] {
                let request = promptc::Request::new().profile(profile).provider(provider.parse().unwrap());
                let single = promptc::report(&loaded, &request, &promptc::ReportOptions::default(), counter).unwrap();
                assert_eq!(single.accounts.len(), 1, "{project}: {profile} {provider}");
                let text = promptc::report::render(
                    &single.accounts[0],
                    promptc::report::Format::Json,
                    promptc::report::View::default(),
                );
                let r: Value = serde_json::from_str(&text).unwrap();
                let one = &r["accounts"][0];
                let name = one["name"].as_str().unwrap();
                assert_eq!(name, format!("{profile}.native.{provider}"));
                assert_eq!(one, &report[name], "{project}: single-cell report of {name}");
            }
        }
    });

    // check: the cacheable prefix of every account, and every exceeded budget.
    let c = json(dir, &["-C", "project", "check", "--format", "json"]);
    let prefixes: BTreeMap<String, (Value, Value)> = c["cache_prefixes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["cell"].as_str().unwrap().to_string(), (p["cacheable"].clone(), p["total"].clone())))
        .collect();
    assert_eq!(prefixes.keys().collect::<Vec<_>>(), report.keys().collect::<Vec<_>>());
    for (name, (cacheable, total)) in &prefixes {
        assert_eq!(cacheable, &report[name]["cache"]["cacheable"], "{name}: check's cacheable prefix");
        assert_eq!(total, &report[name]["total"]["tokens"], "{name}: check's total");
    }
    // One P008 finding per exceeded limit of a profile: how many cells, and the largest value.
    let mut from_report: BTreeMap<String, (usize, u64)> = BTreeMap::new();
    let mut exceeded = 0;
    for (name, a) in &report {
        let profile = name.split('.').next().unwrap();
        for b in a["budgets"].as_array().unwrap().iter().filter(|b| b["exceeded"] == true) {
            let scope = match b["scope"].as_str().unwrap() {
                "total" => "total (prompt + tools)".to_string(),
                "section" => format!("section `{}`", b["id"].as_str().unwrap()),
                other => other.to_string(),
            };
            let limit = from_report.entry(format!("{scope} of profile `{profile}`")).or_default();
            limit.0 += 1;
            limit.1 = limit.1.max(b["actual"].as_u64().unwrap());
            exceeded += 1;
        }
    }
    let from_check: BTreeMap<String, (usize, u64)> = c["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "P008")
        .map(|d| {
            let m = d["message"].as_str().unwrap();
            let (head, tail) = m.split_once(": up to ").unwrap();
            let limit = head.split(" is over its budget").next().unwrap().to_string();
            let cells = head.rsplit(' ').nth(1).unwrap().parse().unwrap();
            (limit, (cells, tail.split(' ').next().unwrap().parse().unwrap()))
        })
        .collect();
    assert!(exceeded >= min_exceeded, "{project}: expected {min_exceeded}+ exceeded budgets");
    assert_eq!(from_check, from_report, "{project}: check's budget findings are report's exceeded budgets");

    // diff: after an edit, every delta's two sides are the old and new report's figures.
    let before = report;
    let tools = dir.join("project").join(edit.0);
    let text = std::fs::read_to_string(&tools).unwrap();
    let edited = text.replacen(edit.1, edit.2, 1);
    assert_ne!(text, edited);
    std::fs::write(&tools, edited).unwrap();
    let after = report_accounts(dir);
    let d = json(dir, &["-C", "project", "diff", "--format", "json"]);
    assert_eq!(d["drift"], true);
    let deltas = d["deltas"].as_array().unwrap();
    assert!(!deltas.is_empty());
    let figure = |a: &Value, item: &str| -> Value {
        match item.split_once(' ') {
            None if item == "prompt" => a["prompt"].clone(),
            None => a["tools_sent"].clone(),
            Some(("section", id)) => {
                a["sections"].as_array().unwrap().iter().find(|s| s["id"] == id).unwrap()["sent"].clone()
            }
            Some(("message", n)) => a["messages"][n.parse::<usize>().unwrap() - 1]["sent"].clone(),
            Some((_, tool)) => {
                // A tool, or one of its parts (`read_file, description`, `read_file, parameter path`).
                let (tool, part) = tool.split_once(", ").map_or((tool, None), |(t, p)| (t, Some(p)));
                let t = a["tools"].as_array().unwrap().iter().find(|t| t["name"] == tool).unwrap();
                match part.map(|p| p.split_once(' ').unwrap_or((p, ""))) {
                    None => t["sent"].clone(),
                    Some(("description", _)) => t["description"].clone(),
                    Some((_, param)) => {
                        t["params"].as_array().unwrap().iter().find(|p| p["name"] == param).unwrap()["sent"].clone()
                    }
                }
            }
        }
    };
    for delta in deltas {
        let cell = delta["cell"].as_str().unwrap();
        let item = delta["item"].as_str().unwrap();
        assert_eq!(delta["before"], figure(&before[cell], item), "{cell} {item}: before");
        assert_eq!(delta["after"], figure(&after[cell], item), "{cell} {item}: after");
    }
}

#[test]
fn every_view_of_the_example_gives_the_same_figures() {
    check_agreement(
        "profiles",
        40,
        0,
        ("tools/files.yaml", "Read the contents of a file", "Read the full contents of a file"),
    );
}

#[test]
fn every_view_of_a_real_size_agent_gives_the_same_figures() {
    check_agreement(
        "fixtures/good/coding-agent",
        40,
        1,
        ("tools/files.yaml", "Read a file from the workspace", "Read one file from the workspace"),
    );
}

/// Issue 40: a layout that prints a dynamic variable or the nonce changes every session, though
/// every section is static. The cacheable prefix ends where it first prints one — measured —
/// in `render --format json`, `report` and `check` (P004 at the value the layout prints first).
#[test]
fn a_layout_that_reads_a_dynamic_value_or_the_nonce_ends_the_cacheable_prefix_there() {
    let dir = common::repo().join("fixtures/good/layout-dynamic");
    let render = json(&dir, &["render", "--format", "json"]);
    let cache = &render["cache"];
    assert_eq!(cache["first_dynamic"], "(outside sections)", "{cache}");
    assert_eq!(cache["why"], "reads `nonce`, `today`", "{cache}");
    assert_eq!(cache["measured"], true);
    let header = "# Session of ";
    assert_eq!(cache["bytes"].as_u64(), Some(header.len() as u64), "the prompt parts at the date: {cache}");

    let report = json(&dir, &["report", "--format", "json"]);
    let a = &report["accounts"][0];
    assert_eq!(a["layout_dynamic"], true);
    assert_eq!(a["cache"]["ends_at"], "(outside sections)");
    let (cacheable, total) = (a["cache"]["cacheable"].as_u64().unwrap(), a["total"]["tokens"].as_u64().unwrap());
    assert!(cacheable >= a["tools_sent"]["tokens"].as_u64().unwrap() && cacheable < total, "{}", a["cache"]);
    let (_, table, _) = run(&dir, &["report"]);
    assert!(!table.contains("whole prompt is static"), "{table}");
    assert!(table.contains("which reads `nonce`, `today`"), "{table}");
    assert!(table.lines().any(|l| l.contains("(outside sections)") && l.contains("dynamic")), "{table}");

    // Without the header, the sessions part later: at the footer's nonce.
    let plain = json(&dir, &["report", "--format", "json", "--set", "header=false"]);
    assert!(plain["accounts"][0]["cache"]["cacheable"].as_u64().unwrap() > cacheable);

    let (code, out, err) = run(&dir, &["check"]);
    assert_eq!(code, 0, "{out}{err}");
    let text = out + &err;
    assert!(text.contains("warning[P004]: the layout's own text changes between sessions"), "{text}");
    assert!(text.contains("layout.md.j2:1:32"), "the first value the layout prints: {text}");
}

/// Issue 40: every part of the request has a row, in every format, and the rows add up to
/// what is sent — harness messages and their blocks, the layout's text, the tools JSON's
/// framing included (on `message-blocks` 78 of 149 sent tokens were in no row).
#[test]
fn every_report_format_has_a_row_for_every_part_and_the_rows_add_up_to_what_is_sent() {
    for project in ["fixtures/good/message-blocks", "fixtures/good/harness-messages", "fixtures/good/layout-dynamic"] {
        let dir = common::repo().join(project);
        let (code, csv, err) = run(&dir, &["report", "--matrix", "--format", "csv"]);
        assert!(code <= 1, "{err}");
        let mut rows: BTreeMap<String, (u64, u64)> = BTreeMap::new();
        for line in csv.lines().filter(|l| l.starts_with("item,")) {
            let f: Vec<&str> = line.split(',').collect();
            let (cell, item, tokens) = (f[1].to_string(), f[2], f[3].trim_start_matches('≈'));
            let Ok(tokens) = tokens.parse::<u64>() else { continue };
            let e = rows.entry(cell).or_default();
            match item {
                "= sent" => e.1 = tokens,
                // Totals, and parts of a row already counted (parameters, blocks, the tools a
                // section describes).
                i if i.starts_with(['=', '·', '└']) => {}
                _ => e.0 += tokens,
            }
        }
        assert!(rows.len() >= 2, "{project}: {csv}");
        for (cell, (sum, sent)) in &rows {
            assert_eq!(sum, sent, "{project} {cell}: the rows add up to what is sent\n{csv}");
        }
        let (_, md, _) = run(&dir, &["report", "--format", "markdown"]);
        let (_, table, _) = run(&dir, &["report"]);
        if project.ends_with("message-blocks") {
            for text in [&md, &table, &csv] {
                assert!(text.contains("message 1 · user") && text.contains("block 2"), "{text}");
            }
        }
    }
}

/// A section the layout leaves out or rewrites has no figure of its own (the prompt does not
/// hold it as rendered): its row says so (`layout`, 0 tokens), the rows still add up, and a
/// warning names the section and the layout.
#[test]
fn a_section_the_layout_leaves_out_is_warned_and_charged_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    common::copy_dir(&common::repo().join("fixtures/good/layout-dynamic"), dir.path());
    std::fs::write(dir.path().join("layout.md.j2"), "{{ sections.role }}\n\n{{ sections.rules | upper }}\n").unwrap();
    let (code, out, err) = run(dir.path(), &["report", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("warning: section `rules` renders"), "{err}");
    assert!(err.contains("layout.md.j2 leaves it out or rewrites it"), "{err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    let a = &doc["accounts"][0];
    let rules = a["sections"].as_array().unwrap().iter().find(|s| s["id"] == "rules").unwrap();
    assert_eq!((rules["placed"].as_bool(), rules["sent"]["tokens"].as_u64()), (Some(false), Some(0)), "{rules}");
    let placed: u64 = a["sections"].as_array().unwrap().iter().map(|s| s["sent"]["tokens"].as_u64().unwrap()).sum();
    assert_eq!(placed + a["layout"]["tokens"].as_u64().unwrap(), a["prompt"]["tokens"].as_u64().unwrap());
    assert!(a["layout"]["tokens"].as_u64().unwrap() > 10, "the upper-cased rules are the layout's text");
}
