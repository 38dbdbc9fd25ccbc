//! Template syntax errors in the author's terms, located at their cause: a tag never closed
//! (`{{ x` without `}}`), a block never ended (`{% if %}` without `{% endif %}`), an end tag
//! that ends no open block, a misspelt statement (`{% edif %}`), `{% else if %}`. minijinja
//! reports where parsing stopped — at the end of the input, or at the next tag — and names the
//! token it did not expect; the author needs the tag they wrote and what it lacks.

use std::ops::Range;

use minijinja::machinery::WhitespaceConfig;

use super::guard::open_blocks;
use crate::diagnostic::{did_you_mean, edit_distance};

/// A syntax error explained: the message, its help and the byte range of the cause.
#[derive(Debug)]
pub struct Explained {
    /// The message line.
    pub message: String,
    /// How to fix it.
    pub help: String,
    /// Byte range of the cause in the template's source.
    pub at: Range<usize>,
}

/// The statements minijinja knows.
const STATEMENTS: &[&str] = &[
    "if",
    "elif",
    "else",
    "endif",
    "for",
    "endfor",
    "continue",
    "break",
    "set",
    "endset",
    "with",
    "endwith",
    "macro",
    "endmacro",
    "call",
    "endcall",
    "filter",
    "endfilter",
    "block",
    "endblock",
    "extends",
    "include",
    "import",
    "from",
    "autoescape",
    "endautoescape",
    "raw",
    "endraw",
    "do",
];

/// Explain syntax error `e` in `source` (whitespace settings `ws`); `first_line` is the line
/// the template's text starts on in its file, for the line numbers the help names.
pub fn explain(e: &minijinja::Error, source: &str, ws: WhitespaceConfig, first_line: usize) -> Option<Explained> {
    let detail = e.detail()?;
    let range = e.range().unwrap_or(source.len()..source.len());
    let line_of = |byte: usize| first_line + source.get(..byte).map_or(0, |b| b.matches('\n').count());
    if detail.contains("expected end of") {
        if let Some(x) = unclosed_tag(source, range.start) {
            return Some(x);
        }
    }
    if let Some(word) = detail.strip_prefix("unknown statement ") {
        let open = open_blocks(source, ws, range.start).unwrap_or_default();
        let open: Vec<(String, usize)> = open.into_iter().map(|(s, _, kw)| (kw, line_of(s))).collect();
        return Some(unknown_statement(word, range, &open));
    }
    if detail.contains("expected end of block") {
        if let Some(x) = else_if(source, &range) {
            return Some(x);
        }
    }
    if detail.contains("unexpected end of input") {
        let (start, end, kw) = open_blocks(source, ws, source.len())?.pop()?;
        return Some(Explained {
            message: format!("`{{% {kw} %}}` is never closed"),
            help: format!("add `{{% end{kw} %}}` where the block ends"),
            at: start..end,
        });
    }
    None
}

/// The `{{` or `{%` before byte `at` whose tag never ends: no `}}` (`%}`) follows it before the
/// next tag opens or the text ends.
fn unclosed_tag(source: &str, at: usize) -> Option<Explained> {
    let before = source.get(..at.min(source.len()))?;
    let (open, kind) = ["{{", "{%"].iter().filter_map(|o| before.rfind(o).map(|i| (i, *o))).max()?;
    let body_start = open + 2;
    let next =
        ["{{", "{%"].iter().filter_map(|o| source[body_start..].find(o)).min().map_or(source.len(), |i| body_start + i);
    let close = if kind == "{{" { "}}" } else { "%}" };
    if source[body_start..next].contains(close) {
        return None;
    }
    let body = source[body_start..next].trim_start_matches(['-', '+']).trim_start();
    let word: String = body.chars().take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '.')).collect();
    if kind == "{{" {
        // What the author wrote, up to where minijinja stopped making sense of it, if short.
        let expr = source.get(body_start..at.clamp(body_start, next)).unwrap_or("").trim();
        let example = match expr {
            "" => "name",
            e if e.chars().count() <= 40 => e,
            _ if !word.is_empty() => word.as_str(),
            _ => "name",
        };
        return Some(Explained {
            message: "this `{{` is never closed".into(),
            help: format!("end the expression with `}}}}`: `{{{{ {example} }}}}`"),
            at: open..body_start,
        });
    }
    let end = body_start + (source[body_start..next].len() - body.len()) + word.len();
    let tag = if word.is_empty() { "{%".to_string() } else { format!("{{% {word}") };
    Some(Explained {
        message: format!("this `{tag}` tag is never closed"),
        help: format!("end the tag with `%}}`: `{tag} … %}}`"),
        at: open..end,
    })
}

