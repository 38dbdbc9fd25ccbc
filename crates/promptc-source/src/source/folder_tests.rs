//! Unit tests of `source::folder`.

use super::*;

/// A manifest that lists its folder's files, one per line: name and hash.
const MANIFEST: &str = "owned.txt";

fn owned(dir: &Path) -> Result<Option<Manifest>> {
    match std::fs::read_to_string(dir.join(MANIFEST)) {
        Ok(t) => Ok(Some(Manifest {
            name: MANIFEST.to_string(),
            files: t.lines().filter_map(|l| l.split_once(' ')).map(|(n, h)| (n.to_string(), h.to_string())).collect(),
        })),
        Err(_) => Ok(None),
    }
}

fn files(names: &[(&str, &str)]) -> BTreeMap<String, Vec<u8>> {
    let list: String = names.iter().map(|(n, t)| format!("{n} {}\n", crate::hash::sha256_hex(t.as_bytes()))).collect();
    let mut m: BTreeMap<String, Vec<u8>> = names.iter().map(|(n, t)| (n.to_string(), t.as_bytes().to_vec())).collect();
    m.insert(MANIFEST.into(), list.into_bytes());
    m
}

fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

#[test]
fn creates_replaces_and_removes_only_its_own_files() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("snap");
    let r = replace(&dir, &files(&[("a", "1"), ("b", "2")]), &owned).unwrap();
    assert_eq!(r.written, ["a", "b", MANIFEST]);
    std::fs::write(dir.join("README"), "mine").unwrap();
    let r = replace(&dir, &files(&[("a", "1"), ("c", "3")]), &owned).unwrap();
    assert_eq!(
        (r.written.clone(), r.unchanged, r.removed.clone()),
        (vec!["c".into(), MANIFEST.into()], 1, vec!["b".into()])
    );
    assert_eq!(listing(&dir), ["README", "a", "c", MANIFEST]);
    assert_eq!(std::fs::read_to_string(dir.join("README")).unwrap(), "mine", "a foreign file is carried over");
    // Nothing beside the folder but the folder itself.
    assert_eq!(listing(root.path()), ["snap"]);
    // Unchanged content writes nothing.
    let r = replace(&dir, &files(&[("a", "1"), ("c", "3")]), &owned).unwrap();
    assert!(r.written.is_empty() && r.removed.is_empty());
}

#[test]
fn refuses_folders_it_does_not_own() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("docs");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("notes.md"), "keep me").unwrap();
    let e = replace(&dir, &files(&[("a", "1")]), &owned).unwrap_err();
    assert!(e.to_string().contains("holds files promptc did not write (notes.md)"), "{e}");
    assert_eq!(listing(&dir), ["notes.md"]);
    let file = root.path().join("plain");
    std::fs::write(&file, "x").unwrap();
    assert!(replace(&file, &files(&[("a", "1")]), &owned).unwrap_err().to_string().contains("is not a folder"));
}

#[test]
fn a_failed_build_leaves_the_old_folder() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("snap");
    replace(&dir, &files(&[("a", "1")]), &owned).unwrap();
    // A name that cannot be a file fails the build half-way.
    let mut bad = files(&[("b", "2")]);
    bad.insert("no/such/folder".into(), b"x".to_vec());
    assert!(replace(&dir, &bad, &owned).is_err());
    assert_eq!(listing(&dir), ["a", MANIFEST]);
    assert_eq!(listing(root.path()), ["snap"], "the temporary folder is gone");
}

#[test]
fn leftovers_of_killed_runs_are_cleaned_and_a_cut_swap_is_undone() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("snap");
    replace(&dir, &files(&[("a", "1")]), &owned).unwrap();
    let leftover = |name: &str, files: &[&str]| {
        let p = root.path().join(name);
        std::fs::create_dir(&p).unwrap();
        for f in files {
            std::fs::write(p.join(f), "x").unwrap();
        }
    };
    // Killed right after making the build folder, before marking it.
    leftover(".snap.promptc-new-Ab3dE9", &[]);
    // Killed while building: a marked build folder.
    leftover(".snap.promptc-new-zz0000", &[PARTIAL_MARKER, "a"]);
    // Killed after the exchange: the retired folder under the build folder's name, whole.
    leftover(".snap.promptc-new-q1w2e3", &["a", MANIFEST]);
    // Killed while removing the retired folder: partly removed, its manifest already gone.
    leftover(".snap.promptc-del-r4t5y6", &["a"]);
    // Killed between the two renames of the fallback: the folder is missing and the old one
    // waits under its temporary name.
    std::fs::rename(&dir, root.path().join(".snap.promptc-old-u7i8o9")).unwrap();
    // Folders of the user's with similar names are left alone: no promptc name, another
    // target's, or not flat as promptc's folders are.
    std::fs::create_dir(root.path().join(".snap.promptc-mine")).unwrap();
    leftover(".other.promptc-new-abcdef", &["a"]);
    leftover(".snap.promptc-new-sub123", &[]);
    std::fs::create_dir(root.path().join(".snap.promptc-new-sub123/inner")).unwrap();
    replace(&dir, &files(&[("a", "1"), ("b", "2")]), &owned).unwrap();
    assert_eq!(listing(&dir), ["a", "b", MANIFEST]);
    assert_eq!(std::fs::read_to_string(dir.join("a")).unwrap(), "1");
    assert_eq!(
        listing(root.path()),
        [".other.promptc-new-abcdef", ".snap.promptc-mine", ".snap.promptc-new-sub123", "snap"]
    );
}

