//! Section rendering: each section of a profile rendered in order with the cell's context,
//! empty sections dropped, then joined or placed by the layout (two-layer render).

use serde_json::{Map, Value};

use crate::diagnostic::{known_names_help, Diagnostic, Label};
use crate::error::Result;
use crate::hash::sha256_hex;
use crate::model::section::{Generator, SectionSource, SlotKind};
use crate::model::untrusted::wrap;
use crate::model::Project;
use crate::resolve::Resolved;

pub mod command;
mod context;
mod slots;

pub use context::{template_context, tool_value};
use slots::slot_text;
pub use slots::SlotUse;

/// One section as it appears in the prompt.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct RenderedSection {
    /// Section id.
    pub id: String,
    /// Its text (normalised unless `assembly: {trim: false}`: LF line endings, no leading or
    /// trailing blank lines).
    pub text: String,
    /// Where it was declared (`sections/role.md.j2`, `generated:tool_docs`).
    pub origin: String,
    /// Whether it changes between sessions, as the analysis of what its templates read says.
    pub dynamic: bool,
    /// Why it changes between sessions (`reads \`cwd\``, `untrusted text, wrapped with the
    /// session's nonce`); `None` when it does not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// SHA-256 of `text`.
    pub sha256: String,
}

/// Normalise rendered text: LF line endings, no trailing spaces at the end of the text, no
/// leading or trailing blank lines.
pub fn normalize(text: &str) -> String {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let trimmed_end = text.trim_end();
    let start = trimmed_end
        .find(|c: char| c != '\n' && c != ' ' && c != '\t')
        .map_or(trimmed_end.len(), |i| trimmed_end[..i].rfind('\n').map_or(0, |n| n + 1));
    trimmed_end[start..].to_string()
}

/// Collapse the blank-line runs (three or more newlines, to one blank line) a layout left, as
/// layouts full of conditionals leave holes; never inside the text of a section it placed:
/// wherever a section with a run of its own appears in `text` (through `body` or
/// `sections.NAME`), that text is kept as the section rendered it.
fn collapse_layout_blank_lines(text: &str, sections: &[&str]) -> String {
    let mut kept: Vec<(usize, usize)> = Vec::new();
    for s in sections.iter().filter(|s| s.contains("\n\n\n")) {
        kept.extend(text.match_indices(*s).map(|(i, m)| (i, i + m.len())));
    }
    kept.sort_unstable();
    collapse_outside(text, &kept)
}

/// Runs of three or more newlines collapsed to one blank line, outside the byte ranges `kept`
/// (sorted).
fn collapse_outside(text: &str, kept: &[(usize, usize)]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut newlines = 0;
    let mut ranges = kept.iter().peekable();
    for (i, c) in text.char_indices() {
        while ranges.peek().is_some_and(|(_, end)| *end <= i) {
            ranges.next();
        }
        let inside = ranges.peek().is_some_and(|(start, _)| *start <= i);
        if c == '\n' && !inside {
            newlines += 1;
            if newlines <= 2 {
                out.push(c);
            }
        } else {
            newlines = if c == '\n' { newlines + 1 } else { 0 };
            out.push(c);
        }
    }
    out
}

/// A rendered prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct Rendered {
    /// Non-empty sections in order.
    pub sections: Vec<RenderedSection>,
    /// The prompt text.
    pub prompt: String,
    /// Slot statistics, for every injectable slot.
    pub slots: Vec<SlotUse>,
    /// Problems that did not stop the render (`--lenient`).
    pub warnings: Vec<Diagnostic>,
    /// The templates rendered (sections, slot contributions, the layout), whatever they produced.
    pub templates: Vec<String>,
    /// The profile's harness messages (empty for sub-agents).
    pub messages: Vec<RenderedMessage>,
}

/// A harness message as the model receives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedMessage {
    /// Who sends it.
    pub role: crate::model::profile::Role,
    /// How its content is sent: one text, or a list of content blocks.
    pub form: crate::model::profile::MessageForm,
    /// Its content blocks' texts, each its non-empty sections joined with `assembly.separator`
    /// (a blank line); a block that renders empty is left out. One for a message of one text.
    pub blocks: Vec<String>,
    /// Its sections, block after block.
    pub sections: Vec<RenderedSection>,
}

impl RenderedMessage {
    /// Its whole text: its one text, or its blocks one after another (what is sent, byte for
    /// byte, besides the blocks' framing).
    pub fn text(&self) -> String {
        self.blocks.concat()
    }

    /// Its bytes of text.
    pub fn len(&self) -> usize {
        self.blocks.iter().map(String::len).sum()
    }
}

/// The text of a generated section, supplied by the caller: the tool docs and action schema
/// are projections of the tools, which live in a later layer than rendering.
pub type Generate<'a> = dyn Fn(Generator) -> Result<String> + 'a;

