//! Writing the imported tools as catalog YAML that reads back byte for byte: every string is
//! a double-quoted scalar with JSON-style escapes (and a `\u` escape with four hex digits for
//! anything YAML would not keep as written: control and non-printable characters, line and
//! paragraph separators, the byte-order mark), so trailing newlines, leading spaces, `: `, `#`,
//! quotes and tabs survive.

use std::fmt::Write as _;

use serde_json::Value;

use super::schema::{Object, Param};

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
    let plain = k.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !matches!(
            k.to_ascii_lowercase().as_str(),
            "null" | "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n"
        );
    if plain {
        k.to_string()
    } else {
        quoted(k)
    }
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

fn names(list: &[String]) -> String {
    format!("[{}]", list.iter().map(|n| quoted(n)).collect::<Vec<_>>().join(", "))
}

/// The object-level keys of a tool or an object parameter, at `indent` spaces.
pub fn object_keys(out: &mut String, o: &Object, indent: usize) {
    let pad = " ".repeat(indent);
    if let Some(b) = o.additional_properties {
        let _ = writeln!(out, "{pad}additional_properties: {b}");
    }
    if let Some(order) = &o.required_order {
        let _ = writeln!(out, "{pad}required_order: {}", names(order));
    }
}

/// The members of an object, each `name:` at `indent` spaces with its schema below.
pub fn properties(out: &mut String, props: &[(String, Param)], indent: usize) {
    let pad = " ".repeat(indent);
    for (name, p) in props {
        let _ = writeln!(out, "{pad}{}:", key(name));
        param(out, p, indent + 2);
    }
}

/// One schema's keys at `indent` spaces.
pub fn param(out: &mut String, p: &Param, indent: usize) {
    let pad = " ".repeat(indent);
    let line = |out: &mut String, k: &str, v: String| {
        let _ = writeln!(out, "{pad}{k}: {v}");
    };
    line(out, "type", p.ty.name().to_string());
    if let Some(d) = &p.description {
        line(out, "description", quoted(d));
    }
    if p.required {
        line(out, "required", "true".into());
    }
    if p.nullable {
        line(out, "nullable", "true".into());
    }
    if let Some(e) = &p.enum_values {
        line(out, "enum", flow(&Value::Array(e.clone())));
    }
    if let Some(d) = &p.default {
        line(out, "default", flow(d));
    }
    if let Some(f) = &p.format {
        line(out, "format", quoted(f));
    }
    if let Some(s) = &p.pattern {
        line(out, "pattern", quoted(s));
    }
    for (k, v) in [("min_length", p.min_length), ("max_length", p.max_length)] {
        if let Some(v) = v {
            line(out, k, v.to_string());
        }
    }
    for (k, v) in [("minimum", &p.minimum), ("maximum", &p.maximum)] {
        if let Some(v) = v {
            line(out, k, v.to_string());
        }
    }
    if let Some(items) = &p.items {
        let _ = writeln!(out, "{pad}items:");
        param(out, items, indent + 2);
    }
    for (k, v) in [("min_items", p.min_items), ("max_items", p.max_items)] {
        if let Some(v) = v {
            let _ = writeln!(out, "{pad}{k}: {v}");
        }
    }
    if let Some(o) = &p.object {
        object_keys(out, o, indent);
        if !o.properties.is_empty() {
            let _ = writeln!(out, "{pad}properties:");
            properties(out, &o.properties, indent + 2);
        }
    }
}
