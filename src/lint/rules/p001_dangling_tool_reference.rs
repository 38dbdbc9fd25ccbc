//! P001 dangling-tool-reference: text that reaches the model names a tool the cell does not
//! have. Checked in every text a cell sends: the prompt (sections, the layout, tool docs,
//! guidance, slots), the tools JSON of native cells (tool and parameter descriptions), and the
//! slash commands rendered for the cell's profile.

use std::collections::{BTreeMap, BTreeSet};

use crate::code::{Level, RuleCode};
use crate::compile::Compiled;
use crate::diagnostic::{Diagnostic, Label};
use crate::lint::registry::Rule;
use crate::lint::{finding, CellView};
use crate::model::catalog::ContributionBody;
use crate::model::params::{Kind, Property};
use crate::model::section::{Generator, SectionSource};
use crate::model::transport::Transport;
use crate::model::Project;
use crate::resolve::tools::ActiveTool;

pub const RULE: Rule = Rule {
    code: RuleCode::P001,
    name: "dangling-tool-reference",
    default: Level::Deny,
    summary: "text sent to the model names a tool that is not active in the cell",
    explain: "Text that reaches the model names a tool of the catalog that is not active in that cell: a sub-agent \
        told to call `clarify` when it has no clarify tool, a lite prompt recommending a tool lite excludes, a tool \
        description pointing at a tool the cell does not send. The model will try to call a tool that does not \
        exist.\n\nA name counts as a tool reference the way a model reads one: a snake_case or kebab-case tool name \
        anywhere; any tool name in backticks, in call syntax (`clarify(...)`, `clarify（…）`), as an XML tag \
        (`<clarify>`), after an arrow (`→ clarify`), after use / call / invoke (`use clarify to ask`, `调用 clarify`), \
        before the word tool (`the clarify tool`), or as a JSON value (`\"name\": \"clarify\"`). Ordinary words stay \
        quiet: `read the file` does not name a `read` tool.\n\nChecked texts: every section, the layout, generated \
        tool docs and guidance, slot contributions, tool and parameter descriptions (native cells send them in the \
        tools JSON), and slash commands rendered for each profile.\n\nFix: it depends on where the text lives.\n- a section, \
        the layout, a command or a `template:` contribution: mention the tool only inside \
        `{% if \"NAME\" in tool_names %}…{% endif %}`;\n- a tool description (sent as written, never a template): \
        move the sentence into a `description_parts:` entry with `tools: [NAME]`, sent only while NAME is active;\n\
        - a parameter description: move the sentence into the tool's `description_parts:` the same way;\n- \
        guidance or a `text:` contribution (inserted verbatim): move the sentence into a guarded section or a \
        `template:` contribution.",
};

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// Words that make the next word a tool being called: `use clarify`, `call search.`.
const CALL_VERBS: &[&str] = &["use", "call", "invoke", "using", "calling", "invoking", "via"];

/// Words that may follow a called tool's name (`use clarify to ask`), so that `use search
/// results` stays ordinary English.
const AFTER_CALLED: &[&str] =
    &["to", "for", "with", "first", "instead", "when", "if", "and", "or", "then", "tool", "tools", "again"];

/// The ASCII word that ends just before byte `at` (spaces skipped), lower-cased.
fn word_before(text: &str, at: usize) -> String {
    let head = text[..at].trim_end_matches([' ', '\t']);
    let start = head
        .rfind(|c: char| !c.is_ascii_alphabetic())
        .map_or(0, |i| i + head[i..].chars().next().map_or(1, char::len_utf8));
    head[start..].to_ascii_lowercase()
}

/// The ASCII word that starts at byte `at` (spaces skipped), lower-cased, and whether only
/// spaces came before it.
fn word_after(text: &str, at: usize) -> String {
    let tail = text[at..].trim_start_matches([' ', '\t']);
    let end = tail.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(tail.len());
    tail[..end].to_ascii_lowercase()
}

/// Whether what follows a called name ends the phrase: the end, punctuation, a line break, a
/// CJK character, or one of [`AFTER_CALLED`].
fn ends_call_phrase(text: &str, end: usize) -> bool {
    let tail = text[end..].trim_start_matches([' ', '\t']);
    match tail.chars().next() {
        None => true,
        Some(c) if c.is_ascii_alphabetic() => AFTER_CALLED.contains(&word_after(text, end).as_str()),
        Some(c) => !c.is_ascii_alphanumeric(),
    }
}

