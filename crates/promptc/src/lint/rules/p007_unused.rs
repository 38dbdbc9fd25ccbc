//! P007 unused: sections, tools, switches and slots that never reach a cell.

use std::collections::BTreeSet;

use crate::code::{Level, RuleCode};
use crate::diagnostic::Diagnostic;
use crate::lint::finding;
use crate::lint::registry::Rule;
use crate::model::section::{SectionSource, SlotKind};
use crate::model::{switch_is_name, Project, SUBAGENT_SWITCH};

pub const RULE: Rule = Rule {
    code: RuleCode::P007,
    name: "unused",
    default: Level::Warn,
    summary: "a section, tool, parameter, override, switch or slot is declared but never used",
    explain: "Something is declared and never reaches any cell: a section no profile or sub-agent lists, a tool no \
        profile registers, a parameter whose `profiles:` never register its tool, a tool override for a profile \
        that does not register the tool (or wording a parameter that profile never sends), a switch no `when:` or \
        template reads, a slot no section shows or no tool contributes to. Dead declarations rot and mislead \
        readers.\n\nFix: use it or delete it.",
};

/// Whether some template, or a file it includes or imports, reads `switches.NAME` (or
/// `switches["NAME"]`), or `NAME` itself where that is the switch.
fn reads_switch(project: &Project, name: &str) -> bool {
    let globals = project.templates.global_names();
    let as_name = switch_is_name(name, project.variables.contains_key(name), &globals);
    if project.templates.reaches().any(|r| r.switch_keys.contains(name) || (as_name && r.names.contains_key(name))) {
        return true;
    }
    let patterns = [format!("switches.{name}"), format!("switches[\"{name}\"]"), format!("switches['{name}']")];
    project.templates.sources().any(|src| {
        patterns.iter().any(|p| {
            src.match_indices(p.as_str())
                .any(|(i, m)| !src[i + m.len()..].chars().next().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_'))
        })
    })
}

/// Find every declaration no cell uses.
pub(crate) fn check(project: &Project, out: &mut Vec<Diagnostic>) {
    let mut listed: BTreeSet<&str> =
        project.profiles.values().flat_map(|p| p.sections.iter().map(String::as_str)).collect();
    listed.extend(project.subagents.values().flat_map(|s| s.sections.iter().flatten().map(String::as_str)));
    listed.extend(project.profiles.values().flat_map(|p| &p.messages).flat_map(|m| m.sections().map(String::as_str)));
    for id in project.sections.keys().filter(|id| !listed.contains(id.as_str())) {
        out.push(
            finding(RuleCode::P007, format!("section `{id}` is not used by any profile, message or sub-agent"))
                .with_label(project.label(&project.sections[id].span))
                .with_help("add it to a profile's `sections:` or to one of its `messages:`, or delete it"),
        );
    }
    let registered: BTreeSet<&str> =
        project.profiles.values().flat_map(|p| project.catalog.registered(&p.tools)).map(|t| t.name.as_str()).collect();
    for t in project.catalog.tools().iter().filter(|t| !registered.contains(t.name.as_str())) {
        out.push(
            finding(RuleCode::P007, format!("tool `{}` is not registered by any profile", t.name))
                .with_label(project.label(&t.decl_span))
                .with_help("add it (or its toolset) to a profile, or delete it"),
        );
    }
    per_profile_wording(project, out);
    for name in project.switches.keys().filter(|n| n.as_str() != SUBAGENT_SWITCH) {
        let in_when = project.sections.values().any(|s| s.when.switch_names().contains(&name.as_str()))
            || project.catalog.tools().iter().any(|t| {
                let reads = |c: &crate::model::condition::Condition| c.switch_names().contains(&name.as_str());
                reads(&t.when)
                    || t.params.iter().any(|p| reads(&p.when))
                    || t.variants.iter().any(|v| reads(&v.when))
                    || t.description_parts.iter().any(|d| reads(&d.when))
            });
        if !in_when && !reads_switch(project, name) {
            out.push(
                finding(RuleCode::P007, format!("switch `{name}` is never read"))
                    .with_label(project.label(&project.switches[name].span))
                    .with_help("use it in a `when:` or as `switches.NAME` in a template, or delete it"),
            );
        }
    }
    for (name, slot) in &project.slots {
        if slot.kind != SlotKind::System {
            continue;
        }
        let shown = project.sections.values().any(|s| s.source == SectionSource::Slot(name.clone()));
        let fed = project.catalog.tools().iter().any(|t| t.contributions.iter().any(|c| &c.slot == name));
        if !shown || !fed {
            let why = if !shown { "no section shows it" } else { "no tool contributes to it" };
            out.push(
                finding(RuleCode::P007, format!("slot `{name}` is unused: {why}"))
                    .with_label(project.label(&slot.span))
                    .with_help("add a section with `slot:` and a tool with `contributes:`, or delete the slot"),
            );
        }
    }
}

/// Per-profile parameters and overrides that no cell sends: a parameter whose `profiles:` never
/// register its tool, an override for a profile without the tool, and an override's wording of
/// a parameter its profile never sends.
fn per_profile_wording(project: &Project, out: &mut Vec<Diagnostic>) {
    // Each profile's registered tools, found once (not once per tool: quadratic in tools).
    let registered: Vec<(&str, std::collections::HashSet<&str>)> = project
        .profiles
        .iter()
        .map(|(name, p)| {
            (name.as_str(), project.catalog.registered(&p.tools).iter().map(|t| t.name.as_str()).collect())
        })
        .collect();
    for t in project.catalog.tools() {
        let registering: Vec<&str> =
            registered.iter().filter(|(_, tools)| tools.contains(t.name.as_str())).map(|(name, _)| *name).collect();
        for p in t.params.iter().filter(|p| !p.profiles.is_empty()) {
            if !registering.is_empty() && !p.profiles.iter().any(|x| registering.contains(&x.as_str())) {
                out.push(
                    finding(
                        RuleCode::P007,
                        format!(
                            "parameter `{}` of `{}` is never sent: none of its profiles (`{}`) registers the tool",
                            p.name,
                            t.name,
                            p.profiles.join("`, `")
                        ),
                    )
                    .with_label(project.label(&p.span))
                    .with_help(format!("name a profile that registers `{}` in its `profiles:`", t.name)),
                );
            }
        }
        for (profile, ov) in &t.overrides {
            if !registering.contains(&profile.as_str()) {
                out.push(
                    finding(
                        RuleCode::P007,
                        format!(
                            "the override of `{}` for `{profile}` never applies: `{profile}` does not register it",
                            t.name
                        ),
                    )
                    .with_label(project.label(&ov.span))
                    .with_help(format!("register `{}` in `{profile}`, or delete the override", t.name)),
                );
                continue;
            }
            let unsent =
                ov.params.keys().filter(|name| t.params.iter().any(|p| &p.name == *name && !p.sent_in(profile)));
            for name in unsent {
                let span = ov.param_spans.get(name).unwrap_or(&ov.span);
                out.push(
                    finding(
                        RuleCode::P007,
                        format!("the override of `{}` for `{profile}` words parameter `{name}`, which `{profile}` never sends", t.name),
                    )
                    .with_label(project.label(span))
                    .with_help(format!("add `{profile}` to the parameter's `profiles:`, or delete this wording")),
                );
            }
        }
    }
}
