//! `promptc check`: every lint rule P001–P012 has a project under `fixtures/check/` that
//! triggers exactly that rule (`pNNN-fail/`) and the minimal fix of the same project
//! (`pNNN-pass/`). For each rule the fail project reports that code and nothing else, exits
//! as the rule's default level says, and its human and JSON outputs are insta snapshots
//! (`tests/it/snapshots/it__check__pNNN-fail-{human,json}.snap`); the pass project is clean even with
//! every rule denied. Beyond the rules: the `--format github` workflow-command syntax, level
//! precedence (defaults, the project's `check.levels`, `-A/-W/-D`), `--explain`, unknown rule
//! codes, the shipped example and the `promptc init` starter.
//!
//! What a check finds is computed in process, through the library's `check` (the CLI prints
//! `CheckResult::render` as is): each project is loaded once and the token counters are
//! shared (`common::project`, `common::with_counter`). The binary still runs where the CLI
//! adds something: each rule's fail project once (exit code, nothing on stderr, and stdout
//! equal to the library's text), flag order, `--allow`, usage errors, `--explain`, the shipped
//! example and the starter. Paths are relative to the repository root (tests and the binary
//! run there, with relative `-C` paths), so the paths in the snapshots are the same on every
//! machine.

use crate::common;

use common::promptc;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use promptc::check::{CheckResult, Format};
use promptc::Project;
use serde_json::Value;

/// Run `promptc ARGS`, assert the exit code, and return stdout.
fn run(args: &[&str], code: i32) -> String {
    let out = promptc(args);
    let stdout = String::from_utf8(out.stdout).expect("stdout is UTF-8");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "promptc {}\n--- stdout\n{stdout}\n--- stderr\n{stderr}", args.join(" "));
    stdout
}

/// The binary: `promptc -C DIR check EXTRA…`; asserts the exit code and that stderr is empty
/// (check prints everything, load-time warnings included, on stdout).
fn cli_check(dir: &str, extra: &[&str], code: i32) -> String {
    let mut args = vec!["-C", dir, "check"];
    args.extend_from_slice(extra);
    let out = promptc(&args);
    let stdout = String::from_utf8(out.stdout).expect("stdout is UTF-8");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "promptc {}\n--- stdout\n{stdout}\n--- stderr\n{stderr}", args.join(" "));
    assert!(stderr.is_empty(), "promptc {} wrote to stderr:\n{stderr}", args.join(" "));
    stdout
}

/// The library: what `promptc check FLAGS` finds in `project`, where `flags` are the command
/// line's level flags (`-D P001`, `--allow p007`, …) applied in their order, as the CLI
/// applies them; asserts the exit code the CLI would give (1 when an error remains, else 0).
fn lib_check_in(project: &Project, flags: &[&str], code: i32) -> CheckResult {
    assert!(flags.len().is_multiple_of(2), "{flags:?}");
    let levels: Vec<_> = flags
        .chunks(2)
        .map(|f| {
            let level = match f[0] {
                "-A" | "--allow" => promptc::check::Level::Allow,
                "-W" | "--warn" => promptc::check::Level::Warn,
                "-D" | "--deny" => promptc::check::Level::Deny,
                other => panic!("not a level flag: {other}"),
            };
            (promptc::rule_code(f[1]).unwrap_or_else(|e| panic!("{}: {e:?}", f[1])), level)
        })
        .collect();
    let result = common::with_counter(|counter| promptc::check(project, &levels, counter))
        .unwrap_or_else(|e| panic!("check {flags:?}: {e:?}"));
    assert_eq!(i32::from(result.failed()), code, "check {flags:?}:\n{}", result.render(Format::Json));
    result
}

/// [`lib_check_in`] of the repository's project at `dir` (loaded once per test binary).
fn lib_check(dir: &str, flags: &[&str], code: i32) -> CheckResult {
    lib_check_in(common::project(dir), flags, code)
}

/// `promptc -C DIR check FLAGS`'s human output, computed in process.
fn check(dir: &str, flags: &[&str], code: i32) -> String {
    lib_check(dir, flags, code).render(Format::Human { color: false, verbose: false })
}

/// `promptc -C DIR check --format json FLAGS`'s output, computed in process.
fn check_json(dir: &str, flags: &[&str], code: i32) -> Value {
    serde_json::from_str(&lib_check(dir, flags, code).render(Format::Json)).expect("check's JSON format is JSON")
}

/// `promptc -C DIR check --format github FLAGS`'s output, computed in process.
fn check_github(dir: &str, flags: &[&str], code: i32) -> String {
    lib_check(dir, flags, code).render(Format::Github)
}

/// The last line of the human output.
fn summary(human: &str) -> &str {
    human.lines().last().unwrap_or_default()
}

/// `(severity, code)` of every diagnostic headline (`error[P001]: …`) of the human output.
fn headlines(human: &str) -> Vec<(String, String)> {
    human
        .lines()
        .filter_map(|l| {
            let (severity, rest) = l.split_once('[')?;
            let (code, _) = rest.split_once("]: ")?;
            matches!(severity, "error" | "warning").then(|| (severity.to_string(), code.to_string()))
        })
        .collect()
}

/// `-D P001 -D P002 …`: every rule denied.
fn deny_all() -> Vec<&'static str> {
    CODES.iter().flat_map(|c| ["-D", c]).collect()
}

