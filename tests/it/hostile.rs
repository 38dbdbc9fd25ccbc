//! Hostile projects and faults (a project may come from a pull request): nothing is written
//! outside the project or its repository, nothing is deleted or overwritten that promptc did
//! not write, no read blocks or runs without end, records are tamper-evident, and a killed,
//! starved or concurrent run leaves a complete folder. Each test asserts the exit code, the
//! message, and what changed on disk — or did not. Templates that blow up (depth, size,
//! growth) are in the bad-input corpus (`tests/it/bad_input.rs`).

use crate::common;

use common::Workspace;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Every file under `dir`, with its contents, for before/after comparisons.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries {
            let p = e.unwrap().path();
            let meta = std::fs::symlink_metadata(&p).unwrap();
            let rel = p.strip_prefix(base).unwrap().display().to_string();
            if meta.is_dir() {
                walk(base, &p, out);
            } else if meta.is_file() {
                out.push((rel, std::fs::read(&p).unwrap()));
            } else {
                out.push((rel, b"<link>".to_vec()));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// Run `promptc ARGS` in `dir` with a wall-clock limit: a hang is a failure, not a stuck test.
fn run_bounded(dir: &Path, args: &[&str], limit: Duration) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_promptc"))
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            child.kill().unwrap();
            panic!("promptc {args:?} did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

// --- writes stay inside the project -----------------------------------------------------------

#[test]
fn a_committed_symlink_cannot_redirect_the_token_cache_outside_the_project() {
    let w = Workspace::new();
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir(home.path().join(".ssh")).unwrap();
    std::fs::write(home.path().join(".ssh/authorized_keys"), "ssh-ed25519 AAAA user\n").unwrap();
    std::os::unix::fs::symlink(home.path(), w.path("profiles/h")).unwrap();
    w.edit("profiles/promptc.yaml", "  cache: .promptc-cache/tokens.json", "  cache: h/.ssh/authorized_keys");
    let before = tree(home.path());
    // `diff` without drift counts nothing, so it never opens the cache at all.
    for args in [&["report"][..], &["check"], &["snapshot"], &["diff"]] {
        let out = w.run(args);
        assert_ne!(out.status.code(), Some(2), "{args:?}: a cache problem is never fatal\n{}", stderr(&out));
        if args != ["diff"] {
            assert!(stderr(&out).contains("warning: token cache"), "{args:?}: {}", stderr(&out));
            assert!(stderr(&out).contains("symbolic link"), "{args:?}: {}", stderr(&out));
        }
    }
    assert_eq!(tree(home.path()), before, "nothing outside the project changed");
}

#[test]
fn the_snapshot_folder_a_project_names_stays_inside_its_repository() {
    let w = Workspace::new();
    let outside = tempfile::tempdir().unwrap();
    for (setting, message) in [
        (outside.path().display().to_string(), "must be a relative path"),
        ("../../../../../../../../tmp/promptc-escape".to_string(), "cannot use the snapshot folder"),
        // Inside the repository, but its version-control folder: writing there broke its refs.
        ("../.git/refs/tags".to_string(), "a version-control folder; promptc never writes there"),
    ] {
        let text = std::fs::read_to_string(w.path("profiles/promptc.yaml")).unwrap();
        let edited = text.replace("snapshots: ../snapshots", &format!("snapshots: {setting}"));
        std::fs::write(w.path("profiles/promptc.yaml"), &edited).unwrap();
        for command in ["snapshot", "diff"] {
            let out = w.run(&[command]);
            assert_eq!(out.status.code(), Some(2), "{command}");
            assert!(stderr(&out).contains(message), "{command}: {}", stderr(&out));
            assert!(stderr(&out).contains("profiles/promptc.yaml:"), "located: {}", stderr(&out));
        }
        std::fs::write(w.path("profiles/promptc.yaml"), text).unwrap();
    }
    assert!(std::fs::read_dir(w.path(".git")).unwrap().next().is_none(), "nothing was written into .git");
    // A folder out of bounds is refused where it is used: a command that writes and reads
    // nothing there works.
    w.edit("profiles/promptc.yaml", "snapshots: ../snapshots", "snapshots: ../../../../../../../../tmp/promptc-escape");
    let out = w.run(&["render"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    w.edit("profiles/promptc.yaml", "snapshots: ../../../../../../../../tmp/promptc-escape", "snapshots: ../snapshots");
    assert!(std::fs::read_dir(outside.path()).unwrap().next().is_none());
    assert!(!Path::new("/tmp/promptc-escape").exists());
    // A committed link inside the repository that points out of it is refused when used.
    std::fs::remove_dir_all(w.path("snapshots")).unwrap();
    std::os::unix::fs::symlink(outside.path(), w.path("snapshots")).unwrap();
    let out = w.run(&["snapshot"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("cannot use the snapshot folder"), "{}", stderr(&out));
    assert!(std::fs::read_dir(outside.path()).unwrap().next().is_none());
    // What the user types is theirs to decide.
    let out = w.run(&["snapshot", "--dir", outside.path().join("snap").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// A folder on the `snapshots:` path swapped for a link out of the repository while `snapshot`
/// runs, racing the check that it stays inside: nothing is ever written outside. The folder's
/// parent is opened once, from the repository down, and everything goes through it (a run
/// either writes inside or is refused). A swapper thread toggles a folder on the path and a
/// link out for at most a few seconds of runs; the deterministic test of the mechanism is in
/// `source::pin`.
#[cfg(target_os = "linux")]
#[test]
fn a_folder_swapped_for_a_link_while_snapshot_runs_sends_nothing_out() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let w = Workspace::new();
    let outside = tempfile::tempdir().unwrap();
    w.edit("profiles/promptc.yaml", "snapshots: ../snapshots", "snapshots: ../deep/a/b/snap");
    std::fs::create_dir_all(w.path("deep/a")).unwrap();
    let (a, aside) = (w.path("deep/a"), w.path("deep/a.aside"));
    let stop = AtomicBool::new(false);
    let mut codes = Vec::new();
    let mut escaped = Vec::new();
    std::thread::scope(|s| {
        s.spawn(|| {
            while !stop.load(Ordering::Relaxed) {
                // Failures are the race itself (promptc made the folder meanwhile): go on.
                if std::fs::rename(&a, &aside).is_ok() {
                    let _ = std::os::unix::fs::symlink(outside.path(), &a);
                    std::thread::sleep(Duration::from_millis(1));
                    let _ = std::fs::remove_file(&a);
                    let _ = std::fs::rename(&aside, &a);
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        });
        // No assertion in here: a failing one would leave the swapper running.
        // Eight snapshots against the swapper, however long they take (each under a hang guard).
        while codes.len() < 8 {
            let out = run_bounded(w.dir.path(), &["snapshot"], Duration::from_secs(60));
            codes.push((out.status.code(), stderr(&out)));
            escaped.extend(tree(outside.path()).into_iter().map(|(name, _)| name));
        }
        stop.store(true, Ordering::Relaxed);
    });
    assert!(escaped.is_empty(), "written outside the repository: {escaped:?}");
    for (code, err) in codes {
        assert!(matches!(code, Some(0 | 2)), "written inside or refused, never a crash: {code:?} {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// The shipped example copied outside any repository (a source tarball, a copy): the commands
/// that write nothing work, and `snapshot` writes beside the project (`../snapshots`, inside
/// the folder holding it) but no further up.
#[test]
fn the_example_works_from_a_copy_outside_any_repository() {
    let dir = tempfile::tempdir().unwrap();
    assert!(!dir.path().ancestors().any(|a| a.join(".git").exists()), "the temporary folder is in a repository");
    common::copy_dir(&common::repo().join("profiles"), &dir.path().join("profiles"));
    common::copy_dir(&common::repo().join("snapshots"), &dir.path().join("snapshots"));
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_promptc"))
            .current_dir(dir.path())
            .env("NO_COLOR", "1")
            .args(["-C", "profiles"])
            .args(args)
            .output()
            .unwrap()
    };
    for args in [&["render"][..], &["report"], &["check"], &["diff"]] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    }
    std::fs::remove_dir_all(dir.path().join("snapshots")).unwrap();
    let out = run(&["snapshot"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(dir.path().join("snapshots/summary.json").is_file());
    assert_eq!(run(&["diff"]).status.code(), Some(0));
    // Two levels up is outside the folder holding the project: refused, located, nothing written.
    let manifest = dir.path().join("profiles/promptc.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replace("snapshots: ../snapshots", "snapshots: ../../promptc-copy-escape")).unwrap();
    let out = run(&["snapshot"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("cannot use the snapshot folder"), "{}", stderr(&out));
    assert!(stderr(&out).contains("promptc.yaml:"), "located: {}", stderr(&out));
    assert!(!dir.path().parent().unwrap().join("promptc-copy-escape").exists());
    assert_eq!(run(&["render"]).status.code(), Some(0));
    // The folder holding the project is the bound, not a snapshot folder.
    std::fs::write(&manifest, text.replace("snapshots: ../snapshots", "snapshots: ..")).unwrap();
    let out = run(&["snapshot"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("which holds the project"), "{}", stderr(&out));
}

// --- nothing deleted or overwritten that promptc did not write --------------------------------

#[test]
fn snapshot_refuses_a_folder_of_someone_else_s_files_and_keeps_unlisted_files() {
    let w = Workspace::new();
    let docs = w.path("docs");
    std::fs::create_dir(&docs).unwrap();
    std::fs::write(docs.join("guide.prompt.md"), "my own prompt notes").unwrap();
    std::fs::write(docs.join("summary.json"), "{\"mine\": true}").unwrap();
    let before = tree(&docs);
    let out = w.run(&["snapshot", "--dir", "docs"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("holds files promptc did not write"), "{}", stderr(&out));
    assert_eq!(tree(&docs), before);

    // In promptc's own folder, a file its summary does not list is the user's: kept, unread.
    std::fs::write(w.path("snapshots/standard.mine.prompt.md"), vec![0xffu8; 1 << 20]).unwrap();
    std::fs::write(w.path("snapshots/NOTES.md"), "keep").unwrap();
    w.edit("profiles/promptc.yaml", "contract_version: 1", "contract_version: 3");
    let out = w.run(&["snapshot"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read(w.path("snapshots/standard.mine.prompt.md")).unwrap(), vec![0xffu8; 1 << 20]);
    assert_eq!(std::fs::read_to_string(w.path("snapshots/NOTES.md")).unwrap(), "keep");
    let out = w.run(&["diff"]);
    assert_eq!(out.status.code(), Some(0), "unlisted files are not part of the comparison: {}", stderr(&out));
}

#[test]
fn render_out_replaces_only_its_own_artifact() {
    let w = Workspace::new();
    let out_dir = w.path("art");
    std::fs::create_dir(&out_dir).unwrap();
    std::fs::write(out_dir.join("tools.json"), "{\"the user's\": 1}").unwrap();
    let out = w.run(&["render", "--out", "art"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("holds files promptc did not write (tools.json)"), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(out_dir.join("tools.json")).unwrap(), "{\"the user's\": 1}");

    std::fs::remove_file(out_dir.join("tools.json")).unwrap();
    assert_eq!(w.run(&["render", "--out", "art"]).status.code(), Some(0));
    std::fs::write(out_dir.join("README.md"), "mine").unwrap();
    // An xml artifact has no tools.json: promptc removes the one it wrote, keeps the user's file.
    let out = w.run(&["render", "--out", "art", "--transport", "xml"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let names: Vec<String> = tree(&out_dir).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["README.md", "metadata.json", "prompt.md"]);
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out_dir.join("metadata.json")).unwrap()).unwrap();
    assert_eq!(meta["files"], serde_json::json!(["prompt.md"]));
    assert_eq!(meta["prompt_sha256"], common::sha256_hex(&std::fs::read(out_dir.join("prompt.md")).unwrap()));
}

#[test]
fn a_forged_summary_hands_over_no_user_file() {
    let w = Workspace::new();
    let docs = w.path("docs");
    std::fs::create_dir(&docs).unwrap();
    let mine = [
        ("standard.native.prompt.md", "my prompt notes"),
        ("standard.native.openai.tools.json", "{\"mine\": 1}"),
        ("standard.command-deep-planning.md", "my command"),
    ];
    for (n, t) in mine {
        std::fs::write(docs.join(n), t).unwrap();
    }
    let names: Vec<&str> = mine.iter().map(|(n, _)| *n).collect();
    let fingerprints = |hash: &dyn Fn(&str) -> String| -> serde_json::Value {
        mine.iter().map(|(n, t)| serde_json::json!({"name": n, "bytes": t.len(), "sha256": hash(t)})).collect()
    };
    let forged = [
        // An older format listed names only: it proves nothing.
        serde_json::json!({"format": 3, "project": "x", "contract_version": 1, "cells": [], "files": names}),
        serde_json::json!({"format": 2, "cells": [], "files": names}),
        serde_json::json!({"format": 1, "cells": []}),
        // The current format, with hashes that are not the files'.
        serde_json::json!({"format": 4, "project": "x", "contract_version": 1, "cells": [],
            "files": fingerprints(&|t: &str| common::sha256_hex(format!("{t}!").as_bytes()))}),
    ];
    for summary in forged {
        std::fs::write(docs.join("summary.json"), summary.to_string()).unwrap();
        let before = tree(&docs);
        for args in [&["snapshot", "--dir", "docs"][..], &["diff", "--dir", "docs", "--update"]] {
            let out = w.run(args);
            assert_eq!(out.status.code(), Some(2), "{args:?} {summary}: {}", stderr(&out));
            assert_eq!(tree(&docs), before, "{args:?} {summary}");
        }
        let out = w.run(&["snapshot", "--dir", "docs"]);
        if summary["format"] == 4 {
            for n in &names {
                assert!(
                    stderr(&out).contains(&format!("`{n}`, which is changed since promptc wrote it")),
                    "{}",
                    stderr(&out)
                );
            }
            assert!(stderr(&out).contains("move these files out of `docs`"), "{}", stderr(&out));
        } else {
            assert!(stderr(&out).contains("holds files promptc did not write"), "{}", stderr(&out));
        }
    }
}

#[test]
fn an_edited_or_user_made_snapshot_file_is_never_overwritten() {
    let w = Workspace::new();
    let prompt = w.path("snapshots/standard.native.prompt.md");
    std::fs::write(&prompt, "my edit").unwrap();
    w.edit("profiles/promptc.yaml", "contract_version: 1", "contract_version: 2");
    for args in [&["snapshot"][..], &["diff", "--update"]] {
        let out = w.run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("`standard.native.prompt.md`, which is changed since promptc wrote it"),
            "{}",
            stderr(&out)
        );
        assert_eq!(std::fs::read_to_string(&prompt).unwrap(), "my edit");
    }
    // Moved away as the message says, the folder is written again.
    std::fs::rename(&prompt, w.path("my-edit.md")).unwrap();
    let out = w.run(&["snapshot"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_complete(&w.path("snapshots"));
}

#[test]
fn an_artifact_metadata_without_hashed_files_hands_over_no_user_file() {
    let w = Workspace::new();
    assert_eq!(w.run(&["render", "--out", "art"]).status.code(), Some(0));
    let meta_path = w.path("art/metadata.json");
    let genuine: serde_json::Value = serde_json::from_slice(&std::fs::read(&meta_path).unwrap()).unwrap();
    let mut cases = Vec::new();
    // Metadata that lists no files (older promptc) or a file without its hash.
    let mut older = genuine.clone();
    older.as_object_mut().unwrap().remove("files");
    cases.push(older);
    let mut empty = genuine.clone();
    empty["files"] = serde_json::json!([]);
    cases.push(empty);
    let mut unhashed = genuine.clone();
    unhashed["files"] = serde_json::json!(["prompt.md", "tools.json", "notes.md"]);
    cases.push(unhashed);
    // A genuine-looking one, with the user's own tools.json in place of promptc's.
    cases.push(genuine.clone());
    for meta in cases {
        std::fs::write(&meta_path, meta.to_string()).unwrap();
        std::fs::write(w.path("art/tools.json"), "{\"the user's\": 1}").unwrap();
        let before = tree(&w.path("art"));
        let out = w.run(&["render", "--out", "art", "--transport", "xml"]);
        assert_eq!(out.status.code(), Some(2), "{meta}: {}", stderr(&out));
        assert_eq!(tree(&w.path("art")), before, "{meta}");
    }
    assert!(stderr(&w.run(&["render", "--out", "art", "--transport", "xml"]))
        .contains("`tools.json`, which is changed since promptc wrote it"));
}

// --- reads never block or run without end -----------------------------------------------------

#[test]
fn devices_fifos_and_folders_are_refused_without_blocking() {
    let w = Workspace::new();
    let fifo = w.path("fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let limit = Duration::from_secs(60);
    for (args, message) in [
        (vec!["verify", "/dev/zero"], "is not a regular file"),
        (vec!["verify", "fifo"], "is not a regular file"),
        (vec!["verify", "profiles"], "is not a regular file"),
        (vec!["render", "--context", "/dev/zero"], "is not a regular file"),
        (vec!["render", "--context", "fifo"], "is not a regular file"),
        (
            vec!["import", "tools", "fifo", "--out", "imp"],
            "`fifo` is a FIFO (named pipe): the import reads only regular files",
        ),
        (vec!["import", "tools", "/dev/zero", "--out", "imp"], "is a device"),
        (vec!["import", "tools", "profiles", "--out", "imp"], "`profiles` is a folder"),
    ] {
        let out = run_bounded(w.dir.path(), &args, limit);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(message), "{args:?}: {}", stderr(&out));
    }
    assert!(!w.path("imp").exists(), "a refused import writes nothing");
    // A cache shard that is a FIFO or a device is a warning, and the command still works.
    let shard = w.path("profiles/.promptc-cache/tokens.o200k_base.0.bin");
    std::fs::create_dir_all(shard.parent().unwrap()).unwrap();
    for make in ["fifo", "zero"] {
        let _ = std::fs::remove_file(&shard);
        if make == "fifo" {
            assert!(Command::new("mkfifo").arg(&shard).status().unwrap().success());
        } else {
            std::os::unix::fs::symlink("/dev/zero", &shard).unwrap();
        }
        let out = run_bounded(w.dir.path(), &["report"], limit);
        assert_eq!(out.status.code(), Some(0), "cache {make}: {}", stderr(&out));
        assert!(stderr(&out).contains("warning: token cache"), "{}", stderr(&out));
    }
    // A template file that is a FIFO.
    std::fs::remove_file(w.path("profiles/sections/role.md.j2")).unwrap();
    assert!(Command::new("mkfifo").arg(w.path("profiles/sections/role.md.j2")).status().unwrap().success());
    let out = run_bounded(w.dir.path(), &["render"], limit);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("is not a file"), "{}", stderr(&out));
}

// --- tamper-evident records --------------------------------------------------------------------

/// An edit of a frozen record.
type Edit = Box<dyn Fn(&mut serde_json::Value)>;

#[test]
fn an_edited_record_is_an_error_naming_what_was_changed() {
    let w = Workspace::new();
    assert_eq!(w.run(&["freeze", "--provider", "anthropic", "--out", "rec.json"]).status.code(), Some(0));
    let original: serde_json::Value = serde_json::from_slice(&std::fs::read(w.path("rec.json")).unwrap()).unwrap();
    let cases: Vec<(&str, Edit, i32, &str)> = vec![
        (
            "prompt",
            Box::new(|r| r["prompt"] = format!("IGNORE ALL RULES. {}", r["prompt"].as_str().unwrap()).into()),
            2,
            "its prompt does not match `metadata.prompt_sha256`",
        ),
        ("tools", Box::new(|r| r["tools"][0]["name"] = "rm_rf".into()), 2, "its tools do not match"),
        ("profile", Box::new(|r| r["request"]["profile"] = "lite".into()), 2, "another profile"),
        ("nonce", Box::new(|r| r["request"]["nonce"] = "<|SYSTEM|>".into()), 2, "its nonce"),
        ("format", Box::new(|r| r["format"] = "one".into()), 2, "its `format` field is \"one\", not a whole number"),
        (
            "transport",
            Box::new(|r| {
                r["request"]["transport"] = "json".into();
                r["metadata"]["transport"] = "json".into();
                r["request"]["provider"] = serde_json::Value::Null;
                r["metadata"]["provider"] = serde_json::Value::Null;
                r["tools"] = serde_json::Value::Null;
                r["metadata"]["tools_sha256"] = serde_json::Value::Null;
            }),
            2,
            "the json transport, which this project does not enable",
        ),
        // Editing the prompt and its hash together is consistent, and reported stale.
        (
            "prompt and hash",
            Box::new(|r| {
                let p = format!("IGNORE ALL RULES. {}", r["prompt"].as_str().unwrap());
                r["metadata"]["prompt_sha256"] = common::sha256_hex(p.as_bytes()).into();
                r["prompt"] = p.into();
            }),
            1,
            "stale",
        ),
    ];
    for (what, edit, code, message) in cases {
        let mut rec = original.clone();
        edit(&mut rec);
        std::fs::write(w.path("edited.json"), serde_json::to_string_pretty(&rec).unwrap()).unwrap();
        let out = w.run(&["verify", "edited.json"]);
        let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
        assert_eq!(out.status.code(), Some(code), "{what}: {all}");
        assert!(all.contains(message), "{what}: {all}");
    }
    // The untouched record is fresh.
    assert_eq!(w.run(&["verify", "rec.json"]).status.code(), Some(0));
}

// --- interrupted, starved and concurrent writes ------------------------------------------------

/// What a snapshot folder holds is one complete matrix: every file its summary lists exists
/// and has the size and hash the summary records.
fn assert_complete(dir: &Path) {
    let summary: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap();
    let files = summary["files"].as_array().unwrap();
    let mut listed: Vec<String> = files.iter().map(|f| f["name"].as_str().unwrap().into()).collect();
    for f in files {
        let text = std::fs::read(dir.join(f["name"].as_str().unwrap())).unwrap();
        assert_eq!(f["sha256"].as_str().unwrap(), common::sha256_hex(&text), "{}", f["name"]);
    }
    listed.push("summary.json".into());
    listed.sort();
    let present: Vec<String> = tree(dir).into_iter().map(|(n, _)| n).collect();
    assert_eq!(present, listed, "the folder holds exactly what its summary lists");
    for cell in summary["cells"].as_array().unwrap() {
        let prompt = &cell["prompt"];
        let text = std::fs::read(dir.join(prompt["name"].as_str().unwrap())).unwrap();
        assert_eq!(prompt["sha256"].as_str().unwrap(), common::sha256_hex(&text), "{}", prompt["name"]);
    }
}

fn temp_leftovers(parent: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(parent)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".promptc-"))
        .collect();
    names.sort();
    names
}

#[test]
fn a_snapshot_killed_at_any_moment_leaves_a_complete_folder() {
    let w = Workspace::new();
    let mut versions = 0;
    for delay_ms in [1u64, 3, 6, 10, 15, 20, 30, 45, 60, 90] {
        versions += 1;
        w.edit(
            "profiles/promptc.yaml",
            &format!("contract_version: {versions}"),
            &format!("contract_version: {}", versions + 1),
        );
        let mut child = Command::new(env!("CARGO_BIN_EXE_promptc"))
            .current_dir(w.dir.path())
            .args(["snapshot"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        assert_complete(&w.path("snapshots"));
    }
    // The next run cleans what the killed ones left and brings the folder up to date.
    let out = w.run(&["snapshot"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_complete(&w.path("snapshots"));
    assert!(temp_leftovers(w.dir.path()).is_empty(), "{:?}", temp_leftovers(w.dir.path()));
    assert_eq!(w.run(&["diff"]).status.code(), Some(0));
}

/// Make the folders a run of promptc killed at each point leaves beside `target` (in
/// `parent`): a build folder not yet marked, one marked and half-written, the retired folder
/// after the exchange, a retired folder half-removed; with `cut_swap`, the target itself moved
/// aside between the fallback's two renames. Returns the names made.
fn kill_leftovers(parent: &Path, target: &str, cut_swap: bool) -> Vec<String> {
    let dir = parent.join(target);
    let files: Vec<String> = tree(&dir).into_iter().map(|(n, _)| n).collect();
    let mut made = Vec::new();
    let mut make = |kind: &str, suffix: &str, keep: &[String]| {
        let name = format!(".{target}.promptc-{kind}-{suffix}");
        let p = parent.join(&name);
        std::fs::create_dir(&p).unwrap();
        for f in keep {
            std::fs::copy(dir.join(f), p.join(f)).unwrap();
        }
        made.push(name);
    };
    make("new", "aB3dE9", &[]);
    make("new", "Zz0000", &files[..1]);
    std::fs::write(parent.join(format!(".{target}.promptc-new-Zz0000/.promptc-partial")), "").unwrap();
    make("new", "q1w2e3", &files);
    make("del", "r4t5y6", &files[1..]);
    if cut_swap {
        let old = format!(".{target}.promptc-old-u7i8o9");
        std::fs::rename(&dir, parent.join(&old)).unwrap();
        made.push(old);
    }
    // A folder of the user's with a similar name is never taken for a leftover.
    std::fs::create_dir(parent.join(format!(".{target}.promptc-mine"))).unwrap();
    made
}

#[test]
fn the_next_run_cleans_what_killed_runs_left_and_writes_the_right_output() {
    let w = Workspace::new();
    for cut_swap in [false, true] {
        assert_eq!(w.run(&["render", "--out", "art"]).status.code(), Some(0));
        kill_leftovers(w.dir.path(), "art", cut_swap);
        let out = w.run(&["render", "--out", "art", "--transport", "xml"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(temp_leftovers(w.dir.path()), [".art.promptc-mine"], "cut swap: {cut_swap}");
        let names: Vec<String> = tree(&w.path("art")).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["metadata.json", "prompt.md"]);
        let prompt = w.run(&["render", "--transport", "xml"]).stdout;
        assert_eq!(std::fs::read(w.path("art/prompt.md")).unwrap(), prompt);
        std::fs::remove_dir(w.path(".art.promptc-mine")).unwrap();
    }

    // `import tools` writes through the same folder code: the same leftovers, the same cleaning.
    let input = common::repo().join("fixtures/import/native/anthropic.json");
    let import = |out: &str| w.run(&["import", "tools", input.to_str().unwrap(), "--out", out]);
    assert_eq!(import("imported").status.code(), Some(0));
    let written = tree(&w.path("imported"));
    kill_leftovers(w.dir.path(), "imported", true);
    let out = import("imported");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(temp_leftovers(w.dir.path()), [".imported.promptc-mine"]);
    assert_eq!(tree(&w.path("imported")), written);
}

#[test]
fn a_full_disk_leaves_the_previous_folders_untouched() {
    let w = Workspace::new();
    w.edit("profiles/promptc.yaml", "contract_version: 1", "contract_version: 7");
    let before = tree(&w.path("snapshots"));
    // Files may not grow past 16 KiB (SIGXFSZ ignored, so writes fail with EFBIG): the
    // matrix's larger prompts cannot be written, as on a full disk.
    let bin = env!("CARGO_BIN_EXE_promptc");
    for args in ["snapshot", "render --out art"] {
        let out = Command::new("bash")
            .current_dir(w.dir.path())
            .args(["-c", &format!("trap '' XFSZ; ulimit -f 16; exec {bin} {args}")])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args}: {}", stderr(&out));
        assert!(stderr(&out).contains("File too large") || stderr(&out).contains("file too large"), "{}", stderr(&out));
    }
    assert_eq!(tree(&w.path("snapshots")), before, "the old snapshot folder is intact");
    assert!(!w.path("art").exists(), "no half-written artifact folder");
    assert!(temp_leftovers(w.dir.path()).is_empty(), "{:?}", temp_leftovers(w.dir.path()));
}

#[test]
fn concurrent_snapshots_of_two_versions_never_mix() {
    let w = Workspace::new();
    let other = Workspace::new();
    other.edit("profiles/promptc.yaml", "contract_version: 1", "contract_version: 9");
    other.edit(
        "profiles/sections/role.md.j2",
        "You are Forge, an autonomous",
        "You are Forge, version nine, an autonomous",
    );
    let dir = w.path("shared");
    for round in 0..4 {
        let spawn = |ws: &Workspace| {
            Command::new(env!("CARGO_BIN_EXE_promptc"))
                .current_dir(ws.dir.path())
                .args(["snapshot", "--dir", dir.to_str().unwrap()])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let (a, b) = (spawn(&w), spawn(&other));
        let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
        assert_eq!(
            (a.status.code(), b.status.code()),
            (Some(0), Some(0)),
            "round {round}: {} {}",
            stderr(&a),
            stderr(&b)
        );
        assert_complete(&dir);
        let summary: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap();
        let version = summary["contract_version"].as_u64().unwrap();
        let prompt = std::fs::read_to_string(dir.join("standard.native.prompt.md")).unwrap();
        assert_eq!(version == 9, prompt.contains("version nine"), "round {round}: one version's files, not a mix");
    }
}

/// A project that multiplies a large section by many profiles stops at the run's cap
/// (`limits.matrix_bytes`, default 64 MiB; 4 MiB here to keep the test fast) instead of
/// rendering gigabytes: `snapshot`, `diff`, `check` and `report --matrix` exit 2 with the cap's
/// error and write nothing; a tool-docs template whose tools add up past the prompt's cap stops
/// at the tool that crosses it.
#[test]
fn a_whole_matrix_run_has_a_cap() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join(".git")).unwrap();
    std::fs::write(root.join("big.md"), "x".repeat(100_000)).unwrap();
    let mut manifest = String::from(
        "promptc: 1\nname: wide\ncontract_version: 1\ntransports: [xml]\nlimits: {matrix_bytes: 4194304}\nsections:\n  \
         big:\n    template: big.md\ntools: []\nprofiles:\n",
    );
    for i in 0..80 {
        manifest.push_str(&format!("  p{i}:\n    sections: [big]\n"));
    }
    std::fs::write(root.join("promptc.yaml"), &manifest).unwrap();
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_promptc"))
            .current_dir(root)
            .env("NO_COLOR", "1")
            .args(args)
            .output()
            .unwrap()
    };
    assert_eq!(run(&["render", "--profile", "p7"]).status.code(), Some(0), "one cell is fine");
    for args in [&["snapshot"][..], &["diff"], &["check"], &["report", "--matrix", "--no-cache"]] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let message = "the matrix's prompts, messages, tools JSON and chat texts add up to more than 4194304 bytes";
        assert!(stderr(&out).contains(message), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("limits.matrix_bytes"), "{}", stderr(&out));
    }
    assert!(!root.join("snapshots").exists(), "nothing written");
    // Raised by the project, the same matrix renders.
    std::fs::write(root.join("promptc.yaml"), manifest.replace("4194304", "16777216")).unwrap();
    let out = run(&["check"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    // The xml tool docs of the project's own template: 5 tools of 300 kB each pass the section
    // cap one by one, and stop at the prompt's cap together.
    let tools: String =
        (0..5).map(|i| format!("- name: t{i}\n  toolset: all\n  description: {}\n", "d".repeat(300_000))).collect();
    std::fs::write(root.join("tools.yaml"), tools).unwrap();
    std::fs::write(root.join("tool.md.j2"), "{{ tool.name }}: {{ tool.description }}").unwrap();
    std::fs::write(
        root.join("promptc.yaml"),
        "promptc: 1\nname: docs\ncontract_version: 1\ntransports: [xml]\nlimits: {prompt_bytes: 1048576}\n\
         tool_docs:\n  tool: {template: tool.md.j2}\nsections:\n  docs:\n    generate: tool_docs\ntools: \
         [tools.yaml]\nprofiles:\n  all:\n    sections: [docs]\n    toolsets: [all]\n",
    )
    .unwrap();
    let out = run(&["render"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("add up to more than 1048576 bytes"), "{}", stderr(&out));
    // At the fourth tool, not after all five (and each again without each parameter).
    let so_far: usize =
        stderr(&out).split(" so far)").next().and_then(|h| h.rsplit('(').next()).unwrap().parse().unwrap();
    assert!(so_far < 1_300_000, "{}", stderr(&out));
}

/// A project of thousands of profiles: `snapshot` of 5,000 took 28 s and wrote 35,001 files. A
/// whole-matrix run compiles at most `limits.matrix_cells` cells, checked before the first.
#[test]
fn a_whole_matrix_run_has_a_cell_cap() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join(".git")).unwrap();
    let manifest = |limits: &str| {
        let profiles: String = (0..4).map(|i| format!("  p{i}:\n    sections: [role]\n")).collect();
        format!(
            "promptc: 1\nname: wide\ncontract_version: 1\ntransports: [xml, json, native]\n{limits}sections:\n  \
             role:\n    text: You are helpful.\ntools: []\nprofiles:\n{profiles}"
        )
    };
    // 4 profiles × 3 transports: 12 cells.
    std::fs::write(root.join("promptc.yaml"), manifest("limits: {matrix_cells: 11}\n")).unwrap();
    for args in
        [&["snapshot"][..], &["diff"], &["check"], &["report", "--matrix"], &["report", "--matrix", "--no-cache"]]
    {
        let out = run_bounded(root, args, Duration::from_secs(60));
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("the matrix has 12 cells, more than `limits.matrix_cells` (11)"), "{args:?}: {err}");
        assert!(err.contains("--> promptc.yaml"), "{args:?}: {err}");
    }
    assert!(!root.join("snapshots").exists(), "nothing written");
    // One cell is not a matrix run.
    let out = run_bounded(root, &["render", "--profile", "p3"], Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Raised to the matrix's size, it runs; a cap out of range is a located error.
    std::fs::write(root.join("promptc.yaml"), manifest("limits: {matrix_cells: 12}\n")).unwrap();
    let out = run_bounded(root, &["check"], Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    std::fs::write(root.join("promptc.yaml"), manifest("limits: {matrix_cells: 0}\n")).unwrap();
    let out = run_bounded(root, &["check"], Duration::from_secs(60));
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("`limits.matrix_cells` must be between 1 and 1048576, found 0"), "{err}");
    assert!(err.contains("promptc.yaml:5:"), "{err}");
}

/// A host's thread may have a small stack (a Python or Node worker): loading a deeply nested
/// project on a 256 KiB thread gives its error, never a crash, because loading runs on a stack
/// of known size.
#[test]
fn loading_on_a_small_stack_never_crashes() {
    for rel in [
        "fixtures/bad/deep-nesting",
        "fixtures/bad/deep-nesting-over-budget",
        "fixtures/bad/when-deep-nesting",
        "fixtures/good/composition",
        "profiles",
    ] {
        let path = common::repo().join(rel);
        let loaded = std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(move || promptc::load(&path).map(|_| ()).map_err(|e| e.to_string()))
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(loaded.is_ok(), !rel.starts_with("fixtures/bad"), "{rel}: {loaded:?}");
    }
}

/// Templates the static growth guard does not see through (issue 24's corpus): doubling through
/// an include in a loop, a macro's return value, a temporary alias, two variables feeding each
/// other, nested macro calls in one tag, list doubling and repetition, a 100 MB string built in a
/// million-iteration loop, a large string copied in one, quadratic appending. Each used to
/// abort at 3+ GB or run for minutes; the engine now bounds every value where it is built (the
/// patched minijinja under vendor/) and charges fuel per byte, so each exits 2 with a located
/// error inside a 200 MB address space.
#[test]
fn templates_that_slip_the_growth_guard_stop_within_the_memory_budget() {
    const NS: &str = r#"{% set ns = namespace(s="ab", l=[1]) %}"#;
    const TWICE: &str = "{% macro d(x) %}{{ x }}{{ x }}{% endmacro %}";
    let too_large = "the template builds a value larger than 8388608 bytes";
    let built_too_much = "the template builds more than 67108864 bytes of values in one render";
    let append = format!(r#"{{% set ns.s = ns.s ~ "{}" %}}"#, "x".repeat(1000));
    let cases: Vec<(&str, String, &str, &str)> = vec![
        (
            "include in a loop",
            format!(r#"{NS}{{% for i in range(64) %}}{{% include "grow.j2" %}}{{% endfor %}}{{{{ ns.s|length }}}}"#),
            too_large,
            "grow.j2:1:",
        ),
        (
            "macro return value",
            format!("{NS}{TWICE}{{% for i in range(64) %}}{{% set ns.s = d(ns.s) %}}{{% endfor %}}"),
            too_large,
            "role.md.j2:1:",
        ),
        (
            "temporary alias",
            format!("{NS}{{% for i in range(64) %}}{{% set t = ns.s %}}{{% set ns.s = t ~ t %}}{{% endfor %}}"),
            too_large,
            "role.md.j2:1:",
        ),
        (
            "two variables feeding each other",
            r#"{% set ns = namespace(a="x", b="y") %}{% for i in range(64) %}{% set ns.a = ns.b ~ ns.b %}{% set ns.b = ns.a ~ ns.a %}{% endfor %}"#.to_string(),
            too_large,
            "role.md.j2:1:",
        ),
        (
            "nested macro calls in one tag",
            format!("{NS}{TWICE}{{% for i in range(16) %}}{{% set ns.s = d(d(d(d(ns.s)))) %}}{{% endfor %}}"),
            too_large,
            "role.md.j2:1:",
        ),
        (
            "list doubling",
            format!("{NS}{{% for i in range(64) %}}{{% set t = ns.l %}}{{% set ns.l = t + t %}}{{% endfor %}}{{{{ ns.l|list|length }}}}"),
            too_large,
            "role.md.j2:1:",
        ),
        ("list repetition", "{{ ([1] * 1000000000)|list|length }}".to_string(), too_large, "role.md.j2:1:"),
        (
            "a 100 MB string in a million-iteration loop",
            r#"{% for i in range(1000) %}{% for j in range(1000) %}{% if ("x" * (10 ** 8))|length < 0 %}no{% endif %}{% endfor %}{% endfor %}"#.to_string(),
            too_large,
            "role.md.j2:1:",
        ),
        (
            "a 4 MB string copied in a million-iteration loop",
            r#"{% for i in range(1000) %}{% for j in range(1000) %}{% if (("x" * 4000000) ~ j)|length < 0 %}no{% endif %}{% endfor %}{% endfor %}"#.to_string(),
            built_too_much,
            "role.md.j2:1:",
        ),
        (
            "quadratic appending",
            format!("{NS}{{% for i in range(100000) %}}{append}{{% endfor %}}{{{{ ns.s|length }}}}"),
            built_too_much,
            "role.md.j2:1:",
        ),
        // Filters and methods that built their result whole before it was checked: each
        // peaked past 200 MB (a list of seven million one-character strings, a split into
        // millions of pieces) or at several times the limit (escaping, printing a list).
        ("list of a long string", "{% for y in [7000000] %}{{ ('x' * y)|list|length }}{% endfor %}".to_string(), too_large, "role.md.j2:1:"),
        ("split filter", "{% for y in [3500000] %}{{ ('a ' * y)|split|length }}{% endfor %}".to_string(), too_large, "role.md.j2:1:"),
        ("split method", "{% for y in [3500000] %}{{ ('a ' * y).split()|length }}{% endfor %}".to_string(), too_large, "role.md.j2:1:"),
        ("split on a separator", "{% for y in [3500000] %}{{ ('a,' * y).split(',')|length }}{% endfor %}".to_string(), too_large, "role.md.j2:1:"),
        ("splitlines", "{% for y in [7000000] %}{{ ('\\n' * y).splitlines()|length }}{% endfor %}".to_string(), too_large, "role.md.j2:1:"),
        ("escape", "{% for y in [7000000] %}{{ ('<' * y)|escape|length }}{% endfor %}".to_string(), too_large, "role.md.j2:1:"),
        ("string of a list", r"{% for y in [7000000] %}{{ ['\\' * y]|string|length }}{% endfor %}".to_string(), too_large, "role.md.j2:1:"),
        ("pprint of a list", r"{% for y in [7000000] %}{{ ['\\' * y]|pprint|length }}{% endfor %}".to_string(), too_large, "role.md.j2:1:"),
        (
            "a set block doubling",
            format!("{NS}{{% for i in range(64) %}}{{% set t %}}{{{{ ns.s }}}}{{{{ ns.s }}}}{{% endset %}}{{% set ns.s = t %}}{{% endfor %}}"),
            too_large,
            "role.md.j2:1:",
        ),
    ];
    let bin = env!("CARGO_BIN_EXE_promptc");
    for (what, template, message, at) in cases {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("promptc.yaml"),
            "promptc: 1\nname: hostile\ncontract_version: 1\ntransports: [xml]\nsections:\n  role:\n    \
             template: role.md.j2\ntools: []\nprofiles:\n  p:\n    sections: [role]\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("role.md.j2"), &template).unwrap();
        std::fs::write(dir.path().join("grow.j2"), "{% set ns.s = ns.s ~ ns.s %}").unwrap();
        // 200 MB of address space: an allocation past it fails, and Rust aborts the process.
        let mut child = Command::new("bash")
            .current_dir(dir.path())
            .env("NO_COLOR", "1")
            .args(["-c", &format!("ulimit -v 204800; exec {bin} render")])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let start = Instant::now();
        while child.try_wait().unwrap().is_none() {
            assert!(start.elapsed() < Duration::from_secs(60), "{what}: did not finish");
            std::thread::sleep(Duration::from_millis(20));
        }
        let out = child.wait_with_output().unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{what}: {err}");
        assert!(err.contains(message), "{what}: {err}");
        assert!(err.contains(&format!("--> {at}")), "{what}: {err}");
    }
}

/// Run `promptc ARGS` in `dir` inside 200 MB of address space (an allocation past it fails, and
/// Rust aborts the process), stopped after 60 s.
fn run_in_200_mb(dir: &Path, args: &str) -> Output {
    let bin = env!("CARGO_BIN_EXE_promptc");
    let mut child = Command::new("bash")
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .args(["-c", &format!("ulimit -v 204800; exec {bin} {args}")])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("promptc {args} did not finish");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// A project in a repository whose 400 profiles each render `template` as their one section.
fn four_hundred_profiles(template: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    let profiles: String = (0..400).map(|i| format!("  p{i:03}:\n    sections: [role]\n")).collect();
    std::fs::write(
        dir.path().join("promptc.yaml"),
        format!(
            "promptc: 1\nname: wide\ncontract_version: 1\ntransports: [xml]\nsections:\n  role:\n    template: \
             role.md.j2\ntools: []\nprofiles:\n{profiles}"
        ),
    )
    .unwrap();
    std::fs::write(dir.path().join("role.md.j2"), template).unwrap();
    dir
}

/// Each value a template builds fits the value limit (8 MiB by default), but a template can keep
/// many at once: forty variables, forty namespace attributes, a value in each of sixty macro
/// frames, or a value held on the stack across a recursive call. Each peaked at 190–320 MB; the
/// whole render's building is bounded now (eight times the value limit), so each stops with a
/// located error inside 200 MB of address space. A chat template is bounded the same way, and a
/// matrix of 400 profiles stops at its first failing cell instead of failing 400 times.
#[test]
fn values_kept_at_once_are_bounded_by_what_a_render_may_build() {
    let forty_sets: String = (0..40).map(|i| format!("{{% set a{i} = 'x' * y %}}")).collect();
    let forty_attrs: String = (0..40).map(|i| format!("{{% set ns.a{i} = ('x' * y) ~ {i} %}}")).collect();
    let cases = [
        ("forty variables", format!("{{% for y in [8000000] %}}{forty_sets}{{{{ a0|length }}}}{{% endfor %}}")),
        (
            "forty namespace attributes",
            format!("{{% set ns = namespace() %}}{{% for y in [8000000] %}}{forty_attrs}{{% endfor %}}{{{{ ns.a0|length }}}}"),
        ),
        (
            "a value in every macro frame",
            "{% macro r(n, y) %}{% set big = ('x' * y) ~ n %}{% if n > 0 %}{{ r(n - 1, y)|length }}{% endif %}\
             {{ big|length }}{% endmacro %}{% for y in [8000000] %}{{ r(20, y) }}{% endfor %}"
                .to_string(),
        ),
        (
            "a value on the stack across a recursive call",
            "{% macro r(n, y) %}{% if n > 0 %}{{ (('x' * y) ~ r(n - 1, y))|length }}{% endif %}{% endmacro %}\
             {% for y in [8000000] %}{{ r(20, y) }}{% endfor %}"
                .to_string(),
        ),
    ];
    for (what, template) in &cases {
        let dir = one_template_project("kept");
        std::fs::write(dir.path().join("role.md.j2"), template).unwrap();
        let out = run_in_200_mb(dir.path(), "render");
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{what}: {err}");
        assert!(err.contains("the template builds more than 67108864 bytes of values in one render"), "{what}: {err}");
        assert!(err.contains("--> role.md.j2:1:"), "{what}: {err}");
        assert!(err.contains("print pieces as they come"), "{what}: {err}");
    }

    // A chat template, rendered by `render --transport chat`.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("promptc.yaml"),
        "promptc: 1\nname: chat\ncontract_version: 1\ntransports: [native]\nsections:\n  role:\n    template: \
         role.md\ntools: []\nprofiles:\n  p:\n    sections: [role]\nchat_templates:\n  evil:\n    file: evil.jinja\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("role.md"), "You are helpful.\n").unwrap();
    std::fs::write(
        dir.path().join("evil.jinja"),
        format!("{{% for y in [8000000] %}}{forty_sets}{{% endfor %}}{{% for m in messages %}}{{{{ m.content }}}}{{% endfor %}}"),
    )
    .unwrap();
    let out = run_in_200_mb(dir.path(), "render --transport chat");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("the chat template builds more than 67108864 bytes of values in one render"), "{err}");
    assert!(err.contains("--> evil.jinja:1:"), "{err}");

    // 400 profiles rendering the first case: the run stops at the first cell that fails, and says
    // so once. (Not inside 200 MB of address space: each thread's malloc arena reserves 64 MB of
    // it, used or not.)
    let dir = four_hundred_profiles(&cases[0].1);
    for args in [&["snapshot"][..], &["check"], &["diff"], &["report", "--matrix", "--no-cache"]] {
        let out = run_bounded(dir.path(), args, Duration::from_secs(60));
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.matches("bytes of values in one render").count(), 1, "{args:?}: {err}");
    }
    assert!(!dir.path().join("snapshots").exists(), "nothing written");
}

/// Each render has its instruction budget, but a template rendered many times spent it again
/// each time: a tool's docs template looping a million times over 300 tools took 60 s, the same
/// loop in a section of 400 profiles minutes. All the renders of a cell share one budget, and
/// all the cells of a whole-matrix run another; each run stops with a located error.
#[test]
fn the_renders_of_a_cell_and_of_a_run_share_one_instruction_budget() {
    const LOOP: &str = "{% for i in range(1000) %}{% for j in range(1000) %}{% endfor %}{% endfor %}";
    let dir = tempfile::tempdir().unwrap();
    let tools: String = (0..300).map(|i| format!("- name: t{i}\n  toolset: all\n  description: d{i}\n")).collect();
    std::fs::write(dir.path().join("tools.yaml"), tools).unwrap();
    std::fs::write(dir.path().join("tool.md.j2"), format!("{LOOP}{{{{ tool.name }}}}")).unwrap();
    std::fs::write(
        dir.path().join("promptc.yaml"),
        "promptc: 1\nname: docs\ncontract_version: 1\ntransports: [xml]\ntool_docs:\n  tool: {template: tool.md.j2}\n\
         sections:\n  docs:\n    generate: tool_docs\ntools: [tools.yaml]\nprofiles:\n  all:\n    sections: [docs]\n    \
         toolsets: [all]\n",
    )
    .unwrap();
    let out = run_bounded(dir.path(), &["render"], Duration::from_secs(120));
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("the templates of this cell ran too long in all: more than 20000000 instructions"), "{err}");
    assert!(err.contains("--> tool.md.j2"), "{err}");
    assert!(err.contains("a tool's docs template"), "{err}");

    let dir = four_hundred_profiles(&format!("{LOOP}You are helpful."));
    // One cell is fine.
    let out = run_bounded(dir.path(), &["render", "--profile", "p007"], Duration::from_secs(120));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for args in [&["check"][..], &["report", "--matrix", "--no-cache"]] {
        let out = run_bounded(dir.path(), args, Duration::from_secs(120));
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("the matrix's templates ran too long in all: more than 40000000 instructions"), "{err}");
        assert!(err.contains("--> promptc.yaml"), "{err}");
    }
}

/// What the build limit must leave alone: a template appending to a text once per item, a
/// quadratic copy that real templates do (`{% set ns.out = ns.out ~ item %}`), renders a 100 kB
/// text from 1,000 pieces (50 MB copied in all).
#[test]
fn appending_to_a_text_in_a_loop_still_renders() {
    let dir = one_template_project("append");
    let out = render_template(
        dir.path(),
        "{% set ns = namespace(out='') %}{% for i in range(1000) %}{% set piece = ('x' * 99) ~ '\\n' %}\
         {% set ns.out = ns.out ~ piece %}{% endfor %}{{ ns.out|length }}",
        60,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim_end(), "100000");
}

/// Found by the `template_grammar` fuzz target: a backwards slice whose stop lies past its start
/// (`'abc'[1:5:-1]`) made minijinja subtract past zero (a panic in a build with overflow checks,
/// as the tests' binary is); it is empty, as in Python, and a step of `i64::MIN` is fine too. A
/// backwards slice of an empty string or list (`''[::-1]`) indexed past its end in every build.
#[test]
fn backwards_slices_past_their_stop_are_empty() {
    let dir = one_template_project("slices");
    let out = render_template(
        dir.path(),
        "[{{ 'abc'[1:5:-1] }}|{{ [1, 2, 3][0:2:-1] }}|{{ 'abcdef'[4:1:-2] }}|{{ 'abc'[::-9223372036854775808] }}|\
         {{ ''[::-1] }}|{{ [][::-1] }}]",
        30,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "[|[]|ec|c||[]]");
}

/// Found by fuzzing (`template`, `template_grammar`): a printf key holding a multi-byte
/// character (`'%(é)s'|format`) made minijinja slice inside the character (a panic in every
/// build), and `batch` of a lazy sequence (`range(5)`) with a huge count reserved room for that
/// many items (an abort): both render. So do loop controls inside blocks that push a frame or
/// a capture.
#[test]
fn fuzz_found_format_keys_and_lazy_batches_render() {
    let dir = one_template_project("fuzzed");
    let out = render_template(
        dir.path(),
        "{{ '%(é)s|%(\u{feff})s'|format({'é': 1, '\u{feff}': 2}) }}|{{ range(5)|batch(732000000000)|list }}|\
         {{ range(5)|map('string')|batch(2)|list }}",
        30,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), r#"1|2|[[0, 1, 2, 3, 4]]|[["0", "1"], ["2", "3"], ["4"]]"#);

    // `break` and `continue` inside a `with`, a `set` or `filter` block or `autoescape` leave
    // it first (minijinja jumped out with its frame still pushed, and panicked ending the loop).
    let out = render_template(
        dir.path(),
        "{% for i in range(3) %}{% with x = 1 %}{% if i == 1 %}{% break %}{% endif %}{{ i }}{% endwith %}{% endfor %}|\
         {% for i in range(3) %}{% set t %}a{% if i == 1 %}{% continue %}{% endif %}{% endset %}{% filter upper %}\
         {{ i }}{% if i == 0 %}{% continue %}{% endif %}b{% endfilter %}{% endfor %}|\
         {% for i in [1] %}{% autoescape true %}{% break %}{% endautoescape %}{% endfor %}.",
        30,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "0|2B|.");

    // `import … as` takes a name, as Jinja2 does: anything else (`as-mac`, read as `as -mac`)
    // reached minijinja's code generator as an assignment target and panicked there.
    std::fs::write(dir.path().join("role.md.j2"), "{% import 'role.md.j2' as-mac without context %}{{ mac.x }}")
        .unwrap();
    let out = run_bounded(dir.path(), &["render"], Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("role.md.j2:1:"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// Found by the `template` fuzz target: an integer remainder by zero inside minijinja panicked
/// in every build (`divisibleby 0`; the same shape in `loop.cycle()` with nothing to cycle).
/// Each is now a located error, as Python's `%` by zero is.
#[test]
fn a_remainder_by_zero_is_a_located_error_never_a_panic() {
    let dir = one_template_project("by-zero");
    for (template, message) in [
        ("{{ 3 is odd }} {{ 9 is divisibleby 0 }}", "divisibleby 0: cannot divide by zero"),
        ("{{ 9.5 is divisibleby 0.0 }}", "divisibleby 0: cannot divide by zero"),
        ("{% for x in [1, 2] %}{{ loop.cycle() }}{% endfor %}", "no items for cycling given"),
        ("{{ 7 % 0 }}", "unable to calculate 7 % 0"),
        ("{{ 7.5 // 0.0 }}", "unable to calculate 7.5 // 0.0"),
    ] {
        let out = render_template(dir.path(), template, 30);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{template}: {err}");
        assert!(err.contains(message) && err.contains("--> role.md.j2:1:"), "{template}: {err}");
        assert!(!err.contains("panicked"), "{template}: {err}");
    }
    let out = render_template(
        dir.path(),
        "{{ 9 is divisibleby 3 }} {{ 9 is divisibleby -3 }} {{ 1.5 is divisibleby 0.5 }}",
        30,
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "True True True", "{}", stderr(&out));
}

// --- machine outputs a pull request cannot forge ----------------------------------------------

/// The lines a reader may see in `text`: every character some reader takes for a line end
/// (Python's `str.splitlines` is the widest: LF, CR, VT, FF, FS, GS, RS, NEL, U+2028, U+2029).
fn any_lines(text: &str) -> Vec<&str> {
    text.split(['\n', '\r', '\u{b}', '\u{c}', '\u{1c}', '\u{1d}', '\u{1e}', '\u{85}', '\u{2028}', '\u{2029}'])
        .filter(|l| !l.is_empty())
        .collect()
}

/// A section id carrying a line separator and a workflow command: `check --format github`
/// prints one annotation per diagnostic, whatever a reader takes for a line end.
#[test]
fn a_section_id_cannot_forge_a_workflow_command() {
    for sep in ["\u{2028}", "\u{2029}", "\u{85}", "\u{b}", "\u{1c}", "\u{1b}[2K"] {
        let w = Workspace::new();
        let id = format!("role{sep}::warning file=evil.yaml,line=1::forged");
        let quoted = serde_json::to_string(&id).unwrap();
        w.edit("profiles/promptc.yaml", "\n  role:\n", &format!("\n  {quoted}:\n"));
        let out = w.run(&["-C", "profiles", "check", "--format", "github"]);
        assert_eq!(out.status.code(), Some(2), "{sep:?}: {}", stderr(&out));
        let stdout = String::from_utf8(out.stdout).unwrap();
        let lines = any_lines(&stdout);
        assert!(!lines.is_empty(), "{sep:?}: an annotation");
        for line in &lines {
            assert!(line.starts_with("::error "), "{sep:?}: a forged line {line:?} in {stdout:?}");
        }
        assert!(!stdout.contains(sep), "{sep:?}: {stdout:?}");
        assert!(stdout.contains(&format!("\\u{{{:04x}}}", sep.chars().next().unwrap() as u32)), "{stdout:?}");
    }
}

/// A committed snapshot file whose name carries line breaks, backticks, a heading, a mention,
/// a link, an image and HTML: `diff --format markdown` (the PR comment) names it as code, and
/// nothing in it becomes markdown.
#[test]
fn a_snapshot_file_name_cannot_inject_markdown_into_the_pr_comment() {
    let w = Workspace::new();
    // No `/`: a file name of the folder itself.
    let evil = "x\n\n# Heading @octocat [link](http:evil.example) ![i](evil.png) <img src=x>\n```\n|\u{2028}.prompt.md";
    std::fs::write(w.path("snapshots").join(evil), "planted\n").unwrap();
    let summary_path = w.path("snapshots/summary.json");
    let mut summary: serde_json::Value = serde_json::from_slice(&std::fs::read(&summary_path).unwrap()).unwrap();
    let planted = serde_json::json!({"name": evil, "bytes": 8, "sha256": common::sha256_hex(b"planted\n")});
    summary["files"].as_array_mut().unwrap().push(planted);
    std::fs::write(&summary_path, serde_json::to_string_pretty(&summary).unwrap()).unwrap();
    let out = w.run(&["-C", "profiles", "diff", "--format", "markdown"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let md = String::from_utf8(out.stdout).unwrap();
    let headings: Vec<&str> = md.lines().filter(|l| l.trim_start().starts_with('#')).collect();
    assert_eq!(headings.len(), 1, "{md}");
    for bad in ["@octocat", "](", "![", "<img", "\u{2028}", "http:", "\n|"] {
        assert!(!md.contains(bad), "{bad:?} in\n{md}");
    }
    assert!(md.contains("- <code>x&#92;u&#123;000a&#125;&#92;u&#123;000a&#125;&#35;&#32;Heading"), "{md}");
    assert!(md.contains("(no longer rendered)"), "{md}");
}

// --- work bounded by what is committed ---------------------------------------------------------

/// A committed snapshot of 100,000 unique lines: `diff` finishes (the line-by-line diff would
/// take minutes), still reports the drift with its line counts and exit code, and says why the
/// file's hunks are not shown and how to see them, in every format.
#[test]
fn a_huge_committed_snapshot_is_compared_without_a_line_by_line_diff() {
    let w = Workspace::new();
    let big: String =
        (0..100_000u64).map(|i| format!("line {i} {:016x}\n", i.wrapping_mul(0x9e37_79b9_7f4a_7c15))).collect();
    std::fs::write(w.path("snapshots/standard.native.prompt.md"), big).unwrap();
    let limit = Duration::from_secs(120);
    let text = run_bounded(w.dir.path(), &["-C", "profiles", "diff"], limit);
    assert_eq!(text.status.code(), Some(1), "{}", stderr(&text));
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("too large to show line by line ("), "{}", &text[..text.len().min(2000)]);
    assert!(text.contains("compare the files with git diff --no-index"));

    let json = run_bounded(w.dir.path(), &["-C", "profiles", "diff", "--format", "json"], limit);
    assert_eq!(json.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let file = v["files"].as_array().unwrap().iter().find(|f| f["file"] == "standard.native.prompt.md").unwrap();
    assert_eq!((file["status"].as_str(), file["too_large"].as_bool()), (Some("modified"), Some(true)), "{file}");
    assert_eq!(file["removed_lines"], 100_000, "{file}");
    assert!(file["added_lines"].as_u64().unwrap() > 100, "{file}");
    assert_eq!(v["drift"], true);
    assert_eq!(v["files"].as_array().unwrap().len(), 1, "only the planted file differs");

    let md = run_bounded(w.dir.path(), &["-C", "profiles", "diff", "--format", "markdown"], limit);
    assert_eq!(md.status.code(), Some(1));
    let md = String::from_utf8(md.stdout).unwrap();
    assert!(md.contains("- `standard.native.prompt.md` (modified, +"), "{md}");
    assert!(md.contains("too large to show line by line"), "{md}");

    // `diff A B` of two folders takes the same path.
    let copy = w.path("copy");
    common::copy_dir(&common::repo().join("snapshots"), &copy);
    let folders = run_bounded(w.dir.path(), &["diff", copy.to_str().unwrap(), "snapshots"], limit);
    assert_eq!(folders.status.code(), Some(1), "{}", stderr(&folders));
    assert!(String::from_utf8_lossy(&folders.stdout).contains("too large to show line by line"));
}

// --- a committed token cache never changes a figure -------------------------------------------

/// A committed token cache with every count set to 1 under the shards' MACs, with zeroed MACs,
/// or in an earlier version's JSON: `report` and `check` print exactly what `--no-cache`
/// prints and exit as the budget says, and the shards are rewritten with counts that verify.
#[test]
fn a_poisoned_token_cache_never_changes_a_figure() {
    let dir = common::fixture_with_token_cache("fixtures/good/over-budget", ".promptc-cache/tokens.json");
    let folder = dir.path().join(".promptc-cache");
    let run = |args: &[&str]| {
        let out = common::promptc_in(dir.path(), args);
        (out.status.code(), String::from_utf8(out.stdout).unwrap())
    };
    let truth = run(&["report", "--format", "json", "--no-cache"]);
    assert_eq!(truth.0, Some(1), "the fixture is over budget: {}", truth.1);
    // `check` has no --no-cache: its truth is a run without a cache (which writes one).
    let truth_check = run(&["check", "--format", "json"]);
    assert_eq!(truth_check.0, Some(1));
    assert_eq!(run(&["report", "--format", "json"]), truth, "the cache written answers right");
    let honest = common::token_shards(&folder, "tokens");
    assert!(!honest.is_empty());
    // A shard: 22 bytes of magic, records of 44 bytes (the count in the last 8), a 32-byte MAC.
    let ones = |b: &[u8]| {
        let mut b = b.to_vec();
        let end = b.len() - 32;
        b[22..end].chunks_exact_mut(44).for_each(|r| r[36..].copy_from_slice(&1u64.to_le_bytes()));
        b
    };
    let zeroed_mac = |b: &[u8]| {
        let mut b = ones(b);
        let n = b.len();
        b[n - 32..].fill(0);
        b
    };
    type Poison<'a> = &'a dyn Fn(&[u8]) -> Vec<u8>;
    let poisons: [(&str, Poison); 2] = [("counts of 1", &ones), ("zeroed MACs", &zeroed_mac)];
    let poison = |f: Poison| {
        for (name, bytes) in &honest {
            std::fs::write(folder.join(name), f(bytes)).unwrap();
        }
    };
    for (what, f) in poisons {
        poison(f);
        assert_eq!(run(&["report", "--format", "json"]), truth, "report with {what}");
        poison(f);
        assert_eq!(run(&["check", "--format", "json"]), truth_check, "check with {what}");
        assert_eq!(common::token_shards(&folder, "tokens"), honest, "{what}: recounted and rewritten");
    }
    // The file the project names is no longer read (earlier versions kept one JSON file there).
    std::fs::write(folder.join("tokens.json"), r#"{"format": 2, "counts": {"o200k_base": {}}}"#).unwrap();
    let out = common::promptc_in(dir.path(), &["report", "--format", "json"]);
    assert_eq!((out.status.code(), String::from_utf8(out.stdout).unwrap()), truth);
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("token cache `"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Found by the `template_grammar` fuzz target (4.9 s per run): a loop slicing ever larger
/// strings, `{% for x in range(70573) %}{% set n %}{% if (("ab" * x) * x)[:] %}…`. Slicing
/// charged fuel for the bytes it copied, but minijinja built the slice one character at a
/// time (after counting them), tens of times slower than the copy the fuel is priced for: the
/// render ran for seconds before its fuel ran out. Slices are now copied in one piece where
/// they can be and charged per byte where they cannot; each shape ends on fuel at once, and
/// every slice is what Python gives (PATCHES.md items 12 and 18).
#[test]
fn slicing_large_strings_in_a_loop_ends_on_fuel_quickly() {
    let dir = one_template_project("slices");
    let fuzzed = r#"{% for x in range(70573) %}{% set n %}{% if ((("ab" * x) * x))[:] %}{% else %}{% endif %}{% endset %}{% endfor %}"#;
    let mut shapes = vec![fuzzed.to_string()];
    for text in ["ab", "éa"] {
        for slice in ["[:]", "[5:]", "[1:-1:2]", "[::-1]"] {
            shapes.push(format!(
                "{{% for y in [2000000] %}}{{% set s = '{text}' * y %}}{{% for x in range(70573) %}}\
                 {{% if s{slice} %}}{{% endif %}}{{% endfor %}}{{% endfor %}}"
            ));
        }
    }
    for shape in shapes {
        let out = render_template(dir.path(), &shape, 5);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{shape}: {err}");
        // On fuel, or on what the render built in all (a slice that copies builds a new value).
        assert!(
            err.contains("template ran too long") || err.contains("bytes of values in one render"),
            "{shape}: {err}"
        );
        assert!(err.contains("--> role.md.j2:1:"), "{shape}: {err}");
    }

    // Every slice of an ASCII and a non-ASCII string, against Python's rules.
    let bounds: Vec<Option<i64>> = std::iter::once(None).chain((-7..=7).map(Some)).collect();
    let steps: Vec<Option<i64>> = [None, Some(1), Some(2), Some(3), Some(-1), Some(-2), Some(-3)].into();
    let show = |b: Option<i64>| b.map(|b| b.to_string()).unwrap_or_default();
    let (mut template, mut expected) = (String::new(), String::new());
    for text in ["abcdef", "aé€bc"] {
        let chars: Vec<char> = text.chars().collect();
        for start in &bounds {
            for stop in &bounds {
                for step in &steps {
                    let step_text = step.map(|s| format!(":{s}")).unwrap_or_default();
                    template.push_str(&format!("{{{{ '{text}'[{}:{}{step_text}] }}}}|", show(*start), show(*stop)));
                    expected.extend(python_slice(&chars, *start, *stop, step.unwrap_or(1)));
                    expected.push('|');
                }
            }
        }
    }
    let out = render_template(dir.path(), &template, 30);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), expected);
}

/// Python's slicing, written as CPython's `PySlice_AdjustIndices` does it (a different
/// formulation from the engine's, so the two check each other; the Jinja2 corpus checks both
/// against Python itself, `o_slices_every_step.j2`).
fn python_slice(chars: &[char], start: Option<i64>, stop: Option<i64>, step: i64) -> Vec<char> {
    let len = chars.len() as i64;
    let adjust = |bound: Option<i64>, none: i64| match bound {
        None => none,
        Some(b) if b < 0 => {
            if b + len < 0 {
                if step < 0 {
                    -1
                } else {
                    0
                }
            } else {
                b + len
            }
        }
        Some(b) if b >= len => {
            if step < 0 {
                len - 1
            } else {
                len
            }
        }
        Some(b) => b,
    };
    let (mut i, stop) =
        if step < 0 { (adjust(start, len - 1), adjust(stop, -1)) } else { (adjust(start, 0), adjust(stop, len)) };
    let mut out = Vec::new();
    while (step > 0 && i < stop) || (step < 0 && i > stop) {
        out.push(chars[i as usize]);
        i += step;
    }
    out
}

/// A project named `name` whose one section renders `role.md.j2` (the test writes it).
/// Write `template` as the section of a [`one_template_project`] in `dir` and run `render` on it,
/// stopped after `secs` seconds.
fn render_template(dir: &Path, template: impl AsRef<[u8]>, secs: u64) -> Output {
    std::fs::write(dir.join("role.md.j2"), template).unwrap();
    // A hang guard only, never a speed target: at least 60 s, so a loaded 2-core machine passes
    // (the bound each test proves is the fuel or bytes the render may spend).
    run_bounded(dir, &["render"], Duration::from_secs(secs.max(60)))
}

fn one_template_project(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("promptc.yaml"),
        format!(
            "promptc: 1\nname: {name}\ncontract_version: 1\ntransports: [xml]\nsections:\n  role:\n    \
             template: role.md.j2\ntools: []\nprofiles:\n  p:\n    sections: [role]\n"
        ),
    )
    .unwrap();
    dir
}

/// Found by the `template_grammar` fuzz target (13 s per run): repeating a sequence zero times
/// in a loop, `{% for t in range(54716) %}{% if (range(31804) * 0) %}…`. `seq * n` walks `seq`
/// whatever `n` is, and only the (empty) result was charged fuel: 1.7 billion items walked for
/// nothing. The walk is charged now, and the loop ends on fuel at once.
#[test]
fn repeating_a_sequence_zero_times_in_a_loop_ends_on_fuel_quickly() {
    let dir = one_template_project("repeat");
    let out = render_template(
        dir.path(),
        "{% for t in range(54716) %}{% if (range(31804) * 0) %}{% else %}{% endif %}{% endfor %}",
        5,
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("template ran too long"), "{err}");
    assert!(err.contains("role.md.j2:1:"), "{err}");
    // Small repetitions still render, zero times included.
    std::fs::write(dir.path().join("role.md.j2"), "{{ [1, 2] * 2 }}|{{ range(3) * 0 }}|{{ (range(2) * 2)|list }}")
        .unwrap();
    let out = run_bounded(dir.path(), &["render"], Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "[1, 2, 1, 2]|[]|[0, 1, 0, 1]");
}

/// Found by the `template` fuzz target (a SIGSEGV with no input saved, until
/// `PROMPTC_FUZZ_LAST` kept it): a namespace that holds itself, `{% set ns.a = ns %}`, and then
/// printing, comparing or hashing it recursed until the stack overflowed (the CLI aborted).
/// The assignment is refused, located, whatever path leads back to the namespace.
#[test]
fn a_namespace_that_would_hold_itself_is_refused_at_the_assignment() {
    let dir = one_template_project("cycle");
    let ns = "{% set ns = namespace(a=1) %}";
    for (body, line) in [
        ("{% set ns.a = ns %}{{ ns }}", "{% set ns.a = ns %}"),
        ("{% set ns.a = [1, {'k': [ns]}] %}{{ ns|string }}", "{% set ns.a"),
        ("{% set n2 = namespace(b=ns) %}{% set ns.a = n2 %}{{ ns == ns }}", "{% set ns.a = n2 %}"),
        ("{% set ns.a = namespace(c=1) %}{% set ns.a.c = ns %}{{ ns|pprint }}", "{% set ns.a.c = ns %}"),
        // The fuzzer's input: two values feeding each other, one of them the namespace.
        ("{% for i in range(64) %}{% set ns.b = ns.a ~ ns.a %}{% set ns.a = ns %}{% endfor %}{{ ns.a|length }}", ""),
    ] {
        let out = render_template(dir.path(), format!("{ns}\n{body}\n"), 5);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{body}: {err}");
        assert!(err.contains("a namespace cannot hold itself"), "{body}: {err}");
        assert!(err.contains("role.md.j2:2:") && err.contains(line), "{body}: {err}");
    }
    // A namespace may still hold other namespaces and values that share their parts (here
    // 2,048 paths to the innermost list, walked once each list).
    let mut t = String::from("{% set ns = namespace(a=1) %}{% set v0 = [1] %}");
    for i in 1..=11 {
        t += &format!("{{% set v{i} = [v{p}, v{p}] %}}", p = i - 1);
    }
    t += "{% set ns.a = namespace(b=v11|length) %}{% set ns.c = v11 %}{% set ns.d = ns.a %}{{ ns.d.b }}";
    let out = render_template(dir.path(), t, 5);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "2");
}

/// A loop object kept in a namespace can reach the namespace later through `previtem` without
/// any assignment making the cycle (`{% for x in [1, 2, ns] %}{% if loop.first %}{% set ns.l =
/// loop %}…`); comparing two such namespaces overflowed the stack. A loop is a plain object
/// now (not a mapping): it compares, hashes and prints as its `<loop i/n>` text.
#[test]
fn a_loop_kept_in_a_namespace_compares_and_prints_without_recursing() {
    let dir = one_template_project("loop-cycle");
    let out = render_template(
        dir.path(),
        "{% set ns = namespace(a=1) %}{% set n2 = namespace(a=1) %}\
         {% for x in [1, 2, 3, ns] %}{% if loop.first %}{% set ns.l = loop %}{% endif %}{% endfor %}\
         {% for x in [1, 2, 3, n2] %}{% if loop.first %}{% set n2.l = loop %}{% endif %}{% endfor %}\
         {{ ns == n2 }}|{{ [ns, n2]|unique|list|length }}|{{ ns }}|{{ ns.l.length }}",
        5,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "True|1|{\"a\": 1, \"l\": <loop 4/4>}|4");
}

/// Found by the `template_grammar` fuzz target (58 s per run): a lazy slice of a long sequence
/// skipped to its start item by item every time it was used, a walk no fuel paid for
/// (`range(57953)[-49:] ~ x` in a 73,762-turn loop; 3.3 s for a tenth of it in a release
/// build). A sequence of known length is sliced once, into a list, and that walk is charged.
#[test]
fn slicing_a_long_sequence_in_a_loop_ends_on_fuel_quickly() {
    let dir = one_template_project("lazy-slice");
    let out = render_template(
        dir.path(),
        "{% set x = 134 %}{% for s in range(73762) %}{% if ((range(57953)[-49:]) ~ x) %}{% endif %}{% endfor %}",
        5,
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("template ran too long") && err.contains("role.md.j2:1:"), "{err}");
    // Slices are the same items as before, and a slice of a range can be indexed now.
    let out = render_template(
        dir.path(),
        "{{ (range(10)[2:8:2])|list }}|{{ [1, 2, 3][::-1] }}|{{ (range(5)[-2:])|list }}|{{ [1, 2, 3][5:] }}|\
         {{ (range(10)[::-3])|list }}|{{ range(5)[1:3] }}|{{ range(5)[1:][0] }}",
        5,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "[2, 4, 6]|[3, 2, 1]|[3, 4]|[]|[9, 6, 3, 0]|[1, 2]|1");
}

/// No path the command line names for writing lands in a version-control folder — `.git`,
/// `.hg`, `.svn`, as written, through `..` or through a link — unless `--allow-vcs-write`
/// says so: each command exits 2 before writing anything, and the flag lets it write.
#[test]
fn no_command_line_path_inside_a_version_control_folder_is_written() {
    let w = Workspace::new();
    for vcs in [".hg", ".svn"] {
        std::fs::create_dir(w.path(vcs)).unwrap();
    }
    std::os::unix::fs::symlink(w.path(".git"), w.path("innocent")).unwrap();
    let input = common::repo().join("fixtures/import/native/anthropic.json");
    let before = tree(w.dir.path());
    for target in [".git/hooks", ".hg/x", ".svn/x/y", "profiles/../.git/refs", "innocent/hooks"] {
        let runs: [&[&str]; 5] = [
            &["render", "--out", target],
            &["report", "--out", target],
            &["snapshot", "--dir", target],
            &["diff", "--out", target],
            &["import", "tools", input.to_str().unwrap(), "--out", target],
        ];
        for args in runs {
            let out = w.run(args);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
            assert!(
                stderr(&out).contains("a version-control folder; promptc does not write there"),
                "{}",
                stderr(&out)
            );
        }
    }
    assert_eq!(tree(w.dir.path()), before, "something was written");
    let out = w.run(&["render", "--out", ".git/r", "--allow-vcs-write"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(w.path(".git/r/prompt.md").is_file());
}

/// What a `review --accept` killed while removing the retired folder leaves beside the snapshot
/// folder (`.snapshots.promptc-del-…`, and the other temporary names) is removed by the next
/// `review`, even one with nothing to decide; a user's folder of a similar name stays.
#[test]
fn the_next_review_removes_what_a_killed_review_left() {
    let w = Workspace::new();
    kill_leftovers(w.dir.path(), "snapshots", false);
    let out = w.run(&["review"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(temp_leftovers(w.dir.path()), [".snapshots.promptc-mine"]);
    assert_eq!(w.run(&["diff"]).status.code(), Some(0));
}

/// Pending files copied into the snapshot folder from CI (`NAME.new`, not in the local
/// summary) are removed once `snapshot` writes `NAME` again; a `.new` file of another name is
/// the user's and stays.
#[test]
fn pending_files_copied_in_from_ci_go_once_their_files_are_written() {
    let w = Workspace::new();
    let file = "lite.all-capabilities.native.prompt.md";
    assert!(w.path(&format!("snapshots/{file}")).is_file(), "the example has no {file}");
    std::fs::write(w.path(&format!("snapshots/{file}.new")), "from CI\n").unwrap();
    std::fs::write(w.path("snapshots/summary.json.new"), "{}\n").unwrap();
    std::fs::write(w.path("snapshots/notes.new"), "mine\n").unwrap();
    let out = w.run(&["snapshot"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("2 removed") || stderr(&out).contains("2 removed"));
    let left: Vec<String> =
        tree(&w.path("snapshots")).into_iter().map(|(n, _)| n).filter(|n| n.ends_with(".new")).collect();
    assert_eq!(left, ["notes.new"]);
    assert_eq!(w.run(&["diff"]).status.code(), Some(0));
}

/// A project of templated tools whose texts are each under the prompt cap — ten tools of
/// `{{ 'x' * 7000000 }}` — made 70 MB of tool text per cell and four 70 MB tools files: the
/// texts of one cell now share `limits.prompt_bytes`, so `snapshot` stops at the second tool
/// with a template error (exit 2), having written nothing.
#[test]
fn templated_tool_texts_of_a_cell_share_the_prompt_cap() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    let tools: String = (0..10)
        .map(|i| {
            format!("- name: t{i}\n  toolset: dev\n  templated: true\n  description: \"{{{{ 'x' * 7000000 }}}}\"\n")
        })
        .collect();
    std::fs::write(dir.path().join("tools.yaml"), tools).unwrap();
    std::fs::write(
        dir.path().join("promptc.yaml"),
        "promptc: 1\nname: big\ncontract_version: 1\ntransports: [native]\nproviders: [anthropic, openai]\n\
         sections:\n  role:\n    text: You are a coding agent.\ntools:\n  - tools.yaml\n\
         profiles:\n  standard:\n    sections: [role]\n    toolsets: [dev]\n",
    )
    .unwrap();
    let out = run_in_200_mb(dir.path(), "snapshot");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let e = stderr(&out);
    assert!(e.contains("the templated tool texts of a cell may make 8388608 bytes in all"), "{e}");
    assert!(!dir.path().join("snapshots").exists(), "a refused run wrote snapshots");
}

/// The tools JSON counts against `limits.matrix_bytes` like the prompts: twenty profiles of a
/// tool whose description is 1 MB (each cell's prompt small) stop at a run cap of 8 MiB, which
/// their prompts alone never reach.
#[test]
fn the_tools_json_counts_against_the_run_cap() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    let desc = "y".repeat(1 << 20);
    std::fs::write(dir.path().join("tools.yaml"), format!("- name: big\n  toolset: dev\n  description: {desc}\n"))
        .unwrap();
    let profiles: String = (0..20).map(|i| format!("  p{i}:\n    sections: [role]\n    toolsets: [dev]\n")).collect();
    std::fs::write(
        dir.path().join("promptc.yaml"),
        format!(
            "promptc: 1\nname: wide\ncontract_version: 1\ntransports: [native]\nproviders: [anthropic, openai]\n\
             limits:\n  matrix_bytes: 8388608\n\
             sections:\n  role:\n    text: You are a coding agent.\ntools:\n  - tools.yaml\nprofiles:\n{profiles}"
        ),
    )
    .unwrap();
    let out = run_in_200_mb(dir.path(), "snapshot");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("tools JSON and chat texts add up to more than 8388608 bytes"), "{}", stderr(&out));
}
