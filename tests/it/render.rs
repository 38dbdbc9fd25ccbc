//! End-to-end tests of `promptc render` on the shipped example: snapshots of every prompt and
//! projection, profile selection, switches, the frozen artifact, and determinism.

use crate::common;

use common::{copy_dir, ok, promptc, promptc_in, repo};

use std::path::Path;

fn metadata(args: &[&str]) -> serde_json::Value {
    let mut a = vec!["render", "--format", "json"];
    a.extend_from_slice(args);
    let v: serde_json::Value = serde_json::from_str(&ok(&a)).unwrap();
    v["metadata"].clone()
}

#[test]
fn render_with_no_arguments_compiles_the_example() {
    let prompt = ok(&["render"]);
    assert!(prompt.starts_with("You are Forge"), "{}", &prompt[..80.min(prompt.len())]);
    assert!(prompt.ends_with('\n') && !prompt.ends_with("\n\n"));
    // Native transport: no XML tool docs in the prompt.
    assert!(!prompt.contains("Usage:\n<read_file>"));
}

/// The committed snapshot file `name` of the example (the one home of its golden outputs).
fn golden(name: &str) -> String {
    std::fs::read_to_string(common::repo().join("snapshots").join(name)).unwrap()
}

#[test]
fn every_prompt_of_the_example_matches_its_committed_snapshot() {
    for profile in ["standard", "lite"] {
        for transport in ["native", "xml"] {
            let prompt = ok(&["render", "--profile", profile, "--transport", transport]);
            assert_eq!(prompt, golden(&format!("{profile}.{transport}.prompt.md")), "{profile}.{transport}");
        }
    }
}

#[test]
fn every_projection_of_the_example_matches_its_committed_snapshot() {
    for profile in ["standard", "lite"] {
        for provider in ["openai", "openai-responses", "anthropic", "gemini"] {
            let tools = ok(&["render", "--profile", profile, "--provider", provider, "--tools"]);
            assert_eq!(tools, golden(&format!("{profile}.native.{provider}.tools.json")), "{profile} {provider}");
        }
    }
}

#[test]
fn xml_and_native_describe_the_same_tools_and_parameters() {
    for profile in ["standard", "lite"] {
        for sets in [
            vec![],
            vec!["--set", "browser", "--set", "mcp", "--set", "web", "--set", "subagents"],
            vec!["--set", "yolo"],
        ] {
            let mut native_args = vec!["render", "--profile", profile, "--provider", "anthropic", "--tools"];
            native_args.extend(&sets);
            let tools: serde_json::Value = serde_json::from_str(&ok(&native_args)).unwrap();
            let mut xml_args = vec!["render", "--profile", profile, "--transport", "xml"];
            xml_args.extend(&sets);
            let xml = ok(&xml_args);
            let native: Vec<(String, Vec<String>)> = tools
                .as_array()
                .unwrap()
                .iter()
                .map(|t| {
                    (
                        t["name"].as_str().unwrap().to_string(),
                        t["input_schema"]["properties"].as_object().unwrap().keys().cloned().collect(),
                    )
                })
                .collect();
            // Every tool block in the XML docs: its name and its top-level parameters.
            let mut from_xml: Vec<(String, Vec<String>)> = Vec::new();
            for block in xml.split("\n## ").skip(1) {
                let name = block.lines().next().unwrap().trim().to_string();
                if !block.contains("\nUsage:\n") {
                    continue;
                }
                let params = block
                    .lines()
                    .skip_while(|l| !l.starts_with("Parameters:"))
                    .skip(1)
                    .take_while(|l| !l.starts_with("Usage:"))
                    .filter(|l| l.starts_with("- "))
                    .map(|l| l[2..].split(':').next().unwrap().to_string())
                    .collect();
                from_xml.push((name, params));
            }
            assert_eq!(native, from_xml, "profile {profile} sets {sets:?}");
        }
    }
}

#[test]
fn profile_selection_follows_the_policy() {
    let profile = |args: &[&str]| metadata(args)["profile"].as_str().unwrap().to_string();
    assert_eq!(profile(&[]), "standard");
    assert_eq!(profile(&["--model", "openai/o1-mini"]), "lite");
    assert_eq!(profile(&["--model", "foo/o1"]), "lite");
    assert_eq!(profile(&["--model", "o10"]), "standard");
    assert_eq!(profile(&["--model", "o1x"]), "standard");
    assert_eq!(profile(&["--context-window", "63999"]), "lite");
    assert_eq!(profile(&["--context-window", "64000"]), "standard");
    assert_eq!(profile(&["--context-window", "32k"]), "lite");
    // Not a window: an error, never the assumed default (tests/it/requests.rs has the rest).
    for bad in ["0", "-1", "big"] {
        assert_eq!(common::promptc(&["render", "--context-window", bad]).status.code(), Some(2), "{bad}");
    }
    assert_eq!(profile(&["--profile", "standard", "--model", "o1"]), "standard");
    assert!(metadata(&["--model", "openai/o1-mini"])["profile_reason"].as_str().unwrap().contains("o1-mini"));
}

fn tool_names(args: &[&str]) -> Vec<String> {
    metadata(args)["tools"].as_array().unwrap().iter().map(|t| t.as_str().unwrap().to_string()).collect()
}

