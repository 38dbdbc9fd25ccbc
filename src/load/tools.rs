//! Loading the tool catalog: tool specs, parameters, overrides, guidance and contributions.

use super::*;

/// What tool validation needs from the rest of the project.
pub(super) struct ToolEnv<'a> {
    pub(super) switches: &'a IndexMap<String, Switch>,
    pub(super) profiles: &'a [&'a str],
    pub(super) slots: &'a IndexMap<String, Slot>,
}

/// Validate a tool's `contributes:` list.
pub(super) fn build_contributions(
    ck: &mut Checker<'_>,
    tool: &str,
    raw: &Spanned<Vec<crate::load::raw::RawContribution>>,
    env: &ToolEnv<'_>,
    templates: &mut Templates,
) -> Option<Vec<crate::model::catalog::Contribution>> {
    use crate::model::catalog::{Contribution, ContributionBody};
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
        let Some(slot) = &c.slot else {
            ok = false;
            let at = c.text.as_ref().or(c.template.as_ref()).map_or(raw.referenced, |t| t.referenced);
            ck.error(
                &at,
                format!("contribution of tool `{tool}` without a slot"),
                format!(
                    "add `slot: NAME` naming where the text goes; legal slots: {}",
                    if legal.is_empty() { "none declared".into() } else { legal.join(", ") }
                ),
            );
            continue;
        };
        match env.slots.get(&slot.value) {
            None => {
                ok = false;
                ck.error(
                    &slot.referenced,
                    format!("unknown slot `{}` in contribution of tool `{tool}`", slot.value),
                    known_names_help("slot", &slot.value, &legal),
                );
                continue;
            }
            Some(sl) => {
                if let Some(why) = sl.kind.forbidden_because() {
                    ok = false;
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
                    continue;
                }
            }
        }
        let body = match (&c.text, &c.template) {
            (Some(_), Some(t)) => {
                ok = false;
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
                continue;
            }
            (None, None) => {
                ok = false;
                ck.error(
                    &slot.referenced,
                    format!("slot `{}` named by tool `{tool}` without a contribution", slot.value),
                    "add `text:` (literal, inserted verbatim) or `template:` (rendered with the prompt context)",
                );
                continue;
            }
            (Some(t), None) => ContributionBody::Literal(t.value.clone()),
            (None, Some(t)) => {
                let name = format!("{}#tools.{tool}.contributes.{i}", ck.file.rel);
                if !add_inline(ck, templates, &name, &t.value, &t.referenced, "template", true) {
                    ok = false;
                    continue;
                }
                ContributionBody::Template(name)
            }
        };
        let mut profiles = Vec::new();
        for p in &c.profiles {
            if env.profiles.contains(&p.value.as_str()) {
                profiles.push(p.value.clone());
            } else {
                ok = false;
                ck.error(
                    &p.referenced,
                    format!("unknown profile `{}` in contribution of tool `{tool}`", p.value),
                    known_names_help("profile", &p.value, env.profiles),
                );
            }
        }
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
        out.push(Contribution { slot: slot.value.clone(), body, profiles });
    }
    ok.then_some(out)
}

pub(super) fn build_tool(
    ck: &mut Checker<'_>,
    rt: &RawTool,
    env: &ToolEnv<'_>,
    sites: &mut BTreeMap<String, String>,
    templates: &mut Templates,
) -> Option<Tool> {
    let (switches, profiles) = (env.switches, env.profiles);
    let name = &rt.name;
    let mut ok = true;
    if !crate::model::catalog::valid_tool_name(&name.value) {
        ok = false;
        ck.error(
            &name.referenced,
            format!("invalid tool name `{}`", name.value),
            "tool names start with a letter or \
            `_`, then letters, digits, `_` or `-`, at most 64 characters: the rule every provider accepts",
        );
    }
    if let Some(first) = sites.get(&name.value) {
        ck.diags.push(
            Diagnostic::error(format!("duplicate tool name `{}`", name.value))
                .with_label(ck.label(&name.referenced))
                .with_note(format!("first declared at {first}"))
                .with_help("declare each tool once; use `overrides:` for profile-specific wording"),
        );
        return None;
    }
    let site = format!("{}:{}:{}", ck.file.display, name.referenced.line(), name.referenced.column());
    sites.insert(name.value.clone(), site);
    if !is_ident(&rt.toolset.value, &['-']) {
        ok = false;
        ck.error(
            &rt.toolset.referenced,
            format!("invalid toolset name `{}`", rt.toolset.value),
            "toolset names start with a letter and contain letters, digits, `_` or `-`",
        );
    }
    let when = match &rt.when {
        Some(w) => ck.when(w, switches).unwrap_or(Condition::Always),
        None => Condition::Always,
    };
    let mut builder = SchemaBuilder::new(ck.file);
    let mut when_errors = Diagnostics::new(ErrorKind::Project);
    let params = {
        let file = ck.file;
        let mut parse_when = |w: &S| {
            let mut sub = Checker { file, diags: &mut when_errors };
            sub.when(w, switches)
        };
        builder.properties(&rt.parameters, true, &mut parse_when)
    };
    for d in builder.problems {
        ok = false;
        ck.diags.push(d);
    }
    if !when_errors.is_empty() {
        ok = false;
        ck.diags.absorb::<()>(when_errors.finish(()).map(|_| ()));
    }
    let mut overrides = IndexMap::new();
    for (profile, ov) in &rt.overrides {
        if !profiles.contains(&profile.value.as_str()) {
            ok = false;
            ck.error(
                &profile.referenced,
                format!("override for unknown profile `{}` on tool `{}`", profile.value, name.value),
                known_names_help("profile", &profile.value, profiles),
            );
            continue;
        }
        let mut params_ov = IndexMap::new();
        let param_names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
        for (pname, pov) in &ov.parameters {
            if !param_names.contains(&pname.value.as_str()) {
                ok = false;
                ck.error(
                    &pname.referenced,
                    format!("override for unknown parameter `{}` of tool `{}`", pname.value, name.value),
                    known_names_help("parameter", &pname.value, &param_names),
                );
                continue;
            }
            params_ov.insert(pname.value.clone(), pov.description.clone());
        }
        overrides
            .insert(profile.value.clone(), ToolOverride { description: ov.description.clone(), params: params_ov });
    }
    if rt.description.value.trim().is_empty() {
        ok = false;
        ck.error(
            &rt.description.referenced,
            format!("tool `{}` has an empty description", name.value),
            "describe what the tool does and when to use it: the model relies on it",
        );
    }
    let contributions = match &rt.contributes {
        Some(c) => build_contributions(ck, &name.value, c, env, templates).unwrap_or_else(|| {
            ok = false;
            Vec::new()
        }),
        None => Vec::new(),
    };
    let guidance = rt.guidance.as_ref().map(|g| g.value.trim().to_string()).filter(|g| !g.is_empty());
    let name_span = ck.span(&name.referenced);
    let decl_span = ck.entry_span(&name.referenced, "name");
    ok.then(|| Tool {
        name_span,
        decl_span,
        name: name.value.clone(),
        toolset: rt.toolset.value.clone(),
        description: rt.description.value.clone(),
        when,
        params,
        overrides,
        file: ck.file.rel.clone(),
        spawns_subagents: rt.spawns_subagents,
        guidance,
        contributions,
    })
}
