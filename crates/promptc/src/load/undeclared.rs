//! Static checks of templates at load time: every top-level name a template reads must be
//! defined by the context it will be rendered with.

use std::collections::{BTreeMap, BTreeSet};

use crate::diagnostic::{known_names_help, Diagnostic, Label};
use crate::error::Diagnostics;
use crate::load::MANIFEST;
use crate::source::SourceFile;
use promptc_template::reach::{Reach, Site};

/// The file a template's text lives in: inline templates are named `FILE#where`.
pub(super) fn templates_origin_file(
    files: &BTreeMap<String, SourceFile>,
    manifest: &SourceFile,
    name: &str,
) -> SourceFile {
    let file = name.split('#').next().unwrap_or(name);
    files.get(file).cloned().unwrap_or_else(|| manifest.clone())
}

/// An error when undefined values are (`strict`); with `templates.undefined: lenient` a
/// warning saying the name renders as nothing, as in Jinja2. Jinja2's `varargs` and `kwargs`
/// are always errors: minijinja's macros have neither, and a macro reading them would silently
/// print nothing.
fn undeclared(strict: bool, message: String, var: &str) -> Diagnostic {
    if var == "varargs" || var == "kwargs" {
        return Diagnostic::error(format!(
            "{message}: Jinja2 gives `{var}` to a macro called with more arguments than it declares; minijinja's \
             macros take only the parameters they declare"
        ))
        .with_note("a call with extra arguments is an error when it renders (\"too many arguments\")");
    }
    if strict {
        Diagnostic::error(message)
    } else {
        Diagnostic::warning(format!(
            "{message}: it is undefined and renders as nothing (`templates.undefined: lenient`)"
        ))
    }
}

/// The help for an undeclared name: `otherwise`, or for `varargs`/`kwargs` how to do without.
fn undeclared_help(var: &str, otherwise: &str) -> String {
    match var {
        "varargs" => {
            "declare every parameter the macro takes, with defaults for optional ones (`{% macro m(a, b=none, \
                      c=none) %}`), or pass a list (`m([1, 2, 3])`)"
                .to_string()
        }
        "kwargs" => {
            "declare every keyword the macro takes, with a default (`{% macro m(a, title=none) %}`), or pass a \
                     dict (`m(1, {'x': 2})`)"
                .to_string()
        }
        _ => otherwise.to_string(),
    }
}

/// Report every top-level name a template reads that the context will not define (errors when
/// `strict`, else warnings).
pub(super) fn check_undeclared(
    diags: &mut Diagnostics,
    file: &SourceFile,
    name: &str,
    used: &BTreeSet<String>,
    known: &BTreeSet<String>,
    strict: bool,
) {
    for var in used.difference(known) {
        let label = find_identifier(&file.text, var)
            .map(|(s, e)| file.label_bytes(s, e))
            .unwrap_or_else(|| Label::file(&file.display));
        let known_list: Vec<&str> = known.iter().map(String::as_str).collect();
        let mut d = undeclared(strict, format!("template `{name}` uses undefined variable `{var}`"), var)
            .with_label(label)
            .with_help(undeclared_help(
                var,
                &format!(
                    "declare it under `variables:` in {MANIFEST}, or use a built-in; {}",
                    known_names_help("name", var, &known_list)
                ),
            ));
        if var == "sections" || var == "body" {
            d = d.with_note("`sections` and `body` exist only in the layout template");
        }
        // Only a templated tool's texts go without these: they are what the tools are made of.
        if matches!(var.as_str(), "tools" | "tool_names" | "toolsets") {
            d = d.with_note("a templated tool's texts see the cell's variables and switches, not the tools");
        }
        diags.push(d);
    }
}

/// Report every top-level name a file pulled in by template `name` (through `{% include %}`,
/// `{% import %}`, `{% from %}`, `{% extends %}`) reads that the context will not define,
/// located in that file; `reported` keeps a file's name from being reported once per template
/// that includes it.
pub(super) fn check_undeclared_in_files(
    diags: &mut Diagnostics,
    name: &str,
    reach: &Reach,
    globals: &BTreeSet<String>,
    known: &BTreeSet<String>,
    reported: &mut BTreeSet<(String, String)>,
    strict: bool,
) {
    for (var, site) in &reach.names {
        let Site::File { rel, start, end } = site else { continue };
        if known.contains(var) || globals.contains(var) || !reported.insert((rel.clone(), var.clone())) {
            continue;
        }
        let Some(file) = reach.files.get(rel) else { continue };
        let known_list: Vec<&str> = known.iter().map(String::as_str).collect();
        let mut d =
            undeclared(strict, format!("`{rel}`, included by template `{name}`, uses undefined variable `{var}`"), var)
                .with_label(file.label_bytes(*start, *end))
                .with_help(undeclared_help(
                    var,
                    &format!(
                        "declare it under `variables:` in {MANIFEST}, use a built-in, or define it before the include \
                 (`{{% set %}}`, `{{% with %}}`); {}",
                        known_names_help("name", var, &known_list)
                    ),
                ));
        if var == "sections" || var == "body" {
            d = d.with_note("`sections` and `body` exist only in the layout template");
        }
        diags.push(d);
    }
}

/// Byte range of the first whole-word occurrence of `ident` inside a `{{ }}`/`{% %}` tag.
pub(super) fn find_identifier(text: &str, ident: &str) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(i) = text[from..].find(ident) {
        let start = from + i;
        let end = start + ident.len();
        let before_ok = start == 0
            || !(bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_' || bytes[start - 1] == b'.');
        let after_ok = end >= bytes.len() || !(bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_');
        let in_tag = text[..start].rfind("{{").max(text[..start].rfind("{%"))
            > text[..start].rfind("}}").max(text[..start].rfind("%}"));
        if before_ok && after_ok && in_tag {
            return Some((start, end));
        }
        from = end;
    }
    None
}
