use super::*;

const WS: WhitespaceConfig = WhitespaceConfig { keep_trailing_newline: false, lstrip_blocks: true, trim_blocks: true };

fn refused(src: &str) -> Option<String> {
    let names: BTreeSet<&str> = ["q"].into_iter().collect();
    check(src, WS, &names).err().map(|r| r.message)
}

#[test]
fn transforming_untrusted_text_is_refused_at_the_operation() {
    for (src, says) in [
        ("{{ q[:25] }}", "slicing"),
        ("{{ q[0] }}", "indexing"),
        ("{{ q | upper }}", "filter `upper`"),
        ("{{ q | replace('END', 'x') }}", "filter `replace`"),
        ("{{ q | truncate(10) }}", "filter `truncate`"),
        ("{{ q | indent(2) }}", "filter `indent`"),
        ("{{ (q ~ '!') | lower }}", "filter `lower`"),
        ("{{ [q, 'x'] | join(', ') }}", "filter `join`"),
        ("{{ 'a,b' | replace(',', q) }}", "argument of filter `replace`"),
        ("{{ q.upper() }}", "`.upper`"),
        ("{% for c in q %}{{ c }}{% endfor %}", "a loop over"),
        ("{% set y = q %}{{ y | title }}", "filter `title`"),
        ("{% set y %}[{{ q }}]{% endset %}{{ y[:3] }}", "slicing"),
        ("{% filter upper %}{{ q }}{% endfilter %}", "a filter block"),
        ("{% macro m(s) %}{{ s }}{% endmacro %}{{ m(q) }}", "passed to a call"),
        ("{% with y = q %}{{ y | trim }}{% endwith %}", "filter `trim`"),
    ] {
        let m = refused(src).unwrap_or_else(|| panic!("{src} was accepted"));
        assert!(m.contains(says), "{src}: {m}");
    }
}

#[test]
fn includes_are_followed_with_the_taint_at_the_tag() {
    let names: BTreeSet<&str> = ["q"].into_iter().collect();
    let part = |text: &str| SourceFile {
        rel: "part.j2".into(),
        display: "part.j2".into(),
        text: text.into(),
        sha256: String::new(),
    };
    let run = |root: &str, text: &str| {
        let f = part(text);
        check_through(root, WS, &names, &|n: &str| (n == "part.j2").then(|| f.clone()))
    };
    let (file, r) = *run("{% with y = q %}{% include 'part.j2' %}{% endwith %}", "ok {{ y | upper }}").unwrap_err();
    assert_eq!((file.map(|f| f.rel), r.start), (Some("part.j2".to_string()), 10));
    assert!(run("{% include 'part.j2' %}", "{{ q }} and {{ y | upper }}").is_ok());
    let (file, _) = *run("{% import 'part.j2' as m %}", "{% macro f() %}{{ q[:3] }}{% endmacro %}").unwrap_err();
    assert!(file.is_some());
    // The text itself: no file.
    assert!(run("{{ q | lower }}", "").unwrap_err().0.is_none());
}

#[test]
fn emitting_testing_and_measuring_keep_the_wrapper() {
    for src in [
        "{{ q }}",
        "Rules:\n{{ q }}\n",
        "{% if q %}{{ q }}{% endif %}",
        "{{ 'before ' ~ q ~ ' after' }}",
        "{{ q | default('none') }}",
        "{{ q | length }} characters",
        "{% if q | length > 10 %}long{% endif %}",
        "{% if q == '' %}empty{% endif %}",
        "{{ other | upper }}",
        "{% set y = q %}{{ y }}",
        "{% for x in items %}{{ x | upper }}{% endfor %}",
    ] {
        assert_eq!(refused(src), None, "{src}");
    }
}
