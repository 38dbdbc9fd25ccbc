//! P001 dangling-tool-reference: prose that names a tool the cell does not have.

use std::collections::{BTreeMap, BTreeSet};

use crate::code::{Level, RuleCode};
use crate::compile::Compiled;
use crate::diagnostic::{Diagnostic, Label};
use crate::lint::registry::Rule;
use crate::lint::{find_in_file, finding, CellView};
use crate::model::catalog::ContributionBody;
use crate::model::section::SectionSource;
use crate::model::Project;

pub const RULE: Rule = Rule {
    code: RuleCode::P001,
    name: "dangling-tool-reference",
    default: Level::Deny,
    summary: "prose names a tool that is not active in the cell",
    explain: "A section of the prompt names a tool of the catalog (a snake_case or kebab-case tool name, or any tool \
        name in backticks) that is not active in that cell: a sub-agent told to call `clarify` when it has no clarify \
        tool, a lite prompt recommending a tool lite excludes. The model will try to call a tool that does not \
        exist.\n\nFix: mention the tool only inside `{% if \"NAME\" in tool_names %}…{% endif %}`, or move the \
        sentence into the tool's `guidance:` (shown only while it is active).",
};

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// Byte offsets where `text` names `tool` as a tool identifier: a snake/kebab-case name as a
/// whole word, or any name in backticks.
fn tool_mentions(text: &str, tool: &str) -> Vec<usize> {
    let distinctive = tool.contains('_') || tool.contains('-');
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = text[from..].find(tool) {
        let start = from + i;
        let end = start + tool.len();
        let before = text[..start].chars().next_back();
        let after = text[end..].chars().next();
        let bounded = !before.is_some_and(is_word_char) && !after.is_some_and(is_word_char);
        let ticked = before == Some('`') && after == Some('`');
        if bounded && (distinctive || ticked) {
            out.push(start);
        }
        from = end;
    }
    out
}

#[cfg(test)]
pub(crate) fn names_tool(text: &str, tool: &str) -> bool {
    !tool_mentions(text, tool).is_empty()
}

/// Where a dangling mention in a cell's prompt comes from: a section (and, for tool docs, the
/// tool whose description carries it) or the layout.
fn mention_label(project: &Project, c: &Compiled, at: usize, tool: &str) -> (String, Label) {
    let mut pos = 0;
    for s in &c.sections {
        if let Some(i) = c.prompt[pos..].find(&s.text) {
            let start = pos + i;
            if (start..start + s.text.len()).contains(&at) {
                let section = project.sections.get(&s.id);
                match section.map(|x| &x.source) {
                    Some(SectionSource::Template(name)) => {
                        let rel = name.split('#').next().unwrap_or(name).to_string();
                        return (format!("section `{}`", s.id), find_in_file(project, &rel, tool));
                    }
                    _ => {
                        // Generated text (tool docs, guidance, slots): find the tool whose
                        // text mentions it and point at that tool's declaration.
                        let owner = c.tools.iter().find(|t| {
                            !tool_mentions(&t.description, tool).is_empty()
                                || t.guidance.as_deref().is_some_and(|g| !tool_mentions(g, tool).is_empty())
                                || t.contributions.iter().any(|ct| match &ct.body {
                                    ContributionBody::Literal(l) | ContributionBody::Template(l) => {
                                        !tool_mentions(l, tool).is_empty()
                                    }
                                })
                        });
                        if let Some(o) = owner.and_then(|o| project.catalog.get(&o.name)) {
                            let label = project.files.get(&o.file).map_or_else(
                                || Label::file(&o.file),
                                |f| {
                                    let decl = o.decl_span.start.min(f.text.len());
                                    match f.text[decl..].find(tool) {
                                        Some(i) => f.label_bytes(decl + i, decl + i + tool.len()),
                                        None => f.label_bytes(decl, decl),
                                    }
                                },
                            );
                            return (format!("section `{}` (from tool `{}`)", s.id, o.name), label);
                        }
                        return (
                            format!("section `{}`", s.id),
                            project
                                .sections
                                .get(&s.id)
                                .map_or_else(|| Label::file(&project.manifest), |sec| project.label(&sec.span)),
                        );
                    }
                }
            }
            pos = start + s.text.len();
        }
    }
    let layout = project.layout.clone().unwrap_or_else(|| project.manifest.clone());
    ("the layout".to_string(), find_in_file(project, &layout, tool))
}

/// Find every catalog tool named in a cell's prompt while it is inactive there.
pub(crate) fn check(project: &Project, views: &[CellView], out: &mut Vec<Diagnostic>) {
    // (where, tool) → (label, cells)
    let mut found: BTreeMap<(String, String), (Label, Vec<String>)> = BTreeMap::new();
    let names: Vec<&str> = project.catalog.tools().iter().map(|t| t.name.as_str()).collect();
    for v in views {
        let c = &v.compiled;
        let active: BTreeSet<&str> = c.tools.iter().map(|t| t.name.as_str()).collect();
        for name in names.iter().filter(|n| !active.contains(**n)) {
            for at in tool_mentions(&c.prompt, name) {
                let (place, label) = mention_label(project, c, at, name);
                let entry = found.entry((place, name.to_string())).or_insert_with(|| (label, Vec::new()));
                if !entry.1.contains(&v.cell.stem()) {
                    entry.1.push(v.cell.stem());
                }
            }
        }
    }
    for ((place, tool), (label, cells)) in found {
        out.push(
            finding(
                RuleCode::P001,
                format!(
                    "{place} names tool `{tool}`, which is not active in {} \
                cell{}",
                    cells.len(),
                    if cells.len() == 1 { "" } else { "s" }
                ),
            )
            .with_label(label)
            .with_note(format!("cells: {}", cells.join(", ")))
            .with_help(format!(
                "guard the sentence with {{% if \"{tool}\" in tool_names %}}…{{% endif %}}, or \
                    move it into the tool's `guidance:`"
            )),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names_match_as_identifiers_only() {
        assert!(names_tool("use read_file first", "read_file"));
        assert!(!names_tool("use read_files first", "read_file"));
        assert!(!names_tool("my_read_file", "read_file"));
        assert!(names_tool("call `search` now", "search"));
        assert!(!names_tool("search the web", "search"));
    }
}
