//! The docs run: every `promptc` command in the `sh` blocks of the README and `docs/*.md` runs
//! against a copy of the repository's example in the layout the README assumes (`profiles/`,
//! `snapshots/`, inside a repository), each block in one shell in order (so `cd` and files a
//! command writes carry to the next line), with the few input files the commands name made
//! beforehand. A command that cannot run unattended is skipped, with why; any other must exit
//! as the docs say.
//!
//! And every output the docs show is what the command prints: a `text` block preceded by
//! `<!-- output of: SCRIPT -->` must be found, line by line and in order, in what SCRIPT (a
//! shell line run in a fresh copy) prints. A line `…` (or a table row of `…` and blanks) stands
//! for any number of lines; a line ending in `…` for any line starting with what comes before.

use std::path::Path;

use crate::common::{copy_dir, repo};

/// Commands not run, with why.
const SKIPPED: &[(&str, &str)] = &[("promptc watch ", "runs until interrupted")];

/// Commands whose documented exit code is not 0 on the example, with it.
const EXIT: &[(&str, i32)] = &[];

/// Each `sh` block of `markdown`: its first line number and its commands (comments cut).
fn sh_blocks(markdown: &str) -> Vec<(usize, Vec<String>)> {
    let mut blocks = Vec::new();
    let mut current: Option<(usize, Vec<String>)> = None;
    for (i, line) in markdown.lines().enumerate() {
        match (&mut current, line.trim_end()) {
            (None, "```sh") => current = Some((i + 2, Vec::new())),
            (Some(_), "```") => blocks.extend(current.take()),
            (Some((_, commands)), l) if l.starts_with("promptc ") => {
                let command = l.split("  #").next().unwrap_or(l).trim_end();
                commands.push(command.to_string());
            }
            _ => {}
        }
    }
    blocks
}

/// The input files the README's commands read.
fn inputs(dir: &Path) {
    let snapshots = dir.join("snapshots");
    let tools = std::fs::read_to_string(snapshots.join("standard.native.openai.tools.json")).unwrap();
    std::fs::write(dir.join("tools.json"), &tools).unwrap();
    let body = format!("{{\"model\": \"gpt-4o\", \"messages\": [], \"tools\": {tools}}}");
    std::fs::write(dir.join("body.json"), body).unwrap();
    std::fs::write(dir.join("session.yaml"), "switches:\n  browser: true\nvariables:\n  cwd: /srv/app\n").unwrap();
    copy_dir(&snapshots, &dir.join("old"));
    copy_dir(&snapshots, &dir.join("new"));
}

/// The documents whose commands and outputs are tested: the README and every `docs/*.md`.
fn documents() -> Vec<(String, String)> {
    let mut out = vec![("README.md".to_string(), std::fs::read_to_string(repo().join("README.md")).unwrap())];
    let mut docs: Vec<_> = std::fs::read_dir(repo().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    for p in docs {
        let rel = format!("docs/{}", p.file_name().unwrap().to_string_lossy());
        out.push((rel, std::fs::read_to_string(&p).unwrap()));
    }
    out
}

/// A fresh copy of the example in the README's layout, with the inputs its commands read.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    copy_dir(&repo().join("profiles"), &dir.path().join("profiles"));
    copy_dir(&repo().join("snapshots"), &dir.path().join("snapshots"));
    // The README's json-transport example is a ReAct fixture (the example has no json cells),
    // and its import error example a fixture of bad input.
    for fixture in
        ["fixtures/design/003-react-loop", "fixtures/bad/import-root-not-object.json", "fixtures/chat-templates"]
    {
        let (from, to) = (repo().join(fixture), dir.path().join(fixture));
        if from.is_dir() {
            copy_dir(&from, &to);
        } else {
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(&from, &to).unwrap();
        }
    }
    inputs(dir.path());
    dir
}

