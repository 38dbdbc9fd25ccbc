use super::*;

#[test]
fn distinctive_names_match_as_identifiers_only() {
    assert!(names_tool("use read_file first", "read_file"));
    assert!(!names_tool("use read_files first", "read_file"));
    assert!(!names_tool("my_read_file", "read_file"));
    assert!(names_tool("call `search` now", "search"));
    assert!(!names_tool("search the web", "search"));
}

#[test]
fn plain_names_in_the_forms_a_model_reads_as_calls() {
    for text in [
        "任务需求不明确时 → clarify（主动提问，不要猜测）",
        "- ask: -> clarify",
        "clarify(question=\"which file?\")",
        "Reply with <clarify>your question</clarify>.",
        "<clarify question=\"x\"/>",
        "If unsure, use clarify to ask the user.",
        "When stuck, call clarify.",
        "Invoke clarify",
        "use the clarify tool",
        "The clarify tool asks the user.",
        "Ask with the clarify tool.",
        "{\"name\": \"clarify\", \"arguments\": {}}",
        "{\"@action\":\"clarify\"}",
        "不清楚时调用 clarify 提问",
        "请使用clarify工具",
        "`clarify`",
    ] {
        assert!(names_tool(text, "clarify"), "{text}");
    }
}

#[test]
fn ordinary_english_stays_quiet() {
    for (text, tool) in [
        ("read the file before you edit it", "read"),
        ("Before you edit, read.", "read"),
        ("rename variables consistently", "rename"),
        ("search the web for the error", "search"),
        ("use search results with care", "search"),
        ("list every step you take", "list"),
        ("write tests, then run them", "run"),
        ("please clarify the requirement with the user", "clarify"),
        ("we use patch releases", "patch"),
        ("the user may ask questions", "ask"),
        ("a todo list is a plan", "todo"),
        ("\"clarify\" is an English word", "clarify"),
        ("to clarify, (this is an aside)", "clarify"),
        ("You call tools by writing XML", "call"),
        ("a search tool finds things", "find"),
    ] {
        assert!(!names_tool(text, tool), "{text}");
    }
}
