//! A tool's wording: per-profile `overrides:`, conditional `variants:`, and trimming every
//! description (`descriptions: trim`).

use indexmap::IndexMap;

use crate::diagnostic::known_names_help;
use crate::format::tool::{RawParamOverride, RawTool};
use crate::format::S;
use crate::model::catalog::{valid_tool_name, Tool, ToolOverride, ToolVariant};
use crate::model::condition::Condition;
use crate::model::params::{Kind, Property, Schema};

use super::checker::Checker;
use super::tools::{profile_list, ToolEnv};

/// `overrides:`: wording per declared profile; problems clear `ok`.
pub(super) fn overrides(
    ck: &mut Checker<'_>,
    rt: &RawTool,
    params: &[Property],
    profiles: &[&str],
    ok: &mut bool,
) -> IndexMap<String, ToolOverride> {
    let name = &rt.name;
    let mut overrides = IndexMap::new();
    for (profile, ov) in &rt.overrides {
        if !profiles.contains(&profile.value.as_str()) {
            *ok = false;
            ck.error(
                &profile.referenced,
                format!("override for unknown profile `{}` on tool `{}`", profile.value, name.value),
                known_names_help("profile", &profile.value, profiles),
            );
            continue;
        }
        let unknown = |p: &str| format!("override for unknown parameter `{p}` of tool `{}`", name.value);
        let mut wording = param_wording(ck, &ov.parameters, params, unknown, ok);
        wording.description = ov.description.clone();
        wording.span = ck.span(&profile.referenced);
        overrides.insert(profile.value.clone(), wording);
    }
    overrides
}

/// `variants:`: name and wording where conditions hold; problems clear `ok`.
pub(super) fn variants(
    ck: &mut Checker<'_>,
    rt: &RawTool,
    params: &[Property],
    env: &ToolEnv<'_>,
    ok: &mut bool,
) -> Vec<ToolVariant> {
    let mut variants = Vec::new();
    for (i, v) in rt.variants.iter().enumerate() {
        let what = format!("variant {} of tool `{}`", i + 1, rt.name.value);
        let raw = &v.value;
        if raw.name.is_none() && raw.description.is_none() && raw.parameters.is_empty() {
            *ok = false;
            ck.error(
                &v.referenced,
                format!("{what} changes nothing"),
                "give the `name`, `description` or `parameters` descriptions it sends instead",
            );
            continue;
        }
        if let Some(n) = raw.name.as_ref().filter(|n| !valid_tool_name(&n.value)) {
            *ok = false;
            ck.error(
                &n.referenced,
                format!("invalid tool name `{}` in {what}", n.value),
                "tool names are letters, digits, `_`, `-` or `.`, at most 64 characters",
            );
        }
        let when = match &raw.when {
            Some(w) => match ck.when(w, env.switches) {
                Some(c) => c,
                None => {
                    *ok = false;
                    continue;
                }
            },
            None => Condition::Always,
        };
        let Some(profiles) = profile_list(ck, raw.profiles.as_ref(), &what, env) else {
            *ok = false;
            continue;
        };
        let mut wording =
            param_wording(ck, &raw.parameters, params, |p| format!("{what} words unknown parameter `{p}`"), ok);
        wording.description = raw.description.clone();
        wording.span = ck.span(&v.referenced);
        variants.push(ToolVariant { when, profiles, name: raw.name.as_ref().map(|n| n.value.clone()), wording });
    }
    variants
}

/// Every description of `t` without trailing whitespace (`descriptions: trim`): the tool's and
/// its overrides' wording, description parts, and parameter descriptions at every depth (in a
/// carried schema too).
pub(super) fn trim_descriptions(t: &mut Tool) {
    fn trim(s: &mut String) {
        s.truncate(s.trim_end().len());
    }
    fn schema(s: &mut Schema) {
        if let Some(d) = &mut s.description {
            trim(d);
        }
        if let Some(json) = &mut s.json {
            crate::model::params::trim_json_descriptions(json);
        }
        match &mut s.kind {
            Kind::Array { items, .. } => schema(items),
            Kind::Object { properties, .. } => properties.iter_mut().for_each(|p| schema(&mut p.schema)),
            _ => {}
        }
    }
    trim(&mut t.description);
    t.description_parts.iter_mut().for_each(|p| trim(&mut p.text));
    t.params.iter_mut().for_each(|p| schema(&mut p.schema));
    if let Some(root) = &mut t.shape.json {
        crate::model::params::trim_json_descriptions(root);
    }
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
    raw: &IndexMap<S, RawParamOverride>,
    params: &[Property],
    unknown: impl Fn(&str) -> String,
    ok: &mut bool,
) -> ToolOverride {
    let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
    let mut out = ToolOverride::default();
    for (pname, pov) in raw {
        if names.contains(&pname.value.as_str()) {
            out.params.insert(pname.value.clone(), pov.description.clone());
            out.param_spans.insert(pname.value.clone(), ck.span(&pname.referenced));
        } else {
            *ok = false;
            ck.error(&pname.referenced, unknown(&pname.value), known_names_help("parameter", &pname.value, &names));
        }
    }
    out
}
