//! The design notes' own problems as projects (`fixtures/design/`): each fixture renders, and
//! `promptc check` gives exactly the lints the note's situation calls for; the fix each note
//! chose, applied to a copy, checks clean.
//!
//! - 000: tools injecting text into slots — legal and forbidden slots, one-sided injection,
//!   several tools in one slot in tool order, contributions that would vanish.
//! - 003: a ReAct loop — nonce-tagged untrusted text, JSON actions with per-action schemas,
//!   `disallow_exit` removing `finish`, generated examples against a hand-written one.
//! - 004: a toolset catalog whose enforcement text hard-codes tool names a crew sub-agent does
//!   not have (the note's exact text), a tool description and a command doing the same.

use crate::common;

use std::path::{Path, PathBuf};

use common::{copy_dir, promptc_in, repo};
use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    repo().join("fixtures/design").join(name)
}

/// `check --format json` in `dir`: (exit code, diagnostics as (code, message, file:line:col)).
fn check(dir: &Path) -> (i32, Vec<(String, String, String)>) {
    let out = promptc_in(dir, &["check", "--format", "json"]);
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("check --format json: {}", String::from_utf8_lossy(&out.stderr)));
    let list = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let file = d["file"].as_str().unwrap_or("");
            let file = Path::new(file).file_name().map_or(String::new(), |f| f.to_string_lossy().into_owned());
            (
                d["code"].as_str().unwrap_or("").to_string(),
                d["message"].as_str().unwrap().to_string(),
                format!("{file}:{}:{}", d["line"], d["column"]),
            )
        })
        .collect();
    (out.status.code().unwrap(), list)
}

