//! P004 cache-unfriendly-order: text that changes between sessions placed before static text,
//! and the cacheable prefix of every cell.

use std::collections::BTreeSet;

use crate::code::{Level, RuleCode};
use crate::compile::OUTSIDE_SECTIONS;
use crate::diagnostic::Diagnostic;
use crate::lint::registry::Rule;
use crate::lint::{find_in_file, finding, CachePrefix, CellView};
use crate::model::Project;

pub const RULE: Rule = Rule {
    code: RuleCode::P004,
    name: "cache-unfriendly-order",
    default: Level::Warn,
    summary: "dynamic or untrusted text comes before static text",
    explain: "Provider prompt caching reuses the longest unchanged prefix of the prompt. A section that changes \
        between sessions (it reads a `dynamic: true` variable, or carries untrusted text) placed before static \
        sections ends the cacheable prefix early, so every request pays for the static text after it. The tools come \
        first in every provider's cache order: a `templated: true` tool whose text reads a dynamic value leaves \
        nothing of a native cell to reuse. `promptc check` reports each cell's cacheable prefix in tokens.\n\nFix: \
        move dynamic and untrusted sections after the static ones (environment details near the end), and keep \
        values that change every session out of tool text.",
};

/// Every cell's cacheable prefix, from its accounts (reported whatever the rule's level).
pub(crate) fn prefixes(views: &[CellView]) -> Vec<CachePrefix> {
    views
        .iter()
        .flat_map(|v| &v.accounts)
        .map(|a| CachePrefix {
            cell: a.name.clone(),
            cacheable: a.cache.cacheable,
            total: a.total.tokens,
            ends_at: a.cache.ends_at.clone(),
        })
        .collect()
}

/// Report dynamic or untrusted sections placed before static ones, and native tools whose
/// text changes between sessions.
pub(crate) fn check(project: &Project, views: &[CellView], out: &mut Vec<Diagnostic>) {
    let mut reported = BTreeSet::new();
    for v in views {
        let c = &v.compiled;
        // The tools come first in every provider's cache order: a native tool whose text reads
        // a dynamic value (`templated: true`) leaves nothing of the cell to reuse.
        if c.projection().is_some() {
            let changed = |t: &crate::resolve::tools::ActiveTool| {
                t.dynamic || c.session.other_tools.as_ref().is_some_and(|o| !o.contains(t))
            };
            for t in c.tools.iter().filter(|t| changed(t)) {
                let Some(tool) = project.catalog.tools().iter().find(|d| {
                    d.name == t.name || d.variants.iter().any(|x| x.name.as_deref() == Some(t.name.as_str()))
                }) else {
                    continue;
                };
                if !reported.insert((format!("tool {}", tool.name), String::new())) {
                    continue;
                }
                let mut d = finding(
                    RuleCode::P004,
                    format!("tool `{}`'s text changes between sessions, and the tools come first in the cache order", tool.name),
                )
                .with_label(project.label(&tool.decl_span))
                .with_help("keep values that change every session out of tool text: say them in a section after the static ones");
                if let Some(a) = v.accounts.first() {
                    d = d.with_note(format!(
                        "in cell `{}` the cacheable prefix is {} of {} tokens",
                        a.name, a.cache.cacheable, a.total.tokens
                    ));
                }
                out.push(d);
            }
        }
        // Sections in the order they appear in the prompt (a layout may reorder them), after the
        // first byte another session changes.
        let Some(holder) = c.static_prefix().first_dynamic else { continue };
        let cut = c.static_prefix().bytes;
        let placed = c.placed_sections();
        let Some((_, later)) = placed.iter().find(|(at, s)| *at >= cut && s.id != holder && !c.section_changes(&s.id))
        else {
            continue;
        };
        if !reported.insert((holder.clone(), later.id.clone())) {
            continue;
        }
        let layout_text = holder == OUTSIDE_SECTIONS;
        let anchor = match (&project.layout, layout_text) {
            (Some(layout), true) => {
                // The dynamic value the layout prints first: where its text starts to change.
                let text = project.files.get(layout.as_str()).map_or("", |f| f.text.as_str());
                let first = project.layout_dynamic.iter().min_by_key(|n| text.find(n.as_str()).unwrap_or(usize::MAX));
                find_in_file(project, layout, first.map_or("", String::as_str))
            }
            (Some(layout), false) => find_in_file(project, layout, &format!("sections.{holder}")),
            (None, _) => v.profile_label(project),
        };
        let what = if layout_text {
            "the layout's own text changes between sessions".to_string()
        } else {
            format!("section `{holder}` changes between sessions")
        };
        let mut d = finding(RuleCode::P004, format!("{what} but comes before static section `{}`", later.id))
            .with_label(anchor)
            .with_help(match (&project.layout, layout_text) {
                (Some(_), true) => "print values that change every session after the static sections in the layout",
                (Some(_), false) => "place dynamic and untrusted sections after the static ones in the layout",
                (None, _) => "list dynamic and untrusted sections after the static ones in the profile's `sections:`",
            });
        if let Some(why) = c.static_prefix().why {
            d = d.with_note(format!("it {why}"));
        }
        if let Some(a) = v.accounts.first() {
            d = d.with_note(format!(
                "in cell `{}` the cacheable prefix ends after {} of {} tokens",
                a.name, a.cache.cacheable, a.total.tokens
            ));
        }
        out.push(d);
    }
}
