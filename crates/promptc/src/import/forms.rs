//! The forms `import` reads: where the tools list sits in the input, which form an entry is
//! in, and each tool definition found in it (not yet converted). What does not fit the form
//! becomes a problem at its JSON path, never silently dropped.

use serde_json::{Map, Value};

use crate::diagnostic::Diagnostic;
use crate::error::Result;
use crate::model::provider::Provider;

use super::{fail, ImportFormat, Problem};

/// One tool definition found in the input, not yet converted.
pub(super) struct Found<'a> {
    /// JSON path of the tool object.
    pub(super) path: String,
    /// The form this entry is written in (a list may mix them: each entry is read in its own).
    pub(super) form: ImportFormat,
    pub(super) name: &'a Value,
    pub(super) description: Option<&'a Value>,
    /// The parameters schema and its JSON path.
    pub(super) schema: Option<(&'a Value, String)>,
    /// Whether the schema is full JSON Schema even in a Gemini input (`parametersJsonSchema`).
    pub(super) json_schema: bool,
    /// Whether it is a Gemini function declaration.
    pub(super) gemini: bool,
    pub(super) strict: Option<bool>,
    /// The entry's fields promptc has no model for, sent back as written to the form's
    /// provider (`provider_fields:`), in input order.
    pub(super) fields: Map<String, Value>,
    /// The entry's keys in input order, when promptc would write them in another order
    /// (`provider_key_order:`).
    pub(super) key_order: Option<Vec<String>>,
}

/// An entry that is a provider's own tool rather than a function: a hosted tool of OpenAI
/// Responses (`{"type": "web_search"}`), a custom (free-form) tool of Chat Completions or
/// Responses, an Anthropic server tool (`{"type": "web_search_20250305", "name": …}`). A catalog
/// describes functions; these are configured by the provider, so the import names them instead of
/// reading them as a malformed function.
pub(super) struct Hosted {
    /// JSON path of the entry.
    pub(super) path: String,
    /// The API whose tool it is.
    pub(super) provider: Provider,
    /// Its `type`.
    pub(super) kind: String,
}

/// The provider's own tool `v` is, when it is one (see `Hosted`).
pub(super) fn hosted(v: &Value, path: &str) -> Option<Hosted> {
    let m = v.as_object()?;
    let kind = m.get("type").and_then(Value::as_str)?;
    if kind == "function" || m.contains_key("input_schema") || m.contains_key("inputSchema") {
        return None;
    }
    let provider = if kind == "custom" && m.get("custom").is_some_and(Value::is_object) {
        Provider::OpenAiChat
    } else if m.contains_key("name") && anthropic_server_type(kind) {
        Provider::Anthropic
    } else {
        Provider::OpenAiResponses
    };
    Some(Hosted { path: path.to_string(), provider, kind: kind.to_string() })
}

/// Whether `t` is an Anthropic server tool's versioned type (`web_search_20250305`, `bash_20250124`).
fn anthropic_server_type(t: &str) -> bool {
    t.rsplit_once('_').is_some_and(|(_, date)| date.len() == 8 && date.bytes().all(|b| b.is_ascii_digit()))
}

/// The keys of entry `m` in input order, when rendering it back would write them in another:
/// promptc writes its own keys in `own` order (those the input has, and that are not carried as
/// fields), then the carried `fields` in their order.
fn key_order(m: &Map<String, Value>, own: &[&str], fields: &Map<String, Value>) -> Option<Vec<String>> {
    let written: Vec<&str> = m.keys().map(String::as_str).collect();
    let rendered: Vec<&str> = own
        .iter()
        .copied()
        .filter(|k| m.contains_key(*k) && !fields.contains_key(*k))
        .chain(fields.keys().map(String::as_str))
        .collect();
    (written != rendered).then(|| written.iter().map(|k| k.to_string()).collect())
}

