//! `promptc import tools`: tool definitions an agent already sends (OpenAI Chat Completions or
//! Responses, Anthropic Messages, Gemini, an MCP `tools/list` result) turned into a promptc
//! project — one catalog file per tool and a minimal manifest — that renders them back.
//!
//! The input's form is detected from its shape (or forced); its schemas are converted by
//! `schema` into the catalog's parameter model, refusing what a catalog cannot express;
//! `yaml` writes files that read back byte for byte. Writing goes through
//! `source::folder`: the output folder is replaced in one step, only when it is empty or was
//! written by an earlier import.

pub mod locate;
pub mod schema;
pub mod yaml;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::diagnostic::{Diagnostic, Label, Position};
use crate::error::{Error, ErrorKind, Result};
use crate::model::catalog::valid_tool_name;
use crate::model::provider::Provider;

use schema::{Converter, Dialect, Object};

/// A form of tool definitions `import` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ImportFormat {
    /// OpenAI Chat Completions: `[{"type": "function", "function": {name, description, parameters, strict}}]`.
    OpenAiChat,
    /// OpenAI Responses: `[{"type": "function", name, description, parameters, strict}]`.
    OpenAiResponses,
    /// Anthropic Messages: `[{name, description, input_schema}]`.
    Anthropic,
    /// Gemini: `[{"functionDeclarations": [{name, description, parameters}]}]`.
    Gemini,
    /// An MCP `tools/list` result: `{"tools": [{name, description, inputSchema}]}`.
    Mcp,
}

impl ImportFormat {
    /// Every form, in the order `--from` lists them.
    pub const ALL: [ImportFormat; 5] = [
        ImportFormat::OpenAiChat,
        ImportFormat::OpenAiResponses,
        ImportFormat::Anthropic,
        ImportFormat::Gemini,
        ImportFormat::Mcp,
    ];

    /// The form's name (`--from` values): a provider name, or `mcp`.
    pub fn as_str(self) -> &'static str {
        match self {
            ImportFormat::OpenAiChat => "openai",
            ImportFormat::OpenAiResponses => "openai-responses",
            ImportFormat::Anthropic => "anthropic",
            ImportFormat::Gemini => "gemini",
            ImportFormat::Mcp => "mcp",
        }
    }

    /// The form named `s`, if any.
    pub fn parse(s: &str) -> Option<ImportFormat> {
        ImportFormat::ALL.into_iter().find(|f| f.as_str() == s)
    }

    /// The provider whose projection renders this form back (MCP's plain JSON Schema is
    /// Anthropic's `input_schema`).
    pub fn provider(self) -> Provider {
        match self {
            ImportFormat::OpenAiChat => Provider::OpenAiChat,
            ImportFormat::OpenAiResponses => Provider::OpenAiResponses,
            ImportFormat::Anthropic | ImportFormat::Mcp => Provider::Anthropic,
            ImportFormat::Gemini => Provider::Gemini,
        }
    }

    fn shape(self) -> &'static str {
        match self {
            ImportFormat::OpenAiChat => "[{\"type\": \"function\", \"function\": {\"name\", \"parameters\"}}]",
            ImportFormat::OpenAiResponses => "[{\"type\": \"function\", \"name\", \"parameters\"}]",
            ImportFormat::Anthropic => "[{\"name\", \"input_schema\"}]",
            ImportFormat::Gemini => "[{\"functionDeclarations\": [{\"name\", \"parameters\"}]}]",
            ImportFormat::Mcp => "{\"tools\": [{\"name\", \"inputSchema\"}]}",
        }
    }
}

impl std::fmt::Display for ImportFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How to import.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ImportOptions {
    /// The input's form; `None` detects it.
    pub from: Option<ImportFormat>,
    /// `strict_tools` for the manifest; `None` takes it from the input's `strict` flags.
    pub strict_tools: Option<bool>,
}

impl ImportOptions {
    /// Detect the form and take strict mode from the input.
    pub fn new() -> ImportOptions {
        ImportOptions::default()
    }

    /// Read the input as `format` instead of detecting it.
    pub fn from(mut self, format: ImportFormat) -> ImportOptions {
        self.from = Some(format);
        self
    }

    /// Set the manifest's `strict_tools` instead of taking it from the input.
    pub fn strict_tools(mut self, strict: bool) -> ImportOptions {
        self.strict_tools = Some(strict);
        self
    }
}

/// An imported project, as files (path relative to the project folder → text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Imported {
    format: ImportFormat,
    strict: bool,
    tools: Vec<String>,
    files: BTreeMap<String, String>,
}

