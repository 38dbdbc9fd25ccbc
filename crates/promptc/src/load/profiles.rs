//! `profiles:`: prompt contracts, their tool selections, harness messages and budgets.

use indexmap::IndexMap;
use serde_saphyr::Spanned;

use crate::diagnostic::{known_names_help, Diagnostic, Label, Span};
use crate::format::entries::{RawBudget, RawProfile};
use crate::format::S;
use crate::model::budget::{parse_amount, Budget};
use crate::model::catalog::ToolSelection;
use crate::model::profile::{Message, MessageForm};
use crate::model::{Profile, RESERVED_PROFILE_NAMES};

use super::catalog::Declared;
use super::checker::{is_ident, Checker};
use super::loader::Loader;

impl Loader<'_> {
    /// Profile names first: sections, tools and overrides refer to them.
    pub(super) fn check_profile_names(&mut self) {
        let raw = self.raw;
        let mut ck = self.ck();
        for name in raw.profiles.keys() {
            if RESERVED_PROFILE_NAMES.contains(&name.value.as_str()) {
                ck.error(
                    &name.referenced,
                    format!(
                        "`{}` cannot be a profile name: it is a transport or provider, not a prompt \
                        contract",
                        name.value
                    ),
                    "a profile is a complete prompt contract (e.g. `standard`, `lite`); a request chooses \
                     its transport and provider independently of the profile",
                );
            } else if !is_ident(&name.value, &['-']) || name.value.chars().any(|c| c.is_ascii_uppercase()) {
                ck.error(
                    &name.referenced,
                    format!("invalid profile name `{}`", name.value),
                    "profile names are lower-case: a letter, then letters, digits, `_` or `-`",
                );
            }
        }
        if raw.profiles.is_empty() {
            ck.diags.push(
                Diagnostic::error("the project declares no profiles")
                    .with_label(Label::file(&ck.file.display))
                    .with_help("add a `profiles:` entry such as `standard`"),
            );
        }
    }

    /// Every profile; tool references are checked when every catalog file loaded.
    pub(super) fn profiles(&mut self, declared: &Declared) -> IndexMap<String, Profile> {
        let (raw, sections) = (self.raw, self.section_ids.clone());
        let toolsets: Vec<&str> = declared.toolsets.iter().map(String::as_str).collect();
        let tools: Vec<&str> = declared.tools.iter().map(String::as_str).collect();
        let catalog = declared.complete.then_some((toolsets.as_slice(), tools.as_slice()));
        let mut ck = self.ck();
        let mut profiles = IndexMap::new();
        for (name, p) in &raw.profiles {
            let span = ck.span(&name.referenced);
            profiles.insert(name.value.clone(), build_profile(&mut ck, &name.value, span, p, &sections, catalog));
        }
        profiles
    }
}

