//! Unit tests of `snapshot`.

use super::*;

#[test]
fn stems_and_owned_files() {
    let c = Cell { profile: "lite".into(), case: Some("yolo".into()), transport: Transport::Xml, subagent: None };
    assert_eq!(c.stem(), "lite.yolo.xml");
    assert!(is_snapshot_file("standard.native.openai.tools.json"));
    assert!(is_snapshot_file("summary.json"));
    assert!(!is_snapshot_file("README.md"));
}

#[test]
fn write_removes_only_stale_snapshot_files() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("old.native.prompt.md"), "x").unwrap();
    std::fs::write(d.path().join("README.md"), "keep").unwrap();
    let files: BTreeMap<String, String> =
        [("a.native.prompt.md".to_string(), "hello\n".to_string())].into_iter().collect();
    let w = write(d.path(), &files).unwrap();
    assert_eq!(w.written, ["a.native.prompt.md"]);
    assert_eq!(w.removed, ["old.native.prompt.md"]);
    assert!(d.path().join("README.md").exists());
    let again = write(d.path(), &files).unwrap();
    assert_eq!((again.written.len(), again.unchanged), (0, 1));
}

#[test]
fn non_utf8_files_are_an_error() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("bad.native.prompt.md"), [0xff, 0xfe]).unwrap();
    let e = read_folder(d.path()).unwrap_err();
    assert!(e.to_string().contains("not valid UTF-8"));
}
