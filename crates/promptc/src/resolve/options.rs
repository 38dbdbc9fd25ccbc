//! Cell options as hosts spell them — names as text, switch values as booleans or strings,
//! variables as JSON values — turned into a [`Request`] in one place, for the language
//! bindings and the command line alike.

use std::path::PathBuf;

use serde_json::Value;

use crate::error::Result;
use crate::model::provider::Provider;
use crate::model::transport::Transport;
use crate::model::SwitchValue;
use crate::resolve::Request;

/// The options that pick one cell and its runtime values, as a host language or a command
/// line has them: every name still text. [`CellOptions::request`] parses the transport and
/// provider names (with did-you-mean errors); everything else is checked against the project
/// when the request is resolved, so every caller gets the same messages.
///
/// ```
/// let mut options = promptc::CellOptions::default();
/// options.profile = Some("lite".into());
/// options.transport = Some("xml".into());
/// options.switches.push(("browser".into(), promptc::SwitchValue::On(true)));
/// let request = options.request()?;
/// assert_eq!(request.transport, Some(promptc::Transport::Xml));
/// # Ok::<(), promptc::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct CellOptions {
    /// The profile (default: the project's selection policy decides).
    pub profile: Option<String>,
    /// `native`, `xml` or `json`.
    pub transport: Option<String>,
    /// A provider name (`openai`, `anthropic`, …), native cells only.
    pub provider: Option<String>,
    /// The model id the selection policy looks at.
    pub model: Option<String>,
    /// The context window as text (`200000`, `200k`), read as the command line reads it.
    pub context_window: Option<String>,
    /// Switch values, in the order given.
    pub switches: Vec<(String, SwitchValue)>,
    /// Variable values, in the order given.
    pub variables: Vec<(String, Value)>,
    /// Compile this sub-agent's prompt.
    pub subagent: Option<String>,
    /// The untrusted-content nonce (default: random per compile).
    pub nonce: Option<String>,
    /// A YAML or JSON file with switches, variables, model and context window.
    pub context_file: Option<PathBuf>,
    /// The text of such a file, given in memory (standard input), instead of `context_file`.
    pub context_text: Option<String>,
    /// Drop a failing tool contribution (with a warning) instead of failing.
    pub lenient: bool,
}

impl CellOptions {
    /// The request these options describe. Fails only on a transport or provider name promptc
    /// does not know; the rest is checked against the project when the request is compiled.
    pub fn request(&self) -> Result<Request> {
        let mut r = Request::new().lenient(self.lenient);
        r.profile = self.profile.clone();
        r.model = self.model.clone();
        r.context_window = self.context_window.clone();
        r.subagent = self.subagent.clone();
        r.nonce = self.nonce.clone();
        r.context_file = self.context_file.clone();
        r.context_text = self.context_text.clone();
        if let Some(t) = &self.transport {
            r = r.transport(t.parse::<Transport>()?);
        }
        if let Some(p) = &self.provider {
            r = r.provider(p.parse::<Provider>()?);
        }
        for (name, value) in &self.switches {
            r = match value {
                SwitchValue::On(on) => r.switch(name.clone(), *on),
                SwitchValue::Is(v) => r.choice(name.clone(), v.clone()),
            };
        }
        for (name, value) in &self.variables {
            r = r.variable(name.clone(), value.clone());
        }
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_parsed_and_values_kept_in_order() {
        let o = CellOptions {
            transport: Some("native".into()),
            provider: Some("gemini".into()),
            switches: vec![("b".into(), SwitchValue::On(false)), ("style".into(), SwitchValue::Is("terse".into()))],
            variables: vec![("user".into(), Value::from("ada"))],
            context_window: Some("32k".into()),
            ..CellOptions::default()
        };
        let r = o.request().unwrap();
        assert_eq!((r.transport, r.provider), (Some(Transport::Native), Some(Provider::Gemini)));
        assert_eq!(r.switches, [("b".to_string(), false)]);
        assert_eq!(r.choices, [("style".to_string(), "terse".to_string())]);
        assert_eq!(r.variables, [("user".to_string(), Value::from("ada"))]);
        assert_eq!(r.context_window.as_deref(), Some("32k"));
    }

    #[test]
    fn an_unknown_provider_is_a_usage_error_with_a_suggestion() {
        let o = CellOptions { provider: Some("antropic".into()), ..CellOptions::default() };
        let e = o.request().unwrap_err();
        assert_eq!(e.kind(), crate::error::ErrorKind::Usage);
        assert!(e.diagnostics()[0].help.as_deref().unwrap_or_default().contains("anthropic"), "{e:?}");
    }
}
