//! The bad-input corpus: every project under `fixtures/bad/<case>/` breaks exactly one rule,
//! and a few command-line cases misuse a valid project (`fixtures/good/minimal/`). Each case
//! must fail the way the CLI promises: exit code 2, nothing on stdout, a rustc-style
//! diagnostic on stderr with the expected message and (where the problem lives in a file)
//! the exact `file:line:col`, and never a panic. The full stderr of every case is an insta
//! snapshot (`tests/it/snapshots/it__bad_input__<case>.snap`) so message quality gets reviewed.
//!
//! The binary runs from the repository root with relative `-C` paths, so the paths in the
//! snapshots are the same on every machine.

use crate::common;

use common::repo;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A hang guard: every case, hostile ones (alias bomb, deep nesting, endless template loop)
/// included, ends on its own by the work bounds the cases assert; this only turns a hang into a
/// failure instead of a stuck suite.
const TIMEOUT: Duration = common::HANG_GUARD;

/// One bad-input case.
struct Case {
    /// Case name: the fixture folder under `fixtures/bad/` and the snapshot name.
    name: &'static str,
    /// The project passed to `-C`, relative to the repository root.
    project: &'static str,
    /// Extra arguments after `render`, or a subcommand and its arguments (see `split_command`).
    args: &'static [&'static str],
    /// A substring of the first diagnostic's message line.
    message: &'static str,
    /// The exact `file:line:col` of the first diagnostic; `None` for errors that have no
    /// file (command-line mistakes): then stderr must not contain a `-->` line at all.
    location: Option<&'static str>,
    /// More substrings stderr must contain (help lines, notes).
    also: &'static [&'static str],
}

const fn case(
    name: &'static str,
    project: &'static str,
    args: &'static [&'static str],
    message: &'static str,
    location: Option<&'static str>,
    also: &'static [&'static str],
) -> Case {
    Case { name, project, args, message, location, also }
}

/// Defines `CASES` and one `#[test]` per case.
macro_rules! cases {
    ($($test:ident => $case:expr;)*) => {
        const CASES: &[Case] = &[$($case),*];
        $(
            #[test]
            fn $test() {
                check(&$case);
            }
        )*
    };
}

const MINIMAL: &str = "fixtures/good/minimal";
/// A valid project using every agent-composition feature (slots, contributions, guidance,
/// untrusted content, a sub-agent, a command, the json transport).
const COMPOSITION: &str = "fixtures/good/composition";