/// A rule's default level, as `--explain` spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    Warn,
    Deny,
}

/// Defines `CODES`, `LEVELS` and a fail and a pass test per rule.
macro_rules! rules {
    ($($fail:ident, $pass:ident => $code:literal, $level:ident;)*) => {
        const CODES: &[&str] = &[$($code),*];
        const LEVELS: &[(&str, Level)] = &[$(($code, Level::$level)),*];
        $(
            #[test]
            fn $fail() {
                fail_fixture($code, Level::$level);
            }

            #[test]
            fn $pass() {
                pass_fixture($code);
            }
        )*
    };
}

rules! {
    p001_fail, p001_pass => "P001", Deny;
    p002_fail, p002_pass => "P002", Deny;
    p003_fail, p003_pass => "P003", Warn;
    p004_fail, p004_pass => "P004", Warn;
    p005_fail, p005_pass => "P005", Deny;
    p006_fail, p006_pass => "P006", Deny;
    p007_fail, p007_pass => "P007", Warn;
    p008_fail, p008_pass => "P008", Deny;
    p009_fail, p009_pass => "P009", Warn;
    p010_fail, p010_pass => "P010", Warn;
    p011_fail, p011_pass => "P011", Warn;
    p012_fail, p012_pass => "P012", Deny;
    p013_fail, p013_pass => "P013", Warn;
}

fn fixture(code: &str, kind: &str) -> String {
    format!("fixtures/check/{}-{kind}", code.to_ascii_lowercase())
}

fn fail_fixture(code: &str, default: Level) {
    let dir = fixture(code, "fail");
    let (exit, severity, line) = match default {
        Level::Deny => (1, "error", "check failed: 1 error, 0 warnings"),
        Level::Warn => (0, "warning", "check passed: 0 errors, 1 warning"),
    };

    // Human output: exactly one finding, of this rule, at its default level. The binary prints
    // what the library renders, exits as the level says and writes nothing to stderr.
    let human = cli_check(&dir, &[], exit);
    assert_eq!(check(&dir, &[], exit), human, "{dir}: the library's text is what the CLI prints");
    assert_eq!(headlines(&human), [(severity.to_string(), code.to_string())], "{dir}:\n{human}");
    assert_eq!(summary(&human), line, "{dir}:\n{human}");
    let name = code.to_ascii_lowercase();
    insta::with_settings!({ description => format!("promptc -C {dir} check"), omit_expression => true }, {
        insta::assert_snapshot!(format!("{name}-fail-human"), human);
    });

    // JSON output: the same finding.
    let json = check_json(&dir, &[], exit);
    let diags = json["diagnostics"].as_array().expect("diagnostics array");
    assert_eq!(diags.len(), 1, "{dir}: {json:#}");
    assert!(diags.iter().all(|d| d["code"] == code && d["severity"] == severity), "{dir}: {json:#}");
    assert_eq!(
        (json["errors"].as_u64(), json["warnings"].as_u64()),
        if exit == 1 { (Some(1), Some(0)) } else { (Some(0), Some(1)) }
    );
    insta::with_settings!({ description => format!("promptc -C {dir} check --format json"), omit_expression => true }, {
        insta::assert_json_snapshot!(format!("{name}-fail-json"), json);
    });

    // GitHub workflow commands: one line per diagnostic, the same findings.
    github_matches_json(&dir, exit);

    // The command line changes the level: -D fails a warning, -W demotes an error, -A silences.
    match default {
        Level::Warn => assert_eq!(summary(&check(&dir, &["-D", code], 1)), "check failed: 1 error, 0 warnings"),
        Level::Deny => assert_eq!(summary(&check(&dir, &["-W", code], 0)), "check passed: 0 errors, 1 warning"),
    }
    let allowed = check(&dir, &["-A", code], 0);
    assert!(headlines(&allowed).is_empty(), "-A {code} still reports:\n{allowed}");
    assert_eq!(summary(&allowed), "check passed: 0 errors, 0 warnings");

    // With every rule denied, still nothing but this rule.
    let strict = check_json(&dir, &deny_all(), 1);
    let codes: Vec<&Value> = strict["diagnostics"].as_array().unwrap().iter().map(|d| &d["code"]).collect();
    assert_eq!(codes, [code], "{dir} with every rule denied: {strict:#}");
}

fn pass_fixture(code: &str) {
    let dir = fixture(code, "pass");
    // The binary exits 0 and writes nothing to stderr on a clean project.
    let human = cli_check(&dir, &[], 0);
    assert_eq!(check(&dir, &[], 0), human, "{dir}: the library's text is what the CLI prints");
    assert!(headlines(&human).is_empty(), "{dir}:\n{human}");
    assert_eq!(summary(&human), "check passed: 0 errors, 0 warnings", "{dir}:\n{human}");
    // Clean because of the fix, not because of a level: every rule denied changes nothing.
    let json = check_json(&dir, &deny_all(), 0);
    assert_eq!(
        (&json["errors"], &json["warnings"], &json["diagnostics"]),
        (&Value::from(0), &Value::from(0), &Value::Array(vec![])),
        "{dir}: {json:#}"
    );
    assert_eq!(check_github(&dir, &[], 0), "", "{dir}: github output of a clean project");
}

