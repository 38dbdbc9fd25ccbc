//! Runtime context: switch values, variable values and model facts for one render, from the
//! project's defaults, a `--context` file, and `--set`/`--var` flags (later wins).

use std::collections::BTreeMap;
use std::path::Path;

use indexmap::IndexMap;
use serde_json::Value;

use crate::diagnostic::{known_names_help, Diagnostic};
use crate::error::{Diagnostics, Error, ErrorKind, Result};
use crate::hash::sha256_hex;
use crate::load::raw::RawContext;
use crate::model::Project;
use crate::source::MAX_FILE_BYTES;

/// What the user supplied on the command line.
#[derive(Debug, Clone, Default)]
pub struct RuntimeInput {
    /// `--set NAME[=BOOL]` values.
    pub sets: Vec<String>,
    /// `--var NAME=VALUE` values.
    pub vars: Vec<String>,
    /// `--context FILE`.
    pub context_file: Option<std::path::PathBuf>,
    /// `--nonce`: the untrusted-content nonce (default: random per render).
    pub nonce: Option<String>,
    /// `--lenient`: a failing tool contribution is dropped with a warning, not an error.
    pub lenient: bool,
}

/// A context file as read, for hashing in metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextFile {
    /// Path as given.
    pub display: String,
    /// SHA-256 of its bytes.
    pub sha256: String,
}

/// The resolved runtime values of one render.
#[derive(Debug, Clone, PartialEq)]
pub struct Runtime {
    /// Every switch, resolved.
    pub switches: BTreeMap<String, bool>,
    /// Every variable, resolved, in declaration order.
    pub variables: IndexMap<String, Value>,
    /// Model id from the context file.
    pub model: Option<String>,
    /// Context window from the context file, as given.
    pub context_window: Option<String>,
    /// The context file, if one was used.
    pub context_file: Option<ContextFile>,
    /// Nonce of the untrusted-content delimiters.
    pub nonce: String,
    /// Drop failing tool contributions (with a warning) instead of failing.
    pub lenient: bool,
}

/// Parse a boolean flag value the way people write them.
pub fn parse_bool(s: &str) -> Option<bool> {
    match s.trim().to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" | "1" => Some(true),
        "false" | "no" | "off" | "0" => Some(false),
        _ => None,
    }
}

impl Runtime {
    /// The project's defaults with nothing overridden.
    pub fn defaults(project: &Project) -> Runtime {
        Runtime {
            switches: project.switches.iter().map(|(k, s)| (k.clone(), s.default)).collect(),
            variables: project.variables.iter().map(|(k, v)| (k.clone(), v.default.clone())).collect(),
            model: None,
            context_window: None,
            context_file: None,
            nonce: crate::model::untrusted::derived_nonce(&[&project.name, &project.contract_version.to_string()]),
            lenient: false,
        }
    }

    /// Resolve defaults, then the context file, then flags.
    pub fn resolve(project: &Project, input: &RuntimeInput) -> Result<Runtime> {
        let mut rt = Runtime::defaults(project);
        let mut diags = Diagnostics::new(ErrorKind::Usage);
        rt.lenient = input.lenient;
        rt.nonce = match &input.nonce {
            Some(n) if crate::model::untrusted::valid_nonce(n) => n.clone(),
            Some(n) => {
                diags.push(
                    Diagnostic::error(format!("invalid nonce `{n}`"))
                        .with_help("a nonce is 4 to 32 ASCII letters or digits"),
                );
                String::new()
            }
            None => crate::model::untrusted::random_nonce(),
        };
        let switch_names: Vec<&str> = project.switches.keys().map(String::as_str).collect();
        let var_names: Vec<&str> = project.variables.keys().map(String::as_str).collect();
        if let Some(path) = &input.context_file {
            let (text, file) = read_context(path)?;
            let raw: RawContext = crate::source::yaml::parse_str(&text, &file.display)?;
            let label = |loc: &serde_saphyr::Location| crate::source::yaml::label(&file.display, &text, loc);
            for (k, v) in &raw.switches {
                if project.switches.contains_key(&k.value) {
                    rt.switches.insert(k.value.clone(), *v);
                } else {
                    diags.push(
                        Diagnostic::error(format!("unknown switch `{}` in context file", k.value))
                            .with_label(label(&k.referenced))
                            .with_help(known_names_help("switch", &k.value, &switch_names)),
                    );
                }
            }
            for (k, v) in &raw.variables {
                if project.variables.contains_key(&k.value) {
                    rt.variables.insert(k.value.clone(), v.clone());
                } else {
                    diags.push(
                        Diagnostic::error(format!("unknown variable `{}` in context file", k.value))
                            .with_label(label(&k.referenced))
                            .with_help(known_names_help("variable", &k.value, &var_names)),
                    );
                }
            }
            rt.model = raw.model.clone();
            rt.context_window = raw.context_window.as_ref().map(|v| match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            });
            rt.context_file = Some(file);
        }
        for s in &input.sets {
            let (name, value) = match s.split_once('=') {
                Some((n, v)) => (n.trim(), Some(v)),
                None => (s.trim(), None),
            };
            if !project.switches.contains_key(name) {
                diags.push(
                    Diagnostic::error(format!("unknown switch `{name}` in --set {s}")).with_help(known_names_help(
                        "switch",
                        name,
                        &switch_names,
                    )),
                );
                continue;
            }
            match value.map_or(Some(true), parse_bool) {
                Some(b) => {
                    rt.switches.insert(name.to_string(), b);
                }
                None => diags.push(
                    Diagnostic::error(format!(
                        "invalid value `{}` for switch `{name}` in --set {s}",
                        value.unwrap_or_default()
                    ))
                    .with_help("switch values are true or false (also yes/no, on/off, 1/0)"),
                ),
            }
        }
        for v in &input.vars {
            let Some((name, value)) = v.split_once('=') else {
                diags.push(Diagnostic::error(format!("--var {v} has no value")).with_help("write --var NAME=VALUE"));
                continue;
            };
            if project.variables.contains_key(name.trim()) {
                rt.variables.insert(name.trim().to_string(), Value::String(value.to_string()));
            } else {
                diags.push(
                    Diagnostic::error(format!("unknown variable `{}` in --var {v}", name.trim()))
                        .with_help(known_names_help("variable", name.trim(), &var_names)),
                );
            }
        }
        diags.finish(rt)
    }
}

fn read_context(path: &Path) -> Result<(String, ContextFile)> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io("read context file", path, &e))?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(Diagnostic::error(format!(
            "context file `{}` is larger than {MAX_FILE_BYTES} bytes",
            path.display()
        ))
        .into_error(crate::error::ErrorKind::Usage));
    }
    let bytes = std::fs::read(path).map_err(|e| Error::io("read context file", path, &e))?;
    let sha256 = sha256_hex(&bytes);
    let text = String::from_utf8(bytes).map_err(|_| {
        Error::usage(Diagnostic::error(format!("context file `{}` is not valid UTF-8", path.display())))
    })?;
    Ok((text, ContextFile { display: path.display().to_string(), sha256 }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn booleans() {
        assert_eq!(parse_bool("TRUE"), Some(true));
        assert_eq!(parse_bool("off"), Some(false));
        assert_eq!(parse_bool("maybe"), None);
    }
}
