//! What an account measures, prepared once per cell and provider: the provider's projection,
//! each tool's and parameter's text, the billing recipe's texts — projected in parallel.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use crate::compile::Compiled;
use crate::error::Result;
use crate::measure::billing::ToolsBill;
use crate::measure::tokens::Counters;
use crate::measure::Measure;
use crate::model::params::Property;
use crate::model::provider::{Billing, Provider};
use crate::model::tokenizer::Tokenizer;
use crate::model::transport::Transport;
use crate::model::Project;
use crate::projection::{self, ProjectionOptions};

pub(super) fn compact(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default() // ok: a Value always serialises
}

/// One parameter's part of what is sent for its tool.
fn param_text(provider: Provider, entry: &Value, p: &Property) -> String {
    let schema = projection::entry_parameters(provider, entry)
        .and_then(|s| s.get("properties"))
        .and_then(|props| props.get(&p.name));
    schema.map(|s| format!("{}:{}", compact(&Value::String(p.name.clone())), compact(s))).unwrap_or_default()
}

/// Add to `sources` where each of `tools` is declared, as `file:line`, unless known. Lines
/// are found in one pass per file over the declarations in file order: a thousand tools in
/// one file would otherwise rescan it a thousand times.
pub(super) fn add_tool_sources<'a>(
    sources: &mut HashMap<String, String>,
    project: &Project,
    tools: impl Iterator<Item = &'a str>,
) {
    let mut todo: Vec<(&str, usize, &str)> = Vec::new();
    for name in tools {
        if sources.contains_key(name) {
            continue;
        }
        match project.catalog.get(name) {
            Some(t) => todo.push((t.name_span.file.as_str(), t.name_span.start, name)),
            None => {
                sources.insert(name.to_string(), String::new());
            }
        }
    }
    todo.sort_unstable();
    todo.dedup();
    // (file, byte offset reached, line at that offset)
    let mut at: Option<(&str, usize, usize)> = None;
    for (file, start, name) in todo {
        let source = match project.files.get(file) {
            Some(f) => {
                let (offset, line) = match at {
                    Some((f2, o, l)) if f2 == file && o <= start => (o, l),
                    _ => (0, 1),
                };
                let start = crate::diagnostic::floor_char_boundary(&f.text, start.min(f.text.len()));
                let line = line + f.text[offset..start].bytes().filter(|b| *b == b'\n').count();
                at = Some((file, start, line));
                format!("{file}:{line}")
            }
            None => file.to_string(),
        };
        sources.insert(name.to_string(), source);
    }
}

/// The projection of `c`'s tools for `provider` (`c`'s own when it is that provider's).
pub(crate) fn projection_for(project: &Project, c: &Compiled, provider: Provider) -> Arc<Value> {
    match (&c.projection, c.provider) {
        (Some(p), Some(q)) if q == provider => Arc::clone(p),
        _ => Arc::new(projection::project(provider, &c.tools, ProjectionOptions::of(project))),
    }
}

/// What an account of one cell for one provider measures beyond the prompt: the tools' texts
/// to count and what the account is made of. For native cells it depends only on the provider
/// and the tools, so cells with the same tools share it (see `matrix`).
pub(super) struct Prepared {
    /// The provider's projection (native).
    pub(super) projection: Option<(Provider, Arc<Value>)>,
    /// The whole tools JSON, compact (native).
    pub(super) tools_json: Option<String>,
    /// Each tool's text: its compact JSON entry (native) or its part of the prompt.
    pub(super) tool_texts: Vec<String>,
    /// Each tool's parameters' texts.
    pub(super) param_texts: Vec<Vec<String>>,
    /// Texts the billing recipe counts.
    pub(super) recipe: Vec<String>,
}

/// Tokens and bytes of a [`Prepared`]'s texts, and what the bill needs of them.
pub(super) struct ToolCounts {
    /// The whole tools JSON (native; nothing for xml and json).
    pub(super) tools_sent: Measure,
    /// Each tool's text.
    pub(super) tools: Vec<Measure>,
    /// Each tool's parameters' texts.
    pub(super) params: Vec<Vec<Measure>>,
    /// What the bill needs of the tools.
    pub(super) bill: ToolsBill,
}

