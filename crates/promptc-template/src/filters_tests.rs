//! Unit tests of `model::template::filters`.

use super::*;

fn env(cap: usize) -> Environment<'static> {
    let mut env = Environment::new();
    register(&mut env, cap);
    env
}

fn render(env: &Environment, src: &str) -> Result<String, Error> {
    env.render_str(src, minijinja::context! { s => "a\nb\n\nc", items => vec!["x", "y", "z"] })
}

#[test]
fn below_the_cap_the_filters_behave_as_minijinja_s() {
    let plain = Environment::new();
    let checked = env(1 << 20);
    for src in [
        "{{ s|replace('b', 'BB') }}",
        "{{ s|replace('', '-') }}",
        "{{ s|indent(2) }}|{{ s|indent(width=3, first=true, blank=true) }}",
        "{{ items|join(', ') }}{{ items|join }}",
        "{{ '%s=%5d|%-4s|%.2f'|format('k', 42, 'ab', 3.14159) }}",
        "{% for b in items|batch(2, '-') %}{{ b|join }};{% endfor %}",
        "{% for b in items|batch(1000000000) %}{{ b|join }};{% endfor %}",
        "{% for b in items|batch(2) %}{{ b|join }};{% endfor %}",
        "{{ items|slice(2) }}{{ items|slice(5, '-') }}",
        "{{ items|reverse|sort }}{{ [3, 1, 2]|sort(reverse=true) }}",
        "{{ s|lines }}",
        "{{ s|pprint }}{{ items|pprint }}{{ s|pprint|pprint }}",
    ] {
        assert_eq!(render(&checked, src).unwrap(), render(&plain, src).unwrap(), "{src}");
    }
}

#[test]
fn blow_ups_fail_before_allocating() {
    let e = env(1000);
    for (src, filter) in [
        ("{{ s|replace('', 'x' * 500) }}", "replace"),
        ("{{ s|indent(1000000000) }}", "indent"),
        ("{{ range(100)|join('x' * 20) }}", "join"),
        ("{{ '%999999999s'|format('a') }}", "format"),
        // Widths of 40 digits: the bound saturates instead of overflowing (a fuzzer's find).
        ("{{ ('%' ~ '9' * 40 ~ 's')|format('a') }}", "format"),
        ("{{ items|batch(100000000, 'x')|list }}", "batch"),
    ] {
        let err = render(&e, src).unwrap_err().to_string();
        let said = [format!("the result of `{filter}` would be"), format!("`{filter}` would build a list")];
        assert!(said.iter().any(|s| err.contains(s.as_str())), "{src}: {err}");
    }
}

#[test]
fn printf_widths_add_up() {
    assert_eq!(printf_widths("%10.3f and %-5s and %%"), 18);
    assert_eq!(printf_widths("no widths"), 0);
}

fn env_with_methods(cap: usize) -> Environment<'static> {
    let mut env = env(cap);
    register_methods(&mut env, cap);
    env
}

#[test]
fn python_methods_work_and_amplifying_ones_are_capped() {
    let env = env_with_methods(1 << 16);
    let ok = "{{ s.upper() }}|{{ s.split() | join(',') }}|{{ '-'.join(items) }}|{{ '{} {}'.format(1, 'x') }}|\
              {{ {'k': 1}.items() | list | length }}|{{ 'a b'.replace(' ', '_') }}|{{ '  t '.strip() }}";
    assert_eq!(render(&env, ok).unwrap(), "A\nB\n\nC|a,b,c|x-y-z|1 x|1|a_b|t");
    // A width of 40 digits saturates the bound instead of overflowing it (a fuzzer's find).
    for src in [
        "{{ s.replace('', 'x' * 20000) }}",
        "{{ ('x' * 1000).join(items * 100) }}",
        "{{ '{:>100000}'.format(s) }}",
        "{{ ('{:>' ~ '9' * 40 ~ '}').format(s) }}",
    ] {
        let e = render(&env, src).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ValueTooLarge, "{src}: {e}");
        assert!(e.to_string().contains("would be"), "{src}: {e}");
    }
    // Methods pycompat does not have stay errors (values are immutable).
    assert!(render(&env, "{{ items.append('w') }}").is_err());
}

#[test]
fn digit_runs_bound_format_widths() {
    assert_eq!(digit_runs("{:>10}{:05}{0}"), 15);
    assert_eq!(digit_runs("no widths"), 0);
}

#[test]
fn huge_counts_and_inputs_are_refused_before_anything_is_built() {
    let env = env(1 << 16);
    for (src, says) in [
        ("{{ [1]|slice(1000000000) }}", "`slice` would build a list of 1000000000 items"),
        ("{{ [1]|batch(1000000000, 0) }}", "`batch` would build a list of 1000000000 items"),
        ("{{ range(5000)|list|sort }}", "`sort` would build a list of 5000 items"),
        (r"{{ ('a\n' * 40000)|lines|length }}", "the result of `lines`"),
        (r"{{ ('\\' * 20000)|pprint|pprint|length }}", "the result of `pprint`"),
    ] {
        match render(&env, src) {
            Ok(out) => panic!("{src} rendered {} bytes", out.len()),
            Err(e) => assert!(e.to_string().contains(says), "{src}: {e}"),
        }
    }
}