#[test]
fn switches_turn_tools_parameters_and_sections_on_and_off() {
    let off = tool_names(&[]);
    assert!(!off.contains(&"browser_action".to_string()));
    let on = tool_names(&["--set", "browser=true"]);
    assert!(on.contains(&"browser_action".to_string()));
    assert_eq!(on.len(), off.len() + 1);

    // A single parameter: execute_command.requires_approval exists only without yolo.
    let params = |args: &[&str]| -> Vec<String> {
        let mut a = vec!["render", "--provider", "anthropic", "--tools"];
        a.extend_from_slice(args);
        let v: serde_json::Value = serde_json::from_str(&ok(&a)).unwrap();
        let t = v.as_array().unwrap().iter().find(|t| t["name"] == "execute_command").unwrap().clone();
        t["input_schema"]["properties"].as_object().unwrap().keys().cloned().collect()
    };
    assert!(params(&[]).contains(&"requires_approval".to_string()));
    assert!(!params(&["--set", "yolo"]).contains(&"requires_approval".to_string()));

    // A section: focus_chain is on by default in the example and drops out when off.
    let sections = |args: &[&str]| -> Vec<String> {
        metadata(args)["sections"].as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap().to_string()).collect()
    };
    assert!(sections(&[]).contains(&"focus_chain".to_string()));
    assert!(!sections(&["--set", "focus_chain=false"]).contains(&"focus_chain".to_string()));
}

#[test]
fn context_file_sets_switches_variables_and_model() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = dir.path().join("ctx.yaml");
    std::fs::write(&ctx, "switches:\n  browser: true\nvariables:\n  cwd: /srv/app\nmodel: openai/o1-preview\n")
        .unwrap();
    let m = metadata(&["--context", ctx.to_str().unwrap()]);
    assert_eq!(m["profile"], "lite");
    assert_eq!(m["switches"]["browser"], true);
    assert!(m["inputs"]["context_file"].is_string());
    let prompt = ok(&["render", "--profile", "standard", "--context", ctx.to_str().unwrap()]);
    assert!(prompt.contains("/srv/app"));
    // Flags win over the context file.
    let m = metadata(&["--context", ctx.to_str().unwrap(), "--set", "browser=false"]);
    assert_eq!(m["switches"]["browser"], false);
}

fn read_dir_sorted(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
        .collect();
    v.sort();
    v
}

#[test]
fn frozen_artifact_has_prompt_tools_and_metadata() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("artifact");
    let o = promptc(&[
        "render",
        "--profile",
        "lite",
        "--transport",
        "native",
        "--provider",
        "anthropic",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(o.stdout.is_empty());
    let files: Vec<String> = read_dir_sorted(&out).into_iter().map(|(n, _)| n).collect();
    assert_eq!(files, ["metadata.json", "prompt.md", "tools.json"]);
    let meta: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("metadata.json")).unwrap()).unwrap();
    assert_eq!(meta["profile"], "lite");
    assert_eq!(meta["transport"], "native");
    assert_eq!(meta["provider"], "anthropic");
    assert_eq!(meta["promptc_version"], env!("CARGO_PKG_VERSION"));
    assert!(meta["contract_version"].is_u64());
    assert!(meta["inputs"]["files"]["promptc.yaml"].as_str().unwrap().len() == 64);
    assert!(meta["inputs"]["files"].as_object().unwrap().keys().any(|k| k.starts_with("tools/")));
    assert!(meta["inputs"]["variables"].as_object().unwrap().contains_key("cwd"));
    let prompt = std::fs::read_to_string(out.join("prompt.md")).unwrap();
    let tools = std::fs::read_to_string(out.join("tools.json")).unwrap();
    // Hashes in the metadata are of the files written beside it.
    let sha = |s: &str| common::sha256_hex(s.as_bytes());
    assert_eq!(meta["prompt_sha256"], sha(&prompt));
    assert_eq!(meta["tools_sha256"], sha(&tools));
    let joined: Vec<String> =
        meta["sections"].as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap().to_string()).collect();
    assert!(!joined.is_empty());
    assert_eq!(
        meta["tools"].as_array().unwrap().len(),
        serde_json::from_str::<serde_json::Value>(&tools).unwrap().as_array().unwrap().len()
    );

    // Re-rendering the same folder as XML removes the now-meaningless tools.json.
    let o = promptc(&["render", "--profile", "lite", "--transport", "xml", "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    let files: Vec<String> = read_dir_sorted(&out).into_iter().map(|(n, _)| n).collect();
    assert_eq!(files, ["metadata.json", "prompt.md"]);
}

#[test]
fn the_same_input_renders_byte_identical_output() {
    let dir = tempfile::tempdir().unwrap();
    for (profile, transport) in [("standard", "native"), ("lite", "xml")] {
        let a = dir.path().join(format!("{profile}-{transport}-a"));
        let b = dir.path().join(format!("{profile}-{transport}-b"));
        for d in [&a, &b] {
            ok(&[
                "render",
                "--profile",
                profile,
                "--transport",
                transport,
                "--set",
                "browser",
                "--out",
                d.to_str().unwrap(),
            ]);
        }
        assert_eq!(read_dir_sorted(&a), read_dir_sorted(&b));
    }
    assert_eq!(ok(&["render", "--format", "json"]), ok(&["render", "--format", "json"]));
}

#[test]
fn tools_flag_on_xml_is_a_clear_error() {
    let o = promptc(&["render", "--transport", "xml", "--tools"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("xml transport has no tool projection"));
}

/// The tools of `fixtures/good/native-faithful`, written by hand in each provider's native JSON
/// (`native/*.json`), are what promptc renders from the catalog, byte for byte: descriptions as
/// written, `additionalProperties` only where declared, `required` in the declared order, and
/// no key a hand-written definition would not carry (no `"strict": false` for Chat, no empty
/// `required`).
#[test]
fn native_projections_are_byte_for_byte_what_one_writes_by_hand() {
    let dir = repo().join("fixtures/good/native-faithful");
    for provider in ["openai", "openai-responses", "anthropic", "gemini"] {
        let rendered = ok(&["render", "-C", dir.to_str().unwrap(), "--tools", "--provider", provider]);
        let by_hand = std::fs::read_to_string(dir.join(format!("native/{provider}.json"))).unwrap();
        assert_eq!(rendered, by_hand, "{provider}: promptc's projection differs from the hand-written JSON");
    }
}

/// The same project with `descriptions: trim` (the default) or strict tools no longer matches:
/// the comparison above has teeth, and both settings do what they say.
#[test]
fn trimmed_descriptions_and_strict_tools_change_the_projection_as_documented() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo().join("fixtures/good/native-faithful"), dir.path());
    let manifest = dir.path().join("promptc.yaml");
    let edit = |from: &str, to: &str| {
        let text = std::fs::read_to_string(&manifest).unwrap();
        assert!(text.contains(from));
        std::fs::write(&manifest, text.replacen(from, to, 1)).unwrap();
    };
    edit("descriptions: verbatim\n", "");
    let out = promptc_in(dir.path(), &["render", "--tools", "--provider", "anthropic"]);
    let trimmed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        trimmed[0]["description"],
        "Put a new job on the board.\nJobs start unassigned; say what done looks like."
    );
    assert_eq!(trimmed[0]["input_schema"]["properties"]["details"]["description"], "What the job involves.");
    // Leading whitespace is the author's: only the end is trimmed.
    let tool =
        &trimmed[0]["input_schema"]["properties"]["details"]["properties"]["steps"]["items"]["properties"]["tool"];
    assert_eq!(tool["description"], "  A tool it needs (indented on purpose).");

    edit("strict_tools: false\n", "strict_tools: true\n");
    let out = promptc_in(dir.path(), &["render", "--tools", "--provider", "openai"]);
    let strict: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let f = &strict[3]["function"];
    assert_eq!(f["strict"], true);
    assert_eq!(
        f["parameters"],
        serde_json::json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
    );
    let find = &strict[1]["function"]["parameters"];
    assert_eq!(find["required"], serde_json::json!(["query", "status", "limit"]), "strict mode lists every property");
    assert_eq!(find["additionalProperties"], false);
    // The declared order still leads in strict mode; the optional `due` follows.
    assert_eq!(strict[0]["function"]["parameters"]["required"], serde_json::json!(["title", "details", "due"]));
}