cases! {
    // --- YAML shape -------------------------------------------------------------------
    malformed_yaml => case("malformed-yaml", "fixtures/bad/malformed-yaml", &[],
        "mapping values are not allowed in this context",
        Some("fixtures/bad/malformed-yaml/promptc.yaml:2:10"), &[]);
    unknown_key_manifest => case("unknown-key-manifest", "fixtures/bad/unknown-key-manifest", &[],
        "unknown field `strict_tool`",
        Some("fixtures/bad/unknown-key-manifest/promptc.yaml:4:1"), &["strict_tools"]);
    unknown_key_section => case("unknown-key-section", "fixtures/bad/unknown-key-section", &[],
        "unknown field `condition`",
        Some("fixtures/bad/unknown-key-section/promptc.yaml:17:5"), &[]);
    // A profile allows a key named `budget`: the message names the unknown key, not a limit.
    unknown_key_profile => case("unknown-key-profile", "fixtures/bad/unknown-key-profile", &[],
        "unknown field `sectons`",
        Some("fixtures/bad/unknown-key-profile/promptc.yaml:28:5"), &["did you mean `sections`?"]);
    // The tools of a file that does not load are unknown: references to them are not checked.
    tool_file_fails_to_load => case("tool-file-fails-to-load", "fixtures/bad/tool-file-fails-to-load", &[],
        "missing required key `toolset` in tool `browser_action`",
        Some("fixtures/bad/tool-file-fails-to-load/tools/browser.yaml:1:3"), &["was not checked: a tool file did not load"]);
    unknown_key_tool => case("unknown-key-tool", "fixtures/bad/unknown-key-tool", &[],
        "unknown field `parameter`",
        Some("fixtures/bad/unknown-key-tool/tools.yaml:4:3"), &["parameters"]);
    wrong_type => case("wrong-type", "fixtures/bad/wrong-type", &[],
        "invalid value `abc` for `contract_version`: expected a whole number of 0 or more",
        Some("fixtures/bad/wrong-type/promptc.yaml:3:19"), &[]);
    duplicate_yaml_key => case("duplicate-yaml-key", "fixtures/bad/duplicate-yaml-key", &[],
        "duplicate mapping key `name`",
        Some("fixtures/bad/duplicate-yaml-key/promptc.yaml:4:1"), &[]);
    // serde reports a missing key at the mapping's last key: the error points at where the
    // mapping starts (here the document's first key) and says what the key is for.
    missing_required_key => case("missing-required-key", "fixtures/bad/missing-required-key", &[],
        "missing required key `name`",
        Some("fixtures/bad/missing-required-key/promptc.yaml:1:1"), &["add `name:` to the top level of the file (the project's name)"]);
    unclosed_quote => case("yaml-unclosed-quote", "fixtures/bad/yaml-unclosed-quote", &[],
        "this quote is never closed",
        Some("fixtures/bad/yaml-unclosed-quote/promptc.yaml:14:18"), &["runs on to the next `\"` (line 40, column 18)"]);
    wrong_type_name => case("wrong-type-name", "fixtures/bad/wrong-type-name", &[],
        "unknown parameter type `str`",
        Some("fixtures/bad/wrong-type-name/tools/files.yaml:6:13"),
        &["did you mean `string`? the types are string, integer, number, boolean, array, object"]);
    expected_list_found_string => case("expected-list-found-string", "fixtures/bad/expected-list-found-string", &[],
        "expected a list (`- item` lines or `[a, b]`) for `sections`, found the string `role`",
        Some("fixtures/bad/expected-list-found-string/promptc.yaml:40:15"), &["`sections: [role]`"]);
    unsupported_format_version => case("unsupported-format-version", "fixtures/bad/unsupported-format-version", &[],
        "unsupported project format version 2",
        Some("fixtures/bad/unsupported-format-version/promptc.yaml:1:10"), &["promptc: 1"]);

    // --- hostile YAML ---------------------------------------------------------------------
    alias_bomb => case("alias-bomb", "fixtures/bad/alias-bomb", &[],
        "YAML aliases expand to too much data",
        Some("fixtures/bad/alias-bomb/promptc.yaml:22:29"), &[]);
    // 1000 levels: the parser's recursion limit fires before the depth budget.
    deep_nesting => case("deep-nesting", "fixtures/bad/deep-nesting", &[],
        "YAML is nested too deeply (more than 48 levels)",
        Some("fixtures/bad/deep-nesting/promptc.yaml:14:269"), &[]);
    // 60 levels: the depth budget (48) fires.
    deep_nesting_over_budget => case("deep-nesting-over-budget", "fixtures/bad/deep-nesting-over-budget", &[],
        "YAML is nested too deeply (more than 48 levels)",
        Some("fixtures/bad/deep-nesting-over-budget/promptc.yaml:14:59"), &[]);

    // --- names and references -------------------------------------------------------------
    duplicate_tool_name => case("duplicate-tool-name", "fixtures/bad/duplicate-tool-name", &[],
        "duplicate tool name `read_file`",
        Some("fixtures/bad/duplicate-tool-name/more_tools.yaml:5:9"),
        &["first declared at fixtures/bad/duplicate-tool-name/tools.yaml:1:9"]);
    unknown_tool_in_profile => case("unknown-tool-in-profile", "fixtures/bad/unknown-tool-in-profile", &[],
        "unknown tool `read_fiel` in profile `lite`",
        Some("fixtures/bad/unknown-tool-in-profile/promptc.yaml:29:13"), &["did you mean `read_file`?"]);
    unknown_toolset_in_profile => case("unknown-toolset-in-profile", "fixtures/bad/unknown-toolset-in-profile", &[],
        "unknown toolset `file` in profile `standard`",
        Some("fixtures/bad/unknown-toolset-in-profile/promptc.yaml:26:16"), &["did you mean `files`?"]);
    unknown_section_in_profile => case("unknown-section-in-profile", "fixtures/bad/unknown-section-in-profile", &[],
        "unknown section `rules` in profile `lite`",
        Some("fixtures/bad/unknown-section-in-profile/promptc.yaml:28:22"), &["known sections: role, environment"]);
    unknown_default_profile => case("unknown-default-profile", "fixtures/bad/unknown-default-profile", &[],
        "unknown profile `standrad` in defaults.profile",
        Some("fixtures/bad/unknown-default-profile/promptc.yaml:6:12"), &["did you mean `standard`?"]);
    unknown_switch_in_when => case("unknown-switch-in-when", "fixtures/bad/unknown-switch-in-when", &[],
        "unknown switch `brwoser` in `when: brwoser`",
        Some("fixtures/bad/unknown-switch-in-when/promptc.yaml:17:11"),
        &["did you mean `browser`? known switches: browser"]);
    bad_when_expression => case("bad-when-expression", "fixtures/bad/bad-when-expression", &[],
        "invalid switch expression `browser &`: expected `&&`",
        Some("fixtures/bad/bad-when-expression/promptc.yaml:17:20"), &[]);
    profile_named_native => case("profile-named-native", "fixtures/bad/profile-named-native", &[],
        "`native` cannot be a profile name",
        Some("fixtures/bad/profile-named-native/promptc.yaml:27:3"), &[]);
    profile_named_xml => case("profile-named-xml", "fixtures/bad/profile-named-xml", &[],
        "`xml` cannot be a profile name",
        Some("fixtures/bad/profile-named-xml/promptc.yaml:27:3"), &[]);
    profile_named_openai => case("profile-named-openai", "fixtures/bad/profile-named-openai", &[],
        "`openai` cannot be a profile name",
        Some("fixtures/bad/profile-named-openai/promptc.yaml:27:3"), &[]);
    variable_shadows_builtin => case("variable-shadows-builtin", "fixtures/bad/variable-shadows-builtin", &[],
        "variable `tools` would hide the built-in template value",
        Some("fixtures/bad/variable-shadows-builtin/promptc.yaml:13:3"), &[]);

    // --- sections and templates ---------------------------------------------------------------
    section_without_source => case("section-without-source", "fixtures/bad/section-without-source", &[],
        "section `environment` must have exactly one of `template`, `text`, `generate` or `slot`",
        Some("fixtures/bad/section-without-source/promptc.yaml:17:3"), &[]);
    unknown_generator => case("unknown-generator", "fixtures/bad/unknown-generator", &[],
        "unknown generator `tool_doc`",
        Some("fixtures/bad/unknown-generator/promptc.yaml:18:15"),
        &["did you mean `tool_docs`? known generators: tool_docs, tool_guidance, action_schema"]);
    missing_section_file => case("missing-section-file", "fixtures/bad/missing-section-file", &[],
        "cannot read `fixtures/bad/missing-section-file/sections/role.md.j2`: no such file",
        Some("fixtures/bad/missing-section-file/promptc.yaml:16:15"), &[]);
    missing_tool_file => case("missing-tool-file", "fixtures/bad/missing-tool-file", &[],
        "cannot read `fixtures/bad/missing-tool-file/tools/files.yaml`: no such file",
        Some("fixtures/bad/missing-tool-file/promptc.yaml:21:5"), &[]);
    absolute_path => case("absolute-path", "fixtures/bad/absolute-path", &[],
        "invalid path `/etc/tools.yaml`: absolute paths are not allowed",
        Some("fixtures/bad/absolute-path/promptc.yaml:21:5"), &[]);
    non_utf8_template => case("non-utf8-template", "fixtures/bad/non-utf8-template", &[],
        "`fixtures/bad/non-utf8-template/role.md.j2` is not valid UTF-8",
        Some("fixtures/bad/non-utf8-template/role.md.j2:2:4"), &["invalid byte here"]);
    template_undefined_variable => case("template-undefined-variable", "fixtures/bad/template-undefined-variable", &[],
        "template `role.md.j2` uses undefined variable `workspace`",
        Some("fixtures/bad/template-undefined-variable/role.md.j2:1:62"), &[]);
    // Names set before the include and loop variables around it are defined in the included
    // file; one that nothing defines is reported there, at the name.
    include_undefined_variable => case("include-undefined-variable", "fixtures/bad/include-undefined-variable", &[],
        "`parts/env.j2`, included by template `role.md.j2`, uses undefined variable `shell_name`",
        Some("fixtures/bad/include-undefined-variable/parts/env.j2:3:11"), &["define it before the include"]);
    templates_compat_unknown => case("templates-compat-unknown", "fixtures/bad/templates-compat-unknown", &[],
        "unknown `templates.compat` value `jinja3`",
        Some("fixtures/bad/templates-compat-unknown/promptc.yaml:7:11"), &["`jinja2`"]);
    templates_undefined_unknown => case("templates-undefined-unknown", "fixtures/bad/templates-undefined-unknown", &[],
        "unknown `templates.undefined` value `silent`",
        Some("fixtures/bad/templates-undefined-unknown/promptc.yaml:7:14"), &["`lenient`"]);
    templates_path_outside => case("templates-path-outside", "fixtures/bad/templates-path-outside", &[],
        "invalid template folder `../shared`: the path leaves the project folder",
        Some("fixtures/bad/templates-path-outside/promptc.yaml:8:19"), &["a folder of the project"]);
    templates_path_missing => case("templates-path-missing", "fixtures/bad/templates-path-missing", &[],
        "template folder `prompt` is not a folder inside the project",
        Some("fixtures/bad/templates-path-missing/promptc.yaml:7:10"), &["create it"]);
    templates_path_empty => case("templates-path-empty", "fixtures/bad/templates-path-empty", &[],
        "`templates.path` lists no folder", Some("fixtures/bad/templates-path-empty/promptc.yaml:7:9"), &[]);
    templates_path_climbs => case("templates-path-climbs", "fixtures/bad/templates-path-climbs", &[],
        "cannot include `../secrets.txt`: `../secrets.txt` climbs out of the template search path",
        Some("fixtures/bad/templates-path-climbs/prompts/role.j2:2:4"), &["`templates.path` (prompts)"]);
    undefined_map_key => case("undefined-map-key", "fixtures/bad/undefined-map-key", &[],
        "undefined variable in template", Some("fixtures/bad/undefined-map-key/promptc.yaml:14:68"),
        &["`runtime.python_version` reads a key or attribute the value does not have"]);
    variable_merge_not_a_map => case("variable-merge-not-a-map", "fixtures/bad/variable-merge-not-a-map", &[],
        "variable `cwd` merges `keys` but its default is not a map",
        Some("fixtures/bad/variable-merge-not-a-map/promptc.yaml:10:12"), &["give it a map default"]);
    variable_merge_unknown => case("variable-merge-unknown", "fixtures/bad/variable-merge-unknown", &[],
        "unknown merge rule `update` for variable `runtime`",
        Some("fixtures/bad/variable-merge-unknown/promptc.yaml:10:12"), &["replace, keys, deep"]);
    case_merge_not_a_map => case("case-merge-not-a-map", "fixtures/bad/case-merge-not-a-map", &[],
        "invalid value for variable `runtime` in case `srv`: it merges into its default key by key",
        Some("fixtures/bad/case-merge-not-a-map/promptc.yaml:16:7"), &[]);
    context_merge_not_a_map => case("context-merge-not-a-map", "fixtures/good/map-variables",
        &["--context", "fixtures/bad/context-merge-not-a-map.yaml"],
        "invalid value for variable `runtime` in context file: it merges into its default key by key",
        Some("fixtures/bad/context-merge-not-a-map.yaml:2:3"), &["its default has: working_dir, os, hosts"]);
    include_missing => case("include-missing", "fixtures/bad/include-missing", &[],
        "cannot include template: tried to include non-existing template \"parts/rules.j2\"",
        Some("fixtures/bad/include-missing/role.j2:2:4"), &["relative to the project folder"]);
    jinja2_include_reads_loop => case("jinja2-include-reads-loop", "fixtures/bad/jinja2-include-reads-loop", &[],
        "`rule.j2` reads `loop`, which Jinja2 does not pass to an included file",
        Some("fixtures/bad/jinja2-include-reads-loop/role.j2:2:24"), &["{% set index = loop.index %}"]);
    jinja2_import_without_context => case("jinja2-import-without-context",
        "fixtures/bad/jinja2-import-without-context", &[],
        "`parts/sign.j2` is pulled in without the context, and reads `team` from it",
        Some("fixtures/bad/jinja2-import-without-context/role.j2:2:1"), &["add `with context`"]);
    jinja2_macro_varargs => case("jinja2-macro-varargs", "fixtures/bad/jinja2-macro-varargs", &[],
        "uses undefined variable `varargs`: Jinja2 gives `varargs` to a macro",
        Some("fixtures/bad/jinja2-macro-varargs/promptc.yaml:11:54"), &["declare every parameter the macro takes"]);
    jinja2_pprint_wide => case("jinja2-pprint-wide", "fixtures/bad/jinja2-pprint-wide", &[],
        "pprint of a value 89 characters long",
        Some("fixtures/bad/jinja2-pprint-wide/promptc.yaml:17:31"), &["tojson(indent=2)"]);
    untrusted_in_include => case("untrusted-in-include", "fixtures/bad/untrusted-in-include", &[],
        "filter `upper` would change untrusted text from `rules` and break its wrapper",
        Some("fixtures/bad/untrusted-in-include/parts/rules_body.j2:2:12"), &[]);
    untrusted_namespace_attribute => case("untrusted-namespace-attribute",
        "fixtures/bad/untrusted-namespace-attribute", &[],
        "slicing untrusted text from `ns.v` cuts it out of its wrapper",
        Some("fixtures/bad/untrusted-namespace-attribute/rules.md.j2:3:6"), &[]);
    // An inline block scalar whose `|` carries a comment and whose text starts with a blank
    // line: the render error is on the line of the failing call.
    inline_template_runtime_error => case("inline-template-runtime-error", "fixtures/bad/inline-template-runtime-error",
        &[], "string has no method named center",
        Some("fixtures/bad/inline-template-runtime-error/promptc.yaml:18:23"), &[]);
    layout_undefined_variable => case("layout-undefined-variable", "fixtures/bad/layout-undefined-variable", &[],
        "template `layout.md.j2` uses undefined variable `footer`",
        Some("fixtures/bad/layout-undefined-variable/layout.md.j2:3:4"), &[]);
    // An unclosed block is reported at the tag that opened it, not where the input ends.
    template_syntax_error => case("template-syntax-error", "fixtures/bad/template-syntax-error", &[],
        "template syntax error: `{% if %}` is never closed",
        Some("fixtures/bad/template-syntax-error/role.md.j2:2:1"), &["add `{% endif %}`"]);
    template_unclosed_expression => case("template-unclosed-expression", "fixtures/bad/template-unclosed-expression", &[],
        "template syntax error: this `{{` is never closed",
        Some("fixtures/bad/template-unclosed-expression/sections/role.md.j2:1:66"), &["`{{ profile }}`"]);
    template_misspelt_statement => case("template-misspelt-statement", "fixtures/bad/template-misspelt-statement", &[],
        "template syntax error: unknown template statement `edif`",
        Some("fixtures/bad/template-misspelt-statement/sections/role.md.j2:4:4"),
        &["did you mean `endif`", "the block open here is `{% if %}` (line 2)"]);
    template_stray_end_tag => case("template-stray-end-tag", "fixtures/bad/template-stray-end-tag", &[],
        "template syntax error: `{% endfor %}` ends no block: the block open here is `{% if %}` (line 2)",
        Some("fixtures/bad/template-stray-end-tag/sections/role.md.j2:4:4"), &["end it with `{% endif %}`"]);
    template_else_if => case("template-else-if", "fixtures/bad/template-else-if", &[],
        "template syntax error: `{% else if %}` is not a template statement",
        Some("fixtures/bad/template-else-if/sections/role.md.j2:4:4"), &["write `{% elif … %}`"]);
    // Inline in promptc.yaml: located there, and the open block's line is the file's.
    inline_template_misspelt_statement => case("inline-template-misspelt-statement",
        "fixtures/bad/inline-template-misspelt-statement", &[],
        "template syntax error: unknown template statement `endfi`",
        Some("fixtures/bad/inline-template-misspelt-statement/promptc.yaml:29:10"),
        &["did you mean `endif`", "the block open here is `{% if %}` (line 27)"]);
    undeclared_switch => case("undeclared-switch", "fixtures/bad/undeclared-switch", &[],
        "switch `browsr` is not declared",
        Some("fixtures/bad/undeclared-switch/sections/role.md.j2:2:16"),
        &["declare it under `switches:`", "did you mean `browser`?"]);
    include_escapes_project => case("include-escapes-project", "fixtures/bad/include-escapes-project/project", &[],
        "cannot include `../outside.md`: invalid path `../outside.md`: the path leaves the project folder",
        Some("fixtures/bad/include-escapes-project/project/role.md.j2:2:4"), &[]);
    template_include_loop => case("template-include-loop", "fixtures/bad/template-include-loop", &[],
        "template error: recursion limit exceeded",
        Some("fixtures/bad/template-include-loop/a.md.j2:1:6"), &["includes itself"]);
    template_endless_loop => case("template-endless-loop", "fixtures/bad/template-endless-loop", &[],
        "template ran too long (possible endless loop)",
        Some("fixtures/bad/template-endless-loop/role.md.j2:2:41"), &[]);
    template_output_too_large => case("template-output-too-large", "fixtures/bad/template-output-too-large", &[],
        "the template renders more than 2097152 bytes",
        Some("fixtures/bad/template-output-too-large/role.md.j2"), &["raise `limits:`"]);
    template_value_doubling => case("template-value-doubling", "fixtures/bad/template-value-doubling", &[],
        "`s` can grow to more than 4096 times the text it is built from",
        Some("fixtures/bad/template-value-doubling/role.md.j2:15:4"), &["exhaust memory"]);
    template_macro_doubling => case("template-macro-doubling", "fixtures/bad/template-macro-doubling", &[],
        "macro `grow` calls itself with an argument built from its inputs twice",
        Some("fixtures/bad/template-macro-doubling/role.md.j2:2:40"), &[]);
    template_include_doubling => case("template-include-doubling", "fixtures/bad/template-include-doubling", &[],
        "cannot include `grow.md.j2`: `cwd` can grow to more than 4096 times",
        Some("fixtures/bad/template-include-doubling/role.md.j2:2:4"),
        &["at fixtures/bad/template-include-doubling/grow.md.j2:13:4"]);
    template_value_too_large => case("template-value-too-large", "fixtures/bad/template-value-too-large", &[],
        "the template builds a value larger than 8388608 bytes",
        Some("fixtures/bad/template-value-too-large/role.md.j2:6:15"), &["a value doubles or grows"]);
    template_filter_blowup => case("template-filter-blowup", "fixtures/bad/template-filter-blowup", &[],
        "the template builds a value larger than 8388608 bytes: the result of `replace` would be 34200018 bytes",
        Some("fixtures/bad/template-filter-blowup/role.md.j2:2:8"), &["limits.prompt_bytes"]);
    template_indent_blowup => case("template-indent-blowup", "fixtures/bad/template-indent-blowup", &[],
        "the result of `indent` would be 1000000018 bytes",
        Some("fixtures/bad/template-indent-blowup/role.md.j2:2:8"), &[]);
    template_long_chain => case("template-long-chain", "fixtures/bad/template-long-chain", &[],
        "this tag holds more than 1000 tokens",
        Some("fixtures/bad/template-long-chain/role.md.j2:2:1"), &["split the expression"]);
    template_nul_byte => case("template-nul-byte", "fixtures/bad/template-nul-byte", &[],
        "the template contains a NUL byte",
        Some("fixtures/bad/template-nul-byte/role.md.j2:1:18"), &[]);
    prompt_too_large => case("prompt-too-large", "fixtures/bad/prompt-too-large", &[],
        "the prompt's sections add up to more than 10000 bytes",
        Some("fixtures/bad/prompt-too-large/promptc.yaml"), &["limits.prompt_bytes"]);
    limits_invalid => case("limits-invalid", "fixtures/bad/limits-invalid", &[],
        "`limits.section_bytes` must be between 1024 and 268435456 bytes, found 12",
        Some("fixtures/bad/limits-invalid/promptc.yaml:6:18"), &[]);
    when_deep_nesting => case("when-deep-nesting", "fixtures/bad/when-deep-nesting", &[],
        "the expression nests `!` and parentheses more than 64 levels deep",
        Some("fixtures/bad/when-deep-nesting/tools.yaml:4:74"), &[]);
    minimum_nan => case("minimum-nan", "fixtures/bad/minimum-nan", &[],
        "`minimum` must be a finite number, found NaN",
        Some("fixtures/bad/minimum-nan/tools.yaml:7:16"), &["cannot express NaN"]);

    // --- tools and parameter schemas --------------------------------------------------------
    invalid_tool_name => case("invalid-tool-name", "fixtures/bad/invalid-tool-name", &[],
        "invalid tool name `read file`",
        Some("fixtures/bad/invalid-tool-name/tools.yaml:1:9"), &[]);
    invalid_param_name => case("invalid-param-name", "fixtures/bad/invalid-param-name", &[],
        "invalid parameter name `file-path`",
        Some("fixtures/bad/invalid-param-name/tools.yaml:5:5"), &[]);
    param_keyword_misplaced => case("param-keyword-misplaced", "fixtures/bad/param-keyword-misplaced", &[],
        "`minimum` does not apply to type `string`",
        Some("fixtures/bad/param-keyword-misplaced/tools.yaml:8:16"), &["allowed on: integer, number"]);
    array_without_items => case("array-without-items", "fixtures/bad/array-without-items", &[],
        "an `array` parameter needs `items`",
        Some("fixtures/bad/array-without-items/tools.yaml:10:13"), &[]);
    bad_default_type => case("bad-default-type", "fixtures/bad/bad-default-type", &[],
        "the default \"ten\" does not match the parameter's type `integer`",
        Some("fixtures/bad/bad-default-type/tools.yaml:11:16"), &[]);
    enum_type_mismatch => case("enum-type-mismatch", "fixtures/bad/enum-type-mismatch", &[],
        "enum value \"two\" is not one of the whole numbers the type `integer` needs",
        Some("fixtures/bad/enum-type-mismatch/tools.yaml:11:13"), &[]);
    bounds_inverted => case("bounds-inverted", "fixtures/bad/bounds-inverted", &[],
        "the maximum value (1) is below the minimum (10)",
        Some("fixtures/bad/bounds-inverted/tools.yaml:12:16"), &[]);
    when_on_nested_property => case("when-on-nested-property", "fixtures/bad/when-on-nested-property", &[],
        "`when` is only allowed on top-level tool parameters",
        Some("fixtures/bad/when-on-nested-property/tools.yaml:14:17"), &[]);
    override_unknown_profile => case("override-unknown-profile", "fixtures/bad/override-unknown-profile", &[],
        "override for unknown profile `lit` on tool `read_file`",
        Some("fixtures/bad/override-unknown-profile/tools.yaml:10:5"), &["did you mean `lite`?"]);
    override_unknown_parameter => case("override-unknown-parameter", "fixtures/bad/override-unknown-parameter", &[],
        "override for unknown parameter `pth` of tool `read_file`",
        Some("fixtures/bad/override-unknown-parameter/tools.yaml:12:9"), &["did you mean `path`?"]);

    // --- command-line misuse of a valid project ---------------------------------------------
    set_unknown_switch => case("set-unknown-switch", MINIMAL, &["--set", "nosuch=true"],
        "unknown switch `nosuch` in --set nosuch=true", None, &["known switches: browser"]);
    set_bad_value => case("set-bad-value", MINIMAL, &["--set", "browser=maybe"],
        "invalid value `maybe` for switch `browser` in --set browser=maybe", None, &["true or false"]);
    var_unknown => case("var-unknown", MINIMAL, &["--var", "nosuch=1"],
        "unknown variable `nosuch` in --var nosuch=1", None, &["known variables: cwd"]);
    var_without_value => case("var-without-value", MINIMAL, &["--var", "cwd"],
        "--var cwd has no value", None, &["--var NAME=VALUE"]);
    profile_unknown => case("profile-unknown", MINIMAL, &["--profile", "nosuch"],
        "unknown profile `nosuch`", None, &["known profiles: standard, lite"]);
    context_unknown_switch => case("context-unknown-switch", MINIMAL,
        &["--context", "fixtures/bad/context-unknown-switch.yaml"],
        "unknown switch `brwoser` in context file",
        Some("fixtures/bad/context-unknown-switch.yaml:3:3"), &["did you mean `browser`?"]);
    context_window_nan => case("context-window-nan", MINIMAL,
        &["--context", "fixtures/bad/context-window-nan.yaml"],
        "value `.nan` is not a finite number",
        Some("fixtures/bad/context-window-nan.yaml:3:17"), &[]);
    context_window_word => case("context-window-word", MINIMAL,
        &["--context", "fixtures/bad/context-window-word.yaml"],
        "`lots` is not a context window: expected a positive number of tokens",
        Some("fixtures/bad/context-window-word.yaml:3:17"), &["context_window: 32000"]);
    flag_context_window_word => case("flag-context-window-word", MINIMAL, &["--context-window", "32kk"],
        "invalid --context-window: `32kk` is not a context window", None, &["(or 32k, 1M"]);
    flag_context_window_nan => case("flag-context-window-nan", MINIMAL, &["--context-window", "NaN"],
        "invalid --context-window: `NaN` is not a context window", None, &[]);
    context_malformed => case("context-malformed", MINIMAL,
        &["--context", "fixtures/bad/context-malformed.yaml"],
        "unclosed bracket",
        Some("fixtures/bad/context-malformed.yaml:4:8"), &[]);
    provider_with_xml => case("provider-with-xml", MINIMAL, &["--provider", "gemini", "--transport", "xml"],
        "--provider has no effect with --transport xml", None, &[]);
    tools_with_xml => case("tools-with-xml", MINIMAL, &["--tools", "--transport", "xml"],
        "the xml transport has no tool projection", None, &[]);
    transport_not_enabled => case("transport-not-enabled", "fixtures/good/native-only", &["--transport", "xml"],
        "transport `xml` is not enabled in this \
            project", Some("fixtures/good/native-only/promptc.yaml:6:1"), &["enabled transports: native"]);
    transport_unknown_name => case("transport-unknown-name", MINIMAL, &["--transport", "smoke-signals"],
        "invalid value 'smoke-signals' for '--transport <TRANSPORT>'", None, &["[possible values: native, xml, json, chat]"]);
    transport_json_not_enabled => case("transport-json-not-enabled", MINIMAL, &["--transport", "json"],
        "transport `json` is not enabled in this project", Some("fixtures/good/minimal/promptc.yaml"), &["enabled \
            transports: native, xml", "declares no `transports:`"]);
    // --- chat templates (`chat_templates:`) ---------------------------------------------
    chat_template_unknown_profile => case("chat-template-unknown-profile", "fixtures/bad/chat-template-unknown-profile",
        &[], "chat template `qwen` names unknown profile `standrad`",
        Some("fixtures/bad/chat-template-unknown-profile/promptc.yaml:48:16"), &["did you mean `standard`?"]);
    chat_template_bad_date => case("chat-template-bad-date", "fixtures/bad/chat-template-bad-date", &[],
        "invalid date `26 July 2024`", Some("fixtures/bad/chat-template-bad-date/promptc.yaml:48:11"), &["YYYY-MM-DD"]);
    chat_template_missing_file => case("chat-template-missing-file", "fixtures/bad/chat-template-missing-file", &[],
        "chat/qwen3.jinja`: no such file", Some("fixtures/bad/chat-template-missing-file/promptc.yaml:47:11"), &[]);
    chat_template_unknown_name => case("chat-template-unknown-name", "fixtures/bad/chat-template-unknown-name", &[],
        "has no chat template named `tools`", Some("fixtures/bad/chat-template-unknown-name/promptc.yaml:48:11"),
        &["`default`, `tool_use`"]);
    chat_template_bad_model_pattern => case("chat-template-bad-model-pattern",
        "fixtures/bad/chat-template-bad-model-pattern", &[], "invalid model segment pattern `qwen/2.5`",
        Some("fixtures/bad/chat-template-bad-model-pattern/promptc.yaml:48:14"), &[]);
    chat_template_bad_config => case("chat-template-bad-config", "fixtures/bad/chat-template-bad-config", &[],
        "has no usable `chat_template`: it is neither a string nor a list",
        Some("fixtures/bad/chat-template-bad-config/promptc.yaml:47:11"), &[]);
    chat_template_raises_in_matrix => case("chat-template-raises-in-matrix",
        "fixtures/bad/chat-template-raises-in-matrix", &["snapshot"],
        "the chat template raised an error: Cannot put tools in the first user message",
        Some("fixtures/bad/chat-template-raises-in-matrix/chat/llama3.1.jinja:52:13"),
        &["while rendering cell `bare.native` through chat template `llama`", "chat_templates.llama.profiles"]);
    // --- harness messages ----------------------------------------------------------------
    message_both_sections_and_blocks => case("message-both-sections-and-blocks",
        "fixtures/bad/message-both-sections-and-blocks", &[],
        "a message of profile `standard` has both `sections:` and `blocks:`",
        Some("fixtures/bad/message-both-sections-and-blocks/promptc.yaml:20:19"), &["keep one"]);
    message_without_content => case("message-without-content", "fixtures/bad/message-without-content", &[],
        "a message of profile `standard` has no content",
        Some("fixtures/bad/message-without-content/promptc.yaml:19:9"), &["`blocks: [{sections: [..]}, ..]`"]);
    message_block_without_sections => case("message-block-without-sections",
        "fixtures/bad/message-block-without-sections", &[],
        "block 2 of a message of profile `standard` has no sections",
        Some("fixtures/bad/message-block-without-sections/promptc.yaml:22:24"), &[]);
    // --- templated tool text -----------------------------------------------------------------
    templated_tool_syntax_error => case("templated-tool-syntax-error", "fixtures/bad/templated-tool-syntax-error", &[],
        "template syntax error: this `{{` is never closed",
        Some("fixtures/bad/templated-tool-syntax-error/tools.yaml:9:37"), &["`{{ working_dir }}`"]);
    templated_tool_undeclared_name => case("templated-tool-undeclared-name",
        "fixtures/bad/templated-tool-undeclared-name", &[], "uses undefined variable `workdir`",
        Some("fixtures/bad/templated-tool-undeclared-name/tools.yaml:5:41"), &["did you mean `working_dir`?"]);
    templated_tool_reads_tools => case("templated-tool-reads-tools", "fixtures/bad/templated-tool-reads-tools", &[],
        "uses undefined variable `tool_names`", Some("fixtures/bad/templated-tool-reads-tools/tools.yaml:5:53"),
        &["see the cell's variables and switches, not the tools"]);
    // --- report: tokenizers and budgets ----------------------------------------------------
    report_unknown_tokenizer => case("report-unknown-tokenizer", MINIMAL, &["report", "--tokenizer", "o200k"],
        "unknown tokenizer `o200k`", None, &["did you mean `o200k_base`?"]);
    budget_negative => case("budget-negative", "fixtures/bad/budget-negative", &["report"],
        "invalid budget in profile `standard`: a budget must be a whole number of 0 or more, found -5",
        Some("fixtures/bad/budget-negative/promptc.yaml:28:14"), &[]);
    budget_not_a_number => case("budget-not-a-number", "fixtures/bad/budget-not-a-number", &["report"],
        "invalid budget in profile `standard`: a budget must be a number, found \"lots\"",
        Some("fixtures/bad/budget-not-a-number/promptc.yaml:28:14"), &[]);
    budget_unknown_unit => case("budget-unknown-unit", "fixtures/bad/budget-unknown-unit", &["report"],
        "unknown budget unit `words`", Some("fixtures/bad/budget-unknown-unit/promptc.yaml:28:14"), &[]);
    budget_unknown_section => case("budget-unknown-section", "fixtures/bad/budget-unknown-section", &["report"],
        "budget names section `environment`, which profile `lite` does not have",
        Some("fixtures/bad/budget-unknown-section/promptc.yaml:32:9"), &["known sections: role"]);
    tokenizer_unknown => case("tokenizer-unknown", "fixtures/bad/tokenizer-unknown", &["report"],
        "unknown tokenizer `o200k`", Some("fixtures/bad/tokenizer-unknown/promptc.yaml:21:14"), &["did you mean \
            `o200k_base`?"]);
    estimate_factor_invalid => case("estimate-factor-invalid", "fixtures/bad/estimate-factor-invalid", &["report"],
        "estimate factor for `claude` must be a positive number, found -1",
        Some("fixtures/bad/estimate-factor-invalid/promptc.yaml:22:13"), &[]);
    token_cache_outside => case("token-cache-outside", "fixtures/bad/token-cache-outside", &["report"],
        "invalid token cache path `../cache.json`: the path leaves the project folder",
        Some("fixtures/bad/token-cache-outside/promptc.yaml:21:10"), &[]);
    // --- snapshots and frozen records -----------------------------------------------------
    snapshots_not_utf8 => case("snapshots-not-utf8", "fixtures/bad/snapshots-not-utf8", &["diff"],
        "standard.native.prompt.md` is not valid UTF-8", None, &["regenerate the file"]);
    frozen_newer_format => case("frozen-newer-format", MINIMAL, &["verify", "fixtures/bad/frozen-newer-format.json"],
        "has format 2, newer than this promptc reads (1)", None, &["written by promptc 9.0.0", "upgrade promptc"]);
    frozen_not_json => case("frozen-not-json", MINIMAL, &["verify", "fixtures/bad/frozen-not-json.json"],
        "frozen record is not valid JSON", Some("fixtures/bad/frozen-not-json.json:4:1"), &[]);
    frozen_not_a_record => case("frozen-not-a-record", MINIMAL, &["verify", "fixtures/bad/frozen-not-a-record.json"],
        "is not a frozen record: it has no `format` field", None, &[]);
    frozen_missing => case("frozen-missing", MINIMAL, &["verify", "fixtures/bad/no-such-record.json"],
        "cannot read frozen record `fixtures/bad/no-such-record.json`: no such file or folder", None, &[]);
    no_such_project => case("no-such-project", "fixtures/bad/no-such-project", &[],
        "no project manifest at `fixtures/bad/no-such-project", None, &[]);

    // --- agent composition ------------------------------------------------------------------
    // Tool contributions: `contributes:` in a tool file, into the project's `slots:`.
    contribution_without_slot => case("contribution-without-slot", "fixtures/bad/contribution-without-slot", &[],
        "contribution of tool `take_note` without a slot",
        Some("fixtures/bad/contribution-without-slot/tools.yaml:19:13"), &["legal slots: working_notes"]);
    slot_without_contribution => case("slot-without-contribution", "fixtures/bad/slot-without-contribution", &[],
        "slot `working_notes` named by tool `take_note` without a contribution",
        Some("fixtures/bad/slot-without-contribution/tools.yaml:19:13"), &["add `text:`", "or `template:`"]);
    contributes_empty => case("contributes-empty", "fixtures/bad/contributes-empty", &[],
        "tool `take_note` has an empty `contributes:` list",
        Some("fixtures/bad/contributes-empty/tools.yaml:18:16"), &["no `contributes:` key at all"]);
    contribution_unknown_slot => case("contribution-unknown-slot", "fixtures/bad/contribution-unknown-slot", &[],
        "unknown slot `scratchpad` in contribution of tool `take_note`",
        Some("fixtures/bad/contribution-unknown-slot/tools.yaml:19:13"), &["known slots: working_notes"]);
    contribution_user_intent_slot => case("contribution-user-intent-slot",
        "fixtures/bad/contribution-user-intent-slot", &[],
        "tool `take_note` may not contribute to slot `user_task`: user-intent slots are not injectable",
        Some("fixtures/bad/contribution-user-intent-slot/tools.yaml:19:13"),
        &["note: slot `user_task` is not injectable because it carries the user's intent",
          "contribute to a system slot instead: working_notes"]);
    contribution_history_slot => case("contribution-history-slot", "fixtures/bad/contribution-history-slot", &[],
        "tool `take_note` may not contribute to slot `initial_environment`: history slots are not injectable",
        Some("fixtures/bad/contribution-history-slot/tools.yaml:19:13"),
        &["note: slot `initial_environment` is not injectable because it is system-kept history",
          "contribute to a system slot instead: working_notes"]);
    contribution_text_and_template => case("contribution-text-and-template",
        "fixtures/bad/contribution-text-and-template", &[],
        "contribution of tool `take_note` to slot `working_notes` has both `text` and `template`",
        Some("fixtures/bad/contribution-text-and-template/tools.yaml:21:17"), &[]);
    // The first entry has no `profiles:`, so it overlaps the second's `[lite]`.
    contribution_twice_same_slot => case("contribution-twice-same-slot", "fixtures/bad/contribution-twice-same-slot",
        &[],
        "tool `take_note` contributes to slot `working_notes` twice",
        Some("fixtures/bad/contribution-twice-same-slot/tools.yaml:21:13"), &["different `profiles:`"]);
    contribution_profiles_empty => case("contribution-profiles-empty", "fixtures/bad/contribution-profiles-empty", &[],
        "contribution of tool `take_note` to slot `working_notes` has an empty `profiles:` list",
        Some("fixtures/bad/contribution-profiles-empty/tools.yaml:20:17"), &["leave `profiles:` out to mean every"]);
    contribution_slot_not_shown => case("contribution-slot-not-shown", "fixtures/bad/contribution-slot-not-shown", &[],
        "tool `take_note` contributes to slot `working_notes`, which profile `lite` does not show",
        Some("fixtures/bad/contribution-slot-not-shown/tools.yaml:19:13"),
        &["its sections: role", "`profiles: [standard]`"]);
    description_part_unknown_tool => case("description-part-unknown-tool",
        "fixtures/bad/description-part-unknown-tool", &[],
        "unknown tool `take_notes` in a description part of tool `read_file`",
        Some("fixtures/bad/description-part-unknown-tool/tools.yaml:6:15"), &["did you mean `take_note`?"]);
    param_profiles_nested => case("param-profiles-nested", "fixtures/bad/param-profiles-nested", &[],
        "`profiles` is only allowed on top-level tool parameters",
        Some("fixtures/bad/param-profiles-nested/tools.yaml:11:21"), &[]);
    param_profiles_unknown => case("param-profiles-unknown", "fixtures/bad/param-profiles-unknown", &[],
        "unknown profile `standrad` in parameter `path` of tool `read_file`",
        Some("fixtures/bad/param-profiles-unknown/tools.yaml:9:18"), &["did you mean `standard`?"]);
    untrusted_sliced => case("untrusted-sliced", "fixtures/bad/untrusted-sliced", &[],
        "slicing untrusted text from `user_rules` cuts it out of its wrapper",
        Some("fixtures/bad/untrusted-sliced/promptc.yaml:32:38"), &["emit it whole with {{ user_rules }}"]);
    // Written inline as a flow mapping (`- {slot: …, template: "…"}`): at the filter.
    untrusted_in_flow_mapping => case("untrusted-in-flow-mapping", "fixtures/bad/untrusted-in-flow-mapping", &[],
        "filter `upper` would change untrusted text from `user_rules` and break its wrapper",
        Some("fixtures/bad/untrusted-in-flow-mapping/tools/notes.yaml:15:81"), &[]);
    untrusted_upper => case("untrusted-upper", "fixtures/bad/untrusted-upper", &[],
        "filter `upper` would change untrusted text from `user_rules` and break its wrapper",
        Some("fixtures/bad/untrusted-upper/sections/role.md.j2:4:17"), &[]);
    tool_listed_and_excluded => case("tool-listed-and-excluded", "fixtures/bad/tool-listed-and-excluded", &[],
        "tool `write_file` is both listed in `tools:` and excluded by profile `lite`",
        Some("fixtures/bad/tool-listed-and-excluded/promptc.yaml:42:15"), &["keep it in one of the lists"]);
    required_order_optional => case("required-order-optional", "fixtures/bad/required-order-optional", &[],
        "`required_order` names `count`, an optional property",
        Some("fixtures/bad/required-order-optional/tools/files.yaml:4:26"), &["list exactly the required properties (path)"]);
    additional_properties_on_string => case("additional-properties-on-string",
        "fixtures/bad/additional-properties-on-string", &[],
        "`additional_properties` does not apply to type `string`",
        Some("fixtures/bad/additional-properties-on-string/tools/files.yaml:8:30"), &["allowed on: object"]);
    tool_docs_undefined_name => case("tool-docs-undefined-name", "fixtures/bad/tool-docs-undefined-name", &[],
        "template `format/tool.md.j2` uses undefined variable `tool_count`",
        Some("fixtures/bad/tool-docs-undefined-name/format/tool.md.j2:2:28"), &["known names: index, nonce, profile"]);
    template_tool_name_typo => case("template-tool-name-typo", "fixtures/bad/template-tool-name-typo", &[],
        "template `sections/role.md.j2` tests for tool `read_fil`, which no tool file declares",
        Some("fixtures/bad/template-tool-name-typo/sections/role.md.j2:2:7"),
        &["did you mean `read_file`?", "never sent"]);
    inline_template_tool_name_typo => case("inline-template-tool-name-typo",
        "fixtures/bad/inline-template-tool-name-typo", &[],
        "tests for tool `browse`, which no tool file declares",
        Some("fixtures/bad/inline-template-tool-name-typo/promptc.yaml:30:55"), &["known tools: read_file"]);
    selection_pattern_slash => case("selection-pattern-slash", "fixtures/bad/selection-pattern-slash", &[],
        "invalid model segment pattern `azure/gpt-4*`",
        Some("fixtures/bad/selection-pattern-slash/promptc.yaml:7:31"), &["`*gpt-4*` anywhere in it"]);
    selection_rules_without_profile => case("selection-rules-without-profile", "fixtures/bad/selection-rules-without-profile", &[],
        "`selection.below_context_window` has no `selection.profile` to pick",
        Some("fixtures/bad/selection-rules-without-profile/promptc.yaml:8:25"), &["add `profile: NAME` under `selection:`"]);
    variant_unknown_parameter => case("variant-unknown-parameter", "fixtures/bad/variant-unknown-parameter", &[],
        "variant 2 of tool `run_shell` words unknown parameter `workdir`",
        Some("fixtures/bad/variant-unknown-parameter/tools.yaml:21:9"), &["known parameters: command, cwd"]);
    switch_value_unknown => case("switch-value-unknown", "fixtures/bad/switch-value-unknown", &[],
        "`chatty` is not a value of switch `style`",
        Some("fixtures/bad/switch-value-unknown/promptc.yaml:35:11"), &["known values: interactive, batch, terse, verbose"]);
    switch_value_bare => case("switch-value-bare", "fixtures/bad/switch-value-bare", &[],
        "switch `style` takes a value, it is not on or off",
        Some("fixtures/bad/switch-value-bare/promptc.yaml:38:11"), &["compare it: `style == \"interactive\"`"]);
    param_minimum_not_a_number => case("param-minimum-not-a-number", "fixtures/bad/param-minimum-not-a-number", &[],
        "invalid value `one` for `minimum`: expected a number",
        Some("fixtures/bad/param-minimum-not-a-number/tools/files.yaml:7:16"), &["such as 1 or 0.5"]);
    layout_section_not_in_profile => case("layout-section-not-in-profile",
        "fixtures/bad/layout-section-not-in-profile", &["--profile", "lite"],
        "the layout uses section `environment`, which this cell has no text for: profile `lite` does not include it",
        Some("fixtures/bad/layout-section-not-in-profile/layout.md.j2:3:4"), &["{% if sections.environment is defined %}"]);
    layout_section_undeclared => case("layout-section-undeclared", "fixtures/bad/layout-section-undeclared", &[],
        "the layout uses section `enviroment`, which the project does not declare",
        Some("fixtures/bad/layout-section-undeclared/layout.md.j2:3:4"), &["did you mean `environment`?"]);
    yaml_indent_dedented_key => case("yaml-indent-dedented-key", "fixtures/bad/yaml-indent-dedented-key", &[],
        "line 38 is not indented like the mapping or list it belongs to",
        Some("fixtures/bad/yaml-indent-dedented-key/promptc.yaml:38:4"), &["starts after 3 spaces", "4 or 2 or 0"]);
    yaml_indent_tab => case("yaml-indent-tab", "fixtures/bad/yaml-indent-tab", &[],
        "a tab in the indentation: YAML forbids tabs for indenting",
        Some("fixtures/bad/yaml-indent-tab/promptc.yaml:36:1"), &["use spaces instead"]);
    // The parser notices this tab on the line before, at the end of the plain value there.
    yaml_tab_after_value => case("yaml-tab-after-value", "fixtures/bad/yaml-tab-after-value", &[],
        "a tab in the indentation: YAML forbids tabs for indenting",
        Some("fixtures/bad/yaml-tab-after-value/promptc.yaml:15:1"), &["use spaces instead: indent it 4 spaces, like line 14"]);
    yaml_indent_list_item => case("yaml-indent-list-item", "fixtures/bad/yaml-indent-list-item", &[],
        "line 32 is not indented like the mapping or list it belongs to",
        Some("fixtures/bad/yaml-indent-list-item/promptc.yaml:32:2"), &["starts after 1 space;"]);
    yaml_indent_under_value => case("yaml-indent-under-value", "fixtures/bad/yaml-indent-under-value", &[],
        "this line is indented under `name` (line 4), which already has a value",
        Some("fixtures/bad/yaml-indent-under-value/promptc.yaml:5:3"), &["line it up with `name`"]);
    yaml_indent_one_space_too_many => case("yaml-indent-one-space-too-many", "fixtures/bad/yaml-indent-one-space-too-many", &[],
        "this line is indented under `description` (line 14), which already has a value",
        Some("fixtures/bad/yaml-indent-one-space-too-many/promptc.yaml:15:6"), &["line it up with `description`"]);
    yaml_indent_misplaced_key => case("yaml-indent-misplaced-key", "fixtures/bad/yaml-indent-misplaced-key", &[],
        "missing required key `sections`",
        Some("fixtures/bad/yaml-indent-misplaced-key/promptc.yaml:41:3"), &["indent it 4 spaces"]);
    yaml_indent_empty_key => case("yaml-indent-empty-key", "fixtures/bad/yaml-indent-empty-key", &[],
        "line 25 is not indented under `role:` (line 24), so `role` has no value",
        Some("fixtures/bad/yaml-indent-empty-key/promptc.yaml:25:3"), &["further than `role` itself"]);
    contribution_unknown_profile => case("contribution-unknown-profile", "fixtures/bad/contribution-unknown-profile",
        &[],
        "unknown profile `nosuch` in contribution of tool `take_note`",
        Some("fixtures/bad/contribution-unknown-profile/tools.yaml:20:18"), &["known profiles: standard, lite"]);
    // Columns inside a block scalar count from the file's left edge (the indentation is added).
    contribution_template_syntax_error => case("contribution-template-syntax-error",
        "fixtures/bad/contribution-template-syntax-error", &[],
        "template syntax error: this `{{` is never closed",
        Some("fixtures/bad/contribution-template-syntax-error/tools.yaml:22:9"), &["`{{ tool_names | length }}`"]);
    contribution_template_undefined_variable => case("contribution-template-undefined-variable",
        "fixtures/bad/contribution-template-undefined-variable", &[],
        "template `tools.yaml#tools.take_note.contributes.0` uses undefined variable `notes_dir`",
        Some("fixtures/bad/contribution-template-undefined-variable/tools.yaml:22:30"), &[]);
    // Loads, then fails at render time (`// 0`); `--lenient` drops it instead (see
    // `lenient_drops_a_failing_contribution`). A note names the tool and the slot.
    contribution_render_error => case("contribution-render-error", "fixtures/bad/contribution-render-error", &[],
        "template error: unable to calculate 2 // 0",
        Some("fixtures/bad/contribution-render-error/tools.yaml:22:12"), &["in the contribution of tool `take_note` \
            to slot `working_notes`", "compile leniently"]);
    // Slot sections and slot kinds.
    slot_section_not_injectable => case("slot-section-not-injectable", "fixtures/bad/slot-section-not-injectable", &[],
        "section `task` shows slot `user_task`, which no tool may fill",
        Some("fixtures/bad/slot-section-not-injectable/promptc.yaml:32:11"), &["render that text with `template:`"]);
    slot_section_unknown_slot => case("slot-section-unknown-slot", "fixtures/bad/slot-section-unknown-slot", &[],
        "unknown slot `working_note`",
        Some("fixtures/bad/slot-section-unknown-slot/promptc.yaml:32:11"), &["did you mean `working_notes`?"]);
    unknown_slot_kind => case("unknown-slot-kind", "fixtures/bad/unknown-slot-kind", &[],
        "unknown slot kind `secret`",
        Some("fixtures/bad/unknown-slot-kind/promptc.yaml:24:11"), &["slot kinds: system (tools may contribute), \
            user_intent, history"]);
    // Untrusted content.
    untrusted_tag_invalid => case("untrusted-tag-invalid", "fixtures/bad/untrusted-tag-invalid", &[],
        "invalid untrusted-content tag `user_rules`",
        Some("fixtures/bad/untrusted-tag-invalid/promptc.yaml:16:16"), &["upper-case identifiers such as USER_RULES"]);
    untrusted_tag_end => case("untrusted-tag-end", "fixtures/bad/untrusted-tag-end", &[],
        "invalid untrusted-content tag `RULES_END`",
        Some("fixtures/bad/untrusted-tag-end/promptc.yaml:16:16"), &["may not end in _END"]);
    nonce_invalid => case("nonce-invalid", MINIMAL, &["--nonce", "ab|c"],
        "invalid nonce `ab|c`", None, &["4 to 32 ASCII letters or digits"]);
    // Sub-agents.
    subagent_unknown_tool => case("subagent-unknown-tool", "fixtures/bad/subagent-unknown-tool", &[],
        "unknown tool `read_fiel` in the tools of sub-agent `researcher`",
        Some("fixtures/bad/subagent-unknown-tool/promptc.yaml:34:13"), &["did you mean `read_file`?"]);
    subagent_unknown_section => case("subagent-unknown-section", "fixtures/bad/subagent-unknown-section", &[],
        "unknown section `rules` in sub-agent `researcher`",
        Some("fixtures/bad/subagent-unknown-section/promptc.yaml:35:22"), &["known sections: role, environment"]);
    subagent_unknown => case("subagent-unknown", COMPOSITION, &["--subagent", "nosuch"],
        "unknown sub-agent `nosuch`", None, &["known sub-agents: researcher"]);
    // Nothing is written (`runs_write_nothing` runs it too).
    freeze_subagent => case("freeze-subagent", COMPOSITION, &["freeze", "--subagent", "researcher", "--out", "x.json"],
        "sub-agent prompts are never frozen", None, &["freeze the main prompt (drop --subagent)"]);
    // Commands.
    command_tool_name_clash => case("command-tool-name-clash", "fixtures/bad/command-tool-name-clash", &[],
        "command `read_file` has the same name as a tool",
        Some("fixtures/bad/command-tool-name-clash/promptc.yaml:32:3"), &["never callable tools"]);
    command_unknown => case("command-unknown", COMPOSITION, &["command", "nosuch"],
        "unknown command `nosuch`", None, &["known commands: deep-planning"]);
    command_variant_unknown_profile => case("command-variant-unknown-profile",
        "fixtures/bad/command-variant-unknown-profile", &[],
        "variant of command `deep-planning` for unknown profile `lit`",
        Some("fixtures/bad/command-variant-unknown-profile/promptc.yaml:36:7"), &["did you mean `lite`?"]);
    command_without_text => case("command-without-text", "fixtures/bad/command-without-text", &[],
        "command `deep-planning` needs exactly one of `template` or `text`",
        Some("fixtures/bad/command-without-text/promptc.yaml:32:3"), &[]);
    // The json transport. Both fixtures render with native and xml; only the action schema
    // fails, pointing at the second tool of the clash.
    json_param_reserved_name => case("json-param-reserved-name", "fixtures/bad/json-param-reserved-name",
        &["--transport", "json"],
        "parameter `identifier` of tool `finish` clashes with the common action field of the same name",
        Some("fixtures/bad/json-param-reserved-name/tools.yaml:10:9"), &["`@action`, `identifier` and \
            `human_readable_thought`"]);
    // `import tools`: the input's problems, located in the JSON; nothing is written (the
    // `--out` folder is never created).
    import_invalid_json => case("import-invalid-json", MINIMAL,
        &["import", "tools", "fixtures/bad/import-invalid-json.json", "--out", "imported"],
        "the tool definitions are not valid JSON: expected `,` or `}`",
        Some("fixtures/bad/import-invalid-json.json:5:5"), &["a tools array, a request body"]);
    import_unknown_shape => case("import-unknown-shape", MINIMAL,
        &["import", "tools", "fixtures/bad/import-unknown-shape.json", "--out", "imported"],
        "`tools[0]` is not a tool definition in a form promptc knows",
        Some("fixtures/bad/import-unknown-shape.json:2:3"), &["the import's `from` option", "mcp {\"tools\""]);
    import_root_not_object => case("import-root-not-object", MINIMAL,
        &["import", "tools", "fixtures/bad/import-root-not-object.json", "--out", "imported"],
        "tool `water_beds`: a tool's `input_schema` must have type `object`, found \"array\" (at `tools[0].input_schema.type`)",
        Some("fixtures/bad/import-root-not-object.json:3:21"), &["give it type `object`"]);
    import_duplicate_keys => case("import-duplicate-keys", MINIMAL,
        &["import", "tools", "fixtures/bad/import-duplicate-keys.json", "--out", "imported"],
        "the tool definitions are not valid JSON: the key `beds` appears twice in one object",
        Some("fixtures/bad/import-duplicate-keys.json:5:11"), &["keep one of them"]);
    import_schema_too_deep => case("import-schema-too-deep", MINIMAL,
        &["import", "tools", "fixtures/bad/import-schema-too-deep.json", "--out", "imported"],
        "tool `nest`: the schema nests deeper than 44 levels",
        Some("fixtures/bad/import-schema-too-deep.json:1:1246"), &["flatten the parameters"]);
    import_100000_deep => case("import-100000-deep", MINIMAL,
        &["import", "tools", "fixtures/bad/import-100000-deep.json", "--out", "imported"],
        "the tool definitions are not valid JSON: recursion limit exceeded",
        Some("fixtures/bad/import-100000-deep.json:1:128"), &[]);
    import_duplicate_names => case("import-duplicate-names", MINIMAL,
        &["import", "tools", "fixtures/bad/import-duplicate-names.json", "--out", "imported"],
        "tool `water_beds` is defined twice: at `tools[0]` and at `tools[2]`",
        Some("fixtures/bad/import-duplicate-names.json:4:4"), &["declares each tool once"]);
    import_invalid_tool_name => case("import-invalid-tool-name", MINIMAL,
        &["import", "tools", "fixtures/bad/import-invalid-tool-name.json", "--out", "imported"],
        "invalid tool name `water beds` (at `tools[0].function.name`)",
        Some("fixtures/bad/import-invalid-tool-name.json:2:37"), &["letters, digits, `_`, `-` or `.`"]);
    import_mixed_strict => case("import-mixed-strict", MINIMAL,
        &["import", "tools", "fixtures/bad/import-mixed-strict.json", "--out", "imported"],
        "the tools disagree on OpenAI strict mode: strict 1 (`water_beds`), not strict 1 (`prune`)",
        Some("fixtures/bad/import-mixed-strict.json"), &["--strict-tools true"]);
    import_tuple_items => case("import-tuple-items", MINIMAL,
        &["import", "tools", "fixtures/bad/import-tuple-items.json", "--out", "imported"],
        "tool `plant_row`: `items` must be a schema (at `tools[0].functionDeclarations[0].parameters.properties.spot.items`)",
        Some("fixtures/bad/import-tuple-items.json:3:31"), &[]);
    import_ref_dangling => case("import-ref-dangling", MINIMAL,
        &["import", "tools", "fixtures/bad/import-ref-dangling.json", "--out", "imported"],
        "tool `plant`: `$ref` \"#/$defs/bed\" points at nothing in the schema (at `tools[0].inputSchema.properties.bed.$ref`)",
        Some("fixtures/bad/import-ref-dangling.json:10:13"), &[]);
    import_ref_cycle => case("import-ref-cycle", MINIMAL,
        &["import", "tools", "fixtures/bad/import-ref-cycle.json", "--out", "imported"],
        "tool `plant`: `$ref` \"#/$defs/a\" leads back to itself without defining a schema (#/$defs/a → #/$defs/b) (at `tools[0].inputSchema.properties.bed.$ref`)",
        Some("fixtures/bad/import-ref-cycle.json:10:13"), &[]);
    import_name_path_separator => case("import-name-path-separator", MINIMAL,
        &["import", "tools", "fixtures/bad/import-name-path-separator.json", "--out", "imported"],
        "invalid tool name `../water_beds` (at `tools[0].name`)",
        Some("fixtures/bad/import-name-path-separator.json:3:5"), &[]);
    import_name_nul => case("import-name-nul", MINIMAL,
        &["import", "tools", "fixtures/bad/import-name-nul.json", "--out", "imported"],
        "invalid tool name `water\\0beds` (at `tools[0].name`)",
        Some("fixtures/bad/import-name-nul.json:1:3"), &[]);
    import_properties_not_object => case("import-properties-not-object", MINIMAL,
        &["import", "tools", "fixtures/bad/import-properties-not-object.json", "--out", "imported"],
        "tool `water_beds`: `properties` must be a mapping of names to schemas (at `tools[0].function.parameters.properties`)",
        Some("fixtures/bad/import-properties-not-object.json:9:9"), &[]);
    import_required_not_list => case("import-required-not-list", MINIMAL,
        &["import", "tools", "fixtures/bad/import-required-not-list.json", "--out", "imported"],
        "tool `water_beds`: `required` must be a list of property names (at `tools[0].parameters.required`)",
        Some("fixtures/bad/import-required-not-list.json:13:7"), &[]);
    import_type_not_name => case("import-type-not-name", MINIMAL,
        &["import", "tools", "fixtures/bad/import-type-not-name.json", "--out", "imported"],
        "tool `water_beds`: `type` must be a type name or a list of them (at `tools[0].inputSchema.properties.litres.type`)",
        Some("fixtures/bad/import-type-not-name.json:10:13"), &[]);
    import_schema_not_object => case("import-schema-not-object", MINIMAL,
        &["import", "tools", "fixtures/bad/import-schema-not-object.json", "--out", "imported"],
        "tool `water_beds`: the parameters must be a schema object, found \"beds: list\" (at `tools[0].input_schema`)",
        Some("fixtures/bad/import-schema-not-object.json:5:5"), &[]);
    import_gemini_both_parameters => case("import-gemini-both-parameters", MINIMAL,
        &["import", "tools", "fixtures/bad/import-gemini-both-parameters.json", "--out", "imported"],
        "tool `water_beds` has both `parameters` and `parametersJsonSchema` (at `tools[0].functionDeclarations[0]`)",
        Some("fixtures/bad/import-gemini-both-parameters.json:7:9"), &[]);
    import_anthropic_server_tool => case("import-anthropic-server-tool", MINIMAL,
        &["import", "tools", "fixtures/bad/import-anthropic-server-tool.json", "--out", "imported"],
        "`tools[0]` is a `web_search_20250305` tool of Anthropic, configured by the provider rather than a function: \
         a promptc catalog cannot carry it (at `tools[0]`)",
        Some("fixtures/bad/import-anthropic-server-tool.json:2:3"), &[]);
    template_optional_defined => case("template-optional-defined", "fixtures/bad/template-optional-defined", &[],
        "`templates.optional` names `profile`, which is defined already",
        Some("fixtures/bad/template-optional-defined/promptc.yaml:5:28"), &["remove it from the list"]);
    no_parameters_and_parameters => case("no-parameters-and-parameters", "fixtures/bad/no-parameters-and-parameters",
        &[], "tool `read_file` has `no_parameters: true` and `parameters`",
        Some("fixtures/bad/no-parameters-and-parameters/tools.yaml:4:18"), &[]);
    input_schema_and_parameters => case("input-schema-and-parameters", "fixtures/bad/input-schema-and-parameters", &[],
        "tool `read_file` has both `input_schema` and `parameters`",
        Some("fixtures/bad/input-schema-and-parameters/tools.yaml:9:5"), &[]);
    input_schema_root_not_object => case("input-schema-root-not-object", "fixtures/bad/input-schema-root-not-object", &[],
        "tool `read_file`: a tool's `input_schema` must have type `object`, found \"string\" (at `$.type` of its `input_schema`)",
        Some("fixtures/bad/input-schema-root-not-object/tools.yaml:5:5"), &[]);
    input_schema_ref_dangling => case("input-schema-ref-dangling", "fixtures/bad/input-schema-ref-dangling", &[],
        "tool `read_file`: `$ref` \"#/$defs/path\" points at nothing in the schema (at `$.properties.path.$ref` of its `input_schema`)",
        Some("fixtures/bad/input-schema-ref-dangling/tools.yaml:5:5"), &[]);
    gemini_parameters_and_input_schema => case("gemini-parameters-and-input-schema", "fixtures/bad/gemini-parameters-and-input-schema", &[],
        "tool `read_file` has both `input_schema` and `gemini_parameters`",
        Some("fixtures/bad/gemini-parameters-and-input-schema/tools.yaml:9:5"), &[]);
    provider_fields_own_key => case("provider-fields-own-key", "fixtures/bad/provider-fields-own-key", &[],
        "`provider_fields.anthropic` sets `name`, which promptc writes itself",
        Some("fixtures/bad/provider-fields-own-key/tools.yaml:9:5"), &[]);
    provider_key_order_unknown_key => case("provider-key-order-unknown-key", "fixtures/bad/provider-key-order-unknown-key", &[],
        "`provider_key_order.mcp` names `titel`, which the tool's mcp entry cannot have",
        Some("fixtures/bad/provider-key-order-unknown-key/tools.yaml:13:17"), &["name, description, inputSchema"]);
    import_number_beyond_64_bits => case("import-number-beyond-64-bits", MINIMAL,
        &["import", "tools", "fixtures/bad/import-number-beyond-64-bits.json", "--out", "imported"],
        "the number `123456789012345678901234567890` cannot be carried exactly",
        Some("fixtures/bad/import-number-beyond-64-bits.json:10:22"), &["would send `1.2345678901234568e+29`"]);
    provider_fields_not_mapping => case("provider-fields-not-mapping", "fixtures/bad/provider-fields-not-mapping", &[],
        "expected a mapping (`key: value` lines or `{a: 1}`) for `mcp`, found a list",
        Some("fixtures/bad/provider-fields-not-mapping/tools.yaml:7:10"), &[]);
    import_ref_chain => case("import-ref-chain", MINIMAL,
        &["import", "tools", "fixtures/bad/import-ref-chain.json", "--out", "imported"],
        "tool `plant`: `$ref` \"#/$defs/d0\" passes through more than 64 references without reaching a schema (at `tools[0].inputSchema.properties.bed.$ref`)",
        Some("fixtures/bad/import-ref-chain.json:1:118"), &[]);
    import_field_too_deep => case("import-field-too-deep", MINIMAL,
        &["import", "tools", "fixtures/bad/import-field-too-deep.json", "--out", "imported"],
        "tool `deep_meta`: `_meta` nests deeper than 42 levels (at `tools[0]._meta`)",
        Some("fixtures/bad/import-field-too-deep.json:1:90"), &["flatten it"]);
    import_out_not_empty => case("import-out-not-empty", MINIMAL,
        &["import", "tools", "fixtures/import/native/anthropic.json", "--out", "fixtures/bad/import-out-not-empty"],
        "holds files promptc did not write (notes.txt)", None, &["choose another folder"]);
}

