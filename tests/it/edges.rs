//! `assembly:`: every byte promptc adds or removes around sections is the project's to set —
//! the prompt's final newline, the normalisation of each section's text, the text between
//! sections — in the prompt, harness messages, slot contributions and commands.

use crate::common;

use common::promptc_in;

/// A project of two sections (the second starts and ends with blank lines, and has a CRLF), a
/// harness message of both, a slot with two contributions and a command, with `assembly`.
fn project(assembly: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let manifest = format!(
        "promptc: 1\nname: edges\ncontract_version: 1\n{assembly}\n\
         slots:\n  notes: {{description: Notes.}}\n\
         sections:\n  a: {{text: \"first\"}}\n  b: {{template: b.j2}}\n  n: {{slot: notes}}\n\
         commands:\n  plan: {{description: Plan., template: c.j2}}\n\
         tools: [tools.yaml]\n\
         profiles:\n  p:\n    sections: [a, b]\n    messages:\n      - {{role: user, sections: [b, a]}}\n\
         \x20 q:\n    sections: [n]\n    tools: [note, memo]\n"
    );
    std::fs::write(dir.path().join("promptc.yaml"), manifest).expect("write manifest");
    std::fs::write(dir.path().join("b.j2"), "\n\n  second\r\n\n\n\n").expect("write b.j2");
    std::fs::write(dir.path().join("c.j2"), "\nplan it\n\n").expect("write c.j2");
    let tools = "- name: note\n  toolset: memory\n  description: Take a note.\n  contributes:\n    - slot: notes\n      text: |\n        \
                 one\n\n- name: memo\n  toolset: memory\n  description: Keep a memo.\n  contributes:\n    - slot: notes\n      text: \"two\"\n";
    std::fs::write(dir.path().join("tools.yaml"), tools).expect("write tools.yaml");
    dir
}

fn run(dir: &tempfile::TempDir, args: &[&str]) -> String {
    let out = promptc_in(dir.path(), args);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8")
}

fn messages(dir: &tempfile::TempDir) -> String {
    let json: serde_json::Value =
        serde_json::from_str(&run(dir, &["render", "--profile", "p", "--format", "json"])).expect("render JSON");
    json["messages"][0]["content"].as_str().expect("message content").to_string()
}

#[test]
fn by_default_sections_are_trimmed_joined_by_a_blank_line_and_the_prompt_ends_with_a_newline() {
    let dir = project("");
    assert_eq!(run(&dir, &["render", "--profile", "p"]), "first\n\n  second\n");
    assert_eq!(messages(&dir), "  second\n\nfirst");
    assert_eq!(run(&dir, &["render", "--profile", "q"]), "one\n\ntwo\n");
    assert_eq!(run(&dir, &["command", "plan", "--profile", "p"]), "plan it\n");
}

#[test]
fn trim_false_keeps_every_section_exactly_as_rendered() {
    let dir = project("assembly: {trim: false, final_newline: false}");
    // The template's final newline is dropped by minijinja (`keep_trailing_newline` is off).
    assert_eq!(run(&dir, &["render", "--profile", "p"]), "first\n\n\n\n  second\r\n\n\n");
    assert_eq!(messages(&dir), "\n\n  second\r\n\n\n\n\nfirst");
    assert_eq!(run(&dir, &["render", "--profile", "q"]), "one\n\n\ntwo");
    assert_eq!(run(&dir, &["command", "plan", "--profile", "p"]), "\nplan it\n");
}

#[test]
fn the_separator_and_the_final_newline_are_set_on_their_own() {
    let dir = project("assembly: {separator: \"\\n---\\n\"}");
    assert_eq!(run(&dir, &["render", "--profile", "p"]), "first\n---\n  second\n");
    assert_eq!(messages(&dir), "  second\n---\nfirst");
    assert_eq!(run(&dir, &["render", "--profile", "q"]), "one\n---\ntwo\n");
    let dir = project("assembly: {final_newline: false}");
    assert_eq!(run(&dir, &["render", "--profile", "p"]), "first\n\n  second");
}

/// `descriptions: verbatim` reaches the project's own tool documentation templates too: a
/// description's final newline (a YAML `|` block's) is in `tool.description` as it is in the
/// tools JSON; with `trim` (the default) it is in neither.
#[test]
fn verbatim_descriptions_reach_tool_doc_templates() {
    let render = |verbatim: bool| {
        let dir = tempfile::tempdir().expect("temp dir");
        common::copy_dir(&common::repo().join("fixtures/good/text-tool-format"), dir.path());
        let manifest = std::fs::read_to_string(dir.path().join("promptc.yaml")).expect("manifest");
        let manifest = if verbatim {
            manifest.replace("\ntransports:", "\ndescriptions: verbatim\ntransports:")
        } else {
            manifest
        };
        std::fs::write(dir.path().join("promptc.yaml"), manifest).expect("write manifest");
        let tools = std::fs::read_to_string(dir.path().join("tools.yaml")).expect("tools");
        let tools = tools.replacen(
            "  description: How many of a part are on the shelf.\n",
            "  description: |\n    How many of a part are on the shelf.\n",
            1,
        );
        std::fs::write(dir.path().join("tools.yaml"), tools).expect("write tools");
        run(&dir, &["render"])
    };
    assert!(render(true).contains("==== TOOL 1: count_part ====\nHow many of a part are on the shelf.\n\n* part"));
    assert!(render(false).contains("==== TOOL 1: count_part ====\nHow many of a part are on the shelf.\n* part"));
}
