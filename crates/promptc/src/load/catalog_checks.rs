//! Checks that need the whole catalog and every profile: variant names and description parts
//! name tools that exist, and no contribution goes to a slot its profile never shows.

use std::collections::BTreeMap;

use indexmap::IndexMap;

use crate::diagnostic::{known_names_help, Diagnostic, Label, Span};
use crate::error::Diagnostics;
use crate::model::catalog::{Catalog, Contribution, Tool};
use crate::model::section::{Section, SectionSource};
use crate::model::Profile;
use crate::source::SourceFile;

use super::loader::Loader;

impl Loader<'_> {
    /// Every cross-reference between the catalog, the profiles and the sections.
    pub(super) fn check_catalog_references(
        &mut self,
        catalog: &Catalog,
        profiles: &IndexMap<String, Profile>,
        sections: &IndexMap<String, Section>,
    ) {
        tool_names(&mut self.diags, catalog, &self.files);
        slots_shown(&mut self.diags, catalog, profiles, sections, &self.files);
    }
}

/// A label for `span` in one of the loaded `files`.
fn span_label(files: &BTreeMap<String, SourceFile>, span: &Span) -> Label {
    files.get(&span.file).map_or_else(|| Label::file(&span.file), |f| f.label_bytes(span.start, span.end))
}

/// Variants rename no tool to another's name; description parts name tools that exist.
fn tool_names(diags: &mut Diagnostics, catalog: &Catalog, files: &BTreeMap<String, SourceFile>) {
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
}

/// No contribution goes to a slot its profile never shows (it would vanish).
fn slots_shown(
    diags: &mut Diagnostics,
    catalog: &Catalog,
    profiles: &IndexMap<String, Profile>,
    sections: &IndexMap<String, Section>,
    files: &BTreeMap<String, SourceFile>,
) {
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
                diags.push(vanishing(t, c, pname, p, profiles, sections, files));
            }
        }
    }
}

/// The error for a contribution of `t` that profile `pname` would drop.
fn vanishing(
    t: &Tool,
    c: &Contribution,
    pname: &str,
    p: &Profile,
    profiles: &IndexMap<String, Profile>,
    sections: &IndexMap<String, Section>,
    files: &BTreeMap<String, SourceFile>,
) -> Diagnostic {
    let showing: Vec<&str> = profiles
        .iter()
        .filter(|(_, q)| {
            q.sections
                .iter()
                .any(|id| matches!(sections.get(id).map(|s| &s.source), Some(SectionSource::Slot(s)) if *s == c.slot))
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
    Diagnostic::error(format!(
        "tool `{}` contributes to slot `{}`, which profile `{pname}` does not show: the text would \
             vanish",
        t.name, c.slot
    ))
    .with_label(span_label(files, &c.slot_span))
    .with_note(format!("profile `{pname}` registers tool `{}`; its sections: {}", t.name, p.sections.join(", ")))
    .with_help(help)
}