/// `descriptions: verbatim` reaches promptc's built-in xml tool docs: a description's final
/// newline and a nested one's leading spaces are kept there as in the JSON; under the default
/// `trim` only the end is trimmed, in both.
#[test]
fn verbatim_descriptions_reach_the_built_in_xml_tool_docs() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo().join("fixtures/good/native-faithful"), dir.path());
    let manifest = dir.path().join("promptc.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let text = text.replacen("transports: [native]", "transports: [native, xml]", 1);
    let text = text.replacen("sections: [role]", "sections: [role, tools]", 1);
    let text = text.replacen("\ntools:\n", "  tools:\n    generate: tool_docs\n\ntools:\n", 1);
    std::fs::write(&manifest, text).unwrap();
    let xml = || {
        let out = promptc_in(dir.path(), &["render", "--transport", "xml"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let verbatim = xml();
    assert!(
        verbatim
            .contains("Description: Put a new job on the board.\nJobs start unassigned; say what done looks like.\n\n"),
        "{verbatim}"
    );
    assert!(verbatim.contains("(required, object) What the job involves.\n\n"), "{verbatim}");
    assert!(verbatim.contains(")   A tool it needs (indented on purpose).\n"), "{verbatim}");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replacen("descriptions: verbatim\n", "", 1)).unwrap();
    let trimmed = xml();
    assert!(trimmed.contains("say what done looks like.\nParameters:"), "{trimmed}");
    assert!(trimmed.contains("What the job involves.\n  - "), "{trimmed}");
    assert!(trimmed.contains(")   A tool it needs (indented on purpose).\n"), "{trimmed}");
}

/// A project's own text tool format (`tool_docs:` in `fixtures/good/text-tool-format`): each
/// tool documented by its template, with every active parameter's schema in the context, the
/// blocks joined by the separator, and example calls in the project's call format.
#[test]
fn a_project_writes_its_own_text_tool_format() {
    let dir = repo().join("fixtures/good/text-tool-format");
    let prompt = ok(&["render", "-C", dir.to_str().unwrap(), "--set", "remote"]);
    let expected = "You look after a bicycle workshop's parts inventory.

==== TOOL 1: count_part ====
How many of a part are on the shelf.
* part (string, required): The part number, such as BR-204.
* location (string, optional): Which store to count.
    allowed: front / back / remote
==== END 1 ====

==== TOOL 2: reorder ====
Order more of a part from the supplier.
* part (string, required): The part number.
* quantity (integer, required): How many to order.
    at least 1
* rush (boolean, optional): Pay for next-day delivery.
* notes (array of string, optional)
==== END 2 ====

Example (count_part): Brake pads at the front.
[[call count_part]]
part := BR-204
[[end]]

Example (reorder):
[[call reorder]]
part := CH-11
quantity := 4
rush := true
[[end]]
";
    assert_eq!(prompt, expected);
    // Without the switch, `location` is gone from the docs as from the native schema.
    let prompt = ok(&["render", "-C", dir.to_str().unwrap()]);
    assert!(!prompt.contains("location") && prompt.contains("* part (string, required): The part number, such"));

    // The report measures each tool's block and each parameter's lines of it.
    let report: serde_json::Value =
        serde_json::from_str(&ok(&["report", "-C", dir.to_str().unwrap(), "--format", "json", "--set", "remote"]))
            .unwrap();
    let account = &report["accounts"][0];
    let section = account["sections"].as_array().unwrap().iter().find(|s| s["id"] == "tools").unwrap();
    let tools = account["tools"].as_array().unwrap();
    let bytes = |v: &serde_json::Value| v["sent"]["bytes"].as_u64().unwrap();
    assert_eq!(bytes(section), tools.iter().map(bytes).sum::<u64>() + 2, "two blocks and one separator");
    let count_part: Vec<(String, u64)> =
        tools[0]["params"].as_array().unwrap().iter().map(|p| (p["name"].as_str().unwrap().into(), bytes(p))).collect();
    let location_lines = "* location (string, optional): Which store to count.\n    allowed: front / back / remote\n";
    assert_eq!(count_part, [("part".to_string(), 60), ("location".to_string(), location_lines.len() as u64)]);
}

/// P006 holds for a project's own format: a template that leaves out a parameter the native
/// cell sends is found, naming the tool and the parameter.
#[test]
fn transport_parity_checks_a_projects_own_tool_format() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo().join("fixtures/good/text-tool-format"), dir.path());
    let template = dir.path().join("format/tool.md.j2");
    let text = std::fs::read_to_string(&template).unwrap();
    std::fs::write(
        &template,
        text.replace("{% for p in tool.parameters %}", "{% for p in tool.parameters if p.name != \"rush\" %}"),
    )
    .unwrap();
    let out = promptc_in(dir.path(), &["check"]);
    let printed = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{printed}");
    assert!(
        printed.contains("error[P006]: cell `standard.xml` does not describe 1 of its 2 tools (e.g. `reorder`: its parameter `rush`)"),
        "{printed}"
    );
}

