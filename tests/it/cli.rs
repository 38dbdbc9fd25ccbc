//! The command line itself: help and exit codes, `schema`, `completions`.

use crate::common;

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
        "import",
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

/// `promptc [CMD] --help` with `COLUMNS` set to `columns`, or unset (`None`: no terminal, no
/// width, as in a pipe); returns the help text.
fn help_at(cmd: Option<&str>, columns: Option<u16>) -> String {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_promptc"));
    c.current_dir(repo()).env_remove("COLUMNS").args(cmd).arg("--help");
    if let Some(w) = columns {
        c.env("COLUMNS", w.to_string());
    }
    let out = c.output().expect("run promptc");
    assert_eq!(out.status.code(), Some(0), "{cmd:?} --help");
    stdout(&out)
}

/// Help fits the terminal: at most 100 columns when the width is unknown, at most 80 at 80
/// columns, for the top level and every command, and each ends with a link to its documentation.
#[test]
fn every_help_fits_the_terminal_and_ends_with_a_link_to_its_documentation() {
    let top = help_at(None, None);
    let commands: Vec<String> = top
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter(|l| l.as_bytes().get(2).is_some_and(|b| *b != b' '))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect();
    assert!(commands.len() >= 15, "the command list was not found:\n{top}");
    for cmd in std::iter::once(None).chain(commands.iter().map(|c| Some(c.as_str()))) {
        for (columns, limit) in [(None, 100), (Some(80), 80)] {
            let help = help_at(cmd, columns);
            let widest = help.lines().map(|l| l.chars().count()).max().unwrap_or(0);
            assert!(widest <= limit, "{cmd:?} --help at {columns:?} columns is {widest} wide:\n{help}");
            let link = help.trim_end().lines().last().unwrap_or("").trim();
            assert!(
                link.starts_with(&format!("{}#", env!("CARGO_PKG_REPOSITORY"))),
                "{cmd:?} --help ends without a docs link:\n{help}"
            );
        }
    }
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

    // A flag value clap refuses: a usage error document, and an annotation for github.
    let out = common::promptc(&["render", "--format", "json", "--transport", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["error"]["kind"], "usage");
    assert!(doc["error"]["diagnostics"][0]["message"].as_str().unwrap().contains("'nope'"), "{doc}");
    let out = common::promptc(&["check", "--format=github", "--deny", "P001", "--bogus"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("::error::"), "{}", String::from_utf8_lossy(&out.stdout));

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

/// `watch render` re-renders when a project file changes, shows errors without exiting, and
/// does not react to writes outside the project's inputs (the token cache).
#[test]
fn watch_reruns_on_changes_and_survives_errors() {
    use std::io::BufRead;
    use std::sync::mpsc;
    let w = common::Workspace::new();
    // A link to the root of the file system: the watch follows no link (it would walk, and
    // watch, everything there before its first run).
    std::os::unix::fs::symlink("/", w.path("profiles/root")).unwrap();
    let mut child = common::Killed(
        std::process::Command::new(env!("CARGO_BIN_EXE_promptc"))
            .current_dir(w.dir.path())
            .env("NO_COLOR", "1")
            // An hour between looks: only file events can wake it within the hang guard.
            .args(["-C", "profiles", "watch", "--interval", "3600000", "render", "--nonce", "abcd1234"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let (tx, rx) = mpsc::channel::<(bool, String)>();
    for (is_err, stream) in [
        (false, Box::new(child.0.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>),
        (true, Box::new(child.0.stderr.take().unwrap())),
    ] {
        let tx = tx.clone();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stream).lines().map_while(Result::ok) {
                let _ = tx.send((is_err, line));
            }
        });
    }
    // Wait until a line of stdout (or stderr, with `err`) after the last one matched contains
    // `until`, within 20 s. The streams are read apart: their lines interleave in any order.
    let mut lines: [Vec<String>; 2] = [Vec::new(), Vec::new()];
    let mut cursor = [0usize; 2];
    let mut wait_for = |err: bool, until: &str| {
        let s = usize::from(err);
        loop {
            if let Some(i) = lines[s][cursor[s]..].iter().position(|l| l.contains(until)) {
                cursor[s] += i + 1;
                return;
            }
            match rx.recv_timeout(common::HANG_GUARD) {
                Ok((is_err, line)) => lines[usize::from(is_err)].push(line),
                Err(_) => panic!("no `{until}` within {:?}; stderr:\n{}", common::HANG_GUARD, lines[1].join("\n")),
            }
        }
    };
    wait_for(true, "── promptc watch: run 1 (first run) ──");
    wait_for(false, "You are Forge");
    let role = w.path("profiles/sections/role.md.j2");
    std::fs::write(&role, std::fs::read_to_string(&role).unwrap().replace("You are Forge", "You are Anvil")).unwrap();
    wait_for(true, "run 2 (sections/role.md.j2 changed)");
    wait_for(false, "You are Anvil");
    // A broken manifest: the error is shown, the watch goes on.
    w.edit("profiles/promptc.yaml", "name: forge", "name: [forge");
    wait_for(true, "run 3 (promptc.yaml changed)");
    wait_for(true, "promptc.yaml:");
    w.edit("profiles/promptc.yaml", "name: [forge", "name: forge");
    wait_for(true, "run 4 (promptc.yaml changed)");
    wait_for(false, "You are Anvil");
    assert!(child.0.try_wait().unwrap().is_none(), "watch exited");
}

/// `watch` never re-runs itself: what the watched command writes inside the project (`render
/// --out`, `report --out`, their temporary files and folders, the token cache) is not an input.
/// Each watch runs once, stays quiet while nothing else changes, and runs exactly once more
/// when a project file does.
#[test]
fn watch_ignores_what_it_writes() {
    use std::io::BufRead;
    use std::time::{Duration, Instant};
    let w = common::Workspace::new();
    // A token cache where the project's files are (not in a hidden folder): `report` writes it.
    w.edit("profiles/promptc.yaml", "  cache: .promptc-cache/tokens.json", "  cache: tokens.json");
    // A random nonce (no `--nonce`) makes every render's artifact differ from the last.
    let commands: [&[&str]; 2] = [&["render", "--out", "profiles/art"], &["report", "--out", "profiles/report.md"]];
    // Polling and file events alike.
    for (mode, command) in [&["--poll"][..], &[]].into_iter().flat_map(|m| commands.map(|c| (m, c))) {
        let mut child = common::Killed(
            std::process::Command::new(env!("CARGO_BIN_EXE_promptc"))
                .current_dir(w.dir.path())
                .env("NO_COLOR", "1")
                .args(["-C", "profiles", "watch", "--interval", "50"])
                .args(mode)
                .args(command)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap(),
        );
        let runs = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
        let stderr = child.0.stderr.take().unwrap();
        let seen = runs.clone();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
                if line.starts_with("── promptc watch: run") {
                    seen.lock().unwrap().push(line);
                }
            }
        });
        let count = || runs.lock().unwrap().len();
        let wait_for = |n: usize| {
            let start = Instant::now();
            while count() < n {
                assert!(start.elapsed() < common::HANG_GUARD, "{command:?}: no run {n}: {:?}", runs.lock().unwrap());
                std::thread::sleep(Duration::from_millis(20));
            }
        };
        wait_for(1);
        // Forty intervals: time for a watch that saw its own writes to run again, many times.
        std::thread::sleep(Duration::from_secs(2));
        assert_eq!(count(), 1, "{command:?}: {:?}", runs.lock().unwrap());
        w.edit("profiles/promptc.yaml", "name: forge", "name: forge2");
        wait_for(2);
        std::thread::sleep(Duration::from_secs(2));
        assert_eq!(count(), 2, "{command:?}: {:?}", runs.lock().unwrap());
        assert!(runs.lock().unwrap()[1].contains("(promptc.yaml changed)"), "{:?}", runs.lock().unwrap());
        drop(child);
        w.edit("profiles/promptc.yaml", "name: forge2", "name: forge");
    }
    for written in ["art/prompt.md", "report.md"] {
        assert!(w.path("profiles").join(written).is_file(), "{written}");
    }
    assert!(!crate::common::token_shards(&w.path("profiles"), "tokens").is_empty(), "the token cache");
}

/// `watch` re-runs on an edit however the project is named: from the project folder itself
/// (the quick start's case, no `-C`), with `-C DIR`, and with `-C FILE`.
#[test]
fn watch_reruns_for_every_way_of_naming_the_project() {
    use std::io::BufRead;
    use std::time::Instant;
    let w = common::Workspace::new();
    let root = w.dir.path().to_path_buf();
    let ways: [(std::path::PathBuf, &[&str]); 3] = [
        (root.join("profiles"), &[]),
        (root.clone(), &["-C", "profiles"]),
        (root.clone(), &["-C", "profiles/promptc.yaml"]),
    ];
    for (i, (cwd, project)) in ways.iter().enumerate() {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_promptc"))
            .current_dir(cwd)
            .env("NO_COLOR", "1")
            .args(*project)
            .args(["watch", "--interval", "50", "render", "--nonce", "abcd1234"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let (tx, rx) = std::sync::mpsc::channel::<String>();
        let stderr = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let mut seen = Vec::new();
        let mut wait_for = |what: &str| {
            let start = Instant::now();
            while !seen.iter().any(|l: &String| l.contains(what)) {
                let left = common::HANG_GUARD.saturating_sub(start.elapsed());
                match rx.recv_timeout(left) {
                    Ok(line) => seen.push(line),
                    Err(_) => {
                        let _ = child.kill();
                        panic!("{project:?} in {}: no `{what}`: {seen:?}", cwd.display());
                    }
                }
            }
        };
        wait_for("run 1 (first run)");
        w.edit("profiles/sections/role.md.j2", "You are Forge", &format!("You are Forge{i}"));
        wait_for("run 2 (sections/role.md.j2 changed)");
        let _ = child.kill();
        let _ = child.wait();
        w.edit("profiles/sections/role.md.j2", &format!("You are Forge{i}"), "You are Forge");
    }
}

/// The README's quick start, followed verbatim in a fresh folder (the install line aside:
/// the binary under test stands in for the installed one).
#[test]
fn the_readme_quick_start_works_as_written() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let section = readme.split("## Quick start").nth(1).expect("a quick start section");
    let block = section.split("```sh\n").nth(1).and_then(|b| b.split("```").next()).expect("a code block");
    let tmp = tempfile::tempdir().unwrap();
    let mut cwd = tmp.path().to_path_buf();
    let mut ran = 0;
    for line in block.lines().skip(1) {
        let command = line.split("  #").next().unwrap().trim();
        for step in command.split("&&").map(str::trim) {
            let words: Vec<&str> = step.split_whitespace().collect();
            match words.as_slice() {
                ["cd", dir] => cwd = cwd.join(dir),
                ["promptc", args @ ..] => {
                    let out = common::promptc_in(&cwd, args);
                    assert!(out.status.success(), "`{step}` failed:\n{}", String::from_utf8_lossy(&out.stderr));
                    ran += 1;
                }
                other => panic!("the quick start has a step this test cannot follow: {other:?}"),
            }
        }
    }
    assert_eq!(ran, 5);
    assert!(cwd.join("snapshots/summary.json").is_file());
}

/// bash, when it is installed.
fn bash() -> Option<std::path::PathBuf> {
    let found = std::env::var_os("PATH")
        .and_then(|paths| std::env::split_paths(&paths).map(|d| d.join("bash")).find(|p| p.is_file()));
    found.or_else(|| Some(std::path::PathBuf::from("/bin/bash")).filter(|p| p.is_file()))
}

/// What bash's completion offers for `words` (the word completed last, maybe empty), run in
/// `dir` with the script `promptc completions bash` prints; and what it printed on stderr.
fn bash_completes(bash: &std::path::Path, dir: &std::path::Path, words: &[&str]) -> (Vec<String>, String) {
    let script = stdout(&promptc(&["completions", "bash"]));
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), script).unwrap();
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let program = format!(
        // As bash calls a completion function: the command, the word completed, the one before.
        "source '{}'\nCOMP_WORDS=('{}' {})\nCOMP_CWORD={}\n\
         _promptc_dynamic \"${{COMP_WORDS[0]}}\" \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"\n\
         printf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
        file.path().display(),
        env!("CARGO_BIN_EXE_promptc"),
        quoted.join(" "),
        words.len()
    );
    let out = std::process::Command::new(bash).current_dir(dir).arg("-c").arg(program).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let offered = String::from_utf8_lossy(&out.stdout).lines().filter(|l| !l.is_empty()).map(str::to_string).collect();
    (offered, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// bash completes the project's own names — profiles, switches, variables, slash commands, and
/// the tools, sections and cells `review --accept` takes — in the project `-C` names (or the one
/// found from the folder), and clap's flags as before; a project that does not load offers
/// nothing and prints nothing.
#[test]
fn bash_completes_the_projects_names() {
    let Some(bash) = bash() else {
        eprintln!("skipped: bash is not installed (the completion script is tested in bash)");
        return;
    };
    let root = common::repo();
    let at = |words: &[&str]| bash_completes(&bash, &root, words).0;
    assert_eq!(at(&["-C", "profiles", "render", "--profile", ""]), ["standard", "lite"]);
    assert_eq!(at(&["-C", "profiles", "report", "--profile", "l"]), ["lite"]);
    assert_eq!(at(&["--project=profiles", "review", "--accept", "read"]), ["read_file"]);
    // Sections and cell patterns (with the project's cases) for review; cells for diff's globs.
    assert_eq!(at(&["-C", "profiles", "review", "--reject", "rul"]), ["rules"]);
    assert_eq!(
        at(&["-C", "profiles", "diff", "--accept", "standard."]),
        // Quoted for bash: `*` left bare would be globbed against the folder's files.
        ["standard.\\*", "standard.all-capabilities.\\*", "standard.yolo.\\*", "standard.with-user-rules.\\*"]
    );
    assert_eq!(at(&["-C", "profiles", "command", ""]), ["deep-planning"]);
    assert_eq!(at(&["-C", "profiles", "render", "--var", "c"]), ["cwd=", "current_date="]);
    assert_eq!(at(&["-C", "profiles", "render", "--subagent", ""]), ["researcher"]);
    // From the project's folder, without -C: the project found there.
    let (switches, _) = bash_completes(&bash, &root.join("profiles"), &["render", "--set", ""]);
    assert!(switches.contains(&"browser".to_string()) && switches.contains(&"yolo".to_string()), "{switches:?}");
    // Everything else is clap's completion.
    assert_eq!(at(&["render", "--transp"]), ["--transport"]);
    assert_eq!(at(&["render", "--transport", "x"]), ["xml"]);
    // A project that does not load: nothing offered, nothing printed.
    let (none, err) = bash_completes(&bash, &root, &["-C", "no/such/project", "render", "--profile", ""]);
    assert!(none.is_empty() && err.is_empty(), "{none:?} {err}");
}

/// A cloned project's switch values are untrusted: completing `--set` in bash runs none of
/// them (no marker file appears, though the values are `$(touch …)`, backquotes and `;`), offers
/// each escaped for bash — so that the word bash puts on the command line is the value itself —
/// and leaves out values holding ESC or a bidirectional override.
#[test]
fn bash_completion_runs_nothing_a_project_declares() {
    let Some(bash) = bash() else {
        eprintln!("skipped: bash is not installed (the completion script is tested in bash)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let values = ["safe", "$(touch m1)", "`touch m2`", "a;touch m3", "x\u{1b}[2Jy", "abc\u{202e}txt.exe", "s p*"];
    let listed: Vec<String> = values.iter().map(|v| serde_json::to_string(v).unwrap()).collect();
    let manifest = format!(
        "promptc: 1\nname: hostile\ncontract_version: 1\ntransports: [native]\nproviders: [openai]\n\
         switches:\n  mode:\n    description: d\n    values: [{}]\nsections:\n  role:\n    text: hi\n\
         tools: []\nprofiles:\n  standard:\n    description: d\n    sections: [role]\n",
        listed.join(", ")
    );
    std::fs::write(dir.path().join("promptc.yaml"), manifest).unwrap();
    let (mut offered, _) = bash_completes(&bash, dir.path(), &["render", "--set", ""]);
    offered.retain(|w| w.starts_with("mode="));
    let (narrowed, _) = bash_completes(&bash, dir.path(), &["render", "--set", "mode=\\$"]);
    let marks: Vec<String> =
        ["m1", "m2", "m3"].into_iter().filter(|m| dir.path().join(m).exists()).map(String::from).collect();
    assert!(marks.is_empty(), "completion ran a switch value: {marks:?} created");
    assert_eq!(
        offered,
        ["mode=safe", "mode=\\$\\(touch\\ m1\\)", "mode=\\`touch\\ m2\\`", "mode=a\\;touch\\ m3", "mode=s\\ p\\*"]
    );
    assert_eq!(narrowed, ["mode=\\$\\(touch\\ m1\\)"], "the typed word is matched as bash reads it");
    // What bash would run once a candidate is on the command line: the value, as one word.
    let words = offered.join(" ");
    let out = std::process::Command::new(&bash)
        .current_dir(dir.path())
        .arg("-c")
        .arg(format!("printf '%s\\n' {words}"))
        .output()
        .unwrap();
    let expected: Vec<String> =
        ["safe", "$(touch m1)", "`touch m2`", "a;touch m3", "s p*"].iter().map(|v| format!("mode={v}")).collect();
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().collect::<Vec<_>>(), expected);
    assert!(!["m1", "m2", "m3"].iter().any(|m| dir.path().join(m).exists()), "the completed words ran");
}

/// `promptc complete KIND PREFIX` lists the project's names of that kind that start with PREFIX.
#[test]
fn complete_lists_names_by_kind_and_prefix() {
    let out = promptc(&["-C", "profiles", "complete", "tool", "web_"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "web_fetch\nweb_search\n");
    assert_eq!(stdout(&promptc(&["-C", "profiles", "complete", "case"])), "all-capabilities\nyolo\nwith-user-rules\n");
    assert_eq!(promptc(&["-C", "profiles", "complete", "nothing"]).status.code(), Some(2));
}

/// `watch report --matrix` keeps its compile cache across runs: after an edit only the cells
/// it reached are compiled again; `--no-cache` keeps nothing (and says nothing about it).
#[test]
fn watch_report_recompiles_only_what_an_edit_reached() {
    use std::io::BufRead;
    use std::time::{Duration, Instant};
    let w = common::Workspace::new();
    for no_cache in [false, true] {
        let mut args = vec!["-C", "profiles", "watch", "--interval", "50", "report", "--matrix", "--format", "json"];
        if no_cache {
            args.push("--no-cache");
        }
        let mut child = common::Killed(
            std::process::Command::new(env!("CARGO_BIN_EXE_promptc"))
                .current_dir(w.dir.path())
                .env("NO_COLOR", "1")
                .args(&args)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap(),
        );
        let lines = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
        let (stderr, seen) = (child.0.stderr.take().unwrap(), lines.clone());
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
                seen.lock().unwrap().push(line);
            }
        });
        let wait_for = |run: usize| {
            let start = Instant::now();
            loop {
                let got = lines.lock().unwrap().clone();
                let runs: Vec<usize> =
                    got.iter().enumerate().filter(|(_, l)| l.contains("promptc watch: run")).map(|(i, _)| i).collect();
                // A run is over once the next one's header or its own cache line is printed.
                if let Some(&at) = runs.get(run - 1) {
                    let after = &got[at + 1..];
                    if let Some(line) = after.iter().find(|l| l.starts_with("compile cache:")) {
                        return Some(line.clone());
                    }
                    // Without the cache no line comes: the run is over when the next one starts.
                    if no_cache && runs.len() > run {
                        return got[at + 1..runs[run]].iter().find(|l| l.starts_with("compile cache:")).cloned();
                    }
                }
                assert!(start.elapsed() < common::HANG_GUARD, "no run {run}: {got:?}");
                std::thread::sleep(Duration::from_millis(20));
            }
        };
        let cells = promptc::matrix(common::project("profiles")).len();
        let file = "profiles/sections/mcp_servers.md.j2";
        let text = std::fs::read_to_string(w.path(file)).unwrap();
        let first = if no_cache {
            // The watch takes its first look at the files before it says run 1 starts.
            let start = Instant::now();
            while !lines.lock().unwrap().iter().any(|l| l.contains("promptc watch: run 1")) {
                assert!(start.elapsed() < common::HANG_GUARD, "no run 1");
                std::thread::sleep(Duration::from_millis(20));
            }
            None
        } else {
            wait_for(1)
        };
        std::fs::write(w.path(file), format!("{text}\nOne more line{}.\n", u8::from(no_cache))).unwrap();
        // Without the cache, run 1 is over once run 2 starts.
        let second = wait_for(if no_cache { 1 } else { 2 });
        drop(child);
        if no_cache {
            assert_eq!(second, None, "--no-cache keeps no compile cache");
            continue;
        }
        assert_eq!(first.as_deref(), Some(format!("compile cache: {cells} cells compiled, 0 reused").as_str()));
        let second = second.unwrap();
        let numbers: Vec<usize> = second.split(' ').filter_map(|w| w.parse().ok()).collect();
        assert!(
            matches!(numbers[..], [compiled, reused] if compiled > 0 && reused > 0 && compiled + reused == cells),
            "{second}"
        );
    }
}

/// `promptc -C fixtures/good/minimal ARGS` with `input` on standard input.
fn with_stdin(args: &[&str], input: &[u8]) -> Output {
    let args: Vec<&str> = ["-C", "fixtures/good/minimal"].into_iter().chain(args.iter().copied()).collect();
    common::promptc_in_with_stdin(&repo(), &args, input)
}

#[test]
fn a_context_of_dash_is_read_from_standard_input_and_located_there() {
    let out = with_stdin(&["render", "--context", "-"], b"variables:\n  cwd: /srv/piped\n");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout(&out).contains("Working directory: /srv/piped"), "the piped value is used:\n{}", stdout(&out));
    let out = with_stdin(&["render", "--context", "-"], b"switches:\n  brwoser: true\n");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown switch `brwoser` in context file\n --> <stdin>:2:3"), "{err}");
}