/// What one run of the binary produced.
struct Output {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// The command line a case runs, as shown in snapshots and failure messages.
fn command_line(case: &Case) -> String {
    let (command, args) = split_command(case.args);
    let mut s = format!("promptc -C {} {command}", case.project);
    for a in args {
        s.push(' ');
        s.push_str(a);
    }
    s
}

/// Cases run `render` unless their arguments start with another subcommand.
fn split_command<'a>(args: &'a [&'a str]) -> (&'a str, &'a [&'a str]) {
    match args.first() {
        Some(&c) if ["report", "snapshot", "diff", "freeze", "verify", "command", "import"].contains(&c) => {
            (c, &args[1..])
        }
        _ => ("render", args),
    }
}

/// Run `promptc --color never -C <project> render <args>` in `cwd`, killing it after TIMEOUT.
/// Arguments that name a path under `fixtures/` are passed as `root.join(arg)`.
fn run_in(cwd: &Path, root: &Path, project: &str, args: &[&str], what: &str) -> Output {
    let fix = |a: &str| -> String {
        if a.starts_with("fixtures/") {
            root.join(a).to_string_lossy().into_owned()
        } else {
            a.to_string()
        }
    };
    let (command, args) = split_command(args);
    let mut child = Command::new(env!("CARGO_BIN_EXE_promptc"))
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE")
        .args(["--color", "never", "-C", &fix(project), command])
        .args(args.iter().map(|a| fix(a)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("[{what}] cannot start promptc: {e}"));
    let mut out_pipe = child.stdout.take().unwrap();
    let mut err_pipe = child.stderr.take().unwrap();
    let out_reader = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = out_pipe.read_to_end(&mut b);
        b
    });
    let err_reader = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = err_pipe.read_to_end(&mut b);
        b
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for promptc") {
            break status;
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("[{what}] promptc did not finish within {TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let stdout = out_reader.join().unwrap();
    let stderr = err_reader.join().unwrap();
    Output {
        code: status.code(),
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
    }
}

