//! A `--context` file: runtime switches, variables and the model facts selection uses.

use indexmap::IndexMap;
use serde::Deserialize;
use serde_saphyr::Spanned;

use super::S;

/// A `--context` file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawContext {
    /// Switch values, by name.
    #[serde(default)]
    pub switches: IndexMap<S, Spanned<serde_json::Value>>,
    /// Variable values, by name.
    #[serde(default)]
    pub variables: IndexMap<S, serde_json::Value>,
    /// The model id, for the selection policy.
    pub model: Option<String>,
    /// The model's context window, for the selection policy.
    pub context_window: Option<Spanned<serde_json::Value>>,
}
