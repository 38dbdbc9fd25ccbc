//! What changes between sessions, measured: a compiled cell is compiled a second time with
//! another session's values (`resolve::session`: another nonce, other values of the dynamic
//! variables) and the two requests are compared byte for byte. Where they first part is where
//! provider prompt caching stops reusing the request, whatever made it part — a section, a
//! layout, a harness message, a templated tool. The analysis of what templates read
//! (`RenderedSection::dynamic`, `Project::layout_dynamic`) says *why*; a test holds the two
//! together on every fixture.

use std::sync::Arc;

use super::Compiled;
use crate::error::Result;
use crate::model::Project;
use crate::render::RenderedMessage;
use crate::resolve::session::{other_session, Variation};
use crate::resolve::tools::ActiveTool;
use crate::resolve::{self, Resolved};

/// Where a cell's request parts from another session's.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SessionDiff {
    /// How the other session was made; `None` when no second compile succeeded (see
    /// `unmeasured`), and the analysis stands in for the measurement.
    pub(crate) variation: Option<Variation>,
    /// Why the cell could not be measured: the second compile's error.
    pub(crate) unmeasured: Option<String>,
    /// The first byte of the prompt that differs (`None`: the prompts are the same).
    pub(crate) prompt_cut: Option<usize>,
    /// The sections whose text differs, or that only one of the two sessions renders.
    pub(crate) changed_sections: Vec<String>,
    /// Where the harness messages first differ (`None`: the same).
    pub(crate) messages_cut: Option<MessageCut>,
    /// The harness messages (by index) whose text differs, or that only this session sends.
    pub(crate) changed_messages: Vec<usize>,
    /// The other session's tools, when any of their texts differs (each provider's tools JSON
    /// is compared at accounting, where it is made).
    pub(crate) other_tools: Option<Arc<Vec<ActiveTool>>>,
}

impl Compiled {
    /// Where the prompt parts from another session's: measured, or (when the cell could not be
    /// compiled with another session's values) where the analysis says it does.
    pub(crate) fn prompt_cut(&self) -> Option<usize> {
        match self.session.variation {
            Some(_) => self.session.prompt_cut,
            None => self.prefix.first_dynamic.as_ref().map(|_| self.prefix.bytes),
        }
    }

    /// Where the harness messages part from another session's: measured, or the start of the
    /// first message the analysis says changes.
    pub(crate) fn messages_cut(&self) -> Option<MessageCut> {
        match self.session.variation {
            Some(_) => self.session.messages_cut,
            None => self.messages.iter().position(|m| m.sections.iter().any(|s| s.dynamic)).map(|message| MessageCut {
                message,
                block: 0,
                byte: 0,
            }),
        }
    }

    /// Whether harness message `i` changes between sessions: measured, or by the analysis.
    pub(crate) fn message_changes(&self, i: usize) -> bool {
        let analysed = self.messages.get(i).is_some_and(|m| m.sections.iter().any(|s| s.dynamic));
        analysed || self.session.changed_messages.contains(&i)
    }

    /// Whether section `id` changes between sessions: measured, or by the analysis.
    pub(crate) fn section_changes(&self, id: &str) -> bool {
        self.session.changed_sections.iter().any(|s| s == id) || self.sections.iter().any(|s| s.id == id && s.dynamic)
    }
}

/// A place in the harness messages: message, content block, byte in the block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MessageCut {
    /// The message (0-based).
    pub message: usize,
    /// Its content block (0-based).
    pub block: usize,
    /// The first byte of the block that differs.
    pub byte: usize,
}

impl SessionDiff {
    /// How far the measurement is from the whole truth, in words, when it is: what the second
    /// compile changed when not everything, or why there was none.
    pub(crate) fn note(&self) -> Option<String> {
        match (self.variation, &self.unmeasured) {
            (Some(Variation::Everything), _) => None,
            (Some(v), _) => Some(format!("measured with {} (the templates fail on other values)", v.describe())),
            (None, Some(why)) => Some(format!("a second session could not be compiled: {why}")),
            (None, None) => None,
        }
    }
}

