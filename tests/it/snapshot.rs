//! End-to-end tests of `promptc snapshot`, `diff`, `freeze` and `verify` on a copy of the
//! shipped example (project and committed snapshots) in a temporary folder.

use crate::common;

use common::Workspace;

use std::collections::BTreeMap;
use std::process::Output;

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn committed_snapshots_have_no_drift() {
    let w = Workspace::new();
    let out = w.run(&["diff"]);
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), String::from_utf8_lossy(&out.stderr));
    assert_eq!(stdout(&out), "no drift: the project matches snapshots\n");
    assert_eq!(w.drift(), (0, BTreeMap::new()));
}

#[test]
fn a_one_word_tool_change_shows_in_every_affected_cell_and_provider_only() {
    let w = Workspace::new();
    w.edit("profiles/tools/files.yaml", "Read the contents of a file", "Read the full contents of a file");
    let (code, files) = w.drift();
    assert_eq!(code, 1);
    // read_file is active in every standard cell; lite overrides its description, so lite
    // is untouched. Native cells change in every provider's tools file, XML cells in the
    // prompt (the tool docs); native prompts never contain tool docs.
    // The researcher sub-agent may use read_file too, so its standard cells change as well.
    let mut expected: Vec<String> = Vec::new();
    for stem in ["standard", "standard.all-capabilities", "standard.with-user-rules", "standard.yolo"] {
        for p in ["anthropic", "gemini", "openai", "openai-responses"] {
            expected.push(format!("{stem}.native.{p}.tools.json"));
        }
        expected.push(format!("{stem}.xml.prompt.md"));
    }
    for p in ["anthropic", "gemini", "openai", "openai-responses"] {
        expected.push(format!("standard.native.subagent-researcher.{p}.tools.json"));
    }
    expected.push("standard.xml.subagent-researcher.prompt.md".into());
    expected.push("summary.json".into());
    expected.sort();
    assert_eq!(files.keys().cloned().collect::<Vec<_>>(), expected);
    assert!(files.values().all(|s| s == "modified"));
    let out = w.run(&["diff", "--format", "markdown"]);
    let md = stdout(&out);
    // One row, one change: every provider's JSON and every XML prompt carry the same edit.
    assert!(md.contains("| tool `read_file` | description changed | `standard.*` | +1 |"), "{md}");
    assert_eq!(md.matches("**tool `read_file`: description changed** · 25 files").count(), 1, "{md}");
    assert!(
        md.contains(
            "-Read the contents of a file in the workspace.\n+Read the full contents of a file in the workspace.\n"
        ),
        "{md}"
    );
    assert!(md.len() <= 2_048, "{} bytes:\n{md}", md.len());
    insta::assert_snapshot!("one-word-change.markdown", md);
}

/// Issue 40's case: `read_file` gets an 8-word sentence in its description (standard only: lite
/// overrides the description) and a new parameter. Each is a change of its own, with its own
/// figure in the cells it reaches — the description's in `standard`'s, the parameter's in every
/// cell — never the tool's whole change credited to one, and no unnamed lines.
fn description_edit_and_new_parameter(w: &Workspace) {
    w.edit(
        "profiles/tools/files.yaml",
        "Read the contents of a file in the workspace. Use it",
        "Read the contents of a file in the workspace. Prefer it over shell commands such as cat. Use it",
    );
    let end_line =
        "      description: Last line to return (1-based, inclusive). Omit to read to the end of the file.\n";
    w.edit(
        "profiles/tools/files.yaml",
        end_line,
        &format!(
            "{end_line}    encoding:\n      type: string\n      description: Text encoding of the file, such as \
             utf-8 or latin-1. Omit for utf-8.\n"
        ),
    );
}

