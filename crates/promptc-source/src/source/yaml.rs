//! YAML parsing with bounded resources and located, rustc-style errors.

use serde::de::DeserializeOwned;

use crate::diagnostic::{Diagnostic, Label, Position};
use crate::error::Result;
use crate::source::yaml_mistakes::{
    early_close, mapping_start, missing_key_purpose, tab_indentation, unclosed_quote, unknown_variant, wrong_shape,
    Found,
};
use crate::source::SourceFile;

/// Parser options that bound hostile input: alias bombs, deep nesting, huge documents.
fn options() -> serde_saphyr::Options {
    serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            max_depth: MAX_DEPTH,
            max_documents: 1,
            max_aliases: 256,
            max_anchors: 256,
            max_nodes: 250_000,
            max_events: 1_000_000,
            max_total_scalar_bytes: 8 * 1024 * 1024,
        },
        alias_limits: serde_saphyr::alias_limits! {
            max_total_replayed_events: 50_000,
            max_replay_stack_depth: 16,
        },
    }
}

/// A label at a YAML node's location in `text` (shown as `display`); the whole file when the
/// location is unknown (line 0, e.g. after serde buffering).
pub fn label(display: &str, text: &str, loc: &serde_saphyr::Location) -> Label {
    if loc.line() == 0 {
        return Label::file(display);
    }
    let pos = Position::new(loc.line() as usize, loc.column().max(1) as usize, (loc.span().len() as usize).max(1));
    Label::at(display, text, pos)
}

/// Parse `file` as YAML into `T`, mapping any failure to a located diagnostic.
pub fn parse<T: DeserializeOwned>(file: &SourceFile) -> Result<T> {
    parse_str(&file.text, &file.display)
}

/// Parse `text` (shown as `display`) as YAML into `T`.
pub fn parse_str<T: DeserializeOwned>(text: &str, display: &str) -> Result<T> {
    serde_saphyr::from_str_with_options::<T>(text, options())
        .map_err(|e| to_diagnostic(&e, text, display).into_error(crate::error::ErrorKind::Project))
}

fn to_diagnostic(err: &serde_saphyr::Error, text: &str, display: &str) -> Diagnostic {
    let plain = err.render_with_options(serde_saphyr::render_options! {
        formatter: &serde_saphyr::UserMessageFormatter,
        snippets: serde_saphyr::SnippetMode::Off,
    });
    let raw_message = strip_location_suffix(plain.lines().next().unwrap_or("invalid YAML")).to_string();
    let limit = over_a_limit(err);
    if let Some(found) = err
        .location()
        .filter(|l| l.line() > 0 && !limit)
        .and_then(|l| mistake(&raw_message, text, l.line() as usize, l.column().max(1) as usize))
    {
        return Diagnostic::error(found.message).with_label(Label::at(display, text, found.at)).with_help(found.help);
    }
    let (message, help) = explain(&raw_message, text, err.location(), limit);
    let mut d = Diagnostic::error(message);
    // The line that should have been indented under an empty key, or one indented under a
    // key that already has a value: point at its start, not where the parser gave up.
    let misplaced = d
        .message
        .strip_prefix("line ")
        .and_then(|rest| rest.split_once(" is not indented under `")?.0.parse::<usize>().ok())
        .or_else(|| {
            d.message.starts_with("this line is indented under").then(|| err.location())?.map(|l| l.line() as usize)
        });
    if let Some(line) = misplaced {
        let l = text.split('\n').nth(line - 1).unwrap_or("");
        let pos = Position::new(line, indent_of(l) + 1, token_len(text, line, indent_of(l) + 1));
        d = d.with_label(Label::at(display, text, pos));
        if let Some(h) = help {
            d = d.with_help(h);
        }
        return d;
    }
    match err.location() {
        Some(loc) if loc.line() > 0 => {
            let pos = Position::new(
                loc.line() as usize,
                loc.column().max(1) as usize,
                token_len(text, loc.line() as usize, loc.column() as usize),
            );
            d = d.with_label(Label::at(display, text, pos));
        }
        _ => d = d.with_label(Label::file(display)),
    }
    if let Some(h) = help {
        d = d.with_help(h);
    }
    d
}

