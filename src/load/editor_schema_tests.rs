//! Unit tests of `load::editor_schema`.

#[test]
fn schemas_are_json() {
    for s in [super::manifest(), super::tools()] {
        let v: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert!(v["$schema"].is_string());
    }
}

#[test]
fn manifest_schema_lists_every_manifest_key() {
    // Keep the schema in step with the serde model: every documented top-level key.
    let v: serde_json::Value = serde_json::from_str(&super::manifest()).unwrap();
    let keys: Vec<&String> = v["properties"].as_object().unwrap().keys().collect();
    for k in ["promptc", "tokens", "cases", "slots", "subagents", "commands", "check", "profiles"] {
        assert!(keys.iter().any(|x| x.as_str() == k), "{k}");
    }
}