/// `catalog` holds the declared toolsets and tools, or `None` when a catalog file failed to
/// load and tool references cannot be checked.
fn build_profile(
    ck: &mut Checker<'_>,
    name: &str,
    span: Span,
    p: &RawProfile,
    sections: &[&str],
    catalog: Option<(&[&str], &[&str])>,
) -> Profile {
    let ctx = format!("profile `{name}`");
    let values = |list: &[S]| list.iter().map(|s| s.value.clone()).collect::<Vec<_>>();
    let tools = match catalog {
        Some((toolsets, tools)) => ToolSelection {
            toolsets: ck.refs(&p.toolsets, toolsets, "toolset", &ctx),
            tools: ck.refs(&p.tools, tools, "tool", &ctx),
            exclude: ck.refs(&p.exclude, tools, "tool", &format!("the exclusions of {ctx}")),
        },
        None => ToolSelection { toolsets: values(&p.toolsets), tools: values(&p.tools), exclude: values(&p.exclude) },
    };
    // Listed by name and excluded by name: a contradiction, not a quiet removal.
    for x in &p.exclude {
        if p.tools.iter().any(|t| t.value == x.value) {
            ck.error(
                &x.referenced,
                format!("tool `{}` is both listed in `tools:` and excluded by {ctx}", x.value),
                "keep it in one of the lists: `exclude:` removes tools a listed toolset brings in",
            );
        }
    }
    let sections_known = sections;
    let sections = ck.refs(&p.sections, sections, "section", &ctx);
    let budget = p.budget.as_ref().map(|b| build_budget(ck, name, &b.value, &sections)).unwrap_or_default();
    // The `budget:` key with its colon, as diagnostics have always underlined it.
    let budget_span = p.budget.as_ref().map(|b| {
        let key = ck.key_span(&b.referenced, "budget");
        Span { end: key.end + 1, ..key }
    });
    let budget_limit_spans = p.budget.as_ref().map(|b| limit_spans(ck, &b.value)).unwrap_or_default();
    let mut messages = Vec::new();
    for m in &p.messages {
        let ctx = format!("a message of {ctx}");
        let (lists, form) = match (&m.value.sections, &m.value.blocks) {
            (Some(sections), None) => (vec![sections], MessageForm::Text),
            (None, Some(blocks)) if blocks.value.is_empty() => {
                ck.error(
                    &blocks.referenced,
                    format!("{ctx} has no blocks"),
                    "list the message's content blocks, each with its `sections:`, or leave the message out",
                );
                continue;
            }
            (None, Some(blocks)) => (blocks.value.iter().map(|b| &b.sections).collect(), MessageForm::Blocks),
            (Some(sections), Some(_)) => {
                ck.error(
                    &sections.referenced,
                    format!("{ctx} has both `sections:` and `blocks:`"),
                    "`sections:` makes the message one text; `blocks:` a list of content blocks, each with its \
                     own `sections:`: keep one",
                );
                continue;
            }
            (None, None) => {
                ck.error(
                    &m.referenced,
                    format!("{ctx} has no content"),
                    "give it `sections: [..]` (one text) or `blocks: [{sections: [..]}, ..]` (content blocks)",
                );
                continue;
            }
        };
        let mut blocks = Vec::new();
        for (i, list) in lists.into_iter().enumerate() {
            if list.value.is_empty() {
                let what = match form {
                    MessageForm::Text => ctx.clone(),
                    MessageForm::Blocks => format!("block {} of {ctx}", i + 1),
                };
                ck.error(
                    &list.referenced,
                    format!("{what} has no sections"),
                    "list the sections the message is made of, or leave the message out",
                );
                continue;
            }
            blocks.push(ck.refs(&list.value, sections_known, "section", &ctx));
        }
        messages.push(Message { role: m.value.role, blocks, form });
    }
    Profile {
        name: name.to_string(),
        description: p.description.clone(),
        sections,
        tools,
        budget,
        span,
        budget_span,
        budget_limit_spans,
        messages,
    }
}

/// Where each limit of a budget is written: its key (`total` of `total: 12000`), by the limit's
/// path under `budget:`, so a finding about one limit points at its own line.
fn limit_spans(ck: &Checker<'_>, raw: &RawBudget) -> IndexMap<String, Span> {
    let mut out = IndexMap::new();
    for (key, v) in [("total", &raw.total), ("prompt", &raw.prompt), ("tools", &raw.tools)] {
        if let Some(v) = v {
            out.insert(key.to_string(), ck.key_span(&v.referenced, key));
        }
    }
    for (id, v) in &raw.sections {
        out.insert(format!("sections.{}", id.value), ck.key_span(&v.referenced, &id.value));
    }
    out
}

fn build_budget(ck: &mut Checker<'_>, profile: &str, raw: &RawBudget, sections: &[String]) -> Budget {
    let amount = |ck: &mut Checker<'_>, v: &Spanned<serde_json::Value>| match parse_amount(&v.value) {
        Ok(a) => Some(a),
        Err(msg) => {
            ck.error(
                &v.referenced,
                format!("invalid budget in profile `{profile}`: {msg}"),
                "write a whole number of tokens (`total: 12000`) or `{bytes: 40000}`",
            );
            None
        }
    };
    let mut b = Budget {
        total: raw.total.as_ref().and_then(|v| amount(ck, v)),
        prompt: raw.prompt.as_ref().and_then(|v| amount(ck, v)),
        tools: raw.tools.as_ref().and_then(|v| amount(ck, v)),
        sections: IndexMap::new(),
    };
    let known: Vec<&str> = sections.iter().map(String::as_str).collect();
    for (id, v) in &raw.sections {
        if !known.contains(&id.value.as_str()) {
            ck.error(
                &id.referenced,
                format!("budget names section `{}`, which profile `{profile}` does not have", id.value),
                known_names_help("section", &id.value, &known),
            );
            continue;
        }
        if let Some(a) = amount(ck, v) {
            b.sections.insert(id.value.clone(), a);
        }
    }
    b
}