/// Whether the parser stopped at one of [`options`]' limits, read from the error's variant (with
/// its alias and snippet wrappers taken off), never from words in its message: serde lists the
/// keys a mapping allows in the message of an unknown key, and a profile allows `budget`.
fn over_a_limit(err: &serde_saphyr::Error) -> bool {
    use serde_saphyr::Error as E;
    let mut err = err;
    while let E::AliasError { error, .. } | E::WithSnippet { error, .. } = err {
        err = error;
    }
    matches!(
        err,
        E::Budget { .. }
            | E::AliasReplayCounterOverflow { .. }
            | E::AliasReplayLimitExceeded { .. }
            | E::AliasExpansionLimitExceeded { .. }
            | E::AliasReplayStackDepthExceeded { .. }
    )
}

/// The mistakes people make most (see `yaml_mistakes`), recognised from the parser's message
/// `raw` at 1-based (line, column) and the text around it.
fn mistake(raw: &str, text: &str, line: usize, column: usize) -> Option<Found> {
    let m = raw.to_ascii_lowercase();
    if m.contains("alias") || m.contains("depth {") || m.contains("recursion limit") {
        return None;
    }
    if let Some(found) = unclosed_quote(text, line) {
        return Some(found);
    }
    if m.starts_with("invalid trailing content after") {
        return early_close(text, line, column);
    }
    // granit's "found a tab", "tabs disallowed", "tab cannot be used as indentation", "… cannot
    // start with a tab" (not "unknown field `table`").
    if !m.contains('`') && (m.contains(" tab") || m.starts_with("tab")) {
        return tab_indentation(text, line);
    }
    // A key left without a value by the indentation of the next line is explained in those
    // terms (`indentation`), not as a value of the wrong shape.
    if indentation(&m, text, line).is_some() {
        return None;
    }
    if let Some(found) = wrong_shape(&m, text, line, column) {
        return Some(found);
    }
    if m.starts_with("unknown variant") {
        let key = key_and_value(text, line, column).map(|(k, _)| k);
        let (message, help) = unknown_variant(raw, key.as_deref())?;
        return Some(Found { message, help, at: Position::new(line, column, token_len(text, line, column)) });
    }
    let field = m.strip_prefix("missing field ")?.trim_matches('`');
    missing_key(field, text, line, column)
}

/// A required key that is missing: located at the key written at the wrong indentation if
/// there is one, else at the start of the mapping it is missing from, naming what the key is for.
fn missing_key(field: &str, text: &str, line: usize, column: usize) -> Option<Found> {
    if let Some((n, help)) = misplaced_key(text, line, field) {
        let l = text.split('\n').nth(n - 1).unwrap_or("");
        let at = Position::new(n, indent_of(l) + 1, token_len(text, n, indent_of(l) + 1));
        return Some(Found { message: format!("missing required key `{field}`"), help, at });
    }
    let (at, keys) = mapping_start(text, line, column)?;
    let (what, purpose) = missing_key_purpose(&keys, field);
    let message = match &what {
        Some(w) => format!("missing required key `{field}` in {w}"),
        None => format!("missing required key `{field}`"),
    };
    let target = what.unwrap_or_else(|| {
        if keys.is_empty() { "the top level of the file" } else { "the mapping that starts here" }.to_string()
    });
    let help = match purpose {
        Some(p) => format!("add `{field}:` to {target} ({p})"),
        None => format!("add `{field}:` to {target}"),
    };
    Some(Found { message, help, at })
}

/// serde-saphyr appends " at line L, column C" (and for aliases more locations) to plain
/// messages; the label carries the location, so cut at the first one.
fn strip_location_suffix(msg: &str) -> &str {
    match msg.find(" at line ") {
        Some(i) => msg[..i].trim_end_matches(','),
        None => msg,
    }
}

/// Turn the parser's message into one that names the problem in the user's terms, plus help.
/// `limit` says the parser stopped at one of [`options`]' limits ([`over_a_limit`]).
fn explain(message: &str, text: &str, loc: Option<serde_saphyr::Location>, limit: bool) -> (String, Option<String>) {
    let m = message.to_ascii_lowercase();
    if m.contains("replayed_events") || m.contains("alias") && m.contains("limit") {
        return (
            "YAML aliases expand to too much data".into(),
            Some(
                "a project file needs few anchors and aliases; this looks like an alias bomb (nested anchors \
                referencing each other)"
                    .into(),
            ),
        );
    }
    if m.contains("depth {") || m.contains("recursion limit") {
        return (
            format!("YAML is nested too deeply (more than {MAX_DEPTH} levels)"),
            Some("project files are shallow; flatten the structure".into()),
        );
    }
    if limit || m.contains("too large or too complex") {
        return (
            "YAML document too large or too complex for a project file".into(),
            Some("split the file or simplify it; project files stay far below these limits".into()),
        );
    }
    if let Some(expected) = scalar_expectation(&m) {
        if let Some((key, value)) = loc.and_then(|l| key_and_value(text, l.line() as usize, l.column() as usize)) {
            return (
                format!("invalid value `{value}` for `{key}`: expected {expected}"),
                Some(format!("write {expected}")),
            );
        }
        return (format!("{message}: expected {expected}"), Some(format!("write {expected}")));
    }
    if let Some(field) = m.strip_prefix("missing field ") {
        let field = field.trim_matches('`');
        return (format!("missing required key `{field}`"), Some(format!("add `{field}:` to the mapping")));
    }
    if let Some(explained) = loc.and_then(|l| indentation(&m, text, l.line() as usize)) {
        return explained;
    }
    (message.to_string(), help_for(message))
}

