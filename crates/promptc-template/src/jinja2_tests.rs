use super::*;

#[test]
fn center_puts_the_odd_space_where_python_does() {
    assert_eq!(center("ab", 5), "  ab ");
    assert_eq!(center("abc", 6), " abc  ");
    assert_eq!(center("abc", 2), "abc");
}

#[test]
fn truncate_keeps_whole_words_within_the_leeway() {
    assert_eq!(truncate("hello world foo", 9, false, "...", 0).unwrap(), "hello...");
    assert_eq!(truncate("hello world foo", 9, true, "...", 0).unwrap(), "hello ...");
    assert_eq!(truncate("hello world", 9, false, "...", 5).unwrap(), "hello world");
    assert!(truncate("x", 1, false, "...", 0).is_err());
}

#[test]
fn wordwrap_wraps_each_line_as_textwrap_does() {
    assert_eq!(wordwrap("aaa bbb ccc", 7, true, "\n", true), "aaa bbb\nccc");
    assert_eq!(wordwrap("abcdefghij", 4, true, "\n", true), "abcd\nefgh\nij");
    assert_eq!(wordwrap("abcdefghij", 4, false, "\n", true), "abcdefghij");
    assert_eq!(wordwrap("one-two-three", 8, true, "|", true), "one-two-|three");
    assert_eq!(wordwrap("a\n\nb c", 3, true, "\n", true), "a\n\nb c");
}

#[test]
fn filesizes_read_as_jinja2_writes_them() {
    assert_eq!(filesizeformat(1.0, false), "1 Byte");
    assert_eq!(filesizeformat(999.0, false), "999 Bytes");
    assert_eq!(filesizeformat(1500.0, false), "1.5 kB");
    assert_eq!(filesizeformat(2048.0, true), "2.0 KiB");
}

#[test]
fn splitlines_is_pythons() {
    assert_eq!(splitlines("a\r\nb\rc\n"), vec!["a", "b", "c"]);
    assert_eq!(splitlines(""), Vec::<&str>::new());
}

#[test]
fn printing_stops_at_the_cap() {
    let leaf = Value::from("x".repeat(10));
    let list = Value::from(vec![leaf.clone(), leaf.clone(), leaf]);
    let nested = Value::from(vec![list.clone(), list.clone(), list]);
    let mut out = String::new();
    assert!(python::repr_capped(&nested, &mut out, 1000));
    assert_eq!(out.len(), 2 + 3 * (2 + 3 * 12 + 2 * 2) + 2 * 2);
    let mut out = String::new();
    assert!(!python::repr_capped(&nested, &mut out, 50));
    assert!(out.len() < 50 + 20, "stops within one item of the cap: {}", out.len());
    assert!(str_capped("printing", &nested, 50).is_err());
}

#[test]
fn tuples_print_and_read_as_python_s() {
    let t = python::tuple(vec![Value::from("a"), Value::from(1)]);
    let one = python::tuple(vec![Value::from(true)]);
    let mut out = String::new();
    python::repr(&Value::from(vec![t.clone(), one]), &mut out);
    assert_eq!(out, "[('a', 1), (True,)]");
    assert_eq!(t.get_item(&Value::from(-1)).unwrap(), Value::from(1));
    let group = Value::from_object(python::Tuple(vec![Value::from("k"), Value::from(2)], &["grouper", "list"]));
    assert_eq!(group.get_attr("grouper").unwrap(), Value::from("k"));
}

#[test]
fn indent_keeps_the_final_newline_as_jinja2_does() {
    assert_eq!(indent("a\n\nb\n", "  ", false, false), "a\n\n  b\n");
    assert_eq!(indent("a\n\nb", "  ", true, true), "  a\n  \n  b");
    assert_eq!(indent("", "  ", false, false), "");
}

#[test]
fn title_and_capitalize_are_python_s() {
    assert_eq!(jinja2_title("don't x-y 3d(a"), "Don't X-Y 3d(A");
    assert_eq!(py_title("don't 3d"), "Don'T 3D");
    assert_eq!(py_capitalize("ßA ΟΔΟΣ"), "Ssa οδος");
    assert!(
        cased("abc1", char::is_lowercase, char::is_uppercase) && !cased("", char::is_lowercase, char::is_uppercase)
    );
}

