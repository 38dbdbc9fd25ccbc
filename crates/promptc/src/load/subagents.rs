//! `subagents:`: sub-agents' sections and tool allowlists.

use indexmap::IndexMap;

use crate::code::RuleCode;
use crate::diagnostic::Diagnostic;
use crate::format::entries::RawSubagent;
use crate::model::catalog::Catalog;
use crate::model::section::{Section, SectionSource};
use crate::model::Subagent;

use super::catalog::Declared;
use super::checker::{is_ident, Checker};
use super::loader::Loader;

impl Loader<'_> {
    /// Every sub-agent; tool names are checked when every catalog file loaded.
    pub(super) fn subagents(
        &mut self,
        declared: &Declared,
        all: &IndexMap<String, Section>,
    ) -> IndexMap<String, Subagent> {
        let (raw, sections) = (self.raw, self.section_ids.clone());
        let tools: Vec<&str> = declared.tools.iter().map(String::as_str).collect();
        let known = declared.complete.then_some(tools.as_slice());
        let mut ck = self.ck();
        let mut out = IndexMap::new();
        for (name, sa) in &raw.subagents {
            if !is_ident(&name.value, &['-']) {
                ck.error(
                    &name.referenced,
                    format!("invalid sub-agent name `{}`", name.value),
                    "sub-agent names start with a letter and contain letters, digits, `_` or `-`",
                );
            }
            let sub = subagent(&mut ck, &name.value, sa, &sections, known, &declared.catalog);
            dropped_contributions(&mut ck, &sub, sa, all, &declared.catalog);
            out.insert(name.value.clone(), sub);
        }
        out
    }
}

fn subagent(
    ck: &mut Checker<'_>,
    name: &str,
    sa: &RawSubagent,
    sections: &[&str],
    tools: Option<&[&str]>,
    catalog: &Catalog,
) -> Subagent {
    let ctx = format!("sub-agent `{name}`");
    let secs = sa.sections.as_ref().map(|list| ck.refs(list, sections, "section", &ctx));
    let allow = match tools {
        Some(known) => ck.refs(&sa.tools, known, "tool", &format!("the tools of {ctx}")),
        None => sa.tools.iter().map(|t| t.value.clone()).collect(),
    };
    for t in &sa.tools {
        if catalog.get(&t.value).is_some_and(|tool| tool.spawns_subagents) {
            let mut d = Diagnostic::warning(format!(
                "{ctx} lists `{}`, which spawns sub-agents; it is never given to a sub-agent",
                t.value
            ))
            .with_label(ck.label(&t.referenced))
            .with_help("sub-agents cannot start sub-agents (no recursion); remove it from the list");
            d.code = Some(RuleCode::P009);
            ck.diags.push(d);
        }
    }
    Subagent { name: name.to_string(), description: sa.description.clone(), sections: secs, tools: allow }
}

/// A sub-agent whose `sections:` leave out every section that shows a slot loses what its
/// tools contribute there: say so, at the tool, rather than drop the text silently.
fn dropped_contributions(
    ck: &mut Checker<'_>,
    sub: &Subagent,
    sa: &RawSubagent,
    all: &IndexMap<String, Section>,
    catalog: &Catalog,
) {
    let Some(chosen) = &sub.sections else { return };
    for t in &sa.tools {
        let Some(tool) = catalog.get(&t.value) else { continue };
        let mut slots: Vec<&str> = tool.contributions.iter().map(|c| c.slot.as_str()).collect();
        slots.sort_unstable();
        slots.dedup();
        for slot in slots {
            let showing: Vec<&str> = all
                .values()
                .filter(|s| matches!(&s.source, SectionSource::Slot(name) if name == slot))
                .map(|s| s.id.as_str())
                .collect();
            if showing.is_empty() || showing.iter().any(|id| chosen.iter().any(|c| c == id)) {
                continue;
            }
            ck.diags.push(
                Diagnostic::warning(format!(
                    "sub-agent `{}` lists `{}`, whose contribution to slot `{slot}` it never shows",
                    sub.name, t.value
                ))
                .with_label(ck.label(&t.referenced))
                .with_note(format!(
                    "the sub-agent's `sections:` leave out `{}`, the section that shows the slot, so the text is dropped",
                    showing.join("`, `")
                ))
                .with_help(format!("add `{}` to the sub-agent's `sections:`, or drop the tool from its list", showing[0])),
            );
        }
    }
}