#[test]
fn an_old_folder_left_while_the_target_exists_is_removed() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("snap");
    replace(&dir, &files(&[("a", "1")]), &owned).unwrap();
    // Killed while removing the fallback's old folder, the new one in place.
    std::fs::create_dir(root.path().join(".snap.promptc-old-AAAAAA")).unwrap();
    std::fs::write(root.path().join(".snap.promptc-old-AAAAAA/a"), "0").unwrap();
    replace(&dir, &files(&[("a", "2")]), &owned).unwrap();
    assert_eq!(listing(root.path()), ["snap"]);
    assert_eq!(std::fs::read_to_string(dir.join("a")).unwrap(), "2");
}

#[test]
fn temporary_names_are_recognised_exactly() {
    assert_eq!(temp_kind(".snap.promptc-new-Ab3dE9", "snap"), Some("new"));
    assert_eq!(temp_kind(".snap.promptc-del-000000", "snap"), Some("del"));
    for not in [
        ".snap.promptc-new-Ab3dE",
        ".snap.promptc-new-Ab3dE9x",
        ".snap.promptc-mine",
        ".snap.promptc-new-ab.def",
        "snap.promptc-new-Ab3dE9",
        ".snapx.promptc-new-Ab3dE9",
    ] {
        assert_eq!(temp_kind(not, "snap"), None, "{not}");
    }
    // What `temp_folder` makes is recognised.
    let root = tempfile::tempdir().unwrap();
    let made = temp_folder(root.path(), "snap", "new").unwrap();
    assert_eq!(temp_kind(&made.file_name().unwrap().to_string_lossy(), "snap"), Some("new"));
}

#[test]
fn a_file_is_replaced_or_removed_only_while_it_matches_its_hash() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("snap");
    replace(&dir, &files(&[("a", "1"), ("b", "2")]), &owned).unwrap();
    // Edited by the user: neither replaced nor removed.
    std::fs::write(dir.join("a"), "my edit").unwrap();
    let e = replace(&dir, &files(&[("a", "3")]), &owned).unwrap_err();
    assert!(e.to_string().contains("`a`, which is changed since promptc wrote it"), "{e}");
    let e = replace(&dir, &files(&[("b", "2")]), &owned).unwrap_err();
    assert!(e.to_string().contains("`a`, which is changed"), "{e}");
    assert_eq!(std::fs::read_to_string(dir.join("a")).unwrap(), "my edit");
    // Edited back to what promptc writes: nothing is lost by replacing it.
    replace(&dir, &files(&[("a", "my edit"), ("b", "2")]), &owned).unwrap();
    // Created by the user under a name promptc now writes: refused, kept.
    std::fs::write(dir.join("c"), "mine").unwrap();
    let e = replace(&dir, &files(&[("a", "my edit"), ("c", "3")]), &owned).unwrap_err();
    assert!(e.to_string().contains("`c`, which is not written by promptc"), "{e}");
    assert_eq!(std::fs::read_to_string(dir.join("c")).unwrap(), "mine");
    assert_eq!(listing(root.path()), ["snap"]);
}

#[test]
fn a_forged_manifest_hands_over_no_file() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("docs");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("notes.md"), "keep me").unwrap();
    // A manifest listing the user's file with a hash that is not its own.
    std::fs::write(dir.join(MANIFEST), format!("notes.md {}\n", crate::hash::sha256_hex(b"other"))).unwrap();
    let e = replace(&dir, &files(&[("a", "1")]), &owned).unwrap_err();
    assert!(e.to_string().contains("`notes.md`, which is changed since promptc wrote it"), "{e}");
    assert_eq!(std::fs::read_to_string(dir.join("notes.md")).unwrap(), "keep me");
}
