//! Loading sections: template files, inline text, generated sections and slot sections.

use super::*;

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
    let is_key = |l: &&str| l.trim_start().trim_start_matches("- ").starts_with(&prefix);
    let found = if anchor_is_value {
        lines.iter().enumerate().take(key_line + 1).rev().find(|(_, l)| is_key(l))
    } else {
        lines.iter().enumerate().skip(key_line).find(|(_, l)| is_key(l))
    };
    // Where the text starts: the line after `key: |` for a block scalar (indented by the
    // block's indentation), or the key's own line after `key: ` (and a quote) otherwise.
    let (line_offset, column_offset) = found
        .map(|(i, l)| {
            let at = l.find(&prefix).map_or(0, |p| p + prefix.len());
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

#[allow(clippy::too_many_arguments)]
pub(super) fn section_source(
    ck: &mut Checker<'_>,
    fs: &ProjectFs,
    templates: &mut Templates,
    files: &mut BTreeMap<String, SourceFile>,
    id: &Spanned<String>,
    s: &RawSection,
    slots: &IndexMap<String, Slot>,
) -> Option<(SectionSource, String)> {
    let given = usize::from(s.template.is_some())
        + usize::from(s.text.is_some())
        + usize::from(s.generate.is_some())
        + usize::from(s.slot.is_some());
    if given != 1 {
        ck.error(
            &id.referenced,
            format!("section `{}` must have exactly one of `template`, `text`, `generate` or `slot`", id.value),
            "use `template: FILE` for a template file, `text: |` for inline text, `generate: tool_docs` (or \
                tool_guidance, action_schema), or `slot: NAME` for tool contributions",
        );
        return None;
    }
    if let Some(path) = &s.template {
        return add_file(ck, fs, templates, files, path).map(|name| (SectionSource::Template(name.clone()), name));
    }
    if let Some(text) = &s.text {
        let name = format!("{}#sections.{}", ck.file.rel, id.value);
        return add_inline(ck, templates, &name, text, &id.referenced, "text", false)
            .then(|| (SectionSource::Template(name), format!("{} (inline)", ck.file.rel)));
    }
    if let Some(slot) = &s.slot {
        let injectable: Vec<&str> =
            slots.iter().filter(|(_, sl)| sl.kind == SlotKind::System).map(|(k, _)| k.as_str()).collect();
        return match slots.get(&slot.value) {
            None => {
                ck.error(
                    &slot.referenced,
                    format!("unknown slot `{}`", slot.value),
                    known_names_help("slot", &slot.value, &injectable),
                );
                None
            }
            Some(sl) if sl.kind != SlotKind::System => {
                ck.error(
                    &slot.referenced,
                    format!("section `{}` shows slot `{}`, which no tool may fill", id.value, slot.value),
                    "a slot section shows tool contributions; user-intent and history slots never have any — render \
                        that text with `template:` instead",
                );
                None
            }
            Some(_) => Some((SectionSource::Slot(slot.value.clone()), format!("slot:{}", slot.value))),
        };
    }
    let g = s.generate.as_ref()?;
    match Generator::ALL.iter().find(|(n, _)| *n == g.value) {
        Some((n, gen)) => Some((SectionSource::Generated(*gen), format!("generated:{n}"))),
        None => {
            let names: Vec<&str> = Generator::ALL.iter().map(|(n, _)| *n).collect();
            ck.error(
                &g.referenced,
                format!("unknown generator `{}`", g.value),
                known_names_help("generator", &g.value, &names),
            );
            None
        }
    }
}
