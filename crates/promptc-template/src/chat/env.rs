//! The template environment transformers renders chat templates in, rebuilt on minijinja:
//! `trim_blocks` and `lstrip_blocks` on, no trailing newline kept, Jinja2's default (lenient)
//! undefined values, loop controls, Python methods on strings, lists and maps, and its globals
//! and filters — `raise_exception`, `strftime_now`, and a `tojson` that is `json.dumps` (no HTML
//! escaping, keys in their order, `indent`, `separators`, `sort_keys`, `ensure_ascii`). Printed
//! values take Python's forms (`True`, `None`, `['a', 1]`). The `{% generation %}` block of
//! transformers' assistant-mask extension renders its body, as it does there.
//!
//! A chat template may come with a pull request: it runs on fuel, with its output capped, and
//! every filter that can grow text is size-checked first.

use minijinja::value::{Kwargs, Rest, Value, ValueKind};
use minijinja::{AutoEscape, Environment, Error, ErrorKind, UndefinedBehavior};

use crate::chat::ChatDate;
use crate::chat::Chosen;
use crate::python::{self, Dumps};
use crate::{filters, Capped};

/// Instructions a chat template may run: real templates need a few thousand per message and
/// tool; a loop that never ends stops within a second or two.
const FUEL: u64 = 50_000_000;

/// Marks an error `raise_exception` raised, so its message is the template's own.
const RAISED: &str = "\u{1}raised\u{1}";

/// Render `template` with `ctx`; `strftime_now` reads `date`; output past `cap` bytes stops.
/// The text, and the fuel the render spent (for the cell's account, `template::work`).
pub fn render(template: &Chosen, ctx: Value, date: ChatDate, cap: usize) -> crate::error::Result<(String, u64)> {
    let mut env = Environment::new();
    env.set_debug(true);
    env.set_undefined_behavior(UndefinedBehavior::Lenient);
    env.set_auto_escape_callback(|_| AutoEscape::None);
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    env.set_keep_trailing_newline(false);
    env.set_fuel(Some(FUEL));
    // Every value bounded where the engine builds it (the patched minijinja under vendor/),
    // by the output cap: the static guard below only sees the shapes it knows.
    env.set_value_size_limit(Some(cap));
    // What the render may build in all, as a project's templates may (see `build_limit`).
    env.set_build_limit(Some(cap.saturating_mul(crate::BUILD_FACTOR)));
    filters::register(&mut env, cap);
    filters::register_methods(&mut env, cap);
    // transformers renders with Jinja2: none is not iterable, includes scope as Jinja2's, and
    // lists and dicts become text as Python writes them wherever text is made of them.
    crate::jinja2::register_semantics(&mut env, cap);
    env.set_formatter(|out, _state, value| {
        let mut s = String::new();
        python::str_of(value, &mut s);
        out.write_str(&s).map_err(Error::from)
    });
    env.add_filter("tojson", tojson);
    // `'%s: %d' % (name, n)`: Python's printf-style formatting, as in Jinja2.
    env.set_string_modulo_callback(move |_state, text, rhs| crate::printf::percent(text, rhs, cap, "`%` formatting"));
    env.add_filter("string", |v: &Value| {
        let mut s = String::new();
        python::str_of(v, &mut s);
        s
    });
    env.add_function("raise_exception", |message: Option<Value>| -> Result<Value, Error> {
        let mut m = String::new();
        if let Some(v) = &message {
            python::str_of(v, &mut m);
        }
        Err(Error::new(ErrorKind::InvalidOperation, format!("{RAISED}{m}")))
    });
    env.add_function("strftime_now", move |format: String| -> Result<Value, Error> {
        date.strftime(&format).map(Value::from).map_err(|why| Error::new(ErrorKind::InvalidOperation, why))
    });
    let text = rewrite_generation_tags(&template.text);
    // The static guard the project's own templates pass first: a template that doubles a
    // string in a loop would fill memory long before its fuel ran out (fuel counts
    // instructions, not bytes).
    let ws =
        minijinja::machinery::WhitespaceConfig { keep_trailing_newline: false, lstrip_blocks: true, trim_blocks: true };
    if let Err(r) = crate::guard::check(&text, ws) {
        let p = crate::diagnostic::Position::from_byte_range(&template.text, r.start, r.end);
        return Err(crate::diagnostic::Diagnostic::error(format!("chat template refused: {}", r.message))
            .with_label(crate::diagnostic::Label::at(&template.display, &template.text, p))
            .with_help(r.help)
            .into_error(crate::error::ErrorKind::Template));
    }
    // Jinja2's Markup on `+` (`"…"|safe + text` escapes the text): see `markup`.
    let text = crate::chat::markup::rewrite(&text, ws).0.unwrap_or(text);
    env.add_function(crate::chat::markup::MARKUP_ADD, crate::chat::markup::markup_add);
    let fail = |e: &Error, what: &str| template_error(template, e, what.to_string());
    env.add_template_owned("chat", text)
        .map_err(|e| fail(&e, &format!("chat template syntax error: {}", detail(&e))))?;
    let tmpl = env.get_template("chat").map_err(|e| fail(&e, "chat template error"))?;
    let mut out = Capped::new(cap);
    let spent;
    match tmpl.render_captured_to(ctx, &mut out) {
        Ok(c) => spent = c.state().fuel_levels().map_or(0, |(spent, _)| spent),
        Err(_) if out.exceeded() => {
            return Err(crate::diagnostic::Diagnostic::error(format!(
                "the chat template renders more than {cap} bytes"
            ))
            .with_label(crate::diagnostic::Label::file(&template.display))
            .with_help("a loop in the template produces far more text than a prompt holds")
            .into_error(crate::error::ErrorKind::Template))
        }
        Err(e) => {
            let d = detail(&e);
            let message = match d.strip_prefix(RAISED) {
                Some(raised) => format!("the chat template raised an error: {raised}"),
                None if e.kind() == ErrorKind::OutOfFuel => {
                    "the chat template ran too long (a loop that does not end?)".to_string()
                }
                None if e.kind() == ErrorKind::ValueTooLarge => {
                    crate::too_large_message("the chat template", Some(cap), &d)
                }
                None if e.kind() == ErrorKind::BuildLimit => {
                    crate::built_too_much_message("the chat template", env.build_limit())
                }
                None => format!("chat template error: {d}"),
            };
            return Err(fail(&e, &message));
        }
    }
    let text = String::from_utf8(out.into_bytes()).map_err(|_| {
        crate::diagnostic::Diagnostic::error("the chat template rendered text that is not UTF-8")
            .into_error(crate::error::ErrorKind::Template)
    })?;
    Ok((text, spent))
}

