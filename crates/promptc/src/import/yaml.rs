//! Writing the imported tools as catalog YAML that reads back byte for byte: every string is
//! a double-quoted scalar with JSON-style escapes (and a `\u` escape with four hex digits for
//! anything YAML would not keep as written: control and non-printable characters, line and
//! paragraph separators, the byte-order mark), so trailing newlines, leading spaces, `: `, `#`,
//! quotes and tabs survive.

use std::fmt::Write as _;

use serde_json::Value;

/// `s` as a YAML double-quoted scalar that reads back as exactly `s`.
pub fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            // YAML's printable set (1.2 §5.1) minus what a parser may fold or drop.
            c if (c as u32) < 0x20
                || (0x7f..=0x9f).contains(&(c as u32))
                || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}') =>
            {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A mapping key: plain when it is an identifier YAML reads as a string, quoted otherwise.
pub fn key(k: &str) -> String {
    if plain(k) {
        k.to_string()
    } else {
        quoted(k)
    }
}

/// Whether `s` is an identifier YAML reads back as this very string when written plain.
fn plain(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "null" | "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n"
        )
}

/// A JSON value as YAML flow text (JSON syntax, with [`quoted`] strings).
pub fn flow(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => quoted(s),
        Value::Array(a) => format!("[{}]", a.iter().map(flow).collect::<Vec<_>>().join(", ")),
        Value::Object(m) => {
            let items: Vec<String> = m.iter().map(|(k, v)| format!("{}: {}", quoted(k), flow(v))).collect();
            format!("{{{}}}", items.join(", "))
        }
    }
}

/// `key: value` at `indent` spaces with `v` in block style: mappings one key per line, lists of
/// scalars in flow style and other lists as `- ` items, strings by [`string`]. Key order and
/// every value read back exactly (`input_schema:` and `mcp:` of an imported tool).
pub fn block(out: &mut String, k: &str, v: &Value, indent: usize) {
    let pad = " ".repeat(indent);
    match v {
        Value::Object(m) if !m.is_empty() => {
            let _ = writeln!(out, "{pad}{}:", key(k));
            for (name, x) in m {
                block(out, name, x, indent + 2);
            }
        }
        Value::Array(a) if a.iter().any(|x| x.is_object() && x.as_object().is_some_and(|m| !m.is_empty())) => {
            let _ = writeln!(out, "{pad}{}:", key(k));
            for x in a {
                item(out, x, indent + 2);
            }
        }
        Value::String(s) => {
            let _ = writeln!(out, "{pad}{}: {}", key(k), string(s, indent + 2));
        }
        other => {
            let _ = writeln!(out, "{pad}{}: {}", key(k), flow(other));
        }
    }
}

/// One `- ` item of a block list at `indent` spaces: a mapping's first key on the dash's line.
fn item(out: &mut String, v: &Value, indent: usize) {
    let pad = " ".repeat(indent);
    match v {
        Value::Object(m) if !m.is_empty() => {
            let mut inner = String::new();
            for (name, x) in m {
                block(&mut inner, name, x, indent + 2);
            }
            // The first line starts with `indent + 2` spaces: the dash takes two of them.
            let _ = write!(out, "{pad}- {}", &inner[indent + 2..]);
        }
        Value::String(s) => {
            let _ = writeln!(out, "{pad}- {}", string(s, indent + 2));
        }
        other => {
            let _ = writeln!(out, "{pad}- {}", flow(other));
        }
    }
}

/// A string value: plain when it is an identifier (`object`, `date-time`), and, its lines at
/// `indent` spaces, a literal block
/// scalar (`|`, `|-` or `|+` for one, no or several final newlines) when that reads back as
/// exactly `s` — several lines, every character printable, no line ending in whitespace, the
/// first line not starting with a space (its indentation would be misread) — else [`quoted`].
pub fn string(s: &str, indent: usize) -> String {
    let body = s.trim_end_matches('\n');
    let literal = body.contains('\n')
        && !body.starts_with([' ', '\n'])
        && body.lines().all(|l| l == l.trim_end())
        && !s.chars().any(|c| {
            (c != '\n' && (c as u32) < 0x20)
                || (0x7f..=0x9f).contains(&(c as u32))
                || matches!(c, '\u{2028}' | '\u{2029}' | '\u{85}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}')
        });
    if !literal {
        return if plain(s) { s.to_string() } else { quoted(s) };
    }
    let chomp = match s.len() - body.len() {
        0 => "|-",
        1 => "|",
        _ => "|+",
    };
    let pad = " ".repeat(indent);
    let mut out = chomp.to_string();
    for line in s.strip_suffix('\n').unwrap_or(s).split('\n') {
        out.push('\n');
        if !line.is_empty() {
            out.push_str(&pad);
            out.push_str(line);
        }
    }
    out
}

#[cfg(test)]
#[path = "yaml_tests.rs"]
mod tests;
