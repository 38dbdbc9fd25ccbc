//! Entry points for the fuzz targets under `fuzz/`: each takes arbitrary input and must return —
//! an error is fine, a panic, an abort, a hang or unbounded memory is a bug. Hidden from the
//! documentation but compiled in every build, so the test suite replays the fuzzers' seeds
//! through the same entry points (`tests/it/fuzz_seeds.rs`) in the build CI runs anyway; the
//! coverage-guided runs need a nightly toolchain (`scripts/fuzz.sh`).
//!
//! Templates are compiled and rendered on the stack promptc gives compiling
//! ([`on_compile_stack`](super::on_compile_stack)), as the commands and bindings do: the
//! instrumented build's frames are several times larger, and on libFuzzer's own stack a
//! recursion within the engine's limits overflowed it (a SIGSEGV the fuzzer could not report).

use std::path::Path;

/// A `when:` expression.
pub fn condition(text: &str) {
    if let Ok(c) = crate::model::condition::Condition::parse(text) {
        let _ = c.eval_with(&Default::default(), &Default::default());
        let _ = c.comparisons();
        let _ = c.switch_names();
    }
}

/// A manifest's YAML, parsed into the raw manifest types (the loader's first step).
pub fn manifest_yaml(text: &str) {
    let _ = crate::source::yaml::parse_str::<crate::format::manifest::RawManifest>(text, "promptc.yaml");
}

/// With `PROMPTC_FUZZ_LAST=FILE`, write each input to FILE before running it: a process that
/// dies where libFuzzer cannot report it (a stack overflow kills it before its handler can save
/// the input) leaves the input that killed it there.
fn remember(input: &[u8]) {
    static LAST: std::sync::OnceLock<Option<std::ffi::OsString>> = std::sync::OnceLock::new();
    if let Some(path) = LAST.get_or_init(|| std::env::var_os("PROMPTC_FUZZ_LAST")) {
        let _ = std::fs::write(path, input);
    }
}

/// A template source: the guard, then compiling and rendering it in a project's
/// environment with an empty context.
pub fn template(text: &str) {
    remember(text.as_bytes());
    let _ = super::on_compile_stack(|| {
        template_here(text);
        Ok(())
    });
}

fn template_here(text: &str) {
    if promptc_template::guard_check(text, Default::default()).is_err() {
        return;
    }
    // One empty project folder for every run: includes find nothing in it.
    static DIR: std::sync::OnceLock<Option<tempfile::TempDir>> = std::sync::OnceLock::new();
    let Some(dir) = DIR.get_or_init(|| tempfile::tempdir().ok()) else { return };
    let Ok(fs) = crate::source::ProjectFs::new(dir.path(), dir.path()) else { return };
    let mut t = promptc_template::Templates::new(fs, crate::model::Limits::default(), Default::default(), Vec::new());
    let origin = promptc_template::TemplateOrigin {
        file: crate::source::SourceFile::new("t", "t", text),
        line_offset: 0,
        column_offset: 0,
    };
    if t.add("t", text, origin).is_ok() {
        let ctx = promptc_template::Value::from_serialize(serde_json::json!({"x": "value", "items": ["a", "b"]}));
        let _ = t.render("t", &ctx, 1 << 20);
    }
}

/// Several template files (name → text, written into a temporary project folder): the first is
/// compiled in a project's environment and rendered with a small context; it reaches the others
/// through `include`, `import` and `from … import`, each passing the guard as it is loaded.
pub fn template_files(files: &[(String, String)]) {
    remember(format!("{files:?}").as_bytes());
    let _ = super::on_compile_stack(|| {
        template_files_here(files);
        Ok(())
    });
}

fn template_files_here(files: &[(String, String)]) {
    let Some((main_name, main_text)) = files.first() else { return };
    if promptc_template::guard_check(main_text, Default::default()).is_err() {
        return;
    }
    let Ok(dir) = tempfile::tempdir() else { return };
    for (name, text) in &files[1..] {
        // Plain names only (the generator's): a path is not what this target explores.
        if name.contains(['/', '\\']) || name.starts_with('.') {
            continue;
        }
        if std::fs::write(dir.path().join(name), text).is_err() {
            return;
        }
    }
    let Ok(fs) = crate::source::ProjectFs::new(dir.path(), dir.path()) else { return };
    let mut t = promptc_template::Templates::new(fs, crate::model::Limits::default(), Default::default(), Vec::new());
    let origin = promptc_template::TemplateOrigin {
        file: crate::source::SourceFile::new(main_name.clone(), main_name.clone(), main_text.clone()),
        line_offset: 0,
        column_offset: 0,
    };
    if t.add(main_name, main_text, origin).is_ok() {
        let ctx = promptc_template::Value::from_serialize(serde_json::json!({
            "x": "value", "items": ["a", "b", "c"], "n": 3, "cfg": {"k": "v", "deep": {"list": [1, 2]}},
        }));
        let _ = t.render(main_name, &ctx, crate::model::Limits::default().section_bytes);
    }
}

/// A chat template source, rendered as transformers would with a small conversation.
pub fn chat_template(text: &str) {
    let _ = super::on_compile_stack(|| {
        chat_template_here(text);
        Ok(())
    });
}

fn chat_template_here(text: &str) {
    crate::chat::fuzz_render(text);
}

/// A frozen record's bytes, read and verified against `project`.
pub fn record(bytes: &[u8], project: &crate::model::Project) {
    let Ok(dir) = tempfile::tempdir() else { return };
    let path = dir.path().join("record.json");
    if std::fs::write(&path, bytes).is_err() {
        return;
    }
    if let Ok(rec) = crate::output::freeze::read(&path) {
        let _ = crate::output::freeze::verify(project, &rec);
    }
}

/// A whole project from in-memory files (name → text, written into a temporary folder):
/// loaded, then every cell of its matrix compiled and linted.
pub fn project(files: &[(String, String)]) {
    let _ = super::on_compile_stack(|| {
        project_here(files);
        Ok(())
    });
}

fn project_here(files: &[(String, String)]) {
    let Ok(dir) = tempfile::tempdir() else { return };
    for (name, text) in files {
        let Ok(rel) = crate::source::ProjectFs::new(dir.path(), dir.path()).and_then(|fs| {
            fs.normalize(name).map_err(|_| crate::error::Error::usage(crate::diagnostic::Diagnostic::error("bad name")))
        }) else {
            continue;
        };
        let p = dir.path().join(rel);
        if let Some(parent) = p.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        let _ = std::fs::write(p, text);
    }
    let Ok(project) = crate::load(Path::new(dir.path())) else { return };
    let _ = crate::output::snapshot::Matrix::render(&project);
    let mut counters = crate::measure::tokens::Counters::new(None);
    let _ = crate::lint::check(&project, &[], &mut counters);
}

/// Any text counts the same by chunks as whole with o200k_base (see `measure::tokens`): a
/// difference is a panic, which the fuzzer reports.
pub fn chunked_count(text: &str) {
    crate::measure::tokens::check_chunked_count(text);
}
