//! The typed project: everything promptc knows about a project once it is loaded and
//! validated. Pure data with a few pure methods; built by `load`, read by every later layer.

use std::collections::BTreeMap;
use std::path::PathBuf;

use indexmap::IndexMap;

use crate::diagnostic::{known_names_help, Diagnostic, Label, Span};
use crate::error::{Error, Result};
use crate::source::{ProjectFs, SourceFile};

pub mod budget;
pub mod catalog;
pub mod chat;
pub mod condition;
pub mod name;
pub mod params;
pub mod profile;
pub mod provider;
pub mod section;
pub mod selection;
pub mod settings;
pub mod tokenizer;
pub mod transport;
pub mod untrusted;

pub use catalog::Catalog;
pub use profile::{Case, Command, Defaults, Profile, Subagent};
pub use promptc_template::Templates;
pub use provider::Provider;
pub use section::{Section, Slot};
pub use selection::SelectionPolicy;
pub use settings::{Assembly, Limits, LintSettings, TemplateSettings, TokenSettings};
pub use transport::Transport;

/// Names a profile may never have: they are transports or providers, not contracts.
pub const RESERVED_PROFILE_NAMES: [&str; Transport::ALL.len() + Provider::ALL.len()] = {
    let mut names = [""; Transport::ALL.len() + Provider::ALL.len()];
    let mut i = 0;
    while i < Transport::ALL.len() {
        names[i] = Transport::ALL[i].as_str();
        i += 1;
    }
    while i < names.len() {
        names[i] = Provider::ALL[i - Transport::ALL.len()].as_str();
        i += 1;
    }
    names
};

/// Names the template context defines itself; variables may not reuse them.
pub const BUILTIN_NAMES: &[&str] =
    &["switches", "profile", "transport", "tools", "tool_names", "toolsets", "nonce", "sections", "body"];

/// The built-in names only the layout sees (every other template sees the rest of
/// [`BUILTIN_NAMES`]).
pub const LAYOUT_NAMES: &[&str] = &["sections", "body"];

/// The built-in name whose value changes every session (the delimiter nonce): a template
/// reading it is dynamic, like one reading a dynamic variable.
pub const NONCE_NAME: &str = "nonce";

/// Whether switch `name` is also readable as a plain template name (`{% if browser %}` as well
/// as `{% if switches.browser %}`): when it is an identifier and no variable (`is_variable`),
/// built-in or global function (`globals`) has the name, which then wins.
pub(crate) fn switch_is_name(name: &str, is_variable: bool, globals: &std::collections::BTreeSet<String>) -> bool {
    !is_variable && !name.contains('-') && !BUILTIN_NAMES.contains(&name) && !globals.contains(name)
}

/// The switch promptc sets while rendering a sub-agent's prompt; every project has it.
pub const SUBAGENT_SWITCH: &str = "subagent_run";

/// A runtime capability switch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Switch {
    /// What turning it on means.
    pub description: String,
    /// Its value when not set (false for a string-valued switch).
    pub default: bool,
    /// Its key under `switches:`.
    pub span: Span,
    /// A string-valued switch: its allowed values and default (`None` for an on/off switch).
    pub choice: Option<Choice>,
}

/// A value given for a switch: on/off, or a string-valued switch's value.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SwitchValue {
    /// An on/off switch's value.
    On(bool),
    /// A string-valued switch's value (one of its values).
    Is(String),
}

impl Switch {
    /// Check `v` as a value of this switch (a boolean, or one of its `values:`); the error is
    /// a help saying what it takes.
    pub fn value_of(&self, v: &serde_json::Value) -> std::result::Result<SwitchValue, String> {
        match (&self.choice, v) {
            (None, serde_json::Value::Bool(b)) => Ok(SwitchValue::On(*b)),
            (None, _) => Err("an on/off switch is true or false".into()),
            (Some(c), serde_json::Value::String(x)) if c.values.contains(x) => Ok(SwitchValue::Is(x.clone())),
            (Some(c), _) => Err(format!("this switch takes one of: {}", c.values.join(", "))),
        }
    }
}

/// The values a string-valued switch may take (`values:`), compared in `when:` as
/// `style == "terse"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// The allowed values, in order.
    pub values: Vec<String>,
    /// The value when not set.
    pub default: String,
}

/// A template variable.
#[derive(Debug, Clone, PartialEq)]
pub struct Variable {
    /// What it holds.
    pub description: String,
    /// Its value when not given.
    pub default: serde_json::Value,
    /// Whether it changes between sessions (sections reading it are dynamic).
    pub dynamic: bool,
    /// Delimiter tag when its value comes from outside (`USER_RULES`): the value is wrapped
    /// in nonce-tagged delimiters and forged tags inside it are neutralised.
    pub untrusted: Option<String>,
    /// How a value given for it (a context file, a case, `--var`) combines with its default.
    pub merge: Merge,
    /// Its key under `variables:`.
    pub span: Span,
}