/// `%` with a string on its left is Python's printf-style formatting, measured like any value the
/// template builds: past the value limit, and kept many times past the build limit, an error.
#[test]
fn percent_formats_as_python_and_its_results_count_as_built() {
    let mut env = minijinja::Environment::new();
    register(&mut env, 1 << 16);
    env.set_value_size_limit(Some(1 << 16));
    env.set_build_limit(Some(1 << 18));
    let render = |src: &str| env.render_str(src, minijinja::context! { n => 3, name => "héllo" });
    assert_eq!(
        render("{{ '%s-%d' % (name, n) }}|{{ '%(a)s' % {'a': 1} }}|{{ '%5.1f%%' % 2.25 }}|{{ 'x' % {} }}").unwrap(),
        "héllo-3|1|  2.2%|x"
    );
    let e = render("{{ '%s %s' % 'x' }}").unwrap_err();
    assert!(e.to_string().contains("`%` formatting: not enough arguments for format string"), "{e}");
    let e = render("{{ '%70000s' % 'x' }}").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ValueTooLarge, "{e}");
    let kept: String = (0..5).map(|i| format!("{{% set a{i} = '%60000s' % i %}}")).collect();
    let e = render(&kept).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BuildLimit, "{e}");
    // Without the callback (`compat` off), `%` with a string on its left stays an error.
    assert!(minijinja::Environment::new().render_str("{{ '%s' % 1 }}", ()).is_err());
}

/// A compat environment (`register`) and a plain one, with the same templates available.
fn envs(
    templates: &[(&'static str, &'static str)],
) -> (minijinja::Environment<'static>, minijinja::Environment<'static>) {
    let mut compat = minijinja::Environment::new();
    register(&mut compat, 1 << 16);
    let mut plain = minijinja::Environment::new();
    for (name, text) in templates {
        compat.add_template(name, text).unwrap();
        plain.add_template(name, text).unwrap();
    }
    (compat, plain)
}

/// Jinja2: `none is iterable` and `none is sequence` are false, and a loop over None fails
/// (`'NoneType' object is not iterable`); minijinja's default iterates it as empty.
#[test]
fn none_is_not_iterable_and_a_loop_over_it_fails() {
    let (compat, plain) = envs(&[]);
    let ctx = minijinja::context! { tools => Value::from(()) };
    let tests = "{{ tools is iterable }} {{ tools is sequence }} {{ nothing is iterable }}";
    assert_eq!(compat.render_str(tests, ctx.clone()).unwrap(), "False False True");
    let e = compat.render_str("{% for t in tools %}{{ t }}{% endfor %}", ctx.clone()).unwrap_err();
    assert!(e.to_string().contains("'NoneType' object is not iterable"), "{e}");
    // Undefined still iterates as empty (Jinja2's default undefined does), and so does None
    // without `compat`.
    assert_eq!(compat.render_str("[{% for t in nothing %}x{% endfor %}]", ctx.clone()).unwrap(), "[]");
    assert_eq!(plain.render_str("[{% for t in tools %}x{% endfor %}]", ctx).unwrap(), "[]");
}

/// Lists, dicts and floats become text as Python's `str` writes them wherever text is made of
/// them (`~`, string filters, `join`), not only when printed; a plain environment keeps
/// minijinja's forms.
#[test]
fn containers_become_text_as_python_writes_them_everywhere() {
    let (compat, plain) = envs(&[]);
    let ctx = minijinja::context! { t => vec![Value::from("integer"), Value::from(())] };
    let src = "{{ t | upper }}|{{ 'x' ~ t }}|{{ [t, {'k': 1.0}] | join(';') }}|{{ [1e16] | replace('1', '2') }}";
    assert_eq!(
        compat.render_str(src, ctx.clone()).unwrap(),
        "['INTEGER', NONE]|x['integer', None]|['integer', None];{'k': 1.0}|[2e+26]"
    );
    assert_eq!(
        plain.render_str("{{ t | upper }}|{{ 'x' ~ t }}", ctx).unwrap(),
        r#"["INTEGER", NONE]|x["integer", None]"#
    );
    // A macro still writes itself as `<macro NAME>` (the `callable` test reads that).
    assert_eq!(
        compat.render_str("{% macro m() %}{% endmacro %}{{ m ~ '' }} {{ m is callable }}", ()).unwrap(),
        "<macro m> True"
    );
    // Outside a render, values are minijinja's.
    assert_eq!(Value::from(vec![Value::from("a")]).to_string(), r#"["a"]"#);
}

/// Jinja2 renders an include in a context of its own (what it sets stays there), and `without
/// context` with none of the including template's values; minijinja's default shares the frame.
#[test]
fn includes_are_scoped_as_jinja2_scopes_them() {
    let parts = [("sets.j2", "{% set x = 'inner' %}{{ x }}"), ("reads.j2", "[{{ x }}]")];
    let (compat, plain) = envs(&parts);
    let src = "{% set x = 'outer' %}{% include 'sets.j2' %}|{{ x }}|{% include 'reads.j2' without context %}\
               {% include 'reads.j2' %}{% include 'reads.j2' ignore missing without context %}";
    assert_eq!(compat.render_str(src, ()).unwrap(), "inner|outer|[][outer][]");
    assert_eq!(plain.render_str(src, ()).unwrap(), "inner|inner|[inner][inner][inner]");
    // Globals are still seen without the context.
    let mut compat = compat;
    compat.add_global("g", "G");
    compat.add_template("g.j2", "{{ g }}").unwrap();
    assert_eq!(compat.render_str("{% include 'g.j2' without context %}", ()).unwrap(), "G");
}
