//! Counting a chat cell: its templated text with the model's own tokenizer (a Hugging Face
//! `tokenizer.json`, read from a file the user gives: promptc never downloads), split into what
//! the user wrote — each section of the system prompt, each harness message — the tools block
//! the template writes, and the template's own text around them.

use std::path::Path;

use serde::Serialize;

use std::collections::HashMap;
use std::ops::Range;

use crate::chat::{ChatPartKind, ChatText, ToolsShown};
use crate::compile::Compiled;
use crate::diagnostic::Diagnostic;
use crate::error::{ErrorKind, Result};

use super::tokens::Mark;
use super::Measure;

/// The most bytes a tokenizer file may have: real ones are 2–20 MB; a 150,000-entry vocabulary
/// with its merges is about 10 MB.
pub const MAX_TOKENIZER_FILE: u64 = 64 << 20;

/// A Hugging Face tokenizer read from a `tokenizer.json`.
pub struct HfTokenizer {
    inner: tokenizers::Tokenizer,
    display: String,
}

impl std::fmt::Debug for HfTokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HfTokenizer").field("file", &self.display).finish()
    }
}

impl HfTokenizer {
    /// Read `tokenizer.json`.
    pub fn read(path: &Path) -> Result<HfTokenizer> {
        let display = path.display().to_string();
        let fail = |why: String| {
            Diagnostic::error(format!("cannot use the tokenizer file {display}: {why}"))
                .with_help("give a Hugging Face `tokenizer.json` (the file beside a model's weights)")
                .into_error(ErrorKind::Usage)
        };
        let meta = std::fs::metadata(path).map_err(|e| fail(e.to_string()))?;
        if !meta.is_file() {
            return Err(fail("not a regular file".into()));
        }
        if meta.len() > MAX_TOKENIZER_FILE {
            return Err(fail(format!(
                "{} bytes, more than the {MAX_TOKENIZER_FILE} a tokenizer file may have",
                meta.len()
            )));
        }
        let bytes = std::fs::read(path).map_err(|e| fail(e.to_string()))?;
        HfTokenizer::from_bytes(&display, &bytes).map_err(|e| fail(e.to_string()))
    }

    /// A tokenizer from the bytes of a `tokenizer.json`; `display` names it.
    pub fn from_bytes(display: &str, bytes: &[u8]) -> std::result::Result<HfTokenizer, String> {
        // Untrusted: its shape is bounded before anything is built from it.
        super::tokenizer_guard::check(bytes)?;
        // The `tokenizers` crate may panic on a malformed file instead of returning an error:
        // a file from a pull request must never abort promptc.
        let parsed = std::panic::catch_unwind(|| tokenizers::Tokenizer::from_bytes(bytes))
            .map_err(|_| "the file is not a tokenizer this version can read".to_string())?;
        let inner = parsed.map_err(|e| format!("not a tokenizer.json: {e}"))?;
        Ok(HfTokenizer { inner, display: display.to_string() })
    }

    /// The file, as the user named it.
    pub fn display(&self) -> &str {
        &self.display
    }

    /// Tokens in `text`, as Python's `tokenizer.encode(text, add_special_tokens=False)`
    /// counts them: special tokens written in the text (`<|im_start|>`) are one token each, and
    /// none is added.
    pub fn count(&self, text: &str) -> Result<u64> {
        Ok(self.marks(text, &[text.len()])?.first().map_or(0, |m| m.starts))
    }

    /// The marks of `text` at `points` (bytes): how many of its tokens start before each, and
    /// how many end by it (see [`Mark`]). The text is encoded once, whole, with offsets.
    pub(crate) fn marks(&self, text: &str, points: &[usize]) -> Result<Vec<Mark>> {
        let encoded = std::panic::catch_unwind(|| self.inner.encode(text, false))
            .map_err(|_| "the tokenizer failed on this text".to_string())
            .and_then(|r| r.map_err(|e| e.to_string()));
        let encoding = encoded.map_err(|why| {
            Diagnostic::error(format!("the tokenizer {} cannot count this text: {why}", self.display))
                .into_error(ErrorKind::Internal)
        })?;
        let offsets = encoding.get_offsets();
        // At the text's end, every token: one whose offsets are empty or past the text (a
        // tokenizer may emit such) still counts, in the last part.
        Ok(points
            .iter()
            .map(|&p| match p >= text.len() {
                true => Mark::all(offsets.len() as u64),
                false => Mark {
                    starts: offsets.iter().filter(|(start, _)| *start < p).count() as u64,
                    ends: offsets.iter().filter(|(start, end)| *start < p && *end <= p).count() as u64,
                },
            })
            .collect())
    }
}

/// What a row of a chat cell's account is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ChatRowKind {
    /// A section of the system prompt.
    Section {
        /// Its id.
        id: String,
        /// Where it is in the templated text (bytes); `None` when the text does not hold it as
        /// written (the template dropped or rewrote the system prompt): then it counts nothing.
        #[serde(skip_serializing_if = "Option::is_none")]
        offset: Option<usize>,
    },
    /// A harness message's content.
    Message {
        /// Its position in the profile's messages (1-based, as `render` names them).
        index: usize,
        /// Its role.
        role: String,
        /// Where it is in the templated text (bytes); `None` when not found as written.
        #[serde(skip_serializing_if = "Option::is_none")]
        offset: Option<usize>,
    },
    /// The tools as the template writes them: the lines the text has only with them.
    Tools {
        /// How many tools.
        count: usize,
        /// Whether their share is known (a template that fails without tools leaves it
        /// unknown: their text is then in the template's row).
        known: bool,
    },
    /// Everything else the template writes: role headers, special tokens, the generation
    /// prompt, dates, default system text.
    Template,
}

