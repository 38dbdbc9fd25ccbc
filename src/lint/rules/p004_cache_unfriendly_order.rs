//! P004 cache-unfriendly-order: text that changes between sessions placed before static text,
//! and the cacheable prefix of every cell.

use std::collections::BTreeSet;

use crate::code::{Level, RuleCode};
use crate::diagnostic::Diagnostic;
use crate::error::Result;
use crate::lint::registry::Rule;
use crate::lint::{find_in_file, finding, CachePrefix, CellView};
use crate::measure::tokens::Counter;
use crate::model::Project;

pub const RULE: Rule = Rule {
    code: RuleCode::P004,
    name: "cache-unfriendly-order",
    default: Level::Warn,
    summary: "dynamic or untrusted text comes before static text",
    explain: "Provider prompt caching reuses the longest unchanged prefix of the prompt. A section that changes \
        between sessions (it reads a `dynamic: true` variable, or carries untrusted text) placed before static \
        sections ends the cacheable prefix early, so every request pays for the static text after it. `promptc check` \
        reports each cell's cacheable prefix in tokens.\n\nFix: move dynamic and untrusted sections after the static \
        ones (environment details near the end).",
};

/// Report dynamic or untrusted sections placed before static ones; return every cell's
/// cacheable prefix.
pub(crate) fn check(
    project: &Project,
    views: &[CellView],
    counter: &mut Counter,
    out: &mut Vec<Diagnostic>,
) -> Result<Vec<CachePrefix>> {
    let mut prefixes = Vec::new();
    let mut reported = BTreeSet::new();
    for v in views {
        let c = &v.compiled;
        let varies = |id: &str| {
            project.sections.get(id).is_some_and(|s| !s.dynamic_inputs.is_empty() || s.untrusted.is_some())
                || c.sections.iter().any(|s| s.id == id && s.text.contains(&format!("_{}|>", c.runtime.nonce)))
        };
        // Sections in the order they appear in the prompt (a layout may reorder them).
        let mut placed: Vec<(usize, &str)> =
            c.sections.iter().filter_map(|s| c.prompt.find(&s.text).map(|i| (i, s.id.as_str()))).collect();
        placed.sort();
        let first = placed.iter().position(|(_, id)| varies(id));
        let ends_at = first.map(|i| placed[i].1.to_string());
        let prefix_text = first.map_or(c.prompt.as_str(), |i| &c.prompt[..placed[i].0]);
        let tokens = counter.count(prefix_text)?;
        let prompt_tokens = counter.count(&c.prompt)?;
        if let Some(i) = first {
            if let Some((_, later)) = placed[i + 1..].iter().find(|(_, id)| !varies(id)) {
                let culprit = placed[i].1;
                if reported.insert((culprit.to_string(), later.to_string())) {
                    let anchor = if project.layout.is_some() {
                        find_in_file(
                            project,
                            project.layout.as_deref().unwrap_or_default(),
                            &format!("sections.{culprit}"),
                        )
                    } else {
                        v.profile_label(project)
                    };
                    out.push(
                        finding(
                            RuleCode::P004,
                            format!(
                                "section `{culprit}` changes between sessions but comes \
                            before static section `{later}`"
                            ),
                        )
                        .with_label(anchor)
                        .with_note(format!(
                            "in cell `{}` the cacheable prefix ends after {tokens} of \
                                {prompt_tokens} tokens",
                            v.cell.stem()
                        ))
                        .with_help(if project.layout.is_some() {
                            "place dynamic and untrusted sections after the \
                                static ones in the layout"
                        } else {
                            "list dynamic and untrusted sections after the \
                                static ones in the profile's `sections:`"
                        }),
                    );
                }
            }
        }
        prefixes.push(CachePrefix { cell: v.cell.stem(), tokens, prompt_tokens, ends_at });
    }
    Ok(prefixes)
}
