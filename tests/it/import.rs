//! `promptc import tools`: tool definitions an agent already sends become a project that
//! renders them back byte for byte.
//!
//! - Round trips: `fixtures/import/catalog` (eight tools using every keyword the import reads)
//!   rendered for each provider → imported → rendered again gives the same bytes, strict and not.
//! - Native files: `fixtures/import/native/*.json`, written in each provider's own form, render
//!   back exactly as written (MCP's `tools/list` result through the provider `mcp`).
//! - Every form is detected, the wrappers (request bodies, JSON-RPC responses) too; the bad
//!   inputs are `tests/it/bad_input.rs` cases (`fixtures/bad/import-*`).

use crate::common;

use std::path::Path;
use std::process::Output;

use common::{promptc, repo};

const PROVIDERS: [&str; 4] = ["openai", "openai-responses", "anthropic", "gemini"];

fn run(args: &[&str]) -> Output {
    promptc(args)
}

fn ok(args: &[&str]) -> (String, String) {
    let out = run(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "promptc {args:?} failed:\n{stderr}");
    (String::from_utf8(out.stdout).unwrap(), stderr)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `render --tools` of the project in `dir` for `provider` (its default when `None`).
fn tools_of(dir: &Path, provider: Option<&str>) -> String {
    let mut args = vec!["-C", s(dir), "render", "--tools"];
    if let Some(p) = provider {
        args.extend(["--provider", p]);
    }
    ok(&args).0
}

/// Import `file` into a fresh folder under `tmp`; returns the folder and the import's stderr.
fn import(tmp: &Path, file: &Path, extra: &[&str]) -> (std::path::PathBuf, String) {
    let out = tmp.join(format!("out-{}", std::fs::read_dir(tmp).unwrap().count()));
    let mut args = vec!["import", "tools", s(file), "--out", s(&out)];
    args.extend(extra);
    let (_, err) = ok(&args);
    (out, err)
}

/// Render the catalog for every provider, import, render again: the same bytes.
fn round_trip(project: &Path, providers: &[&str], tmp: &Path) -> usize {
    let mut tools = 0;
    for p in providers {
        let first = tools_of(project, Some(p));
        let file = tmp.join(format!("{p}.json"));
        std::fs::write(&file, &first).unwrap();
        let (out, err) = import(tmp, &file, &[]);
        assert!(err.contains(&format!("from {p} definitions")), "{p} must be detected:\n{err}");
        let again = tools_of(&out, None);
        assert_eq!(again, first, "{p}: the imported project must render the same tools JSON");
        let n: serde_json::Value = serde_json::from_str(&first).unwrap();
        tools = match *p {
            "gemini" => n[0]["functionDeclarations"].as_array().unwrap().len(),
            _ => n.as_array().unwrap().len(),
        };
    }
    tools
}

#[test]
fn every_provider_round_trips_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let n = round_trip(&repo().join("fixtures/import/catalog"), &PROVIDERS, tmp.path());
    assert_eq!(n, 8, "eight tools × four providers");
}

#[test]
fn strict_openai_round_trips_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("strict");
    common::copy_dir(&repo().join("fixtures/import/catalog"), &project);
    let manifest = project.join("promptc.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap().replace("strict_tools: false", "strict_tools: true");
    std::fs::write(&manifest, text).unwrap();
    let work = tmp.path().join("work");
    std::fs::create_dir(&work).unwrap();
    assert_eq!(round_trip(&project, &["openai", "openai-responses"], &work), 8);
    // The imported project is strict too, and says so.
    let imported = std::fs::read_dir(&work).unwrap().filter_map(|e| e.ok()).find(|e| e.path().is_dir()).unwrap();
    let manifest = std::fs::read_to_string(imported.path().join("promptc.yaml")).unwrap();
    assert!(manifest.contains("strict_tools: true"), "{manifest}");
}

