//! Loading the tool catalog: tool specs, parameters, overrides, guidance and contributions.

use super::*;

/// What tool validation needs from the rest of the project.
pub(super) struct ToolEnv<'a> {
    pub(super) switches: &'a IndexMap<String, Switch>,
    pub(super) profiles: &'a [&'a str],
    pub(super) slots: &'a IndexMap<String, Slot>,
    pub(super) descriptions: crate::model::catalog::DescriptionMode,
}

/// A `profiles:` list of `what`: every name a declared profile, and never empty (leaving the key
/// out means every profile; an empty list would mean none, which is never what was meant).
pub(super) fn profile_list(
    ck: &mut Checker<'_>,
    raw: Option<&Spanned<Vec<S>>>,
    what: &str,
    env: &ToolEnv<'_>,
) -> Option<Vec<String>> {
    let Some(raw) = raw else { return Some(Vec::new()) };
    if raw.value.is_empty() {
        ck.error(
            &raw.referenced,
            format!("{what} has an empty `profiles:` list"),
            "leave `profiles:` out to mean every profile, or name the profiles (an empty list would mean none)",
        );
        return None;
    }
    let mut ok = true;
    let mut out = Vec::new();
    for p in &raw.value {
        if env.profiles.contains(&p.value.as_str()) {
            out.push(p.value.clone());
        } else {
            ok = false;
            ck.error(
                &p.referenced,
                format!("unknown profile `{}` in {what}", p.value),
                known_names_help("profile", &p.value, env.profiles),
            );
        }
    }
    ok.then_some(out)
}

