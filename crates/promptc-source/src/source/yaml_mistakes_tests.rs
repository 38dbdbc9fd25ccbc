//! Unit tests of `source::yaml_mistakes`.

use super::*;

#[test]
fn a_quote_that_never_closes_is_found_where_it_opens() {
    let text = "a:\n  b: \"one\n  c: two\n";
    let f = unclosed_quote(text, 4).unwrap();
    assert_eq!((f.at.line, f.at.column), (2, 6));
    assert_eq!(f.message, "this quote is never closed");
}

#[test]
fn a_quote_closed_lines_later_by_the_next_one_is_found_where_it_opens() {
    let text = "a:\n  b: \"one\n  c: two\n  d: \"three\" four\n";
    let f = unclosed_quote(text, 4).unwrap();
    assert_eq!((f.at.line, f.at.column), (2, 6));
    assert!(f.help.contains("line 4"), "{}", f.help);
}

#[test]
fn strings_that_span_lines_on_purpose_and_quotes_inside_text_are_left_alone() {
    let text = "a: \"one\n  two\"\nb: it's fine\nc: 'it''s'\nd: |\n  \"open\ne: [\"x\", 'y']\n";
    assert!(unclosed_quote(text, 8).is_none());
}

#[test]
fn a_tab_is_found_on_the_line_after_the_one_reported() {
    let text = "a:\n  b: text\n\tc: 1\n";
    let f = tab_indentation(text, 2).unwrap();
    assert_eq!((f.at.line, f.at.column), (3, 1));
}

#[test]
fn a_string_where_a_list_belongs_is_said_in_words() {
    let text = "p:\n  sections: role\n";
    let f = wrong_shape("expected sequence start", text, 2, 13).unwrap();
    assert_eq!(f.message, "expected a list (`- item` lines or `[a, b]`) for `sections`, found the string `role`");
    assert!(f.help.contains("`sections: [role]`"), "{}", f.help);
    assert_eq!((f.at.line, f.at.column, f.at.len), (2, 13, 4));
    let text = "p:\n  sections:\n    a: 1\n";
    let f = wrong_shape("expected sequence start", text, 3, 5).unwrap();
    assert!(f.message.ends_with("for `sections`, found a mapping (`key: value` lines)"), "{}", f.message);
}

#[test]
fn a_misspelt_type_gets_the_type_meant() {
    let (m, h) =
        unknown_variant("unknown variant `str`, expected one of string, integer, number", Some("type")).unwrap();
    assert_eq!(m, "unknown parameter type `str`");
    assert_eq!(h, "did you mean `string`? the types are string, integer, number");
    let (_, h) = unknown_variant("unknown variant `float`, expected one of string, number", Some("type")).unwrap();
    assert!(h.starts_with("did you mean `number`?"), "{h}");
}

#[test]
fn a_missing_key_points_at_the_start_of_its_mapping() {
    // A tool (list item): its `- name:` line.
    let text = "- name: a\n  toolset: x\n  parameters:\n    p:\n      type: string\n";
    let (at, keys) = mapping_start(text, 3, 3).unwrap();
    assert_eq!((at.line, at.column), (1, 3));
    assert_eq!(missing_key_purpose(&keys, "description").0.as_deref(), Some("tool `a`"));
    // A profile: the key that owns it.
    let text = "profiles:\n  lite:\n    description: d\n    tools: [a]\n";
    let (at, keys) = mapping_start(text, 4, 5).unwrap();
    assert_eq!((at.line, at.column, at.len), (2, 3, 4));
    assert_eq!(missing_key_purpose(&keys, "sections").0.as_deref(), Some("profile `lite`"));
    // The document: its first key.
    let text = "# c\npromptc: 1\nname: x\n";
    let (at, keys) = mapping_start(text, 3, 1).unwrap();
    assert_eq!((at.line, at.column), (2, 1));
    assert_eq!(
        missing_key_purpose(&keys, "profiles"),
        (None, Some("the prompt contracts: each names its sections and tools"))
    );
    // A flow mapping: its `{`.
    let text = "- {name: a, toolset: x}\n";
    let (at, keys) = mapping_start(text, 1, 14).unwrap();
    assert_eq!((at.line, at.column), (1, 3));
    assert_eq!(missing_key_purpose(&keys, "description").0.as_deref(), Some("tool `a`"));
}

#[test]
fn a_quote_inside_the_text_that_ends_it_is_pointed_at() {
    let text = "a: 'it's here'\n";
    let f = early_close(text, 1, 8).unwrap();
    assert_eq!((f.at.line, f.at.column), (1, 7));
    assert!(f.help.contains("only 'it'"), "{}", f.help);
}

#[test]
fn odd_text_and_positions_never_panic() {
    let texts =
        ["", "\n\n", "a: {b: 'é\t\"\n- - [x, {y: \"z", "\t- é: |\n  \"x\n'\n{", "ü: {ä: 1, ö", "- {\n  - }\n: :\n"];
    for text in texts {
        for line in 1..8 {
            for column in 1..30 {
                let _ = unclosed_quote(text, line);
                let _ = early_close(text, line, column);
                let _ = tab_indentation(text, line);
                let _ = wrong_shape("expected sequence start", text, line, column);
                let _ = wrong_shape("expected mapping start", text, line, column);
                if let Some((_, keys)) = mapping_start(text, line, column) {
                    let _ = missing_key_purpose(&keys, "name");
                }
            }
        }
    }
}