/// Render a resolved cell's sections (the profile's, or a sub-agent's) and assemble the prompt.
pub fn render(project: &Project, cell: &Resolved, generate: &Generate<'_>) -> Result<Rendered> {
    let tools = &cell.tools;
    let ctx = template_context(project, cell);
    let ctx_value: promptc_template::Value = ctx.iter().cloned().collect();
    let limits = project.templates.limits();
    let assembly = &project.assembly;
    let mut acc = Accumulated::default();
    let out = render_sections(project, cell, &cell.sections, &ctx_value, generate, &mut acc)?;
    let mut messages = Vec::new();
    if cell.subagent.is_none() {
        if let Some(profile) = project.profiles.get(&cell.selection.profile) {
            for m in &profile.messages {
                let (mut blocks, mut sections) = (Vec::new(), Vec::new());
                for ids in &m.blocks {
                    let out = render_sections(project, cell, ids, &ctx_value, generate, &mut acc)?;
                    let text =
                        out.iter().map(|s| s.text.as_str()).collect::<Vec<_>>().join(&assembly.message_separator);
                    if !text.is_empty() {
                        blocks.push(text);
                    }
                    sections.extend(out);
                }
                if !blocks.is_empty() {
                    messages.push(RenderedMessage { role: m.role, form: m.form, blocks, sections });
                }
            }
        }
    }
    let Accumulated { mut slots, warnings, templates: mut rendered, .. } = acc;
    // Every injectable slot gets a row, shown or not, so unused contributions are visible.
    for (name, slot) in &project.slots {
        if slot.kind == SlotKind::System && !slots.iter().any(|s| &s.slot == name) {
            let declaring = tools
                .iter()
                .filter(|t| t.contributions.iter().any(|c| &c.slot == name))
                .map(|t| t.name.clone())
                .collect();
            slots.push(SlotUse { slot: name.clone(), declaring, contributing: Vec::new(), bytes: 0 });
        }
    }
    let body = out.iter().map(|s| s.text.as_str()).collect::<Vec<_>>().join(&assembly.separator);

    let prompt = match &project.layout {
        None => body,
        Some(layout) => {
            rendered.push(layout.clone());
            let mut lctx = ctx;
            let sections: Map<String, Value> =
                out.iter().map(|s| (s.id.clone(), Value::String(s.text.clone()))).collect();
            lctx.push(("sections".into(), promptc_template::Value::from_serialize(&sections)));
            lctx.push(("body".into(), promptc_template::Value::from(body)));
            let lctx: promptc_template::Value = lctx.into_iter().collect();
            let text =
                project.templates.render_or_undefined(layout, &lctx, limits.prompt_bytes).map_err(|f| {
                    match f.undefined.as_deref().and_then(|x| x.strip_prefix("sections.")) {
                        Some(id) => missing_section(project, cell, f.error, id.trim()),
                        None => f.error,
                    }
                })?;
            if assembly.trim {
                let texts: Vec<&str> = out.iter().map(|s| s.text.as_str()).collect();
                normalize(&collapse_layout_blank_lines(&text.replace("\r\n", "\n"), &texts))
            } else {
                text
            }
        }
    };
    let mut prompt = prompt;
    if assembly.final_newline && !prompt.is_empty() {
        prompt.push('\n');
    }
    Ok(Rendered { sections: out, prompt, slots, warnings, templates: rendered, messages })
}

/// What rendering sections gathers besides their text: slot statistics, warnings, the
/// templates rendered, and the running size.
#[derive(Default)]
struct Accumulated {
    slots: Vec<SlotUse>,
    warnings: Vec<Diagnostic>,
    templates: Vec<String>,
    total: usize,
}

/// Render sections `ids` of a cell in order (those whose `when` fails, or that render empty,
/// left out).
fn render_sections(
    project: &Project,
    cell: &Resolved,
    ids: &[String],
    ctx_value: &promptc_template::Value,
    generate: &Generate<'_>,
    acc: &mut Accumulated,
) -> Result<Vec<RenderedSection>> {
    let (runtime, tools) = (&cell.runtime, &cell.tools);
    let limits = project.templates.limits();
    let mut out = Vec::new();
    for id in ids {
        let Some(section) = project.sections.get(id) else { continue };
        if !section.when.eval_with(&runtime.switches, &runtime.choices) {
            continue;
        }
        let raw = match &section.source {
            SectionSource::Template(name) => {
                acc.templates.push(name.clone());
                project.templates.render(name, ctx_value, limits.section_bytes)?
            }
            SectionSource::Generated(g) => generate(*g)?,
            SectionSource::Slot(slot) => {
                acc.templates.extend(
                    tools.iter().flat_map(|t| &t.contributions).filter(|c| &c.slot == slot).filter_map(|c| {
                        match &c.body {
                            crate::model::catalog::ContributionBody::Template(n) => Some(n.clone()),
                            crate::model::catalog::ContributionBody::Literal(_) => None,
                        }
                    }),
                );
                let (text, usage) = slot_text(project, slot, tools, ctx_value, runtime.lenient, &mut acc.warnings)?;
                acc.slots.push(usage);
                text
            }
        };
        let mut text = if project.assembly.trim { normalize(&raw) } else { raw };
        if let Some(tag) = &section.untrusted {
            text = wrap(tag, &runtime.nonce, &text);
        }
        if text.is_empty() {
            continue;
        }
        // Stop as soon as the sections alone are over the prompt's cap.
        acc.total += text.len() + project.assembly.separator.len();
        if acc.total > limits.prompt_bytes {
            return Err(prompt_too_large(project, acc.total, limits.prompt_bytes));
        }
        let why = dynamic_why(project, section, tools, &text, &runtime.nonce);
        out.push(RenderedSection {
            id: id.clone(),
            sha256: sha256_hex(text.as_bytes()),
            text,
            origin: section.origin.clone(),
            dynamic: why.is_some(),
            why,
        });
    }
    Ok(out)
}

