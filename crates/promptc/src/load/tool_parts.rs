//! The lists of a tool: description parts, contributions to prompt slots and example calls.

use serde_saphyr::Spanned;

use crate::diagnostic::{known_names_help, Diagnostic};
use crate::format::tool::{RawContribution, RawDescriptionPart, RawExample};
use crate::format::S;
use crate::model::catalog::{Contribution, ContributionBody, DescriptionPart, ToolExample};
use crate::model::condition::Condition;
use crate::model::params::{value_matches, Property};
use crate::model::section::SlotKind;
use promptc_template::Templates;

use super::checker::Checker;
use super::templates::add_inline;
use super::tools::{profile_list, ToolEnv};

/// Validate a tool's `description_parts:` (tool names are checked once the catalog is whole).
pub(super) fn build_description_parts(
    ck: &mut Checker<'_>,
    tool: &str,
    raw: &Spanned<Vec<RawDescriptionPart>>,
    env: &ToolEnv<'_>,
) -> Option<Vec<DescriptionPart>> {
    if raw.value.is_empty() {
        ck.error(
            &raw.referenced,
            format!("tool `{tool}` has an empty `description_parts:` list"),
            "remove the key, or add parts: `- text: …` with `tools:`, `when:` or `profiles:` saying where each is sent",
        );
        return None;
    }
    let mut ok = true;
    let mut out = Vec::new();
    for (i, part) in raw.value.iter().enumerate() {
        let what = format!("description part {} of tool `{tool}`", i + 1);
        if part.text.value.trim().is_empty() {
            ok = false;
            ck.error(
                &part.text.referenced,
                format!("{what} is empty"),
                "give the sentence to send, or remove the part",
            );
        }
        let when = match &part.when {
            Some(w) => match ck.when(w, env.switches) {
                Some(c) => c,
                None => {
                    ok = false;
                    Condition::Always
                }
            },
            None => Condition::Always,
        };
        let profiles = profile_list(ck, part.profiles.as_ref(), &what, env);
        ok &= profiles.is_some();
        out.push(DescriptionPart {
            text: part.text.value.clone(),
            tools: part.tools.iter().map(|t| t.value.clone()).collect(),
            tool_spans: part.tools.iter().map(|t| ck.span(&t.referenced)).collect(),
            when,
            profiles: profiles.unwrap_or_default(),
        });
    }
    ok.then_some(out)
}

/// Validate a tool's `examples:` against its parameters: known names, values of the declared
/// types, every always-required parameter given.
pub(super) fn build_examples(
    ck: &mut Checker<'_>,
    tool: &str,
    raw: &Spanned<Vec<RawExample>>,
    params: &[Property],
) -> Option<Vec<ToolExample>> {
    if raw.value.is_empty() {
        ck.error(
            &raw.referenced,
            format!("tool `{tool}` has an empty `examples:` list"),
            "remove the key, or add an \
            example: `- arguments: {NAME: VALUE}`",
        );
        return None;
    }
    let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
    let mut ok = true;
    let mut out = Vec::new();
    for (i, e) in raw.value.iter().enumerate() {
        let what = format!("example {} of tool `{tool}`", i + 1);
        let at = &e.arguments.referenced;
        let Some(args) = e.arguments.value.as_object() else {
            ok = false;
            ck.error(
                at,
                format!("the arguments of {what} are not a mapping"),
                "give `arguments:` as a mapping of \
                parameter names to values, e.g. `{path: src/main.rs}`",
            );
            continue;
        };
        for (k, v) in args {
            match params.iter().find(|p| &p.name == k) {
                None => {
                    ok = false;
                    ck.error(
                        at,
                        format!("{what} uses unknown parameter `{k}`"),
                        known_names_help("parameter", k, &names),
                    );
                }
                Some(p) if !value_matches(&p.schema, v) => {
                    ok = false;
                    ck.error(
                        at,
                        format!("argument `{k}` of {what} is not a valid {}", p.schema.kind.type_name()),
                        "an example must be a call the tool accepts: give a value of the parameter's type (and one of \
                            its `enum:` values, if it has them)",
                    );
                }
                Some(_) => {}
            }
        }
        for p in params.iter().filter(|p| p.required && p.when == Condition::Always && p.profiles.is_empty()) {
            if !args.contains_key(&p.name) {
                ok = false;
                ck.error(
                    at,
                    format!("{what} leaves out required parameter `{}`", p.name),
                    "an example must be a \
                    call the tool accepts: give every required parameter",
                );
            }
        }
        let mut span = ck.span(at);
        if let Some(d) = e.description.as_ref().map(|d| ck.span(&d.referenced)).filter(|d| d.start < span.start) {
            span = d;
        }
        out.push(ToolExample {
            description: e.description.as_ref().map(|d| d.value.clone()),
            arguments: args.clone(),
            span,
        });
    }
    ok.then_some(out)
}

