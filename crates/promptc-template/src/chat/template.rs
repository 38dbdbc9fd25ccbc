//! Where a chat template comes from: a `.jinja` file, or a `tokenizer_config.json` whose
//! `chat_template` is one template or a list of named ones (and whose special tokens are the
//! template's `bos_token`, `eos_token`, …, as transformers passes them).

use std::path::Path;

use indexmap::IndexMap;

use crate::diagnostic::{Diagnostic, Label, Position};
use crate::error::{ErrorKind, Result};

/// The most bytes a chat template file may have: real templates are under 100 kB, a
/// `tokenizer_config.json` with every added token a few MB.
pub const MAX_TEMPLATE_FILE: u64 = 32 << 20;

/// The special-token keys transformers passes to a template from the tokenizer's config.
const SPECIAL_TOKENS: [&str; 7] =
    ["bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"];

/// A chat template, read and ready to apply.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatTemplate {
    /// The file, as the user named it.
    display: String,
    /// One template, or named ones.
    templates: Templates,
    /// The name asked for (`--chat-template-name`), if any.
    name: Option<String>,
    /// Special tokens from a `tokenizer_config.json`.
    special: IndexMap<String, String>,
}

#[derive(Debug, Clone, PartialEq)]
enum Templates {
    One(String),
    Named(IndexMap<String, String>),
}

/// The template chosen for one render, with where it came from.
#[derive(Debug, Clone)]
pub struct Chosen {
    /// `FILE`, or `FILE#NAME` for a named template of a tokenizer config.
    pub display: String,
    /// Its source.
    pub text: String,
}

impl ChatTemplate {
    /// A template given as text; `display` names it in messages.
    pub fn from_text(display: impl Into<String>, text: impl Into<String>) -> ChatTemplate {
        ChatTemplate {
            display: display.into(),
            templates: Templates::One(text.into()),
            name: None,
            special: IndexMap::new(),
        }
    }

    /// Read a `.jinja` file, or a `tokenizer_config.json` (a file whose name ends in `.json`),
    /// named on the command line. `name` picks one of a config's named templates; without it
    /// transformers' choice is made when the template is applied (`tool_use` for a cell with
    /// tools, else `default`).
    pub fn read(path: &Path, name: Option<&str>) -> Result<ChatTemplate> {
        let display = path.display().to_string();
        let bytes = crate::source::read_regular(path, MAX_TEMPLATE_FILE).map_err(|e| {
            let why = match e {
                crate::source::ReadError::Io(e) => crate::error::io_reason(&e),
                crate::source::ReadError::NotAFile => "not a regular file".into(),
                crate::source::ReadError::TooLarge(n) => {
                    format!("more than the {n} bytes a chat template file may have")
                }
            };
            Diagnostic::error(format!("cannot read the chat template {display}: {why}"))
                .with_help("give a chat template file (`.jinja`) or a model's `tokenizer_config.json`")
                .into_error(ErrorKind::Io)
        })?;
        let text = String::from_utf8(bytes).map_err(|_| {
            Diagnostic::error(format!("cannot read the chat template {display}: not UTF-8 text"))
                .into_error(ErrorKind::Io)
        })?;
        let t = ChatTemplate::parse(&display, &text, None)?;
        match name {
            Some(n) => t.named(n),
            None => Ok(t),
        }
    }

    /// A template from a file's text: a `tokenizer_config.json` when `display` ends in `.json`,
    /// else the template itself. `at` locates the file's reference for errors in a config.
    pub fn parse(display: &str, text: &str, at: Option<&Label>) -> Result<ChatTemplate> {
        if display.to_ascii_lowercase().ends_with(".json") {
            from_config(display, text, at)
        } else {
            Ok(ChatTemplate::from_text(display, text))
        }
    }

    /// Pick a named template of a tokenizer config.
    ///
    /// A file with one template, or no template of that name, is an error.
    pub fn named(mut self, name: &str) -> Result<ChatTemplate> {
        match &self.templates {
            Templates::Named(map) if map.contains_key(name) => {
                self.name = Some(name.to_string());
                Ok(self)
            }
            Templates::Named(map) => {
                Err(Diagnostic::error(format!("{} has no chat template named `{name}`", self.display))
                    .with_help(format!("its templates are {}", names(map)))
                    .into_error(ErrorKind::Usage))
            }
            Templates::One(_) => {
                Err(Diagnostic::error(format!("{} holds one chat template, not named ones", self.display))
                    .with_help("name none: names pick among a tokenizer_config.json's list of templates")
                    .into_error(ErrorKind::Usage))
            }
        }
    }