/// The keys of `m` outside `known`, as written, and a `null` description (a catalog tool
/// without a description carries it as a field, so that it renders back).
fn other_fields(m: &Map<String, Value>, known: &[&str]) -> Map<String, Value> {
    m.iter()
        .filter(|(k, v)| !known.contains(&k.as_str()) || (*k == "description" && v.is_null()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// The tools list of the input and its path: the input itself, `tools` of a request body
/// or MCP result, `result.tools` of a JSON-RPC response.
pub(super) fn tool_list<'a>(v: &'a Value, source: &str) -> Result<(&'a [Value], String)> {
    let unknown = || {
        fail(
            source,
            "the input is not a list of tool definitions in a form promptc knows",
            &format!(
                "promptc imports {}; a request body or JSON-RPC response holding one of these works too",
                ImportFormat::ALL.iter().map(|f| format!("{f} {}", f.shape())).collect::<Vec<_>>().join(", ")
            ),
        )
    };
    match v {
        Value::Array(a) => Ok((a, "tools".into())),
        Value::Object(m) => {
            if let Some(Value::Object(r)) = m.get("result") {
                if let Some(Value::Array(a)) = r.get("tools") {
                    return Ok((a, "result.tools".into()));
                }
            }
            match m.get("tools") {
                Some(Value::Array(a)) => Ok((a, "tools".into())),
                _ if m.contains_key("error") && m.contains_key("jsonrpc") => Err(fail(
                    source,
                    "the input is a JSON-RPC error response, not a tools/list result",
                    "save the response of a successful tools/list call",
                )),
                _ => Err(unknown()),
            }
        }
        _ => Err(unknown()),
    }
}

/// The form of one entry of the tools list, from its keys.
pub(super) fn entry_format(v: &Value) -> Option<ImportFormat> {
    let m = v.as_object()?;
    if m.contains_key("functionDeclarations") || m.contains_key("function_declarations") {
        return Some(ImportFormat::Gemini);
    }
    if m.get("type").and_then(Value::as_str) == Some("function") {
        return Some(if m.contains_key("function") { ImportFormat::OpenAiChat } else { ImportFormat::OpenAiResponses });
    }
    if m.contains_key("input_schema") {
        return Some(ImportFormat::Anthropic);
    }
    if m.contains_key("inputSchema") {
        return Some(ImportFormat::Mcp);
    }
    if m.contains_key("name")
        && (m.contains_key("parameters") || m.contains_key("description"))
        && !m.contains_key("type")
    {
        return Some(ImportFormat::Bare);
    }
    None
}

/// A problem for each key of `m` the form does not import (a catalog could not say it).
fn keys_known(m: &Map<String, Value>, path: &str, known: &[&str], tool: &str, problems: &mut Vec<Problem>) {
    for k in m.keys() {
        if !known.contains(&k.as_str()) {
            problems.push((
                format!("{path}.{k}"),
                Diagnostic::error(format!(
                    "tool `{tool}`: `{k}` cannot be expressed in a promptc catalog (at `{path}.{k}`)"
                ))
                .with_help(format!("a tool definition of this form is imported from: {}", known.join(", "))),
            ));
        }
    }
}

/// A tool's name for messages, before it is checked to be a string.
fn name_of(v: &Value) -> String {
    v.as_str().map(|s| crate::diagnostic::excerpt(s, 80)).unwrap_or_else(|| "?".into())
}

/// The problem of an entry that is not a tool definition of `format`.
fn expected(format: ImportFormat, path: &str, problems: &mut Vec<Problem>) {
    problems.push((
        path.to_string(),
        Diagnostic::error(format!("`{path}` is not a tool definition of the {format} form"))
            .with_help(format!("{format} tools look like {}", format.shape())),
    ))
}

/// The `strict` flag of the object `m` at `at`, when it has one.
fn strict_of(m: &Map<String, Value>, at: &str, problems: &mut Vec<Problem>) -> Option<bool> {
    match m.get("strict") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(other) => {
            problems.push((
                format!("{at}.strict"),
                Diagnostic::error(format!("`{at}.strict` must be true or false, found {other}")),
            ));
            None
        }
    }
}

/// Every tool of `list`, each entry read in its own form (`format` when it is forced, or for an
/// entry of no known form), with problems for what does not fit it; the provider's own tools
/// (`Hosted`) are listed apart.
pub(super) fn find_tools<'a>(
    list: &'a [Value],
    base: &str,
    (format, forced): (ImportFormat, bool),
    problems: &mut Vec<Problem>,
    provider_tools: &mut Vec<Hosted>,
) -> Vec<Found<'a>> {
    let mut out = Vec::new();
    for (i, entry) in list.iter().enumerate() {
        let path = format!("{base}[{i}]");
        if let Some(h) = hosted(entry, &path) {
            provider_tools.push(h);
            continue;
        }
        let Some(m) = entry.as_object() else {
            expected(format, &path, problems);
            continue;
        };
        let format = match forced {
            true => format,
            false => entry_format(entry).unwrap_or(format),
        };
        match format {
            ImportFormat::OpenAiChat => out.extend(openai_chat(entry, m, path, problems)),
            ImportFormat::OpenAiResponses | ImportFormat::Anthropic | ImportFormat::Mcp | ImportFormat::Bare => {
                out.extend(flat(entry, m, path, format, problems))
            }
            ImportFormat::Gemini => gemini(m, &path, problems, &mut out),
        }
    }
    out
}