impl Imported {
    /// The form the input was read as.
    pub fn format(&self) -> ImportFormat {
        self.format
    }

    /// The provider the project renders for by default.
    pub fn provider(&self) -> Provider {
        self.format.provider()
    }

    /// The manifest's `strict_tools`.
    pub fn strict_tools(&self) -> bool {
        self.strict
    }

    /// The imported tools' names, in input order.
    pub fn tool_names(&self) -> &[String] {
        &self.tools
    }

    /// The project's files: `promptc.yaml` and one catalog file per tool.
    pub fn files(&self) -> &BTreeMap<String, String> {
        &self.files
    }
}

/// The first line of every manifest `import` writes; a folder whose `promptc.yaml` starts
/// with it is promptc's to replace.
pub const MARKER: &str = "# Written by `promptc import tools`.";

/// The toolset every imported tool belongs to (the profile registers it).
const TOOLSET: &str = "imported";

fn fail(source: &str, message: impl Into<String>, help: &str) -> Error {
    Diagnostic::error(message.into())
        .with_label(Label::file(source))
        .with_help(help.to_string())
        .into_error(ErrorKind::Usage)
}

/// Parse JSON, locating a syntax error at its line and column.
fn parse_json(text: &str, source: &str) -> Result<Value> {
    serde_json::from_str(text).map_err(|e| {
        let message = e.to_string();
        let message = match message.rfind(" at line ") {
            Some(i) => &message[..i],
            None => message.as_str(),
        };
        let position = Position::new(e.line().max(1), e.column().max(1), 1);
        Diagnostic::error(format!("the tool definitions are not valid JSON: {message}"))
            .with_label(Label::at(source, text, position))
            .with_help("give the JSON the agent sends: a tools array, a request body with \"tools\", or an MCP tools/list result")
            .into_error(ErrorKind::Usage)
    })
}

/// A problem and the JSON path it is at (empty: the whole input).
type Problem = (String, Diagnostic);

/// One tool definition found in the input, not yet converted.
struct Found<'a> {
    /// JSON path of the tool object.
    path: String,
    name: &'a Value,
    description: Option<&'a Value>,
    /// The parameters schema and its JSON path.
    schema: Option<(&'a Value, String)>,
    strict: Option<bool>,
}

