use super::*;

fn imported(text: &str) -> Result<Imported> {
    import(text, "in.json", &ImportOptions::new())
}

fn first_message(text: &str) -> String {
    match imported(text) {
        Ok(_) => panic!("expected an error for {text}"),
        Err(e) => e.diagnostics().first().map(|d| d.message.clone()).unwrap_or_default(),
    }
}

#[test]
fn detects_each_form_and_wrapper() {
    let schema = r#"{"type": "object", "properties": {}}"#;
    let cases = [
        (
            format!(
                r#"[{{"type": "function", "function": {{"name": "a", "description": "A.", "parameters": {schema}}}}}]"#
            ),
            ImportFormat::OpenAiChat,
        ),
        (
            format!(
                r#"{{"model": "m", "tools": [{{"type": "function", "name": "a", "description": "A.", "parameters": {schema}}}]}}"#
            ),
            ImportFormat::OpenAiResponses,
        ),
        (format!(r#"[{{"name": "a", "description": "A.", "input_schema": {schema}}}]"#), ImportFormat::Anthropic),
        (r#"[{"function_declarations": [{"name": "a", "description": "A."}]}]"#.to_string(), ImportFormat::Gemini),
        (
            format!(
                r#"{{"jsonrpc": "2.0", "id": 1, "result": {{"tools": [{{"name": "a", "description": "A.", "inputSchema": {schema}}}]}}}}"#
            ),
            ImportFormat::Mcp,
        ),
    ];
    for (text, format) in cases {
        let i = imported(&text).unwrap_or_else(|e| panic!("{text}: {:?}", e.diagnostics()));
        assert_eq!(i.format(), format, "{text}");
        assert_eq!(i.tool_names(), ["a"]);
        assert_eq!(i.files().keys().collect::<Vec<_>>(), ["promptc.yaml", "tool.a.yaml"]);
        assert!(i.files()["promptc.yaml"].starts_with(MARKER));
        assert!(i.files()["promptc.yaml"].contains(&format!("provider: {}", format.provider())));
    }
}

#[test]
fn strict_flags_set_strict_tools() {
    let t = |name: &str, strict: &str| {
        format!(
            r#"{{"type": "function", "name": "{name}", "description": "D.", "parameters": {{"type": "object"}}{strict}}}"#
        )
    };
    // Responses defaults strict to true.
    let i = imported(&format!("[{}]", t("a", ""))).unwrap_or_else(|_| panic!("import"));
    assert!(i.strict_tools());
    let i = imported(&format!("[{}]", t("a", r#", "strict": false"#))).unwrap_or_else(|_| panic!("import"));
    assert!(!i.strict_tools());
    let mixed = format!("[{}, {}]", t("a", ""), t("b", r#", "strict": false"#));
    assert!(first_message(&mixed).starts_with("the tools disagree on OpenAI strict mode"));
    let i = import(&mixed, "in.json", &ImportOptions::new().strict_tools(false)).unwrap_or_else(|_| panic!("import"));
    assert!(!i.strict_tools());
}

#[test]
fn refuses_what_it_cannot_keep() {
    assert!(first_message("[1,").starts_with("the tool definitions are not valid JSON"));
    assert_eq!(first_message("[]"), "`tools` lists no tools");
    assert_eq!(first_message(r#"{"x": 1}"#), "the input is not a list of tool definitions in a form promptc knows");
    assert_eq!(
        first_message(r#"[{"name": "a", "description": "A.", "parameters": {"type": "object"}, "cache": true}]"#),
        "tool `a`: `cache` cannot be expressed in a promptc catalog (at `tools[0].cache`)",
        "a bare list has no provider to send other fields to"
    );
    assert_eq!(
        first_message(r#"[{"name": "a", "description": 7, "input_schema": {"type": "object"}}]"#),
        "tool `a`: the description must be a string, found 7 (at `tools[0].description`)"
    );
    assert_eq!(
        first_message(r#"[{"name": "Ab", "description": "A.", "input_schema": {}}, {"name": "aB", "description": "B.", "input_schema": {}}]"#),
        "tools `Ab` and `aB` differ only in letter case: their catalog files would be one file on case-insensitive file systems"
    );
    assert_eq!(
        first_message(r#"[{"googleSearch": {}, "functionDeclarations": []}]"#),
        "`googleSearch` (a Gemini built-in tool or option) cannot be expressed in a promptc catalog (at `tools[0].googleSearch`)"
    );
}

#[test]
fn errors_point_into_the_input() {
    let text = "[\n  {\"name\": \"a\", \"description\": \"A.\",\n   \"input_schema\": {\"type\": \"string\"}}\n]";
    let e = imported(text).err().unwrap_or_else(|| panic!("error"));
    let d = &e.diagnostics()[0];
    assert_eq!(
        d.message,
        "tool `a`: a tool's `input_schema` must have type `object`, found \"string\" (at `tools[0].input_schema.type`)"
    );
    let label = d.label.clone().unwrap_or_else(|| Label::file("?"));
    assert_eq!(label.file, "in.json");
    assert_eq!(label.position.map(|p| (p.line, p.column, p.len)), Some((3, 21, 6)));
}

#[test]
fn yaml_strings_read_back_exactly() {
    for s in [
        "",
        "a\n",
        "  x: y # z",
        "\"'\\",
        "\t\r\n\u{0}\u{1b}\u{7f}\u{85}\u{2028}\u{feff}é🌱",
        "null",
        "~",
        "- x",
        "1e3",
    ] {
        let text = format!("v: {}\n", yaml::quoted(s));
        let back: std::collections::BTreeMap<String, String> =
            serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
        assert_eq!(back.get("v").map(String::as_str), Some(s), "{text:?}");
    }
    for k in ["null", "yes", "n", "On", "ok_name"] {
        let text = format!("{}: 1\n", yaml::key(k));
        let back: std::collections::BTreeMap<String, u32> =
            serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
        assert_eq!(back.get(k), Some(&1), "{text:?}");
    }
}

#[test]
fn the_owned_file_list_comes_from_the_marker_manifest_only() {
    let dir = tempfile::tempdir().unwrap_or_else(|_| panic!("tempdir"));
    assert_eq!(owned(dir.path()).ok().flatten(), None);
    let i =
        imported(r#"[{"name": "a", "description": "A.", "input_schema": {}}]"#).unwrap_or_else(|_| panic!("import"));
    std::fs::write(dir.path().join("promptc.yaml"), &i.files()["promptc.yaml"]).unwrap_or_default();
    let files = owned(dir.path()).ok().flatten().unwrap_or_default();
    assert_eq!(files.names().into_iter().collect::<Vec<_>>(), ["promptc.yaml", "tool.a.yaml"]);
    assert_eq!(files.files["tool.a.yaml"], crate::hash::sha256_hex(i.files()["tool.a.yaml"].as_bytes()));
    std::fs::write(dir.path().join("promptc.yaml"), "promptc: 1\ntools:\n  - tool.a.yaml\n").unwrap_or_default();
    assert_eq!(owned(dir.path()).ok().flatten(), None);
    // An older import's manifest (the marker, no hashes) cannot prove what it wrote.
    let older = format!("{MARKER}\ntools:\n  - tool.a.yaml\n");
    std::fs::write(dir.path().join("promptc.yaml"), older).unwrap_or_default();
    assert_eq!(owned(dir.path()).ok().flatten(), None);
}

#[test]
fn json_schema_is_carried_as_written_with_mcp_fields() {
    let text = r#"{"tools": [{"annotations": {"readOnlyHint": true}, "description": "Grep.\nFast.\n", "inputSchema": {
        "type": "object",
        "properties": {"-n": {"type": "boolean"}, "q": {"anyOf": [{"type": "string"}, {"type": "null"}], "exclusiveMinimum": 0}},
        "required": [],
        "additionalProperties": false,
        "$schema": "http://json-schema.org/draft-07/schema#"
    }, "name": "grep", "outputSchema": {"type": "object"}, "title": "Grep"}]}"#;
    let i = imported(text).unwrap_or_else(|e| panic!("{:?}", e.diagnostics()));
    let file = &i.files()["tool.grep.yaml"];
    assert!(file.contains("  description: |\n    Grep.\n    Fast.\n  input_schema:\n    type: object\n"), "{file}");
    assert!(file.contains("      \"-n\":\n        type: boolean\n"), "{file}");
    assert!(file.contains("    required: []\n"), "{file}");
    assert!(
        file.contains(
            "  provider_fields:\n    mcp:\n      annotations:\n        readOnlyHint: true\n      outputSchema:\n"
        ),
        "{file}"
    );
    assert!(file.contains("      title: Grep\n"), "{file}");
    let manifest = &i.files()["promptc.yaml"];
    assert!(manifest.contains("providers: [mcp, openai, openai-responses, anthropic, gemini]"), "{manifest}");
}

#[test]
fn provider_fields_are_kept_for_their_provider() {
    let text = r#"[{"type": "custom", "name": "a", "description": "A.", "input_schema": {"type": "object"}, "cache_control": {"type": "ephemeral"}}]"#;
    let i = imported(text).unwrap_or_else(|e| panic!("{:?}", e.diagnostics()));
    let file = &i.files()["tool.a.yaml"];
    assert!(
        file.contains(
            "  provider_fields:\n    anthropic:\n      cache_control:\n        type: ephemeral\n      type: custom\n"
        ),
        "{file}"
    );
    // `type` first, as written: promptc writes its own keys first, so the order is said.
    assert!(
        file.ends_with(
            "  provider_key_order:\n    anthropic: [\"type\", \"name\", \"description\", \"input_schema\", \"cache_control\"]\n"
        ),
        "{file}"
    );
    let server = r#"[{"type": "web_search_20250305", "name": "web_search"}]"#;
    let e = import(server, "in.json", &ImportOptions::new().from(ImportFormat::Anthropic))
        .err()
        .unwrap_or_else(|| panic!("error"));
    assert!(
        e.diagnostics()[0].message.starts_with("`tools[0]` is a `web_search_20250305` tool of Anthropic"),
        "{:?}",
        e.diagnostics()
    );
}

#[test]
fn bare_lists_and_gemini_json_schema_import() {
    let bare = r#"[{"name": "a", "description": "A.", "parameters": {"type": "object", "properties": {"x": {"type": "string"}}}}]"#;
    let i = imported(bare).unwrap_or_else(|e| panic!("{:?}", e.diagnostics()));
    assert_eq!(i.format(), ImportFormat::Bare);
    assert!(i.files()["tool.a.yaml"].contains("  input_schema:\n"));
    let gemini = r#"[{"functionDeclarations": [{"name": "g", "description": "G.", "parametersJsonSchema": {"type": "object", "properties": {"p": {"type": ["string", "null"]}}}}]}]"#;
    let i = imported(gemini).unwrap_or_else(|e| panic!("{:?}", e.diagnostics()));
    assert!(
        i.files()["tool.g.yaml"].contains("        type: [\"string\", \"null\"]\n"),
        "{}",
        i.files()["tool.g.yaml"]
    );
}

#[test]
fn skip_invalid_imports_the_rest_and_lists_what_it_left_out() {
    let text = r#"[{"name": "ok", "description": "O.", "input_schema": {"type": "object"}},
        {"name": "bad", "description": "B.", "input_schema": {"type": "string"}},
        {"name": "numbered", "description": 1, "input_schema": {"type": "object"}}]"#;
    assert!(imported(text).is_err(), "refused whole without the option");
    let i = import(text, "in.json", &ImportOptions::new().skip_invalid(true))
        .unwrap_or_else(|e| panic!("{:?}", e.diagnostics()));
    assert_eq!(i.tool_names(), ["ok"]);
    let skipped: Vec<&str> = i.skipped().iter().map(|d| d.message.as_str()).collect();
    assert_eq!(skipped.len(), 2, "{skipped:?}");
    assert!(skipped[0].contains("tool `bad`"), "{skipped:?}");
    assert!(skipped[1].starts_with("tool `numbered`: the description must be a string"), "{skipped:?}");
    let all_bad = r#"[{"name": "bad", "description": "B.", "input_schema": {"type": "string"}}]"#;
    assert!(
        import(all_bad, "in.json", &ImportOptions::new().skip_invalid(true)).is_err(),
        "nothing to write is an error"
    );
}

#[test]
fn providers_are_every_one_or_those_asked_for_with_the_inputs_own_first() {
    let text = r#"[{"name": "a", "description": "A.", "input_schema": {"type": "object"}}]"#;
    let i = import(text, "in.json", &ImportOptions::new().providers(vec![Provider::Gemini]))
        .unwrap_or_else(|e| panic!("{:?}", e.diagnostics()));
    assert!(i.files()["promptc.yaml"].contains("providers: [anthropic, gemini]\n"), "{}", i.files()["promptc.yaml"]);
    let i = imported(text).unwrap_or_else(|e| panic!("{:?}", e.diagnostics()));
    assert!(i.files()["promptc.yaml"].contains("providers: [anthropic, openai, openai-responses, gemini]\n"));
}

#[test]
fn a_description_absent_null_or_empty_is_kept_as_the_input_has_it() {
    let text = r#"{"tools": [{"name": "a", "description": null, "inputSchema": {"type": "object"}},
        {"name": "b", "description": "", "inputSchema": {"type": "object"}},
        {"name": "c", "inputSchema": {"type": "object"}}]}"#;
    let i = imported(text).unwrap_or_else(|e| panic!("{:?}", e.diagnostics()));
    let a = &i.files()["tool.a.yaml"];
    assert!(!a.lines().any(|l| l.starts_with("  description:")), "no description key of its own:\n{a}");
    assert!(a.contains("  provider_fields:\n    mcp:\n      description: null\n"), "the null carried for MCP:\n{a}");
    assert!(i.files()["tool.b.yaml"].contains("  description: \"\"\n"), "{}", i.files()["tool.b.yaml"]);
    assert!(!i.files()["tool.c.yaml"].contains("description"), "{}", i.files()["tool.c.yaml"]);
}
