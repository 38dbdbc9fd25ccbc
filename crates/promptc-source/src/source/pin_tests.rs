//! Unit tests of `source::pin` (Linux, where folders are pinned).

use super::*;

/// A write root (canonical) and a folder outside it.
fn places() -> (tempfile::TempDir, PathBuf, tempfile::TempDir) {
    let root = tempfile::tempdir().unwrap();
    let canonical = root.path().canonicalize().unwrap();
    (root, canonical, tempfile::tempdir().unwrap())
}

fn empty(p: &Path) -> bool {
    std::fs::read_dir(p).unwrap().next().is_none()
}

fn files() -> std::collections::BTreeMap<String, Vec<u8>> {
    [("a.txt".to_string(), b"A".to_vec())].into()
}

/// No manifest: `replace` writes only into an empty or missing folder.
fn no_manifest(_: &Path) -> crate::error::Result<Option<super::super::folder::Manifest>> {
    Ok(None)
}

#[test]
fn a_folder_swapped_for_a_link_after_pinning_sends_nothing_out() {
    let (_keep, root, outside) = places();
    std::fs::create_dir_all(root.join("a/b")).unwrap();
    let target = root.join("a/b/snap");
    let pinned = pin(&root, &target, Path::new("a/b/snap")).unwrap();
    // The swap the race makes: a folder on the path moved away, a link out put in its place.
    std::fs::rename(root.join("a"), root.join("moved")).unwrap();
    std::os::unix::fs::symlink(outside.path(), root.join("a")).unwrap();
    let r = super::super::folder::replace(pinned.path(), &files(), &no_manifest);
    assert!(empty(outside.path()), "nothing is written outside");
    assert_eq!(r.unwrap().written, ["a.txt"]);
    assert_eq!(std::fs::read(root.join("moved/b/snap/a.txt")).unwrap(), b"A", "written in the pinned folder");
}

#[test]
fn the_last_folder_swapped_for_a_link_is_refused_or_replaced_never_followed() {
    let (_keep, root, outside) = places();
    std::fs::create_dir_all(root.join("snap")).unwrap();
    let pinned = pin(&root, &root.join("snap"), Path::new("snap")).unwrap();
    std::fs::remove_dir(root.join("snap")).unwrap();
    std::os::unix::fs::symlink(outside.path(), root.join("snap")).unwrap();
    let e = super::super::folder::replace(pinned.path(), &files(), &no_manifest).unwrap_err();
    let e = pinned.relabel(e);
    assert!(e.to_string().contains("`snap` is not a folder"), "shown on the user's path: {e}");
    assert!(empty(outside.path()));
}

#[test]
fn missing_folders_are_made_real_and_links_out_are_refused_by_the_walk() {
    let (_keep, root, outside) = places();
    let pinned = pin(&root, &root.join("x/y/snap"), Path::new("x/y/snap")).unwrap();
    assert!(pinned.path().starts_with("/proc/self/fd"), "{}", pinned.path().display());
    let meta = std::fs::symlink_metadata(root.join("x/y")).unwrap();
    assert!(meta.is_dir() && !meta.file_type().is_symlink());
    // A link inside the root is followed where `confine` allows it; one out of it never,
    // even when the walk meets it after `confine` looked (called here without `confine`).
    std::fs::create_dir(root.join("real")).unwrap();
    std::os::unix::fs::symlink(root.join("real"), root.join("inside")).unwrap();
    let p = linux::pin(&root, &root.join("inside/snap"), Path::new("inside/snap")).unwrap();
    std::fs::create_dir(p.path()).unwrap();
    assert!(root.join("real/snap").is_dir());
    std::os::unix::fs::symlink(outside.path(), root.join("out")).unwrap();
    let why = linux::pin(&root, &root.join("out/snap"), Path::new("out/snap")).unwrap_err();
    assert!(why.contains("is a symbolic link to") && why.contains("outside"), "{why}");
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::os::unix::fs::symlink(root.join(".git"), root.join("g")).unwrap();
    assert!(linux::pin(&root, &root.join("g/snap"), Path::new("g/snap")).is_err(), "a link into .git");
    std::fs::write(root.join("file"), "").unwrap();
    let why = linux::pin(&root, &root.join("file/snap"), Path::new("file/snap")).unwrap_err();
    assert!(why.contains("is not a folder"), "{why}");
    assert!(empty(outside.path()));
}

#[test]
fn messages_are_put_back_on_the_users_path() {
    let (_keep, root, _outside) = places();
    let pinned = pin(&root, &root.join("snap"), Path::new("proj/snap")).unwrap();
    let via = pinned.path().parent().unwrap().display().to_string();
    assert_eq!(pinned.show(&format!("cannot create `{via}/snap/x`: denied")), "cannot create `proj/snap/x`: denied");
    assert_eq!(pinned.show(&format!("`{via}7/snap`")), format!("`{via}7/snap`"), "another descriptor");
    let e = crate::error::Error::io("create", &pinned.path().join("x"), &std::io::ErrorKind::PermissionDenied.into());
    assert!(pinned.relabel(e).to_string().contains("`proj/snap/x`"));
}

#[test]
fn a_held_folder_is_reached_through_the_open_folder_and_never_a_link() {
    let (_keep, root, outside) = places();
    std::fs::create_dir(root.join("d")).unwrap();
    let held = hold(&root.join("d")).unwrap();
    std::fs::rename(root.join("d"), root.join("moved")).unwrap();
    std::os::unix::fs::symlink(outside.path(), root.join("d")).unwrap();
    std::fs::write(held.path().join("f"), "x").unwrap();
    assert!(empty(outside.path()));
    assert!(root.join("moved/f").is_file());
    assert!(hold(&root.join("d")).is_err(), "a link is not held");
}

#[test]
fn a_named_folder_is_written_where_its_path_led_when_pinned() {
    let (_keep, root, outside) = places();
    std::fs::create_dir_all(root.join("a/b")).unwrap();
    let target = root.join("a/b/out");
    let pinned = named(&target).unwrap();
    // The user's path resolved once: a swap afterwards neither splits nor redirects the write.
    std::fs::rename(root.join("a"), root.join("moved")).unwrap();
    std::os::unix::fs::symlink(outside.path(), root.join("a")).unwrap();
    let r = super::super::folder::replace(pinned.path(), &files(), &no_manifest);
    assert!(empty(outside.path()), "nothing is written outside");
    assert_eq!(r.unwrap().written, ["a.txt"]);
    assert_eq!(std::fs::read(root.join("moved/b/out/a.txt")).unwrap(), b"A");
    // Messages name the path as the user wrote it.
    let shown = pinned.show(&pinned.path().display().to_string());
    assert_eq!(shown, target.display().to_string());
}

#[test]
fn a_named_folder_makes_its_missing_parents_and_follows_the_users_links() {
    let (_keep, root, elsewhere) = places();
    std::os::unix::fs::symlink(elsewhere.path(), root.join("link")).unwrap();
    let pinned = named(&root.join("link/new/out")).unwrap();
    super::super::folder::replace(pinned.path(), &files(), &no_manifest).unwrap();
    assert_eq!(std::fs::read(elsewhere.path().join("new/out/a.txt")).unwrap(), b"A", "the user's link is theirs");
}