/// An OpenAI Chat Completions entry: the tool sits under `function`.
fn openai_chat<'a>(
    entry: &Value,
    m: &'a Map<String, Value>,
    path: String,
    problems: &mut Vec<Problem>,
) -> Option<Found<'a>> {
    let format = ImportFormat::OpenAiChat;
    let Some(f) = m.get("function").and_then(Value::as_object).filter(|_| entry_format(entry) == Some(format)) else {
        expected(format, &path, problems);
        return None;
    };
    let fpath = format!("{path}.function");
    let Some(name) = f.get("name") else {
        problems.push((fpath.clone(), Diagnostic::error(format!("`{fpath}` has no `name`"))));
        return None;
    };
    keys_known(m, &path, &["type", "function"], &name_of(name), problems);
    let mut fields = other_fields(f, &["name", "description", "parameters", "strict"]);
    // `"strict": false` or `null` is what promptc leaves unsaid outside strict mode: kept as
    // written (promptc writes `true` itself in strict mode).
    if let Some(v) = f.get("strict").filter(|v| **v != Value::Bool(true)) {
        fields.insert("strict".into(), v.clone());
    }
    Some(Found {
        form: format,
        name,
        description: f.get("description"),
        schema: f.get("parameters").map(|s| (s, format!("{fpath}.parameters"))),
        json_schema: true,
        gemini: false,
        strict: Some(strict_of(f, &fpath, problems).unwrap_or(false)),
        path: fpath,
        key_order: key_order(f, &["name", "description", "parameters", "strict"], &fields),
        fields,
    })
}

/// An entry that is the tool itself (OpenAI Responses, Anthropic, MCP): the forms differ in
/// their keys, the schema's key and what `strict` means.
fn flat<'a>(
    entry: &Value,
    m: &'a Map<String, Value>,
    path: String,
    format: ImportFormat,
    problems: &mut Vec<Problem>,
) -> Option<Found<'a>> {
    // An Anthropic server tool (`web_search_…`) has a type and no schema: say so.
    if format == ImportFormat::Anthropic && m.get("type").is_some_and(|t| t != "custom") {
        anthropic_checks(m, &path, m.get("name").unwrap_or(&Value::Null), problems);
        return None;
    }
    // A bare list's entries are recognised by their keys only when detected; `--from bare`
    // reads any object with a name.
    if entry_format(entry) != Some(format) && format != ImportFormat::Bare {
        expected(format, &path, problems);
        return None;
    }
    let Some(name) = m.get("name") else {
        problems.push((path.clone(), Diagnostic::error(format!("`{path}` has no `name`"))));
        return None;
    };
    let (known, schema_key): (&[&str], &str) = match format {
        ImportFormat::OpenAiResponses => (&["type", "name", "description", "parameters", "strict"], "parameters"),
        ImportFormat::Anthropic => (&["type", "name", "description", "input_schema"], "input_schema"),
        ImportFormat::Bare => (&["name", "description", "parameters"], "parameters"),
        ImportFormat::OpenAiChat | ImportFormat::Gemini | ImportFormat::Mcp => {
            (&["name", "description", "inputSchema"], "inputSchema")
        }
    };
    // Other keys of a provider's entry (every field of an MCP tool, whatever revision of the
    // protocol added it) are sent back to it as written; a bare list has no provider of its own
    // to send them to.
    if format == ImportFormat::Bare {
        keys_known(m, &path, known, &name_of(name), problems);
    }
    let mut fields = other_fields(m, known);
    // Anthropic's `type: custom` is a field like any other; a server tool's type is not.
    if format == ImportFormat::Anthropic && m.get("type").is_some_and(|t| t == "custom") {
        fields.insert("type".into(), m["type"].clone());
    }
    let strict = strict_of(m, &path, problems);
    let strict = match format {
        // The Responses API defaults `strict` to true.
        ImportFormat::OpenAiResponses => Some(strict.unwrap_or(true)),
        ImportFormat::Anthropic => {
            anthropic_checks(m, &path, name, problems);
            None
        }
        ImportFormat::OpenAiChat | ImportFormat::Gemini | ImportFormat::Mcp | ImportFormat::Bare => None,
    };
    // A bare list is rendered back in another form (Chat Completions functions): its order is
    // that form's.
    let key_order = match format {
        ImportFormat::Bare => None,
        _ => key_order(m, known, &fields),
    };
    Some(Found {
        form: format,
        name,
        description: m.get("description"),
        schema: m.get(schema_key).map(|s| (s, format!("{path}.{schema_key}"))),
        json_schema: true,
        gemini: false,
        strict,
        path,
        fields,
        key_order,
    })
}

