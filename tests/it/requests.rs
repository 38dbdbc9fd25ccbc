//! The request is what was asked, whichever way it was given: context windows parse the same on
//! the command line and in a context file (any number, `k`/`M` suffixes; anything else exit 2),
//! model patterns match case-insensitively, and a frozen record keeps the same switches and
//! variables for `--set`/`--var` as for a context file that names them.

use crate::common;

use common::{promptc_in, repo};
use serde_json::Value;

fn minimal() -> std::path::PathBuf {
    repo().join("fixtures/good/minimal")
}

/// The profile `render --format json ARGS` picks in the example, and why.
fn picked(args: &[&str]) -> (String, String) {
    let mut a = vec!["render", "--format", "json"];
    a.extend_from_slice(args);
    let out = promptc_in(&repo().join("profiles"), &a);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    (v["metadata"]["profile"].as_str().unwrap().into(), v["metadata"]["profile_reason"].as_str().unwrap().into())
}

#[test]
fn windows_read_the_same_on_the_command_line_and_in_files() {
    let dir = tempfile::tempdir().unwrap();
    for (i, (file_text, flag)) in [
        ("context_window: 32000.0\n", "32000.0"),
        ("{\"context_window\": 3.2e4}\n", "3.2e4"),
        ("context_window: 32k\n", "32k"),
        ("context_window: \"32_000\"\n", "32_000"),
    ]
    .into_iter()
    .enumerate()
    {
        let file = dir.path().join(format!("c{i}.yaml"));
        std::fs::write(&file, file_text).unwrap();
        let from_file = picked(&["--context", file.to_str().unwrap()]);
        let from_flag = picked(&["--context-window", flag]);
        assert_eq!(from_file, from_flag, "{file_text}");
        assert_eq!(
            from_flag,
            ("lite".into(), "selection.below_context_window: context window 32000 (given) is below 64000".into()),
            "{flag}"
        );
    }
    assert_eq!(picked(&["--context-window", "128k"]).0, "standard");
    // Anything else is an error, on both sides, never the assumed window.
    for bad in ["lots", "0", "-1", "NaN", "inf", "32kk"] {
        let out = promptc_in(&minimal(), &["render", "--context-window", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let file = dir.path().join("bad.yaml");
        std::fs::write(&file, format!("context_window: \"{bad}\"\n")).unwrap();
        let out = promptc_in(&minimal(), &["render", "--context", file.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{bad} in a file");
        assert!(String::from_utf8_lossy(&out.stderr).contains("bad.yaml:1:17"), "located");
    }
}

#[test]
fn model_patterns_ignore_case() {
    assert_eq!(picked(&["--model", "O1-Mini"]).0, "lite");
    assert_eq!(picked(&["--model", "openai/O1-MINI"]).0, "lite");
    assert_eq!(picked(&["--model", "gpt-4o"]).0, "standard");
}

#[test]
fn a_frozen_request_is_the_same_from_flags_and_from_a_context_file() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = dir.path().join("ctx.yaml");
    // The example has seven switches and six variables; the request names one of each (browser
    // at its default, false): both ways record exactly those two, not every default.
    std::fs::write(&ctx, "switches:\n  browser: false\nvariables:\n  cwd: /srv/app\nmodel: gpt-4o\n").unwrap();
    let freeze = |args: &[&str], out: &str| -> Value {
        let path = dir.path().join(out);
        let mut a = vec!["freeze", "--out", path.to_str().unwrap()];
        a.extend_from_slice(args);
        let o = promptc_in(&repo().join("profiles"), &a);
        assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
        let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        v["request"].clone()
    };
    let from_file = freeze(&["--context", ctx.to_str().unwrap()], "a.json");
    let from_flags = freeze(&["--set", "browser=false", "--var", "cwd=/srv/app", "--model", "gpt-4o"], "b.json");
    for key in ["switches", "variables", "model", "profile"] {
        assert_eq!(from_file[key], from_flags[key], "{key}");
    }
    assert_eq!(from_file["switches"], serde_json::json!({"browser": false}));
    assert_eq!(from_file["variables"], serde_json::json!({"cwd": "/srv/app"}));
    assert_eq!(from_file["model"], "gpt-4o");
}

/// `*` stands anywhere in a model segment pattern, so ids that only contain a family name
/// (`azure/my-gpt-4-deployment`, `ft:gpt-4o-mini-…`) can be matched; the reason names the rule
/// and the pattern, and a model that matches nothing says so before the window rule decides.
#[test]
fn infix_wildcards_match_model_ids_that_contain_a_name() {
    let ws = common::Workspace::new();
    let dir = ws.path("profiles");
    let manifest = dir.join("promptc.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(
        &manifest,
        text.replace(r#"model_segments: ["o1", "o1-*"]"#, r#"model_segments: ["*gpt-4*", "o[1-4]", "o?-*"]"#),
    )
    .unwrap();
    // `[` and `?` are literal text (only `*` is special): such patterns match nothing here.
    let pick = |model: &str| {
        let out = promptc_in(&dir, &["render", "--format", "json", "--model", model]);
        assert_eq!(out.status.code(), Some(0), "{model}: {}", String::from_utf8_lossy(&out.stderr));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        (
            v["metadata"]["profile"].as_str().unwrap().to_string(),
            v["metadata"]["profile_reason"].as_str().unwrap().to_string(),
        )
    };
    for (model, segment) in [
        ("azure/my-gpt-4-deployment", "my-gpt-4-deployment"),
        ("ft:gpt-4o-mini-2024:acme::x1", "ft:gpt-4o-mini-2024:acme::x1"),
        ("GPT-4.1", "GPT-4.1"),
    ] {
        assert_eq!(
            pick(model),
            (
                "lite".to_string(),
                format!("selection.model_segments: model `{model}`: segment `{segment}` matches `*gpt-4*`")
            ),
        );
    }
    assert_eq!(
        pick("openai/gpt-3.5-turbo"),
        (
            "standard".to_string(),
            "default: model `openai/gpt-3.5-turbo` matches no selection.model_segments pattern; context window 128000 \
             (assumed) is not below 64000"
                .to_string()
        )
    );
}
