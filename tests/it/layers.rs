//! The library's layers follow the data, and each module imports only from the layers before
//! it (ARCHITECTURE.md draws the map). This test reads every source file of the library and
//! fails when a `crate::…` path reaches into a later layer, or across two layers of the same
//! rank (`lint`, `diff` and `import` stand side by side and never use each other).

use crate::common;

use std::path::Path;

/// The layers in import order: a module may use its own layer and every layer listed before.
/// Names are the first component of the module path (`crate::model::catalog` → `model`).
const LAYERS: &[&[&str]] = &[
    &["code", "diagnostic", "error", "hash", "json"], // foundation: may use each other
    &["source"],
    &["model"],
    &["load"],
    &["resolve"],
    &["render"],
    &["projection"],
    &["compile"],
    &["measure"],
    &["output"],
    &["lint", "diff", "import"], // side by side: none uses another
    &["facade"],
];

fn rank(layer: &str) -> Option<usize> {
    LAYERS.iter().position(|names| names.contains(&layer))
}

/// The layer a source file belongs to: its first path component under `src/`.
fn layer_of(rel: &Path) -> String {
    let first = rel.components().next().map(|c| c.as_os_str().to_string_lossy().into_owned()).unwrap_or_default();
    first.trim_end_matches(".rs").to_string()
}

/// Every `crate::NAME` in the code of `text` (comments left out).
fn crate_paths(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let after = &rest[at + "crate::".len()..];
            let name: String = after.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            // `crate::{a, b}` groups: each name counts.
            if name.is_empty() && after.starts_with('{') {
                let group = after[1..].split('}').next().unwrap_or("");
                for item in group.split(',') {
                    let n: String =
                        item.trim().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                    if !n.is_empty() {
                        out.push((i + 1, n));
                    }
                }
            } else if !name.is_empty() {
                out.push((i + 1, name));
            }
            rest = after;
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn no_module_imports_against_the_layer_order() {
    let src = common::repo().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut violations = Vec::new();
    let mut checked = 0;
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap();
        let layer = layer_of(rel);
        // The binary (main.rs, cli/) is another crate: it uses the library through `promptc::`.
        if layer == "main" || layer == "cli" || layer == "lib" {
            continue;
        }
        let Some(own) = rank(&layer) else {
            violations.push(format!(
                "{}: module `{layer}` is in no layer; add it to LAYERS and ARCHITECTURE.md",
                rel.display()
            ));
            continue;
        };
        let text = std::fs::read_to_string(f).unwrap();
        for (line, target) in crate_paths(&text) {
            checked += 1;
            let Some(theirs) = rank(&target) else {
                violations.push(format!("{}:{line}: `crate::{target}` is in no layer", rel.display()));
                continue;
            };
            let cross = theirs == own && target != layer && own != 0;
            if theirs > own || cross {
                violations.push(format!(
                    "{}:{line}: `{layer}` uses `crate::{target}`, a later or sibling layer",
                    rel.display()
                ));
            }
        }
    }
    assert!(checked > 200, "the scan found only {checked} crate paths: is it still reading the sources?");
    assert!(violations.is_empty(), "imports against the layer order:\n{}", violations.join("\n"));
}

#[test]
fn the_scanner_sees_paths_and_groups() {
    let found = crate_paths(
        "use crate::model::Project;\nuse crate::{code, json}; // crate::lint\nlet x = crate::hash::sha256_hex(b);",
    );
    let names: Vec<&str> = found.iter().map(|(_, n)| n.as_str()).collect();
    assert_eq!(names, ["model", "code", "json", "hash"]);
    assert_eq!(rank("model"), Some(2));
    assert!(rank("lint") == rank("diff"));
}