/// A layout iterating `sections|items` sees the profile's order, and maps keep the order they
/// were written in (Jinja2's dicts do), rather than sorted keys.
#[test]
fn layouts_iterate_sections_in_profile_order() {
    let prompt = ok(&["render", "-C", repo().join("fixtures/good/layout-order").to_str().unwrap()]);
    assert_eq!(prompt, "[zeta] Z text.\n[alpha] A text.\n[mid] M text.\nba\n");
}

/// `metadata.inputs.variables` hashes the variables a template of the cell reads, and only
/// those: the lite profile of the minimal fixture renders no section that reads `cwd`, so a
/// different `cwd` leaves its record unchanged.
#[test]
fn metadata_hashes_only_the_variables_that_shaped_the_cell() {
    let dir = repo().join("fixtures/good/minimal");
    let inputs = |args: &[&str]| {
        let mut a = vec!["render", "-C", dir.to_str().unwrap(), "--format", "json"];
        a.extend_from_slice(args);
        let v: serde_json::Value = serde_json::from_str(&ok(&a)).unwrap();
        v["metadata"]["inputs"]["variables"].clone()
    };
    let standard = inputs(&["--profile", "standard"]);
    assert_eq!(standard.as_object().unwrap().keys().collect::<Vec<_>>(), ["cwd"]);
    assert_ne!(standard, inputs(&["--profile", "standard", "--var", "cwd=/elsewhere"]));
    let lite = inputs(&["--profile", "lite"]);
    assert_eq!(lite, serde_json::json!({}), "no template of the lite cell reads a variable");
    assert_eq!(lite, inputs(&["--profile", "lite", "--var", "cwd=/elsewhere"]));
}

