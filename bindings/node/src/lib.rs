//! The compiler as a Node addon (napi-rs). `index.js` wraps it in the package's API: it turns
//! the errors thrown here (a message starting with [`ERROR_MARK`] and the diagnostics as
//! JSON) into `PromptcError`s. Every call goes through the library facade; this file only
//! converts between JS values and promptc's types.

#![deny(clippy::all)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::{json, Map, Value};

/// Run the `promptc` command line in this process (the package's `promptc` command, which
/// exits with the code returned); `argv` starts with the program name. It writes to the
/// process's stdout and stderr directly and blocks the event loop, as a command does.
#[napi]
pub fn run_cli(argv: Vec<String>) -> u32 {
    u32::from(promptc_cli::main(argv.into_iter().map(std::ffi::OsString::from)) as u8)
}

/// Thrown errors carry this prefix, then `{"kind", "message", "diagnostics"}` as JSON.
const ERROR_MARK: &str = "\u{1}promptc-error\u{1}";

/// A promptc error as the JS error `index.js` rethrows as `PromptcError`.
fn js_err(e: promptc::Error) -> Error {
    let message: String = e.diagnostics().iter().map(|d| d.render(false)).collect();
    let payload = json!({
        "kind": e.kind().as_str(),
        "message": message.trim_end(),
        "diagnostics": e.diagnostics().iter().map(diagnostic).collect::<Vec<_>>(),
    });
    Error::new(Status::GenericFailure, format!("{ERROR_MARK}{payload}"))
}

/// A diagnostic as JS sees it: `check --format json`'s fields plus the rendered text.
fn diagnostic(d: &promptc::Diagnostic) -> Value {
    let mut v = d.to_json();
    v["rendered"] = Value::String(d.render(false));
    v
}

fn usage(message: String, help: &str) -> Error {
    js_err(promptc::Error::usage(promptc::Diagnostic::error(message).with_help(help)))
}

/// The cell options every call takes (`compile({ profile: "lite", switches: { browser: true } })`).
#[napi(object)]
#[derive(Default)]
pub struct CompileOptions {
    /// The profile (default: the project's selection policy decides).
    pub profile: Option<String>,
    /// `native`, `xml` or `json`.
    pub transport: Option<String>,
    /// `openai`, `openai-responses`, `anthropic` or `gemini` (native transport).
    pub provider: Option<String>,
    /// The model id the selection policy looks at.
    pub model: Option<String>,
    /// The context window in tokens.
    pub context_window: Option<Either<f64, String>>,
    /// Switch values.
    pub switches: Option<HashMap<String, Either<bool, String>>>,
    /// Variable values (JSON-like).
    pub variables: Option<Map<String, Value>>,
    /// Compile this sub-agent's prompt.
    pub subagent: Option<String>,
    /// The untrusted-content nonce (default: random per compile).
    pub nonce: Option<String>,
    /// A YAML or JSON file with switches, variables, model and context window.
    pub context_file: Option<String>,
    /// Drop a failing tool contribution (with a warning) instead of failing.
    pub lenient: Option<bool>,
    /// `report` only: count with this tokenizer.
    pub tokenizer: Option<String>,
}

impl CompileOptions {
    /// The library request: the options as `promptc::CellOptions`, converted by the library
    /// (the same conversion the CLI and the Python package use).
    fn request(&self) -> Result<promptc::Request> {
        let mut o = promptc::CellOptions::default();
        o.profile = self.profile.clone();
        o.transport = self.transport.clone();
        o.provider = self.provider.clone();
        o.model = self.model.clone();
        // Numbers and strings go to the library as text, so a window reads as it does on the
        // command line and in a context file (fractions rounded down; NaN, zero or negative
        // refused there).
        o.context_window = match &self.context_window {
            Some(Either::A(n)) => Some(n.to_string()),
            Some(Either::B(s)) => Some(s.clone()),
            None => None,
        };
        if let Some(s) = &self.switches {
            // Sorted: a JS object's keys reach Rust in a hash map.
            let mut names: Vec<&String> = s.keys().collect();
            names.sort();
            for name in names {
                let value = match &s[name] {
                    Either::A(on) => promptc::SwitchValue::On(*on),
                    // A string-valued switch takes one of its values; the library checks which.
                    Either::B(value) => promptc::SwitchValue::Is(value.clone()),
                };
                o.switches.push((name.clone(), value));
            }
        }
        if let Some(vars) = &self.variables {
            o.variables = vars.iter().map(|(name, value)| (name.clone(), value.clone())).collect();
        }
        o.subagent = self.subagent.clone();
        o.nonce = self.nonce.clone();
        o.context_file = self.context_file.as_ref().map(Into::into);
        o.lenient = self.lenient.unwrap_or(false);
        o.request().map_err(js_err)
    }
}

/// A loaded project: load once, compile many cells; `compileAsync` runs on the thread pool.
#[napi]
pub struct Project {
    inner: Arc<promptc::Project>,
    /// Token counts for `report` and `freeze`, kept across calls (in memory only: a library
    /// never writes the project's token cache).
    tokens: Arc<Mutex<Option<promptc::TokenCounter>>>,
}