/// What went wrong, without minijinja's location suffix (the label carries it).
fn detail(e: &Error) -> String {
    match e.detail() {
        Some(d) => d.to_string(),
        None => e.kind().to_string(),
    }
}

/// transformers' `tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False)`:
/// arguments by position or by name.
fn tojson(value: &Value, args: Rest<Value>) -> Result<Value, Error> {
    let mut positional: Vec<Value> = args.0;
    let kwargs = match positional.last() {
        Some(last) if last.is_kwargs() => Kwargs::try_from(positional.pop().unwrap_or_default())?,
        _ => Kwargs::from_iter(std::iter::empty::<(&str, Value)>()),
    };
    if positional.len() > 4 {
        return Err(Error::new(ErrorKind::TooManyArguments, "tojson takes at most 4 arguments"));
    }
    let mut positional = positional.into_iter();
    let (ensure_ascii, indent, separators, sort_keys) =
        (positional.next(), positional.next(), positional.next(), positional.next());
    let arg = |pos: Option<Value>, name: &str| -> Result<Option<Value>, Error> {
        Ok(match pos {
            Some(v) => Some(v),
            None => kwargs.get::<Option<Value>>(name)?,
        })
    };
    let flag = |v: Option<Value>| v.is_some_and(|v| v.is_true());
    let mut d = Dumps { ensure_ascii: flag(arg(ensure_ascii, "ensure_ascii")?), ..Dumps::default() };
    d.sort_keys = flag(arg(sort_keys, "sort_keys")?);
    d.indent = match arg(indent, "indent")? {
        None => None,
        Some(v) if v.is_none() => None,
        Some(v) if v.kind() == ValueKind::String => Some(v.as_str().unwrap_or_default().to_string()),
        Some(v) => match v.as_i64() {
            Some(n) => Some(" ".repeat(n.clamp(0, 64) as usize)),
            None => return Err(Error::new(ErrorKind::InvalidOperation, "tojson: indent must be a number or a string")),
        },
    };
    d.separators = match arg(separators, "separators")? {
        None => None,
        Some(v) if v.is_none() => None,
        Some(v) => {
            let items: Vec<Value> = v.try_iter()?.collect();
            match items.as_slice() {
                [a, b] if a.as_str().is_some() && b.as_str().is_some() => {
                    Some((a.as_str().unwrap_or_default().to_string(), b.as_str().unwrap_or_default().to_string()))
                }
                _ => return Err(Error::new(ErrorKind::InvalidOperation, "tojson: separators must be two strings")),
            }
        }
    };
    kwargs.assert_all_used()?;
    d.dumps(value).map(Value::from).map_err(|e| e.into_error("tojson"))
}