// ---------------------------------------------------------------------------------------
// --format github

/// One parsed workflow command.
#[derive(Debug, PartialEq, Eq)]
struct GithubLine {
    kind: String,
    file: String,
    line: u64,
    col: u64,
    title: String,
    message: String,
}

/// Whether every `%` of `s` starts one of `escapes` (and `s` has no raw CR or LF).
fn escaped(s: &str, escapes: &[&str]) -> bool {
    !s.contains(['\r', '\n']) && s.match_indices('%').all(|(i, _)| escapes.iter().any(|e| s[i..].starts_with(e)))
}

fn unescape(s: &str) -> String {
    s.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",").replace("%25", "%")
}

/// Parse `::KIND file={name},line={line},col={col},title={title}::{message}` — the regex
/// `^::(error|warning|notice) file=([^,:]+),line=([0-9]+),col=([0-9]+),title=([^,:]+)::(.*)$`
/// with the message escaping `%`, CR and LF as `%25`, `%0D`, `%0A` and the properties also
/// `:` and `,` as `%3A`, `%2C` (GitHub's workflow command syntax).
fn parse_github(l: &str) -> Result<GithubLine, String> {
    let err = |what: &str| format!("{what}: {l:?}");
    let rest = l.strip_prefix("::").ok_or_else(|| err("no leading ::"))?;
    let (kind, rest) = rest.split_once(' ').ok_or_else(|| err("no properties"))?;
    if !matches!(kind, "error" | "warning" | "notice") {
        return Err(err("unknown command"));
    }
    let (props, message) = rest.split_once("::").ok_or_else(|| err("no :: before the message"))?;
    let props: Vec<(&str, &str)> = props.split(',').map(|p| p.split_once('=').unwrap_or((p, ""))).collect();
    let keys: Vec<&str> = props.iter().map(|(k, _)| *k).collect();
    if keys != ["file", "line", "col", "title"] {
        return Err(err("properties are not file, line, col, title"));
    }
    let prop_escapes = ["%25", "%0D", "%0A", "%3A", "%2C"];
    if props.iter().any(|(_, v)| v.is_empty() || v.contains(':') || !escaped(v, &prop_escapes)) {
        return Err(err("a property value is empty or not escaped"));
    }
    if !escaped(message, &["%25", "%0D", "%0A"]) {
        return Err(err("the message is not escaped"));
    }
    let number = |s: &str| -> Result<u64, String> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(err("line or col is not a number"));
        }
        s.parse().map_err(|_| err("line or col is not a number"))
    };
    Ok(GithubLine {
        kind: kind.to_string(),
        file: unescape(props[0].1),
        line: number(props[1].1)?,
        col: number(props[2].1)?,
        title: unescape(props[3].1),
        message: unescape(message),
    })
}

/// Every line of `--format github` is a workflow command, one per JSON diagnostic, in order,
/// with the same file, position, code and message (plus `help:` on a second line).
fn github_matches_json(dir: &str, exit: i32) {
    let out = check_github(dir, &[], exit);
    let json = check_json(dir, &[], exit);
    let diags = json["diagnostics"].as_array().unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert!(out.ends_with('\n') && !lines.is_empty(), "{dir}: {out:?}");
    assert_eq!(lines.len(), diags.len(), "{dir}: one line per diagnostic:\n{out}");
    for (l, d) in lines.iter().zip(diags) {
        let g = parse_github(l).unwrap_or_else(|e| panic!("{dir}: {e}"));
        let mut message = d["message"].as_str().unwrap().to_string();
        if let Some(h) = d["help"].as_str() {
            message.push_str(&format!("\nhelp: {h}"));
        }
        let expected = GithubLine {
            kind: d["severity"].as_str().unwrap().to_string(),
            file: d["file"].as_str().unwrap().to_string(),
            line: d["line"].as_u64().unwrap(),
            col: d["column"].as_u64().unwrap(),
            title: d["code"].as_str().unwrap().to_string(),
            message,
        };
        assert_eq!(g, expected, "{dir}: {l}");
    }
}

#[test]
fn github_parser_follows_the_workflow_command_syntax() {
    let g = parse_github("::error file=a%2Cb.yaml,line=2,col=27,title=P001::50%25 done%0Ahelp: {%25 if %25}").unwrap();
    assert_eq!((g.file.as_str(), g.line, g.col, g.title.as_str()), ("a,b.yaml", 2, 27, "P001"));
    assert_eq!(g.message, "50% done\nhelp: {% if %}");
    for bad in [
        "::error file=a,line=2,col=27,title=P001::50% done",
        "::error file=a,line=x,col=27,title=P001::m",
        "::error file=a:b,line=2,col=27,title=P001::m",
        "::error line=2,col=27,title=P001::m",
        "::fatal file=a,line=2,col=27,title=P001::m",
        "error file=a,line=2,col=27,title=P001::m",
        "::error file=a,line=2,col=27,title=P001:m",
    ] {
        assert!(parse_github(bad).is_err(), "accepted {bad:?}");
    }
}

#[test]
fn github_escapes_percent_and_newlines_in_messages() {
    // P001's help contains `{% if … %}`, and help goes on a second line.
    let out = cli_check("fixtures/check/p001-fail", &["--format", "github"], 1);
    assert_eq!(out, check_github("fixtures/check/p001-fail", &[], 1), "the library's text is what the CLI prints");
    let line = out.lines().next().unwrap();
    assert!(line.contains("%0Ahelp: guard the sentence with {%25 if \"write_file\" in tool_names %25}"), "{line}");
    assert!(!line.contains("{% "), "{line}");
}

