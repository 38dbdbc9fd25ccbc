//! What promptc does differently when a person watches: output on a pseudo-terminal (made by
//! `script` from util-linux, so Linux only) against the same command on a pipe. Notes meant for
//! the reader appear on the terminal and never in piped output, which scripts consume.

#![cfg(target_os = "linux")]

use crate::common;

use std::path::Path;
use std::process::Command;

/// `s` quoted for `sh`.
fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Run `promptc ARGS` in `dir` with stdin, stdout and stderr on one pseudo-terminal `columns`
/// wide; returns the exit code and everything the terminal showed (CR-LF made LF).
pub fn on_terminal(dir: &Path, args: &[&str], columns: u16) -> (i32, String) {
    let mut cmd = vec![sh_quote(env!("CARGO_BIN_EXE_promptc"))];
    cmd.extend(args.iter().map(|a| sh_quote(a)));
    // `stty cols` sets the terminal's own width (what `ioctl(TIOCGWINSZ)` reports), COLUMNS
    // what programs that read the environment see.
    let line = format!("stty cols {columns} rows 40 2>/dev/null; exec {}", cmd.join(" "));
    let out = Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("COLUMNS", columns.to_string())
        .output()
        .expect("run script(1)");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n"))
}

#[test]
fn render_at_a_terminal_names_the_tools_sent_beside_the_prompt_and_a_pipe_gets_only_the_prompt() {
    let minimal = common::repo().join("fixtures/good/minimal");
    let (code, shown) = on_terminal(&minimal, &["render"], 80);
    assert_eq!(code, 0, "{shown}");
    assert!(
        shown.starts_with("note: 2 tools sent beside the prompt: read_file, write_file (print them: --tools)"),
        "the terminal shows the tools first:\n{shown}"
    );
    let piped = common::promptc_in(&minimal, &["render"]);
    assert!(String::from_utf8_lossy(&piped.stderr).is_empty(), "a pipe gets no note");
    assert!(!String::from_utf8_lossy(&piped.stdout).contains("note:"));
}

#[test]
fn an_html_report_is_refused_at_a_terminal_naming_the_flag_and_written_with_out() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("p");
    common::copy_dir(&common::repo().join("fixtures/good/minimal"), &root);
    let (code, shown) = on_terminal(&root, &["report", "--format", "html"], 80);
    assert_eq!(code, 2, "{shown}");
    assert!(!shown.contains("<html") && !shown.contains("<!doctype"), "markup reached the terminal:\n{shown}");
    assert!(shown.contains("--format html --out report.html"), "the refusal names the flag:\n{shown}");

    let (code, shown) = on_terminal(&root, &["report", "--format", "html", "--out", "report.html"], 80);
    assert_eq!(code, 0, "{shown}");
    assert!(shown.starts_with("wrote report.html ("), "one line says what was written where:\n{shown}");
    assert!(std::fs::read_to_string(root.join("report.html")).unwrap().contains("<html"));

    // A pipe still gets the page: `promptc report --format html > page.html` keeps working.
    let piped = common::promptc_in(&root, &["report", "--format", "html"]);
    assert_eq!(piped.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&piped.stdout).contains("<html"));
}
