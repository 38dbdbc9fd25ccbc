//! Profiles (prompt contracts), matrix cases, project defaults, sub-agents and slash commands.

use std::collections::BTreeMap;

use indexmap::IndexMap;

use crate::diagnostic::Span;
use crate::model::budget::Budget;
use crate::model::catalog::ToolSelection;
use crate::model::provider::Provider;
use crate::model::transport::Transport;

/// A sub-agent: a prompt of its own, same profile and transport, tools by allowlist.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subagent {
    /// Its name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// Its sections, or `None` for the profile's.
    pub sections: Option<Vec<String>>,
    /// Tool ids it may use.
    pub tools: Vec<String>,
}

/// A slash command: instruction text per profile, never a tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// Its name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// Template of the default text.
    pub template: String,
    /// Templates of profile-specific variants, by profile.
    pub variants: IndexMap<String, String>,
}

impl Command {
    /// The template for `profile`.
    pub fn template_for(&self, profile: &str) -> &str {
        self.variants.get(profile).map_or(&self.template, String::as_str)
    }
}

/// A prompt contract.
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    /// Its name.
    pub name: String,
    /// What it is for.
    pub description: String,
    /// Section ids in prompt order.
    pub sections: Vec<String>,
    /// The tools it registers.
    pub tools: ToolSelection,
    /// Its limits.
    pub budget: Budget,
    /// Its key under `profiles:`.
    pub span: Span,
    /// Its `budget:` key, if it has one.
    pub budget_span: Option<Span>,
    /// Where each of its limits is written (the key of `total: 12000`), by the limit's path
    /// under `budget:`: `total`, `prompt`, `tools`, `sections.ID`.
    pub budget_limit_spans: IndexMap<String, Span>,
    /// The messages the harness sends besides the system prompt, in order.
    pub messages: Vec<Message>,
}

/// Who sends a harness message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user turn (workspace context, triggered instructions in the first user message).
    User,
    /// An assistant turn (an in-context example of a tool call).
    Assistant,
}

impl Role {
    /// The role as providers write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// A message the harness sends besides the system prompt: sections rendered like the prompt's
/// (same context, same slot rules), joined with `assembly.separator` into one text, or into
/// several content blocks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// Who sends it.
    pub role: Role,
    /// Its content blocks, each a list of section ids in order (one block for `sections:`).
    pub blocks: Vec<Vec<String>>,
    /// How its content is sent.
    pub form: MessageForm,
}

impl Message {
    /// Every section id of the message, block after block.
    pub fn sections(&self) -> impl Iterator<Item = &String> {
        self.blocks.iter().flatten()
    }
}

/// How a harness message's content is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageForm {
    /// One text (`sections:`): `"content": "…"` (Gemini: one part).
    Text,
    /// A list of content blocks (`blocks:`), in the provider's shape, even when one is left.
    Blocks,
}

/// A named switch/variable set in the snapshot matrix.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// What it represents.
    pub description: String,
    /// Switch values over the defaults.
    pub switches: BTreeMap<String, bool>,
    /// String-valued switches' values over the defaults.
    pub choices: BTreeMap<String, String>,
    /// Variable values over the defaults.
    pub variables: IndexMap<String, serde_json::Value>,
    /// Its key under `cases:` (empty for the cells `check` adds beyond the matrix).
    pub span: crate::diagnostic::Span,
}

/// Project-wide defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Defaults {
    /// Profile used when selection picks none.
    pub profile: String,
    /// Transport used when none is given.
    pub transport: Transport,
    /// Provider used when none is given.
    pub provider: Provider,
}
