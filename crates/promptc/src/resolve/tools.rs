//! The tools of one cell: registered by the profile, switched on, with the profile's wording
//! and only the parameters whose switches hold.

use std::collections::BTreeMap;

use crate::error::Result;
use crate::model::catalog::{Catalog, Contribution, ToolSelection};
use crate::model::params::Property;

use super::values::ToolTexts;

/// A tool as one matrix cell presents it: overrides applied, inactive parameters removed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ActiveTool {
    /// Name (id).
    pub name: String,
    /// Toolset.
    pub toolset: String,
    /// Description after overrides.
    pub description: String,
    /// It has no description key at all (see `model::catalog::Tool::undescribed`).
    pub undescribed: bool,
    /// Parameters after switch filtering and overrides.
    pub params: Vec<Property>,
    /// How its parameters object is closed and its `required` list ordered.
    pub shape: crate::model::params::ObjectShape,
    /// Usage guidance, if any.
    pub guidance: Option<String>,
    /// Whether it spawns sub-agents.
    pub spawns_subagents: bool,
    /// Its contributions that apply to this profile.
    pub contributions: Vec<Contribution>,
    /// Its examples whose every argument is an active parameter here.
    pub examples: Vec<crate::model::catalog::ToolExample>,
    /// Entry fields sent as written to one provider.
    pub provider_fields: crate::model::catalog::ProviderFields,
    /// The order of its entry's keys for a provider, where not promptc's.
    pub provider_key_order: crate::model::catalog::KeyOrder,
    /// A text of it (`templated: true`) reads a value that changes between sessions.
    pub dynamic: bool,
    /// The templates its texts were rendered from (`templated: true`): what its variables shape.
    pub text_templates: Vec<String>,
}

impl ActiveTool {
    /// `entry` with the fields the tool sends `provider` as written, after promptc's own, its keys
    /// in the tool's `provider_key_order` for it when it has one (the keys named first, in that
    /// order; the others after them, in promptc's).
    pub fn with_fields(
        &self,
        provider: crate::model::provider::Provider,
        mut entry: serde_json::Value,
    ) -> serde_json::Value {
        if let (true, Some(m)) = (self.undescribed, entry.as_object_mut()) {
            m.shift_remove("description");
        }
        if let (Some(fields), Some(m)) = (self.provider_fields.get(&provider), entry.as_object_mut()) {
            for (k, v) in fields {
                // promptc's own keys win: a field says only what promptc does not (Chat
                // Completions' `strict`, written only in strict mode).
                if !m.contains_key(k) {
                    m.insert(k.clone(), v.clone());
                }
            }
        }
        if let (Some(order), Some(m)) = (self.provider_key_order.get(&provider), entry.as_object_mut()) {
            let mut rest = std::mem::take(m);
            for k in order {
                if let Some(v) = rest.shift_remove(k) {
                    m.insert(k.clone(), v);
                }
            }
            m.extend(rest);
        }
        entry
    }
}

/// A tool's description in one cell: the profile's wording (or the tool's), then each
/// description part whose conditions hold there, each on a new line.
fn describe(
    t: &crate::model::catalog::Tool,
    wording: Option<&str>,
    profile: &str,
    switches: &BTreeMap<String, bool>,
    choices: &BTreeMap<String, String>,
    active: &[&str],
    text: &dyn Fn(&str) -> Result<String>,
) -> Result<String> {
    let mut out = text(wording.unwrap_or(&t.description))?;
    for part in t.description_parts.iter().filter(|p| p.applies(profile, switches, choices, active)) {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&text(&part.text)?);
    }
    Ok(out)
}

/// The tools active in one cell: registered by the profile, switched on, with the
/// profile's wording and only the parameters whose switches and profiles hold.
pub fn active_tools(
    catalog: &Catalog,
    profile: &str,
    sel: &ToolSelection,
    switches: &BTreeMap<String, bool>,
    choices: &BTreeMap<String, String>,
    texts: Option<&ToolTexts<'_>>,
) -> Result<Vec<ActiveTool>> {
    active_tools_where(catalog, profile, sel, switches, choices, |_| true, texts)
}