// ---------------------------------------------------------------------------------------
// Levels

const LEVELS_DIR: &str = "fixtures/check/levels";

/// The project denies P004 (which it triggers) and allows P007 (which it also triggers).
#[test]
fn project_levels_apply() {
    let human = check(LEVELS_DIR, &[], 1);
    assert_eq!(headlines(&human), [("error".to_string(), "P004".to_string())], "{human}");
    assert_eq!(summary(&human), "check failed: 1 error, 0 warnings");
}

#[test]
fn command_line_beats_project_levels() {
    // -W brings back what the project allows.
    let human = check(LEVELS_DIR, &["-W", "P007"], 1);
    assert_eq!(headlines(&human), [("error".into(), "P004".into()), ("warning".into(), "P007".into())], "{human}");
    assert_eq!(summary(&human), "check failed: 1 error, 1 warning");
    // -W demotes what the project denies.
    let human = check(LEVELS_DIR, &["-W", "P004"], 0);
    assert_eq!(headlines(&human), [("warning".to_string(), "P004".to_string())], "{human}");
    assert_eq!(summary(&human), "check passed: 0 errors, 1 warning");
    // -D on an allowed rule makes it an error.
    let human = check(LEVELS_DIR, &["-D", "P007", "-W", "P004"], 1);
    assert_eq!(headlines(&human), [("warning".into(), "P004".into()), ("error".into(), "P007".into())], "{human}");
    // Codes are case-insensitive on the command line.
    assert_eq!(summary(&check(LEVELS_DIR, &["-W", "p004"], 0)), "check passed: 0 errors, 1 warning");
}

#[test]
fn allow_silences() {
    let human = check(LEVELS_DIR, &["-A", "P004"], 0);
    assert!(headlines(&human).is_empty(), "{human}");
    assert_eq!(summary(&human), "check passed: 0 errors, 0 warnings");
    let cli = cli_check(LEVELS_DIR, &["--format", "json", "-A", "P004", "--allow", "P007"], 0);
    assert_eq!(cli, lib_check(LEVELS_DIR, &["-A", "P004", "--allow", "P007"], 0).render(Format::Json));
    let json: Value = serde_json::from_str(&cli).unwrap();
    assert_eq!(json["diagnostics"], Value::Array(vec![]));
    // The cacheable-prefix table is still reported.
    assert_eq!(json["cache_prefixes"][0]["ends_at"], "environment", "{json:#}");
}

#[test]
fn later_deny_wins_and_repeats_are_harmless() {
    let human = cli_check(LEVELS_DIR, &["-A", "P004", "-D", "P004"], 1);
    assert_eq!(summary(&human), "check failed: 1 error, 0 warnings");
    let human = cli_check(LEVELS_DIR, &["-W", "P004", "-W", "P004"], 0);
    assert_eq!(summary(&human), "check passed: 0 errors, 1 warning");
}

/// The documented rule is "later wins", but the CLI applies all -A, then all -W, then all -D
/// whatever their order, so `-D P004 -A P004` still denies.
#[test]
fn later_flag_wins() {
    let human = cli_check(LEVELS_DIR, &["-D", "P004", "-A", "P004"], 0);
    assert_eq!(summary(&human), "check passed: 0 errors, 0 warnings");
    let human = cli_check(LEVELS_DIR, &["-D", "P004", "-W", "P004"], 0);
    assert_eq!(summary(&human), "check passed: 0 errors, 1 warning");
}

#[test]
fn unknown_rule_code_is_a_usage_error() {
    for flag in ["-D", "-W", "-A"] {
        let out = promptc(&["-C", "fixtures/check/p001-pass", "check", flag, "P099"]);
        assert_eq!(out.status.code(), Some(2), "{flag} P099");
        assert!(out.stdout.is_empty(), "{flag} P099 printed a report");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.starts_with("error: unknown rule `P099`"), "{stderr}");
        assert!(stderr.contains("P001, P002, P003, P004, P005, P006, P007, P008, P009, P010, P011, P012"), "{stderr}");
    }
}

// ---------------------------------------------------------------------------------------
// --explain

#[test]
fn explain_every_rule() {
    // The binary prints the library's text, whatever the case of the code.
    let out = promptc::explain("P004").unwrap();
    assert_eq!(run(&["check", "--explain", "P004"], 0), out);
    assert_eq!(run(&["check", "--explain", "p004"], 0), out);
    for (code, level) in LEVELS {
        let out = promptc::explain(code).unwrap_or_else(|e| panic!("{code}: {e:?}"));
        let first = out.lines().next().unwrap();
        assert!(first.starts_with(&format!("{code} ")), "{out}");
        let default = match level {
            Level::Warn => "default: warn)",
            Level::Deny => "default: deny)",
        };
        assert!(first.ends_with(default), "{code}: {first}");
        let fix = out
            .split("\n\n")
            .find(|p| p.starts_with("Fix: "))
            .unwrap_or_else(|| panic!("{code}: no Fix: paragraph:\n{out}"));
        assert!(fix.len() > "Fix: ".len() + 10, "{code}: {fix}");
        // Lower case works too.
        assert_eq!(promptc::explain(&code.to_ascii_lowercase()).unwrap(), out);
    }
}

