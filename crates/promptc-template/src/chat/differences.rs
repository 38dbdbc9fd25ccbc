//! What minijinja cannot do as Jinja2 does, found in a chat template's source and said as a
//! located warning, so a text that may differ from the server's never differs silently.
//!
//! - `map`, `select`, `reject`, `selectattr`, `rejectattr` and `unique` give Python generators,
//!   which `tojson` (`json.dumps`) refuses; minijinja gives lists, which it writes.

use crate::diagnostic::{Diagnostic, Label, Position};

/// The warnings for `text` (the template `display`).
pub fn find(display: &str, text: &str) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let at = |start: usize, end: usize| Label::at(display, text, Position::from_byte_range(text, start, end));
    let ws =
        minijinja::machinery::WhitespaceConfig { keep_trailing_newline: false, lstrip_blocks: true, trim_blocks: true };
    for (start, end) in super::markup::rewrite(text, ws).1 {
        out.push(
            Diagnostic::warning("an addition in a template that uses `|safe` could not be kept as Jinja2's Markup addition")
                .with_label(at(start, end))
                .with_help("if a side of it is Markup, the server HTML-escapes the other side and promptc does not: report this template"),
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
    fn finds_generators_given_to_tojson() {
        let t = "{{ \"a\"|safe + x }}\n{{ x | map(attribute='f') | tojson(indent=2) }}\n{{ y|safe }}{{ z | list | tojson }}";
        let w = find("t.jinja", t);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].message.contains("generator"));
        assert!(w[0].label.as_ref().is_some_and(|l| format!("{l:?}").contains("t.jinja")));
        assert!(find("t.jinja", "{{ x|safe }} + {{ y | tojson }} {{ unsafe + 1 }}").is_empty());
    }
}
