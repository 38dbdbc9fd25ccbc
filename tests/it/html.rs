//! `report --format html` and `diff --format html` run as a user runs them: the page's
//! embedded figures are `report --format json`'s, pages are byte-identical from run to run,
//! hostile project text cannot leave the data island or become markup, `--out` writes one
//! whole file, and the diff page shows the deltas `diff --format json` computes. What the page
//! does in a browser is tested in headless chromium by `tests/browser` (scripts/browser-test.sh).

use crate::common;

use common::{promptc_in, repo, Workspace};
use serde_json::Value;

fn run_ok(dir: &std::path::Path, args: &[&str]) -> String {
    let out = promptc_in(dir, args);
    assert_eq!(out.status.code(), Some(0), "promptc {args:?}:\n{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// The page's data island, decoded (base64, then raw DEFLATE, then JSON).
fn island(html: &str) -> Value {
    use base64::Engine as _;
    let tag = "<script type=\"application/octet-stream\" id=\"promptc-data\" data-encoding=\"deflate-raw;base64\">";
    let start = html.find(tag).expect("a data island") + tag.len();
    let body = &html[start..start + html[start..].find("</script>").unwrap()];
    let bytes = base64::engine::general_purpose::STANDARD.decode(body).expect("base64");
    let json = miniz_oxide::inflate::decompress_to_vec(&bytes).expect("raw DEFLATE");
    serde_json::from_slice(&json).expect("the island is JSON")
}

#[test]
fn the_page_embeds_exactly_the_json_report() {
    for args in [&["--matrix"][..], &[][..], &["--profile", "lite", "--transport", "xml"][..]] {
        let mut json_args = vec!["report", "--no-cache", "--format", "json"];
        json_args.extend_from_slice(args);
        let json: Value = serde_json::from_str(&run_ok(&repo(), &json_args)).unwrap();
        let mut html_args = vec!["report", "--no-cache", "--format", "html"];
        html_args.extend_from_slice(args);
        let data = island(&run_ok(&repo(), &html_args));
        assert_eq!(data["report"], json, "report {args:?}");
        assert_eq!(data["format"], 1);
        assert_eq!(data["kind"], "report");
    }
}

#[test]
fn each_cell_prompt_is_its_segments_and_each_native_account_has_its_tools() {
    let data = island(&run_ok(&repo(), &["report", "--matrix", "--format", "html"]));
    let texts: Vec<&str> = data["texts"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    let accounts = data["report"]["accounts"].as_array().unwrap();
    let mut cells_checked = 0;
    for (stem, cell) in data["cells"].as_object().unwrap() {
        let prompt: String =
            cell["segments"].as_array().unwrap().iter().map(|s| texts[s[1].as_u64().unwrap() as usize]).collect();
        let file = repo().join("snapshots").join(format!("{stem}.prompt.md"));
        let committed = std::fs::read_to_string(&file).unwrap();
        assert_eq!(prompt, committed, "{stem}: segments joined are the snapshot's prompt");
        // A section segment's text is that section (its figures are the account's).
        let a = accounts.iter().find(|a| a["cell"] == stem.as_str()).unwrap();
        for s in cell["segments"].as_array().unwrap() {
            if let Some(i) = s[0].as_u64() {
                let sec = &a["sections"][i as usize];
                assert_eq!(texts[s[1].as_u64().unwrap() as usize].len() as u64, sec["sent"]["bytes"].as_u64().unwrap());
            }
        }
        // Everything before the cache segment is the cacheable prefix: static sections only.
        let k = cell["cache_segment"].as_u64().unwrap() as usize;
        for s in &cell["segments"].as_array().unwrap()[..k] {
            if let Some(i) = s[0].as_u64() {
                assert_eq!(a["sections"][i as usize]["dynamic"], false, "{stem}: a dynamic section before the cut");
            }
        }
        cells_checked += 1;
    }
    assert_eq!(cells_checked, 20, "every cell of the example's matrix");
    for a in accounts.iter().filter(|a| !a["provider"].is_null()) {
        let name = a["name"].as_str().unwrap();
        let entries = data["tools"][name].as_array().unwrap();
        let provider = a["provider"].as_str().unwrap();
        let file = repo().join("snapshots").join(format!("{}.{provider}.tools.json", a["cell"].as_str().unwrap()));
        let committed: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        let list = if provider == "gemini" { &committed[0]["functionDeclarations"] } else { &committed };
        let shown: Vec<Value> =
            entries.iter().map(|i| serde_json::from_str(texts[i.as_u64().unwrap() as usize]).unwrap()).collect();
        assert_eq!(&Value::Array(shown), list, "{name}: the page's tool entries are the committed tools JSON");
    }
    // Texts are stored once: no two entries of the table are equal.
    let mut sorted = texts.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), texts.len());
}

#[test]
fn pages_are_byte_identical_from_run_to_run() {
    let a = run_ok(&repo(), &["report", "--matrix", "--format", "html"]);
    let b = run_ok(&repo(), &["report", "--matrix", "--format", "html", "--no-cache"]);
    assert_eq!(a, b);
    assert!(a.starts_with("<!doctype html>"));
    // Outside the data (where the prompts' own text is), the page names no address.
    let start = a.find("<script type=\"application/octet-stream\"").unwrap();
    let markup = format!("{}{}", &a[..start], &a[start + a[start..].find("</script>").unwrap()..]);
    assert!(!markup.contains("http://") && !markup.contains("https://"), "an address in the page's markup");
}

#[test]
fn hostile_text_stays_text_and_the_page_loads_nothing() {
    let dir = repo().join("fixtures/good/html-hostile");
    let html = run_ok(&dir, &["report", "--matrix", "--format", "html"]);
    // Exactly two scripts: the island and the page's own; nothing the project wrote is markup.
    assert_eq!(html.matches("<script").count(), 2, "{html}");
    assert_eq!(html.matches("</script>").count(), 2);
    assert!(!html.contains("<img") && !html.contains("<iframe") && !html.contains("<link"));
    assert!(html.contains("content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'"));
    let data = island(&html);
    let texts = data["texts"].as_array().unwrap();
    assert!(texts.iter().any(|t| t.as_str().unwrap().contains("</script><script>window.pwned = 1</script>")));
    assert!(texts.iter().any(|t| t.as_str().unwrap().contains("\u{2028}")));
    assert!(texts.iter().any(|t| t.as_str().unwrap().contains("window.pwned = 4")), "the parameter description");
}

#[test]
fn out_writes_the_whole_file_and_a_bad_path_is_a_located_error() {
    let ws = Workspace::new();
    let out = ws.run(&["report", "--format", "html", "--out", "pages/nested/report.html"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.is_empty(), "nothing on stdout with --out");
    let page = std::fs::read_to_string(ws.path("pages/nested/report.html")).unwrap();
    assert!(page.ends_with("</html>\n"));
    let leftovers: Vec<_> =
        std::fs::read_dir(ws.path("pages/nested")).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(leftovers.len(), 1, "no temporary file left: {leftovers:?}");
    // A folder where the file should go: exit 2, the path named, the folder untouched.
    std::fs::create_dir_all(ws.path("taken/report.html")).unwrap();
    let out = ws.run(&["report", "--format", "html", "--out", "taken/report.html"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("taken/report.html"), "{err}");
    assert!(ws.path("taken/report.html").is_dir());
    // --out serves every format.
    let out = ws.run(&["report", "--format", "json", "--out", "r.json"]);
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(ws.path("r.json")).unwrap()).unwrap();
    assert_eq!(v["format"], 1);
}

#[test]
fn a_budget_over_the_limit_still_writes_the_page_and_exits_1() {
    let dir = repo().join("fixtures/good/over-budget");
    let tmp = tempfile::tempdir().unwrap();
    let page = tmp.path().join("r.html");
    let out = promptc_in(&dir, &["report", "--no-cache", "--format", "html", "--out", page.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("budget exceeded"));
    let data = island(&std::fs::read_to_string(page).unwrap());
    assert!(data["report"]["accounts"][0]["budgets"].as_array().unwrap().iter().any(|b| b["exceeded"] == true));
}

#[test]
fn the_diff_page_shows_the_json_deltas_and_each_changed_line() {
    let ws = Workspace::new();
    ws.edit(
        "profiles/sections/rules.md.j2",
        "\n",
        "\nAlways run the tests before you finish. <b>Never</b> skip them.\n",
    );
    let out = ws.run(&["diff", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let out = ws.run(&["diff", "--format", "html", "--out", "diff.html"]);
    assert_eq!(out.status.code(), Some(1), "drift still exits 1: {}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(ws.path("diff.html")).unwrap();
    assert!(!html.contains("<script"), "the diff page is static");
    assert!(html.contains("script-src 'none'"));
    let deltas = json["deltas"].as_array().unwrap();
    assert!(deltas.iter().any(|d| d["item"] == "section rules"));
    for d in deltas {
        let cell = d["cell"].as_str().unwrap();
        let item = d["item"].as_str().unwrap();
        let table = &html[html.find(&format!("<table class=\"grid deltas\" data-cell=\"{cell}\"")).unwrap()..];
        let row = &table[table.find(&format!("data-item=\"{item}\"")).unwrap()..];
        let row = &row[..row.find("</tr>").unwrap()];
        let tokens = d["after"]["tokens"].as_i64().unwrap_or(0) - d["before"]["tokens"].as_i64().unwrap_or(0);
        assert!(row.contains(&format!("data-delta=\"{tokens}\"")), "{cell} {item}: {row}");
    }
    assert!(html.contains(
        "<span class=\"l-add\">+Always run the tests before you finish. &lt;b&gt;Never&lt;/b&gt; skip them.</span>"
    ));
    let again = ws.run(&["diff", "--format", "html"]);
    assert_eq!(String::from_utf8(again.stdout).unwrap(), html, "stdout and --out give the same page");
    // After accepting, the page says there is no drift.
    assert_eq!(ws.run(&["diff", "--update"]).status.code(), Some(0));
    let out = ws.run(&["diff", "--format", "html"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("No drift"));
}
