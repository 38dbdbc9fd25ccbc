//! The library error: what kind of failure it is, and the located diagnostics that say where
//! and how to fix it.

use crate::diagnostic::{Diagnostic, Severity};

/// What kind of failure an [`Error`] is, for callers that react differently to each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The project's files are invalid: YAML, unknown references, rule violations, templates
    /// that do not compile or read undefined names.
    Project,
    /// A template failed while rendering (an undefined value, a loop that ran out of fuel).
    Template,
    /// The request is invalid: an unknown profile, sub-agent, command or rule, a transport or
    /// provider the project does not enable, a bad switch or variable value, a bad context file.
    Usage,
    /// A frozen record cannot be used: not JSON, not a record, or from a newer promptc.
    Record,
    /// A file or folder could not be read or written.
    Io,
    /// promptc failed inside (a tokenizer that would not build, a worker thread that died).
    Internal,
}

impl ErrorKind {
    /// The kind's name, as the language bindings expose it (`project`, `usage`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Project => "project",
            ErrorKind::Template => "template",
            ErrorKind::Usage => "usage",
            ErrorKind::Record => "record",
            ErrorKind::Io => "io",
            ErrorKind::Internal => "internal",
        }
    }
}

/// A failure: its kind and one or more diagnostics (located where possible). The CLI prints
/// the diagnostics and exits with code 2.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", .diagnostics.first().map(|d| d.message.as_str()).unwrap_or("error"))]
pub struct Error {
    kind: ErrorKind,
    diagnostics: Vec<Diagnostic>,
}

impl Error {
    /// An error of `kind` with `diagnostics` (at least one).
    pub fn new(kind: ErrorKind, diagnostics: Vec<Diagnostic>) -> Self {
        Error { kind, diagnostics }
    }

    /// A project error with one diagnostic.
    pub fn project(d: Diagnostic) -> Self {
        Error::new(ErrorKind::Project, vec![d])
    }

    /// A render-time template error with one diagnostic.
    pub fn template(d: Diagnostic) -> Self {
        Error::new(ErrorKind::Template, vec![d])
    }

    /// An invalid request with one diagnostic.
    pub fn usage(d: Diagnostic) -> Self {
        Error::new(ErrorKind::Usage, vec![d])
    }

    /// An unusable frozen record with one diagnostic.
    pub fn record(d: Diagnostic) -> Self {
        Error::new(ErrorKind::Record, vec![d])
    }

    /// An I/O failure on `path`.
    pub fn io(action: &str, path: &std::path::Path, err: &std::io::Error) -> Self {
        Error::new(
            ErrorKind::Io,
            vec![Diagnostic::error(format!("cannot {action} `{}`: {}", path.display(), io_reason(err)))],
        )
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The diagnostics, in the order they were found.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The diagnostics, to add context to them.
    pub fn diagnostics_mut(&mut self) -> &mut Vec<Diagnostic> {
        &mut self.diagnostics
    }

    /// The diagnostics, by value.
    pub fn into_diagnostics(self) -> Vec<Diagnostic> {
        self.diagnostics
    }
}

/// A short, lower-case reason for an I/O error, without the OS error number.
pub fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or folder".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        std::io::ErrorKind::IsADirectory => "it is a folder".into(),
        _ => {
            let s = e.to_string();
            match s.find(" (os error") {
                Some(i) => s[..i].to_lowercase(),
                None => s,
            }
        }
    }
}

/// The result type of every fallible library function.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Collects diagnostics during validation so a user sees every problem at once.
#[derive(Debug)]
pub struct Diagnostics {
    kind: ErrorKind,
    found: Vec<Diagnostic>,
}

impl Diagnostics {
    /// An empty collection whose errors, if any, will be of `kind`.
    pub fn new(kind: ErrorKind) -> Self {
        Diagnostics { kind, found: Vec::new() }
    }

    /// Record a problem.
    pub fn push(&mut self, d: Diagnostic) {
        self.found.push(d);
    }

    /// Record the diagnostics of a failed step and go on.
    pub fn absorb<T>(&mut self, r: Result<T>) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(e) => {
                self.found.extend(e.diagnostics);
                None
            }
        }
    }

    /// `Ok(value)` if no error was recorded (warnings alone do not fail), else every
    /// recorded diagnostic.
    pub fn finish<T>(self, value: T) -> Result<T> {
        if self.found.iter().any(|d| d.severity == Severity::Error) {
            Err(Error::new(self.kind, self.found))
        } else {
            Ok(value)
        }
    }

    /// The warnings recorded so far (kept; they are part of a failure too).
    pub fn warnings(&self) -> Vec<Diagnostic> {
        self.found.iter().filter(|d| d.severity == Severity::Warning).cloned().collect()
    }

    /// True when nothing has been recorded.
    pub fn is_empty(&self) -> bool {
        self.found.is_empty()
    }
}

impl Diagnostic {
    /// This diagnostic as an error of `kind`.
    pub fn into_error(self, kind: ErrorKind) -> Error {
        Error::new(kind, vec![self])
    }
}
