//! Unit tests of `source`.

use super::*;

fn fs() -> (tempfile::TempDir, ProjectFs) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("sub/a.txt"), "hello").unwrap();
    let fs = ProjectFs::new(dir.path(), Path::new("proj")).unwrap();
    (dir, fs)
}

#[test]
fn normalizes_and_confines_paths() {
    let (_d, fs) = fs();
    assert_eq!(fs.normalize("./sub/../sub/a.txt").unwrap(), "sub/a.txt");
    assert!(fs.normalize("../x").is_err());
    assert!(fs.normalize("/etc/passwd").is_err());
    assert!(fs.normalize("").is_err());
}

#[test]
fn cleans_paths_for_display() {
    assert_eq!(clean_path(Path::new("profiles/../snapshots")), Path::new("snapshots"));
    assert_eq!(clean_path(Path::new("../x/./y")), Path::new("../x/y"));
    assert_eq!(clean_path(Path::new("a/..")), Path::new("."));
}

#[test]
fn reads_and_hashes() {
    let (_d, fs) = fs();
    let f = fs.read("sub/a.txt", None).unwrap();
    assert_eq!(f.text, "hello");
    assert_eq!(f.display, "proj/sub/a.txt");
    assert_eq!(f.sha256(), "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
}

#[test]
fn missing_file_is_an_error_not_a_panic() {
    let (_d, fs) = fs();
    let e = fs.read("nope.txt", None).unwrap_err();
    assert!(e.to_string().contains("no such file"), "{e}");
}

#[cfg(unix)]
#[test]
fn symlink_escape_is_refused() {
    let (d, fs) = fs();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret"), "x").unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret"), d.path().join("link")).unwrap();
    let e = fs.read("link", None).unwrap_err();
    assert!(e.to_string().contains("outside the project"), "{e}");
}

#[test]
fn huge_files_are_refused_with_the_limit() {
    let (d, fs) = fs();
    let big = vec![b'a'; MAX_FILE_BYTES as usize + 1];
    std::fs::write(d.path().join("big.md"), big).unwrap();
    let e = fs.read("big.md", None).unwrap_err();
    assert!(e.to_string().contains("byte limit for project files"), "{e}");
}

#[test]
fn version_control_folders_are_never_a_write_target() {
    let root = std::path::Path::new("/repo");
    for target in ["/repo/.git/refs/tags", "/repo/sub/.hg", "/repo/.jj/x", "/repo/a/../.git"] {
        let why = super::confine(root, std::path::Path::new(target)).unwrap_err();
        assert!(why.contains("a version-control folder"), "{target}: {why}");
    }
    assert!(super::confine(root, std::path::Path::new("/repo/snapshots")).is_ok());
    assert!(super::confine(root, std::path::Path::new("/repo/git-notes")).is_ok());
}

#[test]
fn the_hash_is_of_the_bytes_as_stored_with_their_byte_order_mark() {
    let (d, fs) = fs();
    std::fs::write(d.path().join("sub/bom.txt"), b"\xEF\xBB\xBFhello").unwrap();
    let f = fs.read("sub/bom.txt", None).unwrap();
    assert_eq!(f.text, "hello");
    assert_eq!(f.sha256(), crate::hash::sha256_hex(b"\xEF\xBB\xBFhello"));
    assert_ne!(f.sha256(), crate::hash::sha256_hex(b"hello"));
}

#[test]
fn an_overlay_text_is_read_instead_of_the_disk_and_a_path_out_of_the_project_is_still_refused() {
    let (_d, fs) = fs();
    let mut overlay = Overlay::new();
    overlay.insert("sub/a.txt", "unsaved");
    overlay.insert("sub/new.txt", "never saved");
    let fs = fs.with_overlay(std::sync::Arc::new(overlay));
    assert_eq!(fs.read("./sub/a.txt", None).unwrap().text, "unsaved", "the buffer, not the disk");
    assert_eq!(fs.read("sub/new.txt", None).unwrap().text, "never saved", "a buffer not yet on disk");
    assert!(!fs.missing("sub/new.txt"), "a buffer exists for the loader");
    assert!(fs.read("../sub/a.txt", None).is_err(), "a path leaving the project is refused as ever");
}

#[test]
fn an_overlay_text_over_the_size_limit_is_refused_like_a_file() {
    let (_d, fs) = fs();
    let mut overlay = Overlay::new();
    overlay.insert("big.txt", "x".repeat(MAX_FILE_BYTES as usize + 1));
    let err = fs.with_overlay(std::sync::Arc::new(overlay)).read("big.txt", None).unwrap_err();
    assert!(err.diagnostics()[0].message.contains("byte limit"), "{err:?}");
}