#[test]
fn explain_unknown_rule() {
    let out = promptc(&["check", "--explain", "P099"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: unknown rule `P099`"));
}

// ---------------------------------------------------------------------------------------
// What templates read through includes

/// A switch read only inside an included file (as `switches.NAME` or as a plain name) or an
/// imported macro is read: P007 stays quiet, and the project passes with every rule denied.
#[test]
fn p007_sees_switches_read_through_includes_and_imports() {
    let dir = "fixtures/check/p007-switch-in-include";
    let json = check_json(dir, &deny_all(), 0);
    assert_eq!(json["diagnostics"], Value::Array(vec![]), "{json:#}");
}

// ---------------------------------------------------------------------------------------
// The shipped example and the starter project

#[test]
fn shipped_example_checks_clean() {
    let human = cli_check("profiles", &[], 0);
    assert_eq!(human, "check passed: 0 errors, 0 warnings\n", "a clean check prints one line");
    let verbose = cli_check("profiles", &["-v"], 0);
    assert!(verbose.starts_with("cacheable prefix (the request before"), "-v adds the table:\n{verbose}");
    assert_eq!(summary(&verbose), "check passed: 0 errors, 0 warnings");
}

#[test]
fn init_starter_is_clean_and_init_never_overwrites() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("agent");
    let d = dir.to_str().unwrap();
    run(&["init", d], 0);
    let created = common::tree(&dir);
    assert!(created.contains_key(Path::new("promptc.yaml")), "{:?}", created.keys());
    let manifest = String::from_utf8_lossy(&created[Path::new("promptc.yaml")]).into_owned();
    assert!(manifest.contains("\nname: agent\n"), "`init agent` names the project after its folder:\n{manifest}");

    let human = cli_check(d, &[], 0);
    assert!(headlines(&human).is_empty(), "{human}");
    assert_eq!(summary(&human), "check passed: 0 errors, 0 warnings");
    assert!(!run(&["-C", d, "render"], 0).is_empty());
    assert!(!run(&["-C", d, "render", "--profile", "lite", "--transport", "xml"], 0).is_empty());
    assert!(!run(&["-C", d, "report"], 0).is_empty());
    // The report wrote the token cache, which the starter's .gitignore covers.
    assert!(!crate::common::token_shards(&dir.join(".promptc-cache"), "tokens").is_empty());
    assert_eq!(std::fs::read_to_string(dir.join(".gitignore")).unwrap().lines().last(), Some(".promptc-cache/"));
    run(&["-C", d, "snapshot"], 0);
    assert!(dir.join("snapshots/summary.json").is_file());

    // A second init refuses and changes nothing.
    let before = common::tree(&dir);
    let out = promptc(&["init", d]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("refusing to overwrite"));
    assert_eq!(common::tree(&dir), before, "a refused init touched the folder");

    // One existing file is enough to refuse, and nothing else is written.
    let other = tmp.path().join("other");
    std::fs::create_dir(&other).unwrap();
    std::fs::write(other.join("promptc.yaml"), "mine\n").unwrap();
    let out = promptc(&["init", other.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("refusing to overwrite") && stderr.contains("promptc.yaml"), "{stderr}");
    assert_eq!(common::tree(&other), BTreeMap::from([(PathBuf::from("promptc.yaml"), b"mine\n".to_vec())]));

    // An existing .gitignore is kept and extended once.
    let repo_dir = tmp.path().join("repo");
    std::fs::create_dir(&repo_dir).unwrap();
    std::fs::write(repo_dir.join(".gitignore"), "node_modules/").unwrap();
    run(&["init", repo_dir.to_str().unwrap()], 0);
    let ignore = std::fs::read_to_string(repo_dir.join(".gitignore")).unwrap();
    assert!(ignore.starts_with("node_modules/\n# promptc's token cache"), "{ignore}");
    assert_eq!(ignore.matches(".promptc-cache/").count(), 1, "{ignore}");
}

/// A tool file that does not load hides its tools, so the template that tests for one of them is
/// not reported as testing for an undeclared tool: one error for the file, one note saying the
/// tool-reference checks were skipped, and no error on the template nobody touched.
#[test]
fn a_tool_file_that_fails_to_load_skips_tool_reference_checks_instead_of_flagging_every_reference() {
    let out = promptc(&["-C", "fixtures/bad/tool-file-fails-to-load", "check"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("no tool file declares"), "a reference to a hidden tool was flagged:\n{stderr}");
    assert_eq!(stderr.matches("\nerror: ").count() + usize::from(stderr.starts_with("error: ")), 1, "{stderr}");
    assert!(stderr.contains("note: the tool name templates test for was not checked"), "{stderr}");
}

/// `init` names the project after the folder it writes: the named one, or the current folder's
/// own name for `init` alone; a name YAML would read as something else is quoted.
#[test]
fn init_names_the_project_after_its_folder_and_quotes_names_yaml_would_misread() {
    let tmp = tempfile::tempdir().unwrap();
    let here = tmp.path().join("helper");
    std::fs::create_dir(&here).unwrap();
    let out = common::promptc_in(&here, &["init"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let manifest = std::fs::read_to_string(here.join("promptc.yaml")).unwrap();
    assert!(manifest.contains("\nname: helper\n"), "`init` in `helper` names the project `helper`:\n{manifest}");

    let odd = tmp.path().join("yes");
    run(&["init", odd.to_str().unwrap()], 0);
    let manifest = std::fs::read_to_string(odd.join("promptc.yaml")).unwrap();
    assert!(manifest.contains("\nname: \"yes\"\n"), "a folder named `yes` stays a string:\n{manifest}");
    let human = cli_check(odd.to_str().unwrap(), &[], 0);
    assert_eq!(summary(&human), "check passed: 0 errors, 0 warnings");
}

/// Files `init` writes are source files the user edits: they should get the usual
/// permissions (0666 minus the umask), not a temporary file's 0600.
#[cfg(unix)]
#[test]
fn init_files_are_not_private() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    run(&["init", tmp.path().to_str().unwrap()], 0);
    let mode = std::fs::metadata(tmp.path().join("promptc.yaml")).unwrap().permissions().mode() & 0o777;
    assert_ne!(mode, 0o600, "promptc.yaml is {mode:o}");
}

/// Ordinary English words a catalog could use as tool names.
const DECOYS: &[&str] = &[
    "read", "write", "search", "list", "edit", "run", "ask", "open", "find", "test", "plan", "note", "fix", "build",
    "replace", "execute", "browse", "complete", "update", "delete", "rename", "check", "use", "call", "respond",
    "think", "answer", "patch", "todo", "clarify", "bash", "task", "review", "debug", "commit", "diff", "grep",
    "shell", "fetch", "remember",
];

/// P001's false positives on real prose: 40 ordinary words added to the catalog as tools no
/// profile registers; every one of their occurrences in the prompts (2,261 in the example's
/// 20 cells) is English, not a call, so P001 must find nothing. Measured on the shipped example
/// and on the coding-agent fixture, each with its own tools' plain names left out.
#[test]
fn p001_stays_quiet_on_ordinary_words_in_real_prompts() {
    for project in ["profiles", "fixtures/good/coding-agent"] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        let root = dir.path().join("p");
        common::copy_dir(&common::repo().join(project), &root);
        let existing: Vec<String> = common::project(project).tool_names().iter().map(|s| s.to_string()).collect();
        let decoys: Vec<&str> = DECOYS.iter().copied().filter(|d| !existing.iter().any(|e| e == d)).collect();
        let catalog: String = decoys
            .iter()
            .map(|w| format!("- name: {w}\n  toolset: decoy\n  description: A decoy tool named {w}.\n"))
            .collect();
        std::fs::write(root.join("tools/decoy.yaml"), catalog).unwrap();
        let manifest = root.join("promptc.yaml");
        let text = std::fs::read_to_string(&manifest).unwrap();
        std::fs::write(&manifest, text.replacen("tools:\n  - tools/", "tools:\n  - tools/decoy.yaml\n  - tools/", 1))
            .unwrap();
        let decoyed = promptc::load(&root).unwrap();
        let found = common::with_counter(|counter| promptc::check(&decoyed, &[], counter)).unwrap();
        let v: Value = serde_json::from_str(&found.render(Format::Json)).unwrap();
        let p001: Vec<&Value> = v["diagnostics"].as_array().unwrap().iter().filter(|d| d["code"] == "P001").collect();
        assert!(p001.is_empty(), "{project}: {} decoys, P001 false positives: {p001:#?}", decoys.len());
    }
}

/// `check.profile_levels`: P002 allowed for the profile that is never sent to OpenAI still
/// judges the other one, and the finding names the profiles that send the long description.
#[test]
fn a_rule_can_have_its_own_level_in_one_profile() {
    let dir = tempfile::tempdir().unwrap();
    common::copy_dir(&common::repo().join("fixtures/check/profile-levels"), dir.path());
    let path = dir.path().to_str().unwrap().to_string();
    // The copy as it is now, in process.
    let check = |flags: &[&str], code: i32| {
        let project = promptc::load(dir.path()).unwrap();
        lib_check_in(&project, flags, code).render(Format::Human { color: false, verbose: false })
    };
    assert_eq!(summary(&check(&[], 0)), "check passed: 0 errors, 0 warnings");
    let edit = |file: &str, from: &str, to: &str| {
        let p = dir.path().join(file);
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.contains(from), "{from}");
        std::fs::write(&p, text.replacen(from, to, 1)).unwrap();
    };
    // Without the override, lite sends the long text too: found, naming lite only.
    edit("tools.yaml", "  overrides:\n    lite:\n      description: Read a file.\n", "");
    let human = check(&[], 1);
    assert_eq!(headlines(&human), [("error".to_string(), "P002".to_string())], "{human}");
    assert!(human.contains("has a 1,159-character description in profile `lite`; openai rejects"), "{human}");
    // The command line's level wins over the profile's.
    let human = check(&["-W", "P002"], 0);
    assert!(human.contains("in profiles `lite`, `standard`"), "{human}");
    // Without the profile level, standard is judged as well.
    edit("promptc.yaml", "    standard: {P002: allow}\n", "    standard: {P002: warn}\n");
    let human = check(&[], 1);
    assert_eq!(headlines(&human), [("error".into(), "P002".into()), ("warning".into(), "P002".into())], "{human}");
    // Rules that look at the whole project cannot be set per profile.
    edit("promptc.yaml", "    standard: {P002: warn}\n", "    standard: {P007: allow}\n");
    let out = common::promptc(&["check", "-C", &path]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("P007 cannot be set for one profile: it judges the project as a whole"), "{stderr}");
}

/// Tool examples reach the prompt only through a `tool_examples` section (neither the tools
/// JSON nor the xml tool docs carry them): an example naming a tool the cell lacks is a P001
/// finding in the cells that show examples and in no other (it was also reported for native
/// cells without examples).
#[test]
fn p001_judges_examples_only_where_they_are_shown() {
    let out = check("fixtures/check/p001-examples", &[], 1);
    let p001: Vec<&str> = out.lines().filter(|l| l.starts_with("error[P001]")).collect();
    assert_eq!(p001.len(), 1, "{out}");
    assert!(p001[0].contains("example 1 of tool `read_file` names tool `edit_file`"), "{out}");
    assert!(out.contains("--> fixtures/check/p001-examples/tools.yaml:10:60"), "{out}");
    assert!(out.contains("= note: cells: shown.native, shown.xml\n"), "{out}");
}

/// Each finding of the human output: its headline and the `file:line:col` it points at.
fn findings(human: &str) -> Vec<(String, String)> {
    human
        .lines()
        .zip(human.lines().skip(1))
        .filter(|(head, _)| head.starts_with("error[") || head.starts_with("warning["))
        .filter_map(|(head, at)| Some((head.to_string(), at.trim_start().strip_prefix("--> ")?.to_string())))
        .collect()
}

/// Per-profile parameters and overrides are judged like tools and sections, under profile
/// names that mean nothing by themselves (`full`, `mini`, `other`, roles declared): a parameter
/// the subset sends and its superset does not is P005; a parameter, an override or an
/// override's wording no cell sends is P007 (all were silent).
#[test]
fn per_profile_parameters_and_overrides_are_judged() {
    let dir = "fixtures/check/per-profile-parameters";
    let out = check(dir, &[], 1);
    let found: Vec<(String, String)> = findings(&out)
        .into_iter()
        .filter_map(|(head, at)| {
            let code = head.split_once('[')?.1.split_once(']')?.0;
            Some((code.to_string(), at.strip_prefix(dir)?.to_string()))
        })
        .collect();
    let expected = [
        ("P005", "/tools.yaml:11:5"),
        ("P007", "/tools.yaml:16:5"),
        ("P007", "/tools.yaml:22:5"),
        ("P007", "/tools.yaml:26:9"),
    ];
    let expected: Vec<(String, String)> = expected.iter().map(|(c, l)| (c.to_string(), l.to_string())).collect();
    assert_eq!(found, expected, "{out}");
    assert!(out.contains("profile `mini` sends parameter `encoding` of `read_file`, which `full` does not"), "{out}");
    assert!(out.contains("the override of `read_file` for `other` never applies"), "{out}");
    assert!(out.contains("words parameter `encoding`, which `full` never sends"), "{out}");
    assert!(out.contains("none of its profiles (`other`) registers the tool"), "{out}");
    assert!(!out.contains("gives it no role"), "{out}");
}

/// Each P001 finding is located at the mention inside the text that holds it: a parameter's
/// description (a nested one too), an example, and a harness message's section, which was not
/// checked at all. Parameter and example findings all pointed at the first mention after the
/// tool's declaration.
#[test]
fn p001_locates_each_finding_in_its_own_text() {
    let dir = "fixtures/check/p001-located";
    let out = check(dir, &[], 1);
    let found: Vec<(String, String)> =
        findings(&out).into_iter().filter(|(head, _)| head.starts_with("error[P001]")).collect();
    let expected = [
        ("section `workspace` of message 1 (user) names tool `edit_file`", "promptc.yaml:18:48"),
        ("parameter `path` of tool `read_file` names tool `edit_file`", "tools.yaml:8:45"),
        ("parameter `range` of tool `read_file` names tool `edit_file`", "tools.yaml:15:43"),
        ("example 1 of tool `read_file` names tool `edit_file`", "tools.yaml:17:60"),
    ];
    assert_eq!(found.len(), expected.len(), "{out}");
    for ((head, at), (message, location)) in found.iter().zip(expected) {
        assert!(head.contains(message), "{head} lacks {message}\n{out}");
        assert_eq!(at, &format!("{dir}/{location}"), "{out}");
    }
    assert_eq!(out.matches("= note: cells: reader.native\n").count(), 4, "{out}");
}

/// A switch read only by a tool variant's `when:` (or a description part's) is read: P007
/// called `windows` and `container` never read in the variants fixture.
#[test]
fn p007_counts_the_switches_variants_read() {
    let out = check("fixtures/good/tool-variants", &[], 0);
    assert!(!out.contains("P007"), "{out}");
}

/// P002 measures a description as the tools JSON sends it and names the variant that sends it
/// and the cells (cases included): a long description on the Windows variant was reported, if
/// at all, under a name no catalog file has, without the case that turns it on.
#[test]
fn p002_names_the_variant_and_the_cells() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    common::copy_dir(&common::repo().join("fixtures/good/tool-variants"), root);
    let edit = |file: &str, from: &str, to: &str| {
        let p = root.join(file);
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.contains(from), "{file}: {from}");
        std::fs::write(&p, text.replacen(from, to, 1)).unwrap();
    };
    let long = "Run a PowerShell command. ".repeat(45);
    edit(
        "tools.yaml",
        "description: Run a PowerShell command in the workspace and return its output.",
        &format!("description: {long}"),
    );
    edit(
        "promptc.yaml",
        "providers: [anthropic]",
        "providers: [openai]\ncases:\n  win:\n    switches: {windows: true}",
    );
    edit("promptc.yaml", "provider: anthropic", "provider: openai");
    let out = common::promptc_in(root, &["check", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let p002: Vec<&serde_json::Value> =
        v["diagnostics"].as_array().unwrap().iter().filter(|d| d["code"] == "P002").collect();
    assert_eq!(p002.len(), 1, "{v}");
    let message = p002[0]["message"].as_str().unwrap();
    assert!(message.starts_with("tool `run_powershell` (a variant of `run_shell`) has a 1,169-character"), "{message}");
    assert!(p002[0].to_string().contains("cells: standard.win.native"), "{}", p002[0]);
    assert!(p002[0]["file"].as_str().unwrap().ends_with("tools.yaml"), "{}", p002[0]);
}

/// A switch value no case sets is reached with `--set`: `check` renders it in a cell of its own
/// (`NAME=VALUE` over the defaults), so a sentence naming a tool that value turns off is found.
/// Before, only the defaults and the cases were rendered, and this project passed.
#[test]
fn a_switch_value_no_case_sets_is_linted_in_a_cell_of_its_own() {
    let result = lib_check("fixtures/check/switch-value-no-case-sets", &[], 1);
    let found: Vec<(Option<String>, &str)> =
        result.diagnostics.iter().map(|d| (d.code.map(|c| c.to_string()), d.message.as_str())).collect();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0.as_deref(), Some("P001"), "{found:?}");
    let d = &result.diagnostics[0];
    assert!(d.message.contains("`ask_followup_question`, which is not active in 1 cell"), "{}", d.message);
    assert_eq!(d.notes, ["cells: standard.yolo=true.native"], "the cell says which value it renders");
    // The matrix's own cells are listed as before; the extra cells are linted, not listed.
    let cells: Vec<&str> = result.cache_prefixes.iter().map(|p| p.cell.as_str()).collect();
    assert_eq!(cells, ["standard.native.openai"]);
}

/// The extra cells stay within `limits.matrix_cells`; values past it are named in a note that
/// says why they were not rendered.
#[test]
fn switch_values_past_the_cell_limit_are_named_as_not_rendered() {
    let dir = tempfile::tempdir().unwrap();
    common::copy_dir(&common::repo().join("fixtures/check/switch-value-no-case-sets"), dir.path());
    let manifest = dir.path().join("promptc.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replace("transports: [native]", "limits: {matrix_cells: 2}\ntransports: [native]"))
        .unwrap();
    let project = promptc::load(dir.path()).unwrap();
    // Room for one value (one cell each): `yolo=true` is rendered, `tone=terse` is not.
    let result = lib_check_in(&project, &[], 1);
    let messages: Vec<&str> = result.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert!(messages.iter().any(|m| m.contains("not active in 1 cell")), "yolo=true rendered: {messages:?}");
    let note = messages.iter().find(|m| m.starts_with("check did not render")).expect("a note");
    assert_eq!(
        *note,
        "check did not render 1 switch value no case sets: `tone=terse` (1 more cell would pass \
         `limits.matrix_cells`, 2)"
    );
}

/// P002 on harness messages: a user message whose sections all render empty is left out, so
/// `standard`'s messages start with the assistant's (Anthropic refuses that) and `quiet` sends
/// none (Anthropic and Gemini refuse that); OpenAI takes both. With the switch on (the cells
/// `check` renders for `tests_failing=true`) the user message is sent and nothing is found.
#[test]
fn p002_finds_harness_messages_that_start_with_the_assistant_or_are_all_left_out() {
    let result = lib_check("fixtures/check/p002-harness-messages", &[], 1);
    let found: Vec<(String, &str, &[String])> = result
        .diagnostics
        .iter()
        .map(|d| (d.code.map(|c| c.to_string()).unwrap_or_default(), d.message.as_str(), d.notes.as_slice()))
        .collect();
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found.iter().all(|(code, _, _)| code == "P002"), "{found:?}");
    let (_, first, notes) = &found[0];
    assert!(
        first.starts_with("profile `standard`'s harness messages start with the assistant's in 1 cell")
            && first.ends_with("anthropic refuses a first message that is not the user's"),
        "{first}"
    );
    assert_eq!(notes[0], "cells: standard.native", "not the cell with the switch on");
    let (_, second, notes) = &found[1];
    assert!(
        second.starts_with("profile `quiet` sends none of its harness messages in 1 cell")
            && second.ends_with("anthropic and gemini refuse a request without a message"),
        "{second}"
    );
    assert_eq!(notes[0], "cells: quiet.native");
    let located = result.diagnostics.iter().map(|d| d.label.as_ref().and_then(|l| l.position).map(|p| p.line));
    assert_eq!(located.collect::<Vec<_>>(), [Some(37), Some(46)], "at each profile's declaration");
}
