// Long because the call reads in order: options, forms, refusals, then what it writes.
//! `promptc import tools`: tool definitions an agent already sends (OpenAI Chat Completions or
//! Responses, Anthropic Messages, Gemini, an MCP `tools/list` result) turned into a promptc
//! project — one catalog file per tool and a minimal manifest — that renders them back.
//!
//! The input's form is detected from its shape (or forced); its schemas are converted by
//! `schema` into the catalog's parameter model, refusing what a catalog cannot express;
//! `yaml` writes files that read back byte for byte. Writing goes through
//! `source::folder`: the output folder is replaced in one step, only when it is empty or was
//! written by an earlier import.

mod check;
mod files;
mod forms;
pub mod locate;
mod numbers;
pub mod yaml;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::diagnostic::{Diagnostic, Label, Position};
use crate::error::{Error, ErrorKind, Result};
use crate::model::provider::Provider;

use check::Converted;
use files::owned;

/// A form of tool definitions `import` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
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
    /// A bare list of function definitions, as agent products commit them:
    /// `[{name, description, parameters}]` (rendered back as OpenAI Chat functions).
    Bare,
}

impl ImportFormat {
    /// Every form, in the order `--from` lists them.
    pub const ALL: [ImportFormat; 6] = [
        ImportFormat::OpenAiChat,
        ImportFormat::OpenAiResponses,
        ImportFormat::Anthropic,
        ImportFormat::Gemini,
        ImportFormat::Mcp,
        ImportFormat::Bare,
    ];

    /// The form's name (`--from` values): a provider name, or `mcp`.
    pub fn as_str(self) -> &'static str {
        match self {
            ImportFormat::OpenAiChat => "openai",
            ImportFormat::OpenAiResponses => "openai-responses",
            ImportFormat::Anthropic => "anthropic",
            ImportFormat::Gemini => "gemini",
            ImportFormat::Mcp => "mcp",
            ImportFormat::Bare => "bare",
        }
    }

    /// The form named `s`, if any.
    pub fn parse(s: &str) -> Option<ImportFormat> {
        ImportFormat::ALL.into_iter().find(|f| f.as_str() == s)
    }

    /// The provider whose projection renders this form back (a bare list as Chat Completions
    /// functions).
    pub fn provider(self) -> Provider {
        match self {
            ImportFormat::OpenAiChat | ImportFormat::Bare => Provider::OpenAiChat,
            ImportFormat::OpenAiResponses => Provider::OpenAiResponses,
            ImportFormat::Anthropic => Provider::Anthropic,
            ImportFormat::Mcp => Provider::Mcp,
            ImportFormat::Gemini => Provider::Gemini,
        }
    }

    /// What the form looks like, for messages.
    fn shape(self) -> &'static str {
        match self {
            ImportFormat::OpenAiChat => "[{\"type\": \"function\", \"function\": {\"name\", \"parameters\"}}]",
            ImportFormat::OpenAiResponses => "[{\"type\": \"function\", \"name\", \"parameters\"}]",
            ImportFormat::Anthropic => "[{\"name\", \"input_schema\"}]",
            ImportFormat::Gemini => "[{\"functionDeclarations\": [{\"name\", \"parameters\"}]}]",
            ImportFormat::Mcp => "{\"tools\": [{\"name\", \"inputSchema\"}]}",
            ImportFormat::Bare => "[{\"name\", \"description\", \"parameters\"}]",
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
    /// Import the tools that can be, listing the others (`Imported::skipped`), instead of
    /// refusing the whole input for one tool.
    pub skip_invalid: bool,
    /// The providers the project enables (empty: every provider); the input's own comes first.
    pub providers: Vec<Provider>,
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

    /// Enable only these providers in the project (the input's own is added when missing).
    pub fn providers(mut self, providers: Vec<Provider>) -> ImportOptions {
        self.providers = providers;
        self
    }

    /// Import the tools that can be and list the others, instead of refusing the input.
    pub fn skip_invalid(mut self, skip: bool) -> ImportOptions {
        self.skip_invalid = skip;
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
    skipped: Vec<Diagnostic>,
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

    /// Why each tool left out (`ImportOptions::skip_invalid`) could not be imported, located in
    /// the input.
    pub fn skipped(&self) -> &[Diagnostic] {
        &self.skipped
    }
}

/// The first line of every manifest `import` writes; a folder whose `promptc.yaml` starts
/// with it is promptc's to replace.
pub const MARKER: &str = "# Written by `promptc import tools`.";

/// The most tools one import accepts: agents send dozens; a larger input is a wrong file or an
/// attempt to make promptc write without bound (one catalog file per tool).
pub const MAX_TOOLS: usize = 10_000;

/// The most schema nodes (objects, arrays and values inside the tools' parameter schemas, all
/// tools together) one import accepts: a large real agent (200 tools of 20 parameters) has
/// about 20,000. 10,000 tools of 100 parameters each (4 million) imported within the byte and
/// tool caps, then `render` and `check` on the result aborted at 4.7 GB; an enum of a million
/// values took 513 MB.
pub const MAX_SCHEMA_NODES: usize = 250_000;

/// How many JSON nodes `v` holds, itself included, counting no further than `limit`.
fn nodes(v: &Value, limit: usize) -> usize {
    let mut n = 1;
    let children: Box<dyn Iterator<Item = &Value>> = match v {
        Value::Object(m) => Box::new(m.values()),
        Value::Array(a) => Box::new(a.iter()),
        _ => return 1,
    };
    for c in children {
        if n > limit {
            break;
        }
        n += nodes(c, limit - n);
    }
    n
}

/// A usage error about the whole input.
fn fail(source: &str, message: impl Into<String>, help: &str) -> Error {
    Diagnostic::error(message.into())
        .with_label(Label::file(source))
        .with_help(help.to_string())
        .into_error(ErrorKind::Usage)
}

/// JSON read only to refuse a key given twice in one object: a JSON parser keeps the last one
/// silently, so the import would write a schema the author did not see.
struct NoDuplicateKeys;

impl<'de> serde::Deserialize<'de> for NoDuplicateKeys {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_any(NoDuplicateKeysVisitor)
    }
}

