//! Checks a template's source before minijinja compiles it, so a hostile project ends in a
//! located error instead of an abort or an out-of-memory kill:
//!
//! - NUL bytes are refused (they are never prompt text, and they hide what follows).
//! - No tag (`{{ … }}`, `{% … %}`) may hold more than [`MAX_TAG_TOKENS`] tokens: a chain of
//!   50,000 `~` or `|filter` links builds a syntax tree deep enough to overflow the stack
//!   while it is compiled or dropped, and no real template comes near the limit.
//! - No value may grow without bound: minijinja's fuel counts instructions, not bytes, and
//!   forty `{% set s = s ~ s %}` (or one macro calling itself with `s ~ s`) ask for a terabyte.
//!   A static pass over the syntax tree estimates how many times its inputs each assigned value
//!   can hold and refuses self-feeding growth; the rendered output itself is capped while
//!   rendering (see `Limits`), and the filters that can amplify text check their result size.

mod calls;
mod growth;

use minijinja::machinery::ast::Stmt;
use minijinja::machinery::WhitespaceConfig;
use minijinja::syntax::SyntaxConfig;

/// Most tokens one tag may hold: a generous sentence-long expression is under 100.
pub const MAX_TAG_TOKENS: usize = 1000;

/// Most times a value assigned with `set` may hold its inputs (`x ~ x` holds `x` twice).
pub const MAX_GROWTH: u64 = 4096;

/// Why a template was refused, located by byte range in its source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// Byte offset of the start of the offending text.
    pub start: usize,
    /// Byte offset of its end.
    pub end: usize,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub help: String,
}

/// Check `source`; `ws` is the environment's whitespace configuration.
pub fn check(source: &str, ws: WhitespaceConfig) -> Result<(), Refusal> {
    check_parsed(source, ws).map(drop)
}

/// Check `source` as [`check`] does, and hand back the syntax tree it parsed (`None` on a
/// syntax error), so a caller that walks the tree too need not parse the source again.
pub fn check_parsed(source: &str, ws: WhitespaceConfig) -> Result<Option<Stmt<'_>>, Refusal> {
    if let Some(at) = source.find('\0') {
        return Err(Refusal {
            start: at,
            end: at + 1,
            message: "the template contains a NUL byte".into(),
            help: "remove it: a NUL byte is never prompt text (the file may be binary or mis-encoded)".into(),
        });
    }
    check_tags(source, ws)?;
    // A syntax error is minijinja's to report, with its own message; nothing to guard then.
    let Ok(tree) = minijinja::machinery::parse(source, "<guard>", SyntaxConfig, ws) else {
        return Ok(None);
    };
    growth::check(&tree)?;
    Ok(Some(tree))
}

/// Refuse a tag holding more than [`MAX_TAG_TOKENS`] tokens (tokenizing is cheap and flat;
/// parsing such a tag is what overflows the stack).
fn check_tags(source: &str, ws: WhitespaceConfig) -> Result<(), Refusal> {
    use minijinja::machinery::Token;
    let mut open: Option<(usize, usize)> = None; // (start offset, tokens so far)
    for item in minijinja::machinery::tokenize(source, false, SyntaxConfig, ws) {
        let Ok((token, span)) = item else { return Ok(()) };
        match token {
            Token::VariableStart | Token::BlockStart => open = Some((span.start_offset as usize, 0)),
            Token::VariableEnd | Token::BlockEnd => open = None,
            _ => {
                if let Some((start, n)) = open.as_mut() {
                    *n += 1;
                    if *n > MAX_TAG_TOKENS {
                        return Err(Refusal {
                            start: *start,
                            end: span.end_offset as usize,
                            message: format!("this tag holds more than {MAX_TAG_TOKENS} tokens"),
                            help: "split the expression over several `{% set %}` statements or macros".into(),
                        });
                    }
                }
            }
        }
    }
    Ok(())
}

/// The block tags still open where byte `upto` starts (`{% if %}` before its `{% endif %}`),
/// outermost first (minijinja reports an unclosed block where the input ends; the opening tag
/// is what the author needs to see): each one's byte range and keyword. `None` if the text before cannot be
/// split into tokens.
pub fn open_blocks(source: &str, ws: WhitespaceConfig, upto: usize) -> Option<Vec<(usize, usize, String)>> {
    use minijinja::machinery::Token;
    const OPENERS: &[&str] = &["if", "for", "macro", "call", "filter", "with", "block", "autoescape", "set"];
    let mut open: Vec<(usize, usize, String)> = Vec::new();
    // The tag being read: its start, its keyword, whether it assigns (`{% set x = … %}` opens nothing).
    let mut tag: Option<(usize, Option<String>, bool)> = None;
    for item in minijinja::machinery::tokenize(source, false, SyntaxConfig, ws) {
        let Ok((token, span)) = item else { return None };
        if span.start_offset as usize >= upto {
            break;
        }
        match (token, tag.as_mut()) {
            (Token::BlockStart, _) => tag = Some((span.start_offset as usize, None, false)),
            (Token::Ident(kw), Some((_, word @ None, _))) => *word = Some(kw.to_string()),
            (Token::Assign, Some((_, _, assigns))) => *assigns = true,
            (Token::BlockEnd, Some(_)) => {
                let Some((start, Some(kw), assigns)) = tag.take() else { continue };
                let end = span.end_offset as usize;
                if let Some(base) = kw.strip_prefix("end") {
                    if let Some(i) = open.iter().rposition(|(_, _, k)| k == base) {
                        open.truncate(i);
                    }
                } else if OPENERS.contains(&kw.as_str()) && !(kw == "set" && assigns) {
                    open.push((start, end, kw));
                }
            }
            _ => {}
        }
    }
    Some(open)
}

#[cfg(test)]
#[path = "guard_tests.rs"]
mod tests;
