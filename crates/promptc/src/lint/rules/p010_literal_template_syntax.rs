//! P010 literal-template-syntax: template syntax in tool text, which is sent as written.

use crate::code::{Level, RuleCode};
use crate::diagnostic::{Diagnostic, Span};
use crate::lint::finding;
use crate::lint::registry::Rule;
use crate::model::catalog::{ContributionBody, Tool};
use crate::model::params::descriptions;
use crate::model::Project;

pub const RULE: Rule = Rule {
    code: RuleCode::P010,
    name: "literal-template-syntax",
    default: Level::Warn,
    summary: "tool text holds template syntax, which the model receives as written",
    explain: "Tool descriptions, parameter descriptions, description parts, overrides, variants, guidance, examples \
        and `text:` contributions are sent as written: they are not templates, unless the tool is `templated: true`. `{{ working_dir }}` in a parameter \
        description reaches the model with its braces, and `{% if %}` is shown, not evaluated.\n\nFix: write the \
        value out; move a sentence that depends on a runtime value into a section, or into a `template:` \
        contribution; or allow P010 where the braces are meant (a tool that documents templates).",
};

/// The template delimiters that mean a text was written as a template.
const SYNTAX: [&str; 3] = ["{{", "{%", "{#"];

/// Every tool text sent as written that holds template syntax, located at the delimiter.
pub(crate) fn check(project: &Project, out: &mut Vec<Diagnostic>) {
    for t in project.catalog.tools() {
        // A templated tool's texts are rendered per cell, not sent as written.
        for (what, text, from) in
            literal_texts(t).into_iter().filter(|(_, text, _)| !t.text_templates.names.contains_key(*text))
        {
            let Some(syntax) = SYNTAX.iter().filter_map(|s| text.find(s).map(|i| (i, *s))).min().map(|(_, s)| s) else {
                continue;
            };
            out.push(
                finding(RuleCode::P010, format!("{what} holds `{syntax}`, which the model receives as written"))
                    .with_label(locate(project, from, syntax))
                    .with_help(
                        "tool text is not a template: write the value out, mark the tool `templated: true` to render \
                         its texts per cell, or move the sentence into a section or a `template:` contribution",
                    ),
            );
        }
    }
}

/// The label of the first `syntax` in the file of `from` at or after it (else `from` itself).
fn locate(project: &Project, from: &Span, syntax: &str) -> crate::diagnostic::Label {
    let found = project.files.get(&from.file).and_then(|f| {
        let start = from.start.min(f.text.len());
        let at = f.text.get(start..)?.find(syntax)? + start;
        Some(f.label_bytes(at, at + syntax.len()))
    });
    found.unwrap_or_else(|| project.label(from))
}

/// Each text of `t` sent as written: what to call it, the text, and where to look for it.
fn literal_texts(t: &Tool) -> Vec<(String, &str, &Span)> {
    let name = &t.name;
    let mut out: Vec<(String, &str, &Span)> =
        vec![(format!("the description of tool `{name}`"), &t.description, &t.decl_span)];
    for p in &t.description_parts {
        out.push((format!("a description part of tool `{name}`"), &p.text, &t.decl_span));
    }
    let wordings = t.overrides.iter().map(|(profile, w)| (format!("the `{profile}` override"), w));
    let wordings =
        wordings.chain(t.variants.iter().enumerate().map(|(i, v)| (format!("variant {}", i + 1), &v.wording)));
    for (which, w) in wordings {
        if let Some(d) = &w.description {
            out.push((format!("{which} of tool `{name}`"), d, &w.span));
        }
        for (param, d) in &w.params {
            let span = w.param_spans.get(param).unwrap_or(&w.span);
            out.push((format!("{which} of tool `{name}`, parameter `{param}`"), d, span));
        }
    }
    for (_, p, d) in descriptions(&t.params) {
        out.push((format!("parameter `{}` of tool `{name}`", p.name), d, &p.span));
    }
    if let Some(g) = &t.guidance {
        out.push((format!("the guidance of tool `{name}`"), g, &t.guidance_span));
    }
    for c in &t.contributions {
        if let ContributionBody::Literal(text) = &c.body {
            out.push((format!("the contribution of tool `{name}` to slot `{}`", c.slot), text, &c.slot_span));
        }
    }
    for (i, e) in t.examples.iter().enumerate() {
        if let Some(d) = &e.description {
            out.push((format!("example {} of tool `{name}`", i + 1), d, &e.span));
        }
    }
    out
}
