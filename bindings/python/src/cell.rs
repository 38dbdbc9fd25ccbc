//! `promptc.Cell`: one cell of the project's snapshot matrix, with the options that compile it.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::convert::to_py;

/// One cell of the project's snapshot matrix.
#[pyclass(frozen, module = "promptc", name = "Cell")]
pub(crate) struct PyCell(pub(crate) promptc::MatrixCell);

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
