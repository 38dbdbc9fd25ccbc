use super::*;

#[test]
fn the_innermost_unclosed_block_is_found_at_its_tag() {
    let ws = WhitespaceConfig::default();
    let find = |src: &str| {
        open_blocks(src, ws, src.len()).and_then(|mut o| o.pop()).map(|(s, e, k)| (src[s..e].to_string(), k))
    };
    assert_eq!(find("a {% if x %} b"), Some(("{% if x %}".into(), "if".into())));
    assert_eq!(find("{% if x %}{% for y in z %}{{ y }}{% endfor %}"), Some(("{% if x %}".into(), "if".into())));
    assert_eq!(find("{% if x %}{% for y in z %}{{ y }}{% endif %}"), None, "a mismatched end is minijinja's to report");
    assert_eq!(find("{% set a = 1 %}{% set b %}text"), Some(("{% set b %}".into(), "set".into())));
    assert_eq!(find("{% if x %}{% else %}{% endif %}"), None);
    assert_eq!(find("{% macro m() %}{% if a %}{% endif %}"), Some(("{% macro m() %}".into(), "macro".into())));
}

fn ws() -> WhitespaceConfig {
    WhitespaceConfig { keep_trailing_newline: false, lstrip_blocks: true, trim_blocks: true }
}

fn refused(src: &str) -> Refusal {
    check(src, ws()).expect_err(src)
}

#[test]
fn ordinary_templates_pass() {
    for src in [
        "{% set full = header ~ body ~ footer %}{{ full }}",
        "{% for t in tools %}{% set line = '- ' ~ t.name %}{{ line }}\n{% endfor %}",
        "{% set ns = namespace(text='') %}{% for t in tools %}{% set ns.text = ns.text ~ t.name %}{% endfor %}",
        // Literals appended with the value are not the value itself.
        "{% set ns = namespace(s='') %}{% for t in tools %}{% set ns.s = ns.s ~ t.name ~ ';' %}{% endfor %}",
        "{% set ns = namespace(s='') %}{% for t in tools %}{% set ns.s %}{{ ns.s }}{{ ', ' }}{% endset %}{% endfor %}",
        "{% macro item(t) %}- {{ t }}{% endmacro %}{{ item('a') }}",
        "{% macro walk(n) %}{% if n > 0 %}{{ walk(n - 1) }}{% endif %}{% endmacro %}{{ walk(3) }}",
        "{% set a = x ~ x %}{% set b = a ~ a %}{{ b }}",
        "{{ '=' * 40 }}",
        "{% if x %}{{ y }}{% endif %} {{ a|upper|trim }}",
    ] {
        assert_eq!(check(src, ws()), Ok(()), "{src}");
    }
}

#[test]
fn nul_bytes_are_located() {
    let r = refused("ab\0c");
    assert_eq!((r.start, r.end), (2, 3));
}

#[test]
fn overlong_tags_are_refused_before_parsing() {
    let chain = format!("x {{{{ {} }}}}", vec!["a"; 50_000].join(" ~ "));
    let r = refused(&chain);
    assert_eq!(r.start, 2);
    assert!(r.message.contains("more than 1000 tokens"));
    let filters = format!("{{{{ a{} }}}}", "|upper".repeat(600));
    assert!(refused(&filters).message.contains("tokens"));
    // Just under the limit compiles.
    let fine = format!("{{{{ {} }}}}", vec!["a"; 400].join(" ~ "));
    assert_eq!(check(&fine, ws()), Ok(()));
}

#[test]
fn doubling_is_refused() {
    let straight: String = (0..40).map(|_| "{% set s = s ~ s %}").collect();
    let r = refused(&straight);
    assert!(r.message.contains("4096 times"), "{}", r.message);
    // The refusal points at the 13th `set`, the first past 4096×.
    assert_eq!(&straight[r.start..r.end], "set s = s ~ s");
    assert_eq!(r.start, 12 * "{% set s = s ~ s %}".len() + 3);
    let in_loop = "{% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}";
    assert!(refused(in_loop).message.contains("`ns.s` is built from itself more than once"));
    let block = "{% for i in range(40) %}{% set s %}{{ s }}{{ s }}{% endset %}{% endfor %}";
    assert!(refused(block).message.contains("`s` is built from itself"));
    let repeat = "{% set a = x * 100 %}{% set b = a * 100 %}";
    assert!(refused(repeat).message.contains("4096 times"));
    let recursion = "{% macro d(s, n) %}{% if n %}{{ d(s ~ s, n - 1) }}{% endif %}{% endmacro %}{{ d('x', 60) }}";
    assert!(refused(recursion).message.contains("macro `d` calls itself"));
    // A literal added per call grows by a constant per level: functionary v3.2's chat template
    // recurses with `depth + 1` and must pass.
    let counted = "{% macro d(s, n) %}{% if n %}{{ d(s ~ ';', n + 1) }}{% endif %}{% endmacro %}{{ d('x', 1) }}";
    assert!(check(counted, ws()).is_ok());
}