#[test]
fn hand_written_native_files_render_back_as_written() {
    let tmp = tempfile::tempdir().unwrap();
    let native = repo().join("fixtures/import/native");
    let mut identical = 0;
    for p in PROVIDERS {
        let file = native.join(format!("{p}.json"));
        let (out, _) = import(tmp.path(), &file, &[]);
        let written = std::fs::read_to_string(&file).unwrap();
        assert_eq!(tools_of(&out, None), written, "{p}: rendered back byte for byte");
        identical += 1;
    }
    // MCP: the `tools/list` result, rendered back for the provider `mcp` (the import's default).
    let file = native.join("mcp.json");
    let (out, err) = import(tmp.path(), &file, &[]);
    assert!(err.contains("from mcp definitions"), "{err}");
    assert_eq!(tools_of(&out, None), std::fs::read_to_string(&file).unwrap(), "mcp: rendered back byte for byte");
    identical += 1;
    assert_eq!(identical, 5, "three tools × five forms");
}

#[test]
fn every_form_and_wrapper_is_detected() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = [
        ("native/openai.json", "openai"),
        ("native/openai-responses.json", "openai-responses"),
        ("native/anthropic.json", "anthropic"),
        ("native/gemini.json", "gemini"),
        ("native/mcp.json", "mcp"),
        ("forms/openai-body.json", "openai"),
        ("forms/responses-body.json", "openai-responses"),
        ("forms/anthropic-body.json", "anthropic"),
        ("forms/gemini-body.json", "gemini"),
        ("forms/gemini-lowercase.json", "gemini"),
        ("forms/mcp-jsonrpc.json", "mcp"),
        ("forms/mcp-bare-array.json", "mcp"),
    ];
    for (file, format) in cases {
        let (out, err) = import(tmp.path(), &repo().join("fixtures/import").join(file), &[]);
        assert!(err.contains(&format!("from {format} definitions")), "{file} must be read as {format}:\n{err}");
        // The project renders for the form's provider by default.
        let tools = tools_of(&out, None);
        assert!(tools.contains("book_repair"), "{file}:\n{tools}");
    }
    // Gemini takes its types in either case: each renders back as written, and the two are
    // the same JSON Schema for the other providers.
    let (lower, _) = import(tmp.path(), &repo().join("fixtures/import/forms/gemini-lowercase.json"), &[]);
    let (upper, _) = import(tmp.path(), &repo().join("fixtures/import/forms/gemini-body.json"), &[]);
    assert!(tools_of(&lower, None).contains("\"type\": \"object\""));
    assert!(tools_of(&upper, None).contains("\"type\": \"OBJECT\""));
    assert_eq!(tools_of(&lower, Some("anthropic")), tools_of(&upper, Some("anthropic")));
    assert!(tools_of(&upper, Some("anthropic")).contains("\"type\": \"object\""));
}

