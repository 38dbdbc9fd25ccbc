//! Unit tests of `source::yaml`.

use super::*;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Cfg {
    name: String,
    count: u32,
}

#[test]
fn unknown_key_is_located() {
    let e = parse_str::<Cfg>("name: x\ncount: 1\ncolour: red\n", "p.yaml").unwrap_err();
    let d = &e.diagnostics()[0];
    assert!(d.message.contains("unknown field"), "{}", d.message);
    let pos = d.label.as_ref().unwrap().position.unwrap();
    assert_eq!((pos.line, pos.column), (3, 1));
    assert!(d.render(false).contains("p.yaml:3:1"), "{}", d.render(false));
    let e = parse_str::<Cfg>("name: x\ncuont: 1\n", "p.yaml").unwrap_err();
    assert!(
        e.diagnostics()[0].help.as_deref().unwrap().starts_with("did you mean `count`?"),
        "{:?} {:?}",
        e.diagnostics()[0].help,
        e.diagnostics()[0].message
    );
}

#[test]
fn wrong_type_is_located_and_named() {
    let e = parse_str::<Cfg>("name: x\ncount: many\n", "p.yaml").unwrap_err();
    let d = &e.diagnostics()[0];
    let pos = d.label.as_ref().unwrap().position.unwrap();
    assert_eq!(pos.line, 2);
    assert_eq!(d.message, "invalid value `many` for `count`: expected a whole number of 0 or more");
}

#[test]
fn missing_key_is_named() {
    let e = parse_str::<Cfg>("name: x\n", "p.yaml").unwrap_err();
    assert_eq!(e.diagnostics()[0].message, "missing required key `count`");
}

#[test]
fn syntax_error_is_located() {
    let e = parse_str::<Cfg>("name: [x\ncount: 1\n", "p.yaml").unwrap_err();
    assert!(e.diagnostics()[0].label.as_ref().unwrap().position.is_some());
}

#[test]
fn alias_bomb_is_refused() {
    let mut y = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 0..12 {
        let prev = if i == 0 { "a".to_string() } else { format!("l{}", i - 1) };
        y.push_str(&format!(
            "l{i}: &l{i} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, \
                *{prev}, *{prev}]\n"
        ));
    }
    let e = parse_str::<serde_json::Value>(&y, "bomb.yaml").unwrap_err();
    assert_eq!(e.diagnostics()[0].message, "YAML aliases expand to too much data");
}

#[test]
fn deep_nesting_is_refused() {
    for depth in [60, 500] {
        let y = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let e = parse_str::<serde_json::Value>(&y, "deep.yaml").unwrap_err();
        assert!(
            e.diagnostics()[0].message.starts_with("YAML is nested too deeply"),
            "{depth}: {}",
            e.diagnostics()[0].message
        );
    }
}
