//! Unit tests of `diagnostic`.

use super::*;

#[test]
fn renders_rustc_style_with_snippet() {
    let text = "a: 1\nprofiles:\n  native: {}\n";
    let d = Diagnostic::error("profile name `native` is a transport")
        .with_label(Label::at("p.yaml", text, Position::new(3, 3, 6)))
        .with_label_text("rename this profile")
        .with_help("name profiles after the contract, e.g. `standard`");
    let out = d.render(false);
    assert_eq!(
        out,
        "error: profile name `native` is a transport\n --> p.yaml:3:3\n  |\n3 |   native: {}\n  |   ^^^^^^ rename \
            this profile\n  = help: name profiles after the contract, e.g. `standard`\n"
    );
}

#[test]
fn position_from_byte_range_counts_chars() {
    let text = "ab\nçé x\n";
    let start = text.find('x').unwrap();
    let p = Position::from_byte_range(text, start, start + 1);
    assert_eq!(p, Position::new(2, 4, 1));
}

#[test]
fn position_from_bad_range_does_not_panic() {
    let text = "é";
    let p = Position::from_byte_range(text, 1, 99);
    assert_eq!(p.line, 1);
}

#[test]
fn long_lines_are_clipped_around_the_column() {
    let text = format!("{}X{}", "a".repeat(300), "b".repeat(300));
    let d = Diagnostic::error("m").with_label(Label::at("f", &text, Position::new(1, 301, 1)));
    let out = d.render(false);
    let snippet = out.lines().nth(3).unwrap();
    assert!(snippet.chars().count() < 120, "{snippet}");
    let caret_line = out.lines().nth(4).unwrap();
    let x = snippet.chars().position(|c| c == 'X').unwrap();
    assert_eq!(caret_line.chars().position(|c| c == '^').unwrap(), x);
}

#[test]
fn suggests_close_names() {
    assert_eq!(did_you_mean("brwoser", ["browser", "mcp"].into_iter()), Some("browser"));
    assert_eq!(did_you_mean("zzz", ["browser", "mcp"].into_iter()), None);
}
