//! The library's layers follow the data, and each module imports only from the layers before
//! it (ARCHITECTURE.md draws the map). This test reads the library as the compiler does —
//! from `crates/promptc/src/lib.rs`, following `mod` declarations (and `#[path]`) with a real Rust parser —
//! and fails when any path reaches into a later layer, or across two layers of the same rank
//! (`lint`, `diff` and `import` stand side by side and never use each other).
//!
//! Every form counts: `use` trees with groups at any depth, `crate::`, `super::` (resolved
//! against the module it is written in: `super` in `model/mod.rs` is the crate root) and
//! `self::` paths, paths in expressions, types, patterns and attributes, and paths inside
//! macro invocations (read from their tokens). Comments and string literals are not code, so
//! they never hide or invent a path. `fixtures/layers/` holds small crates with the shapes a
//! line-based scanner missed; the test proves this one rejects each of them. (Findings name
//! the file and the path, not a line: line numbers would need `proc-macro2`'s `span-locations`,
//! which would compile the derives a second time for the tests.)

use crate::common;

use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

/// The layers in import order: a module may use its own layer and every layer listed before.
/// Names are the first component of the module path (`crate::model::catalog` → `model`).
const LAYERS: &[&[&str]] = &[
    &["code", "diagnostic", "error", "hash", "json"], // foundation: may use each other
    &["source"],
    &["model"],
    &["format"],
    &["load"],
    &["resolve"],
    &["render"],
    &["projection"],
    &["compile"],
    &["chat"],
    &["measure"],
    &["memo"],
    &["output"],
    &["lint", "diff", "import"], // side by side: none uses another
    &["facade"],
];

fn rank(layer: &str) -> Option<usize> {
    LAYERS.iter().position(|names| names.contains(&layer))
}

/// One path found in the code: the module it is written in, and where it points, both as
/// absolute module paths from the crate root.
#[derive(Debug)]
struct Use {
    file: PathBuf,
    from: Vec<String>,
    to: Vec<String>,
}

/// Reads a crate from its root file, module by module, collecting every path that names a
/// module of the crate.
struct Reader {
    uses: Vec<Use>,
    errors: Vec<String>,
    /// Every file read, so a test can tell that the whole tree was.
    files: Vec<PathBuf>,
}

impl Reader {
    /// Parse `file`, the module at `module`, whose `mod x;` children live in `child_dir`.
    fn module_file(&mut self, file: &Path, module: Vec<String>, child_dir: PathBuf) {
        self.files.push(file.to_path_buf());
        let text = match std::fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) => return self.errors.push(format!("{}: {e}", file.display())),
        };
        let ast = match syn::parse_file(&text) {
            Ok(a) => a,
            Err(e) => return self.errors.push(format!("{}: does not parse: {e}", file.display())),
        };
        let mut visitor = ModuleVisitor { reader: self, file, module, child_dir, inline: 0, found: Vec::new() };
        visitor.visit_file(&ast);
        let ModuleVisitor { found, file, .. } = visitor;
        let file = file.to_path_buf();
        for (from, to) in found {
            self.uses.push(Use { file: file.clone(), from, to });
        }
    }
}

struct ModuleVisitor<'r, 'f> {
    reader: &'r mut Reader,
    file: &'f Path,
    /// The module being read (grows inside inline `mod x { … }`).
    module: Vec<String>,
    /// Where `mod x;` finds `x.rs` or `x/mod.rs` for the current module.
    child_dir: PathBuf,
    /// How many inline `mod x { … }` blocks deep the reader is: `#[path]` outside them is
    /// relative to the file's own folder, inside them to the module's folder (the Reference).
    inline: usize,
    found: Vec<(Vec<String>, Vec<String>)>,
}

impl ModuleVisitor<'_, '_> {
    /// Record a path given as its segments. Only paths anchored in the
    /// crate (`crate`, `super`, `self`) are resolved; others name std, a dependency or a local
    /// item, none of which is a layer of this crate.
    fn record(&mut self, segments: &[String]) {
        let Some(target) = self.resolve(segments) else { return };
        if segments.len() == 1 {
            return; // `pub(crate)`, `self.x`: the crate or the module itself, no layer named
        }
        self.found.push((self.module.clone(), target));
    }