/// Words that make `NAME tool` a noun phrase naming a tool (`the clarify tool`), where
/// `You call tools` is a verb.
const DETERMINERS: &[&str] = &["the", "a", "an", "this", "that", "your", "its", "their", "our"];

/// Whether the occurrence of a plain (one-word) tool name at `start..end` reads as a tool
/// reference. `tags`: an XML tag counts (not where the name is also a parameter's, whose tags
/// the tool docs show).
fn reads_as_tool(text: &str, start: usize, end: usize, tags: bool) -> bool {
    let head = &text[..start];
    let before = head.chars().next_back();
    let after = text[end..].chars().next();
    let ticked = before == Some('`') && after == Some('`');
    let called = matches!(after, Some('(' | '（'));
    let tag = tags && (head.ends_with('<') || head.ends_with("</")) && matches!(after, Some('>' | ' ' | '/' | '\n'));
    let trimmed = head.trim_end_matches([' ', '\t']);
    let arrow = ["→", "->", "=>", "⇒", "➜", "⟶"].iter().any(|a| trimmed.ends_with(a));
    let verb = (CALL_VERBS.contains(&word_before(text, start).as_str())
        || ["调用", "使用", "用"].iter().any(|v| trimmed.ends_with(v)))
        && ends_call_phrase(text, end);
    let noun = (word_after(text, end) == "tool" && DETERMINERS.contains(&word_before(text, start).as_str()))
        || text[end..].trim_start().starts_with("工具");
    let json = before == Some('"') && after == Some('"') && head[..head.len() - 1].trim_end().ends_with(':');
    ticked || called || tag || arrow || verb || noun || json
}

/// Byte offsets where `text` names `tool` as a tool: a snake/kebab-case name as a whole word,
/// or a plain name in one of the forms [`reads_as_tool`] knows.
pub(crate) fn tool_mentions(text: &str, tool: &str) -> Vec<usize> {
    mentions(text, tool, true)
}

