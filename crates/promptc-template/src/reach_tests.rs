use std::collections::BTreeMap;

use super::*;

const WS: WhitespaceConfig = WhitespaceConfig { keep_trailing_newline: false, lstrip_blocks: true, trim_blocks: true };

fn file(rel: &str, text: &str) -> SourceFile {
    SourceFile::new(rel, rel, text)
}

/// Analyse `root` with the files `files` (path, text) readable.
fn run(root: &str, files: &[(&str, &str)]) -> Reach {
    let map: BTreeMap<String, SourceFile> = files.iter().map(|(r, t)| (r.to_string(), file(r, t))).collect();
    analyze(root, WS, &|name: &str| map.get(name).cloned())
}

fn names(r: &Reach) -> Vec<&str> {
    r.names.keys().map(String::as_str).collect()
}

#[test]
fn own_reads_are_own_and_locals_are_not_reads() {
    let r = run("{% set a = 1 %}{{ a }}{{ b }}{% for x in xs %}{{ x }}{{ loop.index }}{% endfor %}", &[]);
    assert_eq!(names(&r), ["b", "xs"]);
    assert_eq!(r.names["b"], Site::Own);
}

#[test]
fn include_reads_are_located_in_the_included_file() {
    let r = run("{% include 'part.j2' %}", &[("part.j2", "text {{ cwd }}")]);
    assert_eq!(r.names["cwd"], Site::File { rel: "part.j2".into(), start: 8, end: 11 });
    assert!(r.files.contains_key("part.j2"));
}

#[test]
fn include_sees_the_including_scope() {
    let part = ("part.j2", "{{ item }}{{ title }}{{ arg }}{{ other }}");
    let root = "{% set title = 'x' %}{% for item in items %}{% include 'part.j2' %}{% endfor %}\
                {% macro m(arg) %}{% include 'part.j2' %}{% endmacro %}\
                {% with other = 1 %}{% include 'part.j2' %}{% endwith %}";
    let r = run(root, &[part]);
    // Each name is defined around one of the includes and undefined around another.
    assert_eq!(names(&r), ["arg", "item", "items", "other"]);
    assert_eq!(r.names["items"], Site::Own);
}

#[test]
fn set_inside_an_included_file_stays_there() {
    let r = run("{% include 'a.j2' %}{{ from_a }}", &[("a.j2", "{% set from_a = 1 %}{{ from_a }}")]);
    assert_eq!(names(&r), ["from_a"]);
    assert_eq!(r.names["from_a"], Site::Own);
}

#[test]
fn imports_and_macros_are_followed() {
    let macros = ("m.j2", "{% macro box(t, w=width) %}{{ t }}{{ caller() }}{{ switches.cli_mode }}{% endmacro %}");
    let r = run("{% import 'm.j2' as m %}{% from 'm.j2' import box as b %}{{ m.box('x') }}{{ b('y') }}", &[macros]);
    assert_eq!(names(&r), ["switches", "width"]);
    assert!(r.switch_keys.contains("cli_mode"));
    assert!(matches!(r.names["width"], Site::File { .. }));
}

#[test]
fn nested_includes_extends_and_switch_items() {
    let r = run(
        "{% extends 'base.j2' %}{% block b %}{{ super() }}{% endblock %}",
        &[
            ("base.j2", "{% block b %}{% include 'deep.j2' %}{% endblock %}"),
            ("deep.j2", "{{ switches['web'] }}{{ d }}"),
        ],
    );
    assert!(r.switch_keys.contains("web"));
    assert_eq!(r.names["d"], Site::File { rel: "deep.j2".into(), start: 24, end: 25 });
}

#[test]
fn cycles_and_fan_out_end() {
    let r = run("{% include 'a.j2' %}", &[("a.j2", "{{ x }}{% include 'a.j2' %}")]);
    assert_eq!(names(&r), ["x"]);
    // Each file includes the next twice: 2^30 paths, cut at MAX_VISITS.
    let files: Vec<(String, String)> = (0..30)
        .map(|i| (format!("f{i}.j2"), format!("{{% include 'f{0}.j2' %}}{{% include 'f{0}.j2' %}}", i + 1)))
        .collect();
    let refs: Vec<(&str, &str)> = files.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let r = run("{% include 'f0.j2' %}", &refs);
    assert!(r.files.len() <= MAX_VISITS);
}

#[test]
fn non_literal_and_unreadable_includes_are_not_followed() {
    let r = run("{% include name ~ '.j2' %}{% include 'missing.j2' ignore missing %}", &[("x.j2", "{{ y }}")]);
    assert_eq!(names(&r), ["name"]);
    assert!(r.files.is_empty());
    // A list follows the first file that reads.
    let r = run("{% include ['missing.j2', 'x.j2'] %}", &[("x.j2", "{{ y }}")]);
    assert_eq!(names(&r), ["y"]);
}

#[test]
fn tool_names_tested_for_are_recorded_where_written() {
    let root = concat!(
        "{% if 'a' in tool_names %}{% endif %}{% if \"b\" not in tool_names %}{% endif %}",
        "{% for t in tools|selectattr('name', 'equalto', 'c') %}{% endfor %}",
        "{{ tools|rejectattr('name', 'in', ['d', 'e'])|list }}",
        "{{ tools|selectattr('toolset', 'equalto', 'files')|list }}",
        "{% include 'part.j2' %}",
        "{% set tool_names = ['x'] %}{% if 'local' in tool_names %}{% endif %}{% include 'part.j2' %}"
    );
    let r = run(root, &[("part.j2", "{% if 'f' in tool_names %}{% endif %}")]);
    let refs: Vec<(&str, Option<&str>)> = r.tool_refs.iter().map(|t| (t.name.as_str(), t.file.as_deref())).collect();
    assert_eq!(
        refs,
        [("a", None), ("b", None), ("c", None), ("d", None), ("e", None), ("f", Some("part.j2"))],
        "a toolset test and a local `tool_names` (in the file it includes too) are not tool names"
    );
    assert_eq!(&root[r.tool_refs[0].start..r.tool_refs[0].end], "'a'");
    assert_eq!(r.tool_refs[5].start, 6);
}

#[test]
fn tool_names_compared_in_loops_over_them_are_recorded() {
    let root = concat!(
        "{% for n in tool_names %}{% if n == 'a' %}{% endif %}{% endfor %}",
        "{% for t in tools %}{% if t.name != 'b' %}{% endif %}{% if 'c' == t.name %}{% endif %}{% endfor %}",
        "{% for n in items %}{% if n == 'not_a_tool' %}{% endif %}{% endfor %}",
        "{% for n in tool_names %}{% for n in items %}{% if n == 'shadowed' %}{% endif %}{% endfor %}{% endfor %}",
        "{% for t in tools %}{% if t.toolset == 'files' %}{% endif %}{% endfor %}"
    );
    let r = run(root, &[]);
    let refs: Vec<&str> = r.tool_refs.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(refs, ["a", "b", "c"]);
}