/// One row of a chat cell's account.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ChatRow {
    /// What it is.
    #[serde(flatten)]
    pub kind: ChatRowKind,
    /// Its tokens: those of the whole text that start in its part.
    pub tokens: u64,
    /// Its UTF-8 bytes.
    pub bytes: u64,
}

/// A chat cell's tokens: the whole templated text and its rows, which partition it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ChatAccount {
    /// The whole templated text.
    pub total: Measure,
    /// Its parts, in the order they are sent, then the tools block and the template's own text.
    pub rows: Vec<ChatRow>,
    /// Tokens that end before the first byte another session's text differs (all of them when
    /// none does); `None` when it could not be measured.
    pub cacheable: Option<u64>,
}

/// The marks of a text at byte points (see [`Mark`]), from whichever tokenizer counts it.
pub type Marks<'a> = dyn FnMut(&str, &[usize]) -> Result<Vec<Mark>> + 'a;

/// Count `chat` (the templated text of `compiled`): `marks` gives the whole text's marks at
/// byte points (see [`Mark`]); `tools` is where the text holds the tools, `cut` where another
/// session's text first differs. Every row is a range of the text, none overlapping — sections
/// and messages where found, then the tools' lines outside them, the template's row the rest —
/// and its tokens are those that start in it: the rows add up to the total, none negative.
pub fn account(
    compiled: &Compiled,
    chat: &ChatText,
    tools: &ToolsShown,
    cut: Option<Option<usize>>,
    marks: &mut Marks<'_>,
) -> Result<ChatAccount> {
    let text = &chat.text;
    let located = |k: &ChatPartKind| chat.parts.iter().find(|p| &p.kind == k).map(|p| p.range.clone());
    let mut parts: Vec<(ChatRowKind, Vec<Range<usize>>)> = Vec::new();
    for (_, s) in compiled.placed_sections() {
        let range = located(&ChatPartKind::Section(s.id.clone()));
        let offset = range.as_ref().map(|r| r.start);
        parts.push((ChatRowKind::Section { id: s.id.clone(), offset }, range.into_iter().collect()));
    }
    for (i, m) in compiled.messages.iter().enumerate() {
        let range = located(&ChatPartKind::Message(i));
        let kind = ChatRowKind::Message {
            index: i + 1,
            role: m.role.as_str().to_string(),
            offset: range.as_ref().map(|r| r.start),
        };
        parts.push((kind, range.into_iter().collect()));
    }
    let taken: Vec<Range<usize>> = parts.iter().flat_map(|(_, r)| r.iter().cloned()).collect();
    match tools {
        ToolsShown::NoTools => {}
        ToolsShown::Ranges(r) => {
            let count = compiled.tools.len();
            parts
                .push((ChatRowKind::Tools { count, known: true }, r.iter().flat_map(|r| outside(r, &taken)).collect()));
        }
        ToolsShown::Unknown(_) => {
            parts.push((ChatRowKind::Tools { count: compiled.tools.len(), known: false }, Vec::new()))
        }
    }
    let mut points: Vec<usize> = parts.iter().flat_map(|(_, r)| r.iter().flat_map(|r| [r.start, r.end])).collect();
    points.push(text.len());
    points.extend(cut.flatten());
    points.sort_unstable();
    points.dedup();
    let at: HashMap<usize, Mark> = points.iter().copied().zip(marks(text, &points)?).collect();
    let starts = |p: usize| at.get(&p).map_or(0, |m| m.starts);
    let total = Measure { tokens: starts(text.len()), bytes: text.len() as u64 };
    let mut rows: Vec<ChatRow> = parts
        .into_iter()
        .map(|(kind, ranges)| ChatRow {
            kind,
            tokens: ranges.iter().map(|r| starts(r.end) - starts(r.start)).sum(),
            bytes: ranges.iter().map(|r| r.len() as u64).sum(),
        })
        .collect();
    let (tokens, bytes) = rows.iter().fold((0, 0), |(t, b), r| (t + r.tokens, b + r.bytes));
    rows.push(ChatRow { kind: ChatRowKind::Template, tokens: total.tokens - tokens, bytes: total.bytes - bytes });
    let cacheable = cut.map(|c| c.map_or(total.tokens, |b| at.get(&b).map_or(0, |m| m.ends)));
    Ok(ChatAccount { total, rows, cacheable })
}

/// The parts of `r` outside every range of `taken`.
fn outside(r: &Range<usize>, taken: &[Range<usize>]) -> Vec<Range<usize>> {
    let mut out = vec![r.clone()];
    for t in taken {
        out = out
            .into_iter()
            .flat_map(|p| {
                if t.end <= p.start || t.start >= p.end {
                    vec![p]
                } else {
                    [p.start..t.start, t.end..p.end].into_iter().filter(|x| x.start < x.end).collect()
                }
            })
            .collect();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_less_the_taken_ones_is_what_no_part_holds() {
        assert_eq!(outside(&(0..10), &[2..4, 6..7]), [0..2, 4..6, 7..10]);
        assert_eq!(outside(&(0..10), std::slice::from_ref(&(0..10))), Vec::<Range<usize>>::new());
        assert_eq!(outside(&(3..5), &[0..2, 8..9]), vec![3..5]);
    }
}
