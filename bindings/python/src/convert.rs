//! Values between Python and promptc: JSON values to Python objects and back (variable values,
//! records), and promptc's JSON output parsed by Python's own `json`.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use pyo3::IntoPyObjectExt;
use serde_json::Value;

use crate::errors::usage;

/// serde_json → Python, preserving object order.
pub(crate) fn to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
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
pub(crate) fn from_py(py: Python<'_>, what: &str, obj: &Bound<'_, PyAny>, depth: usize) -> PyResult<Value> {
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

/// promptc's JSON output as Python objects, parsed by Python's own `json` (correctly rounded
/// floats: the same objects as `json.loads` of the command's output).
pub(crate) fn parse_json<'py>(py: Python<'py>, json: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (json,))
}
