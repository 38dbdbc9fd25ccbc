//! `promptc.Project`: a loaded project, with the calls that compile, report and freeze its cells.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::cell::PyCell;
use crate::compiled::PyCompiled;
use crate::convert::parse_json;
use crate::errors::{diagnostics, py_err};
use crate::options::Options;

/// A loaded project: load once, compile many cells, from any thread.
#[pyclass(frozen, module = "promptc", name = "Project")]
pub(crate) struct PyProject {
    /// The project, shared with the cells compiled from it.
    pub(crate) inner: Arc<promptc::Project>,
    /// Token counts for `report` and `freeze`, kept across calls (in memory only: a library
    /// never writes the project's token cache).
    tokens: Arc<Mutex<Option<promptc::TokenCounter>>>,
}

impl PyProject {
    /// Run `f` with the project's token counter, made on first use; a panic in another call
    /// does not make the counts unusable (they are only a cache).
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