/// minijinja's own filters and pycompat's methods (vendor/, PATCHES.md item 13) check their
/// results against the value size limit before building them: within it they give what they
/// give without a limit, past it they fail with `ValueTooLarge` (promptc's located "builds a
/// value larger than" error), whatever promptc's wrappers above check.
#[test]
fn vendored_filters_are_bounded_by_the_value_size_limit() {
    let plain = env_with_methods(1 << 20);
    let mut limited = env_with_methods(1 << 20);
    limited.set_value_size_limit(Some(1 << 16));
    for src in [
        "{{ s|list }}|{{ items|list }}|{{ range(3)|list }}",
        "{{ 'a b  c'|split }}{{ 'a,b'|split(',') }}{{ 'a b c'|split(none, 1) }}{{ 'abc'|split('') }}",
        "{{ 'a b'.split() }}{{ 'a,,b'.split(',') }}{{ s.splitlines() }}{{ s.splitlines(true) }}",
        "{{ '<a & b>'|escape }}{{ items|escape }}",
        "{{ items|string }}{{ 42|string }}{{ {'k': [1, 'x']}|string }}",
        "{{ items|pprint }}{{ {'k': 'v'}|pprint }}",
        "{{ [1, 'a', [2]]|join('-') }}{{ '-'.join([1, 'a', [2]]) }}",
        "{{ 'aXbX'.replace('X', 'yy') }}{{ 'aXbX'.replace('X', 'yy', 1) }}",
    ] {
        assert_eq!(render(&limited, src).unwrap(), render(&plain, src).unwrap(), "{src}");
    }
    let too_large = [
        "{{ ('x' * 5000)|list|length }}",
        "{{ ('a ' * 5000)|split|length }}",
        "{{ ('a,' * 5000).split(',')|length }}",
        "{{ ('\n' * 5000).splitlines()|length }}",
        "{{ ('<' * 20000)|escape|length }}",
        r"{{ ['\\' * 40000]|string|length }}",
        r"{{ ['\\' * 40000]|pprint|length }}",
        "{{ ('x' * 200).join(range(1000))|length }}",
        "{{ ('x' * 200).replace('x', 'y' * 400)|length }}",
    ];
    for src in too_large {
        let e = render(&limited, src).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ValueTooLarge, "{src}: {e}");
        assert!(render(&plain, src).is_ok(), "{src} needs the limit to fail");
    }
}

#[test]
fn find_and_index_count_characters_in_both_modes() {
    let mut e = env(1 << 20);
    register_methods(&mut e, 1 << 20);
    let src = "{{ 'héllo'.find('l') }} {{ 'héllo'.rfind('l') }} {{ 'héllo'.find('l', -2) }} {{ 'héllo'.find('', 6) }} \
               {{ 'aé€bé'.index('é') }} {{ 'aé€bé'.rindex('é', 0, 4) }}";
    assert_eq!(render(&e, src).unwrap(), "2 3 3 -1 1 1");
    let err = render(&e, "{{ 'héllo'.index('z') }}").unwrap_err();
    assert!(err.to_string().contains("str.index: substring not found"), "{err}");
    let err = render(&e, "{{ 'héllo'.find(1) }}").unwrap_err();
    assert!(err.to_string().contains("the substring must be a string"), "{err}");
}

/// Everything a render holds it built, and what it builds in all is bounded (the build limit,
/// PATCHES.md item 24): values kept at once in variables, namespace attributes or macro frames
/// each fit the value limit, yet together pass the build limit. The count is the whole
/// render's, macros and includes included, and each render starts from zero.
#[test]
fn what_one_render_builds_in_all_is_bounded() {
    let mut env = env_with_methods(1 << 20);
    env.set_value_size_limit(Some(1 << 16));
    env.set_build_limit(Some(1 << 18));
    env.set_loader(|name| Ok((name == "keep.j2").then(|| "{% set kept = 'k' * y %}{{ kept|length }}".to_string())));
    let kept = |n: usize| -> String {
        (0..n).map(|i| format!("{{% set a{i} = 'x' * y %}}")).collect::<String>() + "{{ a0|length }}"
    };
    let wrap = |body: String| format!("{{% for y in [60000] %}}{body}{{% endfor %}}");
    // Three values of 60 kB: 180 kB built, under 256 kB.
    assert_eq!(render(&env, &wrap(kept(3))).unwrap(), "60000");
    for src in [
        wrap(kept(5)),
        wrap(
            "{% set ns = namespace() %}{% set ns.a = 'a' * y %}{% set ns.b = 'b' * y %}{% set ns.c = 'c' * y %}\
              {% set ns.d = 'd' * y %}{% set ns.e = 'e' * y %}"
                .to_string(),
        ),
        wrap(
            "{% macro r(n) %}{% set big = ('x' * y) ~ n %}{% if n %}{{ r(n - 1) }}{% endif %}{% endmacro %}{{ r(6) }}"
                .to_string(),
        ),
        wrap("{% for i in range(6) %}{% include 'keep.j2' %}{% endfor %}".to_string()),
    ] {
        let mut e = &render(&env, &src).unwrap_err();
        // An include's error wraps the one that stopped it.
        while let Some(inner) = std::error::Error::source(e).and_then(|s| s.downcast_ref::<Error>()) {
            e = inner;
        }
        assert_eq!(e.kind(), ErrorKind::BuildLimit, "{src}: {e}");
    }
    // A second render starts from nothing: the first one's count is not carried over.
    assert_eq!(render(&env, &wrap(kept(3))).unwrap(), "60000");
    // Without a value limit nothing is measured, so nothing is counted either.
    let mut unmeasured = env_with_methods(1 << 20);
    unmeasured.set_build_limit(Some(1 << 18));
    assert!(render(&unmeasured, &wrap(kept(5))).is_ok());
}