#[test]
fn from_forces_the_form_and_says_when_it_does_not_fit() {
    let tmp = tempfile::tempdir().unwrap();
    let file = repo().join("fixtures/import/native/anthropic.json");
    let (_, err) = import(tmp.path(), &file, &["--from", "anthropic"]);
    assert!(err.contains("from anthropic definitions"), "{err}");
    let out = run(&["import", "tools", s(&file), "--out", s(&tmp.path().join("x")), "--from", "gemini"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("`tools[0]` is not a tool definition of the gemini form"), "{err}");
    assert!(err.contains("functionDeclarations"), "{err}");
    assert!(!tmp.path().join("x").exists(), "a failed import writes nothing");
}

#[test]
fn reads_standard_input() {
    let tmp = tempfile::tempdir().unwrap();
    let out_dir = tmp.path().join("from-stdin");
    let text = std::fs::read(repo().join("fixtures/import/native/openai.json")).unwrap();
    let out = common::promptc_in_with_stdin(&repo(), &["import", "tools", "-", "--out", s(&out_dir)], &text);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(tools_of(&out_dir, None).as_bytes(), text.as_slice());
    // A syntax error in standard input is located there too.
    let never = tmp.path().join("never");
    let out =
        common::promptc_in_with_stdin(&repo(), &["import", "tools", "-", "--out", s(&never)], b"[\n  {\"name\": }\n]");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--> <stdin>:2:12"), "{err}");
}

#[test]
fn strings_survive_byte_for_byte() {
    // Every kind of text YAML could fold, trim, drop or misread.
    let nasty = [
        "trailing newline\n",
        "two trailing newlines\n\n",
        "  leading spaces",
        "trailing spaces   ",
        "key: value # not a comment",
        "\"double\" and 'single' quotes, a \\ backslash",
        "tab\there, CR\r\nLF",
        "unicode: Grüße, 日本語, emoji 🌱, combining e\u{301}",
        "controls: \u{1} \u{7f} \u{85} \u{a0} \u{2028} \u{2029} \u{feff}",
        "null",
        "- a list? no",
        "{braces} [brackets] & *star !bang %percent @at `tick`",
    ];
    let tools: Vec<serde_json::Value> = nasty
        .iter()
        .enumerate()
        .map(|(i, d)| {
            serde_json::json!({
                "name": format!("t{i}"),
                "description": d,
                "input_schema": {
                    "type": "object",
                    "properties": {
                        "p": {"type": "string", "description": d, "enum": [d], "default": d},
                        "empty": {"type": "string", "description": "", "enum": [""]}
                    }
                }
            })
        })
        .collect();
    let text = format!("{}\n", serde_json::to_string_pretty(&tools).unwrap());
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("nasty.json");
    std::fs::write(&file, &text).unwrap();
    let (out, _) = import(tmp.path(), &file, &[]);
    assert_eq!(tools_of(&out, None), text);
}

#[test]
fn output_is_deterministic_and_re_import_replaces_only_its_own_files() {
    let tmp = tempfile::tempdir().unwrap();
    let file = repo().join("fixtures/import/native/anthropic.json");
    let (a, _) = import(tmp.path(), &file, &[]);
    let (b, _) = import(tmp.path(), &file, &[]);
    let listing = |d: &Path| {
        let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap())
            .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
            .collect();
        v.sort();
        v
    };
    assert_eq!(listing(&a), listing(&b));
    let names: Vec<String> = listing(&a).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["promptc.yaml", "tool.book_repair.yaml", "tool.close_shop.yaml", "tool.quote_price.yaml"]);

    // Importing again into the same folder replaces the import's files; a file the user put
    // there stays; a tool no longer imported goes.
    std::fs::write(a.join("NOTES.md"), "mine\n").unwrap();
    let one = tmp.path().join("one.json");
    let first: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    std::fs::write(&one, serde_json::to_string(&[&first[0]]).unwrap()).unwrap();
    ok(&["import", "tools", s(&one), "--out", s(&a)]);
    let names: Vec<String> = listing(&a).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["NOTES.md", "promptc.yaml", "tool.book_repair.yaml"]);

    // A tool file the user edited is never overwritten: refused at the file, kept.
    let tool = a.join("tool.book_repair.yaml");
    std::fs::write(&tool, "# my edit\n").unwrap();
    let out = run(&["import", "tools", s(&file), "--out", s(&a)]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("`tool.book_repair.yaml`, which is changed since promptc wrote it"), "{err}");
    assert_eq!(std::fs::read_to_string(&tool).unwrap(), "# my edit\n");
    std::fs::remove_file(&tool).unwrap();

    // Without the marker line the folder is the user's: refused.
    let manifest = a.join("promptc.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.lines().skip(1).collect::<Vec<_>>().join("\n")).unwrap();
    let out = run(&["import", "tools", s(&file), "--out", s(&a)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("holds files promptc did not write"));
}

#[test]
fn an_import_accepts_at_most_ten_thousand_tools() {
    assert_eq!(promptc::MAX_IMPORT_TOOLS, 10_000);
    let tmp = tempfile::tempdir().unwrap();
    let tools: Vec<serde_json::Value> = (0..=promptc::MAX_IMPORT_TOOLS)
        .map(|i| serde_json::json!({"name": format!("t{i}"), "description": "A tool.", "input_schema": {}}))
        .collect();
    let file = tmp.path().join("many.json");
    // One tool a line: the error's line is the first tool over the limit.
    let lines: Vec<String> = tools.iter().map(|t| t.to_string()).collect();
    std::fs::write(&file, format!("[\n{}\n]\n", lines.join(",\n"))).unwrap();
    let out_dir = tmp.path().join("out");
    let out = run(&["import", "tools", s(&file), "--out", s(&out_dir)]);
    // Refused before converting: nothing was written (a bound proved by work, not by the clock).
    assert!(!out_dir.exists(), "refused before converting");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("the input defines 10001 tools; an import accepts at most 10000"), "{err}");
    assert!(err.contains("many.json:10002:1"), "located at the first tool over the limit: {err}");
    assert!(!out_dir.exists(), "nothing written");
}

