//! `promptc review` and `diff --pending` on a copy of the example with four edits (three tool
//! texts and a section): change by change, by line and in a real terminal (tmux), resumed from
//! the pending files, by pattern; the snapshot folder is the only thing written.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::common::{self, Workspace};

/// The example with four edits: three tool texts (in the order the review shows them:
/// `execute_command`'s parameter, `read_file`'s description, `web_fetch`'s parameter) and the
/// `rules` section.
fn four_edits() -> Workspace {
    let w = Workspace::new();
    w.edit("profiles/tools/files.yaml", "Read the contents of a file", "Read the full contents of a file");
    w.edit("profiles/tools/shell.yaml", "The command line to run", "The full command line to run");
    w.edit("profiles/tools/web.yaml", "The absolute http(s) URL to fetch.", "The absolute URL to fetch.");
    w.edit("profiles/sections/rules.md.j2", "Find things out with your tools", "Find things out with tools");
    w
}

/// The titles of the four changes, in the order they are shown.
const TITLES: [&str; 4] = [
    "tool execute_command: parameter command changed",
    "section rules changed",
    "tool read_file: description changed",
    "tool web_fetch: parameter url changed",
];

/// Run `promptc ARGS` in the workspace with `input` on stdin (not a terminal).
fn run_with(w: &Workspace, args: &[&str], input: &str) -> Output {
    common::promptc_in_with_stdin(w.dir.path(), args, input.as_bytes())
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// The files drifted (`diff --format json`), summary.json left out.
fn drifted(w: &Workspace) -> Vec<String> {
    w.drift().1.into_keys().filter(|f| f != "summary.json").collect()
}

/// The pending files in the snapshot folder.
fn pending(w: &Workspace) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(w.path("snapshots"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".new"))
        .collect();
    out.sort();
    out
}

/// Every file in the workspace but the snapshot folder and the token cache, with its hash.
fn outside_snapshots(w: &Workspace) -> std::collections::BTreeMap<PathBuf, String> {
    common::tree(w.dir.path())
        .into_iter()
        .filter(|(p, _)| !p.starts_with("snapshots") && !p.to_string_lossy().contains(".promptc-cache"))
        .map(|(p, bytes)| (p, common::sha256_hex(&bytes)))
        .collect()
}

/// Answers read one per line: accept, reject, skip (an unknown answer asked again), accept. The
/// accepted changes are committed — only their lines: `read_file`'s edit, skipped, stays out of
/// the files both it and an accepted change touch — the skipped one is pending and the next
/// review starts with it alone; the rejected one is no longer pending but still drift.
#[test]
fn a_review_by_lines_accepts_rejects_and_leaves_the_skipped_change_pending() {
    let w = four_edits();
    let before = outside_snapshots(&w);
    let out = run_with(&w, &["-C", "profiles", "review"], "a\nr\nwhat\ns\na\n");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let shown = text(&out);
    for (i, title) in TITLES.iter().enumerate() {
        assert!(shown.contains(&format!("[{}/4] {title} · ", i + 1)), "{title}\n{shown}");
    }
    assert!(shown.contains("-Read the contents of a file in the workspace.\n+Read the full contents"), "{shown}");
    assert!(shown.contains("· 25 files · Δ tokens +1\n"), "the token change: {shown}");
    assert!(shown.contains("unknown answer `what`"), "{shown}");
    assert!(shown.contains("accepted 2, rejected 1, skipped 1"), "{shown}");
    assert!(shown.contains("1 change(s) left pending: run `promptc review` to continue"), "{shown}");
    assert_eq!(outside_snapshots(&w), before, "only the snapshot folder is written");

    // The committed standard.xml prompt has the accepted edits and neither the skipped nor the
    // rejected one.
    let prompt = std::fs::read_to_string(w.path("snapshots/standard.xml.prompt.md")).unwrap();
    assert!(prompt.contains("The full command line to run"), "accepted");
    assert!(prompt.contains("Description: Read the contents of a file"), "skipped: not committed");
    let lite = std::fs::read_to_string(w.path("snapshots/lite.native.prompt.md")).unwrap();
    assert!(lite.contains("Find things out with your tools"), "rejected: not committed");
    // The skipped change is pending, beside the committed files, and promptc's (listed with its
    // hash in summary.json).
    let new = pending(&w);
    assert!(new.contains(&"summary.json.new".to_string()) && new.contains(&"standard.xml.prompt.md.new".to_string()));
    assert_eq!(new.len(), 26, "25 files and the summary: {new:?}");
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(w.path("snapshots/summary.json")).unwrap()).unwrap();
    let listed: Vec<&str> = summary["files"].as_array().unwrap().iter().map(|f| f["name"].as_str().unwrap()).collect();
    assert!(new.iter().all(|n| listed.contains(&n.as_str())), "{listed:?}");

    // `diff` compares without the pending files, and says how to go on.
    let out = w.run(&["-C", "profiles", "diff"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("holds pending snapshots: run `promptc review`"), "{}", text(&out));
    assert!(!text(&out).contains(".new"), "{}", text(&out));

    // The next review continues with the skipped change alone; accepting it leaves no pending
    // file, and the rejected edit is the only drift left.
    let out = run_with(&w, &["-C", "profiles", "review"], "a\n");
    let shown = text(&out);
    assert!(shown.contains("reviewing the pending snapshots"), "{shown}");
    assert!(shown.contains("[1/1] tool read_file: description changed · 25 files"), "{shown}");
    assert_eq!(out.status.code(), Some(0), "{shown}");
    assert!(pending(&w).is_empty(), "{:?}", pending(&w));
    let left = drifted(&w);
    assert!(!left.is_empty() && left.iter().all(|f| f.starts_with("lite.")), "{left:?}");

    // Accepting the last change makes the folder what the project renders, summary included.
    let out = run_with(&w, &["-C", "profiles", "review"], "a\n");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(w.drift().0, 0);
    let out = run_with(&w, &["-C", "profiles", "review"], "");
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out).contains("nothing to review: the project matches"), "{}", text(&out));
}