    /// The special tokens a tokenizer config declares.
    pub fn special_tokens(&self) -> &IndexMap<String, String> {
        &self.special
    }

    /// The template as messages and metadata name it.
    pub fn display(&self, has_tools: bool) -> String {
        self.choose(has_tools).map_or_else(|_| self.display.clone(), |c| c.display)
    }

    /// Every template a render may use: the one, the named one asked for, or each named one.
    pub fn candidates(&self) -> Vec<Chosen> {
        match (&self.templates, &self.name) {
            (Templates::One(text), _) => vec![Chosen { display: self.display.clone(), text: text.clone() }],
            (Templates::Named(map), Some(n)) => {
                vec![Chosen { display: format!("{}#{n}", self.display), text: map[n.as_str()].clone() }]
            }
            (Templates::Named(map), None) => {
                map.iter().map(|(n, t)| Chosen { display: format!("{}#{n}", self.display), text: t.clone() }).collect()
            }
        }
    }

    /// The template a render uses, chosen as transformers' `get_chat_template` chooses.
    pub fn choose(&self, has_tools: bool) -> Result<Chosen> {
        match &self.templates {
            Templates::One(text) => Ok(Chosen { display: self.display.clone(), text: text.clone() }),
            Templates::Named(map) => {
                let name = match &self.name {
                    Some(n) => n.as_str(),
                    None if has_tools && map.contains_key("tool_use") => "tool_use",
                    None if map.contains_key("default") => "default",
                    None => {
                        return Err(Diagnostic::error(format!(
                            "{} has several chat templates and none is named `default`",
                            self.display
                        ))
                        .with_help(format!("choose one by name: {}", names(map)))
                        .into_error(ErrorKind::Usage))
                    }
                };
                Ok(Chosen { display: format!("{}#{name}", self.display), text: map[name].clone() })
            }
        }
    }
}

fn names(map: &IndexMap<String, String>) -> String {
    map.keys().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
}

/// Read a `tokenizer_config.json`.
fn from_config(display: &str, text: &str, at: Option<&Label>) -> Result<ChatTemplate> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        let p = Position::new(e.line(), e.column(), 1);
        Diagnostic::error(format!("{display} is not valid JSON: {e}"))
            .with_label(Label::at(display, text, p))
            .into_error(ErrorKind::Usage)
    })?;
    let not = |why: &str| {
        let d = Diagnostic::error(format!("{display} has no usable `chat_template`: {why}"));
        let d = match at {
            Some(l) => d.with_label(l.clone()),
            None => d,
        };
        d.with_help(
            "a tokenizer_config.json holds `chat_template` as a string, or as a list of {\"name\", \"template\"}",
        )
        .into_error(ErrorKind::Usage)
    };
    let obj = value.as_object().ok_or_else(|| not("the file is not a JSON object"))?;
    let templates = match obj.get("chat_template") {
        Some(serde_json::Value::String(s)) => Templates::One(s.clone()),
        Some(serde_json::Value::Array(items)) => {
            let mut map = IndexMap::new();
            for item in items {
                let (Some(n), Some(t)) = (
                    item.get("name").and_then(serde_json::Value::as_str),
                    item.get("template").and_then(serde_json::Value::as_str),
                ) else {
                    return Err(not("an entry of the list has no string `name` and `template`"));
                };
                map.insert(n.to_string(), t.to_string());
            }
            if map.is_empty() {
                return Err(not("the list is empty"));
            }
            Templates::Named(map)
        }
        Some(_) => return Err(not("it is neither a string nor a list")),
        None => return Err(not("the key is missing")),
    };
    let mut special = IndexMap::new();
    for key in SPECIAL_TOKENS {
        let token = match obj.get(key) {
            Some(serde_json::Value::String(s)) => Some(s.clone()),
            // An AddedToken written out: `{"content": "<s>", "lstrip": false, …}`.
            Some(serde_json::Value::Object(o)) => o.get("content").and_then(|c| c.as_str()).map(str::to_string),
            _ => None,
        };
        if let Some(t) = token {
            special.insert(key.to_string(), t);
        }
    }
    Ok(ChatTemplate { display: display.to_string(), templates, name: None, special })
}