/// Tools within the tool and byte caps whose schemas hold millions of values (10,000 tools of
/// 100 parameters, an enum of a million values) made the other commands abort at 4.7 GB: an
/// import refuses more than `MAX_IMPORT_SCHEMA_NODES` schema values in all, located at the tool
/// that crosses it, before converting anything.
#[test]
fn an_import_refuses_schemas_of_millions_of_values() {
    let tmp = tempfile::tempdir().unwrap();
    let values: Vec<String> = (0..=promptc::MAX_IMPORT_SCHEMA_NODES).map(|k| format!("v{k}")).collect();
    let small = serde_json::json!({"name": "ok", "description": "A tool.", "input_schema": {"type": "object"}});
    let huge = serde_json::json!({"name": "e", "description": "A tool.", "input_schema":
        {"type": "object", "properties": {"p": {"type": "string", "enum": values}}}});
    let file = tmp.path().join("enum.json");
    std::fs::write(&file, format!("[\n{small},\n{huge}\n]\n")).unwrap();
    let out_dir = tmp.path().join("out");
    let out = run(&["import", "tools", s(&file), "--out", s(&out_dir)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("the tools' parameter schemas hold more than 250000 values in all"), "{err}");
    assert!(err.contains("enum.json:3:1"), "located at the tool that crosses the cap: {err}");
    assert!(!out_dir.exists(), "nothing written");
}

#[test]
fn the_imported_project_checks_clean() {
    let tmp = tempfile::tempdir().unwrap();
    let (out, _) = import(tmp.path(), &repo().join("fixtures/import/native/openai.json"), &[]);
    let o = run(&["-C", s(&out), "check"]);
    let text = String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "an imported project checks clean:\n{text}");
}

/// The hand-written native definitions of `fixtures/good/native-faithful` import and render
/// back byte for byte, in every provider's form.
#[test]
fn the_hand_written_native_fixture_round_trips_through_import() {
    let native = common::repo().join("fixtures/good/native-faithful/native");
    for provider in ["openai", "openai-responses", "anthropic", "gemini"] {
        let out = tempfile::tempdir().unwrap();
        let dir = out.path().join("imported");
        let file = native.join(format!("{provider}.json"));
        let o = common::promptc(&["import", "tools", file.to_str().unwrap(), "--out", dir.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{provider}: {}", String::from_utf8_lossy(&o.stderr));
        let rendered = common::promptc_in(&dir, &["render", "--tools", "--provider", provider]);
        assert_eq!(rendered.status.code(), Some(0), "{provider}: {}", String::from_utf8_lossy(&rendered.stderr));
        assert_eq!(
            String::from_utf8(rendered.stdout).unwrap(),
            std::fs::read_to_string(&file).unwrap(),
            "{provider}: import → render differs from the hand-written file"
        );
    }
}

#[test]
fn an_input_over_64_mib_is_refused_unread_and_nothing_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    // 100 MB: a list of one tool padded with whitespace (valid JSON, were it read).
    let file = tmp.path().join("huge.json");
    let mut text =
        String::from("[{\"name\": \"a\", \"description\": \"A.\", \"input_schema\": {\"type\": \"object\"}}");
    text.push_str(&" ".repeat(100_000_000));
    text.push(']');
    std::fs::write(&file, text).unwrap();
    let out = tmp.path().join("out");
    let r = run(&["import", "tools", s(&file), "--out", s(&out)]);
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is larger than 64 MiB"), "{stderr}");
    assert!(stderr.contains("huge.json"), "the file is named: {stderr}");
    assert!(!out.exists(), "nothing written");
}

#[test]
fn numbers_keep_their_value_byte_for_byte() {
    // A decimal with 17 significant digits is where a fast float parser lands one step off
    // (0.21951219512195122, 9/41, came back as 0.2195121951219512: another number). The
    // numbers are written by the serializer (shortest round-trip form), so the text alone
    // shows whether each value came back.
    let mut numbers: Vec<f64> = (1..41).map(|k| f64::from(k) / 41.0).collect();
    numbers.extend((1..30).map(|k| f64::from(k) / 7.0 * 1e-3));
    numbers.extend([0.1 + 0.2, 1.0 / 3.0, f64::MAX, f64::MIN_POSITIVE, 5e-324, -2.5e-300, 1e23, 123456.789]);
    let tool = serde_json::json!([{
        "name": "numbers",
        "description": "numbers",
        "input_schema": {
            "type": "object",
            "properties": {
                "x": {"type": "number", "enum": numbers, "default": 9.0 / 41.0, "minimum": -1e300},
                "n": {"type": "integer", "enum": [9007199254740993u64, u64::MAX, i64::MIN]}
            }
        }
    }]);
    let text = format!("{}\n", serde_json::to_string_pretty(&tool).unwrap());
    assert!(text.contains("0.21951219512195122"), "{text}");
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("numbers.json");
    std::fs::write(&file, &text).unwrap();
    let (out, _) = import(tmp.path(), &file, &[]);
    assert_eq!(tools_of(&out, None), text);
}

#[test]
fn every_kind_of_json_schema_keyword_renders_back_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    for file in ["schema/any-of.json", "schema/additional-properties-schema.json"] {
        let path = repo().join("fixtures/import").join(file);
        let (out, _) = import(tmp.path(), &path, &[]);
        let written = std::fs::read_to_string(&path).unwrap();
        let source: serde_json::Value = serde_json::from_str(&written).unwrap();
        // A request body's `tools`.
        let source = source.get("tools").cloned().unwrap_or(source);
        let back: serde_json::Value = serde_json::from_str(&tools_of(&out, None)).unwrap();
        assert_eq!(back, source, "{file}: JSON-equal");
        // Render → import → render is a fixed point.
        let again = tmp.path().join("again.json");
        std::fs::write(&again, tools_of(&out, None)).unwrap();
        let (out2, _) = import(tmp.path(), &again, &[]);
        assert_eq!(tools_of(&out2, None), tools_of(&out, None), "{file}: a fixed point");
    }
}

