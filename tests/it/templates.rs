//! Templates ported from an existing agent: `templates:` whitespace settings (`compat: jinja2`),
//! Python-style methods, switches as plain names, and what the load-time analysis sees through
//! includes (a dynamic variable read only in an included file makes its section dynamic).
//! `conformance/test_jinja2_corpus.py` compares a whole corpus with Python's Jinja2; these
//! tests hold the same promises without Python.

use crate::common;

use common::{ok, promptc_in};

const REACH: &str = "fixtures/good/include-reach";

/// A project in a fresh folder: `templates_key` (a line of YAML, or nothing) and one section
/// whose template includes a file.
fn project(templates_key: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let manifest = format!(
        "promptc: 1\nname: ws\ncontract_version: 1\n{templates_key}\nswitches:\n  on:\n    description: x\n    \
         default: true\nsections:\n  role:\n    template: t.j2\ntools: []\nprofiles:\n  standard:\n    sections: [role]\n"
    );
    std::fs::write(dir.path().join("promptc.yaml"), manifest).expect("write manifest");
    let template = "Intro line.\n{% include \"part.j2\" %}\nAfter the include.\n\n  {% if on %}\n  indented when \
                    on\n  {% endif %}\nDone.\n";
    std::fs::write(dir.path().join("t.j2"), template).expect("write template");
    std::fs::write(dir.path().join("part.j2"), "Included text.\n").expect("write part");
    dir
}