/// Validate a tool's `contributes:` list.
pub(super) fn build_contributions(
    ck: &mut Checker<'_>,
    tool: &str,
    raw: &Spanned<Vec<RawContribution>>,
    env: &ToolEnv<'_>,
    templates: &mut Templates,
) -> Option<Vec<Contribution>> {
    if raw.value.is_empty() {
        ck.error(
            &raw.referenced,
            format!("tool `{tool}` has an empty `contributes:` list (an empty set of slots)"),
            "a tool that contributes nothing has no `contributes:` key at all; remove it (an empty list is not a way \
                to say \"no contribution\")",
        );
        return None;
    }
    let legal: Vec<&str> =
        env.slots.iter().filter(|(_, s)| s.kind == SlotKind::System).map(|(k, _)| k.as_str()).collect();
    let mut ok = true;
    let mut out: Vec<Contribution> = Vec::new();
    for (i, c) in raw.value.iter().enumerate() {
        let Some(slot) = contribution_slot(ck, tool, raw, c, env, &legal) else {
            ok = false;
            continue;
        };
        let Some(body) = contribution_body(ck, tool, i, c, slot, templates) else {
            ok = false;
            continue;
        };
        let Some(profiles) = profile_list(
            ck,
            c.profiles.as_ref(),
            &format!("contribution of tool `{tool}` to slot `{}`", slot.value),
            env,
        ) else {
            ok = false;
            continue;
        };
        let overlaps = |a: &[String], b: &[String]| a.is_empty() || b.is_empty() || a.iter().any(|x| b.contains(x));
        if out.iter().any(|o| o.slot == slot.value && overlaps(&o.profiles, &profiles)) {
            ok = false;
            ck.error(
                &slot.referenced,
                format!("tool `{tool}` contributes to slot `{}` twice", slot.value),
                "a tool contributes once per slot; merge the texts, or restrict each to different `profiles:`",
            );
            continue;
        }
        out.push(Contribution { slot: slot.value.clone(), slot_span: ck.span(&slot.referenced), body, profiles });
    }
    ok.then_some(out)
}

/// A contribution's slot: given, declared, and one tools may fill.
fn contribution_slot<'c>(
    ck: &mut Checker<'_>,
    tool: &str,
    raw: &Spanned<Vec<RawContribution>>,
    c: &'c RawContribution,
    env: &ToolEnv<'_>,
    legal: &[&str],
) -> Option<&'c S> {
    let Some(slot) = &c.slot else {
        let at = c.text.as_ref().or(c.template.as_ref()).map_or(raw.referenced, |t| t.referenced);
        ck.error(
            &at,
            format!("contribution of tool `{tool}` without a slot"),
            format!(
                "add `slot: NAME` naming where the text goes; legal slots: {}",
                if legal.is_empty() { "none declared".into() } else { legal.join(", ") }
            ),
        );
        return None;
    };
    match env.slots.get(&slot.value) {
        None => {
            ck.error(
                &slot.referenced,
                format!("unknown slot `{}` in contribution of tool `{tool}`", slot.value),
                known_names_help("slot", &slot.value, legal),
            );
            return None;
        }
        Some(sl) => {
            if let Some(why) = sl.kind.forbidden_because() {
                let rule = if sl.kind == SlotKind::UserIntent {
                    "user-intent slots are not injectable"
                } else {
                    "history slots are not injectable"
                };
                ck.diags.push(
                    Diagnostic::error(format!("tool `{tool}` may not contribute to slot `{}`: {rule}", slot.value))
                        .with_label(ck.label(&slot.referenced))
                        .with_note(format!("slot `{}` is not injectable because {why}", slot.value))
                        .with_help(format!(
                            "contribute to a system slot instead: {}",
                            if legal.is_empty() { "none declared".into() } else { legal.join(", ") }
                        )),
                );
                return None;
            }
        }
    }
    Some(slot)
}

/// A contribution's text: literal, or a template compiled with its place in the file.
fn contribution_body(
    ck: &mut Checker<'_>,
    tool: &str,
    i: usize,
    c: &RawContribution,
    slot: &S,
    templates: &mut Templates,
) -> Option<ContributionBody> {
    Some(match (&c.text, &c.template) {
        (Some(_), Some(t)) => {
            ck.error(
                &t.referenced,
                format!(
                    "contribution of tool `{tool}` to slot `{}` has both `text` and \
                `template`",
                    slot.value
                ),
                "use `text:` for literal text (inserted verbatim) or `template:` for \
                text rendered with the prompt context, not both",
            );
            return None;
        }
        (None, None) => {
            ck.error(
                &slot.referenced,
                format!("slot `{}` named by tool `{tool}` without a contribution", slot.value),
                "add `text:` (literal, inserted verbatim) or `template:` (rendered with the prompt context)",
            );
            return None;
        }
        (Some(t), None) => ContributionBody::Literal(t.value.clone()),
        (None, Some(t)) => {
            let name = format!("{}#tools.{tool}.contributes.{i}", ck.file.rel);
            if !add_inline(ck, templates, &name, &t.value, &t.referenced, "template", true) {
                return None;
            }
            ContributionBody::Template(name)
        }
    })
}
