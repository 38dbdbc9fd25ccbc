//! `promptc._promptc`: the compiler as a Python extension module (the `promptc` package wraps
//! it; see `python/promptc/__init__.py`). Every call goes through the library facade; this
//! file only converts between Python objects and promptc's types, releases the GIL while
//! compiling, and raises `PromptcError` with the located diagnostics.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use pyo3::IntoPyObjectExt;
use serde_json::Value;

#[path = "../../../src/cli/mod.rs"]
mod cli;

create_exception!(
    _promptc,
    PromptcError,
    PyException,
    "A promptc failure. `kind` says what failed (project, template, usage, record, io, internal);\n\
     `diagnostics` holds each located problem; `str(err)` is what the CLI prints."
);

/// One located problem: what is wrong, where, and how to fix it.
#[pyclass(frozen, module = "promptc", name = "Diagnostic")]
struct PyDiagnostic {
    /// `error`, `warning` or `info`.
    #[pyo3(get)]
    severity: String,
    /// The lint rule (`P001`), if a rule found it.
    #[pyo3(get)]
    code: Option<String>,
    /// One line saying what is wrong.
    #[pyo3(get)]
    message: String,
    /// The file, as the CLI shows it.
    #[pyo3(get)]
    file: Option<String>,
    /// 1-based line.
    #[pyo3(get)]
    line: Option<usize>,
    /// 1-based column, in characters.
    #[pyo3(get)]
    column: Option<usize>,
    /// Extra context.
    #[pyo3(get)]
    notes: Vec<String>,
    /// How to fix it.
    #[pyo3(get)]
    help: Option<String>,
    rendered: String,
}

#[pymethods]
impl PyDiagnostic {
    fn __str__(&self) -> &str {
        &self.rendered
    }

    fn __repr__(&self) -> String {
        let at = match (&self.file, self.line, self.column) {
            (Some(f), Some(l), Some(c)) => format!(" at {f}:{l}:{c}"),
            (Some(f), _, _) => format!(" in {f}"),
            _ => String::new(),
        };
        format!("<Diagnostic {}{at}: {}>", self.severity, self.message)
    }
}

impl PyDiagnostic {
    fn new(d: &promptc::Diagnostic) -> PyDiagnostic {
        let json = d.to_json();
        let text = |k: &str| json[k].as_str().map(str::to_string);
        let num = |k: &str| json[k].as_u64().map(|n| n as usize);
        PyDiagnostic {
            severity: text("severity").unwrap_or_default(),
            code: text("code"),
            message: d.message.clone(),
            file: text("file"),
            line: num("line"),
            column: num("column"),
            notes: d.notes.clone(),
            help: d.help.clone(),
            rendered: d.render(false),
        }
    }
}

fn diagnostics<'py>(py: Python<'py>, ds: &[promptc::Diagnostic]) -> PyResult<Bound<'py, PyList>> {
    PyList::new(py, ds.iter().map(PyDiagnostic::new))
}

/// A promptc error as a `PromptcError` carrying its kind and diagnostics.
fn py_err(py: Python<'_>, e: promptc::Error) -> PyErr {
    let message: String = e.diagnostics().iter().map(|d| d.render(false)).collect();
    let err = PromptcError::new_err(message.trim_end().to_string());
    let value = err.value(py);
    let attached = value
        .setattr("kind", e.kind().as_str())
        .and_then(|_| value.setattr("diagnostics", diagnostics(py, e.diagnostics())?));
    match attached {
        Ok(()) => err,
        Err(other) => other,
    }
}

/// A usage error raised before the library is called (a bad argument type).
fn usage(py: Python<'_>, message: String, help: &str) -> PyErr {
    py_err(py, promptc::Error::usage(promptc::Diagnostic::error(message).with_help(help)))
}

/// serde_json → Python, preserving object order.
fn to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_bound_py_any(py)?,
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_bound_py_any(py)?,
            (None, Some(u)) => u.into_bound_py_any(py)?,
            _ => n.as_f64().unwrap_or(f64::NAN).into_bound_py_any(py)?,
        },
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(a) => {
            let items: PyResult<Vec<_>> = a.iter().map(|x| to_py(py, x)).collect();
            PyList::new(py, items?)?.into_any()
        }
        Value::Object(m) => {
            let d = PyDict::new(py);
            for (k, x) in m {
                d.set_item(k, to_py(py, x)?)?;
            }
            d.into_any()
        }
    })
}