/// Measure compiled cell `this` against another session: `compile` compiles a resolved cell
/// (without measuring it again). The most varied session a template accepts is used (see
/// [`Variation`]); when none compiles, the diff says why and holds nothing measured.
pub(super) fn measure(
    project: &Project,
    this: &Compiled,
    compile: impl Fn(Resolved) -> Result<Compiled>,
) -> SessionDiff {
    let mut why = String::new();
    for variation in Variation::ALL {
        match other(project, this, variation).and_then(&compile) {
            Ok(o) => return compare(this, &o, variation),
            Err(e) => why = e.diagnostics().first().map(|d| d.message.clone()).unwrap_or_default(),
        }
    }
    SessionDiff { unmeasured: Some(why), ..SessionDiff::default() }
}

/// Cell `c` resolved again with another session's values (`variation`): its tools too, so a
/// templated tool's texts are rendered with them.
pub(crate) fn other(project: &Project, c: &Compiled, variation: Variation) -> Result<Resolved> {
    let runtime = other_session(project, &c.runtime, variation);
    let (selection, transport) = (c.selection.clone(), c.transport);
    // xml and json cells have no provider; resolving reads it for native cells only.
    let provider = c.provider.unwrap_or(project.defaults.provider);
    match &c.subagent {
        Some(name) => resolve::resolve_subagent(project, selection, transport, provider, runtime, name),
        None => resolve::resolve_cell(project, selection, transport, provider, runtime),
    }
}

/// The diff of two sessions' compiles.
fn compare(a: &Compiled, b: &Compiled, variation: Variation) -> SessionDiff {
    let prompt_cut = first_difference(&a.prompt, &b.prompt);
    let mut changed_sections: Vec<String> = a
        .sections
        .iter()
        .filter(|s| b.sections.iter().find(|o| o.id == s.id).is_none_or(|o| o.text != s.text))
        .map(|s| s.id.clone())
        .collect();
    changed_sections
        .extend(b.sections.iter().filter(|o| !a.sections.iter().any(|s| s.id == o.id)).map(|o| o.id.clone()));
    let mut messages_cut = None;
    let mut changed_messages = Vec::new();
    for (i, m) in a.messages.iter().enumerate() {
        let other = b.messages.get(i);
        if other.is_some_and(|o| o.blocks == m.blocks && o.role == m.role) {
            continue;
        }
        changed_messages.push(i);
        if messages_cut.is_none() {
            messages_cut = Some(block_cut(i, m, other));
        }
    }
    SessionDiff {
        variation: Some(variation),
        unmeasured: None,
        prompt_cut,
        changed_sections,
        messages_cut,
        changed_messages,
        other_tools: (a.tools != b.tools).then(|| Arc::new(b.tools.clone())),
    }
}

/// Where message `i` (`m`) first differs from the other session's (`other`, if it has one).
fn block_cut(i: usize, m: &RenderedMessage, other: Option<&RenderedMessage>) -> MessageCut {
    let Some(o) = other.filter(|o| o.role == m.role && o.form == m.form) else {
        return MessageCut { message: i, block: 0, byte: 0 };
    };
    for (j, block) in m.blocks.iter().enumerate() {
        match o.blocks.get(j) {
            Some(ob) if ob == block => continue,
            Some(ob) => {
                return MessageCut { message: i, block: j, byte: first_difference(block, ob).unwrap_or(block.len()) }
            }
            None => return MessageCut { message: i, block: j, byte: 0 },
        }
    }
    // Every block of this message is the other's, which has more: the message's framing differs
    // after its last block.
    let last = m.blocks.len().saturating_sub(1);
    MessageCut { message: i, block: last, byte: m.blocks.get(last).map_or(0, String::len) }
}

/// The first byte where `a` differs from `b` (on a character boundary of `a`); `None` when they
/// are the same. When `a` is a prefix of `b`, all of `a` is shared but what follows it is not:
/// the difference is at its end.
pub(crate) fn first_difference(a: &str, b: &str) -> Option<usize> {
    if a == b {
        return None;
    }
    let common = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    Some(crate::diagnostic::floor_char_boundary(a, common))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_difference_is_on_a_character_boundary_and_a_prefix_differs_nowhere() {
        assert_eq!(first_difference("abc", "abc"), None);
        assert_eq!(first_difference("ab", "abc"), Some(2), "a prefix is shared, what follows it is not");
        assert_eq!(first_difference("abc", "ab"), Some(2));
        assert_eq!(first_difference("xé", "xè"), Some(1), "é and è share a first byte");
        assert_eq!(first_difference("", "a"), Some(0));
    }
}

#[cfg(test)]
#[path = "session_tests.rs"]
pub(crate) mod agreement_tests;