/// How a value given for a variable combines with the value it has so far (its default, or
/// what an earlier source gave: default, then context file, then the request's own values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Merge {
    /// The given value replaces it (the default).
    #[default]
    Replace,
    /// A map's keys replace the default's one by one; keys it does not give keep their default
    /// (a nested map given for a key replaces that key's value whole).
    Keys,
    /// As `keys`, and nested maps merge the same way, key by key, at every depth.
    Deep,
}

impl Merge {
    /// The names `merge:` takes.
    pub const NAMES: [&'static str; 3] = ["replace", "keys", "deep"];

    /// `given` combined with `current` by this rule; `Err` when the rule merges and either is
    /// not a map.
    pub fn apply(self, current: &serde_json::Value, given: &serde_json::Value) -> Result<serde_json::Value, String> {
        match (self, current, given) {
            (Merge::Replace, _, _) => Ok(given.clone()),
            (_, serde_json::Value::Object(have), serde_json::Value::Object(give)) => {
                let mut out = have.clone();
                for (k, v) in give {
                    let merged = match (self, out.get(k)) {
                        (Merge::Deep, Some(old @ serde_json::Value::Object(_))) if v.is_object() => {
                            self.apply(old, v)?
                        }
                        _ => v.clone(),
                    };
                    out.insert(k.clone(), merged);
                }
                Ok(serde_json::Value::Object(out))
            }
            (_, _, given) => Err(format!(
                "it merges into its default key by key, so its value must be a map, not {}",
                match given {
                    serde_json::Value::Null => "null",
                    serde_json::Value::Bool(_) => "a boolean",
                    serde_json::Value::Number(_) => "a number",
                    serde_json::Value::String(_) => "a string",
                    serde_json::Value::Array(_) => "a list",
                    serde_json::Value::Object(_) => "a map",
                }
            )),
        }
    }
}

/// A loaded, validated project.
#[derive(Debug, Clone)]
pub struct Project {
    /// Project name.
    pub(crate) name: String,
    /// Bumping it invalidates every frozen prompt.
    pub(crate) contract_version: u64,
    /// Defaults.
    pub(crate) defaults: Defaults,
    /// Transports in the matrix.
    pub(crate) transports: Vec<Transport>,
    /// The `transports:` key, when the project declares one.
    pub(crate) transports_span: Option<Span>,
    /// Providers in the matrix.
    pub(crate) providers: Vec<Provider>,
    /// Profile selection policy.
    pub(crate) selection: SelectionPolicy,
    /// OpenAI strict mode for function schemas.
    pub(crate) strict_tools: bool,
    /// How Gemini receives tool parameters.
    pub(crate) gemini_schema: crate::model::provider::GeminiSchema,
    /// The xml transport's tool documentation format.
    pub(crate) tool_docs: crate::model::settings::ToolDocFormat,
    /// Token counting settings.
    pub(crate) tokens: TokenSettings,
    /// Where the snapshot matrix lives, relative to the project folder (default `snapshots`).
    pub(crate) snapshots: String,
    /// Contribution and command templates that read a dynamic variable.
    pub(crate) dynamic_templates: std::collections::BTreeSet<String>,
    /// The dynamic inputs the layout reads (its own text then changes between sessions).
    pub(crate) layout_dynamic: Vec<String>,
    /// The declared variables each template reads (sections, layout, contributions, commands,
    /// the tool docs format), found at load.
    pub(crate) template_reads: BTreeMap<String, std::collections::BTreeSet<String>>,
    /// The folder the project may write into on its own say-so (its repository, else the
    /// folder holding the project), canonical: see `source::write_root`.
    pub(crate) write_root: PathBuf,
    /// Where `snapshots:` is written, if it is.
    pub(crate) snapshots_span: Option<Span>,
    /// Named cases that extend the snapshot matrix, in declaration order.
    pub(crate) cases: IndexMap<String, Case>,
    /// Slots tools may contribute to, by name.
    pub(crate) slots: IndexMap<String, Slot>,
    /// Sub-agents by name.
    pub(crate) subagents: IndexMap<String, Subagent>,
    /// Slash commands by name.
    pub(crate) commands: IndexMap<String, Command>,
    /// Open-weight models' chat templates (`chat_templates:`), by name.
    pub(crate) chat_templates: IndexMap<String, chat::ChatTemplateDecl>,
    /// `promptc check` settings.
    pub(crate) lint: LintSettings,
    /// Switches by name, in declaration order.
    pub(crate) switches: IndexMap<String, Switch>,
    /// Variables by name, in declaration order.
    pub(crate) variables: IndexMap<String, Variable>,
    /// The layout template name, if any.
    pub(crate) layout: Option<String>,
    /// Sections by id.
    pub(crate) sections: IndexMap<String, Section>,
    /// The tool catalog.
    pub(crate) catalog: Catalog,
    /// Profiles by name.
    pub(crate) profiles: IndexMap<String, Profile>,
    /// Every file read while loading, by project-relative path.
    pub(crate) files: BTreeMap<String, SourceFile>,
    /// The compiled templates.
    pub(crate) templates: Templates,
    /// How the prompt is assembled from its sections (`assembly:`).
    pub(crate) assembly: crate::model::settings::Assembly,
    /// The project folder as given by the user.
    pub(crate) root: PathBuf,
    /// The manifest's project-relative path.
    pub(crate) manifest: String,
    /// Problems worth fixing that do not stop a command.
    pub(crate) warnings: Vec<Diagnostic>,
    pub(crate) fs: ProjectFs,
}

impl Project {
    /// The project's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The contract version: bumping it invalidates every frozen prompt.
    pub fn contract_version(&self) -> u64 {
        self.contract_version
    }

