//! Example calls of the active tools (`generate: tool_examples`), in the cell's own call
//! format: a native function call, the XML call the tool docs teach, or a JSON action. Only
//! active tools' examples, and only those whose arguments are all active parameters there, so
//! an example never shows a call the cell cannot make.

use std::fmt::Write as _;

use serde_json::{json, Value};

use crate::model::catalog::ToolExample;
use crate::model::transport::Transport;
use crate::resolve::tools::ActiveTool;

/// One example call of `tool` as `transport` writes it.
pub fn call(transport: Transport, tool: &str, e: &ToolExample) -> String {
    match transport {
        Transport::Native => {
            let v = json!({"name": tool, "arguments": Value::Object(e.arguments.clone())});
            serde_json::to_string(&v).unwrap_or_default()
        }
        Transport::Xml => {
            let mut out = format!("<{tool}>\n");
            for (k, v) in &e.arguments {
                let text = match v {
                    Value::String(s) => s.clone(),
                    other => serde_json::to_string(other).unwrap_or_default(),
                };
                let _ = writeln!(out, "<{k}>{text}</{k}>");
            }
            let _ = write!(out, "</{tool}>");
            out
        }
        Transport::Json => {
            let mut m = serde_json::Map::new();
            m.insert("@action".into(), json!(tool));
            m.insert("identifier".into(), json!(format!("{tool}_example")));
            m.extend(e.arguments.clone());
            serde_json::to_string(&Value::Object(m)).unwrap_or_default()
        }
    }
}

/// Every active tool's examples, blocks separated by a blank line (empty without any).
pub fn examples(transport: Transport, tools: &[ActiveTool]) -> String {
    let built_in = |t: &ActiveTool, e: &ToolExample| Ok::<_, std::convert::Infallible>(call(transport, &t.name, e));
    match examples_with(tools, built_in) {
        Ok(text) => text,
        Err(never) => match never {},
    }
}

/// [`examples`] with each call written by `call` (a project's own call format).
pub fn examples_with<E>(
    tools: &[ActiveTool],
    mut call: impl FnMut(&ActiveTool, &ToolExample) -> Result<String, E>,
) -> Result<String, E> {
    let mut blocks = Vec::new();
    for t in tools {
        for e in &t.examples {
            let head = match &e.description {
                Some(d) => format!("Example ({}): {}", t.name, d.trim()),
                None => format!("Example ({}):", t.name),
            };
            let body = call(t, e)?;
            blocks.push(format!("{head}\n{}", body.trim_end_matches('\n')));
        }
    }
    Ok(blocks.join("\n\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example() -> ToolExample {
        let mut arguments = serde_json::Map::new();
        arguments.insert("path".into(), json!("src/main.rs"));
        arguments.insert("start_line".into(), json!(3));
        ToolExample { description: Some("Read from line 3.".into()), arguments, span: Default::default() }
    }

    #[test]
    fn each_transport_writes_its_own_call() {
        let e = example();
        assert_eq!(
            call(Transport::Native, "read_file", &e),
            r#"{"name":"read_file","arguments":{"path":"src/main.rs","start_line":3}}"#
        );
        assert_eq!(
            call(Transport::Xml, "read_file", &e),
            "<read_file>\n<path>src/main.rs</path>\n<start_line>3</start_line>\n</read_file>"
        );
        assert_eq!(
            call(Transport::Json, "read_file", &e),
            r#"{"@action":"read_file","identifier":"read_file_example","path":"src/main.rs","start_line":3}"#
        );
    }

    #[test]
    fn only_active_tools_examples_are_shown() {
        let t = ActiveTool { name: "read_file".into(), examples: vec![example()], ..Default::default() };
        let text = examples(Transport::Xml, &[t, ActiveTool { name: "other".into(), ..Default::default() }]);
        assert!(text.starts_with("Example (read_file): Read from line 3.\n<read_file>"));
        assert_eq!(examples(Transport::Xml, &[]), "");
    }
}
