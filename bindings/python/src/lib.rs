//! `promptc._promptc`: the compiler as a Python extension module (the `promptc` package wraps
//! it; see `python/promptc/__init__.py`). Every call goes through the library facade; this
//! crate only converts between Python objects and promptc's types (`convert`, `options`),
//! releases the GIL while compiling, and raises `PromptcError` with the located diagnostics
//! (`errors`). The classes: `Project` (`project`), `Cell` (`cell`), `Compiled` (`compiled`),
//! `Verdict` and `verify` (`verdict`).

use pyo3::prelude::*;

mod cell;
mod compiled;
mod convert;
mod errors;
mod options;
mod project;
mod verdict;

use cell::PyCell;
use compiled::PyCompiled;
use errors::{PromptcError, PyDiagnostic};
use project::PyProject;
use verdict::PyVerdict;

/// Run the `promptc` command line in this process (the wheel's `promptc` command); `argv`
/// starts with the program name. Returns the exit code.
#[pyfunction]
fn run_cli(py: Python<'_>, argv: Vec<std::ffi::OsString>) -> u8 {
    py.detach(|| promptc_cli::main(argv) as u8)
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
    m.add_function(wrap_pyfunction!(verdict::verify, m)?)?;
    m.add_function(wrap_pyfunction!(run_cli, m)?)?;
    Ok(())
}