    /// The profiles' names, in declaration order.
    pub fn profiles(&self) -> Vec<&str> {
        self.profiles.keys().map(String::as_str).collect()
    }

    /// The transports of the matrix.
    pub fn transports(&self) -> &[Transport] {
        &self.transports
    }

    /// The providers of the matrix.
    pub fn providers(&self) -> &[Provider] {
        &self.providers
    }

    /// The on/off switches' names and defaults, in declaration order.
    pub fn switches(&self) -> Vec<(&str, bool)> {
        self.switches.iter().filter(|(_, s)| s.choice.is_none()).map(|(k, s)| (k.as_str(), s.default)).collect()
    }

    /// The string-valued switches: name, allowed values and default, in declaration order.
    pub fn choices(&self) -> Vec<(&str, &[String], &str)> {
        self.switches
            .iter()
            .filter_map(|(k, s)| s.choice.as_ref().map(|c| (k.as_str(), c.values.as_slice(), c.default.as_str())))
            .collect()
    }

    /// The variables' names, in declaration order.
    pub fn variables(&self) -> Vec<&str> {
        self.variables.keys().map(String::as_str).collect()
    }

    /// The named cases of the matrix, in declaration order.
    pub fn cases(&self) -> Vec<&str> {
        self.cases.keys().map(String::as_str).collect()
    }

    /// The sections' ids, in declaration order.
    pub fn section_ids(&self) -> Vec<&str> {
        self.sections.keys().map(String::as_str).collect()
    }

    /// Every tool in the catalog, in declaration order.
    pub fn tool_names(&self) -> Vec<&str> {
        self.catalog.tools().iter().map(|t| t.name.as_str()).collect()
    }

    /// The sub-agents' names.
    pub fn subagents(&self) -> Vec<&str> {
        self.subagents.keys().map(String::as_str).collect()
    }

    /// The slash commands' names.
    pub fn commands(&self) -> Vec<&str> {
        self.commands.keys().map(String::as_str).collect()
    }

    /// The project folder as given.
    pub fn root(&self) -> &std::path::Path {
        &self.root
    }

    /// The snapshot folder the project names (`snapshots:`), under the project folder.
    pub fn snapshot_folder(&self) -> Option<std::path::PathBuf> {
        Some(crate::source::clean_path(&self.root.join(&self.snapshots)))
    }

    /// The token cache file (`tokens.cache`), if the project keeps one.
    pub fn token_cache(&self) -> Option<std::path::PathBuf> {
        self.tokens.cache.as_ref().map(|c| crate::source::clean_path(&self.root.join(c)))
    }

    /// The profile called `name`, or an error listing the known ones.
    pub(crate) fn profile(&self, name: &str) -> Result<&Profile> {
        self.profiles.get(name).ok_or_else(|| {
            let known: Vec<&str> = self.profiles.keys().map(String::as_str).collect();
            Error::usage(
                Diagnostic::error(format!("unknown profile `{name}`"))
                    .with_help(known_names_help("profile", name, &known)),
            )
        })
    }

    /// A label for a declaration, for diagnostics.
    pub(crate) fn label(&self, span: &Span) -> Label {
        match self.files.get(&span.file) {
            Some(f) => f.label_bytes(span.start, span.end),
            None => Label::file(self.fs.display(&span.file)),
        }
    }

    /// The project's file reader (for context files and includes).
    pub(crate) fn fs(&self) -> &ProjectFs {
        &self.fs
    }
}

#[cfg(test)]
mod merge_tests {
    use super::Merge;
    use serde_json::json;

    #[test]
    fn keys_lay_a_map_over_the_default_and_deep_goes_down() {
        let default = json!({"a": 1, "n": {"x": 1, "y": 2}});
        let given = json!({"b": 2, "n": {"y": 3}});
        assert_eq!(Merge::Replace.apply(&default, &given).unwrap(), given);
        assert_eq!(Merge::Keys.apply(&default, &given).unwrap(), json!({"a": 1, "n": {"y": 3}, "b": 2}));
        assert_eq!(Merge::Deep.apply(&default, &given).unwrap(), json!({"a": 1, "n": {"x": 1, "y": 3}, "b": 2}));
        // A key given as null is set to null; a non-map value is refused.
        assert_eq!(
            Merge::Keys.apply(&default, &json!({"a": null})).unwrap(),
            json!({"a": null, "n": {"x": 1, "y": 2}})
        );
        assert!(Merge::Keys.apply(&default, &json!("text")).unwrap_err().contains("not a string"));
        assert!(Merge::Deep.apply(&json!(1), &json!({})).is_err());
    }
}