/// [`tool_mentions`], with or without the XML-tag form.
fn mentions(text: &str, tool: &str, tags: bool) -> Vec<usize> {
    if tool.is_empty() {
        return Vec::new();
    }
    let distinctive = tool.contains('_') || tool.contains('-');
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = text[from..].find(tool) {
        let start = from + i;
        let end = start + tool.len();
        let before = text[..start].chars().next_back();
        let after = text[end..].chars().next();
        let bounded = !before.is_some_and(is_word_char) && !after.is_some_and(is_word_char);
        if bounded && (distinctive || reads_as_tool(text, start, end, tags)) {
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

/// Where a text that names an inactive tool lives: what the message calls it, where its label
/// points, and the fix that works there.
struct Place {
    what: String,
    label: Label,
    help: String,
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

fn guard_help(tool: &str) -> String {
    format!("guard the sentence with {{% if \"{tool}\" in tool_names %}}…{{% endif %}}")
}

/// For prompt text: the guard, or the tool's own guidance (shown only while it is active).
fn prompt_help(tool: &str) -> String {
    format!("{}, or move it into the `guidance:` of `{tool}` (shown only while it is active)", guard_help(tool))
}

fn parts_help(tool: &str, owner: &str) -> String {
    format!(
        "descriptions are sent as written (they are not templates): move the sentence into a `description_parts:` \
         entry of tool `{owner}` with `tools: [{tool}]`, sent only while `{tool}` is active"
    )
}

/// A template's place: its file, from where its text starts (inline text of the manifest too).
fn template_place(project: &Project, template: &str, what: String, tool: &str, help: String) -> Place {
    let label = match project.templates.start(template) {
        Some((file, from)) => locate(project, file, from, tool),
        None => locate(project, template.split('#').next().unwrap_or(template), 0, tool),
    };
    Place { what, label, help }
}

/// Parameter descriptions of `params` (nested ones too) that name `tool`: the top-level
/// parameter each belongs to.
fn params_naming<'a>(params: &'a [Property], tool: &str, out: &mut Vec<&'a str>, top: Option<&'a str>) {
    for p in params {
        let top_name = top.unwrap_or(&p.name);
        if p.schema.description.as_deref().is_some_and(|d| !tool_mentions(d, tool).is_empty())
            && !out.contains(&top_name)
        {
            out.push(top_name);
        }
        let mut schema = &p.schema;
        while let Kind::Array { items, .. } = &schema.kind {
            if items.description.as_deref().is_some_and(|d| !tool_mentions(d, tool).is_empty())
                && !out.contains(&top_name)
            {
                out.push(top_name);
            }
            schema = items;
        }
        if let Kind::Object { properties, .. } = &schema.kind {
            params_naming(properties, tool, out, Some(top_name));
        }
    }
}

/// Which of a tool's texts a part of what is sent carries.
#[derive(Clone, Copy)]
struct ToolTexts {
    /// The description and the parameters' (tool docs, the action schema, the tools JSON).
    descriptions: bool,
    /// Its guidance (the tool guidance section).
    guidance: bool,
    /// Its slot contributions (a slot's section).
    contributions: bool,
}

const DESCRIPTIONS: ToolTexts = ToolTexts { descriptions: true, guidance: false, contributions: false };

/// The places of `owner`'s texts (those `which` selects) that name `tool`.
fn tool_text_places(project: &Project, owner: &ActiveTool, tool: &str, which: ToolTexts) -> Vec<Place> {
    let Some(decl) = project.catalog.get(&owner.name) else { return Vec::new() };
    let at = |from: usize| locate(project, &decl.file, from, tool);
    let mut out = Vec::new();
    let mut params = Vec::new();
    if which.descriptions {
        params_naming(&owner.params, tool, &mut params, None);
    }
    if which.descriptions && !tool_mentions(&owner.description, tool).is_empty() {
        out.push(Place {
            what: format!("the description of tool `{}`", owner.name),
            label: at(decl.decl_span.start),
            help: parts_help(tool, &owner.name),
        });
    }
    for p in params {
        out.push(Place {
            what: format!("parameter `{p}` of tool `{}`", owner.name),
            label: at(decl.decl_span.start),
            help: format!(
                "parameter descriptions are sent as written: move the sentence into a `description_parts:` entry of \
                 tool `{}` with `tools: [{tool}]`",
                owner.name
            ),
        });
    }
    if which.descriptions {
        for (i, e) in owner.examples.iter().enumerate() {
            let text = format!(
                "{} {}",
                e.description.as_deref().unwrap_or(""),
                serde_json::Value::Object(e.arguments.clone())
            );
            if tool_mentions(&text, tool).is_empty() {
                continue;
            }
            out.push(Place {
                what: format!("example {} of tool `{}`", i + 1, owner.name),
                label: at(decl.decl_span.start),
                help: format!("examples are shown as written: change the example, or give the call to `{tool}` in a section guarded with {{% if \"{tool}\" in tool_names %}}…{{% endif %}}"),
            });
        }
    }
    if which.guidance && owner.guidance.as_deref().is_some_and(|g| !tool_mentions(g, tool).is_empty()) {
        out.push(Place {
            what: format!("the guidance of tool `{}`", owner.name),
            label: at(decl.decl_span.start),
            help: format!(
                "guidance is inserted as written while `{}` is active: move the sentence into a section guarded with \
                 {{% if \"{tool}\" in tool_names %}}…{{% endif %}}",
                owner.name
            ),
        });
    }
    if which.contributions {
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
                label: at(decl.decl_span.start),
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
    out
}

/// The section of `c` whose text holds prompt byte `at`, by its index.
fn section_at(c: &Compiled, at: usize) -> Option<usize> {
    c.offsets
        .iter()
        .enumerate()
        .find_map(|(i, o)| o.filter(|s| (*s..*s + c.sections[i].text.len()).contains(&at)).map(|_| i))
}

/// Where the mention of `tool` at prompt byte `at` comes from.
fn prompt_places(project: &Project, c: &Compiled, at: usize, tool: &str) -> Vec<Place> {
    let Some(i) = section_at(c, at) else {
        let what = "the layout".to_string();
        return vec![match &project.layout {
            Some(layout) => template_place(project, layout, what, tool, prompt_help(tool)),
            None => Place { what, label: locate(project, &project.manifest, 0, tool), help: prompt_help(tool) },
        }];
    };
    let s = &c.sections[i];
    let declared = project.sections.get(&s.id);
    match declared.map(|x| &x.source) {
        Some(SectionSource::Template(name)) => {
            vec![template_place(project, name, format!("section `{}`", s.id), tool, prompt_help(tool))]
        }
        Some(source) => {
            // Generated text (tool docs, the action schema, guidance, slots): the tool text it
            // was made from.
            let which = match source {
                SectionSource::Generated(Generator::ToolGuidance) => {
                    ToolTexts { descriptions: false, guidance: true, contributions: false }
                }
                SectionSource::Slot(_) => ToolTexts { descriptions: false, guidance: false, contributions: true },
                SectionSource::Template(_)
                | SectionSource::Generated(Generator::ToolDocs | Generator::ActionSchema | Generator::ToolExamples) => {
                    DESCRIPTIONS
                }
            };
            let places: Vec<Place> = c.tools.iter().flat_map(|o| tool_text_places(project, o, tool, which)).collect();
            if places.is_empty() {
                let label = declared.map_or_else(|| Label::file(&project.manifest), |d| project.label(&d.span));
                vec![Place { what: format!("section `{}`", s.id), label, help: prompt_help(tool) }]
            } else {
                places
            }
        }
        None => Vec::new(),
    }
}

/// Record that `place` names `tool` in cell `stem`.
fn record(found: &mut BTreeMap<(String, String), (Label, String, Vec<String>)>, place: Place, tool: &str, stem: &str) {
    let entry = found.entry((place.what, tool.to_string())).or_insert_with(|| (place.label, place.help, Vec::new()));
    if !entry.2.iter().any(|c| c == stem) {
        entry.2.push(stem.to_string());
    }
}

/// Which catalog tool names occur in a text at all (as substrings), found in one pass: only
/// those are then read closely with [`mentions`].
struct Names<'a> {
    names: Vec<&'a str>,
    finder: Option<aho_corasick::AhoCorasick>,
}

impl<'a> Names<'a> {
    fn new(names: Vec<&'a str>) -> Self {
        let finder = aho_corasick::AhoCorasick::new(&names).ok();
        Names { names, finder }
    }

    /// The names occurring in `text` that `keep` accepts, in catalog order.
    fn in_text(&self, text: &str, keep: impl Fn(&str) -> bool) -> Vec<&'a str> {
        let Some(f) = &self.finder else {
            return self.names.iter().copied().filter(|n| keep(n) && text.contains(n)).collect();
        };
        let mut seen = vec![false; self.names.len()];
        for m in f.find_overlapping_iter(text) {
            seen[m.pattern().as_usize()] = true;
        }
        self.names.iter().zip(seen).filter(|(n, s)| *s && keep(n)).map(|(n, _)| *n).collect()
    }
}

/// Every text of `t` the tools JSON carries, joined: what [`tool_text_places`] reads with
/// `DESCRIPTIONS`.
fn description_texts(t: &ActiveTool) -> String {
    fn params(ps: &[Property], out: &mut String) {
        for p in ps {
            let mut schema = &p.schema;
            loop {
                if let Some(d) = &schema.description {
                    out.push_str(d);
                    out.push('\n');
                }
                match &schema.kind {
                    Kind::Array { items, .. } => schema = items,
                    Kind::Object { properties, .. } => {
                        params(properties, out);
                        break;
                    }
                    _ => break,
                }
            }
        }
    }
    let mut out = format!("{}\n", t.description);
    params(&t.params, &mut out);
    for e in &t.examples {
        out.push_str(e.description.as_deref().unwrap_or(""));
        out.push_str(&serde_json::Value::Object(e.arguments.clone()).to_string());
        out.push('\n');
    }
    out
}

/// Find every catalog tool named in a text a cell sends while it is inactive there.
pub(crate) fn check(project: &Project, views: &[CellView], out: &mut Vec<Diagnostic>) {
    // (where, tool) → (label, help, cells)
    let mut found: BTreeMap<(String, String), (Label, String, Vec<String>)> = BTreeMap::new();
    let names = Names::new(project.catalog.tools().iter().map(|t| t.name.as_str()).collect());
    for v in views {
        let c = &v.compiled;
        let stem = v.cell.stem();
        let active: BTreeSet<&str> = c.tools.iter().map(|t| t.name.as_str()).collect();
        let is_inactive = |n: &str| !active.contains(n);
        // A parameter's tags in the tool docs (`<note>…</note>`) are not calls of a tool `note`.
        let param_names: BTreeSet<&str> =
            c.tools.iter().flat_map(|t| t.params.iter().map(|p| p.name.as_str())).collect();
        for name in names.in_text(&c.prompt, is_inactive) {
            for at in mentions(&c.prompt, name, !param_names.contains(name)) {
                for place in prompt_places(project, c, at, name) {
                    record(&mut found, place, name, &stem);
                }
            }
        }
        // The tools JSON of a native cell carries every description as written.
        if c.transport == Transport::Native {
            for t in &c.tools {
                for name in names.in_text(&description_texts(t), is_inactive) {
                    for place in tool_text_places(project, t, name, DESCRIPTIONS) {
                        record(&mut found, place, name, &stem);
                    }
                }
            }
        }
        // Slash commands, rendered for the cell's profile and switches (main prompts only:
        // commands are sent to the main agent).
        if v.cell.subagent.is_none() && v.cell.transport == project.defaults.transport {
            let Ok(resolved) = crate::resolve::resolve_matrix_cell(project, &v.cell) else { continue };
            for (cmd_name, cmd) in &project.commands {
                let Ok(text) = crate::render::command::render(project, &resolved, cmd_name) else { continue };
                for name in names.in_text(&text, is_inactive) {
                    if tool_mentions(&text, name).is_empty() {
                        continue;
                    }
                    let template = cmd.template_for(&v.cell.profile);
                    let place =
                        template_place(project, template, format!("command `{cmd_name}`"), name, guard_help(name));
                    record(&mut found, place, name, &stem);
                }
            }
        }
    }
    for ((place, tool), (label, help, cells)) in found {
        out.push(
            finding(
                RuleCode::P001,
                format!(
                    "{place} names tool `{tool}`, which is not active in {} cell{}",
                    cells.len(),
                    if cells.len() == 1 { "" } else { "s" }
                ),
            )
            .with_label(label)
            .with_note(format!("cells: {}", cells.join(", ")))
            .with_help(help),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinctive_names_match_as_identifiers_only() {
        assert!(names_tool("use read_file first", "read_file"));
        assert!(!names_tool("use read_files first", "read_file"));
        assert!(!names_tool("my_read_file", "read_file"));
        assert!(names_tool("call `search` now", "search"));
        assert!(!names_tool("search the web", "search"));
    }

    #[test]
    fn plain_names_in_the_forms_a_model_reads_as_calls() {
        for text in [
            "任务需求不明确时 → clarify（主动提问，不要猜测）",
            "- ask: -> clarify",
            "clarify(question=\"which file?\")",
            "Reply with <clarify>your question</clarify>.",
            "<clarify question=\"x\"/>",
            "If unsure, use clarify to ask the user.",
            "When stuck, call clarify.",
            "Invoke clarify",
            "use the clarify tool",
            "The clarify tool asks the user.",
            "Ask with the clarify tool.",
            "{\"name\": \"clarify\", \"arguments\": {}}",
            "{\"@action\":\"clarify\"}",
            "不清楚时调用 clarify 提问",
            "请使用clarify工具",
            "`clarify`",
        ] {
            assert!(names_tool(text, "clarify"), "{text}");
        }
    }

    #[test]
    fn ordinary_english_stays_quiet() {
        for (text, tool) in [
            ("read the file before you edit it", "read"),
            ("Before you edit, read.", "read"),
            ("rename variables consistently", "rename"),
            ("search the web for the error", "search"),
            ("use search results with care", "search"),
            ("list every step you take", "list"),
            ("write tests, then run them", "run"),
            ("please clarify the requirement with the user", "clarify"),
            ("we use patch releases", "patch"),
            ("the user may ask questions", "ask"),
            ("a todo list is a plan", "todo"),
            ("\"clarify\" is an English word", "clarify"),
            ("to clarify, (this is an aside)", "clarify"),
            ("You call tools by writing XML", "call"),
            ("a search tool finds things", "find"),
        ] {
            assert!(!names_tool(text, tool), "{text}");
        }
    }
}