/// Run a case from the repository root with relative paths.
fn run(case: &Case) -> Output {
    // An empty `root` leaves the `fixtures/…` arguments relative to the working folder.
    run_in(&repo(), Path::new(""), case.project, case.args, case.name)
}

fn check(case: &Case) {
    let name = case.name;
    let cmd = command_line(case);
    let out = run(case);
    let err = &out.stderr;
    let ctx = format!("[{name}] `{cmd}`\n--- stderr ---\n{err}--- stdout ---\n{}", out.stdout);

    assert_eq!(out.code, Some(2), "[{name}] exit code must be 2\n{ctx}");
    assert!(out.stdout.is_empty(), "[{name}] stdout must be empty\n{ctx}");
    for panic_text in ["panicked", "RUST_BACKTRACE", "stack backtrace"] {
        assert!(!err.contains(panic_text), "[{name}] stderr shows a panic (`{panic_text}`)\n{ctx}");
    }
    let first = err.lines().next().unwrap_or_default();
    assert!(first.starts_with("error"), "[{name}] stderr must start with an `error` line\n{ctx}");
    assert!(first.contains(case.message), "[{name}] the first diagnostic must say `{}`\n{ctx}", case.message);
    let first_location = err.lines().find_map(|l| l.trim_start().strip_prefix("--> "));
    match case.location {
        Some(loc) => assert_eq!(first_location, Some(loc), "[{name}] the first diagnostic must point at {loc}\n{ctx}"),
        None => assert_eq!(first_location, None, "[{name}] no location expected\n{ctx}"),
    }
    for s in case.also {
        assert!(err.contains(s), "[{name}] stderr must contain `{s}`\n{ctx}");
    }

    insta::with_settings!({
        description => cmd,
        omit_expression => true,
    }, {
        insta::assert_snapshot!(name, err);
    });
}