/// `1 space`, `4 spaces`.
fn spaces(n: usize) -> String {
    if n == 1 {
        "1 space".into()
    } else {
        format!("{n} spaces")
    }
}

/// Spaces before a line's content.
fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// Whether a line holds YAML content (not blank, not only a comment).
fn is_content(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty() && !t.starts_with('#')
}

/// The 1-based line number and text of the last content line before line `line`.
fn content_before(text: &str, line: usize) -> Option<(usize, &str)> {
    let lines: Vec<&str> = text.split('\n').collect();
    (1..line.min(lines.len() + 1)).rev().map(|n| (n, lines[n - 1])).find(|(_, l)| is_content(l))
}

/// The indentations of the mappings around line `line`: the previous content line's, then
/// each smaller one going up (the parents).
fn enclosing_indents(text: &str, line: usize) -> Vec<usize> {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut out: Vec<usize> = Vec::new();
    for n in (1..line.min(lines.len() + 1)).rev() {
        let l = lines[n - 1];
        if !is_content(l) {
            continue;
        }
        let i = indent_of(l);
        if out.last().is_none_or(|last| i < *last) {
            out.push(i);
        }
        if i == 0 {
            break;
        }
    }
    out
}

/// A parser error caused by indentation, explained in those terms: which line is off, how far,
/// and what it would line up with (the messages of libyaml-style parsers name the grammar, not
/// the mistake).
fn indentation(m: &str, text: &str, line: usize) -> Option<(String, Option<String>)> {
    let lines: Vec<&str> = text.split('\n').collect();
    let here = *lines.get(line.checked_sub(1)?)?;
    if m.contains("did not find expected key")
        || m.contains("expected <block end>")
        || m.contains("did not find expected")
    {
        let cur = indent_of(here);
        let around = enclosing_indents(text, line);
        let list: Vec<String> = around.iter().map(|i| i.to_string()).collect();
        return Some((
            format!("line {line} is not indented like the mapping or list it belongs to"),
            Some(format!(
                "it starts after {}; the lines above start after {} spaces: keys of one mapping (and items of one \
                 list) line up in one column, so indent it to match the one it belongs to",
                spaces(cur),
                list.join(" or ")
            )),
        ));
    }
    if m.contains("mapping values are not allowed") {
        let (n, prev) = content_before(text, line)?;
        let (key, value) = prev.split_once(':')?;
        if indent_of(here) > indent_of(prev) && !value.trim().is_empty() {
            let key = key.trim().trim_start_matches("- ");
            return Some((
                format!("this line is indented under `{key}` (line {n}), which already has a value"),
                Some(format!(
                    "it starts after {} and `{key}` after {}: line it up with `{key}` to make it a key of the same \
                     mapping (or quote a value that spans lines)",
                    spaces(indent_of(here)),
                    spaces(prev.len() - prev.trim_start().trim_start_matches("- ").len())
                )),
            ));
        }
    }
    if m.contains("expected mapping") || m.contains("expected a mapping") || m.contains("invalid type: unit") {
        let key = here.trim().strip_suffix(':')?.trim_start_matches("- ");
        let (n, next) = lines.iter().enumerate().skip(line).find(|(_, l)| is_content(l))?;
        if indent_of(next) <= indent_of(here) {
            return Some((
                format!("line {} is not indented under `{key}:` (line {line}), so `{key}` has no value", n + 1),
                Some(format!(
                    "indent the keys that belong to `{key}` further than `{key}` itself (by two spaces, say)"
                )),
            ));
        }
    }
    None
}

