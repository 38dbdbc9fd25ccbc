//! The compile cache (`promptc::CompileCache`): a re-run gives the report a cold run gives,
//! byte for byte, and recompiles exactly the cells an edit reached.

use std::path::Path;

use promptc::{CompileCache, ReportOptions, Request, TokenCounter, Tokenizer};

use crate::common::{copy_dir, repo};

fn counter() -> TokenCounter {
    TokenCounter::new(Tokenizer::Exact(promptc::Encoding::O200kBase))
}

fn matrix() -> ReportOptions {
    ReportOptions::new().matrix(true)
}

/// The report as `report --matrix --format json` prints it.
fn json(report: &promptc::Report) -> String {
    use promptc::report::{render_matrix, Format, View};
    render_matrix(&report.accounts, Format::Json, View::new())
}

fn cold(dir: &Path) -> promptc::Report {
    let project = promptc::load(dir).unwrap();
    promptc::report(&project, &Request::new(), &matrix(), &mut counter()).unwrap()
}

fn copy_of_example() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo().join("profiles"), dir.path());
    dir
}

#[test]
fn a_rerun_from_the_cache_is_the_cold_report_byte_for_byte() {
    let dir = copy_of_example();
    let expected = cold(dir.path());
    let (mut tokens, mut cache) = (counter(), CompileCache::new());
    for run in 0..3 {
        // Reloaded every time, as `watch` does.
        let project = promptc::load(dir.path()).unwrap();
        let report = promptc::report_cached(&project, &Request::new(), &matrix(), &mut tokens, &mut cache).unwrap();
        assert_eq!(report, expected, "run {run}");
        assert_eq!(json(&report), json(&expected));
        let cells = promptc::matrix(&project).len();
        let stats = cache.stats();
        if run == 0 {
            assert_eq!((stats.compiled, stats.reused), (cells, 0));
        } else {
            assert_eq!((stats.compiled, stats.reused), (0, cells), "run {run}: every cell found again");
            assert_eq!(stats.tool_parts_prepared, 0, "no tools projected again");
        }
    }
}

#[test]
fn an_edit_recompiles_exactly_the_cells_it_reached() {
    let dir = copy_of_example();
    let (mut tokens, mut cache) = (counter(), CompileCache::new());
    let before = promptc::load(dir.path()).unwrap();
    promptc::report_cached(&before, &Request::new(), &matrix(), &mut tokens, &mut cache).unwrap();
    // The cells whose prompt the edit changes, found without the cache.
    let prompts = |p: &promptc::Project| -> Vec<String> {
        promptc::matrix(p).iter().map(|c| promptc::compile(p, &c.request).unwrap().prompt().to_string()).collect()
    };
    let old = prompts(&before);
    let file = dir.path().join("sections/mcp_servers.md.j2");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, format!("{text}\nOne more line about MCP servers.\n")).unwrap();
    let after = promptc::load(dir.path()).unwrap();
    let reached = old.iter().zip(prompts(&after)).filter(|(a, b)| *a != b).count();
    let cells = old.len();
    assert!(0 < reached && reached < cells, "the edit reaches some cells, not all: {reached} of {cells}");
    let report = promptc::report_cached(&after, &Request::new(), &matrix(), &mut tokens, &mut cache).unwrap();
    assert_eq!(report, cold(dir.path()), "the cold report of the edited project");
    let stats = cache.stats();
    assert_eq!((stats.compiled, stats.reused), (reached, cells - reached));
    // The tools did not change: no provider's part of them is projected again.
    assert_eq!(stats.tool_parts_prepared, 0);
    // A tool file is read by every cell: all are recompiled, and the changed tool projected.
    let tools = dir.path().join("tools/files.yaml");
    let text = std::fs::read_to_string(&tools).unwrap();
    std::fs::write(
        &tools,
        text.replacen("    Read the contents of a file", "    Read, in full, the contents of a file", 1),
    )
    .unwrap();
    let edited = promptc::load(dir.path()).unwrap();
    let report = promptc::report_cached(&edited, &Request::new(), &matrix(), &mut tokens, &mut cache).unwrap();
    assert_eq!(report, cold(dir.path()));
    assert_eq!((cache.stats().compiled, cache.stats().reused), (cells, 0));
    assert!(cache.stats().tool_parts_prepared > 0);
}