/// Run `script` with `sh` in `dir`, the tests' binary first on the PATH.
fn shell(dir: &Path, script: &str) -> std::process::Output {
    let bin = Path::new(env!("CARGO_BIN_EXE_promptc")).parent().unwrap().to_path_buf();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    std::process::Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .env("PATH", &path)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

#[test]
fn every_command_the_docs_show_runs_on_the_example() {
    let (mut total, mut ran, mut skipped) = (0, 0, 0);
    for (doc, text) in documents() {
        for (line, commands) in sh_blocks(&text) {
            total += commands.len();
            let dir = workspace();
            let run: Vec<&String> =
                commands.iter().filter(|c| !SKIPPED.iter().any(|(prefix, _)| c.starts_with(prefix))).collect();
            skipped += commands.len() - run.len();
            // One shell per block; each command's exit code reported on a line of its own.
            let script: String =
                run.iter().map(|c| format!("{{ {c}\n}} </dev/null >/dev/null 2>&1; echo \"@@$?\"\n")).collect();
            let out = shell(dir.path(), &script);
            let codes: Vec<i32> = String::from_utf8_lossy(&out.stdout)
                .lines()
                .filter_map(|l| l.strip_prefix("@@").and_then(|c| c.parse().ok()))
                .collect();
            assert_eq!(codes.len(), run.len(), "{doc}:{line}: {}", String::from_utf8_lossy(&out.stderr));
            for (command, code) in run.iter().zip(codes) {
                let expected = EXIT.iter().find(|(c, _)| command.as_str() == *c).map_or(0, |(_, e)| *e);
                assert_eq!(code, expected, "{doc} (block at line {line}): `{command}` exited {code}");
                ran += 1;
            }
        }
    }
    assert!(total >= 40, "the docs' commands were not found ({total})");
    assert_eq!(ran + skipped, total);
}

/// Each `text` block preceded by `<!-- output of: SCRIPT -->`: the script, the block's first
/// line number and its lines.
fn output_blocks(markdown: &str) -> Vec<(String, usize, Vec<String>)> {
    let lines: Vec<&str> = markdown.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let Some(script) = l.strip_prefix("<!-- output of: ").and_then(|r| r.strip_suffix(" -->")) else { continue };
        assert_eq!(lines.get(i + 1).copied(), Some("```text"), "line {}: the comment must precede a text block", i + 1);
        let body: Vec<String> = lines[i + 2..].iter().take_while(|l| **l != "```").map(|l| l.to_string()).collect();
        out.push((script.to_string(), i + 3, body));
    }
    out
}

/// Whether a documented line stands for any number of printed lines: `…`, or a table row
/// whose cells are all `…` or blank.
fn is_gap(line: &str) -> bool {
    let cells: Vec<&str> = line.trim().trim_matches('│').split(['┆', '│', '|']).map(str::trim).collect();
    line.contains('…') && cells.iter().all(|c| c.is_empty() || *c == "…")
}

/// Whether `printed` shows the documented line: equal, or (a line ending in `…`) starting
/// with what comes before it.
fn shows(printed: &str, documented: &str) -> bool {
    printed == documented
        || documented.strip_suffix('…').is_some_and(|head| !head.trim().is_empty() && printed.starts_with(head))
}

/// Where `documented` (gaps allowed) is not found in order in `printed`: the first line missing.
fn first_missing<'a>(printed: &str, documented: &'a [String]) -> Option<&'a str> {
    let printed: Vec<&str> = printed.lines().collect();
    let mut at = 0;
    for d in documented.iter().filter(|d| !d.trim().is_empty() && !is_gap(d)) {
        match printed[at..].iter().position(|p| shows(p, d)) {
            Some(k) => at += k + 1,
            None => return Some(d),
        }
    }
    None
}

#[test]
fn every_output_the_docs_show_is_what_the_command_prints() {
    let mut checked = 0;
    for (doc, text) in documents() {
        for (script, line, body) in output_blocks(&text) {
            let dir = workspace();
            let out = shell(dir.path(), &format!("{{ {script}\n}} 2>&1"));
            let printed = String::from_utf8_lossy(&out.stdout);
            if let Some(missing) = first_missing(&printed, &body) {
                panic!("{doc}:{line}: `{script}` does not print\n{missing}\n--- it printed ---\n{printed}");
            }
            checked += 1;
        }
    }
    assert!(checked >= 4, "the documented outputs were not found ({checked})");
}

#[test]
fn documented_output_matching_allows_only_what_it_says() {
    let doc = |lines: &[&str]| lines.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    let printed = "head\na\nb\nc\nknown tools: x, y, z\ntail";
    assert_eq!(first_missing(printed, &doc(&["head", "…", "c", "known tools: x, …"])), None);
    assert_eq!(first_missing(printed, &doc(&["│ …  ┆   ┆ … │", "tail"])), None);
    assert_eq!(first_missing(printed, &doc(&["c", "b"])), Some("b"), "order matters");
    assert_eq!(first_missing(printed, &doc(&["known tools: w, …"])), Some("known tools: w, …"));
    assert!(!is_gap("│ = billed ┆ ≈5694 ┆ OpenAI co…token │"));
}
