//! The one accounting model: what one cell costs, item by item, for one provider. Every number
//! promptc prints — `report` (one cell or the matrix), `summary.json` and `diff` deltas, `check`
//! budgets and the cacheable prefix, frozen records — comes from an [`Account`].
//!
//! Two figures per cell:
//! - **sent**: tokens and bytes of exactly what goes over the wire — the prompt text, and the
//!   tools as the compact request JSON the provider's SDK sends (snapshot files are pretty for
//!   review; their counts are of the compact form);
//! - **billed**: a labelled estimate of what the provider charges (see `billing`).
//!
//! Counts use the provider's tokenizer: OpenAI cells the project's (default `o200k_base`, or
//! the model's encoding), Anthropic cells the Claude estimate, Gemini cells the Gemini estimate,
//! xml and json cells the project's; `--tokenizer` overrides all.

use serde::{Deserialize, Serialize};

use crate::measure::billing::Billed;
use crate::measure::budget::{Check, Scope};
use crate::measure::Measure;
use crate::model::provider::Provider;
use crate::model::tokenizer::Tokenizer;
use crate::model::transport::Transport;

mod build;
mod matrix;
mod prepare;

#[cfg(test)]
#[path = "partition_tests.rs"]
mod partition_tests;

pub use build::{account, tokenizer_for};
pub use matrix::{accounts, accounts_reusing, accounts_streamed, providers_of, Known, Streamed, ToolParts};
pub(crate) use prepare::projection_for;
pub use prepare::texts;

/// How a cell's tokens were counted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TokenizerInfo {
    /// Tokenizer name (`o200k_base`, `claude`).
    pub name: String,
    /// Whether counts are exact.
    pub exact: bool,
    /// How counts are obtained.
    pub method: String,
}

impl TokenizerInfo {
    fn of(t: &Tokenizer) -> TokenizerInfo {
        TokenizerInfo { name: t.name(), exact: t.exact(), method: t.method() }
    }
}

/// One section of the prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SectionItem {
    /// Section id.
    pub id: String,
    /// What is sent.
    pub sent: Measure,
    /// Share of the cell's sent tokens, 0–1.
    pub share: f64,
    /// Whether it changes between sessions: its text differs in another session's compile, or
    /// the analysis of what its templates read says it does.
    pub dynamic: bool,
    /// Why it changes between sessions, as the analysis says (`reads \`cwd\``).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// Whether the prompt holds its text as rendered: a layout may leave a section out or
    /// rewrite it, and then its tokens are the layout's text (`(outside sections)`), not its own.
    #[serde(default = "yes")]
    pub placed: bool,
    /// Where it comes from (`sections/role.md.j2`, `generated:tool_docs`, `slot:notes`).
    pub source: String,
}

fn yes() -> bool {
    true
}

/// One parameter of a tool: the part of the tool's definition it costs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ParamItem {
    /// Parameter name.
    pub name: String,
    /// Its part of what is sent: `"name":{schema}` in the tool JSON, its lines in the XML docs.
    pub sent: Measure,
}

/// One tool: its entry in the tools JSON (native), or its part of the generated section that
/// describes it in the prompt (xml, json) — then already counted in that section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolItem {
    /// Tool name.
    pub name: String,
    /// Its toolset.
    pub toolset: String,
    /// What is sent for it.
    pub sent: Measure,
    /// Share of the cell's sent tokens, 0–1.
    pub share: f64,
    /// The section that holds it, for tools described in the prompt (`tool_docs`,
    /// `action_schema`): its tokens are part of that section's, never added again.
    pub part_of: Option<String>,
    /// Where it is declared (`tools/files.yaml:12`).
    pub source: String,
    /// Each parameter's part, in order.
    pub params: Vec<ParamItem>,
    /// Its description's part of what is sent (`"description":"…"` in the tool JSON, the text
    /// in the prompt's tool docs): what a diff credits to an edit of the description alone.
    /// `None` where the text sent does not hold it as written (a json cell's action schema, a
    /// template that rewords it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<Measure>,
}

/// One injectable slot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SlotItem {
    /// Slot name.
    pub slot: String,
    /// Active tools with a contribution to it.
    pub declaring: Vec<String>,
    /// Tools whose contribution rendered text.
    pub contributing: Vec<String>,
    /// The slot's section as sent (zero when no section shows it, or nothing was contributed).
    pub sent: Measure,
}

