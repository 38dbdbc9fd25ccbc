//! Helpers shared by the integration tests (and the benchmarks): where the repository is,
//! running the binary, copying a project.

#![allow(dead_code)] // each test crate uses a subset

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

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

/// SHA-256 of `bytes` as lower-case hex, the form promptc's metadata records.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}
