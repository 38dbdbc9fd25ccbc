//! Tests of changes by name: tools files and prompts read as the items the user changed.

use super::*;
use crate::diff::Counts;

fn modified(file: &str) -> FileChange {
    FileChange {
        file: file.into(),
        status: Status::Modified,
        diff: String::new(),
        added_lines: 1,
        removed_lines: 1,
        too_large: false,
    }
}

/// A tool: its name, description and parameters (name, description).
type Tool<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)]);

/// One tool as OpenAI's tools file holds it, with its parameters (name, description).
fn openai(tools: &[Tool]) -> String {
    let entries: Vec<serde_json::Value> = tools
        .iter()
        .map(|(name, desc, params)| {
            let props: serde_json::Map<String, serde_json::Value> = params
                .iter()
                .map(|(p, d)| (p.to_string(), serde_json::json!({"type": "string", "description": d})))
                .collect();
            let required: Vec<&str> = params.iter().map(|(p, _)| *p).collect();
            serde_json::json!({"type": "function", "function": {"name": name, "description": desc, "parameters":
                {"type": "object", "properties": props, "required": required, "additionalProperties": false}}})
        })
        .collect();
    crate::json::to_pretty_json(&entries)
}

/// The same tools as the built-in XML tool docs show them, in a prompt.
fn xml(tools: &[Tool]) -> String {
    let mut out = String::from("# Tools\n\n");
    for (name, desc, params) in tools {
        out.push_str(&format!("## {name}\nDescription: {desc}\nParameters:\n"));
        for (p, d) in *params {
            out.push_str(&format!("- {p}: (required, string) {d}\n"));
        }
        out.push_str(&format!("Usage:\n<{name}>\n"));
        for (p, _) in *params {
            out.push_str(&format!("<{p}>{p} here</{p}>\n"));
        }
        out.push_str(&format!("</{name}>\n\n"));
    }
    out.push_str("# Rules\nRead before you write.\n");
    out
}

const JSON: &str = "a.native.openai.tools.json";
const XML: &str = "a.xml.prompt.md";

/// Both files of cell `a` (native openai and xml) before and after, compared.
fn compare(before: &[Tool], after: &[Tool], deltas: &[Delta]) -> Vec<Change> {
    let old: BTreeMap<String, String> = [(JSON.to_string(), openai(before)), (XML.to_string(), xml(before))].into();
    let new: BTreeMap<String, String> = [(JSON.to_string(), openai(after)), (XML.to_string(), xml(after))].into();
    let files = vec![modified(JSON), modified(XML)];
    changes(&old, &new, &files, deltas)
}

fn delta(cell: &str, item: &str, before: Option<u64>, after: Option<u64>) -> Delta {
    let counts = |t: Option<u64>| t.map(|t| Counts { tokens: Some(t), bytes: t * 4 });
    Delta { cell: cell.into(), item: item.into(), before: counts(before), after: counts(after) }
}

const READ: &str = "Read a file. Use it often.";
const PATH: (&str, &str) = ("path", "Path of the file.");

#[test]
fn a_tool_text_changed_in_json_and_xml_is_one_change() {
    let c =
        compare(&[("read_file", READ, &[PATH])], &[("read_file", "Read a whole file. Use it often.", &[PATH])], &[]);
    assert_eq!(c.len(), 1, "{c:#?}");
    assert_eq!(c[0].title(), "tool read_file: description changed");
    assert_eq!(c[0].files, [JSON, XML]);
    assert_eq!(c[0].diff, "-Read a file.\n+Read a whole file.\n");
}

/// The case: an edit of a tool's description and a new parameter of the same tool are
/// two changes, each with its own figure — never the tool's whole change credited to one.
#[test]
fn a_description_edit_and_a_new_parameter_are_two_changes_with_their_own_figures() {
    let deltas = [
        delta("a.native.openai", "tool read_file", Some(40), Some(80)),
        delta("a.native.openai", "tool read_file, description", Some(10), Some(16)),
        delta("a.native.openai", "tool read_file, parameter encoding", None, Some(30)),
        delta("a.xml", "section tool_docs", Some(100), Some(130)),
        delta("a.xml", "tool read_file, description", Some(9), Some(15)),
        delta("a.xml", "tool read_file, parameter encoding", None, Some(20)),
    ];
    let after: &[(&str, &str)] = &[PATH, ("encoding", "Text encoding of the file.")];
    let c =
        compare(&[("read_file", READ, &[PATH])], &[("read_file", "Read a whole file. Use it often.", after)], &deltas);
    let titles: Vec<String> = c.iter().map(Change::title).collect();
    assert_eq!(titles, ["tool read_file: description changed", "tool read_file: parameter encoding added"], "{c:#?}");
    let own = |c: &Change| c.deltas.iter().map(|d| (d.cell.clone(), d.tokens_delta())).collect::<Vec<_>>();
    assert_eq!(own(&c[0]), [("a.native.openai".to_string(), Some(6)), ("a.xml".to_string(), Some(6))]);
    assert_eq!(own(&c[1]), [("a.native.openai".to_string(), Some(30)), ("a.xml".to_string(), Some(20))]);
    assert_eq!(c[1].files, [JSON, XML]);
    assert!(c[1].diff.contains("+- encoding: (required, string) Text encoding of the file."), "{}", c[1].diff);
}

