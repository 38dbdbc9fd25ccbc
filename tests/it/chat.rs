//! `--transport chat`: a cell through a real chat template, what it is given, and every way the
//! flags, the template and the tokenizer file can be wrong (exit 2, located, never a panic).
//! Byte-identity with transformers itself is `conformance/test_chat_templates.py`.

use crate::common::*;

const QWEN: &str = "fixtures/chat-templates/Qwen-Qwen2.5-7B-Instruct.jinja";
const LLAMA: &str = "fixtures/chat-templates/meta-llama-Llama-3.1-8B-Instruct.jinja";

fn chat(extra: &[&str]) -> std::process::Output {
    let mut args = vec!["render", "--transport", "chat", "--nonce", "c0ffee", "--chat-template-date", "2024-07-26"];
    args.extend_from_slice(extra);
    promptc(&args)
}

/// How many tools the default cell sends.
fn tool_count() -> usize {
    let tools: serde_json::Value = serde_json::from_str(&ok(&["render", "--tools", "--provider", "openai"])).unwrap();
    tools.as_array().unwrap().len()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn write(dir: &std::path::Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

#[test]
fn the_template_is_given_the_prompt_and_the_openai_tools() {
    let out = chat(&["--chat-template", QWEN, "--profile", "lite"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let prompt = ok(&["render", "--profile", "lite", "--nonce", "c0ffee"]);
    let tools: serde_json::Value =
        serde_json::from_str(&ok(&["render", "--profile", "lite", "--tools", "--provider", "openai"])).unwrap();
    // The system message is the prompt without its final newline, then the template's tools block.
    let expected_start = format!("<|im_start|>system\n{}\n\n# Tools", prompt.strip_suffix('\n').unwrap());
    assert!(text.starts_with(&expected_start), "{}", &text[..200]);
    // Each tool as transformers' tojson writes it: json.dumps with ", " and ": ", keys in order.
    for tool in tools.as_array().unwrap() {
        let name = tool["function"]["name"].as_str().unwrap();
        assert!(text.contains(&format!("{{\"type\": \"function\", \"function\": {{\"name\": \"{name}\"")), "{name}");
    }
    // No newline added after the generation prompt: the bytes are the template's.
    assert!(text.ends_with("<|im_start|>assistant\n"), "{:?}", &text[text.len() - 40..]);
    // Same input, same bytes.
    assert_eq!(chat(&["--chat-template", QWEN, "--profile", "lite"]).stdout, text.as_bytes());
}

#[test]
fn a_project_without_the_openai_provider_renders_chat_cells_with_openai_tools() {
    // harness-messages enables only anthropic; the template is still given OpenAI's form.
    let project = "fixtures/good/harness-messages";
    let out = promptc(&["-C", project, "render", "--chat-template", QWEN, "--chat-template-date", "2024-07-26"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let tools = ok(&["-C", project, "render", "--chat-template", QWEN, "--tools"]);
    let v: serde_json::Value = serde_json::from_str(&tools).unwrap();
    assert!(v.as_array().unwrap().iter().all(|t| t["type"] == "function" && t["function"]["name"].is_string()), "{v}");
    let text = String::from_utf8(out.stdout).unwrap();
    for t in v.as_array().unwrap() {
        assert!(text.contains(&format!("\"name\": {}", t["function"]["name"])), "{}", t["function"]["name"]);
    }
}

#[test]
fn the_date_is_todays_unless_fixed_and_json_records_it() {
    let json = |extra: &[&str]| -> serde_json::Value {
        let mut args =
            vec!["render", "--chat-template", "fixtures/chat-templates/openai-gpt-oss-120b.jinja", "--format", "json"];
        args.extend_from_slice(extra);
        serde_json::from_str(&ok(&args)).unwrap()
    };
    let fixed = json(&["--chat-template-date", "2024-07-26"]);
    assert_eq!(fixed["date"], "2024-07-26");
    assert_eq!(fixed["date_fixed"], true);
    assert!(fixed["text"].as_str().unwrap().contains("Current date: 2024-07-26"));
    let today = json(&[]);
    assert_eq!(today["date_fixed"], false);
    let date = today["date"].as_str().unwrap().to_string();
    assert!(today["text"].as_str().unwrap().contains(&format!("Current date: {date}")));
    assert!(date.as_str() >= "2026-01-01", "{date}");
    // The parts are located in the text.
    let text = fixed["text"].as_str().unwrap();
    let parts = fixed["parts"].as_array().unwrap();
    assert!(!parts.is_empty());
    let role = &parts[0];
    assert_eq!(role["id"], "role");
    assert!(text[role["start"].as_u64().unwrap() as usize..].starts_with("You are Forge"));
}

#[test]
fn a_template_that_raises_is_exit_2_with_its_message_located() {
    // Llama 3.1 puts tools in the first user message; the example has none.
    let out = chat(&["--chat-template", LLAMA]);
    assert_eq!(out.status.code(), Some(2));
    let e = stderr(&out);
    assert!(e.contains("the chat template raised an error: Cannot put tools in the first user message"), "{e}");
    assert!(e.contains("meta-llama-Llama-3.1-8B-Instruct.jinja:52:"), "{e}");
    // Told not to, it renders (a typed variable).
    let out = chat(&["--chat-template", LLAMA, "--chat-template-var", "tools_in_user_message:=false"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(String::from_utf8(out.stdout).unwrap().contains("Environment: ipython"));
}

#[test]
fn variables_and_named_templates_of_a_tokenizer_config() {
    let dir = tempfile::tempdir().unwrap();
    let config = serde_json::json!({
        "bos_token": {"content": "<s>", "lstrip": false},
        "eos_token": "</s>",
        "chat_template": [
            {"name": "default", "template": "{{ bos_token }}default{{ eos_token }}"},
            {"name": "tool_use", "template": "{{ bos_token }}tools:{{ tools | length }}{{ greeting }}"}
        ]
    });
    let path = write(dir.path(), "tokenizer_config.json", &config.to_string());
    // Tools in the cell: transformers picks `tool_use`; the config's special tokens are variables.
    let out = chat(&["--chat-template", &path, "--chat-template-var", "greeting=!"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), format!("<s>tools:{}!", tool_count()), "{}", stderr(&out));
    let out =
        chat(&["--chat-template", &path, "--chat-template-name", "default", "--chat-template-var", "eos_token=|"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "<s>default|", "{}", stderr(&out));
    let out = chat(&["--chat-template", &path, "--chat-template-name", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("has no chat template named `nope`") && stderr(&out).contains("`tool_use`"));
}

#[test]
fn every_mistake_is_exit_2_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let endless = write(
        dir.path(),
        "endless.jinja",
        "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
    );
    let recursive = write(dir.path(), "rec.jinja", "{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}");
    let huge = write(dir.path(), "huge.jinja", "{% for i in range(100000) %}{{ messages[0].content }}{% endfor %}");
    let syntax = write(dir.path(), "syntax.jinja", "line one\n{% if messages %}never closed\n");
    // Doubling a string in a loop fills memory long before fuel runs out: refused before it runs.
    let doubling = write(
        dir.path(),
        "doubling.jinja",
        "{% set ns = namespace(s='x') %}{% for i in range(60) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}",
    );
    let not_json = write(dir.path(), "tokenizer_config.json", "{\"chat_template\": [1, }");
    let no_template = write(dir.path(), "other.json", "{\"bos_token\": \"<s>\"}");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec![], "no chat template for profile `standard`"),
        (vec!["--chat-template", "missing.jinja"], "cannot read the chat template missing.jinja"),
        (vec!["--chat-template", "fixtures"], "not a regular file"),
        (vec!["--chat-template", &endless], "ran too long"),
        (vec!["--chat-template", &recursive], "recursion limit exceeded"),
        (vec!["--chat-template", &huge], "renders more than"),
        (vec!["--chat-template", &syntax], "syntax.jinja:"),
        (vec!["--chat-template", &doubling], "chat template refused: `ns.s` is built from itself"),
        (vec!["--chat-template", &not_json], "is not valid JSON"),
        (vec!["--chat-template", &no_template], "has no usable `chat_template`: the key is missing"),
        (
            vec!["--chat-template", QWEN, "--provider", "anthropic"],
            "--provider anthropic has no effect with --transport chat",
        ),
        (vec!["--chat-template", QWEN, "--chat-template-var", "novalue"], "invalid --chat-template-var `novalue`"),
        (vec!["--chat-template", QWEN, "--chat-template-var", "x:={"], "not JSON"),
        (vec!["--chat-template", QWEN, "--chat-template-date", "2024-02-30"], "invalid --chat-template-date"),
        (vec!["--chat-template", QWEN, "--out", "somewhere"], "--out does not write chat cells"),
    ];
    for (args, message) in cases {
        let mut all = vec!["render", "--transport", "chat"];
        all.extend_from_slice(&args);
        let out = promptc(&all);
        assert_eq!(out.status.code(), Some(2), "{all:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(message), "{all:?}: expected {message:?} in\n{}", stderr(&out));
        assert!(!stderr(&out).contains("panicked"), "{all:?}");
    }
    let out = promptc(&["render", "--transport", "xml", "--chat-template", QWEN]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--chat-template has no effect with --transport xml"));
    for stray in [["--chat-template-date", "2024-07-26"], ["--chat-template-var", "x=1"]] {
        let out = promptc(&["render", stray[0], stray[1]]);
        assert_eq!(out.status.code(), Some(2));
        assert!(
            stderr(&out).contains(&format!("{} has no effect without --transport chat", stray[0])),
            "{}",
            stderr(&out)
        );
    }
    let out = promptc(&["check", "--transport", "chat"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let out = promptc(&["report", "--tokenizer-file", "x.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--tokenizer-file counts chat cells"));
}

#[test]
fn a_bad_tokenizer_file_is_exit_2_never_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [
        ("empty.json", ""),
        ("garbage.json", "not json at all"),
        ("wrong.json", "{\"model\": {\"type\": \"BPE\", \"vocab\": 3}}"),
        ("deep.json", &"[".repeat(100_000)),
    ] {
        let path = write(dir.path(), name, text);
        let out = promptc(&["report", "--chat-template", QWEN, "--tokenizer-file", &path]);
        assert_eq!(out.status.code(), Some(2), "{name}: {}", stderr(&out));
        assert!(stderr(&out).contains("cannot use the tokenizer file"), "{name}: {}", stderr(&out));
    }
}

#[test]
fn a_template_that_differs_from_jinja2_says_where() {
    // `tools | map(attribute='function') | tojson`: a generator in Jinja2, which the server's
    // json.dumps refuses; promptc writes the list, and says so at the line.
    let out = chat(&["--chat-template", "fixtures/chat-templates/llama-cpp-deepseek-r1.jinja"]);
    assert_eq!(out.status.code(), Some(0));
    let e = stderr(&out);
    assert!(e.contains("warning: a filtered sequence given to `tojson`") && e.contains("deepseek-r1.jinja:12:"), "{e}");
}

#[test]
fn markup_joined_with_text_is_escaped_as_jinja2_does() {
    // Functionary v3.1 joins `"…"|safe + description + … + tool | tojson`: Jinja2's Markup
    // HTML-escapes every plain operand (conformance checks the bytes against transformers).
    let out = chat(&["--chat-template", "fixtures/chat-templates/meetkai-functionary-medium-v3.1.jinja"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).contains("warning"), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("{&#34;name&#34;: &#34;read_file&#34;"), "{}", &text[..400]);
}

#[test]
fn report_rows_add_up_to_the_total() {
    let doc: serde_json::Value = serde_json::from_str(&ok(&[
        "report",
        "--chat-template",
        QWEN,
        "--chat-template-date",
        "2024-07-26",
        "--format",
        "json",
        "--no-cache",
    ]))
    .unwrap();
    assert_eq!(doc["transport"], "chat");
    assert_eq!(doc["tokenizer"]["model_own"], false);
    let rows = doc["rows"].as_array().unwrap();
    let sum: i64 = rows.iter().map(|r| r["tokens"].as_i64().unwrap()).sum();
    assert_eq!(sum, doc["total"]["tokens"].as_i64().unwrap());
    let bytes: i64 = rows.iter().map(|r| r["bytes"].as_i64().unwrap()).sum();
    assert_eq!(bytes, doc["total"]["bytes"].as_i64().unwrap());
    let tools = rows.iter().find(|r| r["kind"] == "tools").unwrap();
    assert_eq!(tools["count"], tool_count());
    assert!(tools["tokens"].as_i64().unwrap() > 1000);
    let template = rows.iter().find(|r| r["kind"] == "template").unwrap();
    assert!((0..200).contains(&template["tokens"].as_i64().unwrap()), "{template}");
}

const PROJECT: &str = "fixtures/good/chat-templates";

#[test]
fn a_projects_chat_templates_are_cells_of_its_snapshot_matrix() {
    // The committed snapshots are current: each chat template's text for each cell it covers.
    let out = promptc(&["-C", PROJECT, "diff"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(repo().join(PROJECT).join("snapshots/summary.json")).unwrap())
            .unwrap();
    let chat: Vec<String> = summary["cells"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| {
            c["chat"].as_object().into_iter().flat_map(|m| m.values()).map(|f| f["name"].as_str().unwrap().to_string())
        })
        .collect();
    // qwen covers both profiles × both cases; llama only `standard`.
    assert_eq!(
        chat,
        [
            "standard.native.chat-llama.txt",
            "standard.native.chat-qwen.txt",
            "standard.failing.native.chat-llama.txt",
            "standard.failing.native.chat-qwen.txt",
            "bare.native.chat-qwen.txt",
            "bare.failing.native.chat-qwen.txt"
        ]
        .map(String::from)
    );
    // An edit to a template is drift in exactly the files of its cells, and `snapshot` takes it.
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo().join(PROJECT), dir.path());
    let tpl = dir.path().join("chat/qwen2.5.jinja");
    let text = std::fs::read_to_string(&tpl).unwrap().replace("<|im_start|>assistant", "<|im_start|>model");
    std::fs::write(&tpl, text).unwrap();
    let out = promptc_in(dir.path(), &["diff", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut changed: Vec<&str> = doc["files"].as_array().unwrap().iter().map(|f| f["file"].as_str().unwrap()).collect();
    changed.sort();
    assert_eq!(
        changed,
        [
            "bare.failing.native.chat-qwen.txt",
            "bare.native.chat-qwen.txt",
            "standard.failing.native.chat-qwen.txt",
            "standard.native.chat-qwen.txt",
            "summary.json"
        ]
    );
    assert_eq!(promptc_in(dir.path(), &["snapshot"]).status.code(), Some(0));
    assert_eq!(promptc_in(dir.path(), &["diff"]).status.code(), Some(0));
    let snap = std::fs::read_to_string(dir.path().join("snapshots/bare.native.chat-qwen.txt")).unwrap();
    assert!(snap.ends_with("<|im_start|>model\n"), "{snap}");
}

#[test]
fn render_chat_takes_the_projects_template_for_the_profile_or_the_model() {
    let render = |args: &[&str]| {
        let mut all = vec!["-C", PROJECT, "render", "--transport", "chat"];
        all.extend_from_slice(args);
        let out = promptc(&all);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        String::from_utf8(out.stdout).unwrap()
    };
    let snapshot = |name: &str| std::fs::read_to_string(repo().join(PROJECT).join("snapshots").join(name)).unwrap();
    // The first entry covering the profile: qwen (llama covers only `standard`, and comes second).
    assert_eq!(render(&["--profile", "bare"]), snapshot("bare.native.chat-qwen.txt"));
    assert_eq!(render(&[]), snapshot("standard.native.chat-qwen.txt"));
    // A model its `models:` patterns match picks it, with its variables and date.
    assert_eq!(render(&["--model", "meta/Llama-3.1-8B-Instruct"]), snapshot("standard.native.chat-llama.txt"));
    // The command line's variables and date go over the entry's: Llama 3.1 (`tool_use`) takes
    // its date as a variable; for a cell without tools the config's `default`, Llama 3.2, asks
    // `strftime_now`.
    let over = render(&["--model", "llama-3.1-8b", "--chat-template-var", "date_string=02 Jan 2025"]);
    assert!(over.contains("Today Date: 02 Jan 2025"), "{over}");
    let bare = render(&["--profile", "bare", "--model", "llama-3.1-8b", "--chat-template-date", "2025-01-02"]);
    assert!(bare.contains("Today Date: 02 Jan 2025") && !bare.contains("Environment: ipython"), "{bare}");
    let bare = render(&["--profile", "bare", "--model", "llama-3.1-8b"]);
    assert!(bare.contains("Today Date: 26 Jul 2024"), "{bare}");
}

#[test]
fn a_chat_template_that_reads_todays_date_without_one_set_is_warned() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo().join(PROJECT), dir.path());
    let m = dir.path().join("promptc.yaml");
    let text = std::fs::read_to_string(&m).unwrap().replace("    date: \"2024-07-26\"\n", "");
    std::fs::write(&m, text).unwrap();
    // `check` prints its findings, the loader's warnings among them, on stdout.
    let out = promptc_in(dir.path(), &["check"]);
    let e = String::from_utf8_lossy(&out.stdout).into_owned() + &stderr(&out);
    assert!(e.contains("warning: chat template `llama` reads today's date and none is set"), "{e}");
    assert!(e.contains("promptc.yaml:"), "{e}");
}

#[test]
fn a_chat_cell_is_counted_with_its_entrys_tokenizer() {
    let doc: serde_json::Value = serde_json::from_str(&ok(&[
        "-C",
        PROJECT,
        "report",
        "--transport",
        "chat",
        "--profile",
        "bare",
        "--format",
        "json",
        "--no-cache",
    ]))
    .unwrap();
    assert_eq!(doc["tokenizer"]["model_own"], true);
    assert!(doc["tokenizer"]["name"].as_str().unwrap().ends_with("chat/tokenizer.json"));
    // A tokenizer the entry names that cannot be read is an error at the entry.
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo().join(PROJECT), dir.path());
    std::fs::write(dir.path().join("chat/tokenizer.json"), "{\"not\": \"a tokenizer\"}").unwrap();
    let out = promptc_in(dir.path(), &["report", "--transport", "chat", "--profile", "bare"]);
    assert_eq!(out.status.code(), Some(2));
    let e = stderr(&out);
    assert!(e.contains("cannot use the tokenizer file") && e.contains("promptc.yaml:"), "{e}");
    std::fs::remove_file(dir.path().join("chat/tokenizer.json")).unwrap();
    let out = promptc_in(dir.path(), &["report", "--transport", "chat", "--profile", "bare"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("tokenizer.json"), "{}", stderr(&out));
}

#[test]
fn a_frozen_record_holds_the_chat_texts_and_verify_names_a_changed_one() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo().join(PROJECT), dir.path());
    let rec = dir.path().join("frozen.json");
    let rec_s = rec.to_str().unwrap();
    let out = promptc_in(dir.path(), &["freeze", "--out", rec_s]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&rec).unwrap()).unwrap();
    let snapshot = std::fs::read_to_string(dir.path().join("snapshots/standard.native.chat-llama.txt")).unwrap();
    assert_eq!(doc["chat"]["llama"]["text"], snapshot.as_str());
    assert_eq!(doc["chat"]["llama"]["date"], "2024-07-26", "the entry's date, recorded");
    assert!(doc["chat"]["qwen"]["text"].as_str().unwrap().starts_with("<|im_start|>system"));
    assert_eq!(promptc_in(dir.path(), &["verify", rec_s]).status.code(), Some(0));
    // Only the chat template changes: the record is stale, and verify says which text.
    let tpl = dir.path().join("chat/qwen2.5.jinja");
    std::fs::write(&tpl, std::fs::read_to_string(&tpl).unwrap().replace("# Tools", "# Functions")).unwrap();
    let out = promptc_in(dir.path(), &["verify", rec_s]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let all = String::from_utf8_lossy(&out.stdout).into_owned() + &stderr(&out);
    assert!(all.contains("text through chat template changed: qwen"), "{all}");
    let out = promptc_in(dir.path(), &["verify", rec_s, "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["reasons"].as_array().unwrap().iter().any(|r| r["kind"] == "chat" && r["template"] == "qwen"), "{v}");
}

#[test]
fn chat_texts_count_toward_the_runs_size_cap() {
    // The fixture's prompts and messages are under 1 KB, its chat texts about 4.7 KB: a cap of
    // 4,000 bytes passes the prompts alone and stops at the chat texts, for snapshot and diff.
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo().join(PROJECT), dir.path());
    let m = dir.path().join("promptc.yaml");
    let text = std::fs::read_to_string(&m).unwrap() + "\nlimits:\n  matrix_bytes: 4000\n";
    std::fs::write(&m, text).unwrap();
    for cmd in ["diff", "snapshot"] {
        let out = promptc_in(dir.path(), &[cmd]);
        assert_eq!(out.status.code(), Some(2), "{cmd}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("prompts, messages, tools JSON and chat texts add up to more than 4000 bytes"),
            "{}",
            stderr(&out)
        );
    }
    assert_eq!(promptc_in(dir.path(), &["render", "--profile", "bare"]).status.code(), Some(0));
}

#[test]
fn a_project_template_that_differs_from_jinja2_is_warned_at_load() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo().join(PROJECT), dir.path());
    std::fs::copy(repo().join("fixtures/chat-templates/llama-cpp-deepseek-r1.jinja"), dir.path().join("chat/r1.jinja"))
        .unwrap();
    let m = dir.path().join("promptc.yaml");
    let text = std::fs::read_to_string(&m)
        .unwrap()
        .replace("chat_templates:\n", "chat_templates:\n  r1:\n    file: chat/r1.jinja\n    profiles: [bare]\n");
    std::fs::write(&m, text).unwrap();
    // Every command that loads the project says it, snapshot included (not only render).
    let out = promptc_in(dir.path(), &["snapshot"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let all = String::from_utf8_lossy(&out.stdout).into_owned() + &stderr(&out);
    assert!(all.contains("warning: a filtered sequence given to `tojson`") && all.contains("r1.jinja:12:"), "{all}");
}

/// Every chat template we hold (fixtures/chat-templates: real templates, sources in
/// SOURCES.json) over cells of the example and of the harness-messages fixture: the rows are a
/// partition of the text — they add up to the total in tokens and bytes, none negative (they
/// are unsigned, and the sum would not hold if one were clipped) — and the cacheable prefix
/// never exceeds it. A template that fails on a cell fails its render too (it is not counted).
#[test]
fn the_rows_of_every_chat_cell_through_every_template_partition_its_text() {
    let dir = repo().join("fixtures/chat-templates");
    let mut templates: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jinja"))
        .collect();
    templates.sort();
    let (mut counted, mut failed) = (0, 0);
    for t in &templates {
        for (project, profile) in
            [("profiles", "standard"), ("profiles", "lite"), ("fixtures/good/harness-messages", "standard")]
        {
            let args = [
                "-C",
                project,
                "report",
                "--profile",
                profile,
                "--chat-template",
                t.to_str().unwrap(),
                "--format",
                "json",
            ];
            let out = promptc_in(&repo(), &[&args[..], &["--chat-template-date", "2024-07-26", "--no-cache"]].concat());
            if out.status.code() == Some(2) {
                // Then rendering it fails the same way.
                let render = promptc_in(
                    &repo(),
                    &[&args[..2], &["render", "--profile", profile, "--chat-template"], &[args[6]]].concat(),
                );
                assert_eq!(render.status.code(), Some(2), "{}: {}", t.display(), stderr(&out));
                failed += 1;
                continue;
            }
            assert_eq!(out.status.code(), Some(0), "{} {project}: {}", t.display(), stderr(&out));
            let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            let rows = doc["rows"].as_array().unwrap();
            let total = &doc["total"];
            for unit in ["tokens", "bytes"] {
                let sum: u64 = rows.iter().map(|r| r[unit].as_u64().unwrap()).sum();
                assert_eq!(sum, total[unit].as_u64().unwrap(), "{} {project} {profile}: {unit}\n{doc}", t.display());
            }
            let cacheable = doc["cache"]["cacheable"].as_u64().unwrap();
            assert!(cacheable <= total["tokens"].as_u64().unwrap(), "{}", t.display());
            assert_eq!(cacheable + doc["cache"]["uncached"].as_u64().unwrap(), total["tokens"].as_u64().unwrap());
            counted += 1;
        }
    }
    assert!(templates.len() >= 18 && counted >= 40, "{counted} cells counted, {failed} failed in both");
}

/// Issue 40: a template that drops the system prompt (Mistral Nemo without a user turn)
/// charged every section and printed a template row of −1,025 tokens, silently. Its sections
/// now count nothing, the text is all the template's, and a warning names the template and the
/// cell; a template that shows no tool (Mistral Small 3.2 without a user turn) says so too.
#[test]
fn a_template_that_drops_the_system_prompt_or_every_tool_is_warned_and_charged_nothing() {
    let nemo = "fixtures/chat-templates/mistralai-Mistral-Nemo-Instruct-2407.jinja";
    let out = promptc(&["report", "--chat-template", nemo, "--chat-template-date", "2024-07-26", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&format!("warning: chat template `{nemo}` drops the system prompt of cell `standard.native`")),
        "{err}"
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for r in doc["rows"].as_array().unwrap().iter().filter(|r| r["kind"] == "section") {
        assert_eq!((r["tokens"].as_u64(), r.get("offset")), (Some(0), None), "{r}");
    }
    assert!(!doc["warnings"].as_array().unwrap().is_empty());

    let small = "fixtures/chat-templates/Mistral-Small-3.2-24B-Instruct-2506.jinja";
    let out = promptc(&["report", "--chat-template", small, "--chat-template-date", "2024-07-26"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let n = tool_count();
    assert!(
        stderr(&out).contains(&format!("shows the model none of the {n} tools of cell `standard.native`")),
        "{}",
        stderr(&out)
    );
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.contains(&format!("tools block ({n} tools)")), "{table}");
}

/// Issue 40: the tools' share came from rendering the cell again with `tools=None`; a template
/// that raises on that (FunctionGemma does, in transformers too) failed the whole report though
/// the cell renders. The share is then taken with an empty list, or, when that fails too, said
/// to be unknown — the report never fails for it.
#[test]
fn a_template_that_raises_without_tools_is_still_counted() {
    let dir = tempfile::tempdir().unwrap();
    // A stand-in for FunctionGemma's check (its template is Gemma's licence; this is ours).
    let strict = write(
        dir.path(),
        "strict.jinja",
        "{% if tools is none %}{{ raise_exception('tools are required') }}{% endif %}\
         <start>{{ messages[0].content }}\n{% for t in tools %}<decl>{{ t.function.name }}</decl>\n{% endfor %}<turn>",
    );
    let stricter = write(
        dir.path(),
        "stricter.jinja",
        "{% if not tools %}{{ raise_exception('tools are required') }}{% endif %}\
         <start>{{ messages[0].content }}\n{% for t in tools %}<decl>{{ t.function.name }}</decl>\n{% endfor %}<turn>",
    );
    for (template, known) in [(&strict, true), (&stricter, false)] {
        let out =
            promptc(&["report", "--chat-template", template, "--chat-template-date", "2024-07-26", "--format", "json"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let tools = doc["rows"].as_array().unwrap().iter().find(|r| r["kind"] == "tools").unwrap().clone();
        assert_eq!(tools["known"], known, "{doc}");
        assert_eq!(tools["tokens"].as_u64().unwrap() > 0, known, "{doc}");
        assert_eq!(stderr(&out).contains("cannot tell the tools' share"), !known, "{}", stderr(&out));
    }
}

/// A change to a tokenizer file, its name, and what the refusal says.
type HostileEdit = (&'static str, Box<dyn FnOnce(&mut serde_json::Value)>, &'static str);

/// The small fixture tokenizer with one hostile change made by `edit`.
fn hostile_tokenizer(edit: impl FnOnce(&mut serde_json::Value)) -> String {
    let text = std::fs::read_to_string(repo().join("fixtures/good/chat-templates/chat/tokenizer.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    edit(&mut v);
    serde_json::to_string(&v).unwrap()
}

/// The tokenizer-file shapes that hung or killed CI (issue 42) are refused, exit 2, before the
/// `tokenizers` crate builds anything — named by where they are in the file — whether the file
/// comes from `--tokenizer-file` or from a project's `chat_templates: {tokenizer:}`, which
/// points at the project's line.
#[test]
fn hostile_tokenizer_files_are_refused_before_anything_is_built() {
    use serde_json::json;
    let double = json!({"type": "Replace", "pattern": {"String": "a"}, "content": "aa"});
    let cases: [HostileEdit; 4] = [
        (
            "look-ahead",
            Box::new(|v| v["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = json!("(?=(a+)+$)|\\s+")),
            "pre_tokenizer.pretokenizers[0].pattern.Regex: a repeated group",
        ),
        (
            "doubling",
            Box::new(move |v| v["normalizer"] = json!({"type": "Sequence", "normalizers": vec![double; 30]})),
            "times longer",
        ),
        (
            "replacement",
            Box::new(|v| {
                v["normalizer"] = json!({"type": "Replace", "pattern": {"String": "a"}, "content": "b".repeat(100_000)})
            }),
            "normalizer.content is 100000 bytes long",
        ),
        (
            "added-token",
            Box::new(|v| v["added_tokens"][0]["content"] = json!("x".repeat(30 << 20))),
            "added_tokens[0].content is 31457280 bytes long",
        ),
    ];
    let project = tempfile::tempdir().unwrap();
    copy_dir(&repo().join("fixtures/good/chat-templates"), project.path());
    for (name, edit, said) in cases {
        let text = hostile_tokenizer(edit);
        let path = write(project.path(), &format!("{name}.json"), &text);
        let out = promptc(&["report", "--chat-template", QWEN, "--tokenizer-file", &path]);
        assert_eq!(out.status.code(), Some(2), "{name}: {}", stderr(&out));
        assert!(stderr(&out).contains(said), "{name}: {}", stderr(&out));
        std::fs::write(project.path().join("chat/tokenizer.json"), &text).unwrap();
        let out = promptc_in(project.path(), &["report", "--transport", "chat"]);
        assert_eq!(out.status.code(), Some(2), "{name} in the project: {}", stderr(&out));
        assert!(stderr(&out).contains(said) && stderr(&out).contains("promptc.yaml:52:16"), "{}", stderr(&out));
    }
}