/// End of input and `q` skip what is left: nothing is accepted, everything stays pending.
#[test]
fn quitting_skips_the_rest() {
    let w = four_edits();
    let out = run_with(&w, &["-C", "profiles", "diff", "--review"], "q\n");
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("accepted 0, rejected 0, skipped 4"), "{}", text(&out));
    let out = run_with(&w, &["-C", "profiles", "review"], "");
    assert!(text(&out).contains("reviewing the pending snapshots"), "{}", text(&out));
    assert!(text(&out).contains("[1/4] "), "{}", text(&out));
    assert!(text(&out).contains("accepted 0, rejected 0, skipped 4"), "{}", text(&out));
}

/// `--accept`/`--reject` decide by tool, section or cell pattern without asking; the rest stays
/// pending; a change both pick is refused (exit 2) and nothing is written.
#[test]
fn patterns_decide_without_asking() {
    let w = four_edits();
    let out = run_with(
        &w,
        &["-C", "profiles", "review", "--accept", "read_file", "--accept", "web_fetch", "--reject", "section rules"],
        "",
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("accepted 2, rejected 1, skipped 1"), "{}", text(&out));
    let out = run_with(&w, &["-C", "profiles", "review"], "");
    assert!(text(&out).contains("[1/1] tool execute_command: parameter command changed"), "{}", text(&out));

    let w = four_edits();
    let before = common::tree(&w.path("snapshots"));
    let out = run_with(&w, &["-C", "profiles", "review", "--accept", "*", "--reject", "rules"], "");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("section rules changed matches both --accept and --reject"), "{}", text(&out));
    assert_eq!(common::tree(&w.path("snapshots")), before);

    // A cell pattern picks a change only when every file of it matches: the rules edit is in
    // lite's files only, the tool edits in standard's too.
    let out = run_with(&w, &["-C", "profiles", "review", "--accept", "lite.*"], "");
    assert!(text(&out).contains("accepted 1, rejected 0, skipped 3"), "{}", text(&out));
}

