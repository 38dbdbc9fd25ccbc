//! `promptc.Compiled`: a compiled cell, its prompt, tool projection and metadata.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::convert::to_py;
use crate::errors::diagnostics;

/// A compiled cell: the frozen prompt, its tool projection and metadata.
#[pyclass(frozen, module = "promptc", name = "Compiled")]
pub(crate) struct PyCompiled {
    /// The project it was compiled from (its metadata and JSON read the project's files).
    pub(crate) project: Arc<promptc::Project>,
    /// The compiled cell.
    pub(crate) inner: promptc::Compiled,
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
    /// Where the prompt stops being the same across sessions, measured: `bytes`,
    /// `last_static`, `first_dynamic`, `why`, `measured`.
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
