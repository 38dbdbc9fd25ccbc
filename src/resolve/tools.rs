//! The tools of one cell: registered by the profile, switched on, with the profile's wording
//! and only the parameters whose switches hold.

use std::collections::BTreeMap;

use crate::model::catalog::{Catalog, Contribution, ToolSelection};
use crate::model::params::Property;

/// A tool as one matrix cell presents it: overrides applied, inactive parameters removed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ActiveTool {
    /// Name (id).
    pub name: String,
    /// Toolset.
    pub toolset: String,
    /// Description after overrides.
    pub description: String,
    /// Parameters after switch filtering and overrides.
    pub params: Vec<Property>,
    /// Usage guidance, if any.
    pub guidance: Option<String>,
    /// Whether it spawns sub-agents.
    pub spawns_subagents: bool,
    /// Its contributions that apply to this profile.
    pub contributions: Vec<Contribution>,
}

/// The tools active in one cell: registered by the profile, switched on, with the
/// profile's wording and only the parameters whose switches hold.
pub fn active_tools(
    catalog: &Catalog,
    profile: &str,
    sel: &ToolSelection,
    switches: &BTreeMap<String, bool>,
) -> Vec<ActiveTool> {
    catalog
        .registered(sel)
        .into_iter()
        .filter(|t| t.when.eval(switches))
        .map(|t| {
            let ov = t.overrides.get(profile);
            let params = t
                .params
                .iter()
                .filter(|p| p.when.eval(switches))
                .map(|p| {
                    let mut p = p.clone();
                    if let Some(d) = ov.and_then(|o| o.params.get(&p.name)) {
                        p.schema.description = Some(d.clone());
                    }
                    p
                })
                .collect();
            ActiveTool {
                name: t.name.clone(),
                toolset: t.toolset.clone(),
                description: ov.and_then(|o| o.description.clone()).unwrap_or_else(|| t.description.clone()),
                params,
                guidance: t.guidance.clone(),
                spawns_subagents: t.spawns_subagents,
                contributions: t
                    .contributions
                    .iter()
                    .filter(|c| c.profiles.is_empty() || c.profiles.iter().any(|p| p == profile))
                    .cloned()
                    .collect(),
            }
        })
        .collect()
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
        let tools = active_tools(&c, "lite", &sel, &off);
        assert_eq!(tools.len(), 1);
        assert_eq!(tools[0].description, "Read.");
        assert_eq!(tools[0].params.len(), 1);
        assert_eq!(tools[0].params[0].schema.description.as_deref(), Some("A."));
        let on: BTreeMap<String, bool> =
            [("browser".to_string(), true), ("yolo".to_string(), true)].into_iter().collect();
        let tools = active_tools(&c, "standard", &sel, &on);
        assert_eq!(tools.len(), 2);
        assert_eq!(tools[0].description, "read does things");
        assert_eq!(tools[0].params.len(), 2);
    }
}