fn with_tokens<T>(
    project: &promptc::Project,
    tokens: &Mutex<Option<promptc::TokenCounter>>,
    f: impl FnOnce(&mut promptc::TokenCounter) -> promptc::Result<T>,
) -> promptc::Result<T> {
    let mut guard = tokens.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let counter = guard.get_or_insert_with(|| promptc::TokenCounter::for_project(project, None, false));
    f(counter)
}

fn compile_on_stack(project: &promptc::Project, request: &promptc::Request) -> Result<promptc::Compiled> {
    promptc::on_compile_stack(|| promptc::compile(project, request)).map_err(js_err)
}

#[napi]
impl Project {
    /// Load the project at `path`: a manifest file, or a folder holding `promptc.yaml`.
    #[napi(factory)]
    pub fn load(path: String) -> Result<Project> {
        let project = promptc::load(std::path::Path::new(&path)).map_err(js_err)?;
        Ok(Project { inner: Arc::new(project), tokens: Arc::new(Mutex::new(None)) })
    }

    /// The project's name.
    #[napi(getter)]
    pub fn name(&self) -> String {
        self.inner.name().to_string()
    }

    /// The project folder.
    #[napi(getter)]
    pub fn root(&self) -> String {
        self.inner.root().display().to_string()
    }

    /// Load-time warnings (with the project's lint levels applied).
    #[napi(getter, ts_return_type = "Diagnostic[]")]
    pub fn warnings(&self) -> Value {
        Value::Array(self.inner.warnings().into_iter().map(diagnostic).collect())
    }

    /// Every cell of the snapshot matrix, with the options that compile it.
    #[napi(ts_return_type = "Cell[]")]
    pub fn cells(&self) -> Value {
        Value::Array(promptc::matrix(&self.inner).iter().map(cell_json).collect())
    }

    /// Compile one cell: the prompt, the tool projection and the metadata.
    #[napi]
    pub fn compile(&self, options: Option<CompileOptions>) -> Result<Compiled> {
        let request = options.unwrap_or_default().request()?;
        let compiled = compile_on_stack(&self.inner, &request)?;
        Ok(Compiled { project: Arc::clone(&self.inner), inner: compiled })
    }

    /// `compile` on the libuv thread pool: several may run at once on one project.
    #[napi(ts_return_type = "Promise<Compiled>")]
    pub fn compile_async(&self, options: Option<CompileOptions>) -> Result<AsyncTask<CompileTask>> {
        let request = options.unwrap_or_default().request()?;
        Ok(AsyncTask::new(CompileTask { project: Arc::clone(&self.inner), request }))
    }

    /// The cell's account: the JSON text `promptc report --format json` prints (index.js
    /// parses it with `JSON.parse`, so numbers are exactly what the CLI's users get).
    #[napi]
    pub fn report_json(&self, options: Option<CompileOptions>) -> Result<String> {
        let options = options.unwrap_or_default();
        let request = options.request()?;
        let project = &self.inner;
        promptc::on_compile_stack(|| {
            let tokenizer = options.tokenizer.as_deref().map(|n| promptc::tokenizer_named(project, n)).transpose()?;
            let report_options = promptc::ReportOptions::new().tokenizer(tokenizer);
            let report =
                with_tokens(project, &self.tokens, |t| promptc::report(project, &request, &report_options, t))?;
            let view = promptc::report::View::default();
            Ok(promptc::report::render(&report.accounts[0], promptc::report::Format::Json, view))
        })
        .map_err(js_err)
    }

    /// Freeze a cell for a running agent: the record's JSON text, to keep and `verify` later.
    #[napi]
    pub fn freeze_json(&self, options: Option<CompileOptions>) -> Result<String> {
        let request = options.unwrap_or_default().request()?;
        let project = &self.inner;
        promptc::on_compile_stack(|| {
            with_tokens(project, &self.tokens, |t| promptc::freeze(project, &request, t)).map(|r| r.to_json())
        })
        .map_err(js_err)
    }
}

fn cell_json(c: &promptc::MatrixCell) -> Value {
    let r = &c.request;
    json!({
        "name": c.name,
        "profile": c.profile,
        "case": c.case,
        "transport": c.transport.as_str(),
        "subagent": c.subagent,
        "providers": c.providers.iter().map(|p| p.as_str()).collect::<Vec<_>>(),
        "options": {
            "profile": r.profile,
            "transport": r.transport.map(|t| t.as_str()),
            "switches": r
                .switches
                .iter()
                .map(|(k, v)| (k.clone(), Value::Bool(*v)))
                .chain(r.choices.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))))
                .collect::<Map<_, _>>(),
            "variables": r.variables.iter().cloned().collect::<Map<_, _>>(),
            "subagent": r.subagent,
            "nonce": r.nonce,
        },
    })
}

/// `compileAsync`'s work.
pub struct CompileTask {
    project: Arc<promptc::Project>,
    request: promptc::Request,
}