impl Prepared {
    pub(super) fn new(project: &Project, c: &Compiled, provider: Option<Provider>) -> Prepared {
        match provider.filter(|_| c.transport == Transport::Native) {
            Some(p) => {
                let v = projection_for(project, c, p);
                let entries = projection::tool_entries(p, &v);
                let tool_texts = entries.iter().map(|e| compact(e)).collect();
                let param_texts = c
                    .tools
                    .iter()
                    .zip(&entries)
                    .map(|(t, e)| t.params.iter().map(|prm| param_text(p, e, prm)).collect())
                    .collect();
                let recipe = match p.info().billing {
                    Billing::OpenAiRecipe => crate::measure::billing::recipe_texts(p, &entries),
                    // Their billing adds no per-tool recipe text (see `measure::billing`).
                    Billing::AnthropicToolPrompt | Billing::AsSent => Vec::new(),
                };
                let tools_json = Some(compact(&v));
                Prepared { projection: Some((p, v)), tools_json, tool_texts, param_texts, recipe }
            }
            None => Prepared {
                projection: None,
                tools_json: None,
                tool_texts: c.tool_texts.iter().map(|t| t.text.clone()).collect(),
                param_texts: c.tool_texts.iter().map(|t| t.params.clone()).collect(),
                recipe: Vec::new(),
            },
        }
    }

    /// The counts of the texts, with `tokenizer` (texts not yet counted are counted now).
    pub(super) fn counts(&self, tokenizer: &Tokenizer, counters: &mut Counters) -> Result<ToolCounts> {
        let mut count = |text: &str| -> Result<Measure> {
            Ok(Measure { tokens: counters.count(tokenizer, text)?, bytes: text.len() as u64 })
        };
        let tools_sent = match &self.tools_json {
            Some(json) => count(json)?,
            None => Measure::default(),
        };
        let tools = self.tool_texts.iter().map(|t| count(t)).collect::<Result<Vec<_>>>()?;
        let params = self
            .param_texts
            .iter()
            .map(|ps| ps.iter().map(|t| count(t)).collect::<Result<Vec<_>>>())
            .collect::<Result<Vec<_>>>()?;
        let entries = match &self.projection {
            Some((p, v)) => projection::tool_entries(*p, v),
            None => Vec::new(),
        };
        let provider = self.projection.as_ref().map(|(p, _)| *p);
        let bill = ToolsBill::of(provider, &entries, tokenizer, counters)?;
        Ok(ToolCounts { tools_sent, tools, params, bill })
    }

    /// Every text the account counts.
    pub(super) fn texts<'a>(&'a self, c: &'a Compiled) -> Vec<&'a str> {
        let mut out = cell_texts(c);
        out.extend(self.tool_part_texts());
        out
    }

    /// The texts of the tools' part.
    pub(super) fn tool_part_texts(&self) -> Vec<&str> {
        let mut out = Vec::new();
        out.extend(self.tools_json.as_deref());
        out.extend(self.tool_texts.iter().map(String::as_str));
        out.extend(self.param_texts.iter().flatten().map(String::as_str));
        out.extend(self.recipe.iter().map(String::as_str));
        out
    }
}

/// The texts of `c` every account of it counts, whatever the provider: the prompt, its
/// dynamic rest, each section, each harness message's blocks (a message of one text is one).
pub(super) fn cell_texts(c: &Compiled) -> Vec<&str> {
    let mut out = vec![c.prompt.as_str(), &c.prompt[c.prefix.bytes..]];
    out.extend(c.sections.iter().map(|s| s.text.as_str()));
    out.extend(c.messages.iter().flat_map(|m| &m.blocks).map(String::as_str));
    out
}

/// Tokens and bytes of a cell's own texts ([`cell_texts`]) with one tokenizer.
pub(super) struct OwnCounts {
    pub(super) prompt: Measure,
    /// The prompt after its static prefix.
    pub(super) rest: Measure,
    pub(super) sections: Vec<Measure>,
    pub(super) messages: Vec<Measure>,
}

impl OwnCounts {
    /// `count` applied to each of `c`'s own texts, in [`cell_texts`] order (with its index).
    pub(super) fn new(c: &Compiled, mut count: impl FnMut(usize, &str) -> Result<u64>) -> Result<OwnCounts> {
        let mut m = cell_texts(c)
            .into_iter()
            .enumerate()
            .map(|(i, t)| Ok(Measure { tokens: count(i, t)?, bytes: t.len() as u64 }))
            .collect::<Result<Vec<_>>>()?
            .into_iter();
        let mut next = || m.next().unwrap_or_default();
        Ok(OwnCounts {
            prompt: next(),
            rest: next(),
            sections: c.sections.iter().map(|_| next()).collect(),
            // A message's blocks are counted one by one, as each is its own text in the request.
            messages: c
                .messages
                .iter()
                .map(|m| m.blocks.iter().fold(Measure::default(), |t, _| t.plus(next())))
                .collect(),
        })
    }
}

/// Every text an account of `c` for `provider` counts (for benchmarks and priming).
pub fn texts(project: &Project, c: &Compiled, provider: Option<Provider>) -> Vec<String> {
    let p = Prepared::new(project, c, provider);
    p.texts(c).into_iter().map(str::to_string).collect()
}