/// Python → serde_json for variable values: None, bool, int, float, str, lists/tuples and
/// dicts with string keys; anything else is a usage error naming the variable.
fn from_py(py: Python<'_>, what: &str, obj: &Bound<'_, PyAny>, depth: usize) -> PyResult<Value> {
    if depth > 64 {
        return Err(usage(py, format!("{what} is nested more than 64 levels deep"), "pass plain JSON-like data"));
    }
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if obj.cast::<PyInt>().is_ok() {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(Value::from(i));
        }
        if let Ok(u) = obj.extract::<u64>() {
            return Ok(Value::from(u));
        }
        return Err(usage(py, format!("{what} is an integer outside 64 bits"), "pass a smaller number or a string"));
    }
    if obj.cast::<PyFloat>().is_ok() {
        let f: f64 = obj.extract()?;
        return serde_json::Number::from_f64(f)
            .map(Value::Number)
            .ok_or_else(|| usage(py, format!("{what} is {f}, not a finite number"), "pass a finite number"));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(s.extract::<String>()?));
    }
    if obj.cast::<PyList>().is_ok() || obj.cast::<PyTuple>().is_ok() {
        let mut out = Vec::new();
        for (i, item) in obj.try_iter()?.enumerate() {
            out.push(from_py(py, &format!("{what}[{i}]"), &item?, depth + 1)?);
        }
        return Ok(Value::Array(out));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut out = serde_json::Map::new();
        for (k, v) in d.iter() {
            let Ok(key) = k.cast::<PyString>() else {
                return Err(usage(py, format!("{what} has a key that is not a string"), "use string keys"));
            };
            let key: String = key.extract()?;
            let value = from_py(py, &format!("{what}[{key:?}]"), &v, depth + 1)?;
            out.insert(key, value);
        }
        return Ok(Value::Object(out));
    }
    let ty = obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "object".into());
    Err(usage(py, format!("{what} is a {ty}"), "variables take None, bool, int, float, str, list and dict values"))
}

/// The cell options every call takes, as Python passes them.
struct Options<'py> {
    profile: Option<String>,
    transport: Option<String>,
    provider: Option<String>,
    model: Option<String>,
    context_window: Option<Bound<'py, PyAny>>,
    switches: Option<Bound<'py, PyDict>>,
    variables: Option<Bound<'py, PyDict>>,
    subagent: Option<String>,
    nonce: Option<String>,
    context_file: Option<PathBuf>,
    lenient: bool,
}

impl Options<'_> {
    /// The library request, validated: names of transports and providers, switch and
    /// variable values (the library checks them against the project).
    fn request(&self, py: Python<'_>) -> PyResult<promptc::Request> {
        let mut o = promptc::CellOptions::default();
        o.profile = self.profile.clone();
        o.transport = self.transport.clone();
        o.provider = self.provider.clone();
        o.model = self.model.clone();
        if let Some(w) = &self.context_window {
            o.context_window = Some(window_text(py, w)?);
        }
        if let Some(s) = &self.switches {
            for (k, v) in s.iter() {
                let name: String = k.extract()?;
                o.switches.push((name.clone(), switch_value(py, &name, &v)?));
            }
        }
        if let Some(vars) = &self.variables {
            for (k, v) in vars.iter() {
                let name: String = k.extract()?;
                let value = from_py(py, &format!("variable `{name}`"), &v, 0)?;
                o.variables.push((name, value));
            }
        }
        o.subagent = self.subagent.clone();
        o.nonce = self.nonce.clone();
        o.context_file = self.context_file.clone();
        o.lenient = self.lenient;
        o.request().map_err(|e| py_err(py, e))
    }
}