/// The tools list of the input and its path: the input itself, `tools` of a request body
/// or MCP result, `result.tools` of a JSON-RPC response.
fn tool_list<'a>(v: &'a Value, source: &str) -> Result<(&'a [Value], String)> {
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
fn entry_format(v: &Value) -> Option<ImportFormat> {
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
    None
}

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

fn name_of(v: &Value) -> String {
    v.as_str().map(|s| crate::diagnostic::excerpt(s, 80)).unwrap_or_else(|| "?".into())
}

/// Every tool of `list` read as `format`, with problems for what does not fit it.
fn find_tools<'a>(list: &'a [Value], base: &str, format: ImportFormat, problems: &mut Vec<Problem>) -> Vec<Found<'a>> {
    let mut out = Vec::new();
    let expected = |path: &str, problems: &mut Vec<Problem>| {
        problems.push((
            path.to_string(),
            Diagnostic::error(format!("`{path}` is not a {format} tool definition"))
                .with_help(format!("{format} tools look like {}", format.shape())),
        ))
    };
    for (i, entry) in list.iter().enumerate() {
        let path = format!("{base}[{i}]");
        let Some(m) = entry.as_object() else {
            expected(&path, problems);
            continue;
        };
        let strict_of = |m: &Map<String, Value>, at: &str, problems: &mut Vec<Problem>| match m.get("strict") {
            None | Some(Value::Null) => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(other) => {
                problems.push((
                    format!("{at}.strict"),
                    Diagnostic::error(format!("`{at}.strict` must be true or false, found {other}")),
                ));
                None
            }
        };
        match format {
            ImportFormat::OpenAiChat => {
                let Some(f) =
                    m.get("function").and_then(Value::as_object).filter(|_| entry_format(entry) == Some(format))
                else {
                    expected(&path, problems);
                    continue;
                };
                let fpath = format!("{path}.function");
                let Some(name) = f.get("name") else {
                    problems.push((fpath.clone(), Diagnostic::error(format!("`{fpath}` has no `name`"))));
                    continue;
                };
                keys_known(m, &path, &["type", "function"], &name_of(name), problems);
                keys_known(f, &fpath, &["name", "description", "parameters", "strict"], &name_of(name), problems);
                out.push(Found {
                    name,
                    description: f.get("description"),
                    schema: f.get("parameters").map(|s| (s, format!("{fpath}.parameters"))),
                    strict: Some(strict_of(f, &fpath, problems).unwrap_or(false)),
                    path: fpath,
                });
            }
            ImportFormat::OpenAiResponses | ImportFormat::Anthropic | ImportFormat::Mcp => {
                if entry_format(entry) != Some(format) {
                    expected(&path, problems);
                    continue;
                }
                let Some(name) = m.get("name") else {
                    problems.push((path.clone(), Diagnostic::error(format!("`{path}` has no `name`"))));
                    continue;
                };
                let (known, schema_key): (&[&str], &str) = match format {
                    ImportFormat::OpenAiResponses => {
                        (&["type", "name", "description", "parameters", "strict"], "parameters")
                    }
                    ImportFormat::Anthropic => {
                        (&["type", "name", "description", "input_schema", "strict"], "input_schema")
                    }
                    ImportFormat::OpenAiChat | ImportFormat::Gemini | ImportFormat::Mcp => {
                        (&["name", "description", "inputSchema"], "inputSchema")
                    }
                };
                keys_known(m, &path, known, &name_of(name), problems);
                let strict = strict_of(m, &path, problems);
                let strict = match format {
                    // The Responses API defaults `strict` to true.
                    ImportFormat::OpenAiResponses => Some(strict.unwrap_or(true)),
                    ImportFormat::Anthropic => {
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
                        if strict == Some(true) {
                            problems.push((
                                format!("{path}.strict"),
                                Diagnostic::error(format!(
                                    "tool `{}`: Anthropic strict tool use cannot be expressed in a promptc project \
                                     (at `{path}.strict`)",
                                    name_of(name)
                                ))
                                .with_help("remove `strict` from the input to import the tool"),
                            ));
                        }
                        None
                    }
                    ImportFormat::OpenAiChat | ImportFormat::Gemini | ImportFormat::Mcp => None,
                };
                out.push(Found {
                    name,
                    description: m.get("description"),
                    schema: m.get(schema_key).map(|s| (s, format!("{path}.{schema_key}"))),
                    strict,
                    path,
                });
            }
            ImportFormat::Gemini => {
                let key = if m.contains_key("functionDeclarations") {
                    "functionDeclarations"
                } else {
                    "function_declarations"
                };
                let Some(decls) = m.get(key).and_then(Value::as_array) else {
                    expected(&path, problems);
                    continue;
                };
                for k in m.keys().filter(|k| *k != key) {
                    problems.push((format!("{path}.{k}"), Diagnostic::error(format!(
                            "`{k}` (a Gemini built-in tool or option) cannot be expressed in a promptc catalog (at `{path}.{k}`)"
                        ))
                        .with_help("promptc imports function declarations; remove other tools from the input"),));
                }
                for (j, d) in decls.iter().enumerate() {
                    let dpath = format!("{path}.{key}[{j}]");
                    let Some(dm) = d.as_object() else {
                        problems.push((
                            dpath.clone(),
                            Diagnostic::error(format!("`{dpath}` is not a function declaration object")),
                        ));
                        continue;
                    };
                    let Some(name) = dm.get("name") else {
                        problems.push((dpath.clone(), Diagnostic::error(format!("`{dpath}` has no `name`"))));
                        continue;
                    };
                    keys_known(dm, &dpath, &["name", "description", "parameters"], &name_of(name), problems);
                    out.push(Found {
                        name,
                        description: dm.get("description"),
                        schema: dm.get("parameters").map(|s| (s, format!("{dpath}.parameters"))),
                        strict: None,
                        path: dpath,
                    });
                }
            }
        }
    }
    out
}

/// One converted tool.
struct Tool {
    name: String,
    description: String,
    params: Object,
}

