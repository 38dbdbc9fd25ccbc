// Long because each mistake is recognised beside the others, so a parser error is explained once.
//! The YAML mistakes people make most, recognised in the text around a parser error: a quote
//! that never closes, a tab in the indentation, a value of the wrong shape (a string where a
//! list belongs), a misspelt name of a type, and the mapping a missing key belongs to. The
//! parser names its grammar and reports where it gave up; these name the mistake and point
//! at the place it was made.

use crate::diagnostic::{did_you_mean, Position};

/// What a fix-up found: the message, its help and where it points.
pub(super) struct Found {
    /// The message line.
    pub message: String,
    /// How to fix it.
    pub help: String,
    /// The offending token.
    pub at: Position,
}

/// The text's lines, without their `\r`.
fn lines(text: &str) -> Vec<&str> {
    text.split('\n').map(|l| l.trim_end_matches('\r')).collect()
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

/// The key a line starts with (`name` for `  - name: x`), if it starts with one.
fn leading_key(line: &str) -> Option<&str> {
    let t = line.trim_start().trim_start_matches("- ").trim_start();
    let (key, rest) = t.split_once(':')?;
    let plain = !key.is_empty() && key.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'));
    (plain && (rest.is_empty() || rest.starts_with([' ', '\t']))).then_some(key)
}

// --- quotes ----------------------------------------------------------------------------

/// A quote that opens a string and runs past the line it opens on into what was meant as
/// more YAML.
struct RunawayQuote {
    /// 1-based line and column of the opening quote.
    line: usize,
    column: usize,
    /// `"` or `'`.
    quote: char,
    /// Where a later quote closes it after all, if one does.
    closed_at: Option<(usize, usize)>,
}

/// A quote the scanner is inside of.
struct Open {
    line: usize,
    column: usize,
    quote: char,
    /// Indentation of the line it opened on.
    indent: usize,
    /// A line it ran over looks like a key of the mapping the quoted value belongs to.
    swallowed_key: bool,
}

/// What the rest of a line holds, for the quote scanner.
enum LineEnd {
    /// Nothing more to follow.
    Done,
    /// A quote opens at this 0-based char index and does not close on the line.
    Quote(usize, char),
    /// A block scalar (`|`, `>`) starts: the lines indented past this line are its text.
    Block,
}

/// The char index just past the quote closing one opened before `from` (a `"` not escaped
/// with `\`; a `'` not doubled), if it closes on this line.
fn closing(chars: &[char], from: usize, quote: char) -> Option<usize> {
    let mut i = from;
    while i < chars.len() {
        match chars[i] {
            '\\' if quote == '"' => i += 2,
            '\'' if quote == '\'' && chars.get(i + 1) == Some(&'\'') => i += 2,
            c if c == quote => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// Scan a line from char `from` for a quoted string that does not close on it, or a block
/// scalar. A quote starts a string only where a value can start: at the start of the content,
/// after `- `, `: `, `[`, `{` or `,`; elsewhere it is part of plain text (`it's`).
fn scan_line(chars: &[char], from: usize) -> LineEnd {
    scan_line_spans(chars, from, &mut Vec::new())
}

/// `scan_line`, collecting the strings quoted on the line: (opening quote, index past the
/// closing one, quote).
fn scan_line_spans(chars: &[char], from: usize, spans: &mut Vec<(usize, usize, char)>) -> LineEnd {
    let mut can_start = from == 0;
    let mut i = from;
    while i < chars.len() {
        let c = chars[i];
        let next_blank = chars.get(i + 1).is_none_or(|n| n.is_whitespace());
        match c {
            ' ' | '\t' => {}
            '#' if i == 0 || chars[i - 1].is_whitespace() => return LineEnd::Done,
            '"' | '\'' if can_start => match closing(chars, i + 1, c) {
                Some(end) => {
                    spans.push((i, end, c));
                    i = end;
                    can_start = false;
                    continue;
                }
                None => return LineEnd::Quote(i, c),
            },
            '|' | '>' if can_start => return LineEnd::Block,
            '-' | '?' | ':' if next_blank => can_start = true,
            '[' | '{' | ',' => can_start = true,
            _ => can_start = false,
        }
        i += 1;
    }
    LineEnd::Done
}

/// The first quote, opening on or before line `upto`, that runs away: it never closes, text
/// follows the quote that closes it (`"a" b`), or it runs over a line that looks like a key of
/// its own mapping. A string that spans lines on purpose does none of these.
fn runaway_quote(text: &str, upto: usize) -> Option<RunawayQuote> {
    let mut open: Option<Open> = None;
    // Indentation of the line a block scalar started on: deeper lines are its text.
    let mut block: Option<usize> = None;
    for (n, line) in lines(text).iter().enumerate() {
        let chars: Vec<char> = line.chars().collect();
        let mut from = 0;
        if let Some(b) = block {
            if !is_content(line) || indent_of(line) > b {
                continue;
            }
            block = None;
        }
        if let Some(o) = open.as_mut() {
            if leading_key(line).is_some() && indent_of(line) <= o.indent {
                o.swallowed_key = true;
            }
            let Some(end) = closing(&chars, 0, o.quote) else { continue };
            let rest: String = chars[end..].iter().collect();
            let rest = rest.trim_start();
            let trailing = !rest.is_empty() && !rest.starts_with(['#', ':', ',', ']', '}']);
            if trailing || o.swallowed_key {
                return Some(RunawayQuote {
                    line: o.line,
                    column: o.column,
                    quote: o.quote,
                    closed_at: Some((n + 1, end)),
                });
            }
            open = None;
            from = end;
        }
        if n + 1 > upto {
            return None;
        }
        match scan_line(&chars, from) {
            LineEnd::Done => {}
            LineEnd::Block => block = Some(indent_of(line)),
            LineEnd::Quote(i, quote) => {
                open = Some(Open { line: n + 1, column: i + 1, quote, indent: indent_of(line), swallowed_key: false })
            }
        }
    }
    open.map(|o| RunawayQuote { line: o.line, column: o.column, quote: o.quote, closed_at: None })
}

/// How to write a quote inside text quoted with it.
fn escape_help(quote: char) -> &'static str {
    if quote == '"' {
        "a `\"` inside the text is written `\\\"`"
    } else {
        "a `'` inside the text is written twice (`''`)"
    }
}

/// A quote that never closes (or closes only lines later, after swallowing what was meant as
/// more YAML), located at the opening quote: the parser reports where it finally gave up, at the
/// end of the file or at the next quote.
pub(super) fn unclosed_quote(text: &str, error_line: usize) -> Option<Found> {
    let q = runaway_quote(text, error_line)?;
    let help = match q.closed_at {
        Some((line, column)) => format!(
            "the string runs on to the next `{0}` (line {line}, column {column}) and takes the lines between with \
             it: add the closing `{0}` where the text ends, on line {1}; {2}",
            q.quote,
            q.line,
            escape_help(q.quote)
        ),
        None => {
            format!(
                "add the closing `{0}` where the text ends, on line {1}; {2}",
                q.quote,
                q.line,
                escape_help(q.quote)
            )
        }
    };
    Some(Found { message: "this quote is never closed".into(), help, at: Position::new(q.line, q.column, 1) })
}

/// A quoted string that ends early, at a quote meant as part of the text (`'it's'`): the
/// parser reports the text after it (at 1-based `column`); point at the quote that ended it.
pub(super) fn early_close(text: &str, line: usize, column: usize) -> Option<Found> {
    let l = lines(text).get(line.checked_sub(1)?).copied()?;
    let chars: Vec<char> = l.chars().collect();
    let mut spans = Vec::new();
    scan_line_spans(&chars, 0, &mut spans);
    let (open, end, quote) = spans.into_iter().take_while(|(_, end, _)| *end < column).last()?;
    let quoted: String = chars[open..end].iter().collect();
    Some(Found {
        message: "this quote ends the string early".into(),
        help: format!(
            "the string is only {quoted}, and the text after it is left over: {}, or quote the text with `{}`",
            escape_help(quote),
            if quote == '"' { '\'' } else { '"' }
        ),
        at: Position::new(line, end, 1),
    })
}

// --- tabs ------------------------------------------------------------------------------

/// Char index of the first tab in a content line's indentation.
fn tab_in(line: &str) -> Option<usize> {
    if !is_content(line) {
        return None;
    }
    line.chars().take_while(|c| matches!(c, ' ' | '\t' | '-')).position(|c| c == '\t')
}

/// The tab a "found a tab" parser error is about, located at the tab: the first one in the
/// indentation of line `line` or a line after it (the parser may report the line before, at
/// the scalar the tab ended), else the nearest above.
pub(super) fn tab_indentation(text: &str, line: usize) -> Option<Found> {
    let lines = lines(text);
    let start = line.checked_sub(1)?.min(lines.len());
    let (n, col) = (start..lines.len())
        .find_map(|n| tab_in(lines[n]).map(|c| (n, c)))
        .or_else(|| (0..start).rev().find_map(|n| tab_in(lines[n]).map(|c| (n, c))))?;
    let above = (0..n).rev().map(|i| (i, lines[i])).find(|(_, l)| is_content(l));
    let spaces = match above {
        Some((i, l)) if l.trim_end().ends_with(':') => {
            let key = leading_key(l).unwrap_or("the key above");
            format!("indent it {} spaces, under `{key}` (line {})", indent_of(l) + 2, i + 1)
        }
        Some((i, l)) => format!("indent it {} spaces, like line {}", indent_of(l), i + 1),
        None => "start it at the first column".to_string(),
    };
    Some(Found {
        message: "a tab in the indentation: YAML forbids tabs for indenting".into(),
        help: format!("use spaces instead: {spaces}"),
        at: Position::new(n + 1, col + 1, 1),
    })
}

// --- the shape of a value -------------------------------------------------------------

/// The shape the parser expected, from its "expected sequence start" message.
fn expected_shape(m: &str) -> Option<&'static str> {
    Some(match m.strip_prefix("expected ")? {
        "sequence start" => "a list (`- item` lines or `[a, b]`)",
        "mapping start" | "empty mapping start" => "a mapping (`key: value` lines or `{a: 1}`)",
        "string scalar" => "a string",
        "scalar" => "a single value",
        _ => return None,
    })
}

/// What a value written at (line, column) is, in words, and how many chars it spans.
fn what_is_at(lines: &[&str], line: usize, column: usize) -> (String, usize) {
    let l = lines.get(line - 1).copied().unwrap_or("");
    let rest: String = l.chars().skip(column - 1).collect();
    let value = rest.split(" #").next().unwrap_or("").trim_end();
    let before: String = l.chars().take(column - 1).collect();
    let own_line = before.trim_start().trim_start_matches('-').trim().is_empty();
    let len = value.chars().count().max(1);
    match value.chars().next() {
        _ if own_line && leading_key(&rest).is_some() => ("a mapping (`key: value` lines)".into(), len),
        None | Some(':') => ("nothing".into(), 1),
        Some('[') => ("a list".into(), len),
        Some('{') => ("a mapping".into(), len),
        Some('-') if value.len() == 1 || value[1..].starts_with(' ') => ("a list".into(), len),
        Some('"' | '\'' | '|' | '>') => ("a string".into(), len),
        _ if matches!(value, "~" | "null" | "Null" | "NULL") => ("nothing".into(), len),
        _ if matches!(value, "true" | "false" | "True" | "False" | "TRUE" | "FALSE") => {
            (format!("`{value}`, true or false"), len)
        }
        _ if value.parse::<f64>().is_ok() => (format!("the number `{value}`"), len),
        _ => (format!("the string `{value}`"), len),
    }
}

/// The key whose value sits at (line, column): the key before it on its line, or the key
/// above it whose value starts on a line of its own.
fn key_of_value(lines: &[&str], line: usize, column: usize) -> Option<String> {
    let l = lines.get(line.checked_sub(1)?)?;
    let before: String = l.chars().take(column - 1).collect();
    // An empty value is reported at the key's `:`.
    if l.chars().nth(column - 1) == Some(':') {
        return leading_key(l).map(str::to_string);
    }
    if let Some(key) = before.trim_end().strip_suffix(':') {
        let key = key.rsplit(['{', ',', ' ']).next().unwrap_or(key).trim_start_matches("- ");
        return (!key.is_empty()).then(|| key.trim_matches(['"', '\'']).to_string());
    }
    let own = indent_of(l);
    let above = (0..line - 1).rev().map(|i| lines[i]).find(|a| is_content(a) && indent_of(a) < own)?;
    leading_key(above).map(str::to_string)
}

/// A value of the wrong shape (a string where a list belongs, a mapping where a string does),
/// said in plain words and located at the value.
pub(super) fn wrong_shape(m: &str, text: &str, line: usize, column: usize) -> Option<Found> {
    let expected = expected_shape(m)?;
    let lines = lines(text);
    let (found, len) = what_is_at(&lines, line, column.max(1));
    let key = key_of_value(&lines, line, column.max(1));
    let for_key = key.as_deref().map(|k| format!(" for `{k}`")).unwrap_or_default();
    let k = key.as_deref().unwrap_or("key");
    let help = match (expected.split(' ').nth(1).unwrap_or(""), found.as_str()) {
        ("list", "nothing") => format!("list the items after `{k}:` (`{k}: [a, b]`), or write `{k}: []` for none"),
        ("list", f) if f.starts_with("a mapping") => {
            format!("write the items as `- item` lines under `{k}:` (or `{k}: [a, b]`), not as `key: value` lines")
        }
        ("list", _) => {
            let one = lines.get(line - 1).unwrap_or(&"").chars().skip(column.max(1) - 1).collect::<String>();
            let one = one.split(" #").next().unwrap_or("").trim().to_string();
            format!("for a list of one item write `{k}: [{one}]`; for more, `{k}: [a, b]` or one `- item` line each")
        }
        ("mapping", _) => format!("write the entries as `name: value` lines indented under `{k}:`"),
        ("string", _) => format!(
            "write the text after `{k}:` on one line (quote it if it starts with `[`, `{{` or `-`), or as a block: \
             `{k}: |` with the text indented below"
        ),
        _ => format!("write one value after `{k}:`"),
    };
    let at = if found == "nothing" {
        let l = lines.get(line - 1).copied().unwrap_or("");
        Position::new(line, indent_of(l) + 1, k.chars().count())
    } else {
        Position::new(line, column.max(1), len)
    };
    Some(Found { message: format!("expected {expected}{for_key}, found {found}"), help, at })
}

// --- names from a fixed list ------------------------------------------------------------

/// Names people write for the JSON types, and the type meant.
const TYPE_ALIASES: &[(&str, &str)] = &[
    ("str", "string"),
    ("text", "string"),
    ("int", "integer"),
    ("float", "number"),
    ("double", "number"),
    ("bool", "boolean"),
    ("list", "array"),
    ("dict", "object"),
    ("map", "object"),
    ("mapping", "object"),
];

/// serde's "unknown variant `str`, expected one of string, integer" in the user's terms: what
/// was meant (`string`) and the values the key takes. `key` is the key the value belongs to.
pub(super) fn unknown_variant(m: &str, key: Option<&str>) -> Option<(String, String)> {
    let rest = m.strip_prefix("unknown variant `")?;
    let (word, rest) = rest.split_once('`')?;
    let list = rest.split_once("expected ")?.1.trim_start_matches("one of ").trim_start_matches("either ");
    let valid: Vec<&str> =
        list.split([',', ' ']).map(|v| v.trim().trim_matches('`')).filter(|v| !v.is_empty() && *v != "or").collect();
    let lower = word.to_ascii_lowercase();
    let meant = TYPE_ALIASES
        .iter()
        .find(|(a, t)| *a == lower && valid.contains(t))
        .map(|(_, t)| *t)
        .or_else(|| did_you_mean(&lower, valid.iter().copied()));
    let is_type = key == Some("type") && valid.contains(&"string");
    let message = match key {
        _ if is_type => format!("unknown parameter type `{word}`"),
        Some(k) => format!("unknown value `{word}` for `{k}`"),
        None => format!("unknown value `{word}`"),
    };
    let takes = if is_type { "the types are".to_string() } else { format!("`{}` takes", key.unwrap_or("it")) };
    let help = match meant {
        Some(s) => format!("did you mean `{s}`? {takes} {}", valid.join(", ")),
        None => format!("{takes} {}", valid.join(", ")),
    };
    Some((message, help))
}

// --- the mapping a missing key belongs to -------------------------------------------------

/// Whether `line` starts a list item whose first key sits at char `key_indent` (`  - name:`).
fn item_start(line: &str, key_indent: usize) -> bool {
    let t = line.trim_start();
    t.starts_with("- ") && line.len() - t.trim_start_matches('-').trim_start().len() == key_indent
}

/// Where a mapping starts that misses a key, given its last key at (line, column) (where the
/// parser reports it): the key owning the mapping, the `- name:` line of a list item, the
/// first key of the document, or the `{` of a flow mapping. With it, the keys of the mappings
/// around it, innermost first (`-` for a list item), after `=` and the text of the item's first
/// line when it is one.
pub(super) fn mapping_start(text: &str, line: usize, column: usize) -> Option<(Position, Vec<String>)> {
    let lines = lines(text);
    let l = *lines.get(line.checked_sub(1)?)?;
    let chars: Vec<char> = l.chars().collect();
    let key_indent = column.checked_sub(1)?.min(chars.len());
    let before: String = chars.iter().take(key_indent).collect();
    if chars.get(key_indent) == Some(&'{') || before.contains('{') {
        return Some(flow_start(&lines, line, &chars, key_indent));
    }
    let mut top = line;
    let mut found: Option<(usize, bool)> = None;
    if item_start(l, key_indent) {
        found = Some((line, true));
    } else {
        for n in (1..line).rev() {
            let a = lines[n - 1];
            if !is_content(a) || indent_of(a) > key_indent {
                continue;
            }
            if indent_of(a) == key_indent {
                top = n;
                continue;
            }
            found = Some((n, item_start(a, key_indent)));
            break;
        }
    }
    let mut keys = owners(&lines, line, key_indent);
    let at = match found {
        // A list item: its first key.
        Some((n, true)) => {
            keys.insert(0, format!("={}", lines[n - 1].trim_start().trim_start_matches("- ")));
            key_position(lines[n - 1], n, key_indent)
        }
        // The key that owns the mapping.
        Some((n, false)) => key_position(lines[n - 1], n, indent_of(lines[n - 1])),
        // The document itself: its first key.
        None => key_position(lines[top - 1], top, key_indent),
    };
    Some((at, keys))
}

/// The key starting at char `column` (0-based) of line `n` (1-based), underlined.
fn key_position(line: &str, n: usize, column: usize) -> Position {
    let len = line.chars().skip(column).take_while(|c| *c != ':').count().max(1);
    Position::new(n, column + 1, len)
}

/// `mapping_start` for a flow mapping (`a: {b: 1}`, `- {name: x}`): its `{`, on the line of
/// the key the parser reports (flow mappings spanning lines are rare in project files).
fn flow_start(lines: &[&str], line: usize, chars: &[char], key_indent: usize) -> (Position, Vec<String>) {
    let open = if chars.get(key_indent) == Some(&'{') {
        key_indent
    } else {
        chars[..key_indent].iter().rposition(|c| *c == '{').unwrap_or(0)
    };
    let head: String = chars[..open].iter().collect();
    let inside: String = chars[open + 1..].iter().collect();
    let mut keys = vec![format!("={}", inside.trim_start())];
    match head.trim_end().strip_suffix(':') {
        Some(k) => keys.push(k.rsplit(['{', ',', ' ']).next().unwrap_or(k).to_string()),
        None if head.trim_start().starts_with('-') => keys.push("-".into()),
        None => {}
    }
    keys.extend(owners(lines, line, indent_of(lines[line - 1])));
    (Position::new(line, open + 1, 1), keys)
}

/// The keys owning a mapping whose keys sit at char `key_indent` of line `line`: the keys of
/// the lines above it with less indentation, innermost first; a list item adds `-`.
fn owners(lines: &[&str], line: usize, key_indent: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut want = key_indent;
    let here = lines[line - 1];
    if item_start(here, key_indent) {
        out.push("-".to_string());
        want = indent_of(here);
    }
    for n in (1..line).rev() {
        let a = lines[n - 1];
        if !is_content(a) || indent_of(a) >= want {
            continue;
        }
        want = indent_of(a);
        let item = a.trim_start().starts_with("- ");
        // `- name: x` opens an item whose key is no owner; `- items:` has its value below.
        if !item || a.trim_end().ends_with(':') {
            if let Some(k) = leading_key(a) {
                out.push(k.to_string());
            }
        }
        if item {
            out.push("-".to_string());
        }
        if want == 0 {
            break;
        }
    }
    out
}

/// What the mapping missing a key is ("tool `read_file`"), and what `field` is for there,
/// from the keys around it (`mapping_start`).
pub(super) fn missing_key_purpose(keys: &[String], field: &str) -> (Option<String>, Option<&'static str>) {
    let entry = keys.first().and_then(|k| k.strip_prefix('=')).map(str::to_string);
    let around: Vec<&str> = keys.iter().map(String::as_str).filter(|k| !k.starts_with('=')).collect();
    let name_of = |e: &Option<String>| {
        let e = e.as_deref()?.strip_prefix("name:")?;
        let n = e.split([',', '}', '#']).next().unwrap_or(e).trim().trim_matches(['"', '\'']);
        (!n.is_empty()).then(|| n.to_string())
    };
    let kind = match around.as_slice() {
        [] => "the project",
        ["-"] => "tool",
        [_, "parameters" | "properties", ..] => "parameter",
        ["-", "examples", ..] => "example",
        ["-", "description_parts", ..] => "description part",
        ["-", "contributes", ..] => "contribution",
        [_, "profiles"] => "profile",
        [_, "switches"] => "switch",
        [_, "variables"] => "variable",
        [_, "sections"] => "section",
        [_, "cases"] => "case",
        [_, "slots"] => "slot",
        [_, "subagents"] => "sub-agent",
        [_, "commands"] => "command",
        _ => "",
    };
    let purpose = match (kind, field) {
        ("the project", "promptc") => Some("the project format version; write `promptc: 1`"),
        ("the project", "name") => Some("the project's name"),
        ("the project", "contract_version") => Some("a number to bump whenever every frozen prompt should change"),
        ("the project", "sections") => Some("the sections prompts are built from, by id"),
        ("the project", "tools") => Some("the tool catalog files to read"),
        ("the project", "profiles") => Some("the prompt contracts: each names its sections and tools"),
        ("tool", "name") => Some("the name the model calls the tool by"),
        ("tool", "toolset") => Some("the toolset it belongs to, which profiles list under `toolsets:`"),
        ("parameter", "type") => Some("its JSON type: string, integer, number, boolean, array or object"),
        ("example", "arguments") => Some("the call's arguments, a mapping of parameter names to values"),
        ("description part", "text") => Some("the text this part adds to the tool's description"),
        ("profile", "sections") => Some("the ids of the sections its prompt is made of, in order"),
        ("sub-agent", "tools") => Some("the tools the sub-agent may call"),
        ("", _) => None,
        (_, "description") => Some("one line saying what it is for"),
        _ => None,
    };
    let what = match kind {
        // The top level names no entry: the message says which key, the help where.
        "" | "the project" => None,
        "tool" => Some(name_of(&entry).map_or_else(|| "this tool".to_string(), |n| format!("tool `{n}`"))),
        k => Some(match around.first() {
            Some(n) if *n != "-" => format!("{k} `{n}`"),
            _ => format!("this {k}"),
        }),
    };
    (what, purpose)
}

#[cfg(test)]
#[path = "yaml_mistakes_tests.rs"]
mod tests;