/// `{% generation %}` … `{% endgeneration %}` (transformers' assistant-mask extension) as
/// `{% if true %}` … `{% endif %}`: the same text, with each tag's length kept so that error
/// positions stay true.
fn rewrite_generation_tags(text: &str) -> String {
    use minijinja::machinery::Token;
    // Found by the tokenizer, so text that only looks like the tag (inside a string literal or
    // a `{% raw %}` block) is left alone.
    let ws =
        minijinja::machinery::WhitespaceConfig { keep_trailing_newline: false, lstrip_blocks: true, trim_blocks: true };
    let mut words = Vec::new();
    let mut after_block_start = false;
    for item in minijinja::machinery::tokenize(text, false, Default::default(), ws) {
        let Ok((token, span)) = item else { break };
        if let (true, Token::Ident(name @ ("generation" | "endgeneration"))) = (after_block_start, &token) {
            words.push((span.start_offset as usize, span.end_offset as usize, *name));
        }
        after_block_start = matches!(token, Token::BlockStart);
    }
    if words.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (start, end, name) in words {
        let with = if name == "generation" { "if true" } else { "endif" };
        out.push_str(&text[at..start]);
        out.push_str(with);
        out.extend(std::iter::repeat_n(' ', (end - start).saturating_sub(with.len())));
        at = end;
    }
    out.push_str(&text[at..]);
    out
}

