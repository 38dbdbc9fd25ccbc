//! Unit tests of `atomic`.

#[test]
fn writes_and_replaces_without_leftovers() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("a/b.txt");
    super::write(&p, b"one").unwrap();
    super::write(&p, b"two").unwrap();
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "two");
    let names: Vec<_> = std::fs::read_dir(d.path().join("a")).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, vec![std::ffi::OsString::from("b.txt")]);
}