/// A context window as text, so the library reads it as it reads the command line and context
/// files: an int, a float or a str (a bool is refused, though Python counts it as an int).
fn window_text(py: Python<'_>, w: &Bound<'_, PyAny>) -> PyResult<String> {
    if w.is_instance_of::<PyBool>() {
        return Err(usage(
            py,
            "context_window must be a number or a str, not a bool".into(),
            "pass the window in tokens, e.g. 200000",
        ));
    }
    if let Ok(n) = w.extract::<i128>() {
        return Ok(n.to_string());
    }
    if let Ok(f) = w.extract::<f64>() {
        return Ok(f.to_string());
    }
    w.extract::<String>().map_err(|_| {
        usage(
            py,
            "context_window must be a number or a str".into(),
            "pass the window in tokens, e.g. 200000 or \"200k\"",
        )
    })
}

/// A switch value: True/False, or a string for a switch with `values:` (the library checks
/// which values it takes).
fn switch_value(py: Python<'_>, name: &str, v: &Bound<'_, PyAny>) -> PyResult<promptc::SwitchValue> {
    if let Ok(value) = v.extract::<String>() {
        return Ok(promptc::SwitchValue::Is(value));
    }
    match v.cast::<PyBool>() {
        Ok(on) => Ok(promptc::SwitchValue::On(on.is_true())),
        Err(_) => Err(usage(
            py,
            format!("switch `{name}` must be True or False, or a string for a switch with values"),
            "switches are booleans, or strings for switches with `values:`",
        )),
    }
}

/// A loaded project: load once, compile many cells, from any thread.
#[pyclass(frozen, module = "promptc", name = "Project")]
struct PyProject {
    inner: Arc<promptc::Project>,
    /// Token counts for `report` and `freeze`, kept across calls (in memory only: a library
    /// never writes the project's token cache).
    tokens: Arc<Mutex<Option<promptc::TokenCounter>>>,
}

impl PyProject {
    fn with_tokens<T>(&self, f: impl FnOnce(&mut promptc::TokenCounter) -> promptc::Result<T>) -> promptc::Result<T> {
        let mut guard = self.tokens.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let counter = guard.get_or_insert_with(|| promptc::TokenCounter::for_project(&self.inner, None, false));
        f(counter)
    }
}