    /// The absolute module path `segments` names, for paths anchored in the crate.
    fn resolve(&mut self, segments: &[String]) -> Option<Vec<String>> {
        let first = segments.first()?;
        let mut target = match first.as_str() {
            "crate" => Vec::new(),
            "self" | "super" => self.module.clone(),
            _ => return None,
        };
        let mut rest = segments;
        if first == "crate" || first == "self" {
            rest = &rest[1..];
        }
        while rest.first().is_some_and(|s| s == "super") {
            if target.pop().is_none() {
                self.reader.errors.push(format!("{}: `super` above the crate root", self.file.display()));
                return None;
            }
            rest = &rest[1..];
        }
        target.extend(rest.iter().cloned());
        Some(target)
    }

    /// A glob or an alias of the crate root outside `lib.rs` would reach every layer through
    /// its re-exports (or a name no path check sees): refused outright.
    fn crate_root_use(&mut self, segments: &[String], what: &str) {
        if !self.module.is_empty() && self.resolve(segments).is_some_and(|t| t.is_empty()) {
            let module = self.module.join("::");
            self.reader.errors.push(format!("{}: `{module}` uses {what} of the crate root", self.file.display()));
        }
    }

    /// `use` trees, flattened: `use crate::{a::{b, c}, d}` is three paths.
    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => self.use_leaf(prefix, &n.ident),
            syn::UseTree::Rename(r) => {
                let mut path = prefix.clone();
                path.push(r.ident.to_string());
                self.crate_root_use(&path, "an alias");
                self.use_leaf(prefix, &r.ident)
            }
            syn::UseTree::Glob(_) => {
                self.crate_root_use(&prefix.clone(), "a glob");
                self.record(&prefix.clone());
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t);
                }
            }
        }
    }

    fn use_leaf(&mut self, prefix: &[String], ident: &syn::Ident) {
        let mut path = prefix.to_vec();
        // `use super::{self, x}`: `self` names the prefix itself.
        if ident != "self" {
            path.push(ident.to_string());
        }
        self.record(&path);
    }

    /// Paths inside a macro's tokens (`format!("{}", crate::json::x())`, `macro_rules!`
    /// bodies): every `crate`/`super`/`self` followed by `::` and names.
    fn tokens(&mut self, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < trees.len() {
            match &trees[i] {
                TokenTree::Group(g) => self.tokens(g.stream()),
                TokenTree::Ident(id) if id == "crate" || id == "super" || id == "self" => {
                    let mut segments = vec![id.to_string()];
                    let mut j = i + 1;
                    while let (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)), Some(TokenTree::Ident(next))) =
                        (trees.get(j), trees.get(j + 1), trees.get(j + 2))
                    {
                        if a.as_char() != ':' || b.as_char() != ':' {
                            break;
                        }
                        segments.push(next.to_string());
                        j += 3;
                    }
                    if segments.len() > 1 {
                        self.record(&segments);
                    }
                    i = j.max(i + 1);
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
    }
}

