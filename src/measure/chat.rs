//! Counting a chat cell: its templated text with the model's own tokenizer (a Hugging Face
//! `tokenizer.json`, read from a file the user gives: promptc never downloads), split into what
//! the user wrote — each section of the system prompt, each harness message — the tools block
//! the template writes, and the template's own text around them.

use std::path::Path;

use serde::Serialize;

use crate::chat::{ChatPartKind, ChatText};
use crate::compile::Compiled;
use crate::diagnostic::Diagnostic;
use crate::error::{ErrorKind, Result};

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
        let encoded = std::panic::catch_unwind(|| self.inner.encode_fast(text, false))
            .map_err(|_| "the tokenizer failed on this text".to_string())
            .and_then(|r| r.map_err(|e| e.to_string()));
        match encoded {
            Ok(e) => Ok(e.len() as u64),
            Err(why) => Err(Diagnostic::error(format!("the tokenizer {} cannot count this text: {why}", self.display))
                .into_error(ErrorKind::Internal)),
        }
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
        /// Where it is in the templated text (bytes), when found as written.
        #[serde(skip_serializing_if = "Option::is_none")]
        offset: Option<usize>,
    },
    /// A harness message's content.
    Message {
        /// Its position in the profile's messages (1-based, as `render` names them).
        index: usize,
        /// Its role.
        role: String,
        /// Where it is in the templated text (bytes), when found as written.
        #[serde(skip_serializing_if = "Option::is_none")]
        offset: Option<usize>,
    },
    /// The tools as the template writes them: the text with tools less the text without.
    Tools {
        /// How many tools.
        count: usize,
    },
    /// Everything else the template writes: role headers, special tokens, the generation
    /// prompt, dates, default system text — and the few tokens by which counting the parts on
    /// their own differs from counting the whole.
    Template,
}

/// One row of a chat cell's account.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ChatRow {
    /// What it is.
    #[serde(flatten)]
    pub kind: ChatRowKind,
    /// Its tokens (the template's row may be negative by a few tokens: counting parts on their
    /// own can take more tokens than the whole).
    pub tokens: i64,
    /// Its UTF-8 bytes.
    pub bytes: i64,
}

/// A chat cell's tokens: the whole templated text and its rows, which add up to it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ChatAccount {
    /// The whole templated text.
    pub total: Measure,
    /// Its parts, in the order they are sent, then the tools block and the template's own text.
    pub rows: Vec<ChatRow>,
}

/// Count `chat` (the templated text of `compiled`) with `count`; `without_tools` is the same
/// cell's text with no tools, which tells the tools block's share.
pub fn account(
    compiled: &Compiled,
    chat: &ChatText,
    without_tools: &str,
    count: &mut dyn FnMut(&str) -> Result<u64>,
) -> Result<ChatAccount> {
    let total = Measure { tokens: count(&chat.text)?, bytes: chat.text.len() as u64 };
    let located = |k: &ChatPartKind| chat.parts.iter().find(|p| &p.kind == k).map(|p| p.range.start);
    let mut rows = Vec::new();
    for (_, s) in compiled.placed_sections() {
        let offset = located(&ChatPartKind::Section(s.id.clone()));
        let (tokens, bytes) = (count(&s.text)? as i64, s.text.len() as i64);
        rows.push(ChatRow { kind: ChatRowKind::Section { id: s.id.clone(), offset }, tokens, bytes });
    }
    for (i, m) in compiled.messages.iter().enumerate() {
        let offset = located(&ChatPartKind::Message(i));
        let mut tokens = 0;
        for block in &m.blocks {
            tokens += count(block)? as i64;
        }
        let bytes = m.len() as i64;
        rows.push(ChatRow {
            kind: ChatRowKind::Message { index: i + 1, role: m.role.as_str().to_string(), offset },
            tokens,
            bytes,
        });
    }
    let tool_count = compiled.projection().and_then(|p| p.as_array()).map_or(0, Vec::len);
    if tool_count > 0 {
        let without = count(without_tools)? as i64;
        rows.push(ChatRow {
            kind: ChatRowKind::Tools { count: tool_count },
            tokens: total.tokens as i64 - without,
            bytes: chat.text.len() as i64 - without_tools.len() as i64,
        });
    }
    let (tokens, bytes) = rows.iter().fold((0i64, 0i64), |(t, b), r| (t + r.tokens, b + r.bytes));
    rows.push(ChatRow {
        kind: ChatRowKind::Template,
        tokens: total.tokens as i64 - tokens,
        bytes: total.bytes as i64 - bytes,
    });
    Ok(ChatAccount { total, rows })
}
