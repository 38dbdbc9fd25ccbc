//! Completion: tool names inside a template's strings (what `"x" in tool_names` tests), file
//! names inside `include`/`import`/`extends` strings, `switches.` and `variables.` members;
//! in the YAML files, the names a key's list or value takes (a profile's `tools:` and
//! `sections:`, a case's `switches:`, `profile:`), and the keys the editor JSON Schema
//! (`promptc schema`, generated from `src/format/`) allows at the cursor's place.

use lsp_types::{CompletionItem, CompletionItemKind};
use promptc::{SchemaKind, SymbolKind};
use serde_json::Value;

use super::lookup::is_template;
use super::state::{Analysis, State};

/// The completions at byte `at` of file `rel`.
pub(crate) fn complete(state: &State, rel: &str, at: usize) -> Vec<CompletionItem> {
    let (Some(analysis), Some(text)) = (state.analysis.as_ref(), state.text(rel)) else { return Vec::new() };
    let at = at.min(text.len());
    if !text.is_char_boundary(at) {
        return Vec::new();
    }
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line_start..at];
    let prefix_len = before.chars().rev().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '-').count();
    let typed: String = before.chars().rev().take(prefix_len).collect::<Vec<_>>().into_iter().rev().collect();
    let head = &before[..before.len() - typed.len()];
    if head.ends_with("switches.") {
        return names(analysis, SymbolKind::Switch);
    }
    if head.ends_with("variables.") {
        return names(analysis, SymbolKind::Variable);
    }
    if is_template(rel) {
        return in_template(analysis, head);
    }
    in_yaml(analysis, &text[..line_start], head, rel == state.manifest_rel())
}

fn item(label: &str, kind: CompletionItemKind, detail: &str) -> CompletionItem {
    CompletionItem {
        label: label.to_string(),
        kind: Some(kind),
        detail: (!detail.is_empty()).then(|| detail.to_string()),
        ..CompletionItem::default()
    }
}

/// Every declaration of `kind`, with its description as detail.
fn names(analysis: &Analysis, kind: SymbolKind) -> Vec<CompletionItem> {
    let lsp_kind = match kind {
        SymbolKind::Tool => CompletionItemKind::FUNCTION,
        SymbolKind::Switch | SymbolKind::Variable => CompletionItemKind::VARIABLE,
        SymbolKind::Section => CompletionItemKind::MODULE,
        _ => CompletionItemKind::CONSTANT,
    };
    let first_line = |d: &str| d.lines().next().unwrap_or("").to_string();
    analysis
        .symbols
        .iter()
        .filter(|s| s.kind == kind)
        .map(|s| item(&s.name, lsp_kind, &first_line(&s.description)))
        .collect()
}

/// Inside a string of a template: a file after `include`/`import`/`extends`, a tool otherwise.
fn in_template(analysis: &Analysis, head: &str) -> Vec<CompletionItem> {
    let quotes = head.chars().filter(|c| *c == '"' || *c == '\'').count();
    if quotes % 2 == 0 {
        return Vec::new();
    }
    let statement = head.rsplit("{%").next().unwrap_or("");
    if ["include", "import", "extends", "from"].iter().any(|k| statement.trim_start().starts_with(k)) {
        return analysis
            .project
            .file_paths()
            .into_iter()
            .filter(|f| is_template(f))
            .map(|f| item(f, CompletionItemKind::FILE, ""))
            .collect();
    }
    names(analysis, SymbolKind::Tool)
}

/// Indentation of a YAML line, and its key if it has one.
fn key_of(line: &str) -> (usize, Option<&str>) {
    let indent = line.len() - line.trim_start().len();
    let body = line.trim_start().trim_start_matches("- ");
    let key = body.split_once(':').map(|(k, _)| k.trim()).filter(|k| !k.is_empty() && !k.contains(' '));
    (indent, key)
}