/// Read tool definitions from `text` (JSON; `source` names it in messages) into a project.
pub fn import(text: &str, source: &str, options: &ImportOptions) -> Result<Imported> {
    let value = parse_json(text, source)?;
    let (list, base) = tool_list(&value, source)?;
    let root_is_list = value.is_array();
    let format = match options.from {
        Some(f) => f,
        None => match list.first() {
            None => return Err(fail(source, format!("`{base}` lists no tools"), "give at least one tool definition")),
            Some(first) => match entry_format(first) {
                // `{"tools": [...]}` with plain MCP entries, or a JSON-RPC result.
                Some(f) => f,
                None => {
                    let path = format!("{base}[0]");
                    let d = Diagnostic::error(format!("`{path}` is not a tool definition in a form promptc knows"))
                        .with_help(format!(
                            "promptc imports {}; name the format this one is in (the import's `from` option)",
                            ImportFormat::ALL
                                .iter()
                                .map(|f| format!("{f} {}", f.shape()))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ));
                    return Err(Error::new(ErrorKind::Usage, vec![located(text, source, &path, root_is_list, d)]));
                }
            },
        },
    };
    let mut problems = Vec::new();
    let found = find_tools(list, &base, format, &mut problems);
    if found.is_empty() && problems.is_empty() {
        return Err(fail(source, format!("`{base}` lists no tools"), "give at least one tool definition"));
    }
    let mut tools: Vec<Tool> = Vec::new();
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    let mut files_seen: BTreeMap<String, String> = BTreeMap::new();
    let mut stricts: Vec<(bool, String)> = Vec::new();
    for f in &found {
        let Some(name) = f.name.as_str() else {
            problems.push((
                format!("{}.name", f.path),
                Diagnostic::error(format!("`{}.name` must be a string, found {}", f.path, f.name)),
            ));
            continue;
        };
        if !valid_tool_name(name) {
            problems.push((
                format!("{}.name", f.path),
                Diagnostic::error(format!(
                    "invalid tool name `{}` (at `{}.name`)",
                    crate::diagnostic::excerpt(name, 80),
                    f.path
                ))
                .with_help(
                    "tool names start with a letter or `_`, then letters, digits, `_` or `-`, at most 64 characters \
                     (the rule every provider accepts); rename the tool in the input",
                ),
            ));
            continue;
        }
        if let Some(first) = seen.get(name) {
            problems.push((
                format!("{}.name", f.path),
                Diagnostic::error(format!("tool `{name}` is defined twice: at `{first}` and at `{}`", f.path))
                    .with_help("a promptc catalog declares each tool once; remove or rename one of them"),
            ));
            continue;
        }
        seen.insert(name.to_string(), f.path.clone());
        let file = file_name(name).to_ascii_lowercase();
        if let Some(other) = files_seen.get(&file) {
            problems.push((
                format!("{}.name", f.path),
                Diagnostic::error(format!(
                    "tools `{other}` and `{name}` differ only in letter case: their catalog files would be one file \
                     on case-insensitive file systems"
                ))
                .with_help("rename one of them in the input"),
            ));
            continue;
        }
        files_seen.insert(file, name.to_string());
        let description = match f.description {
            Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
            None | Some(Value::Null) | Some(Value::String(_)) => {
                problems.push((
                    if f.description.is_some() {
                        format!("{}.description", f.path)
                    } else {
                        format!("{}.name", f.path)
                    },
                    Diagnostic::error(format!("tool `{name}` has no description"))
                        .with_help("a promptc catalog requires one (the model relies on it): add it to the input"),
                ));
                continue;
            }
            Some(other) => {
                problems.push((
                    format!("{}.description", f.path),
                    Diagnostic::error(format!(
                        "tool `{name}`: the description must be a string, found {other} (at `{}.description`)",
                        f.path
                    )),
                ));
                continue;
            }
        };
        let dialect = if format == ImportFormat::Gemini { Dialect::Gemini } else { Dialect::Json };
        let mut c = Converter::new(name, dialect, f.strict == Some(true));
        let params = match &f.schema {
            Some((s, path)) => c.root(Some(s), path),
            None => Object::default(),
        };
        problems.append(&mut c.problems);
        if let Some(s) = f.strict {
            stricts.push((s, name.to_string()));
        }
        tools.push(Tool { name: name.to_string(), description, params });
    }
    let strict = match options.strict_tools {
        Some(s) => s,
        None => {
            let on: Vec<&str> = stricts.iter().filter(|(s, _)| *s).map(|(_, n)| n.as_str()).collect();
            let off: Vec<&str> = stricts.iter().filter(|(s, _)| !*s).map(|(_, n)| n.as_str()).collect();
            if !on.is_empty() && !off.is_empty() {
                problems.push((
                    String::new(),
                    Diagnostic::error(format!(
                        "the tools disagree on OpenAI strict mode: strict {} ({}), not strict {} ({})",
                        on.len(),
                        list_names(&on),
                        off.len(),
                        list_names(&off)
                    ))
                    .with_help(
                        "a promptc project sets strict mode for all its tools (`strict_tools`); choose one with \
                         --strict-tools true or --strict-tools false",
                    ),
                ));
            }
            !on.is_empty() && off.is_empty()
        }
    };
    if !problems.is_empty() {
        let all = problems.into_iter().map(|(path, d)| located(text, source, &path, root_is_list, d)).collect();
        return Err(Error::new(ErrorKind::Usage, all));
    }
    Ok(Imported {
        format,
        strict,
        tools: tools.iter().map(|t| t.name.clone()).collect(),
        files: files(&tools, format, strict),
    })
}