#[pymethods]
impl PyProject {
    /// Load the project at `path`: a manifest file, or a folder holding `promptc.yaml`.
    #[staticmethod]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<PyProject> {
        let project = py.detach(|| promptc::load(&path)).map_err(|e| py_err(py, e))?;
        Ok(PyProject { inner: Arc::new(project), tokens: Arc::new(Mutex::new(None)) })
    }

    /// The project's name.
    #[getter]
    fn name(&self) -> String {
        self.inner.name().to_string()
    }

    /// The project folder.
    #[getter]
    fn root(&self) -> PathBuf {
        self.inner.root().to_path_buf()
    }

    /// Load-time warnings (with the project's lint levels applied).
    #[getter]
    fn warnings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let ws: Vec<promptc::Diagnostic> = self.inner.warnings().into_iter().cloned().collect();
        diagnostics(py, &ws)
    }

    /// Every cell of the snapshot matrix, each with the options that compile it.
    fn cells(&self) -> Vec<PyCell> {
        promptc::matrix(&self.inner).into_iter().map(PyCell).collect()
    }

    /// Compile one cell: the prompt, the tool projection and the metadata.
    #[pyo3(signature = (*, profile=None, transport=None, provider=None, model=None, context_window=None,
        switches=None, variables=None, subagent=None, nonce=None, context_file=None, lenient=false))]
    #[allow(clippy::too_many_arguments)]
    fn compile<'py>(
        &self,
        py: Python<'py>,
        profile: Option<String>,
        transport: Option<String>,
        provider: Option<String>,
        model: Option<String>,
        context_window: Option<Bound<'py, PyAny>>,
        switches: Option<Bound<'py, PyDict>>,
        variables: Option<Bound<'py, PyDict>>,
        subagent: Option<String>,
        nonce: Option<String>,
        context_file: Option<PathBuf>,
        lenient: bool,
    ) -> PyResult<PyCompiled> {
        let options = Options {
            profile,
            transport,
            provider,
            model,
            context_window,
            switches,
            variables,
            subagent,
            nonce,
            context_file,
            lenient,
        };
        let request = options.request(py)?;
        let project = &self.inner;
        let compiled = py
            .detach(|| promptc::on_compile_stack(|| promptc::compile(project, &request)))
            .map_err(|e| py_err(py, e))?;
        Ok(PyCompiled { project: Arc::clone(&self.inner), inner: compiled })
    }

    /// The cell's account as `promptc report --format json` gives it: sent and billed tokens
    /// and bytes per section, tool and parameter, budgets. `tokenizer` forces one.
    #[pyo3(signature = (*, profile=None, transport=None, provider=None, model=None, context_window=None,
        switches=None, variables=None, subagent=None, nonce=None, context_file=None, lenient=false,
        tokenizer=None))]
    #[allow(clippy::too_many_arguments)]
    fn report<'py>(
        &self,
        py: Python<'py>,
        profile: Option<String>,
        transport: Option<String>,
        provider: Option<String>,
        model: Option<String>,
        context_window: Option<Bound<'py, PyAny>>,
        switches: Option<Bound<'py, PyDict>>,
        variables: Option<Bound<'py, PyDict>>,
        subagent: Option<String>,
        nonce: Option<String>,
        context_file: Option<PathBuf>,
        lenient: bool,
        tokenizer: Option<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let options = Options {
            profile,
            transport,
            provider,
            model,
            context_window,
            switches,
            variables,
            subagent,
            nonce,
            context_file,
            lenient,
        };
        let request = options.request(py)?;
        let json = py
            .detach(|| {
                promptc::on_compile_stack(|| {
                    let tokenizer =
                        tokenizer.as_deref().map(|n| promptc::tokenizer_named(&self.inner, n)).transpose()?;
                    let options = promptc::ReportOptions::new().tokenizer(tokenizer);
                    let report = self.with_tokens(|t| promptc::report(&self.inner, &request, &options, t))?;
                    let view = promptc::report::View::default();
                    Ok(promptc::report::render(&report.accounts[0], promptc::report::Format::Json, view))
                })
            })
            .map_err(|e| py_err(py, e))?;
        parse_json(py, &json)
    }

    /// Freeze a cell for a running agent: the record (a dict, what `promptc freeze` writes)
    /// to keep and `verify` later.
    #[pyo3(signature = (*, profile=None, transport=None, provider=None, model=None, context_window=None,
        switches=None, variables=None, nonce=None, context_file=None, lenient=false))]
    #[allow(clippy::too_many_arguments)]
    fn freeze<'py>(
        &self,
        py: Python<'py>,
        profile: Option<String>,
        transport: Option<String>,
        provider: Option<String>,
        model: Option<String>,
        context_window: Option<Bound<'py, PyAny>>,
        switches: Option<Bound<'py, PyDict>>,
        variables: Option<Bound<'py, PyDict>>,
        nonce: Option<String>,
        context_file: Option<PathBuf>,
        lenient: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let options = Options {
            profile,
            transport,
            provider,
            model,
            context_window,
            switches,
            variables,
            subagent: None,
            nonce,
            context_file,
            lenient,
        };
        let request = options.request(py)?;
        let json = py
            .detach(|| {
                promptc::on_compile_stack(|| {
                    self.with_tokens(|t| promptc::freeze(&self.inner, &request, t)).map(|r| r.to_json())
                })
            })
            .map_err(|e| py_err(py, e))?;
        parse_json(py, &json)
    }

    fn __repr__(&self) -> String {
        format!("<promptc.Project {:?} at {}>", self.inner.name(), self.inner.root().display())
    }
}

/// promptc's JSON output as Python objects, parsed by Python's own `json` (correctly rounded
/// floats: the same objects as `json.loads` of the command's output).
fn parse_json<'py>(py: Python<'py>, json: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (json,))
}

/// One cell of the project's snapshot matrix.
#[pyclass(frozen, module = "promptc", name = "Cell")]
struct PyCell(promptc::MatrixCell);

