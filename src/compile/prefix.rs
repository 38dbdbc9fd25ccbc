//! Where each section sits in a compiled prompt, and the static prefix that follows from it:
//! the part of the prompt provider caching can reuse from one session to the next.

use crate::render::RenderedSection;

/// Where each section's text starts in `prompt`. Sections usually appear in order, so each
/// search starts where the previous one ended: linear in the prompt's size.
pub(super) fn place(prompt: &str, sections: &[RenderedSection]) -> Vec<Option<usize>> {
    let mut from = 0;
    sections
        .iter()
        .map(|s| {
            let at = prompt
                .get(from..)
                .and_then(|rest| rest.find(&s.text))
                .map(|i| i + from)
                .or_else(|| prompt.find(&s.text));
            if let Some(i) = at {
                from = i + s.text.len();
            }
            at
        })
        .collect()
}

/// The static prefix of `prompt` given its sections and their offsets.
pub(super) fn static_prefix_of(prompt: &str, sections: &[RenderedSection], offsets: &[Option<usize>]) -> StaticPrefix {
    let mut placed: Vec<(usize, &RenderedSection)> =
        sections.iter().zip(offsets).filter_map(|(s, o)| o.map(|i| (i, s))).collect();
    placed.sort_by_key(|(i, _)| *i);
    let first = placed.iter().position(|(_, s)| s.dynamic);
    let bytes = first.map_or(prompt.len(), |i| placed[i].0);
    let last_static = placed[..first.unwrap_or(placed.len())].last().map(|(_, s)| s.id.clone());
    StaticPrefix { bytes, last_static, first_dynamic: first.map(|i| placed[i].1.id.clone()) }
}

/// Where a prompt stops being the same from one session to the next: the end of its static
/// prefix, which provider prompt caching can reuse.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct StaticPrefix {
    /// Bytes of the prompt before the first section that changes between sessions (the whole
    /// prompt when none does).
    pub bytes: usize,
    /// The last static section before that point: where a cache breakpoint goes.
    pub last_static: Option<String>,
    /// The first section that changes between sessions, if any.
    pub first_dynamic: Option<String>,
}