/// The keys enclosing a line of indentation `indent`, outermost first, from the lines above.
fn parents(above: &str, mut indent: usize) -> Vec<&str> {
    let mut out = Vec::new();
    for line in above.lines().rev() {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let (i, key) = key_of(line);
        if i < indent {
            if let Some(k) = key {
                out.push(k);
            }
            indent = i;
            if i == 0 {
                break;
            }
        }
    }
    out.reverse();
    out
}

/// In a YAML file: after `KEY: ` or in a list under a key, the names that key takes; at the
/// start of a line of the manifest, the keys the schema allows there.
fn in_yaml(analysis: &Analysis, above: &str, head: &str, manifest: bool) -> Vec<CompletionItem> {
    let indent = head.len() - head.trim_start().len();
    let trimmed = head.trim_start();
    let value_key = trimmed.trim_start_matches("- ").split_once(':').map(|(k, _)| k.trim());
    let in_list = trimmed.starts_with("- ") || trimmed.contains('[');
    let path = parents(above, indent);
    let key = value_key.or_else(|| if in_list || trimmed.is_empty() { path.last().copied() } else { None });
    if let Some(kind) = key.and_then(|k| kind_of_key(&path, k)) {
        if value_key.is_some() || in_list {
            return names(analysis, kind);
        }
    }
    if manifest && value_key.is_none() && !in_list {
        return schema_keys(&path);
    }
    Vec::new()
}

/// The kind of name a key's value holds, where the key says (`profiles.X.tools` holds tools,
/// the manifest's own `tools:` holds files).
fn kind_of_key(path: &[&str], key: &str) -> Option<SymbolKind> {
    let under = |k: &str| path.first() == Some(&k);
    match key {
        "tools" | "exclude" if under("profiles") || under("subagents") => Some(SymbolKind::Tool),
        "sections" if under("profiles") || under("subagents") => Some(SymbolKind::Section),
        "switches" if under("cases") => Some(SymbolKind::Switch),
        "variables" if under("cases") => Some(SymbolKind::Variable),
        "profile" | "lite" | "standard" if under("defaults") || under("selection") => Some(SymbolKind::Profile),
        "slot" => Some(SymbolKind::Slot),
        "when" => Some(SymbolKind::Switch),
        _ => None,
    }
}

/// The keys the manifest's schema allows under `path`.
fn schema_keys(path: &[&str]) -> Vec<CompletionItem> {
    let Ok(schema) = serde_json::from_str::<Value>(&promptc::editor_schema(SchemaKind::Manifest)) else {
        return Vec::new();
    };
    let mut node = &schema;
    for key in path {
        node = resolve(&schema, node);
        node = match node.get("properties").and_then(|p| p.get(*key)) {
            Some(n) => n,
            None => match node.get("additionalProperties") {
                Some(n) if n.is_object() => n,
                _ => return Vec::new(),
            },
        };
    }
    let node = resolve(&schema, node);
    let Some(props) = node.get("properties").and_then(Value::as_object) else { return Vec::new() };
    props
        .iter()
        .map(|(k, v)| {
            let doc = resolve(&schema, v).get("description").or_else(|| v.get("description"));
            item(k, CompletionItemKind::PROPERTY, doc.and_then(Value::as_str).unwrap_or(""))
        })
        .collect()
}

/// A schema node with its `$ref` (and a one-entry `allOf`/`anyOf`'s) followed.
fn resolve<'s>(schema: &'s Value, mut node: &'s Value) -> &'s Value {
    for _ in 0..8 {
        if let Some(r) = node.get("$ref").and_then(Value::as_str) {
            let name = r.trim_start_matches("#/$defs/");
            match schema.get("$defs").and_then(|d| d.get(name)) {
                Some(n) => node = n,
                None => return node,
            }
        } else if let Some(first) = ["allOf", "anyOf", "oneOf"].iter().find_map(|k| {
            node.get(*k).and_then(Value::as_array).and_then(|a| a.iter().find(|n| n.get("$ref").is_some()))
        }) {
            node = first;
        } else {
            return node;
        }
    }
    node
}