/// What an Anthropic tool may say that a catalog cannot: a type other than `custom` (a server
/// tool, configured by the provider rather than described by a schema).
fn anthropic_checks(m: &Map<String, Value>, path: &str, name: &Value, problems: &mut Vec<Problem>) {
    if m.get("type").is_some_and(|t| t.as_str() != Some("custom")) {
        problems.push((
            format!("{path}.type"),
            Diagnostic::error(format!(
                "tool `{}`: only custom tools can be imported, found type {} (at `{path}.type`)",
                name_of(name),
                m.get("type").unwrap_or(&Value::Null)
            ))
            .with_help("server and built-in tools are configured by the provider, not a schema"),
        ));
    }
}

/// A Gemini entry: a tool object holding a list of function declarations, each a tool.
fn gemini<'a>(m: &'a Map<String, Value>, path: &str, problems: &mut Vec<Problem>, out: &mut Vec<Found<'a>>) {
    let key = if m.contains_key("functionDeclarations") { "functionDeclarations" } else { "function_declarations" };
    let Some(decls) = m.get(key).and_then(Value::as_array) else {
        expected(ImportFormat::Gemini, path, problems);
        return;
    };
    for k in m.keys().filter(|k| *k != key) {
        problems.push((
            format!("{path}.{k}"),
            Diagnostic::error(format!(
                "`{k}` (a Gemini built-in tool or option) cannot be expressed in a promptc catalog (at `{path}.{k}`)"
            ))
            .with_help("promptc imports function declarations; remove other tools from the input"),
        ));
    }
    for (j, d) in decls.iter().enumerate() {
        let dpath = format!("{path}.{key}[{j}]");
        let Some(dm) = d.as_object() else {
            problems
                .push((dpath.clone(), Diagnostic::error(format!("`{dpath}` is not a function declaration object"))));
            continue;
        };
        let Some(name) = dm.get("name") else {
            problems.push((dpath.clone(), Diagnostic::error(format!("`{dpath}` has no `name`"))));
            continue;
        };
        let fields = other_fields(dm, &["name", "description", "parameters", "parametersJsonSchema"]);
        // What gemini-cli sends: full JSON Schema instead of the OpenAPI subset.
        let (schema, json_schema) = match dm.get("parametersJsonSchema") {
            Some(s) => (Some((s, format!("{dpath}.parametersJsonSchema"))), true),
            None => (dm.get("parameters").map(|s| (s, format!("{dpath}.parameters"))), false),
        };
        if dm.contains_key("parameters") && json_schema {
            problems.push((
                format!("{dpath}.parameters"),
                Diagnostic::error(format!(
                    "tool `{}` has both `parameters` and `parametersJsonSchema` (at `{dpath}`)",
                    name_of(name)
                ))
                .with_help("Gemini takes one of them: remove the other from the input"),
            ));
        }
        out.push(Found {
            form: ImportFormat::Gemini,
            name,
            description: dm.get("description"),
            schema,
            json_schema,
            gemini: true,
            strict: None,
            path: dpath,
            key_order: key_order(dm, &["name", "description", "parameters", "parametersJsonSchema"], &fields),
            fields,
        });
    }
}