struct NoDuplicateKeysVisitor;

impl<'de> serde::de::Visitor<'de> for NoDuplicateKeysVisitor {
    type Value = NoDuplicateKeys;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> std::result::Result<NoDuplicateKeys, E> {
        Ok(NoDuplicateKeys)
    }
    fn visit_i64<E>(self, _: i64) -> std::result::Result<NoDuplicateKeys, E> {
        Ok(NoDuplicateKeys)
    }
    fn visit_u64<E>(self, _: u64) -> std::result::Result<NoDuplicateKeys, E> {
        Ok(NoDuplicateKeys)
    }
    fn visit_f64<E>(self, _: f64) -> std::result::Result<NoDuplicateKeys, E> {
        Ok(NoDuplicateKeys)
    }
    fn visit_str<E>(self, _: &str) -> std::result::Result<NoDuplicateKeys, E> {
        Ok(NoDuplicateKeys)
    }
    fn visit_unit<E>(self) -> std::result::Result<NoDuplicateKeys, E> {
        Ok(NoDuplicateKeys)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<NoDuplicateKeys, A::Error> {
        while seq.next_element::<NoDuplicateKeys>()?.is_some() {}
        Ok(NoDuplicateKeys)
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> std::result::Result<NoDuplicateKeys, A::Error> {
        let mut seen = std::collections::HashSet::new();
        while let Some(k) = map.next_key::<String>()? {
            if !seen.insert(k.clone()) {
                return Err(serde::de::Error::custom(format_args!(
                    "the key `{}` appears twice in one object",
                    crate::diagnostic::excerpt(&k, 80)
                )));
            }
            map.next_value::<NoDuplicateKeys>()?;
        }
        Ok(NoDuplicateKeys)
    }
}

/// Parse JSON, locating a syntax error (or a key given twice) at its line and column.
fn parse_json(text: &str, source: &str) -> Result<Value> {
    serde_json::from_str::<NoDuplicateKeys>(text).and_then(|_| serde_json::from_str(text)).map_err(|e| {
        let message = e.to_string();
        let message = match message.rfind(" at line ") {
            Some(i) => &message[..i],
            None => message.as_str(),
        };
        let position = Position::new(e.line().max(1), e.column().max(1), 1);
        let help = if message.contains("appears twice") {
            "keep one of them: a JSON parser keeps the last one silently, so the agent may not send what you read"
        } else if message.contains("recursion limit") {
            "tool definitions nest a few levels deep: is this the right file?"
        } else {
            "give the JSON the agent sends: a tools array, a request body with \"tools\", or an MCP tools/list result"
        };
        Diagnostic::error(format!("the tool definitions are not valid JSON: {message}"))
            .with_label(Label::at(source, text, position))
            .with_help(help)
            .into_error(ErrorKind::Usage)
    })
}

/// A problem and the JSON path it is at (empty: the whole input).
type Problem = (String, Diagnostic);

/// Read tool definitions from `text` (JSON; `source` names it in messages) into a project.
pub fn import(text: &str, source: &str, options: &ImportOptions) -> Result<Imported> {
    let value = parse_json(text, source)?;
    let (list, base) = forms::tool_list(&value, source)?;
    let root_is_list = value.is_array();
    let format = match options.from {
        Some(f) => f,
        None => detect(list, &base, text, source, root_is_list)?,
    };
    // Numbers are checked inside the tools only: a request body's own fields are not imported.
    let mut problems: Vec<Problem> = numbers::uncarried(text, source, &value, root_is_list)
        .into_iter()
        .filter(|(path, _)| path.starts_with(&format!("{base}[")))
        .collect();
    let mut provider_tools = Vec::new();
    let found = forms::find_tools(list, &base, (format, options.from.is_some()), &mut problems, &mut provider_tools);
    if found.is_empty() && problems.is_empty() && provider_tools.is_empty() {
        return Err(fail(source, format!("`{base}` lists no tools"), "give at least one tool definition"));
    }
    if let Some(first_over) = found.get(MAX_TOOLS) {
        let d = Diagnostic::error(format!(
            "the input defines {} tools; an import accepts at most {MAX_TOOLS} (this is tool {})",
            found.len(),
            MAX_TOOLS + 1
        ))
        .with_help(format!(
            "an agent sends dozens of tools, not thousands: check that this is the right file, or import the \
             definitions in parts of at most {MAX_TOOLS} tools into separate folders"
        ));
        return Err(Error::new(ErrorKind::Usage, vec![located(text, source, &first_over.path, root_is_list, d)]));
    }
    let mut total = 0;
    for f in &found {
        total += f.schema.as_ref().map_or(0, |(s, _)| nodes(s, MAX_SCHEMA_NODES + 1 - total.min(MAX_SCHEMA_NODES)));
        if total > MAX_SCHEMA_NODES {
            let d = Diagnostic::error(format!(
                "the tools' parameter schemas hold more than {MAX_SCHEMA_NODES} values in all (crossed at this tool)"
            ))
            .with_help(
                "an agent's tools hold thousands of schema values, not millions: check that this is the right \
                 file, or import the definitions in parts into separate folders",
            );
            return Err(Error::new(ErrorKind::Usage, vec![located(text, source, &f.path, root_is_list, d)]));
        }
    }
    let mut converted = Converted::default();
    for f in &found {
        converted.add(f, &mut problems);
    }
    // A provider's own tool (hosted, server, custom) is left out, said where it is: with the
    // skip option the functions beside it are imported, without it the input is refused.
    let left_out: Vec<Problem> = provider_tools.iter().map(provider_tool_problem).collect();
    let mut skipped = Vec::new();
    if options.skip_invalid {
        // A problem inside a tool's definition leaves that tool out; one about the whole input
        // (its form, its strict flags) still refuses it.
        let inside = |tool: &str, path: &str| {
            path.strip_prefix(tool).is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
        };
        let bad: Vec<&str> = found
            .iter()
            .filter(|f| problems.iter().any(|(p, _)| inside(&f.path, p)))
            .map(|f| f.path.as_str())
            .collect();
        converted.tools.retain(|t| !bad.contains(&t.path.as_str()));
        converted.stricts.retain(|(_, name)| converted.tools.iter().any(|t| &t.name == name));
        let (theirs, whole): (Vec<Problem>, Vec<Problem>) =
            problems.into_iter().partition(|(p, _)| bad.iter().any(|b| inside(b, p)));
        skipped =
            theirs.into_iter().chain(left_out).map(|(path, d)| located(text, source, &path, root_is_list, d)).collect();
        // Input order: a reader goes through the list once.
        skipped.sort_by_key(|d: &Diagnostic| d.label.as_ref().and_then(|l| l.position).map(|p| (p.line, p.column)));
        problems = whole;
        if converted.tools.is_empty() && problems.is_empty() {
            return Err(Error::new(ErrorKind::Usage, skipped));
        }
    } else {
        problems.extend(left_out);
    }
    let strict = check::strict_mode(options.strict_tools, &converted.stricts, &mut problems);
    if !problems.is_empty() {
        let all = problems.into_iter().map(|(path, d)| located(text, source, &path, root_is_list, d)).collect();
        return Err(Error::new(ErrorKind::Usage, all));
    }
    let tools = converted.tools;
    let forms: Vec<ImportFormat> = tools.iter().map(|t| t.form).collect();
    // Gemini declarations that all give JSON Schema are sent it back.
    let gemini_json = !converted.gemini_json.is_empty() && converted.gemini_json.iter().all(|j| *j);
    Ok(Imported {
        format,
        strict,
        tools: tools.iter().map(|t| t.name.clone()).collect(),
        files: files::files(
            &tools,
            format,
            files::Settings { strict, gemini_json, providers: providers(format, &forms, &options.providers) },
        ),
        skipped,
    })
}

/// The providers the project enables: the input's own first, then those of entries written in
/// another form (their fields and key order are theirs), then the others asked for (every model
/// API when none is).
fn providers(format: ImportFormat, forms: &[ImportFormat], asked: &[Provider]) -> Vec<Provider> {
    let own = format.provider();
    let mut out = vec![own];
    for f in forms {
        if !out.contains(&f.provider()) {
            out.push(f.provider());
        }
    }
    let rest: &[Provider] = if asked.is_empty() { &Provider::MODEL_APIS } else { asked };
    out.extend(rest.iter().copied().filter(|p| !out.contains(p)).collect::<Vec<_>>());
    out.dedup();
    out
}

/// Why a provider's own tool is not imported.
fn provider_tool_problem(h: &forms::Hosted) -> Problem {
    let d = Diagnostic::error(format!(
        "`{}` is a `{}` tool of {}, configured by the provider rather than a function: a promptc catalog \
         cannot carry it (at `{}`)",
        h.path,
        crate::diagnostic::excerpt(&h.kind, 60),
        match h.provider {
            Provider::OpenAiChat => "OpenAI Chat Completions",
            Provider::OpenAiResponses => "OpenAI Responses",
            _ => h.provider.info().label,
        },
        h.path
    ))
    .with_help(
        "the provider configures it, not a schema: add it to the request beside the tools promptc renders; \
         the import's skip-invalid option imports the functions beside it",
    );
    (h.path.clone(), d)
}

/// The form of the input, from its first function entry (`base` is the list's JSON path); a
/// provider's own tool (hosted, server, custom) says nothing about the functions' form.
fn detect(list: &[Value], base: &str, text: &str, source: &str, root_is_list: bool) -> Result<ImportFormat> {
    let first = list.iter().enumerate().find(|(_, v)| forms::hosted(v, "").is_none());
    match first.or_else(|| list.first().map(|v| (0, v))) {
        None => Err(fail(source, format!("`{base}` lists no tools"), "give at least one tool definition")),
        Some((i, first)) => match forms::entry_format(first) {
            // `{"tools": [...]}` with plain MCP entries, or a JSON-RPC result.
            Some(f) => Ok(f),
            // Only the provider's own tools: each is said where it is.
            None if forms::hosted(first, "").is_some() => Ok(ImportFormat::OpenAiResponses),
            None => {
                let path = format!("{base}[{i}]");
                let d = Diagnostic::error(format!("`{path}` is not a tool definition in a form promptc knows"))
                    .with_help(format!(
                        "promptc imports {}; name the format this one is in (the import's `from` option)",
                        ImportFormat::ALL.iter().map(|f| format!("{f} {}", f.shape())).collect::<Vec<_>>().join(", ")
                    ));
                Err(Error::new(ErrorKind::Usage, vec![located(text, source, &path, root_is_list, d)]))
            }
        },
    }
}

/// `d` pointing at `path` in the input (at the whole input when the path is empty or not found);
/// a problem located already (a number, at its own digits) keeps its label.
fn located(text: &str, source: &str, path: &str, root_is_list: bool, d: Diagnostic) -> Diagnostic {
    if d.label.is_some() {
        return d;
    }
    let label = match locate::locate(text, path, root_is_list).filter(|_| !path.is_empty()) {
        Some((start, end)) => Label::at(source, text, Position::from_byte_range(text, start, end)),
        None => Label::file(source),
    };
    d.with_label(label)
}

/// Write `imported` into `dir`: created if missing, refused when it holds files an import did
/// not write, replaced in one step. Returns the paths written.
pub fn write(imported: &Imported, dir: &Path) -> Result<Vec<PathBuf>> {
    let files: BTreeMap<String, Vec<u8>> =
        imported.files.iter().map(|(k, v)| (k.clone(), v.as_bytes().to_vec())).collect();
    // The folder the user named, its parent opened once (see `source::pin::named`).
    let pinned = crate::source::pin::named(dir).map_err(|e| crate::error::Error::io("create folder", dir, &e))?;
    let done = crate::source::folder::replace(pinned.path(), &files, &owned).map_err(|e| pinned.relabel(e))?;
    Ok(done.written.iter().map(|n| dir.join(n)).collect())
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