/// Help for a required key that is missing from the mapping at line `line` but written
/// further down at another indentation (so it belongs to another mapping).
fn misplaced_key(text: &str, line: usize, field: &str) -> Option<(usize, String)> {
    let lines: Vec<&str> = text.split('\n').collect();
    let start = line.checked_sub(1)?;
    let want = indent_of(lines.get(start)?);
    for (i, l) in lines.iter().enumerate().skip(start + 1) {
        if !is_content(l) {
            continue;
        }
        let ind = indent_of(l);
        let t = l.trim_start().trim_start_matches("- ");
        // Only a key dedented out of the mapping: one indented further may belong to a
        // mapping nested in it (a parameter's `description:`).
        if t.starts_with(&format!("{field}:")) && ind < want {
            let help = format!(
                "`{field}:` on line {} is indented {}, so it belongs to another mapping: indent it {}, like the keys \
                 of this one",
                i + 1,
                spaces(ind),
                spaces(want)
            );
            return Some((i + 1, help));
        }
        if ind < want {
            break;
        }
    }
    None
}

/// What a failed scalar conversion wanted, from serde's "invalid u64"-style messages.
fn scalar_expectation(m: &str) -> Option<&'static str> {
    let kind = m.strip_prefix("invalid ")?.split_whitespace().next()?;
    Some(match kind {
        "u8" | "u16" | "u32" | "u64" | "u128" | "usize" => "a whole number of 0 or more",
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" => "a whole number",
        "f32" | "f64" | "floating" | "float" | "number" => "a number, such as 1 or 0.5",
        "integer" | "int" => "a whole number",
        "bool" | "boolean" => "true or false",
        _ => return None,
    })
}

/// The mapping key and the scalar at a 1-based (line, column), e.g. `contract_version`, `abc`.
fn key_and_value(text: &str, line: usize, column: usize) -> Option<(String, String)> {
    let l = text.split('\n').nth(line.checked_sub(1)?)?;
    let (key, _) = l.split_once(':')?;
    let key = key.trim().trim_start_matches("- ").trim_matches(['"', '\'']).to_string();
    let value: String = l.chars().skip(column.saturating_sub(1)).collect();
    let value = value.split(" #").next().unwrap_or("").trim().to_string();
    (!key.is_empty() && !value.is_empty()).then_some((key, value))
}

/// Deepest nesting a project file may have.
const MAX_DEPTH: usize = 48;

/// Length of the token starting at (line, column), so the underline covers a whole key.
fn token_len(text: &str, line: usize, column: usize) -> usize {
    let Some(l) = text.split('\n').nth(line.saturating_sub(1)) else { return 1 };
    let rest: String = l.chars().skip(column.saturating_sub(1)).collect();
    let n = rest
        .chars()
        .enumerate()
        .take_while(|(i, c)| c.is_alphanumeric() || matches!(c, '_' | '-' | '.') || (*i == 0 && matches!(c, '*' | '&')))
        .count();
    n.max(1)
}

fn help_for(message: &str) -> Option<String> {
    // Messages already rewritten by `explain` never get here.
    let m = message.to_ascii_lowercase();
    if m.contains("unknown field") {
        let suggestion = unknown_field_suggestion(message);
        Some(match suggestion {
            Some(s) => format!("did you mean `{s}`? remove the key or fix its spelling; see docs/project-format.md"),
            None => {
                "remove the key or fix its spelling; see docs/project-format.md for the keys each place accepts".into()
            }
        })
    } else if m.contains("missing field") {
        Some("add the missing key".into())
    } else if m.contains("invalid type") {
        Some("change the value to the expected type".into())
    } else if m.contains("alias") {
        Some("the document is too large or too deeply nested for a project file; simplify it".into())
    } else if m.contains("duplicate") {
        Some("each key may appear once in a mapping".into())
    } else {
        None
    }
}

/// From serde's "unknown field `x`, expected one of `a`, `b`" pick the closest expected key.
fn unknown_field_suggestion(message: &str) -> Option<String> {
    let field = message.split('`').nth(1)?;
    let expected = message.split("expected").nth(1)?;
    let candidates: Vec<&str> = expected
        .trim_start_matches(" one of")
        .split([',', ' '])
        .filter(|c| *c != "or")
        .map(|c| c.trim().trim_matches('`'))
        .filter(|c| !c.is_empty())
        .collect();
    crate::diagnostic::did_you_mean(field, candidates).map(str::to_string)
}

#[cfg(test)]
#[path = "yaml_tests.rs"]
mod tests;