/// Every entry of `fixtures/bad/` belongs to a case, so the corpus and the tests stay in step.
#[test]
fn every_bad_fixture_has_a_case() {
    let dir = repo().join("fixtures/bad");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("read fixtures/bad") {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let path = format!("fixtures/bad/{name}");
        let used = CASES.iter().any(|c| {
            c.project == path || c.project.starts_with(&format!("{path}/")) || c.args.contains(&path.as_str())
        });
        if !used {
            missing.push(path);
        }
    }
    assert!(missing.is_empty(), "fixtures without a case in tests/it/bad_input.rs: {missing:?}");
    let mut names: Vec<&str> = CASES.iter().map(|c| c.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), CASES.len(), "case names must be unique");
}

/// Each fixture breaks exactly one rule, so it must produce exactly one diagnostic: a tool or
/// section that fails validation must not cause follow-on "unknown …" errors where it is used.
#[test]
fn each_case_reports_exactly_one_error() {
    let mut bad = Vec::new();
    for case in CASES {
        let out = run(case);
        let n = out.stderr.lines().filter(|l| l.starts_with("error")).count();
        if n != 1 {
            bad.push(format!("[{}] {n} errors:\n{}", case.name, out.stderr));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Good fixture renders: the corpus is not only failures.
const GOOD_RUNS: &[(&str, &[&str])] = &[
    (MINIMAL, &[]),
    (MINIMAL, &["--profile", "lite"]),
    (MINIMAL, &["--set", "browser=true"]),
    (MINIMAL, &["--transport", "xml"]),
    (MINIMAL, &["--var", "cwd=/srv/app"]),
    (MINIMAL, &["--tools", "--provider", "openai"]),
    (MINIMAL, &["--tools", "--provider", "openai-responses"]),
    (MINIMAL, &["--tools", "--provider", "anthropic"]),
    (MINIMAL, &["--tools", "--provider", "gemini"]),
    (MINIMAL, &["--format", "json"]),
    ("fixtures/good/native-only", &[]),
    (COMPOSITION, &[]),
    (COMPOSITION, &["--transport", "xml"]),
    (COMPOSITION, &["--transport", "json"]),
    (COMPOSITION, &["--profile", "lite", "--transport", "json"]),
    (COMPOSITION, &["--subagent", "researcher"]),
    (COMPOSITION, &["command", "deep-planning"]),
    (COMPOSITION, &["command", "deep-planning", "--profile", "lite"]),
];

#[test]
fn good_fixtures_render() {
    let root = repo();
    for (project, args) in GOOD_RUNS {
        let (command, rest) = split_command(args);
        let what = format!("promptc -C {project} {command} {}", rest.join(" "));
        let out = run_in(&root, Path::new(""), project, args, &what);
        assert_eq!(out.code, Some(0), "[{what}] must succeed\nstderr:\n{}", out.stderr);
        assert!(out.stderr.is_empty(), "[{what}] must print no diagnostics\nstderr:\n{}", out.stderr);
        assert!(!out.stdout.trim().is_empty(), "[{what}] must print something");
    }
    let prompt = |args: &[&str]| run_in(&root, Path::new(""), MINIMAL, args, "minimal").stdout;
    assert_eq!(
        prompt(&[]),
        "You are a careful coding agent working in the user's repository (standard profile).\n\nWorking directory: \
            /home/user/project\n"
    );
    assert!(prompt(&["--set", "browser=true"]).contains("You can inspect web pages with the browser."));
    assert!(prompt(&["--var", "cwd=/srv/app"]).contains("Working directory: /srv/app"));
    let tools = prompt(&["--tools"]);
    for t in ["read_file", "write_file"] {
        assert!(tools.contains(t), "standard registers {t}:\n{tools}");
    }
    assert!(!tools.contains("browser_action"), "browser_action needs the browser switch:\n{tools}");
    assert!(prompt(&["--tools", "--set", "browser"]).contains("browser_action"));
}

/// The composition fixture renders in every transport it ships; only the json transport
/// puts the action schema in the prompt.
#[test]
fn composition_fixture_renders_in_every_transport() {
    let root = repo();
    for transport in ["native", "xml", "json"] {
        let args = ["--transport", transport, "--nonce", "abcd"];
        let what = format!("promptc -C {COMPOSITION} render {}", args.join(" "));
        let out = run_in(&root, Path::new(""), COMPOSITION, &args, &what);
        assert_eq!(out.code, Some(0), "[{what}] must succeed\nstderr:\n{}", out.stderr);
        assert!(out.stderr.is_empty(), "[{what}] must print no diagnostics\nstderr:\n{}", out.stderr);
        let prompt = &out.stdout;
        assert_eq!(prompt.contains("@action"), transport == "json", "[{what}] `@action` only in json:\n{prompt}");
        for s in [
            "Notes so far are listed under \"Working notes\" ({{ literal braces }}).",
            "Read a file before editing it.",
            "<|USER_RULES_abcd|>\n- Use tabs.\n<|USER_RULES_END_abcd|>",
        ] {
            assert!(prompt.contains(s), "[{what}] the prompt must contain `{s}`:\n{prompt}");
        }
    }
}

/// A contribution template that fails at render time fails `render` (the case
/// `contribution-render-error`); with `--lenient` the contribution is dropped with a warning
/// naming the tool and the slot, and the rest of the prompt is unchanged.
#[test]
fn lenient_drops_a_failing_contribution() {
    let project = "fixtures/bad/contribution-render-error";
    let what = format!("promptc -C {project} render --lenient");
    let out = run_in(&repo(), Path::new(""), project, &["--lenient"], &what);
    let err = &out.stderr;
    assert_eq!(out.code, Some(0), "[{what}] must succeed\nstderr:\n{err}");
    assert_eq!(
        out.stdout,
        "You are a careful coding agent (standard profile).\n\nWorking directory: /home/user/project\n"
    );
    assert!(!err.contains("panicked"), "[{what}] stderr shows a panic\n{err}");
    assert!(!err.lines().any(|l| l.starts_with("error")), "[{what}] no errors expected\n{err}");
    let first = err.lines().next().unwrap_or_default();
    assert!(first.starts_with("warning"), "[{what}] stderr must start with a warning\n{err}");
    for s in ["tool `take_note`", "slot `working_notes`"] {
        assert!(first.contains(s), "[{what}] the warning must name {s}\n{err}");
    }
}

/// A sub-agent allowlist naming a tool that spawns sub-agents is a warning, not an error: the
/// project renders, and the sub-agent never gets that tool.
#[test]
fn subagent_allowlist_naming_a_spawning_tool_warns() {
    let project = "fixtures/good/subagent-spawning-warning";
    let runs: [&[&str]; 3] = [&[], &["--tools"], &["--tools", "--subagent", "researcher"]];
    for args in runs {
        let what = format!("promptc -C {project} render {}", args.join(" "));
        let out = run_in(&repo(), Path::new(""), project, args, &what);
        let err = &out.stderr;
        assert_eq!(out.code, Some(0), "[{what}] must succeed\nstderr:\n{err}");
        assert!(!err.contains("panicked"), "[{what}] stderr shows a panic\n{err}");
        assert!(!err.lines().any(|l| l.starts_with("error")), "[{what}] no errors expected\n{err}");
        let warnings: Vec<&str> = err.lines().filter(|l| l.starts_with("warning")).collect();
        assert_eq!(warnings.len(), 1, "[{what}] exactly one warning expected\n{err}");
        assert!(
            warnings[0].contains("sub-agent `researcher` lists `spawn_subagent`, which spawns sub-agents"),
            "[{what}] the warning must name the sub-agent and the tool\n{err}"
        );
        assert!(err.contains("--> fixtures/good/subagent-spawning-warning/promptc.yaml:34:24"), "[{what}]\n{err}");
    }
    let tools = |args: &[&str]| run_in(&repo(), Path::new(""), project, args, project).stdout;
    assert!(tools(&["--tools"]).contains("spawn_subagent"), "the main agent keeps spawn_subagent");
    let sub = tools(&["--tools", "--subagent", "researcher"]);
    assert!(sub.contains("read_file") && !sub.contains("spawn_subagent"), "the sub-agent never gets it:\n{sub}");
}

/// A sub-agent whose own sections leave out the section showing a slot its tools contribute to
/// loses that text: a located warning (it was silent), and the prompt is still rendered.
#[test]
fn subagent_sections_that_drop_a_slot_contribution_warn() {
    let project = "fixtures/good/subagent-drops-slot";
    let what = format!("promptc -C {project} render --subagent researcher");
    let out = run_in(&repo(), Path::new(""), project, &["--subagent", "researcher"], &what);
    let err = &out.stderr;
    assert_eq!(out.code, Some(0), "[{what}]\n{err}");
    let warnings: Vec<&str> = err.lines().filter(|l| l.starts_with("warning")).collect();
    assert_eq!(warnings.len(), 1, "[{what}] exactly one warning expected\n{err}");
    assert!(warnings[0].contains("sub-agent `researcher` lists `take_note`"), "{err}");
    assert!(warnings[0].contains("slot `working_notes`"), "{err}");
    assert!(err.contains("--> fixtures/good/subagent-drops-slot/promptc.yaml:31:24"), "{err}");
    assert!(err.contains("add `working_notes` to the sub-agent's `sections:`"), "{err}");
    assert!(!out.stdout.contains("take_note to keep"), "the contribution is indeed dropped:\n{}", out.stdout);
    // With the section listed, nothing is dropped and nothing is said.
    let dir = tempfile::tempdir().unwrap();
    crate::common::copy_dir(&repo().join(project), dir.path());
    let manifest = dir.path().join("promptc.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replace("sections: [role]\n", "sections: [role, working_notes]\n")).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_promptc"))
        .args(["-C", dir.path().to_str().unwrap(), "render", "--subagent", "researcher"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("take_note to keep"));
}

/// A file's path (relative to `base`), size and modification time, for every file under `dir`.
fn tree(base: &Path, dir: &Path, out: &mut Vec<(String, u64, Option<std::time::SystemTime>)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        let meta = std::fs::symlink_metadata(&p).unwrap();
        if meta.is_dir() {
            tree(base, &p, out);
        }
        let rel = p.strip_prefix(base).unwrap().to_string_lossy().into_owned();
        out.push((rel, meta.len(), meta.modified().ok()));
    }
}

/// `render` without `--out` writes nothing: not into the fixtures, not into the working
/// folder, whether it fails or succeeds.
#[test]
fn runs_write_nothing() {
    let root = repo();
    let fixtures = root.join("fixtures");
    let cwd = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("bad_input_cwd_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cwd);
    std::fs::create_dir_all(&cwd).unwrap();

    let mut before = Vec::new();
    tree(&fixtures, &fixtures, &mut before);
    for case in CASES {
        let out = run_in(&cwd, &root, case.project, case.args, case.name);
        assert_eq!(out.code, Some(2), "[{}] exit code must be 2 from any working folder\n{}", case.name, out.stderr);
    }
    for (project, args) in GOOD_RUNS {
        let out = run_in(&cwd, &root, project, args, project);
        assert_eq!(out.code, Some(0), "[{project} {args:?}] must succeed\n{}", out.stderr);
    }
    let mut after = Vec::new();
    tree(&fixtures, &fixtures, &mut after);
    let left: Vec<_> = std::fs::read_dir(&cwd).unwrap().map(|e| e.unwrap().path()).collect();
    let _ = std::fs::remove_dir_all(&cwd);
    assert!(left.is_empty(), "runs left files in the working folder: {left:?}");
    assert!(before == after, "runs changed files under fixtures/:\nbefore: {before:#?}\nafter: {after:#?}");
}
