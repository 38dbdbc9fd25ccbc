//! Where each section sits in a compiled prompt, and the static prefix: the part of the prompt
//! provider caching can reuse from one session to the next — measured (where the prompt parts
//! from another session's, see `session`), and explained by the analysis of what templates read.

use super::Compiled;
use crate::model::Project;
use crate::render::RenderedSection;

/// The name of the prompt's text that no section owns (separators, a layout's own text), as
/// every report names it.
pub const OUTSIDE_SECTIONS: &str = "(outside sections)";

/// Where each section's text starts in `prompt`. Sections usually appear in order, so each
/// search starts where the previous one ended: linear in the prompt's size. A section whose
/// text is not in the prompt as rendered (a layout that leaves it out or rewrites it) has no
/// place; nor has one found only inside a section placed before it, so placed sections never
/// overlap.
pub(super) fn place(prompt: &str, sections: &[RenderedSection]) -> Vec<Option<usize>> {
    let mut from = 0;
    let mut taken: Vec<(usize, usize)> = Vec::new();
    sections
        .iter()
        .map(|s| {
            let at = prompt
                .get(from..)
                .and_then(|rest| rest.find(&s.text))
                .map(|i| i + from)
                .or_else(|| free_place(prompt, &s.text, &taken));
            if let Some(i) = at {
                from = i + s.text.len();
                taken.push((i, i + s.text.len()));
            }
            at
        })
        .collect()
}

/// The first place of `text` in `prompt` that overlaps none of the places `taken`.
fn free_place(prompt: &str, text: &str, taken: &[(usize, usize)]) -> Option<usize> {
    prompt.match_indices(text).map(|(i, _)| i).find(|&i| taken.iter().all(|&(a, b)| i + text.len() <= a || i >= b))
}

/// The static prefix of `c`'s prompt: measured where `c.session` measured it, else (when no
/// second compile succeeded) from the analysis — the first section it says is dynamic, or the
/// prompt's start when the layout reads a dynamic value.
pub(super) fn static_prefix_of(project: &Project, c: &Compiled) -> StaticPrefix {
    let placed = c.placed_sections();
    let measured = c.session.variation.is_some();
    let cut = if measured {
        c.session.prompt_cut
    } else if !project.layout_dynamic.is_empty() {
        Some(0)
    } else {
        placed.iter().find(|(_, s)| s.dynamic).map(|(i, _)| *i)
    };
    let Some(cut) = cut else {
        let last_static = placed.last().map(|(_, s)| s.id.clone());
        return StaticPrefix { bytes: c.prompt.len(), last_static, first_dynamic: None, why: None, measured };
    };
    let last_static = placed.iter().rev().find(|(i, s)| i + s.text.len() <= cut).map(|(_, s)| s.id.clone());
    let holder = placed.iter().find(|(i, s)| *i <= cut && cut < i + s.text.len()).map(|(_, s)| *s).or_else(|| {
        // Past the prompt's end: the other session has more text; a section only it renders.
        (cut >= c.prompt.len())
            .then(|| c.session.changed_sections.first())
            .flatten()
            .and_then(|id| c.sections.iter().find(|s| &s.id == id))
    });
    let (first_dynamic, why) = match holder {
        Some(s) => (s.id.clone(), s.why.clone()),
        None => (OUTSIDE_SECTIONS.to_string(), layout_why(project)),
    };
    StaticPrefix { bytes: cut, last_static, first_dynamic: Some(first_dynamic), why, measured }
}

/// Why the layout's own text changes between sessions, if the analysis says it does.
pub(crate) fn layout_why(project: &Project) -> Option<String> {
    (!project.layout_dynamic.is_empty()).then(|| {
        let names: Vec<String> = project.layout_dynamic.iter().map(|n| format!("`{n}`")).collect();
        format!("reads {}", names.join(", "))
    })
}

/// Where a prompt stops being the same from one session to the next: the end of its static
/// prefix, which provider prompt caching can reuse.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct StaticPrefix {
    /// Bytes of the prompt that are the same in every session: where the prompt first differs
    /// from another session's (the whole prompt when it does not).
    pub bytes: usize,
    /// The last section wholly before that point: where a cache breakpoint goes.
    pub last_static: Option<String>,
    /// What holds that point: a section, or `(outside sections)` (a layout's own text), if any.
    pub first_dynamic: Option<String>,
    /// Why that text changes between sessions, as the analysis of what templates read says
    /// (`reads \`cwd\``, `the layout reads \`nonce\``).
    #[serde(default)]
    pub why: Option<String>,
    /// Whether the point was measured (the cell compiled again with another session's values
    /// and compared byte for byte), or, when that compile failed, taken from the analysis.
    #[serde(default)]
    pub measured: bool,
}
