//! `slots:` and `sections:`: the places tools contribute to, and the prompt's sections.

use indexmap::IndexMap;

use crate::diagnostic::known_names_help;
use crate::format::entries::RawSection;
use crate::format::S;
use crate::model::condition::Condition;
use crate::model::section::{Generator, Section, SectionSource, Slot, SlotKind};
use crate::model::Switch;

use super::checker::{is_ident, Checker};
use super::loader::Loader;
use super::templates::add_inline;

impl Loader<'_> {
    /// Slots, before the sections and tools that refer to them.
    pub(super) fn slots(&mut self) -> IndexMap<String, Slot> {
        let raw = self.raw;
        let mut ck = self.ck();
        let mut slots = IndexMap::new();
        for (name, sl) in &raw.slots {
            if !is_ident(&name.value, &[]) {
                ck.error(
                    &name.referenced,
                    format!("invalid slot name `{}`", name.value),
                    "slot names are identifiers: a letter or `_`, then letters, digits or `_`",
                );
            }
            let kind = match &sl.kind {
                None => SlotKind::System,
                Some(k) => SlotKind::parse(&k.value).unwrap_or_else(|| {
                    ck.error(
                        &k.referenced,
                        format!("unknown slot kind `{}`", k.value),
                        "slot kinds: system (tools may contribute), user_intent, history (tools may not)",
                    );
                    SlotKind::System
                }),
            };
            slots.insert(
                name.value.clone(),
                Slot { description: sl.description.clone(), kind, span: ck.span(&name.referenced) },
            );
        }
        slots
    }

    /// Every section whose source loads.
    pub(super) fn sections(
        &mut self,
        switches: &IndexMap<String, Switch>,
        slots: &IndexMap<String, Slot>,
    ) -> IndexMap<String, Section> {
        let raw = self.raw;
        let mut sections = IndexMap::new();
        for (id, s) in &raw.sections {
            let mut ck = self.ck();
            if !is_ident(&id.value, &['-']) {
                ck.error(
                    &id.referenced,
                    format!("invalid section id `{}`", id.value),
                    "section ids start with a letter and contain letters, digits, `_` or `-`",
                );
            }
            let when = match &s.when {
                Some(w) => ck.when(w, switches).unwrap_or(Condition::Always),
                None => Condition::Always,
            };
            let untrusted = s.untrusted.as_ref().and_then(|t| ck.tag(t));
            let span = ck.span(&id.referenced);
            if let Some((source, origin)) = section_source(self, id, s, slots) {
                let description = s.description.clone();
                let id = id.value.clone();
                let dynamic_inputs = Vec::new();
                let section =
                    Section { id: id.clone(), source, when, description, origin, dynamic_inputs, untrusted, span };
                sections.insert(id, section);
            }
        }
        sections
    }
}

/// Where a section's text comes from (exactly one of `template`, `text`, `generate` or `slot`),
/// and its origin as metadata names it.
fn section_source(
    ld: &mut Loader<'_>,
    id: &S,
    s: &RawSection,
    slots: &IndexMap<String, Slot>,
) -> Option<(SectionSource, String)> {
    let given = usize::from(s.template.is_some())
        + usize::from(s.text.is_some())
        + usize::from(s.generate.is_some())
        + usize::from(s.slot.is_some());
    if given != 1 {
        ld.ck().error(
            &id.referenced,
            format!("section `{}` must have exactly one of `template`, `text`, `generate` or `slot`", id.value),
            format!(
                "use `template: FILE` for a template file, `text: |` for inline text, `generate: NAME` ({}), or \
                `slot: NAME` for tool contributions",
                Generator::ALL.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
            ),
        );
        return None;
    }
    if let Some(path) = &s.template {
        return ld.add_file(path).map(|name| (SectionSource::Template(name.clone()), name));
    }
    let mut ck = Checker::new(ld.manifest, &mut ld.diags);
    if let Some(text) = &s.text {
        let name = format!("{}#sections.{}", ck.file.rel, id.value);
        return add_inline(&mut ck, &mut ld.templates, &name, text, &id.referenced, "text", false)
            .then(|| (SectionSource::Template(name), format!("{} (inline)", ck.file.rel)));
    }
    if let Some(slot) = &s.slot {
        let injectable: Vec<&str> =
            slots.iter().filter(|(_, sl)| sl.kind == SlotKind::System).map(|(k, _)| k.as_str()).collect();
        return match slots.get(&slot.value) {
            None => {
                ck.error(
                    &slot.referenced,
                    format!("unknown slot `{}`", slot.value),
                    known_names_help("slot", &slot.value, &injectable),
                );
                None
            }
            Some(sl) if sl.kind != SlotKind::System => {
                ck.error(
                    &slot.referenced,
                    format!("section `{}` shows slot `{}`, which no tool may fill", id.value, slot.value),
                    "a slot section shows tool contributions; user-intent and history slots never have any — render \
                        that text with `template:` instead",
                );
                None
            }
            Some(_) => Some((SectionSource::Slot(slot.value.clone()), format!("slot:{}", slot.value))),
        };
    }
    let g = s.generate.as_ref()?;
    match Generator::ALL.iter().find(|(n, _)| *n == g.value) {
        Some((n, gen)) => Some((SectionSource::Generated(*gen), format!("generated:{n}"))),
        None => {
            let names: Vec<&str> = Generator::ALL.iter().map(|(n, _)| *n).collect();
            ck.error(
                &g.referenced,
                format!("unknown generator `{}`", g.value),
                known_names_help("generator", &g.value, &names),
            );
            None
        }
    }
}
