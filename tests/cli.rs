//! The command line itself: help and exit codes, `schema`, `completions`.

mod common;

use common::{promptc, repo};

use std::process::Output;

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn help_documents_every_command_and_the_exit_codes() {
    let out = promptc(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = stdout(&out);
    for cmd in [
        "render",
        "report",
        "snapshot",
        "diff",
        "freeze",
        "verify",
        "command",
        "check",
        "schema",
        "init",
        "completions",
    ] {
        assert!(help.contains(&format!("  {cmd}")), "help lacks {cmd}:\n{help}");
    }
    for line in ["0  success", "1  the check found something", "2  usage or project error"] {
        assert!(help.contains(line), "{help}");
    }
    let out = promptc(&["check", "--help"]);
    assert!(stdout(&out).contains("2  usage or project error"));
    let out = promptc(&["--version"]);
    assert_eq!(stdout(&out), format!("promptc {}\n", env!("CARGO_PKG_VERSION")));
}

#[test]
fn usage_errors_exit_2() {
    let out = promptc(&["render", "--no-such-flag"]);
    assert_eq!(out.status.code(), Some(2));
    let out = promptc(&["frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn committed_schemas_are_what_promptc_prints() {
    for (kind, file) in [("manifest", "schema/promptc.schema.json"), ("tools", "schema/tools.schema.json")] {
        let out = promptc(&["schema", kind]);
        assert_eq!(out.status.code(), Some(0));
        let committed = std::fs::read_to_string(repo().join(file)).unwrap();
        assert_eq!(stdout(&out), committed, "{file} is stale: run `promptc schema {kind} > {file}`");
        let v: serde_json::Value = serde_json::from_str(&committed).unwrap();
        assert_eq!(v["$schema"], "https://json-schema.org/draft/2020-12/schema");
    }
}

#[test]
fn completions_for_every_shell() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = promptc(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let script = stdout(&out);
        assert!(script.contains("promptc") && script.contains("snapshot") && script.contains("transport"), "{shell}");
    }
    assert_eq!(promptc(&["completions", "tcsh"]).status.code(), Some(2));
}

#[test]
fn the_readme_example_project_renders_and_checks_without_errors() {
    // The three files of "The project format, in five minutes", exactly as the README shows them.
    let readme = std::fs::read_to_string(common::repo().join("README.md")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut written = 0;
    for block in readme.split("```").skip(1).step_by(2) {
        let Some((_lang, body)) = block.split_once('\n') else { continue };
        let first = body.lines().next().unwrap_or_default();
        let target = if first.starts_with("# promptc.yaml") {
            "promptc.yaml"
        } else if first.starts_with("# tools.yaml") {
            "tools.yaml"
        } else if first.contains("sections/rules.md.j2") {
            "sections/rules.md.j2"
        } else {
            continue;
        };
        let path = dir.path().join(target);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, body).unwrap();
        written += 1;
    }
    assert_eq!(written, 3, "the README's example files were not found");
    let run = |args: &[&str]| common::promptc_in(dir.path(), args);
    let xml = run(&["render", "--transport", "xml", "--set", "web"]);
    assert_eq!(xml.status.code(), Some(0), "{}", String::from_utf8_lossy(&xml.stderr));
    let text = stdout(&xml);
    assert!(text.contains("## web_search") && text.contains("Use web_search for documentation"), "{text}");
    assert_eq!(run(&["check"]).status.code(), Some(0));
}

/// A project that does not load still gives machine formats their output: a JSON document
/// with the error for every `--format json`, workflow commands for `check --format github`
/// (so a CI job is annotated), and the human diagnostics on stderr; exit 2.
#[test]
fn load_errors_reach_the_machine_formats() {
    let project = "fixtures/bad/malformed-yaml";
    for args in [
        &["render", "--format", "json"][..],
        &["report", "--format", "json"],
        &["diff", "--format", "json"],
        &["check", "--format", "json"],
        &["verify", "fixtures/bad/frozen-not-json.json", "--format", "json"],
    ] {
        let mut full = vec!["-C", project];
        full.extend_from_slice(args);
        let out = common::promptc(&full);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", String::from_utf8_lossy(&out.stdout)));
        assert_eq!(doc["format"], 1, "{args:?}");
        assert_eq!(doc["error"]["kind"], "project", "{args:?}");
        let d = &doc["error"]["diagnostics"][0];
        assert_eq!(d["severity"], "error");
        assert!(d["file"].as_str().unwrap().ends_with("malformed-yaml/promptc.yaml"), "{d}");
        assert_eq!((d["line"].as_u64(), d["column"].as_u64()), (Some(2), Some(10)), "{d}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("promptc.yaml:2:10"), "{args:?}");
    }
    let out = common::promptc(&["-C", project, "check", "--format", "github"]);
    assert_eq!(out.status.code(), Some(2));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.starts_with("::error file=fixtures/bad/malformed-yaml/promptc.yaml,line=2,col=10::"), "{stdout}");

    // A record that is not JSON, with a project that loads: the record error in JSON.
    let out = common::promptc(&["verify", "fixtures/bad/frozen-not-json.json", "--format", "json"]);
    assert_eq!(out.status.code(), Some(2));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["error"]["kind"], "record");
}

/// Every JSON document promptc prints starts with its format version.
#[test]
fn json_outputs_carry_their_format_version() {
    for args in [
        &["render", "--format", "json"][..],
        &["report", "--format", "json", "--no-cache"],
        &["diff", "--format", "json"],
        &["check", "--format", "json"],
    ] {
        let out = common::promptc(args);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.starts_with("{\n  \"format\": 1,"), "{args:?}: {}", &text[..text.len().min(80)]);
    }
}