/// Validate a tool's `description_parts:` (tool names are checked once the catalog is whole).
fn build_description_parts(
    ck: &mut Checker<'_>,
    tool: &str,
    raw: &Spanned<Vec<crate::load::raw::RawDescriptionPart>>,
    env: &ToolEnv<'_>,
) -> Option<Vec<crate::model::catalog::DescriptionPart>> {
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
        out.push(crate::model::catalog::DescriptionPart {
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
fn build_examples(
    ck: &mut Checker<'_>,
    tool: &str,
    raw: &Spanned<Vec<crate::load::raw::RawExample>>,
    params: &[crate::model::params::Property],
) -> Option<Vec<crate::model::catalog::ToolExample>> {
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
                Some(p) if !crate::model::params::value_matches(&p.schema, v) => {
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
        out.push(crate::model::catalog::ToolExample {
            description: e.description.as_ref().map(|d| d.value.clone()),
            arguments: args.clone(),
        });
    }
    ok.then_some(out)
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
    let shape = builder.shape(rt.additional_properties.as_ref(), rt.required_order.as_ref(), &params);
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
        let unknown = |p: &str| format!("override for unknown parameter `{p}` of tool `{}`", name.value);
        let params_ov = param_wording(ck, &ov.parameters, &params, unknown, &mut ok);
        overrides
            .insert(profile.value.clone(), ToolOverride { description: ov.description.clone(), params: params_ov });
    }
    let mut variants = Vec::new();
    for (i, v) in rt.variants.iter().enumerate() {
        let what = format!("variant {} of tool `{}`", i + 1, name.value);
        let raw = &v.value;
        if raw.name.is_none() && raw.description.is_none() && raw.parameters.is_empty() {
            ok = false;
            ck.error(
                &v.referenced,
                format!("{what} changes nothing"),
                "give the `name`, `description` or `parameters` descriptions it sends instead",
            );
            continue;
        }
        if let Some(n) = raw.name.as_ref().filter(|n| !crate::model::catalog::valid_tool_name(&n.value)) {
            ok = false;
            ck.error(
                &n.referenced,
                format!("invalid tool name `{}` in {what}", n.value),
                "tool names start with a letter or `_`, then letters, digits, `_` or `-`, at most 64 characters",
            );
        }
        let when = match &raw.when {
            Some(w) => match ck.when(w, switches) {
                Some(c) => c,
                None => {
                    ok = false;
                    continue;
                }
            },
            None => Condition::Always,
        };
        let Some(profiles) = profile_list(ck, raw.profiles.as_ref(), &what, env) else {
            ok = false;
            continue;
        };
        let params_ov =
            param_wording(ck, &raw.parameters, &params, |p| format!("{what} words unknown parameter `{p}`"), &mut ok);
        variants.push(crate::model::catalog::ToolVariant {
            when,
            profiles,
            name: raw.name.as_ref().map(|n| n.value.clone()),
            wording: ToolOverride { description: raw.description.clone(), params: params_ov },
        });
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
    let description_parts = match &rt.description_parts {
        Some(parts) => build_description_parts(ck, &name.value, parts, env).unwrap_or_else(|| {
            ok = false;
            Vec::new()
        }),
        None => Vec::new(),
    };
    // Per-profile parameters: `profiles:` on a top-level parameter (the builder refuses it on
    // nested ones).
    let mut params = params;
    for p in &mut params {
        let Some(raw) = rt.parameters.iter().find(|(k, _)| k.value == p.name).map(|(_, v)| v) else { continue };
        match profile_list(ck, raw.profiles.as_ref(), &format!("parameter `{}` of tool `{}`", p.name, name.value), env)
        {
            Some(list) => p.profiles = list,
            None => ok = false,
        }
    }
    let examples = match &rt.examples {
        Some(list) => build_examples(ck, &name.value, list, &params).unwrap_or_else(|| {
            ok = false;
            Vec::new()
        }),
        None => Vec::new(),
    };
    let guidance = rt.guidance.as_ref().map(|g| g.value.trim().to_string()).filter(|g| !g.is_empty());
    let name_span = ck.span(&name.referenced);
    let decl_span = ck.entry_span(&name.referenced, "name");
    let mut tool = Tool {
        name_span,
        decl_span,
        name: name.value.clone(),
        toolset: rt.toolset.value.clone(),
        description: rt.description.value.clone(),
        description_parts,
        when,
        params,
        shape,
        overrides,
        variants,
        file: ck.file.rel.clone(),
        spawns_subagents: rt.spawns_subagents,
        guidance,
        contributions,
        examples,
    };
    if env.descriptions == crate::model::catalog::DescriptionMode::Trim {
        trim_descriptions(&mut tool);
    }
    ok.then_some(tool)
}

/// Every description of `t` without trailing whitespace (`descriptions: trim`): the tool's and
/// its overrides' wording, description parts, and parameter descriptions at every depth.
fn trim_descriptions(t: &mut Tool) {
    fn trim(s: &mut String) {
        s.truncate(s.trim_end().len());
    }
    fn schema(s: &mut crate::model::params::Schema) {
        if let Some(d) = &mut s.description {
            trim(d);
        }
        match &mut s.kind {
            crate::model::params::Kind::Array { items, .. } => schema(items),
            crate::model::params::Kind::Object { properties, .. } => {
                properties.iter_mut().for_each(|p| schema(&mut p.schema))
            }
            _ => {}
        }
    }
    trim(&mut t.description);
    t.description_parts.iter_mut().for_each(|p| trim(&mut p.text));
    t.params.iter_mut().for_each(|p| schema(&mut p.schema));
    for ov in t.overrides.values_mut().chain(t.variants.iter_mut().map(|v| &mut v.wording)) {
        if let Some(d) = &mut ov.description {
            trim(d);
        }
        ov.params.values_mut().for_each(trim);
    }
}

/// The parameter descriptions an override or a variant gives, by parameter; a name the tool's
/// `params` do not have is an error (`unknown` says where) and clears `ok`.
fn param_wording(
    ck: &mut Checker<'_>,
    raw: &IndexMap<S, raw::RawParamOverride>,
    params: &[crate::model::params::Property],
    unknown: impl Fn(&str) -> String,
    ok: &mut bool,
) -> IndexMap<String, String> {
    let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
    let mut out = IndexMap::new();
    for (pname, pov) in raw {
        if names.contains(&pname.value.as_str()) {
            out.insert(pname.value.clone(), pov.description.clone());
        } else {
            *ok = false;
            ck.error(&pname.referenced, unknown(&pname.value), known_names_help("parameter", &pname.value, &names));
        }
    }
    out
}

/// A label for `span` in one of the loaded `files`.
fn span_label(files: &BTreeMap<String, SourceFile>, span: &Span) -> Label {
    files.get(&span.file).map_or_else(|| Label::file(&span.file), |f| f.label_bytes(span.start, span.end))
}

/// Checks that need the whole catalog and every profile: description parts name tools that
/// exist, and no contribution goes to a slot its profile never shows (it would vanish).
pub(super) fn check_catalog_references(
    diags: &mut Diagnostics,
    catalog: &Catalog,
    profiles: &IndexMap<String, crate::model::profile::Profile>,
    sections: &IndexMap<String, Section>,
    files: &BTreeMap<String, SourceFile>,
) {
    let names: Vec<&str> = catalog.tools().iter().map(|t| t.name.as_str()).collect();
    for t in catalog.tools() {
        // A variant may rename a tool, but never to another tool's name: two tools would answer
        // to one name in the cells where it applies.
        for v in &t.variants {
            if let Some(n) = v.name.as_deref().filter(|n| *n != t.name && names.contains(n)) {
                diags.push(
                    Diagnostic::error(format!(
                        "a variant of tool `{}` renames it to `{n}`, another tool's name",
                        t.name
                    ))
                    .with_label(span_label(files, &t.name_span))
                    .with_help("give the variant a name no other tool has"),
                );
            }
        }
        for part in &t.description_parts {
            for (name, span) in part.tools.iter().zip(&part.tool_spans) {
                if !names.contains(&name.as_str()) {
                    diags.push(
                        Diagnostic::error(format!("unknown tool `{name}` in a description part of tool `{}`", t.name))
                            .with_label(span_label(files, span))
                            .with_help(known_names_help("tool", name, &names)),
                    );
                }
            }
        }
    }
    for (pname, p) in profiles {
        let shown: Vec<&str> = p
            .sections
            .iter()
            .filter_map(|id| match sections.get(id).map(|s| &s.source) {
                Some(SectionSource::Slot(slot)) => Some(slot.as_str()),
                _ => None,
            })
            .collect();
        for t in catalog.registered(&p.tools) {
            for c in &t.contributions {
                if !(c.profiles.is_empty() || c.profiles.contains(pname)) || shown.contains(&c.slot.as_str()) {
                    continue;
                }
                let showing: Vec<&str> = profiles
                    .iter()
                    .filter(|(_, q)| {
                        q.sections.iter().any(|id| {
                            matches!(sections.get(id).map(|s| &s.source), Some(SectionSource::Slot(s)) if *s == c.slot)
                        })
                    })
                    .map(|(n, _)| n.as_str())
                    .collect();
                let help = if showing.is_empty() {
                    format!(
                        "no profile shows slot `{}`: add a section with `slot: {}` to profile `{pname}`'s sections",
                        c.slot, c.slot
                    )
                } else {
                    format!(
                        "add the slot's section to profile `{pname}`'s sections, or restrict the contribution with \
                         `profiles: [{}]` (the profiles that show it)",
                        showing.join(", ")
                    )
                };
                diags.push(
                    Diagnostic::error(format!(
                        "tool `{}` contributes to slot `{}`, which profile `{pname}` does not show: the text would \
                         vanish",
                        t.name, c.slot
                    ))
                    .with_label(span_label(files, &c.slot_span))
                    .with_note(format!(
                        "profile `{pname}` registers tool `{}`; its sections: {}",
                        t.name,
                        p.sections.join(", ")
                    ))
                    .with_help(help),
                );
            }
        }
    }
}
