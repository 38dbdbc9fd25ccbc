//! `promptc.verify` and its `Verdict`: whether a frozen record is still what the project
//! compiles.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::convert::{from_py, to_py};
use crate::errors::{py_err, usage};
use crate::project::PyProject;

/// The verdict on a frozen record.
#[pyclass(frozen, module = "promptc", name = "Verdict")]
pub(crate) struct PyVerdict(promptc::freeze::Verdict);

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
pub(crate) fn verify(py: Python<'_>, record: Bound<'_, PyAny>, project: &PyProject) -> PyResult<PyVerdict> {
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