/// `diff --pending` writes the drift as pending files for CI, without touching the committed
/// ones; `diff --update` accepts everything and removes them; without drift `--pending` removes
/// stale ones.
#[test]
fn diff_pending_writes_the_drift_beside_the_committed_snapshots() {
    let w = four_edits();
    let committed: Vec<String> = drifted(&w);
    let before = common::tree(&w.path("snapshots"));
    let out = w.run(&["-C", "profiles", "diff", "--pending"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("pending snapshot file(s) written in snapshots: run `promptc review`"),
        "{}",
        text(&out)
    );
    let new = pending(&w);
    assert_eq!(new.len(), committed.len() + 1, "{new:?}");
    for f in &committed {
        assert_eq!(
            std::fs::read(w.path("snapshots").join(f)).unwrap(),
            before[Path::new(f)],
            "{f} is left as committed"
        );
        assert!(new.contains(&format!("{f}.new")), "{f}");
    }
    // The same drift is reported with or without the pending files.
    assert_eq!(drifted(&w), committed);
    assert_eq!(w.run(&["-C", "profiles", "diff", "--update"]).status.code(), Some(0));
    assert!(pending(&w).is_empty());
    assert_eq!(w.drift().0, 0);

    // Pending files left while the project changed back: `--pending` removes them.
    let w = four_edits();
    assert_eq!(w.run(&["-C", "profiles", "diff", "--pending"]).status.code(), Some(1));
    for (rel, edited, was) in [
        ("profiles/tools/files.yaml", "Read the full contents of a file", "Read the contents of a file"),
        ("profiles/tools/shell.yaml", "The full command line to run", "The command line to run"),
        ("profiles/tools/web.yaml", "The absolute URL to fetch.", "The absolute http(s) URL to fetch."),
        ("profiles/sections/rules.md.j2", "Find things out with tools", "Find things out with your tools"),
    ] {
        w.edit(rel, edited, was);
    }
    assert_eq!(w.run(&["-C", "profiles", "diff"]).status.code(), Some(0));
    assert_eq!(w.run(&["-C", "profiles", "diff", "--pending"]).status.code(), Some(0));
    assert!(pending(&w).is_empty());
    let mut committed_now = common::tree(&w.path("snapshots"));
    let mut original = common::tree(&common::repo().join("snapshots"));
    committed_now.retain(|p, _| !p.starts_with(".promptc-cache"));
    original.retain(|p, _| !p.starts_with(".promptc-cache"));
    assert_eq!(committed_now, original, "the folder is as committed again");
}

/// tmux, when it is installed.
fn tmux() -> Option<PathBuf> {
    let found = std::env::var_os("PATH")
        .and_then(|paths| std::env::split_paths(&paths).map(|d| d.join("tmux")).find(|p| p.is_file()));
    found.or_else(|| Some(PathBuf::from("/usr/bin/tmux")).filter(|p| p.is_file()))
}

/// A tmux server of the test's own (its socket in the workspace), stopped when dropped.
struct Tmux {
    bin: PathBuf,
    socket: PathBuf,
}

impl Tmux {
    fn cmd(&self, args: &[&str]) -> Output {
        // A server of its own, wherever the tests run (inside tmux too).
        Command::new(&self.bin)
            .arg("-S")
            .arg(&self.socket)
            .args(args)
            .env("TERM", "xterm-256color")
            .env_remove("TMUX")
            .output()
            .unwrap()
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.cmd(&["capture-pane", "-p", "-J", "-S", "-200", "-t", "review"]).stdout)
            .into_owned()
    }

    /// Wait until the screen shows `what` (at most 60 s), and return it.
    fn wait_for(&self, what: &str) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if screen.contains(what) {
                return screen;
            }
            assert!(start.elapsed() < Duration::from_secs(60), "never showed {what:?}:\n{screen}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]);
    }
}

/// `promptc review` in `w`, in a detached tmux session of 100 × 50; after it exits the pane
/// shows its exit code and whether the terminal is back in canonical mode.
fn review_in_tmux(w: &Workspace, bin: PathBuf) -> Tmux {
    let t = Tmux { bin, socket: w.path("tmux.sock") };
    let script = format!(
        "cd '{}' && NO_COLOR=1 '{}' -C profiles review; echo \"exit $?\"; stty -a | tr ' ;' '\\n\\n' | grep -x -e icanon -e -icanon -e echo -e -echo; sleep 120",
        w.dir.path().display(),
        env!("CARGO_BIN_EXE_promptc")
    );
    let out = t.cmd(&["new-session", "-d", "-s", "review", "-x", "100", "-y", "50", &script]);
    assert!(out.status.success(), "tmux new-session: {}", String::from_utf8_lossy(&out.stderr));
    t
}

/// In a real terminal, each change is decided by one key, without Enter: four edits, four
/// keystrokes. The terminal is restored when the review ends.
#[test]
fn four_edits_take_four_keystrokes_in_a_terminal() {
    let Some(bin) = tmux() else {
        eprintln!("skipped: tmux is not installed (the review's terminal mode is tested with tmux)");
        return;
    };
    let w = four_edits();
    let t = review_in_tmux(&w, bin);
    let keys = ["a", "r", "s", "a"];
    for (i, key) in keys.iter().enumerate() {
        t.wait_for(&format!("[{}/4] {}", i + 1, TITLES[i]));
        // The prompt for this change is on screen: one key, no Enter.
        let start = Instant::now();
        while !t.screen().trim_end().ends_with("q quit ›") {
            assert!(start.elapsed() < Duration::from_secs(60), "no prompt:\n{}", t.screen());
            std::thread::sleep(Duration::from_millis(50));
        }
        let out = t.cmd(&["send-keys", "-t", "review", key]);
        assert!(out.status.success());
    }
    // The shell prints the exit code, then the terminal's modes (`echo` last).
    let screen = t.wait_for("\necho");
    assert!(screen.contains("accepted 2, rejected 1, skipped 1"), "{screen}");
    assert!(screen.contains("exit 1"), "{screen}");
    assert!(
        screen.contains("› accepted\n") && screen.contains("› rejected\n") && screen.contains("› skipped\n"),
        "{screen}"
    );
    // The terminal is back in canonical mode with echo.
    let modes: Vec<&str> = screen.lines().filter(|l| ["icanon", "-icanon", "echo", "-echo"].contains(l)).collect();
    assert_eq!(modes, ["icanon", "echo"], "{screen}");
    eprintln!("{screen}");
    assert_eq!(pending(&w).len(), 26);
}