/// Harness messages (`fixtures/good/harness-messages`): the first user message and an assistant
/// example rendered per cell with the cell's context and call format, in the artifact, the
/// snapshot matrix, the report (counted in the total) and frozen records.
#[test]
fn harness_messages_are_rendered_snapshotted_measured_and_frozen() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    copy_dir(&repo().join("fixtures/good/harness-messages"), dir.path());
    let run = |args: &[&str]| promptc_in(dir.path(), args);
    let json = |args: &[&str]| -> serde_json::Value {
        let out = run(args);
        assert!(out.status.code().is_some_and(|c| c <= 1), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let doc = json(&["render", "--format", "json", "--set", "tests_failing"]);
    assert_eq!(
        doc["messages"],
        serde_json::json!([
            {"role": "user", "content": "<workspace>\nRepository: acme/garden-planner\nDate: 2026-12-02\nTools available: run_tests\n</workspace>\n\nThe last CI run failed. Look at the failing tests before anything else."},
            {"role": "assistant", "content": "Example (run_tests): Run the planner's tests.\n{\"name\":\"run_tests\",\"arguments\":{\"path\":\"tests/test_planner.py\"}}"}
        ])
    );
    // The xml cell shows its own call format; the switch's section is left out when off.
    let xml = json(&["render", "--format", "json", "--transport", "xml"]);
    assert_eq!(xml["messages"][0]["content"].as_str().unwrap().matches("CI run").count(), 0);
    assert!(xml["messages"][1]["content"]
        .as_str()
        .unwrap()
        .ends_with("<run_tests>\n<path>tests/test_planner.py</path>\n</run_tests>"));

    // The artifact has messages.json, listed and hashed in its metadata.
    assert_eq!(run(&["render", "--out", "art"]).status.code(), Some(0));
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("art/metadata.json")).unwrap()).unwrap();
    assert!(meta["files"].as_array().unwrap().contains(&serde_json::json!("messages.json")), "{meta}");
    let written = std::fs::read(dir.path().join("art/messages.json")).unwrap();
    assert_eq!(meta["messages_sha256"], common::sha256_hex(&written));

    // The report counts them, and the total is prompt + tools + messages.
    let report = json(&["report", "--format", "json"]);
    let a = &report["accounts"][0];
    let messages: u64 = a["messages"].as_array().unwrap().iter().map(|m| m["sent"]["tokens"].as_u64().unwrap()).sum();
    assert!(messages > 0);
    let sum = a["prompt"]["tokens"].as_u64().unwrap() + a["tools_sent"]["tokens"].as_u64().unwrap() + messages;
    assert_eq!(a["total"]["tokens"].as_u64().unwrap(), sum);

    // Snapshots hold them; a changed message is drift, named as such.
    assert_eq!(run(&["diff"]).status.code(), Some(0), "the committed snapshots are current");
    assert_eq!(run(&["freeze", "--out", "frozen.json"]).status.code(), Some(0));
    let template = dir.path().join("messages/workspace.md.j2");
    let text = std::fs::read_to_string(&template).unwrap();
    std::fs::write(&template, text.replace("Repository:", "Repo:")).unwrap();
    let drift = json(&["diff", "--format", "json"]);
    let changed: Vec<&str> = drift["files"].as_array().unwrap().iter().map(|f| f["file"].as_str().unwrap()).collect();
    assert_eq!(changed, ["standard.native.messages.json", "standard.xml.messages.json", "summary.json"], "{drift}");
    let items: Vec<&str> = drift["deltas"].as_array().unwrap().iter().map(|d| d["item"].as_str().unwrap()).collect();
    // The messages' total and the changed message's own figure, in each cell that sends it.
    assert_eq!(items, ["messages", "message 1", "messages", "message 1"], "{drift}");
    let out = run(&["verify", "frozen.json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("message changed: 1 (user)"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// Harness messages of several content blocks (`fixtures/good/message-blocks`): each provider's
/// own shape, a block that renders empty left out, a message of one text kept a string, blocks
/// counted one by one, the snapshot in the common shape.
#[test]
fn harness_messages_of_several_blocks_take_each_providers_shape() {
    use promptc::{Provider, Request};
    let project = common::project("fixtures/good/message-blocks");
    let messages = |provider: Provider, failing: bool| {
        let req = Request::new().provider(provider).switch("tests_failing", failing);
        promptc::compile(project, &req).unwrap().messages_json().unwrap()
    };
    let workspace = "<workspace>\nRepository: acme/garden-planner\n</workspace>";
    let failing = "The last CI run failed. Look at the failing tests before anything else.";
    let request = "Add a frost warning to the planting calendar.";
    let example = "Example (run_tests): Run the planner's tests.\n{\"name\":\"run_tests\",\"arguments\":{\"path\":\"tests/test_planner.py\"}}";
    let note = "That is how a tool is called.";
    let blocks = |kind: &str, texts: &[&str]| -> serde_json::Value {
        texts.iter().map(|t| serde_json::json!({"type": kind, "text": t})).collect()
    };
    for provider in [Provider::Anthropic, Provider::OpenAiChat] {
        assert_eq!(
            messages(provider, true),
            serde_json::json!([
                {"role": "user", "content": blocks("text", &[workspace, failing, request])},
                {"role": "assistant", "content": blocks("text", &[example, note])},
                {"role": "user", "content": "Keep the change small."},
            ]),
            "{provider:?}"
        );
    }
    // The switch's block renders empty when off: it is left out, the others stay blocks.
    assert_eq!(
        messages(Provider::OpenAiResponses, false),
        serde_json::json!([
            {"role": "user", "content": blocks("input_text", &[workspace, request])},
            {"role": "assistant", "content": [
                {"type": "output_text", "text": example, "annotations": []},
                {"type": "output_text", "text": note, "annotations": []},
            ]},
            {"role": "user", "content": "Keep the change small."},
        ])
    );
    let parts =
        |texts: &[&str]| -> serde_json::Value { texts.iter().map(|t| serde_json::json!({"text": t})).collect() };
    assert_eq!(
        messages(Provider::Gemini, false),
        serde_json::json!([
            {"role": "user", "parts": parts(&[workspace, request])},
            {"role": "model", "parts": parts(&[example, note])},
            {"role": "user", "parts": parts(&["Keep the change small."])},
        ])
    );

    // The report counts each block's bytes, and nothing between them.
    let dir = repo().join("fixtures/good/message-blocks");
    let report: serde_json::Value =
        serde_json::from_str(&ok(&["report", "-C", dir.to_str().unwrap(), "--format", "json"])).unwrap();
    let sent: Vec<u64> = report["accounts"][0]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["sent"]["bytes"].as_u64().unwrap())
        .collect();
    let bytes = |texts: &[&str]| texts.iter().map(|t| t.len() as u64).sum::<u64>();
    assert_eq!(sent, [bytes(&[workspace, request]), bytes(&[example, note]), bytes(&["Keep the change small."])]);
    // The committed snapshots are current, and hold the common shape.
    assert_eq!(promptc(&["diff", "-C", dir.to_str().unwrap()]).status.code(), Some(0));
    let snap: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("snapshots/standard.native.messages.json")).unwrap()).unwrap();
    assert_eq!(snap[1]["content"], blocks("text", &[example, note]));
}