/// An error raised while rendering a chat template, located in the template.
fn template_error(template: &Chosen, e: &Error, message: String) -> crate::error::Error {
    let mut d = crate::diagnostic::Diagnostic::error(message);
    if let Some(range) = e.range() {
        let p = crate::diagnostic::Position::from_byte_range(&template.text, range.start, range.end);
        d = d.with_label(crate::diagnostic::Label::at(&template.display, &template.text, p));
    } else if let Some(line) = e.line() {
        let col = 1;
        d = d.with_label(crate::diagnostic::Label::at(
            &template.display,
            &template.text,
            crate::diagnostic::Position::new(line, col, 0),
        ));
    } else {
        d = d.with_label(crate::diagnostic::Label::file(&template.display));
    }
    d.into_error(crate::error::ErrorKind::Template)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(src: &str, ctx: Value) -> Result<String, String> {
        let chosen = Chosen { display: "t.jinja".into(), text: src.into() };
        render(&chosen, ctx, ChatDate::parse("2024-07-26").unwrap(), 1 << 20)
            .map(|(text, _)| text)
            .map_err(|e| e.diagnostics().iter().map(|d| format!("{} @ {:?}", d.message, d.label)).collect())
    }

    #[test]
    fn prints_values_as_python_does() {
        let ctx = Value::from_serialize(serde_json::json!({
            "l": ["a", 1, 1.5, true, null, {"k": "it's"}], "f": 1e-5, "g": 1e16, "w": 3.0
        }));
        assert_eq!(
            run("{{ l }} {{ f }} {{ g }} {{ w }} {{ l[3] }} {{ l[4] }} {{ l[3] | string }}", ctx).unwrap(),
            "['a', 1, 1.5, True, None, {'k': \"it's\"}] 1e-05 1e+16 3.0 True None True"
        );
    }

    #[test]
    fn tojson_is_json_dumps() {
        let ctx = Value::from_serialize(serde_json::json!({"t": {"b": "<é>\n", "a": [1, 2.0, {}], "c": []}}));
        assert_eq!(run("{{ t | tojson }}", ctx.clone()).unwrap(), r#"{"b": "<é>\n", "a": [1, 2.0, {}], "c": []}"#);
        assert_eq!(
            run("{{ t | tojson(indent=2, sort_keys=true) }}", ctx.clone()).unwrap(),
            "{\n  \"a\": [\n    1,\n    2.0,\n    {}\n  ],\n  \"b\": \"<é>\\n\",\n  \"c\": []\n}"
        );
        assert_eq!(run("{{ t.b | tojson(ensure_ascii=true) }}", ctx.clone()).unwrap(), r#""<\u00e9>\n""#);
        assert_eq!(run("{{ t.a | tojson(separators=(',', ':')) }}", ctx).unwrap(), "[1,2.0,{}]");
    }

    #[test]
    fn globals_and_whitespace_follow_transformers() {
        let ctx = Value::from_serialize(serde_json::json!({"xs": [1, 2, 3]}));
        assert_eq!(run("{{ strftime_now('%d %b %Y') }}", ctx.clone()).unwrap(), "26 Jul 2024");
        // trim_blocks, lstrip_blocks, loop controls, no trailing newline kept.
        assert_eq!(
            run("  {% for x in xs %}\n{% if x == 2 %}{% continue %}{% endif %}{{ x }};\n  {% endfor %}\n", ctx.clone())
                .unwrap(),
            "1;\n3;\n".trim_end_matches('\n').to_string() + "\n"
        );
        // Jinja2's default undefined: empty when printed, false when tested.
        assert_eq!(run("[{{ nope }}]{% if nope %}x{% endif %}", ctx.clone()).unwrap(), "[]");
        let e = run("{{ raise_exception('System role not supported') }}", ctx.clone()).unwrap_err();
        assert!(e.contains("the chat template raised an error: System role not supported"), "{e}");
        assert_eq!(
            run("{% generation %}a{% endgeneration %}{%- generation -%} b {%- endgeneration %}", ctx).unwrap(),
            "ab"
        );
    }

    #[test]
    fn none_and_containers_behave_as_in_jinja2() {
        // Qwen3-Coder, vLLM's hermes and granite-20b-fc guard on `tools is iterable`: with
        // `tools=None` (a request without tools) that is false in Jinja2.
        let ctx = Value::from_serialize(serde_json::json!({"tools": null, "t": ["integer", "null"]}));
        assert_eq!(
            run("{% if tools is iterable and tools | length > 0 %}x{% endif %}{{ tools is sequence }}", ctx.clone())
                .unwrap(),
            "False"
        );
        let e = run("{% for x in tools %}{% endfor %}", ctx.clone()).unwrap_err();
        assert!(e.contains("'NoneType' object is not iterable"), "{e}");
        // Gemma 4 writes a nullable type as `value['type'] | upper`: Python's text of the list.
        assert_eq!(
            run("{{ t | upper }}|{{ 'type: ' ~ t }}", ctx).unwrap(),
            "['INTEGER', 'NULL']|type: ['integer', 'null']"
        );
    }

    #[test]
    fn a_template_that_never_ends_stops() {
        let e = run("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", Value::from(())).unwrap_err();
        assert!(e.contains("recursion limit exceeded") && e.contains("t.jinja"), "{e}");
        let e =
            run("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}", Value::from(()))
                .unwrap_err();
        assert!(e.contains("ran too long"), "{e}");
    }

    #[test]
    fn a_value_that_doubles_stops_at_the_cap() {
        // The static guard does not follow a value through a namespace attribute and an alias;
        // the engine's value limit (the output cap) stops it where it is built.
        let e = run(
            "{% set ns = namespace(s='ab') %}{% for i in range(64) %}{% set t = ns.s %}{% set ns.s = t ~ t %}\
             {% endfor %}{{ ns.s }}",
            Value::from(()),
        )
        .unwrap_err();
        assert!(e.contains("the chat template builds a value larger than 1048576 bytes"), "{e}");
        let e = run("{{ ([1] * 1000000000)|list|length }}", Value::from(())).unwrap_err();
        assert!(e.contains("builds a value larger than"), "{e}");
    }
}
