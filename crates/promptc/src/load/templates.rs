//! Templates the manifest names: template files, inline text (compiled with its place in the
//! file, so errors point into it), `layout:` and `tool_docs:`.

use std::collections::BTreeMap;

use serde_saphyr::{Location, Spanned};

use crate::format::manifest::{RawTemplateText, RawToolDocs};
use crate::format::S;
use crate::model::settings::ToolDocFormat;
use crate::source::{ProjectFs, SourceFile};
use promptc_template::{TemplateOrigin, Templates};

use super::checker::Checker;
use super::loader::Loader;

impl Loader<'_> {
    /// `layout:`: the core template placing the rendered sections.
    pub(super) fn layout(&mut self) -> Option<String> {
        let path = self.raw.layout.as_ref()?;
        let ck = Checker::new(self.manifest, &mut self.diags);
        match self.fs.read(&path.value, Some(&|| ck.label(&path.referenced))) {
            Ok(f) => {
                let name = f.rel.clone();
                let r = self.templates.add(
                    &name,
                    &f.text,
                    TemplateOrigin { file: f.clone(), line_offset: 0, column_offset: 0 },
                );
                ck.diags.absorb(r);
                self.files.insert(f.rel.clone(), f);
                Some(name)
            }
            Err(e) => {
                ck.diags.absorb::<()>(Err(e));
                None
            }
        }
    }

    /// `tool_docs:`: each template given once, as a file or inline.
    pub(super) fn tool_docs(&mut self) -> ToolDocFormat {
        let mut ck = Checker::new(self.manifest, &mut self.diags);
        build_tool_docs(&mut ck, self.raw.tool_docs.as_ref(), &self.fs, &mut self.templates, &mut self.files)
    }
}

fn build_tool_docs(
    ck: &mut Checker<'_>,
    raw: Option<&Spanned<RawToolDocs>>,
    fs: &ProjectFs,
    templates: &mut Templates,
    files: &mut BTreeMap<String, SourceFile>,
) -> ToolDocFormat {
    let mut out = ToolDocFormat::default();
    let Some(raw) = raw else { return out };
    if raw.value.tool.is_none() && raw.value.call.is_none() {
        ck.error(
            &raw.referenced,
            "`tool_docs:` sets neither `tool` nor `call`",
            "give `tool: {template: FILE}` (one tool's documentation) and/or `call: {text: …}` (one call), or leave \
                `tool_docs:` out for the built-in format",
        );
    }
    let mut one = |ck: &mut Checker<'_>, t: &Option<RawTemplateText>, key: &str| -> Option<String> {
        let t = t.as_ref()?;
        match (&t.template, &t.text) {
            (Some(path), None) => add_file(ck, fs, templates, files, path),
            (None, Some(text)) => {
                let name = format!("{}#tool_docs.{key}", ck.file.rel);
                add_inline(ck, templates, &name, &text.value, &text.referenced, "text", true).then_some(name)
            }
            _ => {
                ck.error(
                    &raw.referenced,
                    format!("`tool_docs.{key}` needs exactly one of `template` or `text`"),
                    "use `template: FILE` for a template file or `text: |` for inline text",
                );
                None
            }
        }
    };
    out.tool = one(ck, &raw.value.tool, "tool");
    out.call = one(ck, &raw.value.call, "call");
    if let Some(sep) = &raw.value.separator {
        out.separator = sep.clone();
    }
    out
}