#[test]
fn a_description_edit_and_a_new_parameter_are_each_credited_their_own_figure() {
    let w = Workspace::new();
    description_edit_and_new_parameter(&w);
    let md = stdout(&w.run(&["diff", "--format", "markdown"]));
    let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| tool") || l.starts_with("| lines")).collect();
    assert_eq!(
        rows,
        [
            "| tool `read_file` | parameter `encoding` added | every cell | \
             +35 (anthropic +38…+39, gemini +32, prompt +31) |",
            "| tool `read_file` | description changed | `standard.*` | +9 (anthropic +10) |",
        ],
        "{md}"
    );
    assert!(!md.contains("section `tool_docs`"), "the tool docs' lines are the tool's changes: {md}");
    assert!(
        md.contains("**tool `read_file`: description changed** · 25 files\n```diff\n+Prefer it over shell"),
        "{md}"
    );
    insta::assert_snapshot!("description-and-parameter.markdown", md);

    // The same changes, with the same figures, in the JSON, the text and the HTML page.
    let v: serde_json::Value = serde_json::from_slice(&w.run(&["diff", "--format", "json"]).stdout).unwrap();
    let changes = v["changes"].as_array().unwrap();
    let own = |kind: &str, cell: &str| -> (serde_json::Value, serde_json::Value) {
        let c = changes.iter().find(|c| c["kind"] == kind).unwrap_or_else(|| panic!("no {kind}: {changes:#?}"));
        let d = c["deltas"].as_array().unwrap().iter().find(|d| d["cell"] == cell).expect(cell);
        (d["before"]["tokens"].clone(), d["after"]["tokens"].clone())
    };
    assert_eq!(own("description_changed", "standard.native.openai"), (104.into(), 113.into()));
    assert_eq!(own("parameter_added", "standard.native.openai"), (serde_json::Value::Null, 35.into()));
    assert_eq!(own("parameter_added", "lite.xml"), (serde_json::Value::Null, 31.into()));
    let text = stdout(&w.run(&["diff"]));
    assert!(
        text.contains("  tool read_file: description changed · standard.* · Δ tokens +9 (anthropic +10)\n"),
        "{text}"
    );
    let html = stdout(&w.run(&["diff", "--format", "html"]));
    assert!(
        html.contains("<th scope=\"row\">tool read_file: parameter encoding added</th><td>every cell</td>"),
        "{html}"
    );
}

/// A summary.json written before promptc kept each tool's description and parameter figures
/// still loads: the changes are named as ever, their own figures unknown (`–`), never 0, and
/// the tool's figure is still there.
#[test]
fn an_older_summary_without_the_parts_figures_shows_them_as_unknown() {
    let w = Workspace::new();
    let file = w.path("snapshots/summary.json");
    let mut summary: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    for cell in summary["cells"].as_array_mut().unwrap() {
        for account in cell["accounts"].as_array_mut().into_iter().flatten() {
            for tool in account["tool_items"].as_array_mut().unwrap() {
                let tool = tool.as_object_mut().unwrap();
                assert!(tool.remove("description").is_some() && tool.remove("params").is_some(), "{tool:?}");
            }
        }
    }
    std::fs::write(&file, serde_json::to_string_pretty(&summary).unwrap() + "\n").unwrap();
    description_edit_and_new_parameter(&w);
    let md = stdout(&w.run(&["diff", "--format", "markdown"]));
    assert!(md.contains("| tool `read_file` | parameter `encoding` added | every cell | – |"), "{md}");
    assert!(md.contains("| tool `read_file` | description changed | `standard.*` | – |"), "{md}");
    let v: serde_json::Value = serde_json::from_slice(&w.run(&["diff", "--format", "json"]).stdout).unwrap();
    assert!(v["changes"].as_array().unwrap().iter().all(|c| c["deltas"].as_array().unwrap().is_empty()), "{v:#}");
    let tool =
        v["deltas"].as_array().unwrap().iter().find(|d| d["item"] == "tool read_file").expect("the tool's figure");
    assert_eq!(
        (&tool["before"]["tokens"], &tool["cell"]),
        (&serde_json::json!(239), &serde_json::json!("standard.native.openai"))
    );
    assert!(!v["deltas"].as_array().unwrap().iter().any(|d| d["item"].as_str().unwrap().contains(", ")), "{v:#}");
}

