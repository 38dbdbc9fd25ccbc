//! Unit tests of `load::params`.

use super::SchemaBuilder;
use crate::diagnostic::Diagnostic;
use crate::format::tool::RawParam;
use crate::model::condition::Condition;
use crate::model::params::{Kind, Property};
use crate::source::SourceFile;

fn file(text: &str) -> SourceFile {
    SourceFile::new("t.yaml", "t.yaml", text)
}

fn build(text: &str) -> (Vec<Property>, Vec<Diagnostic>) {
    let f = file(text);
    let raw: indexmap::IndexMap<crate::format::S, RawParam> = crate::source::yaml::parse_str(text, "t.yaml").unwrap();
    let mut b = SchemaBuilder::new(&f);
    let props = b.properties(&raw, true, &mut |w| Condition::parse(&w.value).ok());
    (props, b.problems)
}

#[test]
fn builds_nested_schema() {
    let (props, problems) = build(
        "edits:\n  type: array\n  required: true\n  items:\n    type: object\n    properties:\n      search: \
                {type: string, required: true}\n      mode: {type: string, enum: [a, b], default: a}\n",
    );
    assert!(problems.is_empty(), "{problems:?}");
    let Kind::Array { items, .. } = &props[0].schema.kind else { panic!() };
    let Kind::Object { properties, .. } = &items.kind else { panic!() };
    assert_eq!(properties[1].name, "mode");
    assert!(properties[0].required);
}

#[test]
fn rejects_misplaced_keywords_and_bad_defaults() {
    let (_, problems) =
        build("a:\n  type: string\n  minimum: 3\nb:\n  type: integer\n  default: x\nc:\n  type: array\n");
    let msgs: Vec<&str> = problems.iter().map(|d| d.message.as_str()).collect();
    assert!(msgs[0].contains("`minimum` does not apply to type `string`"), "{msgs:?}");
    assert!(msgs.iter().any(|m| m.contains("default \"x\"")), "{msgs:?}");
    assert!(msgs.iter().any(|m| m.contains("needs `items`")), "{msgs:?}");
    assert_eq!(problems[0].label.as_ref().unwrap().position.unwrap().line, 3, "points at `minimum`");
}

#[test]
fn rejects_bad_names_enums_and_bounds() {
    let (_, problems) = build(
        "\"bad name\":\n  type: string\nn:\n  type: integer\n  enum: [1, x]\nm:\n  type: \
            integer\n  minimum: 5\n  maximum: 2\n",
    );
    assert_eq!(problems.len(), 3, "{problems:?}");
}

#[test]
fn when_only_on_top_level() {
    let (_, problems) = build("o:\n  type: object\n  properties:\n    x: {type: string, when: browser}\n");
    assert!(problems[0].message.contains("only allowed on top-level"));
}
