//! Unit tests of `model::template::syntax`.

use super::*;

/// The explanation of `source`'s syntax error, with the text it points at.
fn explained(source: &str) -> (Explained, String) {
    let mut env = minijinja::Environment::new();
    let e = env.add_template("t", source).unwrap_err();
    let x = explain(&e, source, WhitespaceConfig::default(), 1).expect("explained");
    let at = source[x.at.clone()].to_string();
    (x, at)
}

#[test]
fn an_unclosed_expression_is_found_at_its_braces() {
    let (x, at) = explained("a {{ name \n{% if y %}b{% endif %}");
    assert_eq!((x.message.as_str(), at.as_str()), ("this `{{` is never closed", "{{"));
    let (x, at) = explained("{% if x \nb{% endif %}");
    assert_eq!((x.message.as_str(), at.as_str()), ("this `{% if` tag is never closed", "{% if"));
    let mut env = minijinja::Environment::new();
    let e = env.add_template("t", "{{ a b }}").unwrap_err();
    assert!(explain(&e, "{{ a b }}", WhitespaceConfig::default(), 1).is_none());
}

#[test]
fn an_end_tag_names_the_block_open_where_it_stands() {
    let (x, at) = explained("{% if x %}\na{% endfor %}");
    assert_eq!(at, "endfor");
    assert_eq!(x.message, "`{% endfor %}` ends no block: the block open here is `{% if %}` (line 1)");
    let (x, _) = explained("{% for a in b %}{% if x %}\n{% endfor %}");
    assert!(x.message.contains("before the `{% if %}` on line 1 is ended"), "{}", x.message);
    let (x, _) = explained("{% endfor %}");
    assert_eq!(x.message, "`{% endfor %}` ends no block: no `{% for %}` is open here");
}

#[test]
fn a_misspelt_statement_gets_the_one_meant() {
    let (x, at) = explained("{% if x %}\na{% edif %}");
    assert_eq!((x.message.as_str(), at.as_str()), ("unknown template statement `edif`", "edif"));
    assert!(
        x.help.starts_with("did you mean `endif` or `elif`? the block open here is `{% if %}` (line 1)"),
        "{}",
        x.help
    );
    let (x, _) = explained("{% for a in b %}\na{% edfor %}");
    assert!(x.help.starts_with("did you mean `endfor`? the block open"), "{}", x.help);
    let (x, _) = explained("{% if x %}\na{% endfi %}");
    assert!(x.help.starts_with("did you mean `endif` or"), "{}", x.help);
    let (x, _) = explained("{% if x %}a{% elsif y %}b{% endif %}");
    assert!(x.help.starts_with("did you mean `elif`?"), "{}", x.help);
    let (x, at) = explained("{% if x %}a{% else if y %}b{% endif %}");
    assert_eq!((x.message.as_str(), at.as_str()), ("`{% else if %}` is not a template statement", "else if"));
    let (x, _) = explained("{% else %}");
    assert!(x.message.starts_with("`{% else %}` outside"), "{}", x.message);
}

#[test]
fn odd_templates_never_panic() {
    for source in
        ["{{", "{%", "é{{ é", "{% else if", "{% é %}", "{%- else if x -%}", "{{ a }}{% endé %}", "{% if %}{{ }"]
    {
        let mut env = minijinja::Environment::new();
        if let Err(e) = env.add_template("t", source) {
            let _ = explain(&e, source, WhitespaceConfig::default(), 1);
        }
    }
}