/// Why `section` (rendered as `text`) changes between sessions, if it does: it reads a dynamic
/// variable or the nonce, it is untrusted text (wrapped with the session's nonce), its text
/// carries the nonce, or it shows text a tool makes from a dynamic value (a templated tool's
/// docs, a contribution that reads one).
fn dynamic_why(
    project: &Project,
    section: &crate::model::section::Section,
    tools: &[crate::resolve::tools::ActiveTool],
    text: &str,
    nonce: &str,
) -> Option<String> {
    use crate::model::catalog::ContributionBody;
    if !section.dynamic_inputs.is_empty() {
        let names: Vec<String> = section.dynamic_inputs.iter().map(|n| format!("`{n}`")).collect();
        return Some(format!("reads {}", names.join(", ")));
    }
    if let Some(tag) = &section.untrusted {
        return Some(format!("untrusted text ({tag}), wrapped with the session's nonce"));
    }
    if text.contains(&format!("_{nonce}|>")) {
        return Some("carries untrusted text wrapped with the session's nonce".into());
    }
    let dynamic_tool = match &section.source {
        SectionSource::Generated(Generator::ToolDocs | Generator::ActionSchema) => tools
            .iter()
            .find(|t| t.dynamic)
            .map(|t| format!("shows tool `{}`, whose text reads a dynamic value", t.name)),
        SectionSource::Slot(slot) => tools
            .iter()
            .find(|t| {
                t.contributions.iter().any(|c| {
                    &c.slot == slot
                        && matches!(&c.body, ContributionBody::Template(n) if project.dynamic_templates.contains(n))
                })
            })
            .map(|t| format!("tool `{}` contributes text that reads a dynamic value", t.name)),
        SectionSource::Template(_) | SectionSource::Generated(_) => None,
    };
    dynamic_tool
}

/// A layout that reads `sections.NAME` for a section this cell has no text for (`id`, the
/// expression the undefined-value error pointed at): say which section and why, instead of
/// "undefined value" with help about variables. The error keeps its location.
fn missing_section(project: &Project, cell: &Resolved, mut e: crate::error::Error, id: &str) -> crate::error::Error {
    let Some(d) = e.diagnostics_mut().first_mut() else { return e };
    let profile = &cell.selection.profile;
    if project.sections.contains_key(id) {
        let why = if cell.sections.iter().any(|s| s == id) {
            format!("it renders empty in this cell (profile `{profile}`)")
        } else {
            format!("profile `{profile}` does not include it")
        };
        d.message = format!("the layout uses section `{id}`, which this cell has no text for: {why}");
        d.help = Some(format!("guard it: {{% if sections.{id} is defined %}}…{{{{ sections.{id} }}}}…{{% endif %}}"));
    } else {
        let known: Vec<&str> = project.sections.keys().map(String::as_str).collect();
        d.message = format!("the layout uses section `{id}`, which the project does not declare");
        d.help = Some(known_names_help("section", id, &known));
    }
    e
}

/// The sections add up to more than a prompt may hold.
/// The error of a prompt over `limits.prompt_bytes` (`size` bytes so far).
pub(crate) fn prompt_too_large(project: &Project, size: usize, cap: usize) -> crate::error::Error {
    Diagnostic::error(format!("the prompt's sections add up to more than {cap} bytes ({size} so far)"))
        .with_label(Label::file(project.fs().display(&project.manifest)))
        .with_help("raise `limits.prompt_bytes` in promptc.yaml only if the prompt is meant to be this large")
        .into_error(crate::error::ErrorKind::Template)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_trims_blank_lines_but_keeps_indentation() {
        assert_eq!(normalize("\n\n  code\nx  \n\n"), "  code\nx");
        assert_eq!(normalize("a\r\nb\r\n"), "a\nb");
        assert_eq!(normalize(" \n\t\n"), "");
    }

    #[test]
    fn collapse_keeps_one_blank_line() {
        assert_eq!(collapse_outside("a\n\n\n\nb\nc", &[]), "a\n\nb\nc");
    }

    #[test]
    fn a_layout_never_rewrites_a_section() {
        let section = "x\n\n\n\ny";
        let text = format!("head\n\n\n\n{section}\n\n\n\ntail");
        assert_eq!(collapse_layout_blank_lines(&text, &[section]), format!("head\n\n{section}\n\ntail"));
        assert_eq!(collapse_layout_blank_lines(&text, &[]), "head\n\nx\n\ny\n\ntail");
    }
}
