//! Unit tests of `snapshot`.

use super::*;

#[test]
fn stems_and_owned_files() {
    let c = Cell { profile: "lite".into(), case: Some("yolo".into()), transport: Transport::Xml, subagent: None };
    assert_eq!(c.stem(), "lite.yolo.xml");
    assert!(plain_name("a.prompt.md") && !plain_name("../x") && !plain_name(".hidden") && !plain_name("a/b"));
}

#[test]
fn write_removes_only_files_the_summary_lists() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("snap");
    let summary = |files: &[(&str, &str)]| {
        let listed: Vec<Fingerprint> = files.iter().map(|(n, t)| fingerprint(n, t)).collect();
        format!("{{\"format\": 4, \"cells\": [], \"files\": {}}}\n", serde_json::to_string(&listed).unwrap())
    };
    let set = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
        pairs.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
    };
    let first = set(&[("old.native.prompt.md", "x"), (SUMMARY, &summary(&[("old.native.prompt.md", "x")]))]);
    write(&Pinned::unpinned(&dir), &first).unwrap();
    std::fs::write(dir.join("README.md"), "keep").unwrap();
    std::fs::write(dir.join("mine.native.prompt.md"), "not listed: the user's").unwrap();
    let second = set(&[("a.native.prompt.md", "hello\n"), (SUMMARY, &summary(&[("a.native.prompt.md", "hello\n")]))]);
    let w = write(&Pinned::unpinned(&dir), &second).unwrap();
    assert_eq!(w.written, ["a.native.prompt.md", SUMMARY]);
    assert_eq!(w.removed, ["old.native.prompt.md"]);
    assert_eq!(std::fs::read_to_string(dir.join("README.md")).unwrap(), "keep");
    assert!(dir.join("mine.native.prompt.md").exists(), "a file the summary does not list is never removed");
    let again = write(&Pinned::unpinned(&dir), &second).unwrap();
    assert_eq!((again.written.len(), again.unchanged), (0, 2));
    // Reading back reads only the listed files.
    let read = read_owned(&dir, &owned_files).unwrap();
    assert_eq!(read.keys().collect::<Vec<_>>(), ["a.native.prompt.md", SUMMARY]);
}

#[test]
fn a_manifest_cannot_name_files_outside_its_folder() {
    let d = tempfile::tempdir().unwrap();
    let hash = crate::hash::sha256_hex(b"");
    let summary = format!(
        r#"{{"format": 4, "cells": [], "files": [{{"name": "../../etc/passwd", "bytes": 0, "sha256": "{hash}"}}]}}"#
    );
    std::fs::write(d.path().join(SUMMARY), summary).unwrap();
    assert_eq!(owned_files(d.path()).unwrap(), None);
}

#[test]
fn non_utf8_files_are_an_error() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("bad.native.prompt.md"), [0xff, 0xfe]).unwrap();
    let hash = crate::hash::sha256_hex(&[0xff, 0xfe]);
    let summary = format!(
        r#"{{"format": 4, "cells": [], "files": [{{"name": "bad.native.prompt.md", "bytes": 2, "sha256": "{hash}"}}]}}"#
    );
    std::fs::write(d.path().join(SUMMARY), summary).unwrap();
    let e = read_owned(d.path(), &owned_files).unwrap_err();
    assert!(e.to_string().contains("not valid UTF-8"));
}

#[test]
fn only_a_summary_of_the_current_format_with_hashes_makes_a_folder_promptcs() {
    let d = tempfile::tempdir().unwrap();
    let hash = crate::hash::sha256_hex(b"x");
    for (summary, ours) in [
        // Older formats listed names only, or nothing: not promptc's.
        (r#"{"format": 1, "cells": []}"#.to_string(), false),
        (r#"{"format": 3, "cells": [], "files": ["a.prompt.md"]}"#.to_string(), false),
        (r#"{"format": 4, "cells": [], "files": ["a.prompt.md"]}"#.to_string(), false),
        (
            format!(
                r#"{{"format": 4, "cells": [], "files": [{{"name": "a.prompt.md", "bytes": 1, "sha256": "{}"}}]}}"#,
                &hash[..10]
            ),
            false,
        ),
        ("not json".to_string(), false),
        (
            format!(
                r#"{{"format": 4, "cells": [], "files": [{{"name": "a.prompt.md", "bytes": 1, "sha256": "{hash}"}}]}}"#
            ),
            true,
        ),
    ] {
        std::fs::write(d.path().join(SUMMARY), &summary).unwrap();
        let m = owned_files(d.path()).unwrap();
        assert_eq!(m.is_some(), ours, "{summary}");
        if let Some(m) = m {
            assert_eq!(m.files["a.prompt.md"], hash);
        }
    }
}

#[cfg(unix)]
#[test]
fn adopting_never_writes_through_a_link() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join(SUMMARY), r#"{"format": 3, "cells": [], "files": []}"#).unwrap();
    let d = tempfile::tempdir().unwrap();
    let link = d.path().join("snapshots");
    std::os::unix::fs::symlink(outside.path(), &link).unwrap();
    assert!(adopt_older(&link).is_err());
    let summary = std::fs::read_to_string(outside.path().join(SUMMARY)).unwrap();
    assert!(summary.contains(r#""format": 3"#), "{summary}");
}
