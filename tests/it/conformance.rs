//! Provider conformance: every native projection of the shipped example, under several
//! switch sets, is validated by `conformance/check_tools.py` against the providers' official
//! Python SDK types (openai, anthropic, google-genai) and the documented name and schema
//! rules. The checker is also shown to reject wrong projections.
//!
//! The Python environment is created by `scripts/conformance-env.sh` (a venv under target/,
//! packages from PyPI) the first time this test runs. Set PROMPTC_SKIP_CONFORMANCE=1 to skip
//! it explicitly on a machine without network access.

use crate::common;

use common::repo;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use promptc::{Project, Provider, Request};

/// The venv's python, or None when the user opted out; set up once per test binary (the tests
/// that need it wait for the first).
fn python() -> Option<PathBuf> {
    static PYTHON: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    PYTHON.get_or_init(set_up_python).clone()
}

fn set_up_python() -> Option<PathBuf> {
    if std::env::var_os("PROMPTC_SKIP_CONFORMANCE").is_some_and(|v| v == "1") {
        eprintln!("PROMPTC_SKIP_CONFORMANCE=1: provider conformance check skipped");
        return None;
    }
    let out = Command::new("bash")
        .arg(repo().join("scripts/conformance-env.sh"))
        .output()
        .expect("run scripts/conformance-env.sh");
    assert!(
        out.status.success(),
        "scripts/conformance-env.sh failed (set PROMPTC_SKIP_CONFORMANCE=1 to skip offline):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    Some(PathBuf::from(stdout.lines().last().expect("python path").trim()))
}

fn check(py: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::new(py).arg(repo().join("conformance/check_tools.py")).args(args).output().expect("run checker");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap_or(-1), text)
}

fn example() -> &'static Project {
    common::project("profiles")
}

/// Switch sets that exercise every conditional tool and parameter of the example.
fn switch_cases(p: &Project) -> Vec<(String, BTreeMap<String, bool>)> {
    let defaults: BTreeMap<String, bool> = p.switches().into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    let all_on = defaults.keys().map(|k| (k.clone(), true)).collect();
    let all_off = defaults.keys().map(|k| (k.clone(), false)).collect();
    vec![("defaults".into(), defaults), ("all-on".into(), all_on), ("all-off".into(), all_off)]
}

/// Write every native projection of the example into `dir`; returns how many were written.
fn write_projections(p: &Project, dir: &Path) -> usize {
    let mut n = 0;
    for profile in p.profiles() {
        for (case, switches) in switch_cases(p) {
            for provider in Provider::MODEL_APIS {
                let mut req = Request::new().profile(profile).provider(provider);
                for (k, v) in &switches {
                    req = req.switch(k, *v);
                }
                let c = promptc::compile(p, &req).unwrap();
                let name = format!("{profile}-{case}.native.{}.tools.json", provider.as_str());
                std::fs::write(dir.join(name), c.tools_json().unwrap()).unwrap();
                n += 1;
            }
        }
    }
    n
}

#[test]
fn every_projection_of_the_example_is_accepted_by_the_provider_sdks() {
    let Some(py) = python() else { return };
    let p = example();
    let dir = tempfile::tempdir().unwrap();
    let n = write_projections(p, dir.path());
    assert_eq!(n, p.profiles().len() * 3 * Provider::MODEL_APIS.len());
    let (code, out) = check(&py, &["--dir", dir.path().to_str().unwrap()]);
    assert_eq!(code, 0, "conformance failures:\n{out}");
    assert_eq!(out.lines().filter(|l| l.starts_with("ok ")).count(), n, "{out}");
}

