//! Runtime context: switch values, variable values and model facts for one render, from the
//! project's defaults, the request's context file, then the request's own values (later wins).

use std::collections::BTreeMap;
use std::path::Path;

use indexmap::IndexMap;
use serde_json::Value;

use crate::diagnostic::{known_names_help, Diagnostic};
use crate::error::{Diagnostics, Error, ErrorKind, Result};
use crate::format::context::RawContext;
use crate::hash::sha256_hex;
use crate::model::Project;
use crate::resolve::Request;
use crate::source::MAX_FILE_BYTES;

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
    /// Every on/off switch, resolved.
    pub switches: BTreeMap<String, bool>,
    /// Every string-valued switch, resolved.
    pub choices: BTreeMap<String, String>,
    /// Every variable, resolved, in declaration order.
    pub variables: IndexMap<String, Value>,
    /// Model id from the context file.
    pub model: Option<String>,
    /// The context window (context file or request), validated and normalised to digits.
    pub context_window: Option<String>,
    /// Switches and variables the request set by name (flags or the context file): what a
    /// frozen record keeps, whichever way they were given.
    pub named: std::collections::BTreeSet<String>,
    /// The context file, if one was used.
    pub context_file: Option<ContextFile>,
    /// Nonce of the untrusted-content delimiters.
    pub nonce: String,
    /// Drop failing tool contributions (with a warning) instead of failing.
    pub lenient: bool,
}

impl Runtime {
    /// The project's defaults with nothing overridden.
    pub fn defaults(project: &Project) -> Runtime {
        Runtime {
            switches: project
                .switches
                .iter()
                .filter(|(_, s)| s.choice.is_none())
                .map(|(k, s)| (k.clone(), s.default))
                .collect(),
            choices: project
                .switches
                .iter()
                .filter_map(|(k, s)| s.choice.as_ref().map(|c| (k.clone(), c.default.clone())))
                .collect(),
            variables: project.variables.iter().map(|(k, v)| (k.clone(), v.default.clone())).collect(),
            model: None,
            context_window: None,
            named: Default::default(),
            context_file: None,
            nonce: crate::model::untrusted::derived_nonce(&[&project.name, &project.contract_version.to_string()]),
            lenient: false,
        }
    }