/// [`active_tools`] of the tools `keep` accepts (a sub-agent's allowlist): description parts
/// see exactly the tools the cell ends up with.
pub fn active_tools_where(
    catalog: &Catalog,
    profile: &str,
    sel: &ToolSelection,
    switches: &BTreeMap<String, bool>,
    choices: &BTreeMap<String, String>,
    keep: impl Fn(&crate::model::catalog::Tool) -> bool,
    texts: Option<&ToolTexts<'_>>,
) -> Result<Vec<ActiveTool>> {
    let on: Vec<&crate::model::catalog::Tool> =
        catalog.registered(sel).into_iter().filter(|t| t.when.eval_with(switches, choices) && keep(t)).collect();
    let names: Vec<&str> = on.iter().map(|t| t.name.as_str()).collect();
    on.into_iter()
        .map(|t| -> Result<ActiveTool> {
            // A templated tool's texts are rendered with the cell's values; others are as written.
            let text = |s: &str| match texts {
                Some(texts) => texts.render(t, s),
                None => Ok(s.to_string()),
            };
            // Every variant that holds applies over the profile's override, field by field, a
            // later one over an earlier one: independent axes (platform, runtime) combine.
            let held: Vec<&crate::model::catalog::ToolVariant> =
                t.variants.iter().filter(|v| v.applies(profile, switches, choices)).collect();
            let base = t.overrides.get(profile);
            let param_wording = |name: &str| {
                held.iter()
                    .rev()
                    .find_map(|v| v.wording.params.get(name))
                    .or_else(|| base.and_then(|o| o.params.get(name)))
            };
            let wording = held
                .iter()
                .rev()
                .find_map(|v| v.wording.description.as_deref())
                .or_else(|| base.and_then(|o| o.description.as_deref()));
            let shown_name = held.iter().rev().find_map(|v| v.name.clone());
            let params: Vec<Property> = t
                .params
                .iter()
                .filter(|p| p.when.eval_with(switches, choices) && p.sent_in(profile))
                .map(|p| {
                    let mut p = p.clone();
                    if let Some(d) = param_wording(&p.name) {
                        p.schema.description = Some(d.clone());
                    }
                    if !t.text_templates.names.is_empty() {
                        render_descriptions(&mut p.schema, &text)?;
                    }
                    Ok(p)
                })
                .collect::<Result<_>>()?;
            let examples = t
                .examples
                .iter()
                .filter(|e| e.arguments.keys().all(|k| params.iter().any(|p| &p.name == k)))
                .cloned()
                .collect();
            Ok(ActiveTool {
                dynamic: texts.is_some_and(|x| x.dynamic(t)),
                text_templates: if texts.is_some() {
                    t.text_templates.names.values().cloned().collect()
                } else {
                    Vec::new()
                },
                examples,
                provider_fields: t.provider_fields.clone(),
                provider_key_order: t.provider_key_order.clone(),
                name: shown_name.unwrap_or_else(|| t.name.clone()),
                toolset: t.toolset.clone(),
                description: describe(t, wording, profile, switches, choices, &names, &text)?,
                // A wording that gives a description gives the key too.
                undescribed: t.undescribed && wording.is_none(),
                params,
                shape: t.shape.clone(),
                guidance: t.guidance.clone(),
                spawns_subagents: t.spawns_subagents,
                contributions: t
                    .contributions
                    .iter()
                    .filter(|c| c.profiles.is_empty() || c.profiles.iter().any(|p| p == profile))
                    .cloned()
                    .collect(),
            })
        })
        .collect()
}

/// Each description in `schema` (a `parameters:` entry and its nested properties and items)
/// through `text`.
fn render_descriptions(schema: &mut crate::model::params::Schema, text: &dyn Fn(&str) -> Result<String>) -> Result<()> {
    use crate::model::params::Kind;
    if let Some(d) = &schema.description {
        schema.description = Some(text(d)?);
    }
    match &mut schema.kind {
        Kind::Array { items, .. } => render_descriptions(items, text),
        Kind::Object { properties, .. } => {
            properties.iter_mut().try_for_each(|p| render_descriptions(&mut p.schema, text))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::catalog::tests::catalog;

    #[test]
    fn switches_filter_tools_and_params_and_overrides_apply() {
        let c = catalog();
        let sel = ToolSelection { toolsets: vec!["files".into(), "web".into()], ..Default::default() };
        let off = BTreeMap::new();
        let tools = active_tools(&c, "lite", &sel, &off, &BTreeMap::new(), None).unwrap();
        assert_eq!(tools.len(), 1);
        assert_eq!(tools[0].description, "Read.");
        assert_eq!(tools[0].params.len(), 1);
        assert_eq!(tools[0].params[0].schema.description.as_deref(), Some("A."));
        let on: BTreeMap<String, bool> =
            [("browser".to_string(), true), ("yolo".to_string(), true)].into_iter().collect();
        let tools = active_tools(&c, "standard", &sel, &on, &BTreeMap::new(), None).unwrap();
        assert_eq!(tools.len(), 2);
        assert_eq!(tools[0].description, "read does things");
        assert_eq!(tools[0].params.len(), 2);
    }
}
