//! Jinja2's `with context` / `without context` on imports, which minijinja parses and ignores:
//! in Jinja2 a file pulled in by `{% import %}` or `{% from … import %}` (unless it says `with
//! context`) does not see the render's values, so a name it reads from them is undefined there;
//! minijinja gives it the value. With `compat: jinja2` the difference is never silent: such a
//! read is found at load, located at the tag. So is an included file reading `loop`, which
//! Jinja2 never passes to it (minijinja passes the including loop's). `{% include … without
//! context %}` needs no check: the engine renders it without the context, as Jinja2 does
//! (`Environment::set_include_scoping`, vendor/PATCHES.md item 27).

use minijinja::machinery::{tokenize, Token, WhitespaceConfig};
use minijinja::syntax::SyntaxConfig;

use super::reach;
use crate::source::SourceFile;

/// A tag that pulls in a file without the context and a name that file reads from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leak {
    /// The tag's byte range in the template.
    pub start: usize,
    /// Its end.
    pub end: usize,
    /// What the tag is: `import`, `from`, `include`.
    pub tag: String,
    /// The file it names.
    pub file: String,
    /// A context name the file reads.
    pub name: String,
}

/// The first tag of `source` that pulls in a file (with a literal name) without the context,
/// where that file (or what it pulls in) reads one of `context` (the names the render's values
/// hold).
pub fn leak(
    source: &str,
    ws: WhitespaceConfig,
    context: &dyn Fn(&str) -> bool,
    read: &dyn Fn(&str) -> Option<SourceFile>,
) -> Option<Leak> {
    let tokens: Vec<(Token<'_>, minijinja::machinery::Span)> =
        tokenize(source, false, SyntaxConfig, ws).map_while(Result::ok).collect();
    let mut i = 0;
    while i < tokens.len() {
        if !matches!(tokens[i].0, Token::BlockStart) {
            i += 1;
            continue;
        }
        let start = tokens[i].1.start_offset as usize;
        let mut j = i + 1;
        while j < tokens.len() && !matches!(tokens[j].0, Token::BlockEnd) {
            j += 1;
        }
        let tag = &tokens[i + 1..j.min(tokens.len())];
        let end = tokens.get(j).map_or(source.len(), |t| t.1.end_offset as usize);
        i = j + 1;
        let Some((Token::Ident(kind @ ("include" | "import" | "from")), _)) = tag.first() else { continue };
        let Some(file) = tag.iter().find_map(|(t, _)| match t {
            Token::Str(s) => Some(s.to_string()),
            Token::String(s) => Some(s.to_string()),
            _ => None,
        }) else {
            continue;
        };
        let marker = tag.windows(2).find_map(|w| match (&w[0].0, &w[1].0) {
            (Token::Ident(m @ ("with" | "without")), Token::Ident("context")) => Some(*m),
            _ => None,
        });
        // An include without the context sees neither the values nor `loop` (the engine's
        // scoping, as Jinja2's): nothing can leak into it.
        if *kind == "include" && marker == Some("without") {
            continue;
        }
        let without = *kind != "include" && marker != Some("with");
        let Some(f) = read(&file) else { continue };
        let r = reach::analyze(&f.text, ws, read);
        if without {
            if let Some(name) = r.names.keys().find(|n| context(n)) {
                return Some(Leak { start, end, tag: kind.to_string(), file, name: name.clone() });
            }
        } else if *kind == "include" && r.names.contains_key("loop") {
            // Jinja2 passes an included file the including loop's variables, never `loop`.
            return Some(Leak { start, end, tag: kind.to_string(), file, name: "loop".into() });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const WS: WhitespaceConfig =
        WhitespaceConfig { keep_trailing_newline: false, lstrip_blocks: false, trim_blocks: false };

    fn file(text: &str) -> SourceFile {
        SourceFile::new("m.j2", "m.j2", text)
    }

    #[test]
    fn finds_an_import_without_context_reading_the_context() {
        let read = |_: &str| Some(file("{% macro sign() %}by {{ who }}{% endmacro %}"));
        let ctx = |n: &str| n == "who";
        let src = "x {% import 'm.j2' as m %}{{ m.sign() }}";
        let l = leak(src, WS, &ctx, &read).unwrap();
        assert_eq!(
            (l.tag.as_str(), l.name.as_str(), &src[l.start..l.end]),
            ("import", "who", "{% import 'm.j2' as m %}")
        );
        assert!(leak("{% import 'm.j2' as m with context %}", WS, &ctx, &read).is_none());
        assert!(leak("{% from 'm.j2' import sign %}", WS, &ctx, &read).is_some());
        assert!(leak("{% include 'm.j2' %}", WS, &ctx, &read).is_none());
        // The engine renders an include without the context as Jinja2 does: nothing to find.
        assert!(leak("{% include 'm.j2' without context %}", WS, &ctx, &read).is_none());
        let reads_loop_alone = |_: &str| Some(file("{{ loop.index }}"));
        let src = "{% for x in xs %}{% include 'm.j2' without context %}{% endfor %}";
        assert!(leak(src, WS, &ctx, &reads_loop_alone).is_none());
        // An included file reading the including loop's `loop`.
        let reads_loop = |_: &str| Some(file("{{ loop.index }}"));
        let l = leak("{% for x in xs %}{% include 'm.j2' %}{% endfor %}", WS, &ctx, &reads_loop).unwrap();
        assert_eq!(l.name, "loop");
        let own_loop = |_: &str| Some(file("{% for y in [1] %}{{ loop.index }}{% endfor %}"));
        assert!(leak("{% include 'm.j2' %}", WS, &ctx, &own_loop).is_none());
        // A file reading only its own parameters and globals is fine without the context.
        let pure = |_: &str| Some(file("{% macro b(x) %}{{ x }}{{ range(2) }}{% endmacro %}"));
        assert!(leak("{% import 'm.j2' as m %}", WS, &ctx, &pure).is_none());
    }
}
