//! P006 transport-parity: an xml or json cell that does not describe every tool the native cell
//! sends.

use std::collections::BTreeSet;

use crate::code::{Level, RuleCode};
use crate::diagnostic::Diagnostic;
use crate::lint::registry::Rule;
use crate::lint::{finding, CellView};
use crate::model::transport::Transport;
use crate::model::Project;

pub const RULE: Rule = Rule {
    code: RuleCode::P006,
    name: "transport-parity",
    default: Level::Deny,
    summary: "the XML or JSON cell does not describe the tools the native cell sends",
    explain: "For a given profile, native, xml and json must describe the same tools and parameters. Native sends \
        them as JSON beside the prompt; xml needs a `generate: tool_docs` section and json a `generate: \
        action_schema` section in the profile, active in that cell, or the model never learns the tools \
        exist. With a project's own `tool_docs.tool` template, each tool's text must name the tool and every \
        parameter it has in that cell.\n\nFix: add the generated section to the profile's `sections:`, or make the \
        template show every parameter (`{% for p in tool.parameters %}`).",
};

/// Whether `text` has `name` as a whole word (not inside a longer identifier).
fn names_word(text: &str, name: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(name).any(|(i, _)| {
        !text[..i].chars().next_back().is_some_and(ident) && !text[i + name.len()..].chars().next().is_some_and(ident)
    })
}

/// Check the generated tool docs and action schema of every non-native cell.
pub(crate) fn check(project: &Project, views: &[CellView], out: &mut Vec<Diagnostic>) {
    let mut reported = BTreeSet::new();
    for v in views.iter().filter(|v| v.cell.transport != Transport::Native && !v.compiled.tools.is_empty()) {
        let c = &v.compiled;
        let generated = |g: &str| {
            c.sections
                .iter()
                .filter(|s| s.origin == format!("generated:{g}"))
                .map(|s| s.text.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        };
        // Each tool not fully described, as it is named in the message.
        let missing: Vec<String> = match v.cell.transport {
            // Each tool's documentation (built-in or the project's `tool_docs.tool`) must be in the
            // prompt, name the tool and every parameter the native cell sends.
            Transport::Xml => {
                let docs = generated("tool_docs");
                c.tools
                    .iter()
                    .zip(&c.tool_texts)
                    .filter_map(|(t, tt)| {
                        let text = &tt.text;
                        if text.is_empty() || !docs.contains(text.as_str()) || !names_word(text, &t.name) {
                            return Some(format!("`{}`", t.name));
                        }
                        let p = t.params.iter().find(|p| !names_word(text, &p.name))?;
                        Some(format!("`{}`: its parameter `{}`", t.name, p.name))
                    })
                    .collect()
            }
            Transport::Json => {
                let schema = generated("action_schema");
                c.tools
                    .iter()
                    .filter(|t| !schema.contains(&format!("\"{}\"", t.name)))
                    .map(|t| format!("`{}`", t.name))
                    .collect()
            }
            Transport::Native => Vec::new(),
        };
        if missing.is_empty() {
            continue;
        }
        let section =
            if v.cell.transport == Transport::Xml { "generate: tool_docs" } else { "generate: action_schema" };
        if reported.insert((v.cell.profile.clone(), v.cell.transport, v.cell.subagent.clone())) {
            out.push(
                finding(
                    RuleCode::P006,
                    format!(
                        "cell `{}` does not describe {} of its {} tools (e.g. {}); the native cell sends them all",
                        v.cell.stem(),
                        missing.len(),
                        c.tools.len(),
                        missing[0]
                    ),
                )
                .with_label(v.profile_label(project))
                .with_help(format!("add a section with `{section}` to the profile's sections, active in this cell")),
            );
        }
    }
}
