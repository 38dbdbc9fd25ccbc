//! Where a text that names an inactive tool lives — a section or layout template, a command,
//! a tool's description, parameters, examples, guidance or slot contributions — located in
//! the project's files, with the fix that works there.

use crate::compile::Compiled;
use crate::diagnostic::{Label, Span};
use crate::model::catalog::ContributionBody;
use crate::model::params::{descriptions, Property};
use crate::model::section::{Generator, SectionSource};
use crate::model::Project;
use crate::render::RenderedSection;
use crate::resolve::tools::ActiveTool;

use super::mentions::tool_mentions;

/// Where a text that names an inactive tool lives: what the message calls it, where its label
/// points, and the fix that works there.
pub(super) struct Place {
    /// What the message calls the text.
    pub(super) what: String,
    /// Where it is shown.
    pub(super) label: Label,
    /// The fix that works there.
    pub(super) help: String,
}

/// The label of the first mention of `tool` in project file `rel` at or after byte `from`; the
/// position `from` itself (or the whole file) when the file does not show it.
fn locate(project: &Project, rel: &str, from: usize, tool: &str) -> Label {
    let Some(f) = project.files.get(rel) else { return Label::file(project.fs().display(rel)) };
    let from = from.min(f.text.len());
    let from = (from..=f.text.len()).find(|i| f.text.is_char_boundary(*i)).unwrap_or(f.text.len());
    match tool_mentions(&f.text[from..], tool).first() {
        Some(i) => f.label_bytes(from + i, from + i + tool.len()),
        None if from > 0 => f.label_bytes(from, from),
        None => Label::file(&f.display),
    }
}

/// The fix for template text: mention the tool only while it is active.
pub(super) fn guard_help(tool: &str) -> String {
    format!("guard the sentence with {{% if \"{tool}\" in tool_names %}}…{{% endif %}}")
}

/// For prompt text: the guard, or the tool's own guidance (shown only while it is active).
fn prompt_help(tool: &str) -> String {
    format!("{}, or move it into the `guidance:` of `{tool}` (shown only while it is active)", guard_help(tool))
}

/// The fix for a tool description: a description part sent only while `tool` is active.
fn parts_help(tool: &str, owner: &str) -> String {
    format!(
        "descriptions are sent as written (they are not templates): move the sentence into a `description_parts:` \
         entry of tool `{owner}` with `tools: [{tool}]`, sent only while `{tool}` is active"
    )
}

/// A template's place: its file, from where its text starts (inline text of the manifest too).
pub(super) fn template_place(project: &Project, template: &str, what: String, tool: &str, help: String) -> Place {
    let label = match project.templates.start(template) {
        Some((file, from)) => locate(project, file, from, tool),
        None => locate(project, template.split('#').next().unwrap_or(template), 0, tool),
    };
    Place { what, label, help }
}

/// Which of a tool's texts a part of what is sent carries.
#[derive(Clone, Copy)]
pub(super) struct ToolTexts {
    /// The description and the parameters' (tool docs, the action schema, the tools JSON).
    descriptions: bool,
    /// Its examples (the tool examples section only: neither the tools JSON nor the tool docs
    /// carry them).
    examples: bool,
    /// Its guidance (the tool guidance section).
    guidance: bool,
    /// Its slot contributions (a slot's section).
    contributions: bool,
}

/// The texts the tools JSON carries.
pub(super) const DESCRIPTIONS: ToolTexts =
    ToolTexts { descriptions: true, examples: false, guidance: false, contributions: false };

/// The places of `owner`'s texts (those `which` selects) that name `tool`.
pub(super) fn tool_text_places(project: &Project, owner: &ActiveTool, tool: &str, which: ToolTexts) -> Vec<Place> {
    let Some(decl) = project.catalog.get(&owner.name) else { return Vec::new() };
    // Each place points at the first mention in its own text: from where the text (or the
    // tool's declaration, for its description) starts.
    let at = |span: &Span| match span.file.is_empty() {
        true => locate(project, &decl.file, decl.decl_span.start, tool),
        false => locate(project, &span.file, span.start, tool),
    };
    let mut out = Vec::new();
    if which.descriptions {
        description_places(owner, tool, &at, &decl.decl_span, &mut out);
    }
    if which.examples {
        example_places(owner, tool, &at, &mut out);
    }
    if which.guidance && owner.guidance.as_deref().is_some_and(|g| !tool_mentions(g, tool).is_empty()) {
        out.push(Place {
            what: format!("the guidance of tool `{}`", owner.name),
            label: at(&decl.guidance_span),
            help: format!(
                "guidance is inserted as written while `{}` is active: move the sentence into a section guarded with \
                 {{% if \"{tool}\" in tool_names %}}…{{% endif %}}",
                owner.name
            ),
        });
    }
    if which.contributions {
        contribution_places(project, owner, tool, &at, &mut out);
    }
    out
}

/// The places among `owner`'s description and parameter descriptions that name `tool`.
fn description_places(owner: &ActiveTool, tool: &str, at: &dyn Fn(&Span) -> Label, decl: &Span, out: &mut Vec<Place>) {
    // Each property whose description names the tool, with its top-level parameter.
    let params: Vec<(&str, &Property)> = descriptions(&owner.params)
        .into_iter()
        .filter(|(_, _, d)| !tool_mentions(d, tool).is_empty())
        .map(|(top, p, _)| (top.name.as_str(), p))
        .collect();
    if !tool_mentions(&owner.description, tool).is_empty() {
        out.push(Place {
            what: format!("the description of tool `{}`", owner.name),
            label: at(decl),
            help: parts_help(tool, &owner.name),
        });
    }
    let mut tops: Vec<&str> = Vec::new();
    for (top, p) in params {
        // One finding per top-level parameter, at the first description in it that names the tool.
        if tops.contains(&top) {
            continue;
        }
        tops.push(top);
        out.push(Place {
            what: format!("parameter `{top}` of tool `{}`", owner.name),
            label: at(&p.span),
            help: format!(
                "parameter descriptions are sent as written: move the sentence into a `description_parts:` entry of \
                 tool `{}` with `tools: [{tool}]`",
                owner.name
            ),
        });
    }
}

