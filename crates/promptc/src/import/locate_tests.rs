use super::*;

#[test]
fn finds_keys_and_elements() {
    let text = "[\n {\"name\": \"a\"},\n {\"name\": \"b\", \"input_schema\": {\"anyOf\": []}}\n]";
    let (s, e) = locate(text, "tools[1].input_schema.anyOf", true).unwrap_or_default();
    assert_eq!(&text[s..e], "\"anyOf\"");
    let (s, _) = locate(text, "tools[1]", true).unwrap_or_default();
    assert_eq!(&text[s..s + 9], "{\"name\": ");
    assert_eq!(locate(text, "tools[2]", true), None);
    assert_eq!(locate("{\"tools\": [1, {\"x\\\"y\": 2}]}", "tools[1].x\"y", false).map(|(s, e)| e - s), Some(6));
    assert_eq!(
        steps("a.b[2][3].c"),
        Some(vec![Step::Key("a".into()), Step::Key("b".into()), Step::Index(2), Step::Index(3), Step::Key("c".into())])
    );
}
