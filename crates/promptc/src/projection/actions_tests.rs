//! Unit tests of `projection::actions`.

use super::*;
use crate::model::condition::Condition;
use crate::model::params::{Kind, Property, Schema};

fn prop(name: &str, kind: Kind) -> Property {
    Property {
        name: name.into(),
        required: true,
        schema: Schema { description: Some(format!("{name}.")), nullable: false, default: None, kind, json: None },
        when: Condition::Always,
        profiles: Vec::new(),
        span: Default::default(),
    }
}

fn tool(name: &str, params: Vec<Property>) -> ActiveTool {
    ActiveTool {
        name: name.into(),
        toolset: "t".into(),
        description: format!("Use {name}."),
        params,
        ..Default::default()
    }
}

#[test]
fn shares_identical_parameters_and_requires_per_action() {
    let v = action_schema(&[
        tool("read", vec![prop("path", Kind::string())]),
        tool("write", vec![prop("path", Kind::string()), prop("content", Kind::string())]),
        tool("finish", vec![]),
    ])
    .unwrap();
    assert_eq!(v["properties"]["@action"]["enum"], json!(["read", "write", "finish"]));
    assert_eq!(v["properties"]["path"]["x-@actions"], json!(["read", "write"]));
    assert_eq!(v["properties"]["path"]["type"], "string", "the same schema is shared");
    assert_eq!(v["properties"]["content"]["x-@actions"], json!(["write"]));
    assert_eq!(v["required"], json!(["@action", "identifier"]));
    assert_eq!(v["x-@action-rules"][2], json!({"@action": "finish", "rule": "Use finish."}));
    let keys: Vec<&String> = v["properties"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["@action", "identifier", "human_readable_thought", "path", "content"]);
    // Each action's required parameters, and nothing for an action without any.
    assert_eq!(v["allOf"][0]["if"]["properties"]["@action"]["const"], "read");
    assert_eq!(v["allOf"][0]["then"], json!({"required": ["path"]}));
    assert_eq!(v["allOf"][1]["then"], json!({"required": ["path", "content"]}));
    assert_eq!(v["allOf"].as_array().unwrap().len(), 2);
}

#[test]
fn parameters_that_differ_in_anything_are_kept_per_action() {
    let colour = |values: &[&str]| Kind::String {
        enum_values: values.iter().map(|s| s.to_string()).collect(),
        format: None,
        pattern: None,
        min_length: None,
        max_length: None,
    };
    let v = action_schema(&[
        tool("a", vec![prop("mode", colour(&["fast", "slow"])), prop("limit", Kind::string())]),
        tool("b", vec![prop("mode", colour(&["red", "blue"])), prop("limit", Kind::Boolean)]),
    ])
    .unwrap();
    assert_eq!(v["properties"]["mode"], json!({"description": PER_ACTION, "x-@actions": ["a", "b"]}));
    assert_eq!(v["allOf"][0]["then"]["properties"]["mode"]["enum"], json!(["fast", "slow"]));
    assert_eq!(v["allOf"][1]["then"]["properties"]["mode"]["enum"], json!(["red", "blue"]));
    assert_eq!(v["allOf"][0]["then"]["properties"]["limit"]["type"], "string");
    assert_eq!(v["allOf"][1]["then"]["properties"]["limit"]["type"], "boolean");
}

#[test]
fn common_field_names_are_reserved() {
    let e = action_schema(&[tool("tag", vec![prop("identifier", Kind::string())])]).unwrap_err();
    assert_eq!(e, FieldClash { tool: "tag".into(), param: "identifier".into() });
    assert!(e.diagnostic().message.contains("clashes with the common action field"));
}

#[test]
fn carried_schemas_appear_as_written() {
    let root = json!({"type": "object", "properties": {"mode": {"anyOf": [{"type": "string"}, {"type": "integer"}], "description": "M."}}});
    let (params, shape) =
        crate::model::params::input_schema(root.as_object().unwrap(), crate::model::params::SchemaDialect::JsonSchema)
            .unwrap();
    let t = ActiveTool { shape, ..tool("set", params) };
    let v = action_schema(&[t]).unwrap();
    assert_eq!(v["properties"]["mode"]["anyOf"], json!([{"type": "string"}, {"type": "integer"}]));
    assert_eq!(v["properties"]["mode"]["description"], json!("M."));
}