/// Ctrl-C in the review quits like `q` (the terminal is in cbreak mode, so it arrives as a key):
/// nothing decided is lost, the terminal is restored. Arrow keys and Enter are ignored.
#[test]
fn ctrl_c_quits_and_restores_the_terminal() {
    let Some(bin) = tmux() else {
        eprintln!("skipped: tmux is not installed (the review's terminal mode is tested with tmux)");
        return;
    };
    let w = four_edits();
    let t = review_in_tmux(&w, bin);
    t.wait_for("[1/4]");
    let start = Instant::now();
    while !t.screen().trim_end().ends_with("q quit ›") {
        assert!(start.elapsed() < Duration::from_secs(60), "no prompt:\n{}", t.screen());
        std::thread::sleep(Duration::from_millis(50));
    }
    // An arrow key and Enter (by habit) answer nothing and ask nothing again.
    t.cmd(&["send-keys", "-t", "review", "Up", "Enter"]);
    std::thread::sleep(Duration::from_millis(300));
    t.cmd(&["send-keys", "-t", "review", "a"]);
    let screen = t.wait_for("[2/4]");
    assert!(!screen.contains("unknown answer"), "{screen}");
    assert_eq!(screen.matches("q quit ›").count(), 2, "{screen}");
    t.cmd(&["send-keys", "-t", "review", "C-c"]);
    let screen = t.wait_for("\necho");
    assert!(screen.contains("exit 1"), "{screen}");
    assert!(screen.contains("accepted 1, rejected 0, skipped 3"), "{screen}");
    let modes: Vec<&str> = screen.lines().filter(|l| ["icanon", "-icanon", "echo", "-echo"].contains(l)).collect();
    assert_eq!(modes, ["icanon", "echo"], "{screen}");
}

/// Two snapshot folders compared (`diff A B`) leave pending files out: a folder with pending
/// files matches its copy from before they were written.
#[test]
fn comparing_folders_leaves_pending_files_out() {
    let w = four_edits();
    common::copy_dir(&w.path("snapshots"), &w.path("before"));
    assert_eq!(w.run(&["-C", "profiles", "diff", "--pending"]).status.code(), Some(1));
    assert!(!pending(&w).is_empty());
    let out = w.run(&["diff", "before", "snapshots"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

/// `diff --format json` lists the changes with their keys; `review --accept KEY` picks one.
#[test]
fn a_change_is_picked_by_the_key_diff_json_gives() {
    let w = four_edits();
    let out = w.run(&["-C", "profiles", "diff", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let changes = v["changes"].as_array().unwrap();
    let named: Vec<String> = changes
        .iter()
        .map(|c| {
            let fields: Vec<&str> = c["fields"].as_array().unwrap().iter().map(|f| f.as_str().unwrap()).collect();
            format!("{} {} [{}]", c["kind"].as_str().unwrap(), c["subject"].as_str().unwrap(), fields.join("; "))
        })
        .collect();
    let expected = [
        "parameter_changed tool execute_command [parameter command]",
        "section_changed section rules []",
        "description_changed tool read_file [description]",
        "parameter_changed tool web_fetch [parameter url]",
    ];
    assert_eq!(named, expected);
    // Each with its own figure, in the accounts it reaches.
    assert!(changes.iter().all(|c| !c["deltas"].as_array().unwrap().is_empty()), "{changes:#?}");
    let key = changes[2]["key"].as_str().unwrap();
    let out = run_with(&w, &["-C", "profiles", "review", "--accept", key], "");
    assert!(text(&out).contains("accepted 1, rejected 0, skipped 3"), "{}", text(&out));
    let prompt = std::fs::read_to_string(w.path("snapshots/standard.xml.prompt.md")).unwrap();
    assert!(prompt.contains("Description: Read the full contents of a file"), "tool read_file, description accepted");
}

/// Before any snapshot, review has nothing to decide change by change: it says to run
/// `promptc snapshot` and writes nothing.
#[test]
fn review_before_any_snapshot_says_to_run_snapshot() {
    let w = Workspace::new();
    std::fs::remove_dir_all(w.path("snapshots")).unwrap();
    let out = run_with(&w, &["-C", "profiles", "review"], "a\n");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("holds no snapshots of this project yet: run `promptc snapshot`"), "{}", text(&out));
    assert!(!w.path("snapshots").exists());
}