/// Taking only the new parameter leaves a tools file that is valid JSON: the comma the
/// previous parameter gained goes with it.
#[test]
fn taking_a_new_parameter_alone_leaves_valid_json() {
    let after: &[(&str, &str)] = &[PATH, ("encoding", "Text encoding.")];
    let (old, new) = (openai(&[("read_file", READ, &[PATH])]), openai(&[("read_file", "Read it all.", after)]));
    let c = changes(&[(JSON.into(), old.clone())].into(), &[(JSON.into(), new.clone())].into(), &[modified(JSON)], &[]);
    let param = c.iter().find(|c| c.kind == Kind::ParameterAdded).expect("a parameter added");
    let runs: Vec<Run> = param.places.iter().filter_map(|(_, r)| r.clone()).collect();
    let taken = apply(&old, &new, &runs);
    let v: serde_json::Value = serde_json::from_str(&taken).expect("valid JSON");
    assert_eq!(v[0]["function"]["description"], READ, "the description edit was not taken");
    assert_eq!(v[0]["function"]["parameters"]["required"], serde_json::json!(["path", "encoding"]));
}

#[test]
fn tools_added_and_removed_are_named_with_the_tools_figures() {
    let deltas = [
        delta("a.native.openai", "tool list_files", None, Some(50)),
        delta("a.native.openai", "tool web_fetch", Some(70), None),
    ];
    let before: &[Tool] =
        &[("read_file", READ, &[PATH]), ("web_fetch", "Fetch a web page as text.", &[("url", "The page.")])];
    let after: &[Tool] = &[("read_file", READ, &[PATH]), ("list_files", "List the files of a folder.", &[PATH])];
    let c = compare(before, after, &deltas);
    let titles: Vec<String> = c.iter().map(Change::title).collect();
    assert_eq!(titles, ["tool web_fetch removed", "tool list_files added"], "{c:#?}");
    assert_eq!(c[0].deltas[0].tokens_delta(), Some(-70));
    assert_eq!(c[1].deltas[0].tokens_delta(), Some(50));
    assert!(c.iter().all(|c| c.files == [JSON, XML]), "{c:#?}");
}

#[test]
fn a_harness_message_changed_is_named_by_its_place() {
    let file = "a.native.messages.json";
    let messages = |text: &str| {
        crate::json::to_pretty_json(&serde_json::json!([{"role": "user", "content": "Hi."},
            {"role": "assistant", "content": text}]))
    };
    let old: BTreeMap<String, String> = [(file.to_string(), messages("Old."))].into();
    let new: BTreeMap<String, String> = [(file.to_string(), messages("New."))].into();
    let c = changes(&old, &new, &[modified(file)], &[delta("a.native.openai", "message 2", Some(3), Some(4))]);
    assert_eq!(c.len(), 1, "{c:#?}");
    assert_eq!(c[0].title(), "message 2 changed");
    assert_eq!(c[0].deltas.len(), 1);
}

/// A tools file too large to diff line by line is one whole-file change, and still names
/// the tool whose text changed in the files that are diffed.
#[test]
fn a_tools_file_too_large_to_diff_still_names_the_tools() {
    let old: BTreeMap<String, String> = [
        (JSON.to_string(), openai(&[("read_file", "Read a file.", &[PATH])])),
        (XML.to_string(), "Description: Read a file.\n".into()),
    ]
    .into();
    let new: BTreeMap<String, String> = [
        (JSON.to_string(), openai(&[("read_file", "Read a whole file.", &[PATH])])),
        (XML.to_string(), "Description: Read a whole file.\n".into()),
    ]
    .into();
    let files = vec![FileChange { too_large: true, ..modified(JSON) }, modified(XML)];
    let c = changes(&old, &new, &files, &[]);
    let titles: Vec<String> = c.iter().map(Change::title).collect();
    assert_eq!(
        titles,
        ["tool read_file: description changed", "file a.native.openai.tools.json, too large to show line by line"]
    );
    assert_eq!(c[0].files, [XML]);
}

#[test]
fn unnamed_lines_are_grouped_by_their_text_and_titled_by_the_one_changed_section() {
    let old: BTreeMap<String, String> = [
        ("a.xml.prompt.md".to_string(), "x\nold rule\ny\n".to_string()),
        ("b.xml.prompt.md".into(), "old rule\n".into()),
    ]
    .into();
    let new: BTreeMap<String, String> = [
        ("a.xml.prompt.md".to_string(), "x\nnew rule\ny\n".to_string()),
        ("b.xml.prompt.md".into(), "new rule\n".into()),
    ]
    .into();
    let files = vec![modified("a.xml.prompt.md"), modified("b.xml.prompt.md")];
    let delta = |cell: &str| delta(cell, "section rules", Some(1), Some(2));
    let c = changes(&old, &new, &files, &[delta("a.xml"), delta("b.xml")]);
    assert_eq!(c.len(), 1, "{c:#?}");
    assert_eq!(c[0].title(), "section rules changed");
    assert_eq!(c[0].diff, "-old rule\n+new rule\n");
    assert_eq!(c[0].deltas.len(), 2, "the section's own figure in each cell");
    let c = changes(&old, &new, &files, &[delta("a.xml")]);
    assert_eq!(c[0].title(), "lines in a.xml.prompt.md and 1 more file");
    assert!(c[0].deltas.is_empty());
}

#[test]
fn long_lines_are_shortened_around_the_change() {
    let a = format!("{} middle {}", "x".repeat(100), "y".repeat(100));
    let b = format!("{} centre {}", "x".repeat(100), "y".repeat(100));
    let (ca, cb) = text::clip_pair(&a, &b);
    assert!(ca.starts_with('…') && ca.ends_with('…') && ca.contains("middle"), "{ca}");
    assert!(cb.contains("centre") && cb.chars().count() < 100, "{cb}");
}

#[test]
fn accounts_belong_to_their_cell_only() {
    assert!(account_of("standard.native.openai", "standard.native"));
    assert!(account_of("standard.xml", "standard.xml"));
    assert!(!account_of("standard.native.subagent-researcher.openai", "standard.native"));
    assert_eq!(stem("standard.native.openai.tools.json"), "standard.native.openai");
}