/// Tool text that depends on runtime values (`fixtures/good/templated-tools`, `templated: true`):
/// rendered per cell from the cell's variables and switches in the tools JSON and the xml docs,
/// the wording an override gives too; a text reading a dynamic variable makes the cell's tools
/// uncacheable (reported by the account and P004) and its xml tool docs dynamic; P010 quiet.
#[test]
fn templated_tool_text_is_rendered_per_cell_and_dynamic_when_it_reads_a_dynamic_value() {
    use promptc::{Request, Transport};
    let project = common::project("fixtures/good/templated-tools");
    let tools = |req: Request| promptc::compile(project, &req).unwrap().projection().unwrap().clone();
    let t = tools(Request::new());
    assert_eq!(
        t[0]["description"],
        "Run a bash command in /workspace (sandboxed).\nFiles you write stay under /workspace."
    );
    assert_eq!(t[0]["input_schema"]["properties"]["cwd"]["description"], "Where to run it; /workspace when left out.");
    assert_eq!(t[1]["description"], "Write a note dated 2026-12-03.");
    let t = tools(Request::new().variable("working_dir", "/srv").switch("sandbox", false).profile("shell"));
    assert_eq!(t[0]["description"], "Run a bash command in /srv.\nFiles you write stay under /srv.");
    assert_eq!(
        t[0]["input_schema"]["properties"]["cwd"]["description"], "A folder under /srv.",
        "the override's wording"
    );

    // The xml docs show the rendered text; they are dynamic where a tool's text is.
    let xml =
        |profile: &str| promptc::compile(project, &Request::new().profile(profile).transport(Transport::Xml)).unwrap();
    let standard = xml("standard");
    assert!(standard.prompt().contains("Description: Write a note dated 2026-12-03."), "{}", standard.prompt());
    assert!(!standard.prompt().contains("{{"));
    let dynamic = |c: &promptc::Compiled| c.sections().iter().find(|s| s.id == "tools").unwrap().dynamic;
    assert!(dynamic(&standard));
    assert!(!dynamic(&xml("shell")));

    // The account: a native cell's request parts from another session's inside the dynamic
    // tool's entry (its date), so what is cacheable is the tools JSON before it, measured.
    let dir = repo().join("fixtures/good/templated-tools");
    let report = |profile: &str| -> serde_json::Value {
        serde_json::from_str(&ok(&["report", "-C", dir.to_str().unwrap(), "--profile", profile, "--format", "json"]))
            .unwrap()
    };
    let a = &report("standard")["accounts"][0];
    let cache = &a["cache"];
    assert_eq!((cache["ends_at"].as_str(), cache["measured"].as_bool()), (Some("tool note"), Some(true)), "{cache}");
    let cacheable = cache["cacheable"].as_u64().unwrap();
    assert!(cacheable > 0 && cacheable < a["tools_sent"]["tokens"].as_u64().unwrap(), "{cache}");
    let cache = &report("shell")["accounts"][0]["cache"];
    assert!(cache["cacheable"].as_u64().unwrap() > 0 && cache["ends_at"].is_null(), "{cache}");

    // check: P004 names the tool at its declaration; no P010 for the templated texts.
    let out = promptc(&["check", "-C", dir.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("warning[P004]: tool `note`'s text changes between sessions"), "{text}");
    assert!(text.contains("tools.yaml:21:3"), "{text}");
    assert!(!text.contains("P010"), "{text}");
    assert_eq!(promptc(&["diff", "-C", dir.to_str().unwrap()]).status.code(), Some(0), "the snapshots are current");
    // The variables the tool texts read shape the cell: its metadata hashes them.
    let inputs = promptc::compile(project, &Request::new()).unwrap().input_variables(project);
    assert_eq!(inputs.keys().collect::<Vec<_>>(), ["working_dir", "today"]);
}

/// Tool variants (`fixtures/good/tool-variants`): name, description and parameter wording
/// chosen by switches and profiles, every variant that holds applying in order, in the native
/// projection and the template context alike.
#[test]
fn tool_variants_choose_name_and_wording_by_switch_and_profile() {
    let dir = repo().join("fixtures/good/tool-variants");
    let shell = |args: &[&str]| -> (String, String, String, String) {
        let mut a = vec!["render", "-C", dir.to_str().unwrap(), "--tools"];
        a.extend_from_slice(args);
        let v: serde_json::Value = serde_json::from_str(&ok(&a)).unwrap();
        let t = &v[0];
        let p = &t["input_schema"]["properties"];
        let s = |v: &serde_json::Value| v.as_str().unwrap().to_string();
        (s(&t["name"]), s(&t["description"]), s(&p["command"]["description"]), s(&p["cwd"]["description"]))
    };
    let t = |a: &str, b: &str, c: &str, d: &str| (a.to_string(), b.to_string(), c.to_string(), d.to_string());
    let bash = "Run a bash command in the workspace and return its output.";
    let ps = "Run a PowerShell command in the workspace and return its output.";
    let home = "Working directory, relative to /home/baker/orders.";
    let mounted = "Working directory, relative to /workspace.";
    assert_eq!(shell(&[]), t("run_shell", bash, "The bash command line.", home));
    assert_eq!(shell(&["--set", "windows"]), t("run_powershell", ps, "The PowerShell command line.", home));
    assert_eq!(shell(&["--set", "container"]), t("run_shell", bash, "The bash command line.", mounted));
    assert_eq!(
        shell(&["--set", "windows", "--set", "container"]),
        t("run_powershell", ps, "The PowerShell command line.", mounted),
        "independent variants combine"
    );
    assert_eq!(shell(&["--profile", "lite"]), t("run_shell", "Run a shell command.", "The bash command line.", home));
    // A later variant wins where both set the same field.
    assert_eq!(
        shell(&["--profile", "lite", "--set", "windows"]),
        t("run_powershell", "Run a shell command.", "The PowerShell command line.", home)
    );
}

/// A string-valued switch (`fixtures/good/switch-values`): compared in `when:` (sections and
/// parameters), read in templates, set by `--set`, a context file or a case, recorded in the
/// metadata and in frozen records; a value it does not allow is an error.
#[test]
fn string_valued_switches_choose_sections_parameters_and_text() {
    let dir = repo().join("fixtures/good/switch-values");
    let d = dir.to_str().unwrap();
    assert_eq!(
        ok(&["render", "-C", d]),
        "You schedule deliveries for a flower shop. Style: interactive.\n\nAsk before you reschedule anything.\n"
    );
    assert_eq!(
        ok(&["render", "-C", d, "--set", "style=batch"]),
        "You schedule deliveries for a flower shop. Style: batch.\nWork through the whole queue without asking \
         questions.\n\nAnswer in one line.\n"
    );
    let tools = |args: &[&str]| -> Vec<String> {
        let mut a = vec!["render", "-C", d, "--tools"];
        a.extend_from_slice(args);
        let v: serde_json::Value = serde_json::from_str(&ok(&a)).unwrap();
        v[0]["input_schema"]["properties"].as_object().unwrap().keys().cloned().collect()
    };
    assert_eq!(tools(&[]), ["delivery_id", "confirm"]);
    assert_eq!(tools(&["--set", "style=terse"]), ["delivery_id"]);

    // A context file sets it the same way; the metadata records it.
    let tmp = tempfile::tempdir().unwrap();
    let ctx = tmp.path().join("ctx.yaml");
    std::fs::write(&ctx, "switches:\n  style: terse\n  sandbox: false\n").unwrap();
    let from_file = ok(&["render", "-C", d, "--context", ctx.to_str().unwrap()]);
    assert_eq!(from_file, ok(&["render", "-C", d, "--set", "style=terse", "--set", "sandbox=false"]));
    let meta: serde_json::Value =
        serde_json::from_str(&ok(&["render", "-C", d, "--format", "json", "--set", "style=verbose"])).unwrap();
    assert_eq!(meta["metadata"]["choices"], serde_json::json!({"style": "verbose"}));

    // Frozen records keep it, and verify recompiles with it.
    let record = tmp.path().join("frozen.json");
    ok(&["freeze", "-C", d, "--set", "style=batch", "--out", record.to_str().unwrap()]);
    let rec: serde_json::Value = serde_json::from_slice(&std::fs::read(&record).unwrap()).unwrap();
    assert_eq!(rec["request"]["choices"], serde_json::json!({"style": "batch"}));
    let out = promptc(&["verify", "-C", d, record.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));

    // Values the switch does not take: on the command line, in a context file.
    let out = promptc(&["render", "-C", d, "--set", "style=loud"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("one of: interactive, batch, terse, verbose"));
    std::fs::write(&ctx, "switches:\n  style: true\n").unwrap();
    let out = promptc(&["render", "-C", d, "--context", ctx.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid value true for switch `style` in context file"));
    // The case's values reach its snapshot cell.
    let cells: serde_json::Value =
        serde_json::from_str(&ok(&["report", "-C", d, "--matrix", "--format", "json"])).unwrap();
    let terse = cells["accounts"].as_array().unwrap().iter().find(|a| a["case"] == "terse").unwrap();
    assert!(terse["sections"].as_array().unwrap().iter().all(|s| s["id"] != "questions"), "{terse}");
}

/// The tools budget of an xml cell counts the tool text in the prompt (the section that
/// documents the tools), not the absent tools JSON: the same figure `report` shows for it.
#[test]
fn the_tools_budget_of_an_xml_cell_counts_its_tool_docs() {
    let v: serde_json::Value =
        serde_json::from_str(&ok(&["report", "--transport", "xml", "--format", "json"])).unwrap();
    let a = &v["accounts"][0];
    assert_eq!(a["transport"], "xml");
    assert_eq!(a["tools_sent"]["tokens"], 0, "no tools JSON is sent");
    let docs = a["sections"].as_array().unwrap().iter().find(|s| s["source"] == "generated:tool_docs").unwrap();
    let budget = a["budgets"].as_array().unwrap().iter().find(|b| b["scope"] == "tools").unwrap();
    assert!(docs["sent"]["tokens"].as_u64().unwrap() > 1000);
    assert_eq!(budget["actual"], docs["sent"]["tokens"]);
    let per_tool: u64 = a["tools"].as_array().unwrap().iter().map(|t| t["sent"]["tokens"].as_u64().unwrap()).sum();
    assert!(per_tool <= docs["sent"]["tokens"].as_u64().unwrap() + a["tools"].as_array().unwrap().len() as u64);
}

/// Sections see each tool's parameters with their schema too (`tools[].parameters`,
/// `tools[].required`), built only when read.
#[test]
fn sections_read_the_tools_parameters() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo().join("fixtures/good/text-tool-format"), dir.path());
    let manifest = dir.path().join("promptc.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let section = "  role:\n    text: |\n      {% for t in tools %}{{ t.name }}({{ t.parameters | map(attribute=\"name\") | join(\", \") }}; \
                   required {{ t.required | join(\", \") }}; {{ t.parameters[0].type }}) {% endfor %}\n";
    let text = text.replace("  role:\n    text: You look after a bicycle workshop's parts inventory.\n", section);
    std::fs::write(&manifest, text).unwrap();
    let out = promptc_in(dir.path(), &["render", "--set", "remote"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let prompt = String::from_utf8(out.stdout).unwrap();
    assert!(
        prompt.starts_with("count_part(part, location; required part; string) reorder(part, quantity, rush, notes; required part, quantity; string)"),
        "{prompt}"
    );
}

/// Templates read the delimiter nonce (seed 003): text naming the delimiters gets the nonce
/// the wrapper uses, the section that reads it is dynamic, the artifact records it, and a
/// forged delimiter inside the untrusted value is still neutralised.
#[test]
fn templates_read_the_nonce_the_wrapper_uses() {
    let dir = "fixtures/good/nonce-in-template";
    let prompt = common::ok(&["-C", dir, "render", "--nonce", "abcd1234"]);
    assert!(prompt.contains("between <|USER_QUERY_abcd1234|> and <|USER_QUERY_END_abcd1234|>."), "{prompt}");
    assert!(prompt.contains("<|USER_QUERY_abcd1234|>\nFix the failing test. <¦USER_QUERY_END_0000¦>"), "{prompt}");
    // Without --nonce it is random, the same in the instruction and the wrapper.
    let prompt = common::ok(&["-C", dir, "render"]);
    let nonce = prompt.split("<|USER_QUERY_").nth(1).and_then(|r| r.split("|>").next()).unwrap();
    assert_eq!(prompt.matches(&format!("<|USER_QUERY_{nonce}|>")).count(), 2, "{prompt}");
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("art");
    common::ok(&["-C", dir, "render", "--nonce", "abcd1234", "--out", out.to_str().unwrap()]);
    let meta: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("metadata.json")).unwrap()).unwrap();
    assert_eq!(meta["nonce"], "abcd1234");
    let dynamic =
        |id: &str| meta["sections"].as_array().unwrap().iter().find(|s| s["id"] == id).unwrap()["dynamic"].clone();
    assert_eq!((dynamic("role"), dynamic("protocol")), (false.into(), true.into()), "{meta}");
}

/// A `tool_docs` template may index a tool's parameters (`tool.parameters[0]`): the report's
/// breakdown renders each tool again without each parameter, which left a one-parameter tool
/// with none to index and failed the whole cell; that parameter's part now counts as none,
/// with a warning naming it.
#[test]
fn tool_docs_templates_may_index_parameters() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo().join("fixtures/good/text-tool-format"), dir.path());
    let template = dir.path().join("format/tool.md.j2");
    let text = std::fs::read_to_string(&template).unwrap();
    std::fs::write(&template, format!("{text}\nFirst: {{{{ tool.parameters[0].name }}}}\n")).unwrap();
    for args in [&["render", "--transport", "xml"][..], &["report", "--transport", "xml", "--no-cache"]] {
        let out = promptc_in(dir.path(), args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        // Not silently: the parameter whose share is unknown is named.
        assert!(stderr.contains("the report counts no tokens for parameter `part` of `count_part`"), "{stderr}");
    }
    assert!(
        String::from_utf8_lossy(&promptc_in(dir.path(), &["render", "--transport", "xml"]).stdout).contains("First: ")
    );
}

/// A layout places sections, never rewrites them: a section's own run of blank lines (in a
/// code block, say) survives a layout that is only `{{ body }}`, which collapsed it.
#[test]
fn a_layout_keeps_each_section_as_rendered() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = "promptc: 1\nname: l\ncontract_version: 1\ntransports: [xml]\nsections:\n  code:\n    text: \
        \"Example:\\n\\n    a = 1\\n\\n\\n\\n    b = 2\"\n  rules:\n    text: Be brief.\ntools: []\nprofiles:\n  main:\n    \
        sections: [code, rules]\n";
    std::fs::write(dir.path().join("promptc.yaml"), manifest).unwrap();
    let plain = promptc_in(dir.path(), &["render"]);
    assert_eq!(plain.status.code(), Some(0), "{}", String::from_utf8_lossy(&plain.stderr));
    std::fs::write(dir.path().join("layout.md.j2"), "{{ body }}\n\n\n\n").unwrap();
    std::fs::write(dir.path().join("promptc.yaml"), manifest.replace("tools: []", "layout: layout.md.j2\ntools: []"))
        .unwrap();
    let laid = promptc_in(dir.path(), &["render"]);
    assert_eq!(laid.status.code(), Some(0), "{}", String::from_utf8_lossy(&laid.stderr));
    assert!(String::from_utf8_lossy(&plain.stdout).contains("a = 1\n\n\n\n    b = 2"));
    assert_eq!(String::from_utf8_lossy(&laid.stdout), String::from_utf8_lossy(&plain.stdout));
}