    /// Resolve defaults, then the request's context file, then the request's own values.
    pub fn resolve(project: &Project, req: &Request) -> Result<Runtime> {
        let mut rt = Runtime::defaults(project);
        let mut diags = Diagnostics::new(ErrorKind::Usage);
        rt.lenient = req.lenient;
        rt.nonce = match &req.nonce {
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
        if let Some(text) = &req.context_text {
            let file = ContextFile { display: STDIN.to_string(), sha256: sha256_hex(text.as_bytes()) };
            rt.apply_context_file(project, text.clone(), file, &mut diags)?;
        } else if let Some(path) = &req.context_file {
            let (text, file) = read_context(path)?;
            rt.apply_context_file(project, text, file, &mut diags)?;
        }
        // The request's own model facts win over the context file's (as its switches and
        // variables do), and are recorded with the cell.
        if let Some(m) = &req.model {
            rt.model = Some(m.clone());
        }
        if let Some(w) = &req.context_window {
            match crate::model::selection::parse_window(w) {
                Ok(n) => rt.context_window = Some(n.to_string()),
                Err(e) => diags.push(Diagnostic::error(e).with_help("give the window in tokens: 32000, 32k or 1M")),
            }
        }
        rt.apply_request(project, req, &mut diags);
        diags.finish(rt)
    }

    /// The values of the context file `file` whose text is `text`: unknown names and bad values
    /// are problems in `diags`, located in the file; a malformed file is an error at once.
    fn apply_context_file(
        &mut self,
        project: &Project,
        text: String,
        file: ContextFile,
        diags: &mut Diagnostics,
    ) -> Result<()> {
        let switch_names: Vec<&str> = project.switches.keys().map(String::as_str).collect();
        let var_names: Vec<&str> = project.variables.keys().map(String::as_str).collect();
        // A bad context file is a bad request (the project itself is fine).
        let raw: RawContext = crate::source::yaml::parse_str(&text, &file.display)
            .map_err(|e| Error::new(ErrorKind::Usage, e.into_diagnostics()))?;
        let label = |loc: &serde_saphyr::Location| crate::source::yaml::label(&file.display, &text, loc);
        for (k, v) in &raw.switches {
            if let Some(s) = project.switches.get(&k.value) {
                match s.value_of(&v.value) {
                    Ok(crate::model::SwitchValue::On(b)) => _ = self.switches.insert(k.value.clone(), b),
                    Ok(crate::model::SwitchValue::Is(x)) => _ = self.choices.insert(k.value.clone(), x),
                    Err(help) => diags.push(
                        Diagnostic::error(format!(
                            "invalid value {} for switch `{}` in context file",
                            v.value, k.value
                        ))
                        .with_label(label(&v.referenced))
                        .with_help(help),
                    ),
                }
            } else {
                diags.push(
                    Diagnostic::error(format!("unknown switch `{}` in context file", k.value))
                        .with_label(label(&k.referenced))
                        .with_help(known_names_help("switch", &k.value, &switch_names)),
                );
            }
        }
        for (k, v) in &raw.variables {
            if let Some(var) = project.variables.get(&k.value) {
                match self.merged(var, &k.value, v) {
                    Ok(value) => _ = self.variables.insert(k.value.clone(), value),
                    Err(why) => diags.push(
                        Diagnostic::error(format!("invalid value for variable `{}` in context file: {why}", k.value))
                            .with_label(label(&k.referenced))
                            .with_help(merge_help(var)),
                    ),
                }
            } else {
                diags.push(
                    Diagnostic::error(format!("unknown variable `{}` in context file", k.value))
                        .with_label(label(&k.referenced))
                        .with_help(known_names_help("variable", &k.value, &var_names)),
                );
            }
        }
        self.model = raw.model.clone();
        if let Some(v) = &raw.context_window {
            let given = match &v.value {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            match crate::model::selection::parse_window(&given) {
                Ok(n) => self.context_window = Some(n.to_string()),
                Err(e) => diags.push(
                    Diagnostic::error(format!("{e} (in the context file)"))
                        .with_label(label(&v.referenced))
                        .with_help("write `context_window: 32000` (or 32k, 1M)"),
                ),
            }
        }
        self.named.extend(raw.switches.keys().chain(raw.variables.keys()).map(|k| k.value.clone()));
        self.context_file = Some(file);
        Ok(())
    }

    /// The request's own switches, choices and variables (they win over the context file's).
    fn apply_request(&mut self, project: &Project, req: &Request, diags: &mut Diagnostics) {
        let switch_names: Vec<&str> = project.switches.keys().map(String::as_str).collect();
        let var_names: Vec<&str> = project.variables.keys().map(String::as_str).collect();
        self.named
            .extend(req.switches.iter().map(|(k, _)| k.clone()).chain(req.variables.iter().map(|(k, _)| k.clone())));
        self.named.extend(req.choices.iter().map(|(k, _)| k.clone()));
        for (name, on) in &req.switches {
            if let Some(c) = project.switches.get(name).and_then(|s| s.choice.as_ref()) {
                diags.push(
                    Diagnostic::error(format!("switch `{name}` takes a value, not on or off"))
                        .with_help(format!("set it to one of: {}", c.values.join(", "))),
                );
            } else if project.switches.contains_key(name) {
                self.switches.insert(name.clone(), *on);
            } else {
                diags.push(Diagnostic::error(format!("unknown switch `{name}`")).with_help(known_names_help(
                    "switch",
                    name,
                    &switch_names,
                )));
            }
        }
        for (name, value) in &req.choices {
            match project.switches.get(name).map(|s| s.value_of(&Value::String(value.clone()))) {
                Some(Ok(crate::model::SwitchValue::Is(x))) => _ = self.choices.insert(name.clone(), x),
                Some(Ok(crate::model::SwitchValue::On(_))) | Some(Err(_)) => {
                    let help = match project.switches.get(name).and_then(|s| s.choice.as_ref()) {
                        Some(c) => format!("one of: {}", c.values.join(", ")),
                        None => "it is an on/off switch: true or false".into(),
                    };
                    diags.push(
                        Diagnostic::error(format!("invalid value `{value}` for switch `{name}`")).with_help(help),
                    );
                }
                None => diags.push(Diagnostic::error(format!("unknown switch `{name}`")).with_help(known_names_help(
                    "switch",
                    name,
                    &switch_names,
                ))),
            }
        }
        for (name, value) in &req.variables {
            if let Some(var) = project.variables.get(name) {
                match self.merged(var, name, value) {
                    Ok(value) => _ = self.variables.insert(name.clone(), value),
                    Err(why) => diags.push(
                        Diagnostic::error(format!("invalid value for variable `{name}`: {why}"))
                            .with_help(merge_help(var)),
                    ),
                }
            } else {
                diags.push(
                    Diagnostic::error(format!("unknown variable `{name}`"))
                        .with_help(known_names_help("variable", name, &var_names)),
                );
            }
        }
    }
}

impl Runtime {
    /// `given` for variable `name` combined with its value so far by the variable's `merge:`.
    fn merged(&self, var: &crate::model::Variable, name: &str, given: &Value) -> std::result::Result<Value, String> {
        let current = self.variables.get(name).unwrap_or(&var.default);
        var.merge.apply(current, given)
    }
}

/// How to give a value to a variable whose `merge:` needs a map.
fn merge_help(var: &crate::model::Variable) -> String {
    let keys: Vec<&str> = var.default.as_object().map(|m| m.keys().map(String::as_str).collect()).unwrap_or_default();
    format!(
        "give a map of the keys to change (its default has: {}) in a context file (`variables: {{NAME: {{KEY: \
         VALUE}}}}`); the others keep their default. `--var` gives text, not a map",
        keys.join(", ")
    )
}

/// The name a context file's text read from standard input has in messages and records.
const STDIN: &str = "<stdin>";

/// The text of the context file at `path` and its record (display name, hash).
fn read_context(path: &Path) -> Result<(String, ContextFile)> {
    use crate::source::ReadError;
    let bytes = crate::source::read_regular(path, MAX_FILE_BYTES).map_err(|e| match e {
        ReadError::Io(e) => Error::io("read context file", path, &e),
        ReadError::NotAFile => Error::usage(
            Diagnostic::error(format!("context file `{}` is not a regular file", path.display()))
                .with_help("pass a YAML or JSON file (not a folder, pipe or device)"),
        ),
        ReadError::TooLarge(_) => Error::usage(Diagnostic::error(format!(
            "context file `{}` is larger than {MAX_FILE_BYTES} bytes",
            path.display()
        ))),
    })?;
    let sha256 = sha256_hex(&bytes);
    let text = String::from_utf8(bytes).map_err(|_| {
        Error::usage(Diagnostic::error(format!("context file `{}` is not valid UTF-8", path.display())))
    })?;
    Ok((text, ContextFile { display: path.display().to_string(), sha256 }))
}
