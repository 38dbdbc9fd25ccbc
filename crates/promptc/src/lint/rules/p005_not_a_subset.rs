//! P005 not-a-subset: a smaller profile that grew a tool, section or parameter its superset lacks.

use std::collections::BTreeSet;

use crate::code::{Level, RuleCode};
use crate::diagnostic::Diagnostic;
use crate::lint::finding;
use crate::lint::registry::Rule;
use crate::model::profile::Profile;
use crate::model::Project;

pub const RULE: Rule = Rule {
    code: RuleCode::P005,
    name: "not-a-subset",
    default: Level::Deny,
    summary: "a smaller profile has a tool, section or parameter the larger one lacks",
    explain: "Profiles declared as subsets under `check.subsets` (e.g. `{lite: standard}`) must not grow a tool, \
        section or tool parameter their superset does not have: the smaller contract quietly gaining a tool, or \
        sending a parameter (`profiles:` on a parameter) the larger one never sends, means the two contracts drifted \
        apart.\n\nFix: add the tool, section or parameter to the larger profile too, exclude it from the smaller \
        one, or change `check.subsets`.",
};

/// Compare every `check.subsets` pair.
pub(crate) fn check(project: &Project, out: &mut Vec<Diagnostic>) {
    for (small, big) in &project.lint.subsets {
        let (Some(s), Some(b)) = (project.profiles.get(small), project.profiles.get(big)) else { continue };
        let tools = |p: &Profile| -> BTreeSet<String> {
            project.catalog.registered(&p.tools).iter().map(|t| t.name.clone()).collect()
        };
        let (st, bt) = (tools(s), tools(b));
        for t in st.difference(&bt) {
            out.push(
                finding(RuleCode::P005, format!("profile `{small}` has tool `{t}`, which `{big}` lacks"))
                    .with_label(project.label(&s.span))
                    .with_help(format!("add `{t}` to `{big}`, exclude it from `{small}`, or change check.subsets")),
            );
        }
        for tool in project.catalog.registered(&s.tools).iter().filter(|t| bt.contains(&t.name)) {
            for p in tool.params.iter().filter(|p| p.sent_in(small) && !p.sent_in(big)) {
                out.push(
                    finding(
                        RuleCode::P005,
                        format!(
                            "profile `{small}` sends parameter `{}` of `{}`, which `{big}` does not",
                            p.name, tool.name
                        ),
                    )
                    .with_label(project.label(&p.span))
                    .with_help(format!("add `{big}` to the parameter's `profiles:`, or drop `{small}` from it")),
                );
            }
        }
        for sec in s.sections.iter().filter(|x| !b.sections.contains(x)) {
            out.push(
                finding(RuleCode::P005, format!("profile `{small}` has section `{sec}`, which `{big}` lacks"))
                    .with_label(project.label(&s.span))
                    .with_help(format!("add `{sec}` to `{big}` or remove it from `{small}`")),
            );
        }
    }
}
