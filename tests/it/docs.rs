//! The README runs: every `promptc` command in its `sh` blocks runs against a copy of the
//! repository's example in the layout the README assumes (`profiles/`, `snapshots/`, inside a
//! repository), each block in one shell in order (so `cd` and files a command writes carry to
//! the next line), with the few input files the commands name made beforehand. A command that
//! cannot run unattended is skipped, with why; any other must exit as the README says.

use std::path::Path;

use crate::common::{copy_dir, repo};

/// Commands not run, with why.
const SKIPPED: &[(&str, &str)] =
    &[("promptc watch ", "runs until interrupted"), ("promptc diff --review", "asks at a terminal, change by change")];

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

#[test]
fn every_command_the_readme_shows_runs_on_the_example() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let blocks = sh_blocks(&readme);
    let total: usize = blocks.iter().map(|(_, c)| c.len()).sum();
    assert!(total >= 40, "the README's commands were not found ({total})");
    let bin = Path::new(env!("CARGO_BIN_EXE_promptc")).parent().unwrap().to_path_buf();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let mut ran = 0;
    for (line, commands) in blocks {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        copy_dir(&repo().join("profiles"), &dir.path().join("profiles"));
        copy_dir(&repo().join("snapshots"), &dir.path().join("snapshots"));
        // The README's json-transport example is a ReAct fixture (the example has no json cells).
        let react = "fixtures/design/003-react-loop";
        copy_dir(&repo().join(react), &dir.path().join(react));
        inputs(dir.path());
        let run: Vec<&String> =
            commands.iter().filter(|c| !SKIPPED.iter().any(|(prefix, _)| c.starts_with(prefix))).collect();
        // One shell per block; each command's exit code reported on a line of its own.
        let script: String =
            run.iter().map(|c| format!("{{ {c}\n}} </dev/null >/dev/null 2>&1; echo \"@@$?\"\n")).collect();
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(&script)
            .current_dir(dir.path())
            .env("PATH", &path)
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        let codes: Vec<i32> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.strip_prefix("@@").and_then(|c| c.parse().ok()))
            .collect();
        assert_eq!(codes.len(), run.len(), "README.md:{line}: {}", String::from_utf8_lossy(&out.stderr));
        for (command, code) in run.iter().zip(codes) {
            let expected = EXIT.iter().find(|(c, _)| command.as_str() == *c).map_or(0, |(_, e)| *e);
            assert_eq!(code, expected, "README.md (block at line {line}): `{command}` exited {code}");
            ran += 1;
        }
    }
    assert_eq!(ran + count_skipped(&readme), total);
}

/// How many of the README's commands [`SKIPPED`] leaves out.
fn count_skipped(readme: &str) -> usize {
    sh_blocks(readme)
        .iter()
        .flat_map(|(_, c)| c.iter())
        .filter(|c| SKIPPED.iter().any(|(prefix, _)| c.starts_with(prefix)))
        .count()
}
