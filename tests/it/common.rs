//! Helpers shared by the integration tests (and the benchmarks): where the repository is,
//! running the binary, copying a project.

#![allow(dead_code)] // the benchmarks use a subset

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

/// How long a test waits for something that should come at once before calling it a hang. A
/// hang guard only: no test asserts speed (that is the benchmarks' job), and a loaded 2-core
/// machine running a debug build can take many seconds for what takes milliseconds here.
pub const HANG_GUARD: Duration = Duration::from_secs(60);

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Run `promptc ARGS` in `dir`, without colour.
pub fn promptc_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_promptc"))
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .args(args)
        .output()
        .expect("run promptc")
}

/// Run `promptc ARGS` in `dir`, without colour, with `input` on its standard input.
pub fn promptc_in_with_stdin(dir: &Path, args: &[&str], input: &[u8]) -> Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_promptc"))
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run promptc");
    // A command that exits before reading everything closes the pipe: not this helper's failure.
    let _ = child.stdin.take().expect("piped stdin").write_all(input);
    child.wait_with_output().expect("wait for promptc")
}

/// Run `promptc ARGS` from the repository root.
pub fn promptc(args: &[&str]) -> Output {
    promptc_in(&repo(), args)
}

/// Run `promptc ARGS` from the repository root, assert success, and return stdout.
pub fn ok(args: &[&str]) -> String {
    let out = promptc(args);
    assert_eq!(out.status.code(), Some(0), "promptc {args:?} failed:\n{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8 output")
}

/// Copy a folder recursively, leaving out token caches.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_name() == ".promptc-cache" {
            continue;
        }
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

/// A copy of the fixture project at `rel` in a fresh folder, its token cache turned on at
/// `cache` (the project's first tool file must be `tools/files.yaml`).
pub fn fixture_with_token_cache(rel: &str, cache: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo().join(rel), dir.path());
    let manifest = dir.path().join("promptc.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let tools = "tools:\n  - tools/files.yaml";
    assert!(text.contains(tools), "{rel}");
    std::fs::write(&manifest, text.replace(tools, &format!("tokens:\n  cache: {cache}\n\n{tools}"))).unwrap();
    dir
}

/// A child process (a `watch`) killed when the test ends, failed or not: a panicking test
/// leaves nothing running.
pub struct Killed(pub std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The token cache's shard files in `dir` for a cache named `stem.json` (`stem.ENCODING.N.bin`),
/// by name, with their contents.
pub fn token_shards(dir: &Path, stem: &str) -> std::collections::BTreeMap<String, Vec<u8>> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Default::default() };
    entries
        .map(|e| e.unwrap().path())
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?.to_string();
            let shard = name.strip_prefix(stem)?.strip_prefix('.')?.strip_suffix(".bin")?.to_string();
            (shard.split('.').count() == 2).then(|| (name, std::fs::read(&p).unwrap()))
        })
        .collect()
}

/// Every file under `dir`, by path relative to it, with its contents.
pub fn tree(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut std::collections::BTreeMap<PathBuf, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                out.insert(p.strip_prefix(root).unwrap().to_path_buf(), std::fs::read(&p).unwrap());
            }
        }
    }
    let mut out = std::collections::BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// SHA-256 of `bytes` as lower-case hex, the form promptc's metadata records.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// A temporary copy of `profiles/` and `snapshots/`, in a folder that is a repository (the
/// example's `snapshots: ../snapshots` must stay inside the project's repository).
pub struct Workspace {
    pub dir: tempfile::TempDir,
}

impl Workspace {
    pub fn new() -> Workspace {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        copy_dir(&repo().join("profiles"), &dir.path().join("profiles"));
        copy_dir(&repo().join("snapshots"), &dir.path().join("snapshots"));
        Workspace { dir }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    pub fn run(&self, args: &[&str]) -> std::process::Output {
        std::process::Command::new(env!("CARGO_BIN_EXE_promptc"))
            .current_dir(self.dir.path())
            .env("NO_COLOR", "1")
            .args(args)
            .output()
            .unwrap()
    }

    pub fn edit(&self, rel: &str, from: &str, to: &str) {
        let p = self.path(rel);
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.contains(from), "{rel} does not contain {from:?}");
        std::fs::write(&p, text.replacen(from, to, 1)).unwrap();
    }

    /// `diff --format json`: (exit code, status by file).
    pub fn drift(&self) -> (i32, std::collections::BTreeMap<String, String>) {
        let out = self.run(&["diff", "--format", "json"]);
        let v: serde_json::Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)));
        let files = v["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| (f["file"].as_str().unwrap().to_string(), f["status"].as_str().unwrap().to_string()))
            .collect();
        (out.status.code().unwrap(), files)
    }
}

/// The project at `rel`, a folder of the repository named relative to its root (tests run
/// there, so diagnostics name files as `promptc -C REL` run from the root does), loaded once
/// per test binary and kept for its whole run.
pub fn project(rel: &str) -> &'static promptc::Project {
    use std::collections::BTreeMap;
    use std::sync::{Arc, Mutex, OnceLock, PoisonError};
    type Slot = Arc<OnceLock<&'static promptc::Project>>;
    static LOADED: Mutex<BTreeMap<String, Slot>> = Mutex::new(BTreeMap::new());
    // One slot per project: two tests that want the same project load it once, and different
    // projects load side by side.
    let slot = LOADED.lock().unwrap_or_else(PoisonError::into_inner).entry(rel.to_string()).or_default().clone();
    slot.get_or_init(|| {
        assert_eq!(std::env::current_dir().unwrap(), repo(), "tests run from the repository root");
        let project = promptc::load(Path::new(rel)).unwrap_or_else(|e| panic!("load {rel}: {e:?}"));
        Box::leak(Box::new(project))
    })
}

/// Run `f` with a token counter of the binary's pool: counters are built on first use (one per
/// thread that needs one at the same time) and keep every tokenizer they built and every text
/// they counted, so a test never waits for a tokenizer another test already built. They have
/// no disk cache: the counts are those `promptc` prints, cached or not.
pub fn with_counter<T>(f: impl FnOnce(&mut promptc::TokenCounter) -> T) -> T {
    use std::sync::{Mutex, PoisonError};
    static POOL: Mutex<Vec<promptc::TokenCounter>> = Mutex::new(Vec::new());
    let taken = POOL.lock().unwrap_or_else(PoisonError::into_inner).pop();
    let mut counter =
        taken.unwrap_or_else(|| promptc::TokenCounter::new(promptc::Tokenizer::Exact(promptc::Encoding::O200kBase)));
    let out = f(&mut counter);
    POOL.lock().unwrap_or_else(PoisonError::into_inner).push(counter);
    out
}