fn render(dir: &tempfile::TempDir) -> String {
    let out = promptc_in(dir.path(), &["render"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8")
}

/// What Python's Jinja2 3.1.6 renders for the template above (`Environment()`, then with
/// `trim_blocks=True, lstrip_blocks=True`), through promptc's section normalisation.
#[test]
fn compat_jinja2_keeps_lines_the_default_trims() {
    let jinja2 = "Intro line.\nIncluded text.\nAfter the include.\n\n  \n  indented when on\n  \nDone.\n";
    let trimmed = "Intro line.\nIncluded text.After the include.\n\n  indented when on\nDone.\n";
    assert_eq!(render(&project("templates: {compat: jinja2}")), jinja2);
    assert_eq!(render(&project("")), trimmed, "the default is unchanged");
    // Each setting on its own: trim_blocks off alone keeps the include's newline.
    let mixed = render(&project("templates: {trim_blocks: false}"));
    assert!(mixed.starts_with("Intro line.\nIncluded text.\nAfter the include.\n"), "{mixed}");
    // A setting given with `compat` overrides it.
    assert_eq!(render(&project("templates: {compat: jinja2, trim_blocks: true, lstrip_blocks: true}")), trimmed);
}

#[test]
fn switches_are_plain_names_and_methods_work() {
    let on = ok(&["-C", REACH, "render"]);
    assert!(on.contains("Answer in plain text suited to a terminal."), "{on}");
    // `d.items()`, `s.upper()`, `s.startswith()`; `+%}` keeps the newline after the tag.
    assert!(on.contains("- EDITOR: vim (a v-word)\n- INDENT: 4\n"), "{on}");
    let off = ok(&["-C", REACH, "render", "--set", "cli_mode=false"]);
    assert!(!off.contains("Answer in plain text"), "{off}");
}

#[test]
fn a_dynamic_variable_read_through_an_include_makes_the_section_dynamic() {
    let report: serde_json::Value =
        serde_json::from_str(&ok(&["-C", REACH, "report", "--format", "json"])).expect("report JSON");
    let account = &report["accounts"][0];
    let dynamic: Vec<(&str, bool)> = account["sections"]
        .as_array()
        .expect("sections")
        .iter()
        .map(|s| (s["id"].as_str().unwrap_or_default(), s["dynamic"].as_bool().unwrap_or_default()))
        .collect();
    assert_eq!(dynamic, [("role", false), ("environment", true), ("closing", false)]);
    assert_eq!(account["cache"]["ends_at"], "environment", "{account:#}");
    assert_eq!(account["cache"]["breakpoint_after"], "role", "{account:#}");
}

/// Python-style methods that can amplify text are size-checked like the filters.
#[test]
fn amplifying_methods_are_capped() {
    let dir = tempfile::tempdir().expect("temp dir");
    let manifest = "promptc: 1\nname: m\ncontract_version: 1\nsections:\n  role:\n    text: \"{{ 'abc'.replace('', \
                    'x' * 3000000) }}{{ ('y' * 100000).join(['a'] * 100) }}\"\ntools: []\nprofiles:\n  standard:\n    \
                    sections: [role]\n";
    std::fs::write(dir.path().join("promptc.yaml"), manifest).expect("write manifest");
    let out = promptc_in(dir.path(), &["render"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("the template builds a value larger than 8388608 bytes: the result of `str.replace` would be"),
        "{err}"
    );
}

/// A project in a fresh folder from a manifest and its files.
fn project_of(manifest: &str, files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("promptc.yaml"), manifest).expect("write manifest");
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("folder");
        std::fs::write(path, text).expect("write file");
    }
    dir
}

/// A manifest with `templates_key`, variables `v` (default null) and `cfg` (a map), and one
/// section rendering `t.j2`.
fn one_section(templates_key: &str) -> String {
    format!(
        "promptc: 1\nname: j\ncontract_version: 1\n{templates_key}\nassembly: {{trim: false, final_newline: false}}\n\
         variables:\n  v: {{description: x, default: null}}\n  cfg: {{description: x, default: {{k: 1}}}}\n\
         sections:\n  role: {{template: t.j2}}\ntools: []\nprofiles:\n  standard: {{sections: [role]}}\n"
    )
}

/// Jinja2 3.1.6's output for each template (checked with Python: `Environment()` and
/// `render(v=None, cfg={'k': 1})`).
#[test]
fn compat_jinja2_has_jinja2_semantics() {
    let cases: &[(&str, &str)] = &[
        ("[{{ cfg.missing }}] {{ cfg.missing is defined }} {{ cfg.missing | default('d') }}", "[] False d"),
        ("{% if cfg.missing %}yes{% else %}no{% endif %}", "no"),
        ("{{ v }} {{ v is none }} {{ [v, true, 1.0, 'a'] }} {{ cfg }}", "None True [None, True, 1.0, 'a'] {'k': 1}"),
        ("{{ {'b': 1, 'a': '<&>'} | tojson }}", r#"{"a": "\u003c\u0026\u003e", "b": 1}"#),
        ("{{ cfg | dictsort }} {{ cfg.items() | list }}", "[('k', 1)] [('k', 1)]"),
        ("[{{ 'ab' | center(6) }}] {{ 'hello world' | truncate(9, leeway=0) }}", "[  ab  ] hello..."),
        ("{{ 'a bb ccc dddd' | wordwrap(6) }}", "a bb\nccc\ndddd"),
        ("{{ [{'n': 2}, {'n': 3}] | sum(attribute='n') }} {{ 2.5 | round }} {{ '3.7' | int }}", "5 2.0 3"),
        ("{% for x in 'ab' | list %}{{ loop.previtem }}|{{ x }}|{{ loop.nextitem }};{% endfor %}", "|a|b;a|b|;"),
        ("{% include ['missing.j2', 'part.j2'] %}+{% include 'nope.j2' ignore missing %}+", "part++"),
        ("{% set c = cycler('x', 'y') %}{{ c.next() }}{{ c.next() }}{{ c.next() }}{{ c.current }}", "xyxy"),
        ("line one\r\nline two\r\n", "line one\nline two"),
    ];
    for (template, jinja2) in cases {
        let dir = project_of(&one_section("templates: {compat: jinja2}"), &[("t.j2", template), ("part.j2", "part")]);
        let out = promptc_in(dir.path(), &["render"]);
        assert_eq!(out.status.code(), Some(0), "{template}: {}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(String::from_utf8_lossy(&out.stdout), *jinja2, "{template}");
    }
}

#[test]
fn undefined_strict_brings_back_the_errors_and_the_default_mode_is_unchanged() {
    let strict = project_of(&one_section("templates: {compat: jinja2, undefined: strict}"), &[("t.j2", "{{ cfg.x }}")]);
    let out = promptc_in(strict.path(), &["render"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("t.j2:1:4"), "{}", String::from_utf8_lossy(&out.stderr));
    // Without compat: null is the empty string, a map prints as minijinja prints it (`{"k": None}`).
    let default = project_of(&one_section(""), &[("t.j2", "[{{ v }}] {{ none }} {{ {'k': none} }}")]);
    let out = promptc_in(default.path(), &["render"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(String::from_utf8_lossy(&out.stdout), r#"[] None {"k": None}"#, "{stderr}");
    // An undeclared name is a located warning in lenient mode, and renders as nothing.
    let lenient = project_of(&one_section("templates: {compat: jinja2}"), &[("t.j2", "[{{ nowhere }}]")]);
    let out = promptc_in(lenient.path(), &["render"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "[]");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning: template `t.j2` uses undefined variable `nowhere`") && stderr.contains("t.j2:1:5"),
        "{stderr}"
    );
}

/// An upstream `prompts/` folder used unchanged through `templates.path`: byte for byte what
/// Jinja2's `FileSystemLoader("prompts")` renders (`expected/`, written by Jinja2 3.1.6 and kept
/// true by `conformance/test_jinja2_corpus.py`).
#[test]
fn a_vendored_prompts_folder_renders_through_the_search_path_as_jinja2() {
    let root = common::repo().join("fixtures/good/jinja2-search-path");
    for profile in ["short", "long"] {
        let expected = std::fs::read_to_string(root.join(format!("expected/{profile}.txt"))).expect("expected text");
        let out = promptc_in(&root, &["render", "--profile", profile]);
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(String::from_utf8_lossy(&out.stdout), expected, "{profile}");
    }
}

#[test]
fn the_search_path_is_searched_in_order_and_stays_inside_its_folders() {
    let manifest = |path: &str| {
        format!(
            "promptc: 1\nname: p\ncontract_version: 1\ntemplates: {{path: {path}}}\nsections:\n  role: {{template: \
             t.j2}}\ntools: []\nprofiles:\n  standard: {{sections: [role]}}\n"
        )
    };
    let files: &[(&str, &str)] = &[
        ("t.j2", "{% include 'x.j2' %}"),
        ("a/x.j2", "from a"),
        ("b/x.j2", "from b"),
        ("b/y.j2", "{% include '../t.j2' %}"),
    ];
    let dir = project_of(&manifest("[a, b]"), files);
    assert_eq!(common::ok(&["-C", dir.path().to_str().unwrap(), "render"]), "from a\n");
    let dir = project_of(&manifest("[b, a]"), files);
    assert_eq!(common::ok(&["-C", dir.path().to_str().unwrap(), "render"]), "from b\n");
    // `..` does not climb out of a search folder, even to a file of the project.
    let files: &[(&str, &str)] = &[("t.j2", "{% include 'y.j2' %}"), ("b/y.j2", "{% include '../t.j2' %}")];
    let dir = project_of(&manifest("[b]"), files);
    let out = promptc_in(dir.path(), &["render"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("`../t.j2` climbs out of the template search path") && stderr.contains("y.j2:1:"),
        "{stderr}"
    );
}

/// `merge: keys` and `merge: deep`: a context file and a case give only the keys they change.
#[test]
fn map_variables_keep_the_defaults_of_the_keys_not_given() {
    let project = "fixtures/good/map-variables";
    let defaults = ok(&["-C", project, "render"]);
    assert_eq!(
        defaults,
        "Working directory: /workspace (linux)\nHosts: app=8000 docs=8001 \nTime: 30 minutes, 100000 tokens\nRules: Be \
         concise.\n"
    );
    // `keys`: `hosts` given is replaced whole; `deep`: `time.minutes` keeps its default beside
    // `time.hard`; a variable without `merge:` is replaced.
    let context = ok(&["-C", project, "render", "--context", "fixtures/good/map-variables/context.yaml"]);
    assert_eq!(
        context,
        "Working directory: /srv/app (linux)\nHosts: app=9000 \nTime: 30 minutes (hard), 100000 tokens\nRules: Ask \
         first.\n"
    );
    let dir = tempfile::tempdir().expect("temp dir");
    ok(&["-C", project, "snapshot", "--dir", dir.path().to_str().expect("utf-8 path")]);
    let windows = std::fs::read_to_string(dir.path().join("standard.windows.native.prompt.md")).expect("case prompt");
    assert!(windows.starts_with("Working directory: /workspace (windows)\n"), "{windows}");
    assert!(windows.contains("Time: 60 minutes, 100000 tokens"), "{windows}");
}

/// A value built of shared parts prints as far more text than it holds. The engine counts a
/// shared part every time it appears, as printing it would, so such a value is refused where it
/// is built, whatever is done with it after (printing it, `string`, `tojson`, `pprint`, `join`):
/// a located error, before any of the text exists.
#[test]
fn jinja2_printing_of_shared_values_is_capped() {
    // 4^5 copies of 16 bytes: 16 KiB of text from a few hundred bytes, within what the static
    // growth check allows, over a 1 KiB limit.
    let nest = "{% set s = 'xxxxxxxxxxxxxxxx' %}{% set a = [s, s, s, s] %}{% set a = [a, a, a, a] %}{% set a = [a, a, \
                a, a] %}{% set a = [a, a, a, a] %}{% set a = [a, a, a, a] %}";
    let manifest = one_section("templates: {compat: jinja2}\nlimits: {section_bytes: 1024, prompt_bytes: 1024}");
    for use_ in ["{{ a }}", "{{ a | string }}", "{{ a | tojson }}", "{{ a | pprint }}", "{{ [a, a] | join }}"] {
        let dir = project_of(&manifest, &[("t.j2", &format!("{nest}\n{use_}"))]);
        let out = promptc_in(dir.path(), &["render"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{use_}: {stderr}");
        assert!(stderr.contains("the template builds a value larger than 1024 bytes"), "{use_}: {stderr}");
        assert!(stderr.contains("--> t.j2:1:"), "{use_}: {stderr}");
    }
}

#[test]
fn guidance_keeps_its_final_newline_under_verbatim_descriptions_and_untrimmed_assembly() {
    let manifest = |mode: &str| {
        format!(
            "promptc: 1\nname: g\ncontract_version: 1\ndescriptions: {mode}\nassembly: {{trim: false, final_newline: \
             false}}\nsections:\n  guidance: {{generate: tool_guidance}}\ntools: [tools.yaml]\nprofiles:\n  \
             standard: {{sections: [guidance], tools: [run]}}\n"
        )
    };
    let tools = "- name: run\n  toolset: t\n  description: Run a command.\n  guidance: \"Prefer short commands.\\n\"\n";
    let verbatim = project_of(&manifest("verbatim"), &[("tools.yaml", tools)]);
    assert_eq!(render(&verbatim), "Prefer short commands.\n", "verbatim: the guidance as written");
    let trimmed = project_of(&manifest("trim"), &[("tools.yaml", tools)]);
    assert_eq!(render(&trimmed), "Prefer short commands.", "trim (the default): its whitespace dropped");
}

#[test]
fn a_name_listed_optional_may_be_guarded_with_is_defined_but_not_read_unguarded() {
    let manifest = |optional: &str| {
        format!(
            "promptc: 1\nname: o\ncontract_version: 1\n{optional}\nsections:\n  role: {{template: t.j2}}\ntools: []\n\
             profiles:\n  standard: {{sections: [role]}}\n"
        )
    };
    // SWE-agent's templates test `command_docs`, which only its harness sets.
    let guarded = "Intro.{% if command_docs is defined %}\n{{ command_docs }}{% endif %}\n";
    let refused = project_of(&manifest(""), &[("t.j2", guarded)]);
    let out = promptc_in(refused.path(), &["render"]);
    assert_eq!(out.status.code(), Some(2), "an undeclared name is an error at load");
    let listed = project_of(&manifest("templates: {optional: [command_docs]}"), &[("t.j2", guarded)]);
    assert_eq!(render(&listed), "Intro.\n", "the guard is false: nothing sets the name");
    let unguarded = project_of(&manifest("templates: {optional: [command_docs]}"), &[("t.j2", "{{ command_docs }}\n")]);
    let out = promptc_in(unguarded.path(), &["render"]);
    assert_eq!(out.status.code(), Some(2), "read unguarded, it is undefined when rendered");
    assert!(String::from_utf8_lossy(&out.stderr).contains("t.j2:1:4"), "located at the read");
}

#[test]
fn each_join_point_takes_its_own_separator_and_defaults_to_the_sections_one() {
    let manifest = |separators: &str| {
        format!(
            "promptc: 1\nname: s\ncontract_version: 1\nassembly: {{separator: \"\\n---\\n\"{separators}}}\n\
             sections:\n  \
             role: {{text: Role.}}\n  guidance: {{generate: tool_guidance}}\ntools: [tools.yaml]\nprofiles:\n  \
             standard: {{sections: [role, guidance], tools: [a, b]}}\n"
        )
    };
    let tools = "- {name: a, toolset: t, description: A., guidance: Use a.}\n\
                 - {name: b, toolset: t, description: B., guidance: Use b.}\n";
    let default = project_of(&manifest(""), &[("tools.yaml", tools)]);
    assert_eq!(render(&default), "Role.\n---\nUse a.\n---\nUse b.\n", "every join takes `separator`");
    let own = project_of(&manifest(", separators: {tool_guidance: \"\\n\"}"), &[("tools.yaml", tools)]);
    assert_eq!(render(&own), "Role.\n---\nUse a.\nUse b.\n", "the guidance joined with its own separator");
}
