//! The cell options every call takes, as Python passes them, turned into the library's
//! `CellOptions` (which makes the `Request`).

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict};

use crate::convert::from_py;
use crate::errors::{py_err, usage};

/// The cell options every call takes, as Python passes them.
pub(crate) struct Options<'py> {
    /// The profile (default: the project's selection policy chooses).
    pub(crate) profile: Option<String>,
    /// The transport's name.
    pub(crate) transport: Option<String>,
    /// The provider's name.
    pub(crate) provider: Option<String>,
    /// The model id, for the selection policy.
    pub(crate) model: Option<String>,
    /// The context window: an int, a float or a str.
    pub(crate) context_window: Option<Bound<'py, PyAny>>,
    /// Switch values by name: bools, or strings for switches with `values:`.
    pub(crate) switches: Option<Bound<'py, PyDict>>,
    /// Variable values by name.
    pub(crate) variables: Option<Bound<'py, PyDict>>,
    /// The sub-agent whose prompt to compile.
    pub(crate) subagent: Option<String>,
    /// The nonce of the untrusted-content delimiters.
    pub(crate) nonce: Option<String>,
    /// A YAML or JSON context file.
    pub(crate) context_file: Option<PathBuf>,
    /// Whether a failing tool contribution is dropped with a warning.
    pub(crate) lenient: bool,
}

impl Options<'_> {
    /// The library request, validated: names of transports and providers, switch and
    /// variable values (the library checks them against the project).
    pub(crate) fn request(&self, py: Python<'_>) -> PyResult<promptc::Request> {
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