#[test]
fn every_good_fixture_and_the_example_round_trip_through_import() {
    // render → import → render gives the same bytes, for every provider each project enables
    // (its default cell; a project whose default cell sends no tools has nothing to import).
    let tmp = tempfile::tempdir().unwrap();
    let mut projects: Vec<std::path::PathBuf> = std::fs::read_dir(repo().join("fixtures/good"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("promptc.yaml").is_file())
        .collect();
    projects.sort();
    projects.push(repo().join("profiles"));
    let mut checked = 0;
    for project in &projects {
        for p in PROVIDERS {
            let out = run(&["-C", s(project), "render", "--tools", "--transport", "native", "--provider", p]);
            if out.status.code() != Some(0) {
                continue; // the provider is not enabled there
            }
            let first = String::from_utf8(out.stdout).unwrap();
            let entries: serde_json::Value = serde_json::from_str(&first).unwrap();
            if entries.as_array().is_none_or(|a| a.is_empty()) {
                continue;
            }
            let file = tmp.path().join(format!("{}-{p}.json", checked));
            std::fs::write(&file, &first).unwrap();
            let (imported, _) = import(tmp.path(), &file, &[]);
            assert_eq!(tools_of(&imported, Some(p)), first, "{} for {p}", project.display());
            checked += 1;
        }
    }
    assert!(checked >= 40, "{checked} project × provider pairs");
}

#[test]
fn fields_for_a_provider_the_project_drops_are_said_as_a_note() {
    let tmp = tempfile::tempdir().unwrap();
    // A real server's tools (annotations on each): fixtures/import/corpus/SOURCES.json.
    let file = repo().join("fixtures/import/corpus/mongodb-mcp-server/mcp-tools.json");
    let (out, _) = import(tmp.path(), &file, &[]);
    let manifest = out.join("promptc.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    assert!(text.contains("providers: [mcp, "), "{text}");
    // The team keeps the model APIs only: the MCP fields are carried, sent to no one.
    let text = text.replace("providers: [mcp, ", "providers: [").replace("provider: mcp", "provider: anthropic");
    std::fs::write(&manifest, text).unwrap();
    let r = run(&["-C", s(&out), "check", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    let notes: Vec<&serde_json::Value> =
        report["diagnostics"].as_array().unwrap().iter().filter(|d| d["severity"] == "note").collect();
    assert_eq!(notes.len(), 1, "{report:#}");
    assert!(notes[0]["message"].as_str().unwrap().contains("carr"), "{report:#}");
    assert!(notes[0]["message"].as_str().unwrap().contains("`provider_fields` for mcp"), "{report:#}");
    assert_eq!(
        report["warnings"],
        report["diagnostics"].as_array().unwrap().iter().filter(|d| d["severity"] == "warning").count()
    );
}

#[test]
fn the_deepest_schema_an_import_accepts_loads_back() {
    // Nest objects until the import refuses: the deepest one it wrote must load and render (the
    // catalog's YAML has its own depth limit, which the schema's must stay within).
    let tmp = tempfile::tempdir().unwrap();
    let mut deepest = None;
    for n in 1..40 {
        let mut node = serde_json::json!({"type": "string"});
        for _ in 0..n {
            node = serde_json::json!({"type": "object", "properties": {"p": node}});
        }
        let tools = serde_json::json!([{"name": "deep", "description": "Deep.", "input_schema": node}]);
        let file = tmp.path().join(format!("deep-{n}.json"));
        std::fs::write(&file, tools.to_string()).unwrap();
        let out = tmp.path().join(format!("out-deep-{n}"));
        let r = run(&["import", "tools", s(&file), "--out", s(&out)]);
        if r.status.code() != Some(0) {
            assert!(String::from_utf8_lossy(&r.stderr).contains("nests deeper than"));
            break;
        }
        deepest = Some(out);
    }
    let deepest = deepest.expect("some depth imports");
    assert!(tools_of(&deepest, Some("anthropic")).contains("\"deep\""));
}

#[test]
fn every_entry_renders_back_with_its_keys_in_input_order() {
    // An MCP `title` before the description, an OpenAI `"strict": false` before it, Anthropic's
    // `type: custom` first, a Gemini `behavior` first: keys promptc does not write in that place
    // itself, kept where the input had them (`provider_key_order:`).
    let tmp = tempfile::tempdir().unwrap();
    let dir = repo().join("fixtures/import/order");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    for file in &files {
        let (out, _) = import(tmp.path(), file, &[]);
        let written = std::fs::read_to_string(file).unwrap();
        assert_eq!(tools_of(&out, None), written, "{}: rendered back byte for byte", file.display());
    }
    assert_eq!(files.len(), 4, "four forms");
}

#[test]
fn a_real_mcp_server_s_tools_keep_their_key_order() {
    // The reference filesystem server's `tools/list` with `title` second, as the MCP
    // specification's examples write it (fixtures/import/corpus/SOURCES.json): compared in
    // order, key by key, at every level.
    let tmp = tempfile::tempdir().unwrap();
    let file = repo().join("fixtures/import/corpus/mcp-proxy-snapshots/server-filesystem.json");
    let (out, _) = import(tmp.path(), &file, &[]);
    let input: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let back: serde_json::Value = serde_json::from_str(&tools_of(&out, None)).unwrap();
    let (input, back) =
        (serde_json::to_string(&input["tools"]).unwrap(), serde_json::to_string(&back["tools"]).unwrap());
    assert!(input.contains(r#"{"name":"read_file","title":"#), "the input has a title second: {input:.200}");
    assert_eq!(back, input, "every key where the input had it");
}

#[test]
fn a_number_spelt_otherwise_comes_back_with_its_value() {
    // `1.50`, `1e2`, `2.5E-1`, `-0` and integers at the edges of 64 bits: each held exactly, so
    // the rendered JSON says the same numbers (in serde_json's spelling).
    let tmp = tempfile::tempdir().unwrap();
    let file = repo().join("fixtures/import/numbers/spelt-otherwise.json");
    let (out, _) = import(tmp.path(), &file, &[]);
    let back = tools_of(&out, None);
    let props = |text: &str| -> serde_json::Value {
        serde_json::from_str::<serde_json::Value>(text).unwrap()[0]["input_schema"]["properties"].clone()
    };
    let (written, back) = (props(&std::fs::read_to_string(&file).unwrap()), props(&back));
    assert_eq!(back["depth"]["minimum"].as_f64(), Some(1.5));
    assert_eq!(back["depth"]["maximum"].as_f64(), Some(100.0));
    assert_eq!(back["depth"]["multipleOf"].as_f64(), Some(0.25));
    assert_eq!(back["seed"]["maximum"].as_u64(), Some(u64::MAX), "{back}");
    assert_eq!(back["seed"]["enum"], written["seed"]["enum"], "i64::MIN and 2^53 + 1 exactly");
}

#[test]
fn numbers_no_double_or_64_bit_integer_holds_are_refused_where_written() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("big.json");
    let text = r#"[{"name": "big", "description": "Big.", "input_schema": {"type": "object", "properties": {
  "n": {"type": "integer", "maximum": 123456789012345678901234567890, "minimum": -98765432109876543210},
  "x": {"type": "number", "default": 1.000000000000000000000000001, "minimum": 0.1}}}}]
"#;
    std::fs::write(&file, text).unwrap();
    let out = run(&["import", "tools", s(&file), "--out", s(&tmp.path().join("out"))]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    for (number, at, back) in [
        ("123456789012345678901234567890", "big.json:2:39", "1.2345678901234568e+29"),
        ("-98765432109876543210", "big.json:2:82", "-9.876543210987654e+19"),
        ("1.000000000000000000000000001", "big.json:3:38", "`1.0`"),
    ] {
        assert!(stderr.contains(&format!("the number `{number}` cannot be carried exactly")), "{number}: {stderr}");
        assert!(stderr.contains(at), "{number} located at {at}: {stderr}");
        assert!(stderr.contains(back), "says what would be sent: {stderr}");
    }
    assert_eq!(stderr.matches("error:").count(), 3, "0.1 is held exactly: {stderr}");
    assert!(!tmp.path().join("out").exists(), "nothing written");
}

#[test]
fn skip_invalid_keeps_every_function_beside_a_provider_s_own_tools_and_says_where_each_is() {
    // (file, the functions kept, the provider tools left out, the API named in the message)
    let cases: [(&str, &[&str], usize, &str); 3] = [
        ("responses-web-search.json", &["shell", "update_plan"], 2, "OpenAI Responses"),
        ("anthropic-server-tool.json", &["get_weather"], 1, "Anthropic"),
        ("chat-custom-tool.json", &["list_files"], 1, "OpenAI Chat Completions"),
    ];
    for (file, kept, left_out, api) in cases {
        let tmp = tempfile::tempdir().unwrap();
        let input = repo().join("fixtures/import/provider-tools").join(file);
        let out = tmp.path().join("out");
        let refused = run(&["import", "tools", s(&input), "--out", s(&out)]);
        assert_eq!(refused.status.code(), Some(2), "{file}: refused whole without --skip-invalid");
        assert!(!out.exists(), "{file}: nothing written when refused");
        let r = run(&["import", "tools", s(&input), "--out", s(&out), "--skip-invalid"]);
        let err = String::from_utf8_lossy(&r.stderr);
        for name in kept {
            assert!(out.join(format!("tool.{name}.yaml")).is_file(), "{file}: `{name}` must be imported:\n{err}");
        }
        assert_eq!(err.matches("configured by the provider").count(), left_out, "{file}:\n{err}");
        assert!(err.contains(&format!("tool of {api},")), "{file} must name {api}:\n{err}");
        assert!(err.contains(" --> "), "{file}: each left-out tool is located:\n{err}");
        // The functions render back as the input wrote them.
        let input: serde_json::Value = serde_json::from_slice(&std::fs::read(&input).unwrap()).unwrap();
        let list = input.get("tools").unwrap_or(&input).as_array().unwrap();
        let functions: Vec<&serde_json::Value> = list.iter().filter(|e| kept.iter().any(|k| mentions(e, k))).collect();
        let rendered: serde_json::Value = serde_json::from_str(&tools_of(&out, None)).unwrap();
        assert_eq!(rendered.as_array().unwrap().iter().collect::<Vec<_>>(), functions, "{file}");
    }
}

/// Whether tool entry `e` (any form) is named `name`.
fn mentions(e: &serde_json::Value, name: &str) -> bool {
    e.get("name").or_else(|| e.get("function").and_then(|f| f.get("name"))) == Some(&serde_json::json!(name))
}

#[test]
fn each_entry_of_a_list_mixing_forms_is_read_in_its_own_form() {
    let tmp = tempfile::tempdir().unwrap();
    let (out, _) = import(tmp.path(), &repo().join("fixtures/import/provider-tools/mixed-forms.json"), &[]);
    let mcp_tool = std::fs::read_to_string(out.join("tool.read_resource.yaml")).unwrap();
    assert!(mcp_tool.contains("  provider_fields:\n    mcp:\n      annotations:\n"), "{mcp_tool}");
    let manifest = std::fs::read_to_string(out.join("promptc.yaml")).unwrap();
    assert!(manifest.contains("providers: [openai, mcp, "), "the MCP entry's provider is enabled:\n{manifest}");
    let mcp: serde_json::Value = serde_json::from_str(&tools_of(&out, Some("mcp"))).unwrap();
    assert_eq!(mcp["tools"][1]["annotations"], serde_json::json!({"readOnlyHint": true}), "{mcp:#}");
}

#[test]
fn a_function_without_parameters_renders_back_without_them_where_the_provider_allows_it() {
    let tmp = tempfile::tempdir().unwrap();
    let file = repo().join("fixtures/import/forms/chat-no-parameters.json");
    let (out, _) = import(tmp.path(), &file, &[]);
    let input: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let chat: serde_json::Value = serde_json::from_str(&tools_of(&out, None)).unwrap();
    assert_eq!(chat, input, "Chat Completions gets the functions as written, the first without `parameters`");
    let gemini: serde_json::Value = serde_json::from_str(&tools_of(&out, Some("gemini"))).unwrap();
    assert!(gemini[0]["functionDeclarations"][0].get("parameters").is_none(), "{gemini:#}");
    // Anthropic requires `input_schema`: an empty object schema.
    let anthropic: serde_json::Value = serde_json::from_str(&tools_of(&out, Some("anthropic"))).unwrap();
    assert_eq!(anthropic[0]["input_schema"], serde_json::json!({"type": "object", "properties": {}}));
}

#[test]
fn an_mcp_server_s_dotted_names_and_null_descriptions_import_and_check_says_who_refuses_them() {
    let tmp = tempfile::tempdir().unwrap();
    let file = repo().join("fixtures/import/forms/mcp-dotted-names.json");
    let (out, _) = import(tmp.path(), &file, &[]);
    let input: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let mcp: serde_json::Value = serde_json::from_str(&tools_of(&out, None)).unwrap();
    assert_eq!(mcp, input, "the MCP tools come back JSON-equal: the dot, the null and the empty description");
    let r = run(&["-C", s(&out), "check", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    let codes: Vec<&str> =
        report["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert!(codes.contains(&"P002"), "OpenAI and Anthropic refuse the dot: {report:#}");
    assert_eq!(codes.iter().filter(|c| **c == "P013").count(), 2, "both tools are undescribed: {report:#}");
    let p002 = report["diagnostics"].as_array().unwrap().iter().find(|d| d["code"] == "P002").unwrap();
    assert!(p002["message"].as_str().unwrap().contains("`sites.get_project`"), "{p002:#}");
}

#[test]
fn check_says_what_anthropic_and_openai_strict_mode_refuse_in_a_carried_schema() {
    let tmp = tempfile::tempdir().unwrap();
    let file = repo().join("fixtures/import/forms/schemas-providers-refuse.json");
    let (out, _) = import(tmp.path(), &file, &["--providers", "anthropic,openai", "--strict-tools", "true"]);
    let r = run(&["-C", s(&out), "check", "--format", "json"]);
    assert_eq!(r.status.code(), Some(1), "P002 is an error");
    let report: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    let p002 = report["diagnostics"].as_array().unwrap().iter().find(|d| d["code"] == "P002").expect("a P002");
    let notes = p002["notes"].to_string();
    for expected in [
        "anthropic: `point`: `items` is a list (JSON Schema 2020-12: `prefixItems`)",
        "anthropic: `speed`: `exclusiveMinimum` is a boolean",
        "openai (strict): `frame.anyOf[0]`: `$ref` beside description",
    ] {
        assert!(notes.contains(expected), "{expected}: {p002:#}");
    }
}
