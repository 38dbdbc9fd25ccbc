//! The library facade as the Python and Node packages use it: every matrix cell's request
//! compiles to the snapshot's bytes, a loaded project is shareable across threads, and
//! compiling on a small-stack thread works through `on_compile_stack`.

use crate::common;

use promptc::{Project, Request};

fn example() -> Project {
    promptc::load(&common::repo().join("profiles")).unwrap()
}

#[test]
fn every_matrix_cell_request_compiles_to_its_snapshot_files() {
    let project = example();
    let files = promptc::snapshot_files(&project).unwrap();
    let cells = promptc::matrix(&project);
    assert!(cells.len() >= 12, "{}", cells.len());
    let mut compared = 0;
    for cell in &cells {
        let compiled = promptc::compile(&project, &cell.request).unwrap();
        assert_eq!(compiled.prompt(), files[&format!("{}.prompt.md", cell.name)], "{}", cell.name);
        compared += 1;
        for provider in &cell.providers {
            let compiled = promptc::compile(&project, &cell.request.clone().provider(*provider)).unwrap();
            let name = format!("{}.{provider}.tools.json", cell.name);
            assert_eq!(compiled.tools_json().unwrap(), files[&name], "{name}");
            compared += 1;
        }
    }
    // Every prompt and tools file of the matrix was compared (the rest are commands and
    // summary.json).
    let matrix_files = files.keys().filter(|n| n.ends_with(".prompt.md") || n.ends_with(".tools.json")).count();
    assert_eq!(compared, matrix_files);
}

#[test]
fn a_loaded_project_is_shared_across_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Project>();
    assert_send_sync::<promptc::Compiled>();
    let project = example();
    let cells = promptc::matrix(&project);
    let serial: Vec<String> =
        cells.iter().map(|c| promptc::compile(&project, &c.request).unwrap().prompt().to_string()).collect();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| {
                s.spawn(|| {
                    cells.iter().map(|c| promptc::compile(&project, &c.request).unwrap().prompt().to_string()).collect()
                })
            })
            .collect();
        for h in handles {
            let parallel: Vec<String> = h.join().unwrap();
            assert_eq!(parallel, serial);
        }
    });
}

#[test]
fn compiling_on_a_small_stack_thread_goes_through_the_compile_stack() {
    let project = example();
    let req = Request::new().profile("standard");
    let on_main = promptc::compile(&project, &req.clone().nonce("abcd1234")).unwrap();
    let small = std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn_scoped(s, || {
                let req = req.clone().nonce("abcd1234");
                promptc::on_compile_stack(|| promptc::compile(&project, &req)).map(|c| c.prompt().to_string())
            })
            .unwrap()
            .join()
            .unwrap()
            .unwrap()
    });
    assert_eq!(small, on_main.prompt());
}

/// A report session is the one policy for caches: a kept session recompiles nothing on an
/// unchanged project and gives the same report; a one-off session with the disk off leaves no
/// file behind; with the disk on, a matrix report keeps its cells on disk for the next process.
#[test]
fn a_report_session_keeps_what_it_says_and_writes_only_where_it_may() {
    use promptc::report::Session;
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    let project_dir = dir.path().join("profiles");
    common::copy_dir(&common::repo().join("profiles"), &project_dir);
    let project = promptc::load(&project_dir).unwrap();
    assert!(project.token_cache().is_some(), "the example names a token cache");
    let options = promptc::ReportOptions::new().matrix(true);
    let files = |d: &std::path::Path| common::tree(d).into_keys().collect::<Vec<_>>();
    let before = files(dir.path());

    let mut off = Session::once(false);
    let cold = off.report(&project, &Request::new(), &options, false).unwrap();
    assert_eq!(files(dir.path()), before, "a session with the disk off wrote a file");
    assert!(cold.token_cache.is_none() && cold.compile_cache.is_none());

    let mut kept = Session::kept(false);
    let first = kept.report(&project, &Request::new(), &options, false).unwrap();
    let cells = kept.compile_stats().compiled;
    assert!(cells > 1, "the matrix has cells");
    let again = kept.report(&project, &Request::new(), &options, false).unwrap();
    assert_eq!((kept.compile_stats().compiled, kept.compile_stats().reused), (0, cells));
    assert_eq!(first.report, again.report);
    assert_eq!(first.report, cold.report, "a cached report is the cold one");

    let mut disk = Session::once(true);
    let written = disk.report(&project, &Request::new(), &options, false).unwrap();
    assert_eq!(written.report, cold.report);
    assert_eq!(written.compile_cache.map(|s| s.compiled), Some(cells), "a cold disk cache compiles every cell");
    assert!(files(dir.path()).len() > before.len(), "the caches were not written");
    let next = Session::once(true).report(&project, &Request::new(), &options, false).unwrap();
    assert_eq!(next.compile_cache.map(|s| s.reused), Some(cells), "the next process reuses every cell");
    assert_eq!(next.report, cold.report);
}