/// A tool added everywhere and one dropped from `lite`: each a named change with the tool's own
/// figure, reaching the cells it is (or was) in.
#[test]
fn tools_added_and_removed_are_named_changes_with_the_tools_figures() {
    let w = Workspace::new();
    let path = std::fs::read_to_string(w.path("profiles/tools/files.yaml")).unwrap();
    std::fs::write(
        w.path("profiles/tools/files.yaml"),
        path + "\n- name: file_info\n  toolset: files\n  description: >-\n    Show a file's size, modification \
                time and type without reading it.\n  parameters:\n    path:\n      type: string\n      \
                required: true\n      description: Path of the file, relative to the workspace root.\n",
    )
    .unwrap();
    w.edit(
        "profiles/promptc.yaml",
        "      - plan_mode_respond\n      - take_note\n",
        "      - plan_mode_respond\n      - file_info\n",
    );
    let md = stdout(&w.run(&["diff", "--format", "markdown"]));
    assert!(
        md.contains("| tool `file_info` | added | every cell | +68 (openai +71, gemini +59, prompt +59) |"),
        "{md}"
    );
    assert!(
        md.contains(
            "| tool `take_note` | removed | `lite.*` | \
             -137 (openai-responses -134, anthropic -152, gemini -129, prompt -138) |"
        ),
        "{md}"
    );
    assert!(md.contains("**tool `file_info` added** · 40 files\n```diff\n+## file_info\n"), "{md}");
    // What else the removal changed in lite's prompts: the section that named the tool.
    assert!(md.contains("| section `tool_guidance` | changed |"), "{md}");
}

#[test]
fn a_flipped_switch_default_changes_the_cells_that_follow_the_default() {
    let w = Workspace::new();
    w.edit(
        "profiles/promptc.yaml",
        "  browser:\n    description: A headless browser is available for inspecting web \
        pages and local dev servers.\n    default: false",
        "  browser:\n    description: A headless browser is \
        available for inspecting web pages and local dev servers.\n    default: true",
    );
    let (code, files) = w.drift();
    assert_eq!(code, 1);
    assert!(files.contains_key("standard.native.openai.tools.json"));
    assert!(files.contains_key("standard.yolo.xml.prompt.md"));
    // The case that sets browser explicitly does not move.
    assert!(!files.keys().any(|f| f.contains("all-capabilities")), "{files:?}");
    // Lite excludes browser_action: its tools do not change.
    assert!(!files.keys().any(|f| f.starts_with("lite.") && f.ends_with(".tools.json")), "{files:?}");
}