impl Task for CompileTask {
    type Output = promptc::Compiled;
    type JsValue = Compiled;

    fn compute(&mut self) -> Result<Self::Output> {
        compile_on_stack(&self.project, &self.request)
    }

    fn resolve(&mut self, _env: Env, output: Self::Output) -> Result<Self::JsValue> {
        Ok(Compiled { project: Arc::clone(&self.project), inner: output })
    }
}

/// A compiled cell: the frozen prompt, its tool projection and metadata.
#[napi]
pub struct Compiled {
    project: Arc<promptc::Project>,
    inner: promptc::Compiled,
}

#[napi]
impl Compiled {
    /// The system prompt, exactly as `promptc render` prints it.
    #[napi(getter)]
    pub fn prompt(&self) -> String {
        self.inner.prompt().to_string()
    }

    /// The provider's tools (parsed JSON), or null for the xml and json transports.
    #[napi(getter, ts_return_type = "Array<Record<string, any>> | null")]
    pub fn tools(&self) -> Value {
        self.inner.projection().cloned().unwrap_or(Value::Null)
    }

    /// The tools JSON text, exactly as `promptc render --tools` prints it, or null.
    #[napi(getter)]
    pub fn tools_json(&self) -> Option<String> {
        self.inner.tools_json().ok()
    }

    /// The artifact metadata (`metadata.json`).
    #[napi(getter, ts_return_type = "Record<string, any>")]
    pub fn metadata(&self) -> Value {
        serde_json::to_value(self.inner.metadata(&self.project)).unwrap_or_default()
    }

    /// The rendered sections in declaration order.
    #[napi(getter, ts_return_type = "Section[]")]
    pub fn sections(&self) -> Value {
        serde_json::to_value(self.inner.sections()).unwrap_or_default()
    }

    /// The profile compiled.
    #[napi(getter)]
    pub fn profile(&self) -> String {
        self.inner.profile().to_string()
    }

    /// The transport.
    #[napi(getter, ts_return_type = "Transport")]
    pub fn transport(&self) -> String {
        self.inner.transport().as_str().to_string()
    }

    /// The provider of the projection (native cells), or null.
    #[napi(getter, ts_return_type = "Provider | null")]
    pub fn provider(&self) -> Option<String> {
        self.inner.provider().map(|p| p.as_str().to_string())
    }

    /// The sub-agent, or null.
    #[napi(getter)]
    pub fn subagent(&self) -> Option<String> {
        self.inner.subagent().map(str::to_string)
    }

    /// The active tools, in order.
    #[napi(getter)]
    pub fn tool_names(&self) -> Vec<String> {
        self.inner.tool_names().into_iter().map(str::to_string).collect()
    }

    /// The untrusted-content nonce used.
    #[napi(getter)]
    pub fn nonce(&self) -> String {
        self.inner.nonce().to_string()
    }

    /// Warnings collected while compiling (lenient mode).
    #[napi(getter, ts_return_type = "Diagnostic[]")]
    pub fn warnings(&self) -> Value {
        Value::Array(self.inner.warnings().iter().map(diagnostic).collect())
    }

    /// Where the prompt stops being the same across sessions.
    #[napi(getter, ts_return_type = "CacheSplit")]
    pub fn cache(&self) -> Value {
        serde_json::to_value(self.inner.static_prefix()).unwrap_or_default()
    }

    /// For an Anthropic cell: `system` blocks and `tools` with prompt-caching breakpoints.
    #[napi(ts_return_type = "{ system: Array<Record<string, any>>; tools: Array<Record<string, any>> } | null")]
    pub fn anthropic_request(&self) -> Value {
        self.inner.anthropic_request().unwrap_or(Value::Null)
    }

    /// Everything as the JSON text `promptc render --format json` prints.
    #[napi]
    pub fn to_json_text(&self) -> String {
        self.inner.to_json(&self.project)
    }
}

/// Whether a frozen record (the object `freeze` returns, or its JSON text) is still what
/// `project` compiles: `{ fresh, status, reasons, notes, findings }`.
#[napi(ts_args_type = "record: Record<string, any> | string, project: Project", ts_return_type = "Verdict")]
pub fn verify(record: Value, project: &Project) -> Result<Value> {
    let text = match record {
        Value::String(text) => text,
        Value::Object(map) => Value::Object(map).to_string(),
        _ => return Err(usage("the record must be an object or JSON text".into(), "pass what freeze returned")),
    };
    let record = promptc::parse_record(&text, "<record>").map_err(js_err)?;
    let verdict = promptc::on_compile_stack(|| promptc::verify(&project.inner, &record)).map_err(js_err)?;
    Ok(json!({
        "fresh": verdict.fresh,
        "status": if verdict.fresh { "fresh" } else { "stale" },
        "reasons": verdict.reasons.iter().map(|r| r.to_string()).collect::<Vec<_>>(),
        "notes": verdict.notes.iter().map(|r| r.to_string()).collect::<Vec<_>>(),
        "findings": serde_json::to_value(&verdict).unwrap_or_default(),
    }))
}

/// The promptc version.
#[napi]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}