#[pymethods]
impl PyCell {
    /// The snapshot file stem, e.g. `lite.yolo.xml`.
    #[getter]
    fn name(&self) -> &str {
        &self.0.name
    }
    /// The profile.
    #[getter]
    fn profile(&self) -> &str {
        &self.0.profile
    }
    /// The case, or None for the project's defaults.
    #[getter]
    fn case(&self) -> Option<&str> {
        self.0.case.as_deref()
    }
    /// The transport.
    #[getter]
    fn transport(&self) -> &str {
        self.0.transport.as_str()
    }
    /// The sub-agent, or None.
    #[getter]
    fn subagent(&self) -> Option<&str> {
        self.0.subagent.as_deref()
    }
    /// The providers whose tool projections are snapshotted (native cells).
    #[getter]
    fn providers(&self) -> Vec<&'static str> {
        self.0.providers.iter().map(|p| p.as_str()).collect()
    }
    /// The keyword arguments of `Project.compile` for this cell (default provider).
    #[getter]
    fn options<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let r = &self.0.request;
        let d = PyDict::new(py);
        d.set_item("profile", &r.profile)?;
        d.set_item("transport", r.transport.map(|t| t.as_str()))?;
        let switches = PyDict::new(py);
        for (k, v) in &r.switches {
            switches.set_item(k, v)?;
        }
        for (k, v) in &r.choices {
            switches.set_item(k, v)?;
        }
        d.set_item("switches", switches)?;
        let variables = PyDict::new(py);
        for (k, v) in &r.variables {
            variables.set_item(k, to_py(py, v)?)?;
        }
        d.set_item("variables", variables)?;
        d.set_item("subagent", &r.subagent)?;
        d.set_item("nonce", &r.nonce)?;
        Ok(d)
    }
    fn __repr__(&self) -> String {
        format!("<promptc.Cell {}>", self.0.name)
    }
}

/// A compiled cell: the frozen prompt, its tool projection and metadata.
#[pyclass(frozen, module = "promptc", name = "Compiled")]
struct PyCompiled {
    project: Arc<promptc::Project>,
    inner: promptc::Compiled,
}

#[pymethods]
impl PyCompiled {
    /// The system prompt, exactly as `promptc render` prints it.
    #[getter]
    fn prompt(&self) -> &str {
        self.inner.prompt()
    }
    /// The provider's tools (parsed JSON), or None for the xml and json transports.
    #[getter]
    fn tools<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self.inner.projection() {
            Some(v) => to_py(py, v),
            None => Ok(py.None().into_bound(py)),
        }
    }
    /// The tools JSON text, exactly as `promptc render --tools` prints it, or None.
    #[getter]
    fn tools_json(&self) -> Option<String> {
        self.inner.tools_json().ok()
    }
    /// The artifact metadata (`metadata.json`): selection, switches, tools, hashes.
    #[getter]
    fn metadata<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let v = serde_json::to_value(self.inner.metadata(&self.project)).unwrap_or_default();
        to_py(py, &v)
    }
    /// The rendered sections in declaration order: id, text, origin, dynamic, sha256.
    #[getter]
    fn sections<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &serde_json::to_value(self.inner.sections()).unwrap_or_default())
    }
    /// The profile compiled.
    #[getter]
    fn profile(&self) -> &str {
        self.inner.profile()
    }
    /// The transport.
    #[getter]
    fn transport(&self) -> &str {
        self.inner.transport().as_str()
    }
    /// The provider of the projection (native cells), or None.
    #[getter]
    fn provider(&self) -> Option<&'static str> {
        self.inner.provider().map(|p| p.as_str())
    }
    /// The sub-agent, or None.
    #[getter]
    fn subagent(&self) -> Option<&str> {
        self.inner.subagent()
    }
    /// The active tools, in order.
    #[getter]
    fn tool_names(&self) -> Vec<&str> {
        self.inner.tool_names()
    }
    /// The untrusted-content nonce used.
    #[getter]
    fn nonce(&self) -> &str {
        self.inner.nonce()
    }
    /// Warnings collected while compiling (lenient mode).
    #[getter]
    fn warnings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        diagnostics(py, self.inner.warnings())
    }
    /// Where the prompt stops being the same across sessions: `bytes`, `last_static`,
    /// `first_dynamic`.
    #[getter]
    fn cache<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &serde_json::to_value(self.inner.static_prefix()).unwrap_or_default())
    }
    /// For an Anthropic cell: `system` blocks and `tools` with prompt-caching breakpoints,
    /// ready for `messages.create`; None otherwise.
    fn anthropic_request<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self.inner.anthropic_request() {
            Some(v) => to_py(py, &v),
            None => Ok(py.None().into_bound(py)),
        }
    }
    /// Everything as the JSON text `promptc render --format json` prints.
    fn to_json(&self) -> String {
        self.inner.to_json(&self.project)
    }
    fn __repr__(&self) -> String {
        format!("<promptc.Compiled {} {}>", self.inner.profile(), self.inner.transport())
    }
}

