//! Templates ported from an existing agent: `templates:` whitespace settings (`compat: jinja2`),
//! Python-style methods, switches as plain names, and what the load-time analysis sees through
//! includes (a dynamic variable read only in an included file makes its section dynamic).
//! `conformance/test_jinja2_corpus.py` compares a whole corpus with Python's Jinja2; these
//! tests hold the same promises without Python.

use crate::common;

use common::{ok, promptc_in};

const REACH: &str = "fixtures/good/include-reach";

/// A project in a fresh folder: `templates_key` (a line of YAML, or nothing) and one section
/// whose template includes a file.
fn project(templates_key: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let manifest = format!(
        "promptc: 1\nname: ws\ncontract_version: 1\n{templates_key}\nswitches:\n  on:\n    description: x\n    \
         default: true\nsections:\n  role:\n    template: t.j2\ntools: []\nprofiles:\n  standard:\n    sections: [role]\n"
    );
    std::fs::write(dir.path().join("promptc.yaml"), manifest).expect("write manifest");
    let template = "Intro line.\n{% include \"part.j2\" %}\nAfter the include.\n\n  {% if on %}\n  indented when \
                    on\n  {% endif %}\nDone.\n";
    std::fs::write(dir.path().join("t.j2"), template).expect("write template");
    std::fs::write(dir.path().join("part.j2"), "Included text.\n").expect("write part");
    dir
}

fn render(dir: &tempfile::TempDir) -> String {
    let out = promptc_in(dir.path(), &["render"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8")
}

/// What Python's Jinja2 3.1.6 renders for the template above (`Environment()`, then with
/// `trim_blocks=True, lstrip_blocks=True`), through promptc's section normalisation.
#[test]
fn compat_jinja2_keeps_lines_the_default_trims() {
    let jinja2 = "Intro line.\nIncluded text.\nAfter the include.\n\n  \n  indented when on\n  \nDone.\n";
    let trimmed = "Intro line.\nIncluded text.After the include.\n\n  indented when on\nDone.\n";
    assert_eq!(render(&project("templates: {compat: jinja2}")), jinja2);
    assert_eq!(render(&project("")), trimmed, "the default is unchanged");
    // Each setting on its own: trim_blocks off alone keeps the include's newline.
    let mixed = render(&project("templates: {trim_blocks: false}"));
    assert!(mixed.starts_with("Intro line.\nIncluded text.\nAfter the include.\n"), "{mixed}");
    // A setting given with `compat` overrides it.
    assert_eq!(render(&project("templates: {compat: jinja2, trim_blocks: true, lstrip_blocks: true}")), trimmed);
}

#[test]
fn switches_are_plain_names_and_methods_work() {
    let on = ok(&["-C", REACH, "render"]);
    assert!(on.contains("Answer in plain text suited to a terminal."), "{on}");
    // `d.items()`, `s.upper()`, `s.startswith()`; `+%}` keeps the newline after the tag.
    assert!(on.contains("- EDITOR: vim (a v-word)\n- INDENT: 4\n"), "{on}");
    let off = ok(&["-C", REACH, "render", "--set", "cli_mode=false"]);
    assert!(!off.contains("Answer in plain text"), "{off}");
}

#[test]
fn a_dynamic_variable_read_through_an_include_makes_the_section_dynamic() {
    let report: serde_json::Value =
        serde_json::from_str(&ok(&["-C", REACH, "report", "--format", "json"])).expect("report JSON");
    let account = &report["accounts"][0];
    let dynamic: Vec<(&str, bool)> = account["sections"]
        .as_array()
        .expect("sections")
        .iter()
        .map(|s| (s["id"].as_str().unwrap_or_default(), s["dynamic"].as_bool().unwrap_or_default()))
        .collect();
    assert_eq!(dynamic, [("role", false), ("environment", true), ("closing", false)]);
    assert_eq!(account["cache"]["ends_at"], "environment", "{account:#}");
    assert_eq!(account["cache"]["breakpoint_after"], "role", "{account:#}");
}

/// Python-style methods that can amplify text are size-checked like the filters.
#[test]
fn amplifying_methods_are_capped() {
    let dir = tempfile::tempdir().expect("temp dir");
    let manifest = "promptc: 1\nname: m\ncontract_version: 1\nsections:\n  role:\n    text: \"{{ 'abc'.replace('', \
                    'x' * 1000000) }}{{ ('y' * 100000).join(['a'] * 100) }}\"\ntools: []\nprofiles:\n  standard:\n    \
                    sections: [role]\n";
    std::fs::write(dir.path().join("promptc.yaml"), manifest).expect("write manifest");
    let out = promptc_in(dir.path(), &["render"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("the result of `str.replace` would be"), "{err}");
}
