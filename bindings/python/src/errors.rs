//! promptc's errors as Python sees them: `PromptcError`, carrying the error's kind and its
//! located problems as `Diagnostic` objects.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyList;

create_exception!(
    _promptc,
    PromptcError,
    PyException,
    "A promptc failure. `kind` says what failed (project, template, usage, record, io, internal);\n\
     `diagnostics` holds each located problem; `str(err)` is what the CLI prints."
);

/// One located problem: what is wrong, where, and how to fix it.
#[pyclass(frozen, module = "promptc", name = "Diagnostic")]
pub(crate) struct PyDiagnostic {
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
    /// The whole diagnostic as the CLI prints it (`str(diagnostic)`).
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
    /// The Python view of `d`.
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

/// Each diagnostic as a Python `Diagnostic`, in a list.
pub(crate) fn diagnostics<'py>(py: Python<'py>, ds: &[promptc::Diagnostic]) -> PyResult<Bound<'py, PyList>> {
    PyList::new(py, ds.iter().map(PyDiagnostic::new))
}

/// A promptc error as a `PromptcError` carrying its kind and diagnostics.
pub(crate) fn py_err(py: Python<'_>, e: promptc::Error) -> PyErr {
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
pub(crate) fn usage(py: Python<'_>, message: String, help: &str) -> PyErr {
    py_err(py, promptc::Error::usage(promptc::Diagnostic::error(message).with_help(help)))
}