/// `d` pointing at `path` in the input (at the whole input when the path is empty or not found).
fn located(text: &str, source: &str, path: &str, root_is_list: bool, d: Diagnostic) -> Diagnostic {
    let label = match locate::locate(text, path, root_is_list).filter(|_| !path.is_empty()) {
        Some((start, end)) => Label::at(source, text, Position::from_byte_range(text, start, end)),
        None => Label::file(source),
    };
    d.with_label(label)
}

fn list_names(names: &[&str]) -> String {
    let shown: Vec<String> = names.iter().take(5).map(|n| format!("`{n}`")).collect();
    format!("{}{}", shown.join(", "), if names.len() > 5 { ", …" } else { "" })
}

/// The catalog file of tool `name`: flat beside the manifest (the folder writer replaces
/// one level), so a name never collides with `promptc.yaml`.
fn file_name(name: &str) -> String {
    format!("tool.{name}.yaml")
}

fn files(tools: &[Tool], format: ImportFormat, strict: bool) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    let provider = format.provider();
    let mut m = String::new();
    let _ = writeln!(m, "{MARKER}");
    let _ = writeln!(
        m,
        "# Imported from {format} tool definitions. Running the import again into this folder replaces the files it\n\
         # wrote (this manifest and the tool.*.yaml files it lists); edit them freely, or remove this first line to\n\
         # keep the next import out."
    );
    let _ = writeln!(m, "promptc: 1");
    let _ = writeln!(m, "name: imported");
    let _ = writeln!(m, "contract_version: 1");
    let _ = writeln!(m, "# Descriptions are sent byte for byte, as the imported definitions had them.");
    let _ = writeln!(m, "descriptions: verbatim");
    let _ = writeln!(m, "strict_tools: {strict}");
    let _ = writeln!(m, "defaults:\n  profile: main\n  transport: native\n  provider: {provider}");
    let _ = writeln!(m, "transports: [native]\nproviders: [{provider}]");
    let _ = writeln!(m, "sections:\n  role:\n    text: \"Replace this section with the agent's system prompt.\\n\"");
    let _ = writeln!(m, "tools:");
    for t in tools {
        let _ = writeln!(m, "  - {}", file_name(&t.name));
    }
    let _ = writeln!(m, "profiles:\n  main:\n    description: Every imported tool.\n    sections: [role]");
    let _ = writeln!(m, "    toolsets: [{TOOLSET}]");
    files.insert("promptc.yaml".to_string(), m);
    for t in tools {
        let mut y = String::new();
        let _ = writeln!(y, "- name: {}", yaml::quoted(&t.name));
        let _ = writeln!(y, "  toolset: {TOOLSET}");
        let _ = writeln!(y, "  description: {}", yaml::quoted(&t.description));
        yaml::object_keys(&mut y, &t.params, 2);
        if !t.params.properties.is_empty() {
            let _ = writeln!(y, "  parameters:");
            yaml::properties(&mut y, &t.params.properties, 4);
        }
        files.insert(file_name(&t.name), y);
    }
    files
}

/// The files an earlier import wrote into `dir`, from its manifest's marker and tool list.
fn owned(dir: &Path) -> Result<Option<BTreeSet<String>>> {
    let p = dir.join("promptc.yaml");
    let bytes = match crate::source::read_regular(&p, crate::source::MAX_OUTPUT_BYTES) {
        Ok(b) => b,
        Err(_) => return Ok(None),
    };
    let text = String::from_utf8_lossy(&bytes);
    let mut lines = text.lines();
    if lines.next() != Some(MARKER) {
        return Ok(None);
    }
    let mut out = BTreeSet::from(["promptc.yaml".to_string()]);
    let mut in_tools = false;
    for l in lines {
        if l == "tools:" {
            in_tools = true;
        } else if in_tools {
            match l.strip_prefix("  - ") {
                Some(f) if f.starts_with("tool.") && f.ends_with(".yaml") && !f.contains(['/', '\\']) => {
                    out.insert(f.to_string());
                }
                _ => in_tools = false,
            }
        }
    }
    Ok(Some(out))
}

/// Write `imported` into `dir`: created if missing, refused when it holds files an import did
/// not write, replaced in one step. Returns the paths written.
pub fn write(imported: &Imported, dir: &Path) -> Result<Vec<PathBuf>> {
    let files: BTreeMap<String, Vec<u8>> =
        imported.files.iter().map(|(k, v)| (k.clone(), v.as_bytes().to_vec())).collect();
    let done = crate::source::folder::replace(dir, &files, &owned)?;
    Ok(done.written.iter().map(|n| dir.join(n)).collect())
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
