//! The library error: one or more diagnostics that stop a command.

use crate::diagnostic::Diagnostic;

/// A project or usage error. Always carries at least one located-when-possible diagnostic;
/// the CLI maps it to exit code 2.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", .0.first().map(|d| d.message.as_str()).unwrap_or("error"))]
pub struct Error(pub Vec<Diagnostic>);

impl Error {
    /// The diagnostics, in the order they were found.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.0
    }

    /// An I/O failure on `path`.
    pub fn io(action: &str, path: &std::path::Path, err: &std::io::Error) -> Self {
        Diagnostic::error(format!("cannot {action} `{}`: {}", path.display(), io_reason(err))).into()
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

impl From<Diagnostic> for Error {
    fn from(d: Diagnostic) -> Self {
        Error(vec![d])
    }
}

/// The result type of every fallible library function.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Collects diagnostics during validation so a user sees every problem at once.
#[derive(Debug, Default)]
pub struct Diagnostics(Vec<Diagnostic>);

impl Diagnostics {
    /// Record a problem.
    pub fn push(&mut self, d: Diagnostic) {
        self.0.push(d);
    }

    /// Record the diagnostics of a failed step and go on.
    pub fn absorb<T>(&mut self, r: Result<T>) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(e) => {
                self.0.extend(e.0);
                None
            }
        }
    }

    /// `Ok(value)` if no error was recorded (warnings alone do not fail), else every
    /// recorded diagnostic.
    pub fn finish<T>(self, value: T) -> Result<T> {
        if self.0.iter().any(|d| d.severity == crate::diagnostic::Severity::Error) {
            Err(Error(self.0))
        } else {
            Ok(value)
        }
    }

    /// The warnings recorded so far (kept; they are part of a failure too).
    pub fn warnings(&self) -> Vec<Diagnostic> {
        self.0.iter().filter(|d| d.severity == crate::diagnostic::Severity::Warning).cloned().collect()
    }

    /// True when nothing has been recorded.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}
