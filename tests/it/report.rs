//! End-to-end tests of `promptc report`: snapshots of every output format on the shipped
//! example, the matrix, budgets (exit 1, named and quantified), tokenizers that follow the
//! provider and model, estimates, and the token cache.

use crate::common;

use common::{promptc_in, repo};

/// The first account of `report --format json`.
fn account(args: &[&str]) -> serde_json::Value {
    let mut a = vec!["report", "--format", "json"];
    a.extend_from_slice(args);
    let r: serde_json::Value = serde_json::from_str(&ok(&a)).unwrap();
    assert_eq!(r["format"], 1);
    r["accounts"][0].clone()
}

fn ok(args: &[&str]) -> String {
    // --no-cache: the example's on-disk cache must not make these runs depend on each other.
    let mut a = args.to_vec();
    a.push("--no-cache");
    let out = promptc_in(&repo(), &a);
    assert_eq!(out.status.code(), Some(0), "promptc {a:?}:\n{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn snapshot_every_format_of_the_example_report() {
    insta::assert_snapshot!("standard.native.table", ok(&["report"]));
    insta::assert_snapshot!("standard.native.markdown", ok(&["report", "--format", "markdown"]));
    insta::assert_snapshot!("standard.native.csv", ok(&["report", "--format", "csv"]));
    insta::assert_snapshot!("lite.xml.table", ok(&["report", "--profile", "lite", "--transport", "xml"]));
    insta::assert_snapshot!("matrix.table", ok(&["report", "--matrix"]));
    insta::assert_snapshot!("matrix.markdown", ok(&["report", "--matrix", "--format", "markdown"]));
    insta::assert_snapshot!("standard.native.by-tokens", ok(&["report", "--sort", "tokens", "--top", "8", "--params"]));
    let json: serde_json::Value = serde_json::from_str(&ok(&["report", "--format", "json"])).unwrap();
    insta::assert_json_snapshot!("standard.native.json", json);
}

#[test]
fn rows_add_up_and_match_the_rendered_text() {
    let r = account(&[]);
    let sections = r["sections"].as_array().unwrap();
    let bytes: u64 = sections.iter().map(|s| s["sent"]["bytes"].as_u64().unwrap()).sum::<u64>()
        + r["layout"]["bytes"].as_u64().unwrap();
    assert_eq!(bytes, r["prompt"]["bytes"].as_u64().unwrap());
    // The prompt row measures exactly the text `render` prints.
    let prompt = ok_render(&["render"]);
    assert_eq!(prompt.len() as u64, r["prompt"]["bytes"].as_u64().unwrap());
    // The tools are measured as the compact JSON the SDK sends, not the pretty snapshot file.
    let tools: serde_json::Value = serde_json::from_str(&ok_render(&["render", "--tools"])).unwrap();
    assert_eq!(serde_json::to_string(&tools).unwrap().len() as u64, r["tools_sent"]["bytes"].as_u64().unwrap());
    assert_eq!(
        r["total"]["tokens"].as_u64(),
        Some(r["prompt"]["tokens"].as_u64().unwrap() + r["tools_sent"]["tokens"].as_u64().unwrap())
    );
    // Section rows are in prompt order and say static or dynamic.
    let ids: Vec<&str> = sections.iter().map(|s| s["id"].as_str().unwrap()).collect();
    assert_eq!(ids.first(), Some(&"role"));
    let env = sections.iter().find(|s| s["id"] == "environment").unwrap();
    assert_eq!(env["dynamic"], true);
    let tools = r["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 15);
    assert_eq!(r["tokenizer"]["exact"], true);
    // Every tool names its declaration, and its parameters their share of it.
    let read = tools.iter().find(|t| t["name"] == "read_file").unwrap();
    assert_eq!(read["source"], "tools/files.yaml:4");
    let params: Vec<&str> = read["params"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert!(params.contains(&"path"), "{params:?}");
    let param_bytes: u64 =
        read["params"].as_array().unwrap().iter().map(|p| p["sent"]["bytes"].as_u64().unwrap()).sum();
    assert!(param_bytes < read["sent"]["bytes"].as_u64().unwrap());
    // The cacheable prefix ends at the dynamic section, and the estimate says how it was made.
    assert_eq!(r["cache"]["ends_at"], "environment");
    let parts = r["cache"]["cacheable"].as_u64().unwrap() + r["cache"]["uncached"].as_u64().unwrap();
    let total = r["total"]["tokens"].as_u64().unwrap();
    assert!((total..=total + 1).contains(&parts), "the two parts split what is sent (a token may straddle the cut)");
    assert!(r["billed"]["source"].as_str().unwrap().contains("OpenAI cookbook"));
}

fn ok_render(args: &[&str]) -> String {
    let out = promptc_in(&repo(), args);
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn xml_tools_are_a_breakdown_of_the_tool_docs_not_added_again() {
    let r = account(&["--transport", "xml"]);
    assert_eq!(r["tools_sent"]["tokens"], 0);
    assert!(r["tools"].as_array().unwrap().iter().all(|t| t["part_of"] == "tool_docs"));
    let docs = r["sections"].as_array().unwrap().iter().find(|s| s["id"] == "tool_docs").unwrap();
    let blocks: u64 = r["tools"].as_array().unwrap().iter().map(|t| t["sent"]["bytes"].as_u64().unwrap()).sum();
    // The tool_docs section is the blocks plus one blank line between each pair.
    let n = r["tools"].as_array().unwrap().len() as u64;
    assert_eq!(docs["sent"]["bytes"].as_u64().unwrap(), blocks + 2 * (n - 1));
    // Section shares add up to at most 100%: tool rows are not counted twice.
    let sections: f64 = r["sections"].as_array().unwrap().iter().map(|s| s["share"].as_f64().unwrap()).sum();
    assert!(sections <= 1.0 + 1e-9, "{sections}");
}

#[test]
fn the_tokenizer_follows_the_provider_and_the_model() {
    let count = |args: &[&str]| -> (u64, bool, String) {
        let r = account(args);
        (
            r["prompt"]["tokens"].as_u64().unwrap(),
            r["tokenizer"]["exact"].as_bool().unwrap(),
            r["tokenizer"]["name"].as_str().unwrap().to_string(),
        )
    };
    let (o200k, exact, name) = count(&[]);
    assert!(exact);
    assert_eq!(name, "o200k_base");
    let (cl100k, _, name) = count(&["--tokenizer", "cl100k_base"]);
    assert_eq!(name, "cl100k_base");
    assert_ne!(o200k, cl100k);
    assert_eq!(count(&["--model", "gpt-4o"]).2, "o200k_base");
    assert_eq!(count(&["--model", "gpt-4", "--profile", "standard"]).2, "cl100k_base");
    // An Anthropic cell counts with the Claude estimate: o200k_base × the project's factor.
    let (claude, exact, name) = count(&["--provider", "anthropic"]);
    assert!(!exact);
    assert_eq!(name, "claude");
    assert_eq!(claude, (o200k as f64 * 1.2).ceil() as u64);
    // A Gemini cell counts exactly, with Gemini's own tokenizer, and its bill is no estimate.
    let (_, exact, name) = count(&["--provider", "gemini"]);
    assert!(exact);
    assert_eq!(name, "gemma3");
    // --tokenizer overrides the provider's.
    assert_eq!(count(&["--provider", "anthropic", "--tokenizer", "o200k_base"]).0, o200k);
    let table = ok(&["report", "--tokenizer", "claude"]);
    assert!(table.contains("(estimate)") && table.contains('≈'), "{table}");
    let table = ok(&["report", "--provider", "gemini"]);
    assert!(table.contains("gemma3 (exact)") && table.contains("billed 5599: Gemini: as google-genai"), "{table}");
    assert!(!table.contains('≈'), "{table}");
}

#[test]
fn an_unknown_model_warns_once_and_says_what_was_used() {
    for args in [
        &["report", "--model", "mistral-large", "--no-cache"][..],
        &["report", "--matrix", "--model", "mistral-large", "--no-cache"],
    ] {
        let out = promptc_in(&repo(), args);
        assert_eq!(out.status.code(), Some(0));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.matches("model `mistral-large` is not one promptc knows").count(), 1, "{args:?}: {err}");
        assert!(err.contains("counting with o200k_base"), "{err}");
    }
}

#[test]
fn exceeded_budgets_exit_1_and_say_by_how_much() {
    let out = promptc_in(&repo(), &["-C", "fixtures/good/over-budget", "report"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "budget exceeded: standard.native.openai: section `role` is 83 bytes, 63 over its budget of 20 bytes \
             (counted with o200k_base)"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("tools is 151 tokens, 101 over its budget of 50 tokens"), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("OVER by 63"), "{stdout}");
    insta::assert_snapshot!("over-budget.table", stdout);
    // The lite profile has no budgets: exit 0.
    let out = promptc_in(&repo(), &["-C", "fixtures/good/over-budget", "report", "--profile", "lite"]);
    assert_eq!(out.status.code(), Some(0));
    // JSON carries every check.
    let out = promptc_in(&repo(), &["-C", "fixtures/good/over-budget", "report", "--format", "json"]);
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let exceeded: Vec<&serde_json::Value> =
        r["accounts"][0]["budgets"].as_array().unwrap().iter().filter(|c| c["exceeded"] == true).collect();
    assert_eq!(exceeded.len(), 2);
    // The matrix marks the cells over budget.
    let out = promptc_in(&repo(), &["-C", "fixtures/good/over-budget", "report", "--matrix"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("OVER"));
}

#[test]
fn a_rerun_over_unchanged_content_builds_no_tokenizer() {
    let dir = crate::common::fixture_with_token_cache("fixtures/good/minimal", ".cache/tokens.json");
    let run = |args: &[&str]| {
        let out = promptc_in(dir.path(), args);
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
    };
    let (first, err) = run(&["report", "--format", "json"]);
    assert!(err.contains("tokenizer built"), "{err}");
    assert!(!crate::common::token_shards(&dir.path().join(".cache"), "tokens").is_empty());
    let (second, err) = run(&["report", "--format", "json"]);
    assert!(err.contains(" 0 misses, tokenizer not built"), "{err}");
    assert_eq!(first, second);
    // Changing one section re-tokenises only what changed.
    let role = dir.path().join("sections/role.md.j2");
    std::fs::write(&role, std::fs::read_to_string(&role).unwrap() + "\nOne more rule.\n").unwrap();
    let (_, err) = run(&["report", "--format", "json"]);
    assert!(err.contains("tokenizer built") && !err.contains(" 0 misses"), "{err}");
    // --no-cache neither reads nor reports the cache.
    let (_, err) = run(&["report", "--no-cache"]);
    assert!(!err.contains("token cache"), "{err}");
    // No temporary files are left beside the cache: only its shards.
    let mut names: Vec<String> = std::fs::read_dir(dir.path().join(".cache"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let shards: Vec<String> = crate::common::token_shards(&dir.path().join(".cache"), "tokens").into_keys().collect();
    assert_eq!(names, shards);
}

#[test]
fn json_cells_measure_each_tools_share_of_the_action_schema() {
    let out = promptc_in(
        &repo(),
        &["-C", "fixtures/good/composition", "report", "--transport", "json", "--format", "json", "--no-cache"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let a = &r["accounts"][0];
    assert_eq!(a["transport"], "json");
    assert_eq!(a["tools_sent"]["tokens"], 0, "the schema is part of the prompt");
    let tools = a["tools"].as_array().unwrap();
    assert!(
        !tools.is_empty()
            && tools.iter().all(|t| t["part_of"] == "actions" && t["sent"]["tokens"].as_u64().unwrap() > 0),
        "{tools:?}"
    );
}

#[test]
fn a_sub_agent_report_names_the_sub_agent() {
    let table = ok(&["report", "--subagent", "researcher"]);
    assert!(table.lines().next().unwrap().contains("standard.native.subagent-researcher.openai"), "{table}");
    let a = account(&["--subagent", "researcher"]);
    assert_eq!(a["subagent"], "researcher");
    assert_eq!(a["name"], "standard.native.subagent-researcher.openai");
}

/// The slot table (seed 000 §7): the slots that received text, then the totals — tools
/// declaring, tools rendering, tokens and bytes — saying how many empty slots it left out;
/// `--all` lists them too. It listed every slot and had no totals.
#[test]
fn the_slot_table_shows_slots_with_text_and_totals() {
    let dir = "fixtures/good/slot-report";
    let slot_lines = |args: &[&str]| -> Vec<String> {
        let out = ok(&[&["-C", dir, "report", "--format", "markdown"], args].concat());
        out.lines().filter(|l| l.starts_with("| slot ") || l.starts_with("| total")).map(str::to_string).collect()
    };
    assert_eq!(
        slot_lines(&[]),
        [
            "| slot | declaring | contributing | tokens | bytes |",
            "| slot working_notes | take_note | take_note | 13 | 57 |",
            "| total (1 empty not shown) | 1 tool | 1 tool | 13 | 57 |",
        ]
    );
    assert_eq!(
        slot_lines(&["--all"])[1..],
        [
            "| slot working_notes | take_note | take_note | 13 | 57 |",
            "| slot page_notes | – | – | 0 | 0 |",
            "| total | 1 tool | 1 tool | 13 | 57 |",
        ]
    );
    assert_eq!(
        slot_lines(&["--set", "browser=true"]).last().map(String::as_str),
        Some("| total | 2 tools | 2 tools | 21 | 94 |")
    );
    // JSON keeps every slot: it is data, not a view.
    let v = account(&["-C", dir]);
    let slots: Vec<&str> = v["slots"].as_array().unwrap().iter().map(|s| s["slot"].as_str().unwrap()).collect();
    assert_eq!(slots, ["working_notes", "page_notes"]);
}

/// Tables fit the terminal: at `--width 80` and `--width 120` no line of the report — one cell
/// with and without parameter rows, an xml cell, the matrix — is wider (sources shortened at
/// the front, names in the middle, sentences wrapped); without a width (a pipe, CI) every
/// table keeps its natural width.
#[test]
fn tables_fit_the_width_they_are_given() {
    for width in ["80", "120"] {
        let max: usize = width.parse().unwrap();
        for args in [&[][..], &["--params"], &["--profile", "lite", "--transport", "xml"], &["--matrix"]] {
            let out = ok(&[&["report", "--width", width], args].concat());
            let widest = out.lines().map(|l| l.chars().count()).max().unwrap();
            assert!(widest <= max, "{args:?} at {width}: a line of {widest} columns\n{out}");
        }
    }
    let natural = ok(&["report"]);
    assert!(natural.lines().any(|l| l.chars().count() > 80), "{natural}");
}

/// A copy of the fixture at `rel` with its token cache (and so its compile cache) turned on in
/// `.cache/`.
fn with_caches(rel: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    common::copy_dir(&repo().join(rel), dir.path());
    let manifest = dir.path().join("promptc.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    assert!(!text.contains("\ntokens:"), "{rel}");
    std::fs::write(&manifest, format!("{text}\ntokens:\n  cache: .cache/tokens.json\n")).unwrap();
    dir
}

/// `report --matrix` in `dir`: exit code, stdout, and stderr without the lines that say what
/// the token and compile caches did, which it returns apart.
fn matrix_run(dir: &std::path::Path, args: &[&str]) -> (Option<i32>, String, String, String) {
    let mut a = vec!["report", "--matrix"];
    a.extend_from_slice(args);
    let out = promptc_in(dir, &a);
    let err = String::from_utf8(out.stderr).unwrap();
    let cache_line = |l: &&str| l.starts_with("token cache: ") || l.starts_with("compile cache: ");
    let (caches, report): (Vec<&str>, Vec<&str>) = err.lines().partition(cache_line);
    (out.status.code(), String::from_utf8(out.stdout).unwrap(), report.join("\n"), caches.join("\n"))
}

#[test]
fn a_matrix_rerun_in_a_new_process_takes_every_cell_from_the_compile_cache() {
    // The fixture warns (P009, located) in every cell that has the sub-agent: the warnings come
    // back from the cache as they were made.
    let dir = with_caches("fixtures/good/subagent-spawning-warning");
    let (code, first, warnings, caches) = matrix_run(dir.path(), &["--format", "json"]);
    assert_eq!(code, Some(0), "{warnings}");
    assert!(warnings.contains("warning[P009]") && warnings.contains("promptc.yaml:34:24"), "{warnings}");
    let accounts = first.matches("\"cell\":").count();
    assert!(caches.contains("tokenizer built"), "{caches}");
    let compiled = caches.lines().last().unwrap().to_string();
    assert!(compiled.starts_with("compile cache: 0 cells reused, ") && !compiled.ends_with(" 0 compiled"), "{caches}");
    assert!(dir.path().join(".cache/compile.json").is_file());
    let again = matrix_run(dir.path(), &["--format", "json"]);
    assert_eq!((again.0, &again.1, &again.2), (code, &first, &warnings), "the same report, warnings and exit code");
    assert!(again.3.contains("0 misses, tokenizer not built"), "{}", again.3);
    let n: usize = compiled["compile cache: 0 cells reused, ".len()..].split(' ').next().unwrap().parse().unwrap();
    assert_eq!(again.3.lines().last().unwrap(), format!("compile cache: {n} cells reused, 0 compiled"));
    assert!(accounts >= n, "one account or more per cell");
    // Tables are made from the same accounts.
    let table = matrix_run(dir.path(), &[]);
    let fresh = matrix_run(dir.path(), &["--no-cache"]);
    assert_eq!((table.0, &table.1, &table.2), (fresh.0, &fresh.1, &fresh.2));
    assert_eq!(fresh.3.lines().filter(|l| l.contains("cache:")).count(), 0, "--no-cache: {}", fresh.3);
    // Edit the manifest (its sections are inline): every cell is compiled again.
    let manifest = dir.path().join("promptc.yaml");
    std::fs::write(&manifest, std::fs::read_to_string(&manifest).unwrap().replace("careful", "very careful")).unwrap();
    let edited = matrix_run(dir.path(), &["--format", "json"]);
    assert_ne!(edited.1, first);
    assert!(edited.3.ends_with(&format!("compile cache: 0 cells reused, {n} compiled")), "{}", edited.3);
    assert_eq!(edited.1, matrix_run(dir.path(), &["--format", "json", "--no-cache"]).1);
}

/// Every entry of the compile cache in `dir`, as JSON, for a test to change.
fn compile_cache(dir: &std::path::Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(dir.join(".cache/compile.json")).unwrap()).unwrap()
}

#[test]
fn a_forged_compile_cache_costs_a_recompile_never_a_figure() {
    // Issue 24's cache poisoning, on the compile cache: every count set to 1 (the tag kept), a
    // budget that fails in truth must still fail.
    let dir = tempfile::tempdir().unwrap();
    common::copy_dir(&repo().join("fixtures/good/over-budget"), dir.path());
    let manifest = dir.path().join("promptc.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, format!("{text}\ntokens:\n  cache: .cache/tokens.json\n")).unwrap();
    let (code, truth, _, _) = matrix_run(dir.path(), &["--format", "json"]);
    assert_eq!(code, Some(1), "the fixture is over budget");
    let mut cache = compile_cache(dir.path());
    let entries = cache["entries"].as_object_mut().unwrap();
    assert!(!entries.is_empty());
    fn ones(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => m.iter_mut().for_each(|(k, v)| match (k.as_str(), v.is_u64()) {
                ("tokens" | "bytes" | "actual", true) => *v = 1.into(),
                ("exceeded", _) => *v = false.into(),
                _ => ones(v),
            }),
            serde_json::Value::Array(a) => a.iter_mut().for_each(ones),
            _ => {}
        }
    }
    entries.values_mut().for_each(|e| ones(&mut e["known"]));
    let n = entries.len();
    std::fs::write(dir.path().join(".cache/compile.json"), serde_json::to_vec(&cache).unwrap()).unwrap();
    let (code, again, _, caches) = matrix_run(dir.path(), &["--format", "json"]);
    assert_eq!((code, &again), (Some(1), &truth));
    assert!(caches.ends_with(&format!("compile cache: 0 cells reused, {n} compiled")), "{caches}");
    // The same with an entry copied under another cell's key: its tag covers the key.
    let mut cache = compile_cache(dir.path());
    let entries = cache["entries"].as_object_mut().unwrap();
    let keys: Vec<String> = entries.keys().cloned().collect();
    let first = entries[&keys[0]].clone();
    entries.values_mut().for_each(|e| *e = first.clone());
    std::fs::write(dir.path().join(".cache/compile.json"), serde_json::to_vec(&cache).unwrap()).unwrap();
    let (code, again, _, caches) = matrix_run(dir.path(), &["--format", "json"]);
    assert_eq!((code, &again), (Some(1), &truth));
    assert!(caches.ends_with(&format!("{} compiled", keys.len() - 1)), "{caches}");
}

#[test]
fn a_compile_cache_that_is_not_promptcs_is_a_warning_and_never_followed_out() {
    let dir = with_caches("fixtures/good/minimal");
    std::fs::create_dir_all(dir.path().join(".cache")).unwrap();
    let (_, truth, ..) = matrix_run(dir.path(), &["--no-cache"]);
    // Not JSON: a warning, the report unchanged, the file replaced by promptc's.
    std::fs::write(dir.path().join(".cache/compile.json"), "not a cache").unwrap();
    let out = promptc_in(dir.path(), &["report", "--matrix"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("compile cache `") && err.contains("was not read: it is not a compile cache promptc wrote"),
        "{err}"
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), truth);
    assert_eq!(compile_cache(dir.path())["format"], 1);
    // A link out of the project: neither read nor written through.
    #[cfg(unix)]
    {
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().join("compile.json");
        std::fs::write(&target, "theirs").unwrap();
        std::fs::remove_file(dir.path().join(".cache/compile.json")).unwrap();
        std::os::unix::fs::symlink(&target, dir.path().join(".cache/compile.json")).unwrap();
        let out = promptc_in(dir.path(), &["report", "--matrix"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("compile cache `") && err.contains("was not read"), "{err}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), truth);
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "theirs");
    }
}

/// At 80 columns the item table drops its bar and source columns before it shortens a name:
/// every tool's and section's name is whole, nothing is wider than 80, and the legend explains
/// the rows whose names are not self-explanatory.
#[test]
fn the_report_fits_80_columns_with_names_whole_and_a_legend() {
    let text = ok(&["report", "--width", "80"]);
    let widest = text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    assert!(widest <= 80, "the report is {widest} columns wide at --width 80:\n{text}");
    for name in ["tool read_file", "tool execute_command", "(outside sections)", "editing_files"] {
        assert!(text.contains(&format!("│ {name} ")), "`{name}` is not whole at 80 columns:\n{text}");
    }
    assert!(!text.contains('…'), "nothing is cut at 80 columns:\n{text}");
    assert!(text.contains("\n(outside sections): prompt text no section renders"), "no legend:\n{text}");
}

#[test]
fn names_too_long_for_a_narrow_table_are_cut_at_a_word_boundary() {
    let text = ok(&["report", "--width", "56"]);
    assert!(text.lines().all(|l| l.chars().count() <= 56), "{text}");
    assert!(text.contains("│ tool execute_… "), "cut after `_`, not in the middle of a word:\n{text}");
}