/// Compile inline template text declared under `key:` of the entry at `anchor`; errors are
/// reported on the right line of the file (the text starts after `key: |`).
/// `anchor` is the entry's key (the `key:` line follows it) or, with `anchor_is_value`, the
/// scalar itself (the `key:` line is at or before it).
pub(super) fn add_inline(
    ck: &mut Checker<'_>,
    templates: &mut Templates,
    name: &str,
    text: &str,
    anchor: &Location,
    key: &str,
    anchor_is_value: bool,
) -> bool {
    let key_line = (anchor.line() as usize).saturating_sub(1);
    let prefix = format!("{key}:");
    let lines: Vec<&str> = ck.file.text.split('\n').collect();
    let is_key = |l: &&str| key_at(l, &prefix).is_some();
    let found = if anchor_is_value {
        lines.iter().enumerate().take(key_line + 1).rev().find(|(_, l)| is_key(l))
    } else {
        lines.iter().enumerate().skip(key_line).find(|(_, l)| is_key(l))
    };
    // Where the text starts: the line after `key: |` for a block scalar (indented by the
    // block's indentation), or the key's own line after `key: ` (and a quote) otherwise.
    let (line_offset, column_offset) = found
        .map(|(i, l)| {
            let at = key_at(l, &prefix).map_or(0, |p| p + prefix.len());
            let rest = &l[at..];
            match block_indicator(rest) {
                // The text's lines are indented by the explicit indicator past the key, or as
                // its first non-blank line is (leading blank lines are part of the text).
                Some(explicit) => {
                    let key_column = at - prefix.len();
                    let indent = explicit.map(|d| key_column + d).unwrap_or_else(|| {
                        lines
                            .iter()
                            .skip(i + 1)
                            .find(|n| !n.trim().is_empty())
                            .map_or(0, |n| n.len() - n.trim_start().len())
                    });
                    (i + 1, indent)
                }
                None => {
                    let value_at = at + (rest.len() - rest.trim_start().len());
                    let quoted = rest.trim_start().starts_with(['"', '\'']);
                    (i, value_at + usize::from(quoted))
                }
            }
        })
        .unwrap_or((key_line, 0));
    let r = templates.add(name, text, TemplateOrigin { file: ck.file.clone(), line_offset, column_offset });
    ck.diags.absorb(r).is_some()
}

/// Byte offset of `prefix` (`text:`) in `line` where it is a key: first on the line (after
/// `- `), or inside a flow mapping after `{` or `,` (`- {slot: notes, text: "…"}`).
fn key_at(line: &str, prefix: &str) -> Option<usize> {
    let first = line.len() - line.trim_start().trim_start_matches("- ").trim_start().len();
    if line[first..].starts_with(prefix) {
        return Some(first);
    }
    // Most lines hold no such key (in a JSON-style file none does, and the search runs back over
    // every line before the text): `contains` answers those with std's vectorised search for
    // short needles, without building the substring searcher `match_indices` needs.
    if !line.contains(prefix) {
        return None;
    }
    line.match_indices(prefix).map(|(i, _)| i).find(|&i| line[..i].trim_end().ends_with(['{', ',']))
}

/// Whether the text after `key:` opens a block scalar (`|`, `>-`, `|2`, `|+ # comment`), and
/// its explicit indentation indicator if it has one.
pub(super) fn block_indicator(rest: &str) -> Option<Option<usize>> {
    let value = rest.split(" #").next().unwrap_or(rest).trim();
    let mut chars = value.chars();
    if !matches!(chars.next(), Some('|' | '>')) {
        return None;
    }
    let tail: String = chars.collect();
    let digits: String = tail.chars().filter(char::is_ascii_digit).collect();
    let valid =
        tail.len() <= 2 && tail.chars().all(|c| c.is_ascii_digit() || c == '+' || c == '-') && digits.len() <= 1;
    valid.then(|| digits.parse().ok())
}

/// Read and compile a template file named at `path`.
pub(super) fn add_file(
    ck: &mut Checker<'_>,
    fs: &ProjectFs,
    templates: &mut Templates,
    files: &mut BTreeMap<String, SourceFile>,
    path: &S,
) -> Option<String> {
    let read = fs.read(&path.value, Some(&|| ck.label(&path.referenced)));
    let f = match read {
        Ok(f) => f,
        Err(e) => {
            ck.diags.absorb::<()>(Err(e));
            return None;
        }
    };
    let name = f.rel.clone();
    let r = templates.add(&name, &f.text, TemplateOrigin { file: f.clone(), line_offset: 0, column_offset: 0 });
    let ok = ck.diags.absorb(r).is_some();
    files.insert(f.rel.clone(), f);
    ok.then_some(name)
}