/// A statement minijinja does not know where it stands, `open` being the blocks open there
/// (keyword and line, outermost first): an end tag that ends none of them, `elif`/`else`
/// outside their block, or a misspelling.
fn unknown_statement(word: &str, at: Range<usize>, open: &[(String, usize)]) -> Explained {
    let innermost = open.last().map(|(kw, line)| (kw.as_str(), *line));
    let openers = ["if", "for", "macro", "call", "filter", "with", "block", "autoescape", "set", "raw"];
    if let Some(base) = word.strip_prefix("end").filter(|b| openers.contains(b)) {
        let (message, help) = match innermost {
            None => (
                format!("`{{% {word} %}}` ends no block: no `{{% {base} %}}` is open here"),
                format!("remove it, or add the `{{% {base} … %}}` it should end before it"),
            ),
            Some((kw, line)) if open.iter().any(|(k, _)| k == base) => (
                format!("`{{% {word} %}}` comes before the `{{% {kw} %}}` on line {line} is ended"),
                format!("end the `{{% {kw} %}}` first: add `{{% end{kw} %}}` before this `{{% {word} %}}`"),
            ),
            Some((kw, line)) => (
                format!("`{{% {word} %}}` ends no block: the block open here is `{{% {kw} %}}` (line {line})"),
                format!("end it with `{{% end{kw} %}}`, or remove this `{{% {word} %}}`"),
            ),
        };
        return Explained { message, help, at };
    }
    if matches!(word, "elif" | "else") {
        let takes = if word == "else" { "an `{% if %}` or `{% for %}` block" } else { "an `{% if %}` block" };
        let help = match innermost {
            Some((kw, line)) => format!(
                "it belongs inside {takes}; the block open here is `{{% {kw} %}}` (line {line}), which has no \
                 `{{% {word} %}}`"
            ),
            None => format!("it belongs inside {takes}, before its end tag; no block is open here"),
        };
        return Explained { message: format!("`{{% {word} %}}` outside {takes}"), help, at };
    }
    let end_tag = innermost.map(|(kw, _)| format!("end{kw}"));
    let mut help = match nearest(word, end_tag.as_deref()).as_slice() {
        [] => String::new(),
        [one] => format!("did you mean `{one}`? "),
        [a, b, ..] => format!("did you mean `{a}` or `{b}`? "),
    };
    match innermost {
        Some((kw, line)) => {
            help.push_str(&format!("the block open here is `{{% {kw} %}}` (line {line}), ended by `{{% end{kw} %}}`"))
        }
        None => help.push_str(
            "statements: if, elif, else, endif, for, endfor, set, with, macro, call, filter, include, import",
        ),
    }
    Explained { message: format!("unknown template statement `{word}`"), help, at }
}

/// The statements nearest `word`: those at the least edit distance (the open block's end tag
/// `end_tag` first among equals: `edif` is as near `elif` as `endif`), and one it abbreviates.
fn nearest(word: &str, end_tag: Option<&str>) -> Vec<&'static str> {
    let near: Vec<&'static str> = STATEMENTS.iter().copied().filter(|s| did_you_mean(word, [*s]).is_some()).collect();
    let Some(least) = near.iter().map(|s| edit_distance(word, s)).min() else { return Vec::new() };
    let mut out: Vec<&'static str> = near.iter().copied().filter(|s| edit_distance(word, s) == least).collect();
    out.sort_by_key(|s| Some(*s) != end_tag);
    if let Some(prefix) = did_you_mean(word, STATEMENTS.iter().copied()).filter(|s| !out.contains(s)) {
        out.push(prefix);
    }
    out
}

/// `{% else if x %}`, which minijinja reports at the `if` as a token it did not expect.
fn else_if(source: &str, at: &Range<usize>) -> Option<Explained> {
    if source.get(at.clone())? != "if" {
        return None;
    }
    let before = source.get(..at.start)?;
    let open = before.rfind("{%")?;
    let inside = &before[open + 2..];
    if inside.trim_start_matches(['-', '+']).trim() != "else" {
        return None;
    }
    let start = open + 2 + inside.find("else")?;
    Some(Explained {
        message: "`{% else if %}` is not a template statement".into(),
        help: "write `{% elif … %}`: Jinja spells else-if as one word".into(),
        at: start..at.end,
    })
}

#[cfg(test)]
#[path = "syntax_tests.rs"]
mod tests;