/// The verdict on a frozen record.
#[pyclass(frozen, module = "promptc", name = "Verdict")]
struct PyVerdict(promptc::freeze::Verdict);

#[pymethods]
impl PyVerdict {
    /// Whether the record is still what the project compiles.
    #[getter]
    fn fresh(&self) -> bool {
        self.0.fresh
    }
    /// `fresh` or `stale`.
    #[getter]
    fn status(&self) -> &'static str {
        if self.0.fresh {
            "fresh"
        } else {
            "stale"
        }
    }
    /// Why it is stale, one line each (as `promptc verify` prints them).
    #[getter]
    fn reasons(&self) -> Vec<String> {
        self.0.reasons.iter().map(|r| r.to_string()).collect()
    }
    /// Changes that did not alter the compiled output.
    #[getter]
    fn notes(&self) -> Vec<String> {
        self.0.notes.iter().map(|r| r.to_string()).collect()
    }
    /// The verdict as `promptc verify --format json` gives it.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &serde_json::to_value(&self.0).unwrap_or_default())
    }
    fn __bool__(&self) -> bool {
        self.0.fresh
    }
    fn __repr__(&self) -> String {
        format!("<promptc.Verdict {} ({} reasons)>", self.status(), self.0.reasons.len())
    }
}

/// Whether a frozen record (the dict `Project.freeze` returns, its JSON text, or a path to
/// the file `promptc freeze` wrote) is still what `project` compiles.
#[pyfunction]
fn verify(py: Python<'_>, record: Bound<'_, PyAny>, project: &PyProject) -> PyResult<PyVerdict> {
    let parsed = if let Ok(d) = record.cast::<PyDict>() {
        let value = from_py(py, "the record", d.as_any(), 0)?;
        promptc::parse_record(&value.to_string(), "<record>")
    } else if let Ok(s) = record.cast::<PyString>() {
        let text: String = s.extract()?;
        if text.trim_start().starts_with('{') {
            promptc::parse_record(&text, "<record>")
        } else {
            promptc::read_record(std::path::Path::new(&text))
        }
    } else if let Ok(p) = record.extract::<PathBuf>() {
        promptc::read_record(&p)
    } else {
        return Err(usage(
            py,
            "the record must be a dict, JSON text or a path".into(),
            "pass what Project.freeze returned, or the path of a record file",
        ));
    };
    let record = parsed.map_err(|e| py_err(py, e))?;
    let inner = &project.inner;
    let verdict =
        py.detach(|| promptc::on_compile_stack(|| promptc::verify(inner, &record))).map_err(|e| py_err(py, e))?;
    Ok(PyVerdict(verdict))
}

/// Run the `promptc` command line in this process (the wheel's `promptc` command); `argv`
/// starts with the program name. Returns the exit code.
#[pyfunction]
fn run_cli(py: Python<'_>, argv: Vec<std::ffi::OsString>) -> u8 {
    py.detach(|| cli::main(argv) as u8)
}

/// The promptc version.
const VERSION: &str = env!("CARGO_PKG_VERSION");

#[pymodule]
fn _promptc(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("PromptcError", m.py().get_type::<PromptcError>())?;
    m.add("__version__", VERSION)?;
    m.add_class::<PyProject>()?;
    m.add_class::<PyCompiled>()?;
    m.add_class::<PyCell>()?;
    m.add_class::<PyDiagnostic>()?;
    m.add_class::<PyVerdict>()?;
    m.add_function(wrap_pyfunction!(verify, m)?)?;
    m.add_function(wrap_pyfunction!(run_cli, m)?)?;
    Ok(())
}