#[test]
fn a_run_counted_otherwise_is_not_answered_from_the_cache() {
    let dir = copy_of_example();
    let project = promptc::load(dir.path()).unwrap();
    let (mut tokens, mut cache) = (counter(), CompileCache::new());
    promptc::report_cached(&project, &Request::new(), &matrix(), &mut tokens, &mut cache).unwrap();
    let forced = matrix().tokenizer(Some(promptc::tokenizer_named(&project, "cl100k_base").unwrap()));
    let report = promptc::report_cached(&project, &Request::new(), &forced, &mut tokens, &mut cache).unwrap();
    assert_eq!(cache.stats().reused, 0, "another tokenizer is another key");
    assert_eq!(report, promptc::report(&project, &Request::new(), &forced, &mut counter()).unwrap());
    let model = Request::new().model("gpt-4o");
    let report = promptc::report_cached(&project, &model, &matrix(), &mut tokens, &mut cache).unwrap();
    assert_eq!(cache.stats().reused, 0, "another model is another key");
    assert_eq!(report, promptc::report(&project, &model, &matrix(), &mut counter()).unwrap());
}

#[test]
fn a_project_whose_templates_include_files_is_never_cached() {
    let dir = copy_of_example();
    let role = dir.path().join("sections/role.md.j2");
    let text = std::fs::read_to_string(&role).unwrap();
    std::fs::write(dir.path().join("sections/extra.md"), "Included text.\n").unwrap();
    std::fs::write(&role, format!("{text}\n{{% include \"sections/extra.md\" %}}\n")).unwrap();
    let (mut tokens, mut cache) = (counter(), CompileCache::new());
    let project = promptc::load(dir.path()).unwrap();
    let cells = promptc::matrix(&project).len();
    promptc::report_cached(&project, &Request::new(), &matrix(), &mut tokens, &mut cache).unwrap();
    // The included file is read by no list the cache could check: an edit to it must show.
    std::fs::write(dir.path().join("sections/extra.md"), "Included text, edited.\n").unwrap();
    let project = promptc::load(dir.path()).unwrap();
    let report = promptc::report_cached(&project, &Request::new(), &matrix(), &mut tokens, &mut cache).unwrap();
    assert_eq!((cache.stats().compiled, cache.stats().reused), (cells, 0));
    assert_eq!(report, cold(dir.path()));
}

#[test]
fn a_copy_of_the_project_elsewhere_is_not_answered_from_the_cache() {
    let (a, b) = (copy_of_example(), copy_of_example());
    let (mut tokens, mut cache) = (counter(), CompileCache::new());
    let project = promptc::load(a.path()).unwrap();
    promptc::report_cached(&project, &Request::new(), &matrix(), &mut tokens, &mut cache).unwrap();
    // The same files in another folder: its warnings and labels name other paths.
    let project = promptc::load(b.path()).unwrap();
    promptc::report_cached(&project, &Request::new(), &matrix(), &mut tokens, &mut cache).unwrap();
    assert_eq!(cache.stats().reused, 0);
}

/// Every good fixture (and the example), its token cache turned on: a second process — here a
/// second `CompileCache::for_project` — takes every cell from the file the first one saved, and
/// its report is the cold report, accounts, shares and warnings (codes, labels, snippets) alike.
#[test]
fn the_cache_on_disk_gives_every_fixture_its_cold_report() {
    let mut fixtures: Vec<_> =
        std::fs::read_dir(repo().join("fixtures/good")).unwrap().map(|e| e.unwrap().path()).collect();
    fixtures.push(repo().join("profiles"));
    fixtures.sort();
    let mut tried = 0;
    for fixture in fixtures {
        let dir = tempfile::tempdir().unwrap();
        copy_dir(&fixture, dir.path());
        let manifest = dir.path().join("promptc.yaml");
        let Ok(text) = std::fs::read_to_string(&manifest) else { continue };
        if !text.contains("\ntokens:") {
            std::fs::write(&manifest, format!("{text}\ntokens:\n  cache: .cache/tokens.json\n")).unwrap();
        }
        let Ok(project) = promptc::load(dir.path()) else { continue };
        let Ok(expected) = promptc::report(&project, &Request::new(), &matrix(), &mut counter()) else { continue };
        let cells = promptc::matrix(&project).len();
        let mut first = CompileCache::for_project(&project, true);
        assert!(first.on_disk());
        promptc::report_cached(&project, &Request::new(), &matrix(), &mut counter(), &mut first).unwrap();
        first.save();
        assert!(first.warnings().is_empty(), "{}: {:?}", fixture.display(), first.warnings());
        let project = promptc::load(dir.path()).unwrap();
        let mut second = CompileCache::for_project(&project, true);
        let report = promptc::report_cached(&project, &Request::new(), &matrix(), &mut counter(), &mut second).unwrap();
        let stats = second.stats();
        // A project whose templates pull in files is never cached.
        if stats.compiled == 0 {
            assert_eq!(stats.reused, cells, "{}", fixture.display());
            tried += 1;
        }
        assert_eq!(report, expected, "{}", fixture.display());
        assert_eq!(json(&report), json(&expected), "{}", fixture.display());
        // `cache: false` neither reads nor writes.
        assert!(!CompileCache::for_project(&project, false).on_disk());
    }
    assert!(tried >= 20, "only {tried} fixtures were taken from the cache");
}
