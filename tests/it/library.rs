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