/// What provider prompt caching can reuse: the prefix of the request — the tools (native), the
/// prompt, the harness messages, in that order — that is the same in every session. Measured:
/// the cell compiled again with another session's values (another nonce, other values of the
/// dynamic variables), the two requests compared byte for byte.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CacheSplit {
    /// Tokens of the request that end before its first byte another session changes.
    pub cacheable: u64,
    /// The rest: `cacheable + uncached` is what is sent.
    pub uncached: u64,
    /// The last static section: where a cache breakpoint goes.
    pub breakpoint_after: Option<String>,
    /// What holds the first byte another session changes, if any: a section, `(outside
    /// sections)` (a layout's own text), `tool NAME`, `message N`.
    pub ends_at: Option<String>,
    /// Why it changes between sessions, as the analysis of what templates read says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// Whether the split was measured; `false` when the cell could not be compiled with another
    /// session's values and the analysis stands in.
    #[serde(default = "yes")]
    pub measured: bool,
    /// How far the measurement is from the whole truth, when it is: compiled against another
    /// nonce only (a template failed on other values of the dynamic variables), or why it could
    /// not be measured at all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// One harness message: who sends it and what it costs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessageItem {
    /// `user` or `assistant`.
    pub role: crate::model::profile::Role,
    /// Its sections' ids, in order.
    pub sections: Vec<String>,
    /// Its text as sent: its blocks together.
    pub sent: Measure,
    /// Each content block as sent, for a message sent as blocks (empty for one text).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<Measure>,
    /// Whether it changes between sessions (measured, or by the analysis of its sections).
    #[serde(default)]
    pub dynamic: bool,
    /// Why, as the analysis says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

/// What one cell costs for one provider.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Account {
    /// The cell and provider: `standard.native.openai`, `lite.xml`.
    pub name: String,
    /// The cell without the provider: `standard.native`, the snapshot files' stem.
    pub cell: String,
    /// Project name.
    pub project: String,
    /// Profile.
    pub profile: String,
    /// Named case, if any.
    pub case: Option<String>,
    /// Transport.
    pub transport: Transport,
    /// Provider (native cells).
    pub provider: Option<Provider>,
    /// Sub-agent, if any.
    pub subagent: Option<String>,
    /// How tokens were counted.
    pub tokenizer: TokenizerInfo,
    /// The sections, in prompt order.
    pub sections: Vec<SectionItem>,
    /// Text outside sections: separators, layout headings (and a section the layout rewrites).
    pub layout: Measure,
    /// Where that text comes from.
    pub layout_source: String,
    /// Whether that text changes between sessions (the layout reads a dynamic value).
    #[serde(default)]
    pub layout_dynamic: bool,
    /// The tools, in order.
    pub tools: Vec<ToolItem>,
    /// What the tools JSON holds besides the tools' entries: the list's brackets and commas, a
    /// provider's wrapper (native; the tools and it add up to `tools_sent`).
    #[serde(default)]
    pub tools_framing: Measure,
    /// Injectable slots.
    pub slots: Vec<SlotItem>,
    /// The prompt as sent.
    pub prompt: Measure,
    /// The tools JSON as sent (compact); zero for xml and json, whose tools are in the prompt.
    pub tools_sent: Measure,
    /// The harness messages (the profile's `messages:`), each as sent; absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub messages: Vec<MessageItem>,
    /// Prompt plus tools (plus harness messages), as sent.
    pub total: Measure,
    /// What the provider bills, estimated.
    pub billed: Billed,
    /// What caching can reuse.
    pub cache: CacheSplit,
    /// The profile's budgets, checked against this account.
    pub budgets: Vec<Check>,
}

/// Each section's and tool's share of `total`: derived from the counts, never stored (a
/// figure read back from a cache is recomputed, not parsed, so it is the same to the bit).
fn set_shares(sections: &mut [SectionItem], tools: &mut [ToolItem], total: Measure) {
    let share = |tokens: u64| if total.tokens == 0 { 0.0 } else { tokens as f64 / total.tokens as f64 };
    sections.iter_mut().for_each(|s| s.share = share(s.sent.tokens));
    tools.iter_mut().for_each(|t| t.share = share(t.sent.tokens));
}

impl Account {
    /// Set every section's and tool's share from the counts (after reading an account back).
    pub(crate) fn recompute_shares(&mut self) {
        set_shares(&mut self.sections, &mut self.tools, self.total);
    }

    /// Whether any budget is exceeded.
    pub fn over_budget(&self) -> bool {
        self.budgets.iter().any(|c| c.exceeded)
    }

    /// What a budget scope measures in this account: the tools scope of an xml or json cell
    /// is the section that describes the tools in the prompt.
    fn scope_measure(&self, scope: &Scope) -> Measure {
        match scope {
            Scope::Total => self.total,
            Scope::Prompt => self.prompt,
            Scope::Tools if self.transport == Transport::Native => self.tools_sent,
            Scope::Tools => self
                .tools
                .first()
                .and_then(|t| t.part_of.as_ref())
                .and_then(|id| self.sections.iter().find(|s| &s.id == id))
                .map(|s| s.sent)
                .unwrap_or_default(),
            Scope::Section(id) => self.sections.iter().find(|s| &s.id == id).map(|s| s.sent).unwrap_or_default(),
        }
    }
}