#[test]
fn a_new_profile_is_reported_and_update_accepts_it() {
    let w = Workspace::new();
    w.edit(
        "profiles/promptc.yaml",
        "profiles:\n",
        "profiles:\n  tiny:\n    description: Just the role.\n    sections: [role]\n    tools: [read_file]\n",
    );
    let (code, files) = w.drift();
    assert_eq!(code, 1);
    let added: Vec<&String> = files.iter().filter(|(_, s)| *s == "added").map(|(f, _)| f).collect();
    // 4 cases and the researcher sub-agent, each 4 tools files + 2 prompts, and the command.
    assert_eq!(added.len(), 5 * (4 + 2) + 1, "{added:?}");
    assert!(added.iter().all(|f| f.starts_with("tiny.")));
    let out = w.run(&["diff", "--update"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(w.path("snapshots/tiny.xml.prompt.md").is_file());
    assert_eq!(w.drift(), (0, BTreeMap::new()));
}

#[test]
fn a_removed_cell_is_reported_and_snapshot_deletes_its_files() {
    let w = Workspace::new();
    w.edit(
        "profiles/promptc.yaml",
        "  yolo:\n    description: Auto-approve mode, no plan mode or approval \
        parameters.\n    switches: {yolo: true}\n",
        "",
    );
    let (code, files) = w.drift();
    assert_eq!(code, 1);
    let removed: Vec<&String> = files.iter().filter(|(_, s)| *s == "removed").map(|(f, _)| f).collect();
    assert_eq!(removed.len(), 12);
    assert!(removed.iter().all(|f| f.contains(".yolo.")));
    let out = w.run(&["snapshot"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("12 removed"));
    assert!(!w.path("snapshots/lite.yolo.xml.prompt.md").exists());
    assert_eq!(w.drift(), (0, BTreeMap::new()));
}

#[test]
fn snapshots_are_byte_identical_across_processes_and_listing_order() {
    let w = Workspace::new();
    for d in ["a", "b"] {
        let out = w.run(&["snapshot", "--dir", d]);
        assert_eq!(out.status.code(), Some(0));
    }
    let read = |d: &str| -> BTreeMap<String, Vec<u8>> {
        std::fs::read_dir(w.path(d))
            .unwrap()
            .map(|e| e.unwrap())
            .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
            .collect()
    };
    let a = read("a");
    assert_eq!(a, read("b"));
    assert_eq!(a, read("snapshots"), "the committed snapshots are what the project renders");
    // Create the files in reverse and in an interleaved order: the comparison is by name.
    for (order, dir) in [
        (a.keys().rev().cloned().collect::<Vec<_>>(), "rev"),
        (a.keys().step_by(2).chain(a.keys().skip(1).step_by(2)).cloned().collect(), "mixed"),
    ] {
        std::fs::create_dir(w.path(dir)).unwrap();
        for name in order {
            std::fs::write(w.path(dir).join(&name), &a[&name]).unwrap();
        }
        let out = w.run(&["diff", "--dir", dir]);
        assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    }
}

#[test]
fn a_failed_snapshot_write_leaves_no_partial_or_temporary_files() {
    let w = Workspace::new();
    // A folder where a snapshot file must go makes the final rename fail.
    std::fs::remove_file(w.path("snapshots/lite.xml.prompt.md")).unwrap();
    std::fs::create_dir(w.path("snapshots/lite.xml.prompt.md")).unwrap();
    w.edit("profiles/promptc.yaml", "contract_version: 1", "contract_version: 5");
    let out = w.run(&["snapshot"]);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("lite.xml.prompt.md"));
    let leftovers: Vec<String> = std::fs::read_dir(w.path("snapshots"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".promptc-") || n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn freeze_then_verify_fresh_and_stale() {
    let w = Workspace::new();
    let out = w.run(&[
        "freeze",
        "--profile",
        "standard",
        "--provider",
        "anthropic",
        "--set",
        "browser",
        "--out",
        "frozen.json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let rec: serde_json::Value = serde_json::from_slice(&std::fs::read(w.path("frozen.json")).unwrap()).unwrap();
    assert_eq!(rec["request"]["switches"]["browser"], true);
    assert_eq!(rec["metadata"]["provider"], "anthropic");
    assert!(rec["prompt"].as_str().unwrap().starts_with("You are Forge"));
    assert!(rec["tools"].as_array().unwrap().iter().any(|t| t["name"] == "browser_action"));

    let verify = |w: &Workspace| {
        let out = w.run(&["verify", "frozen.json", "--format", "json"]);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (out.status.code().unwrap(), v)
    };
    let (code, v) = verify(&w);
    assert_eq!((code, v["fresh"].as_bool()), (0, Some(true)));

    // Editing files outside the project folder changes nothing: a new file beside it, and a
    // real change to a snapshot (output, not input).
    std::fs::write(w.path("unrelated.txt"), "hello").unwrap();
    w.edit("snapshots/standard.xml.prompt.md", "You are Forge", "You were Forge");
    let (code, v) = verify(&w);
    assert_eq!((code, &v["notes"]), (0, &serde_json::json!([])), "{v}");

    // A contract version bump makes it stale, with that reason.
    w.edit("profiles/promptc.yaml", "contract_version: 1", "contract_version: 2");
    let (code, v) = verify(&w);
    assert_eq!(code, 1);
    assert_eq!(v["reasons"][0], serde_json::json!({"kind": "contract_version", "frozen": 1, "current": 2}));
    let out = w.run(&["verify", "frozen.json"]);
    assert!(stdout(&out).contains("contract version bumped: 1 → 2"), "{}", stdout(&out));
}

#[test]
fn verify_names_changed_files_switches_and_sections() {
    let w = Workspace::new();
    assert_eq!(w.run(&["freeze", "--out", "frozen.json"]).status.code(), Some(0));
    w.edit("profiles/sections/rules.md.j2", "\n", "\nAlways double-check file paths.\n");
    w.edit(
        "profiles/promptc.yaml",
        "  browser:\n    description: A headless browser is available for inspecting web \
        pages and local dev servers.\n    default: false",
        "  browser:\n    description: A headless browser is \
        available for inspecting web pages and local dev servers.\n    default: true",
    );
    let out = w.run(&["verify", "frozen.json"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    for needle in [
        "input file changed: sections/rules.md.j2",
        "input file changed: promptc.yaml",
        "switch `browser` differs: false → true",
        "section changed: rules",
        "tool added: browser_action",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in:\n{text}");
    }
    assert!(!text.contains("tool projection changed"), "{text}");
}

/// A copy of the fixture project at `rel`, frozen to `frozen.json` with `args`.
fn frozen_copy(rel: &str, args: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    common::copy_dir(&common::repo().join(rel), dir.path());
    let out = common::promptc_in(dir.path(), &[&["freeze", "--out", "frozen.json"], args].concat());
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    dir
}

/// `verify` on `frozen.json` in `dir` after `edits` (file, from, to): exit code and stdout.
fn verify_after(dir: &std::path::Path, edits: &[(&str, &str, &str)]) -> (i32, String) {
    for (file, from, to) in edits {
        let p = dir.join(file);
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.contains(from), "{file} lacks {from:?}");
        std::fs::write(&p, text.replacen(from, to, 1)).unwrap();
    }
    let out = common::promptc_in(dir, &["verify", "frozen.json"]);
    (out.status.code().unwrap(), stdout(&out))
}

/// Each changed tool is named (it said "tool projection changed"), and a string-valued switch
/// is named like an on/off one (it was not named at all).
#[test]
fn verify_names_each_changed_tool_and_string_switch() {
    let dir = frozen_copy("fixtures/good/switch-values", &[]);
    let (code, text) = verify_after(
        dir.path(),
        &[
            ("promptc.yaml", "default: interactive", "default: batch"),
            ("tools.yaml", "Move a delivery to another time slot.", "Move a delivery to a later time slot."),
        ],
    );
    assert_eq!(code, 1, "{text}");
    for needle in ["switch `style` differs: interactive → batch", "tool changed: reschedule"] {
        assert!(text.contains(needle), "missing {needle:?} in:\n{text}");
    }
    assert!(!text.contains("tool projection changed"), "{text}");
    let out = common::promptc_in(dir.path(), &["verify", "frozen.json", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let reasons = v["reasons"].as_array().unwrap();
    assert!(reasons.contains(&serde_json::json!({"kind": "tool", "name": "reschedule", "change": "changed"})), "{v}");
    assert!(
        reasons.contains(&serde_json::json!(
            {"kind": "string_switch", "name": "style", "frozen": "interactive", "current": "batch"}
        )),
        "{v}"
    );
}

/// Each changed harness message is named by its place and role (it said "harness messages
/// changed"), in an xml record too.
#[test]
fn verify_names_each_changed_message() {
    let dir = frozen_copy("fixtures/good/harness-messages", &["--transport", "xml"]);
    let (code, text) = verify_after(
        dir.path(),
        &[
            ("promptc.yaml", "The last CI run failed. Look", "CI failed. Look"),
            ("promptc.yaml", "default: false", "default: true"),
        ],
    );
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("message changed: 1 (user)"), "{text}");
    assert!(!text.contains("message changed: 2"), "{text}");
}

#[test]
fn diff_compares_two_artifact_folders() {
    let w = Workspace::new();
    assert_eq!(w.run(&["render", "--out", "a"]).status.code(), Some(0));
    assert_eq!(w.run(&["render", "--out", "b"]).status.code(), Some(0));
    let out = w.run(&["diff", "a", "b"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(w.run(&["render", "--out", "b", "--set", "focus_chain=false"]).status.code(), Some(0));
    let out = w.run(&["diff", "a", "b", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let items: Vec<&str> = v["deltas"].as_array().unwrap().iter().map(|d| d["item"].as_str().unwrap()).collect();
    assert!(items.contains(&"section focus_chain"), "{items:?}");
    assert!(items.contains(&"prompt"), "{items:?}");
    // Artifacts of two different cells are still one prompt each: compared section by section
    // under one name, a section both have is changed (not removed and re-added).
    assert_eq!(w.run(&["render", "--out", "c", "--profile", "lite"]).status.code(), Some(0));
    let out = w.run(&["diff", "a", "c", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let deltas = v["deltas"].as_array().unwrap();
    assert!(deltas.iter().all(|d| d["cell"] == "standard.native.openai → lite.native.openai"), "{deltas:?}");
    let role = deltas.iter().find(|d| d["item"] == "section role").unwrap();
    assert!(role["before"]["bytes"].as_u64().unwrap() > role["after"]["bytes"].as_u64().unwrap(), "{role}");
    let capabilities = deltas.iter().find(|d| d["item"] == "section capabilities").unwrap();
    assert!(capabilities["after"].is_null(), "only standard has it: {capabilities}");
    // Two snapshot folders compare too.
    assert_eq!(w.run(&["snapshot", "--dir", "s1"]).status.code(), Some(0));
    assert_eq!(w.run(&["diff", "s1", "snapshots"]).status.code(), Some(0));
}

/// Several one-word edits in tool files and a section (a change repeated in dozens of
/// snapshot files): the PR comment shows each hunk once, stays within GitHub's comment limit,
/// and with a small cap says what it left out.
#[test]
fn markdown_for_a_pr_groups_identical_hunks_and_stays_within_the_limit() {
    let w = Workspace::new();
    w.edit("profiles/tools/shell.yaml", "The command line to run", "The full command line to run");
    w.edit("profiles/tools/files.yaml", "Path of the file", "Path of the document");
    w.edit("profiles/tools/web.yaml", "The absolute http(s) URL to fetch.", "The absolute URL to fetch.");
    w.edit("profiles/sections/rules.md.j2", "Find things out with your tools", "Find things out with tools");
    let out = w.run(&["-C", "profiles", "diff", "--format", "markdown"]);
    assert_eq!(out.status.code(), Some(1));
    let md = stdout(&out);
    assert!(md.chars().count() <= 65_536, "{} characters", md.chars().count());
    assert!(md.starts_with("### promptc diff — drift: "), "{md}");
    assert!(md.contains("| change | what | reaches (of the cells that have it) | Δ tokens |"), "{md}");
    // Each change once, titled with what it changed: the rules edit changes every lite prompt
    // file, in different contexts, and is one change.
    assert_eq!(md.matches("+- Find things out with tools instead").count(), 1, "{md}");
    assert!(md.contains("**section `rules` changed** · "), "{md}");
    for title in [
        "**tool `execute_command`: parameter `command` changed**",
        "**tool `read_file`: parameter `path` changed**",
        "**tool `web_fetch`: parameter `url` changed**",
    ] {
        assert_eq!(md.matches(title).count(), 1, "{title}\n{md}");
    }
    assert!(!md.contains("Left out"), "{md}");

    let small = stdout(&w.run(&["-C", "profiles", "diff", "--format", "markdown", "--max-bytes", "1500"]));
    assert!(small.len() <= 1500, "{}", small.len());
    assert!(small.contains("Left out to stay within 1500 bytes"), "{small}");
    assert_eq!(small.matches("<details>").count(), small.matches("</details>").count(), "{small}");
    assert!(small.contains("Run `promptc diff` for everything."), "{small}");
}

/// The example's tool files with 30 descriptions edited — every tool's and the first nine
/// one-line parameter descriptions, a word put in front — and the names of the tools.
fn edit_thirty_descriptions(w: &Workspace) -> Vec<String> {
    let mut tools = Vec::new();
    let mut params = 0;
    let dir = w.path("profiles/tools");
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let mut out: Vec<String> = Vec::new();
        let mut lines = text.lines();
        while let Some(line) = lines.next() {
            if let Some(name) = line.strip_prefix("- name: ") {
                tools.push(name.to_string());
            }
            if line == "  description: >-" {
                out.push(line.into());
                let next = lines.next().unwrap();
                out.push(next.replacen("    ", "    Edited ", 1));
                continue;
            }
            match line.strip_prefix("      description: ") {
                Some(d) if !d.starts_with(">-") && params < 9 => {
                    params += 1;
                    out.push(format!("      description: Edited {d}"));
                }
                _ => out.push(line.into()),
            }
        }
        std::fs::write(&f, out.join("\n") + "\n").unwrap();
    }
    assert_eq!((tools.len(), params), (21, 9));
    tools
}

/// The PR comment for 30 edited descriptions fits in 10 KB and names every changed tool, its
/// description in one row; the same edit in every provider's JSON and the XML prompts is one
/// change.
#[test]
fn markdown_for_thirty_edited_descriptions_is_under_ten_kilobytes_and_names_every_tool() {
    let w = Workspace::new();
    let tools = edit_thirty_descriptions(&w);
    let out = w.run(&["-C", "profiles", "diff", "--format", "markdown"]);
    assert_eq!(out.status.code(), Some(1));
    let md = stdout(&out);
    assert!(md.len() <= 10 * 1024, "{} bytes:\n{md}", md.len());
    assert!(md.contains("**Changed:** 21 tool descriptions and 9 parameters changed"), "{md}");
    for tool in &tools {
        assert_eq!(md.matches(&format!("| tool `{tool}` | description changed |")).count(), 1, "{tool}\n{md}");
        assert_eq!(md.matches(&format!("**tool `{tool}`: description changed**")).count(), 1, "{tool}\n{md}");
    }
    assert_eq!(md.matches("| parameter `").count(), 9, "{md}");
    assert!(md.contains("<details><summary>The 30 changes, each once</summary>"), "{md}");
    assert!(md.contains("<details><summary>Δ tokens of every changed cell (18)</summary>"), "{md}");
    assert!(!md.contains("Left out"), "{md}");
}

/// `diff --accept GLOB` takes the drift of the matching files only; the rest stay as
/// committed, and summary.json follows only once everything is accepted.
#[test]
fn accept_takes_only_the_matching_files() {
    let w = Workspace::new();
    w.edit("profiles/tools/files.yaml", "Read the contents of a file", "Read the full contents of a file");
    let (_, before) = w.drift();
    let summary_before = std::fs::read(w.path("snapshots/summary.json")).unwrap();
    let out = w.run(&["-C", "profiles", "diff", "--accept", "*.openai.tools.json"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let (_, after) = w.drift();
    let accepted: Vec<&String> = before.keys().filter(|f| !after.contains_key(*f)).collect();
    assert!(!accepted.is_empty() && accepted.iter().all(|f| f.ends_with(".openai.tools.json")), "{accepted:?}");
    assert!(after.contains_key("standard.native.anthropic.tools.json"));
    // The summary describes the committed matrix still; only its list of the files promptc
    // wrote follows the accepted ones (their new hashes), so they stay promptc's.
    let summary_after = std::fs::read(w.path("snapshots/summary.json")).unwrap();
    let without_files = |bytes: &[u8]| {
        let mut v: serde_json::Value = serde_json::from_slice(bytes).unwrap();
        v.as_object_mut().unwrap().remove("files");
        v
    };
    assert_eq!(without_files(&summary_after), without_files(&summary_before));
    let listed: serde_json::Value = serde_json::from_slice(&summary_after).unwrap();
    for f in listed["files"].as_array().unwrap() {
        let text = std::fs::read(w.path("snapshots").join(f["name"].as_str().unwrap())).unwrap();
        assert_eq!(f["sha256"], common::sha256_hex(&text), "{}", f["name"]);
    }

    // The project changes again before the rest is accepted: the accepted files are still
    // promptc's to replace.
    w.edit("profiles/tools/files.yaml", "Read the full contents of a file", "Read the whole contents of a file");

    // Accepting the rest leaves no drift, summary included.
    let out = w.run(&["-C", "profiles", "diff", "--accept", "*"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(w.drift().0, 0);
}

#[test]
fn diff_before_any_snapshot_says_to_run_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    common::copy_dir(&common::repo().join("profiles"), &dir.path().join("profiles"));
    let out = common::promptc_in(&dir.path().join("profiles"), &["diff"]);
    assert_eq!(out.status.code(), Some(1), "everything is missing: drift");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("holds no snapshots of this project yet: run `promptc snapshot`"), "{err}");
    // With snapshots written, no such note.
    assert_eq!(common::promptc_in(&dir.path().join("profiles"), &["snapshot"]).status.code(), Some(0));
    let out = common::promptc_in(&dir.path().join("profiles"), &["diff"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("no snapshots"));
}

/// A snapshot folder an older promptc wrote (a summary of format 3: files listed without
/// hashes, the cells' fingerprints recorded) is read to compare, never written on its say-so:
/// `diff` reports the summary's drift and says how to take the folder over; `snapshot`
/// refuses; `snapshot --adopt` takes over the files still as recorded — never one a user
/// changed — and then writes the current format.
#[test]
fn an_older_snapshot_folder_is_adopted_only_on_request_and_only_as_recorded() {
    let w = Workspace::new();
    let summary = w.path("snapshots/summary.json");
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap();
    let names: Vec<serde_json::Value> = v["files"].as_array().unwrap().iter().map(|f| f["name"].clone()).collect();
    v["format"] = 3.into();
    v["files"] = names.into();
    std::fs::write(&summary, serde_json::to_string_pretty(&v).unwrap()).unwrap();

    let out = w.run(&["diff"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout(&out).contains("drift: 1 modified, 0 missing from snapshots"), "{}", stdout(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("run `promptc snapshot --adopt`"));
    let out = w.run(&["snapshot"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("holds files promptc did not write"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("`promptc snapshot --adopt` takes over"));

    // A file the user changed is not taken over, so the write still refuses to touch it.
    let prompt = w.path("snapshots/standard.native.prompt.md");
    let original = std::fs::read_to_string(&prompt).unwrap();
    std::fs::write(&prompt, format!("{original}\nmy note\n")).unwrap();
    let out = w.run(&["snapshot", "--adopt"]);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(std::fs::read_to_string(&prompt).unwrap().ends_with("my note\n"), "the user's edit is kept");
    std::fs::write(&prompt, original).unwrap();
    let out = w.run(&["snapshot", "--adopt"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(w.run(&["diff"]).status.code(), Some(0));
}

/// `snapshot` ends with one line saying what it wrote where, and lists the files only with -v.
#[test]
fn snapshot_sums_up_in_one_line_and_lists_files_only_with_verbose() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("p");
    common::copy_dir(&common::repo().join("fixtures/good/minimal"), &root);
    let run = |args: &[&str]| {
        let out = common::promptc_in(&root, args);
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let first = run(&["snapshot"]);
    assert_eq!(first.lines().count(), 1, "one line:\n{first}");
    let files = first.split_whitespace().nth(1).unwrap().to_string();
    assert!(first.starts_with("wrote ") && first.trim_end().ends_with(&format!("({files} changed)")), "{first}");
    let again = run(&["snapshot", "-v"]);
    let again = again.trim_end();
    assert!(again.starts_with(&format!("wrote {files} files to ")), "{again}");
    assert!(again.ends_with("snapshots/ (0 changed)"), "nothing changed: {again}");
    std::fs::write(root.join("sections/role.md.j2"), "You are a different agent.\n").unwrap();
    let listed = run(&["snapshot", "-v"]);
    assert!(listed.lines().count() > 1 && listed.lines().all(|l| l.starts_with("wrote ")), "-v lists:\n{listed}");
}
