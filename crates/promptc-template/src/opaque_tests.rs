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
    let part = |text: &str| SourceFile::new("part.j2", "part.j2", text);
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

/// Every channel untrusted text can travel through, combined with every operation that would
/// transform it: each combination is refused at load, or renders with its wrapper whole — as
/// many opening tags as closing ones, the nonce unchanged — never a cut or rewritten wrapper.
#[test]
fn no_channel_lets_an_operation_break_the_wrapper() {
    // (setup before, the expression that holds the text, what closes the setup)
    let channels: &[(&str, &str, &str)] = &[
        ("", "q", ""),
        ("{% set y = q %}", "y", ""),
        ("{% set y = 'a ' ~ q %}", "y", ""),
        ("{% set ns = namespace(v='') %}{% set ns.v = q %}", "ns.v", ""),
        ("{% set ns = namespace(v='') %}{% set ns.v = q %}", "ns['v']", ""),
        ("{% with y = q %}", "y", "{% endwith %}"),
        ("{% set y %}{{ q }}{% endset %}", "y", ""),
        ("{% macro m() %}{{ q }}{% endmacro %}", "m()", ""),
        ("{% macro m() %}[{{ q }}]{% endmacro %}{% set y = m() %}", "y", ""),
        ("{% for y in [q] %}", "y", "{% endfor %}"),
        ("{% set l = [q, 'b'] %}", "l|join(',')", ""),
        ("{% macro m(s) %}{{ s }}{% endmacro %}", "m(q)", ""),
        ("{% macro m() %}{{ caller() }}{% endmacro %}{% call m() %}{{ q }}{% endcall %}", "''", ""),
        ("{% macro m() %}{{ caller()|upper }}{% endmacro %}{% call m() %}{{ q }}{% endcall %}", "''", ""),
    ];
    let operations: &[&str] = &[
        "{{ X }}",
        "{{ X[:30] }}",
        "{{ X[0] }}",
        "{{ X|upper }}",
        "{{ X|lower }}",
        "{{ X|replace('Q_', 'R_') }}",
        "{{ X|truncate(9) }}",
        "{{ X|reverse }}",
        "{{ X|list|join }}",
        "{{ X|trim }}",
        "{{ X.upper() }}",
        "{{ X.replace('Q_', 'R_') }}",
        "{% for c in X %}{{ c }}{% endfor %}",
        "{{ (X ~ '!')|title }}",
        "{{ X|default('') }}",
        "{{ X|length }}",
    ];
    let nonce = "n0nce123";
    // A value wrapped as the compiler's `model::untrusted::wrap` wraps it: the delimiters around
    // the text, whose own `<|…|>` bars are broken (BROKEN BAR, U+00A6).
    let wrapped = format!("<|Q_{nonce}|>\npayload <\u{a6}Q_END_0000\u{a6}> tail\n<|Q_END_{nonce}|>");
    let (open, close) = (format!("<|Q_{nonce}|>"), format!("<|Q_END_{nonce}|>"));
    let mut env = minijinja::Environment::new();
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    let (mut refused_count, mut rendered) = (0, 0);
    for (before, x, after) in channels {
        for op in operations {
            let src = format!("{before}{}{after}", op.replace('X', x));
            if refused(&src).is_some() {
                refused_count += 1;
                continue;
            }
            let Ok(out) = env.render_str(&src, minijinja::context! { q => wrapped }) else { continue };
            rendered += 1;
            let (opens, closes) = (out.matches(&open).count(), out.matches(&close).count());
            assert_eq!(opens, closes, "`{src}` was accepted and broke the wrapper: {out:?}");
            let lowered = out.to_lowercase();
            assert_eq!(
                lowered.matches(&open.to_lowercase()).count(),
                opens,
                "`{src}` was accepted and changed the nonce's case: {out:?}"
            );
            assert!(!out.contains("R_"), "`{src}` was accepted and rewrote a tag: {out:?}");
        }
    }
    assert!(refused_count > 100 && rendered > 20, "{refused_count} refused, {rendered} rendered");
}