fn render(dir: &Path, args: &[&str]) -> String {
    let mut a = vec!["render"];
    a.extend_from_slice(args);
    let out = promptc_in(dir, &a);
    assert_eq!(out.status.code(), Some(0), "render {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// A writable copy of a fixture.
fn copy(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture(name), dir.path());
    dir
}

fn edit(dir: &Path, rel: &str, from: &str, to: &str) {
    let p = dir.join(rel);
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(text.contains(from), "{rel} does not contain {from:?}");
    std::fs::write(&p, text.replacen(from, to, 1)).unwrap();
}

/// The first error of a project that does not load: (message line, location line).
fn load_error(dir: &Path) -> String {
    let out = promptc_in(dir, &["render"]);
    assert_eq!(out.status.code(), Some(2), "the project should not load");
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn note_004_the_enforcement_text_dangles_in_the_crew_sub_agent_and_the_fix_checks_clean() {
    let dir = fixture("004-toolset-catalog");
    let (code, found) = check(&dir);
    assert_eq!(code, 1);
    let crew = "4 cells";
    let expected = [
        ("P001", "command `plan` names tool `todo`, which is not active in 1 cell".to_string(), "plan.md.j2:1:48"),
        (
            "P001",
            format!("section `enforcement` names tool `patch`, which is not active in {crew}"),
            "enforcement.md.j2:13:15",
        ),
        (
            "P001",
            format!("section `enforcement` names tool `list_dir`, which is not active in {crew}"),
            "enforcement.md.j2:14:15",
        ),
        (
            "P001",
            format!("section `enforcement` names tool `clarify`, which is not active in {crew}"),
            "enforcement.md.j2:16:14",
        ),
        (
            "P001",
            "section `enforcement` names tool `todo`, which is not active in 6 cells".to_string(),
            "enforcement.md.j2:17:13",
        ),
        (
            "P001",
            format!("the description of tool `bash` names tool `clarify`, which is not active in {crew}"),
            "shell.yaml:5:59",
        ),
    ];
    let expected: Vec<(String, String, String)> =
        expected.iter().map(|(c, m, l)| (c.to_string(), m.clone(), l.to_string())).collect();
    assert_eq!(found, expected);

    // The note's fix: the scenarios generated from the tools the cell has, the bash sentence
    // about clarify sent only with clarify, the command guarded.
    let fixed = copy("004-toolset-catalog");
    let d = fixed.path();
    std::fs::copy(d.join("sections/enforcement.fixed.md.j2"), d.join("sections/enforcement.md.j2")).unwrap();
    edit(
        d,
        "tools/shell.yaml",
        "    Run a shell command in the workspace and return its output.\n    If you are not sure which command the user \
         wants, use clarify to ask before running anything.\n",
        "    Run a shell command in the workspace and return its output.\n  description_parts:\n    - text: If you are \
         not sure which command the user wants, use clarify to ask before running anything.\n      tools: [clarify]\n",
    );
    edit(
        d,
        "commands/plan.md.j2",
        "Use todo to list the steps",
        "{% if \"todo\" in tool_names %}Use todo to list the steps{% else %}List the steps{% endif %}",
    );
    assert_eq!(check(d), (0, vec![]));
    let crew = render(d, &["--subagent", "crew", "--format", "json"]);
    assert!(!crew.contains("clarify"), "the crew prompt and tools name no clarify:\n{crew}");
    assert!(crew.contains("需要修改文件时 → write_file"), "the crew gets the write_file line instead of patch");
    let main = render(d, &["--format", "json"]);
    assert!(main.contains("任务需求不明确时 → clarify"));
    assert!(main.contains("use clarify to ask before running anything"), "the main agent's bash keeps the sentence");
}

#[test]
fn note_003_the_loop_keeps_per_action_schemas_and_a_static_example_outlives_finish() {
    let dir = fixture("003-react-loop");
    let (code, found) = check(&dir);
    assert_eq!(code, 1);
    let codes: Vec<(&str, &str)> = found.iter().map(|(c, m, _)| (c.as_str(), m.as_str())).collect();
    assert_eq!(
        codes,
        [
            ("P001", "section `output_example` names tool `finish`, which is not active in 2 cells"),
            // The note's template puts the user's query before the static schema: caching stops there.
            ("P004", "section `query` changes between sessions but comes before static section `schema`"),
            ("P004", "section `query` changes between sessions but comes before static section `tool_docs`"),
        ]
    );
    let round = render(&dir, &[]);
    let exit = render(&dir, &["--set", "disallow_exit=true"]);
    assert!(round.contains("<|USER_QUERY_") && round.contains("<|USER_QUERY_END_"), "the query is nonce-tagged");
    assert!(round.contains(r#"{"@action":"finish","identifier":"finish_example""#));
    assert!(!exit.contains(r#""@action":"finish","identifier":"finish_example""#), "no generated finish example");
    assert!(!exit.contains("\"finish\",\n"), "finish is not an action");
    // The fix: the hand-written example guarded (or dropped for the generated one).
    let fixed = copy("003-react-loop");
    let d = fixed.path();
    std::fs::write(
        d.join("sections/output_example.md.j2"),
        "{% if \"finish\" in tool_names %}When you are done, answer with the `finish` action.{% endif %}\n",
    )
    .unwrap();
    let (_, found) = check(d);
    assert!(found.iter().all(|(c, _, _)| c != "P001"), "{found:?}");
}

#[test]
fn note_000_tools_inject_into_legal_slots_one_side_or_both_in_tool_order() {
    let dir = fixture("000-tool-contributions");
    assert_eq!(check(&dir), (0, vec![]));
    let chat = render(&dir, &[]);
    let notes = chat.find("Your notes so far:").expect("tf_notes injects into the chat side");
    let search = chat.find("Search results you already have").expect("web_search injects too");
    assert!(notes < search, "several tools in one slot merge in tool order");
    let desk = render(&dir, &["--profile", "desk"]);
    assert!(desk.contains("Notes: - extract") && desk.contains("1920 by 1080"));
    assert!(!desk.contains("Search results"), "one-sided injection stays on its side");

    // Forbidden: the user's intent and the system's history are closed to tools.
    for (slot, why) in [("purpose", "user-intent slots are not injectable"), ("initial_screenshot", "history slots")] {
        let bad = copy("000-tool-contributions");
        edit(bad.path(), "tools/desk.yaml", "    - slot: desk_context", &format!("    - slot: {slot}"));
        let err = load_error(bad.path());
        assert!(
            err.contains(&format!("tool `click` may not contribute to slot `{slot}`")) && err.contains(why),
            "{err}"
        );
        assert!(err.contains("tools/desk.yaml:14:13"), "{err}");
    }
    // A contribution its profile does not show would vanish: an error naming tool, slot, profile.
    let bad = copy("000-tool-contributions");
    edit(bad.path(), "tools/notes.yaml", "      profiles: [chat]\n", "");
    let err = load_error(bad.path());
    assert!(
        err.contains("tool `tf_notes` contributes to slot `chat_context`, which profile `desk` does not show"),
        "{err}"
    );
    assert!(err.contains("`profiles: [chat]`"), "the help names the profiles that show it: {err}");
    // An empty profiles list is not "every profile".
    let bad = copy("000-tool-contributions");
    edit(bad.path(), "tools/notes.yaml", "      profiles: [chat]\n", "      profiles: []\n");
    assert!(load_error(bad.path()).contains("has an empty `profiles:` list"));
}

#[test]
fn per_profile_parameters_and_description_parts_reach_every_projection() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture("004-toolset-catalog"), dir.path());
    let d = dir.path();
    // `task_progress` only in standard; a description part only with todo active.
    edit(
        d,
        "tools/files.yaml",
        "      description: The whole new contents.\n",
        "      description: The whole new contents.\n    task_progress:\n      type: string\n      profiles: [standard]\n      \
         description: The checklist, updated.\n",
    );
    edit(
        d,
        "tools/files.yaml",
        "  description: Create a file, or replace all of its contents.\n",
        "  description: Create a file, or replace all of its contents.\n  description_parts:\n    - text: Tick the item off \
         the todo list afterwards.\n      tools: [todo]\n",
    );
    for transport in ["native", "xml"] {
        let standard = render(d, &["--transport", transport, "--format", "json"]);
        let lite = render(d, &["--profile", "lite", "--transport", transport, "--format", "json"]);
        assert!(standard.contains("task_progress"), "{transport}: standard sends the parameter");
        assert!(!lite.contains("task_progress"), "{transport}: lite does not");
        assert!(standard.contains("Tick the item off the todo list afterwards."), "{transport}");
        assert!(!lite.contains("Tick the item off"), "{transport}: lite has no todo tool");
    }
}
