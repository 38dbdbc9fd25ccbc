use serde_json::{json, Value};

use super::*;

/// `v` written under `k` and read back with the loader's YAML parser.
fn round_trip(v: &Value) -> Value {
    let mut out = String::new();
    block(&mut out, "k", v, 0);
    let back: serde_json::Map<String, Value> =
        serde_saphyr::from_str(&out).unwrap_or_else(|e| panic!("{e}\n---\n{out}"));
    back["k"].clone()
}

#[test]
fn strings_read_back_exactly_in_every_shape() {
    let cases = [
        "",
        "one line",
        "two\nlines",
        "final newline\nhere\n",
        "two finals\n\n",
        "three\n\n\n",
        "blank\n\nmiddle",
        "  leading spaces\nsecond",
        "\nleading newline",
        "trailing space \nx",
        "tab\tinside\nx",
        "# not a comment\n- not a list\nkey: not a map",
        "---\n...\n",
        "\u{2028}sep\nx",
        "quote \" and \\ back\nslash",
        "    indented second\n        deeper\nback",
        "ends\n  ",
    ];
    for s in cases {
        let v = json!(s);
        assert_eq!(round_trip(&v), v, "{s:?}");
    }
    assert!(string("a\nb\n", 4).starts_with("|\n    a"), "multi-line text is a literal block");
    assert!(string("a\nb", 0).starts_with("|-"));
}

#[test]
fn schemas_read_back_with_their_key_order_and_presence() {
    let v = json!({
        "properties": {
            "-n": {"type": "boolean", "description": "Line numbers\nshown.\n"},
            "null": {"anyOf": [{"type": "string", "minLength": 1}, {"type": "null"}], "default": null},
            "e": {"type": "array", "items": {"type": "object", "properties": {}}, "prefixItems": [[1, 2], {}]}
        },
        "required": [],
        "type": "object",
        "additionalProperties": {"type": "string"},
        "x-n": 1.5e300,
        "$schema": "http://json-schema.org/draft-07/schema#",
        "examples": [{"a": [{"b": true}]}, "s", 3]
    });
    let back = round_trip(&v);
    assert_eq!(back, v);
    assert_eq!(serde_json::to_string(&back).unwrap(), serde_json::to_string(&v).unwrap(), "order kept");
}
