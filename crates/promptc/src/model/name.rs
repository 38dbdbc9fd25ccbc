//! Parsing the names of closed sets (transports, providers) from text, with one wording for
//! the error everywhere: the CLI's flags and the language bindings' options.

use crate::diagnostic::Diagnostic;
use crate::error::Error;

/// A name that is not one of a closed set's, e.g. `--transport nativ`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct UnknownName {
    /// What was named (`transport`).
    pub what: &'static str,
    /// The name given.
    pub name: String,
    /// Every valid name, in order.
    pub expected: Vec<&'static str>,
}

impl std::fmt::Display for UnknownName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = crate::diagnostic::excerpt(&self.name, 60);
        write!(f, "unknown {} `{name}` (expected one of: {})", self.what, self.expected.join(", "))
    }
}

impl std::error::Error for UnknownName {}

impl From<UnknownName> for Error {
    fn from(e: UnknownName) -> Error {
        let help = crate::diagnostic::known_names_help(e.what, &e.name, &e.expected);
        Error::usage(Diagnostic::error(e.to_string()).with_help(help))
    }
}

/// Find `s` among `all` by name.
pub(crate) fn find<T: Copy>(
    what: &'static str,
    s: &str,
    all: &[T],
    name: impl Fn(T) -> &'static str,
) -> Result<T, UnknownName> {
    all.iter().copied().find(|t| name(*t) == s).ok_or_else(|| UnknownName {
        what,
        name: s.to_string(),
        expected: all.iter().map(|t| name(*t)).collect(),
    })
}