/// `#[path = "…"]` on a module declaration.
fn path_attribute(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| match &a.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

impl<'ast> Visit<'ast> for ModuleVisitor<'_, '_> {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        let name = m.ident.to_string();
        match &m.content {
            Some((_, items)) => {
                for a in &m.attrs {
                    self.visit_attribute(a);
                }
                self.module.push(name.clone());
                self.inline += 1;
                let inner_dir = self.child_dir.join(&name);
                let outer_dir = std::mem::replace(&mut self.child_dir, inner_dir);
                for item in items {
                    self.visit_item(item);
                }
                self.child_dir = outer_dir;
                self.inline -= 1;
                self.module.pop();
            }
            None => {
                let mut module = self.module.clone();
                module.push(name.clone());
                let (file, child_dir) = match path_attribute(&m.attrs) {
                    Some(p) => {
                        let base = match self.inline {
                            0 => self.file.parent().map(Path::to_path_buf).unwrap_or_default(),
                            _ => self.child_dir.clone(),
                        };
                        let file = base.join(p);
                        let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
                        (file, dir)
                    }
                    None if self.child_dir.join(format!("{name}.rs")).is_file() => {
                        (self.child_dir.join(format!("{name}.rs")), self.child_dir.join(&name))
                    }
                    None => (self.child_dir.join(&name).join("mod.rs"), self.child_dir.join(&name)),
                };
                self.reader.module_file(&file, module, child_dir);
            }
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        for a in &u.attrs {
            self.visit_attribute(a);
        }
        let mut prefix = Vec::new();
        if u.leading_colon.is_some() {
            return; // `::name` is an external crate
        }
        self.use_tree(&mut prefix, &u.tree);
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        if p.leading_colon.is_none() {
            let segments: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
            self.record(&segments);
        }
        syn::visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.visit_path(&m.path);
        self.tokens(m.tokens.clone());
    }
}

/// Every use against the layer order in the crate whose root is `lib`, how many crate paths
/// were checked, and the files read.
fn violations(lib: &Path) -> (Vec<String>, usize, Vec<PathBuf>) {
    let mut reader = Reader { uses: Vec::new(), errors: Vec::new(), files: Vec::new() };
    let dir = lib.parent().unwrap().to_path_buf();
    reader.module_file(lib, Vec::new(), dir.clone());
    let prefix = format!("{}/", dir.display());
    let mut out: Vec<String> = reader.errors.iter().map(|e| e.replacen(&prefix, "", 1)).collect();
    let mut checked = 0;
    for u in &reader.uses {
        let rel = u.file.strip_prefix(&dir).unwrap_or(&u.file).display().to_string();
        // The crate root and its inline public modules re-export the layers: they are the
        // facade's other half.
        if u.file == lib {
            continue;
        }
        let Some(layer) = u.from.first() else { continue };
        let Some(target) = u.to.first() else {
            out.push(format!("{rel}: a path to the crate root itself"));
            continue;
        };
        checked += 1;
        let (Some(own), Some(theirs)) = (rank(layer), rank(target)) else {
            let missing = if rank(layer).is_none() { layer } else { target };
            out.push(format!("{rel}: module `{missing}` is in no layer; add it to LAYERS and ARCHITECTURE.md"));
            continue;
        };
        let sibling = theirs == own && target != layer && own != 0;
        if theirs > own || sibling {
            out.push(format!("{rel}: `{}` uses `{}`, a later or sibling layer", u.from.join("::"), u.to.join("::")));
        }
    }
    out.sort();
    out.dedup();
    (out, checked, reader.files)
}

#[test]
fn no_module_imports_against_the_layer_order() {
    let src = common::repo().join("crates/promptc/src");
    let (found, checked, mut read) = violations(&src.join("lib.rs"));
    // The reader follows `mod` declarations: it must reach every library file.
    let mut all = Vec::new();
    rust_files(&src, &mut all);
    all.sort();
    read.sort();
    assert_eq!(read, all, "the files the reader reached are not the library's files");
    assert!(checked > 800, "the reader found only {checked} crate paths: is it still reading the sources?");
    assert!(found.is_empty(), "imports against the layer order:\n{}", found.join("\n"));
}

/// Each fixture crate under `fixtures/layers/` hides one back-edge in a shape a line-based
/// scanner missed; the reader must find exactly that one.
#[test]
fn the_reader_rejects_every_hidden_back_edge() {
    let root = common::repo().join("fixtures/layers");
    let cases = [
        ("super-at-crate-root", "model/mod.rs:", "`model` uses `facade::Facade`"),
        ("multi-line-group", "model/mod.rs:", "`model` uses `compile::Compiled`"),
        ("path-after-string-with-slashes", "model/mod.rs:", "`model` uses `output::write`"),
        ("path-in-macro", "model/mod.rs:", "`model` uses `lint::check`"),
        ("sibling-layers", "diff/mod.rs:", "`diff` uses `lint::check`"),
        ("path-attribute", "model_helpers.rs:", "`model::helpers` uses `measure::count`"),
        ("glob-of-crate-root", "model/mod.rs:", "`model` uses a glob of the crate root"),
        ("alias-of-crate-root", "model/mod.rs:", "`model` uses an alias of the crate root"),
    ];
    for (name, file, message) in cases {
        let (found, _, _) = violations(&root.join(name).join("src/lib.rs"));
        assert_eq!(found.len(), 1, "{name}: expected one violation, found {found:#?}");
        assert!(found[0].starts_with(file) && found[0].contains(message), "{name}: {}", found[0]);
    }
    let (clean, checked, _) = violations(&root.join("clean/src/lib.rs"));
    assert!(clean.is_empty() && checked >= 4, "the clean fixture: {clean:#?} ({checked} paths)");
}

#[test]
fn layers_are_ranked() {
    assert_eq!(rank("model"), Some(2));
    assert!(rank("lint") == rank("diff"));
    assert_eq!(rank("cli"), None);
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// ARCHITECTURE.md is the map: every path it names in backticks (anything with a `/`, or a file
/// name with a source extension) exists, from the repository's root, the library's `src/` or the
/// command line's `src/`. A moved or deleted file fails here until the map follows.
#[test]
fn every_path_the_architecture_names_exists() {
    let repo = common::repo();
    let text = std::fs::read_to_string(repo.join("ARCHITECTURE.md")).unwrap();
    let bases = [repo.clone(), repo.join("crates/promptc/src"), repo.join("src")];
    let is_path =
        |t: &str| t.contains('/') || [".rs", ".md", ".toml", ".py", ".sh", ".js"].iter().any(|e| t.ends_with(e));
    let mut named = 0;
    let mut missing = Vec::new();
    for token in text.split('`').skip(1).step_by(2) {
        if token.contains(char::is_whitespace) || !is_path(token) {
            continue;
        }
        named += 1;
        if !bases.iter().any(|b| b.join(token).exists()) {
            missing.push(token.to_string());
        }
    }
    assert!(named > 40, "found only {named} paths: is the map still read?");
    assert!(missing.is_empty(), "ARCHITECTURE.md names paths that do not exist: {missing:?}");
}

/// The template engine is one crate: only `crates/promptc-template` depends on the patched
/// minijinja, and no other crate's source names it, so a change to template behaviour has one
/// home.
#[test]
fn only_the_template_crate_uses_minijinja() {
    let repo = common::repo();
    let manifests = ["Cargo.toml", "crates/promptc/Cargo.toml", "crates/promptc-source/Cargo.toml"]
        .into_iter()
        .chain(["bindings/python/Cargo.toml", "bindings/node/Cargo.toml"]);
    for manifest in manifests {
        let text = std::fs::read_to_string(repo.join(manifest)).unwrap();
        // Only the dependency tables: a profile may name the engine (its opt-level).
        let mut table = String::new();
        for line in text.lines() {
            if line.starts_with('[') {
                table = line.to_string();
            } else if table.contains("dependencies") {
                assert!(!line.contains("promptc-minijinja"), "{manifest} depends on minijinja: {line}");
            }
        }
        assert!(text.contains("[dependencies]"), "{manifest}: no dependency table");
    }
    let engine = std::fs::read_to_string(repo.join("crates/promptc-template/Cargo.toml")).unwrap();
    assert!(engine.contains("promptc-minijinja"), "the template crate no longer names the engine");
    let mut files = Vec::new();
    for dir in ["src", "crates/promptc/src", "crates/promptc-source/src", "bindings/python/src", "bindings/node/src"] {
        rust_files(&repo.join(dir), &mut files);
    }
    assert!(files.len() > 200, "found only {} source files", files.len());
    let naming: Vec<_> = files
        .iter()
        .filter(|f| std::fs::read_to_string(f).unwrap().contains("minijinja::"))
        .map(|f| f.strip_prefix(&repo).unwrap().display().to_string())
        .collect();
    assert!(naming.is_empty(), "files outside the template crate name minijinja: {naming:?}");
}