/// The places among `owner`'s examples that name `tool`.
fn example_places(owner: &ActiveTool, tool: &str, at: &dyn Fn(&Span) -> Label, out: &mut Vec<Place>) {
    for (i, e) in owner.examples.iter().enumerate() {
        let text =
            format!("{} {}", e.description.as_deref().unwrap_or(""), serde_json::Value::Object(e.arguments.clone()));
        if tool_mentions(&text, tool).is_empty() {
            continue;
        }
        out.push(Place {
            what: format!("example {} of tool `{}`", i + 1, owner.name),
            label: at(&e.span),
            help: format!("examples are shown as written: change the example, or give the call to `{tool}` in a section guarded with {{% if \"{tool}\" in tool_names %}}…{{% endif %}}"),
        });
    }
}

/// The places among `owner`'s slot contributions that name `tool`.
fn contribution_places(
    project: &Project,
    owner: &ActiveTool,
    tool: &str,
    at: &dyn Fn(&Span) -> Label,
    out: &mut Vec<Place>,
) {
    for c in &owner.contributions {
        let (text, literal) = match &c.body {
            ContributionBody::Literal(l) => (l.as_str(), true),
            ContributionBody::Template(t) => (project.templates.source(t).unwrap_or(""), false),
        };
        if tool_mentions(text, tool).is_empty() {
            continue;
        }
        out.push(Place {
            what: format!("the contribution of tool `{}` to slot `{}`", owner.name, c.slot),
            label: match &c.body {
                // A template contribution's text is its template: the mention there.
                ContributionBody::Template(t) => template_place(project, t, String::new(), tool, String::new()).label,
                ContributionBody::Literal(_) => at(&c.slot_span),
            },
            help: if literal {
                format!(
                    "a `text:` contribution is inserted verbatim: make it a `template:` contribution and {}",
                    guard_help(tool)
                )
            } else {
                guard_help(tool)
            },
        });
    }
}

/// The section of `c` whose text holds prompt byte `at`, by its index.
fn section_at(c: &Compiled, at: usize) -> Option<usize> {
    c.offsets
        .iter()
        .enumerate()
        .find_map(|(i, o)| o.filter(|s| (*s..*s + c.sections[i].text.len()).contains(&at)).map(|_| i))
}

/// Where the mention of `tool` at prompt byte `at` comes from.
pub(super) fn prompt_places(project: &Project, c: &Compiled, at: usize, tool: &str) -> Vec<Place> {
    let Some(i) = section_at(c, at) else {
        let what = "the layout".to_string();
        return vec![match &project.layout {
            Some(layout) => template_place(project, layout, what, tool, prompt_help(tool)),
            None => Place { what, label: locate(project, &project.manifest, 0, tool), help: prompt_help(tool) },
        }];
    };
    section_places(project, c, &c.sections[i], "", tool)
}

/// Where a mention of `tool` in rendered section `s` of cell `c` comes from; `whose` follows
/// the section's name in the message (` of message 2 (user)`).
pub(super) fn section_places(
    project: &Project,
    c: &Compiled,
    s: &RenderedSection,
    whose: &str,
    tool: &str,
) -> Vec<Place> {
    let declared = project.sections.get(&s.id);
    match declared.map(|x| &x.source) {
        Some(SectionSource::Template(name)) => {
            vec![template_place(project, name, format!("section `{}`{whose}", s.id), tool, prompt_help(tool))]
        }
        Some(source) => {
            // Generated text (tool docs, the action schema, guidance, slots): the tool text it
            // was made from.
            let which = match source {
                SectionSource::Generated(Generator::ToolGuidance) => {
                    ToolTexts { descriptions: false, examples: false, guidance: true, contributions: false }
                }
                SectionSource::Slot(_) => {
                    ToolTexts { descriptions: false, examples: false, guidance: false, contributions: true }
                }
                SectionSource::Generated(Generator::ToolExamples) => {
                    ToolTexts { descriptions: false, examples: true, guidance: false, contributions: false }
                }
                SectionSource::Template(_)
                | SectionSource::Generated(Generator::ToolDocs | Generator::ActionSchema) => DESCRIPTIONS,
            };
            let places: Vec<Place> = c.tools.iter().flat_map(|o| tool_text_places(project, o, tool, which)).collect();
            if places.is_empty() {
                let label = declared.map_or_else(|| Label::file(&project.manifest), |d| project.label(&d.span));
                vec![Place { what: format!("section `{}`{whose}", s.id), label, help: prompt_help(tool) }]
            } else {
                places
            }
        }
        None => Vec::new(),
    }
}

/// Every text of `t` the tools JSON carries, joined: what [`tool_text_places`] reads with
/// `DESCRIPTIONS`.
pub(super) fn description_texts(t: &ActiveTool) -> String {
    let mut out = format!("{}\n", t.description);
    for (_, _, d) in descriptions(&t.params) {
        out.push_str(d);
        out.push('\n');
    }
    out
}