#[test]
fn the_checker_rejects_broken_projections() {
    let Some(py) = python() else { return };
    // Hand-written bad files, one broken rule each.
    let bad = repo().join("fixtures/conformance/bad");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&bad)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 8);
    let (code, out) = check(&py, &["--dir", bad.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    for f in &files {
        assert!(out.contains(&format!("FAIL {}", f.display())), "{} was not rejected:\n{out}", f.display());
    }

    // Real projections of the example, each corrupted the way a projection bug would.
    let p = example();
    let projection = |provider| {
        promptc::compile(p, &Request::new().profile("standard").provider(provider))
            .unwrap()
            .projection()
            .unwrap()
            .clone()
    };
    let dir = tempfile::tempdir().unwrap();
    let mut gemini = projection(Provider::Gemini);
    gemini[0]["functionDeclarations"][0]["parameters"]["additionalProperties"] = serde_json::json!(false);
    let mut gemini_types = projection(Provider::Gemini);
    gemini_types[0]["functionDeclarations"][0]["parameters"]["properties"]["path"]["type"] =
        serde_json::json!(["STRING", "NULL"]);
    let mut openai = projection(Provider::OpenAiChat);
    let params = openai[0]["function"].as_object_mut().unwrap().remove("parameters").unwrap();
    openai[0]["function"]["parameter"] = params;
    let mut responses = projection(Provider::OpenAiResponses);
    responses[0].as_object_mut().unwrap().remove("strict");
    let mut anthropic = projection(Provider::Anthropic);
    anthropic[0]["input_schema"]["type"] = serde_json::json!("array");
    let corrupted = [
        ("gemini-additional.native.gemini.tools.json", gemini),
        ("gemini-type-array.native.gemini.tools.json", gemini_types),
        ("openai-parameter.native.openai.tools.json", openai),
        ("responses-no-strict.native.openai-responses.tools.json", responses),
        ("anthropic-root.native.anthropic.tools.json", anthropic),
    ];
    for (name, v) in &corrupted {
        std::fs::write(dir.path().join(name), serde_json::to_string_pretty(v).unwrap()).unwrap();
    }
    let (code, out) = check(&py, &["--dir", dir.path().to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    for (name, _) in &corrupted {
        let path = dir.path().join(name);
        assert!(out.contains(&format!("FAIL {}", path.display())), "{name} was accepted:\n{out}");
    }
}

/// The Anthropic request `render --format json` gives (system blocks and tools with prompt-caching
/// breakpoints) validates against the anthropic SDK's request types, for every profile and case
/// of the example, and its system blocks add up to the prompt.
#[test]
fn the_cached_anthropic_request_validates_against_the_sdk() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (i, args) in [
        &["render", "--provider", "anthropic", "--format", "json"][..],
        &["render", "--provider", "anthropic", "--format", "json", "--profile", "lite"],
        &["render", "--provider", "anthropic", "--format", "json", "--var", "user_rules=Be brief."],
    ]
    .into_iter()
    .enumerate()
    {
        let out = common::promptc(args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let file = dir.path().join(format!("render-{i}.json"));
        std::fs::write(&file, &out.stdout).unwrap();
        files.push((args, file));
    }
    // One checker run for the three (importing the SDK is most of its time).
    let check = Command::new(&py)
        .arg(repo().join("conformance/check_request.py"))
        .args(files.iter().map(|(_, f)| f))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&check.stdout);
    assert_eq!(check.status.code(), Some(0), "{text}{}", String::from_utf8_lossy(&check.stderr));
    for (args, file) in &files {
        assert!(text.lines().any(|l| l == format!("ok {}", file.display())), "{args:?} not checked: {text}");
    }
}

#[test]
fn the_hand_written_native_definitions_are_accepted_by_the_provider_sdks() {
    let Some(py) = python() else { return };
    // What `tests/it/render.rs` compares promptc's projections with must itself be valid.
    // One checker run (importing the SDKs is most of its time): each file under the name that
    // tells `--dir` its provider.
    let native = repo().join("fixtures/good/native-faithful/native");
    let dir = tempfile::tempdir().unwrap();
    let providers = ["openai", "openai-responses", "anthropic", "gemini"];
    for provider in providers {
        let name = format!("faithful.native.{provider}.tools.json");
        std::fs::copy(native.join(format!("{provider}.json")), dir.path().join(name)).unwrap();
    }
    let (code, out) = check(&py, &["--dir", dir.path().to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    for provider in providers {
        let file = dir.path().join(format!("faithful.native.{provider}.tools.json"));
        assert!(out.lines().any(|l| l.starts_with(&format!("ok {} (", file.display()))), "{provider}: {out}");
    }
}

/// Harness messages of one text and of several blocks (`fixtures/good/message-blocks`), as
/// `render --format json` gives them for each provider, validate against that provider SDK's
/// message types; the checker rejects the common shape sent to Gemini and `input_text` blocks
/// for a Responses assistant turn.
#[test]
fn harness_messages_validate_against_each_providers_sdk() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let project = repo().join("fixtures/good/message-blocks");
    let mut args = Vec::new();
    for provider in ["anthropic", "openai", "openai-responses", "gemini"] {
        let out = common::promptc(&[
            "render",
            "-C",
            project.to_str().unwrap(),
            "--provider",
            provider,
            "--format",
            "json",
            "--set",
            "tests_failing",
        ]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let file = dir.path().join(format!("{provider}.json"));
        std::fs::write(&file, &out.stdout).unwrap();
        args.push(format!("{provider}={}", file.display()));
    }
    // Wrong shapes: the common shape for Gemini, input_text for a Responses assistant turn.
    let anthropic: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("anthropic.json")).unwrap()).unwrap();
    let wrong = dir.path().join("wrong-gemini.json");
    std::fs::write(&wrong, anthropic.to_string()).unwrap();
    args.push(format!("gemini={}", wrong.display()));
    let mut responses: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("openai-responses.json")).unwrap()).unwrap();
    responses["messages"][1]["content"][0] = serde_json::json!({"type": "input_text", "text": "x"});
    let wrong_responses = dir.path().join("wrong-responses.json");
    std::fs::write(&wrong_responses, responses.to_string()).unwrap();
    args.push(format!("openai-responses={}", wrong_responses.display()));

    let check = Command::new(&py).arg(repo().join("conformance/check_messages.py")).args(&args).output().unwrap();
    let text = String::from_utf8_lossy(&check.stdout);
    for provider in ["anthropic", "openai", "openai-responses", "gemini"] {
        let file = dir.path().join(format!("{provider}.json"));
        assert!(text.lines().any(|l| l == format!("ok {}", file.display())), "{provider}: {text}");
    }
    for file in [&wrong, &wrong_responses] {
        assert!(text.contains(&format!("FAIL {}", file.display())), "{} accepted: {text}", file.display());
    }
    assert_eq!(check.status.code(), Some(1), "{text}{}", String::from_utf8_lossy(&check.stderr));
}
