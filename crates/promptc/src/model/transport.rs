//! Transports: how tools reach the model, independent of the profile.

use serde::{Deserialize, Serialize};

/// How the active tools are presented to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Transport {
    /// Provider function calling: tool schemas travel as JSON beside the prompt.
    Native,
    /// Tool documentation is rendered into the prompt text.
    Xml,
    /// ReAct-style JSON actions: one JSON Schema in the prompt whose `@action` enum lists the
    /// tools, every tool's parameters flattened into one object; no native tools JSON.
    Json,
}

impl Transport {
    /// Every transport, in matrix order.
    pub const ALL: [Transport; 3] = [Transport::Native, Transport::Xml, Transport::Json];

    /// The transports a project ships when it does not say (`json` is opt-in).
    pub const DEFAULT: [Transport; 2] = [Transport::Native, Transport::Xml];

    /// The name used in files, flags and templates.
    pub const fn as_str(self) -> &'static str {
        match self {
            Transport::Native => "native",
            Transport::Xml => "xml",
            Transport::Json => "json",
        }
    }

    /// Parse a name as used on the command line.
    pub fn parse(s: &str) -> Option<Transport> {
        Transport::ALL.into_iter().find(|t| t.as_str() == s)
    }
}

impl std::str::FromStr for Transport {
    type Err = crate::model::name::UnknownName;

    fn from_str(s: &str) -> Result<Transport, Self::Err> {
        crate::model::name::find("transport", s, &Transport::ALL, Transport::as_str)
    }
}

impl std::fmt::Display for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
