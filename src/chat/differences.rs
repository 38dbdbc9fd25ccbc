//! What minijinja cannot do as Jinja2 does, found in a chat template's source and said as a
//! located warning, so a text that may differ from the server's never differs silently.
//!
//! - `|safe` makes a Jinja2 `Markup` string, and `Markup + text` HTML-escapes the text
//!   (`'` → `&#39;`, `"` → `&#34;`); minijinja joins the two as they are.
//! - `map`, `select`, `reject`, `selectattr`, `rejectattr` and `unique` give Python generators,
//!   which `tojson` (`json.dumps`) refuses; minijinja gives lists, which it writes.

use crate::diagnostic::{Diagnostic, Label, Position};

/// The warnings for `text` (the template `display`).
pub fn find(display: &str, text: &str) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let at = |start: usize, end: usize| Label::at(display, text, Position::from_byte_range(text, start, end));
    for (start, end) in safe_then_add(text) {
        out.push(
            Diagnostic::warning("`|safe` joined with `+`: Jinja2 HTML-escapes the other side, promptc does not")
                .with_label(at(start, end))
                .with_help("the server's text has `&#39;` and `&#34;` where promptc's has `'` and `\"`: drop `|safe` (it changes nothing without autoescape) to make both the same"),
        );
    }
    for (start, end) in generator_to_json(text) {
        out.push(
            Diagnostic::warning(
                "a filtered sequence given to `tojson`: in Jinja2 it is a generator, which `json.dumps` refuses",
            )
            .with_label(at(start, end))
            .with_help("the server fails on this template where promptc renders it: add `| list` before `| tojson`"),
        );
    }
    out
}

/// Each `|safe` directly followed or preceded by `+` (outside of strings, roughly: a template
/// that writes `|safe +` inside a string literal gets a warning it does not need).
fn safe_then_add(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = text[from..].find("safe").map(|i| i + from) {
        from = i + 4;
        let before = text[..i].trim_end_matches([' ', '\t']);
        let after = text[i + 4..].trim_start_matches([' ', '\t']);
        let word_end = !after.starts_with(|c: char| c.is_alphanumeric() || c == '_');
        let call_free = after.strip_prefix("()").unwrap_or(after).trim_start_matches([' ', '\t']);
        if before.ends_with('|') && word_end && call_free.starts_with('+') {
            out.push((before.len() - 1, i + 4));
        }
    }
    out
}

/// Each `| map(…) | tojson` and the like, on one line.
fn generator_to_json(text: &str) -> Vec<(usize, usize)> {
    const GENERATORS: [&str; 6] = ["map", "select", "reject", "selectattr", "rejectattr", "unique"];
    let mut out = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let pipes: Vec<usize> = line.match_indices('|').map(|(i, _)| i).collect();
        for w in pipes.windows(2) {
            let filter = line[w[0] + 1..].trim_start();
            let name: String = filter.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            let next = line[w[1] + 1..].trim_start();
            if GENERATORS.contains(&name.as_str()) && next.starts_with("tojson") {
                out.push((offset + w[0], offset + w[1] + 1 + (line[w[1] + 1..].len() - next.len()) + 6));
            }
        }
        offset += line.len();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_markup_joins_and_generators_given_to_tojson() {
        let t = "{{ \"a\"|safe + x }}\n{{ x | map(attribute='f') | tojson(indent=2) }}\n{{ y|safe }}{{ z | list | tojson }}";
        let w = find("t.jinja", t);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].message.contains("|safe"));
        assert!(w[1].message.contains("generator"));
        assert!(find("t.jinja", "{{ x|safe }} + {{ y | tojson }} {{ unsafe + 1 }}").is_empty());
    }
}
