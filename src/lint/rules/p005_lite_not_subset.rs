//! P005 lite-not-subset: a smaller profile that grew a tool or section its superset lacks.

use std::collections::BTreeSet;

use crate::code::{Level, RuleCode};
use crate::diagnostic::Diagnostic;
use crate::lint::finding;
use crate::lint::registry::Rule;
use crate::model::profile::Profile;
use crate::model::Project;

pub const RULE: Rule = Rule {
    code: RuleCode::P005,
    name: "lite-not-subset",
    default: Level::Deny,
    summary: "a smaller profile has a tool or section the larger one lacks",
    explain: "Profiles declared as subsets (by default `lite` ⊆ `standard`, configurable under `check.subsets`) must \
        not grow a tool or section their superset does not have: lite quietly gaining a tool means the two contracts \
        drifted apart.\n\nFix: add the tool or section to the larger profile too, exclude it from the smaller one, or \
        change `check.subsets`.",
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
        for sec in s.sections.iter().filter(|x| !b.sections.contains(x)) {
            out.push(
                finding(RuleCode::P005, format!("profile `{small}` has section `{sec}`, which `{big}` lacks"))
                    .with_label(project.label(&s.span))
                    .with_help(format!("add `{sec}` to `{big}` or remove it from `{small}`")),
            );
        }
    }
}
