//! What an account measures, prepared once per cell and provider: the provider's projection,
//! each tool's and parameter's text, the billing recipe's texts — projected in parallel.

use std::collections::HashMap;

use serde_json::Value;

use crate::compile::Compiled;
use crate::model::params::Property;
use crate::model::provider::{Billing, Provider};
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

/// Add to `sources` where each of `tools` is declared, as `file:line`, unless known (found
/// once per report: locating a declaration reads its file).
pub(super) fn add_tool_sources<'a>(
    sources: &mut HashMap<String, String>,
    project: &Project,
    tools: impl Iterator<Item = &'a str>,
) {
    for t in tools {
        if !sources.contains_key(t) {
            sources.insert(t.to_string(), tool_source(project, t));
        }
    }
}

/// Where `tool` is declared, as `file:line`.
fn tool_source(project: &Project, tool: &str) -> String {
    match project.catalog.get(tool) {
        Some(t) => {
            let l = project.label(&t.name_span);
            match l.position {
                Some(p) => format!("{}:{}", t.name_span.file, p.line),
                None => t.name_span.file.clone(),
            }
        }
        None => String::new(),
    }
}

/// The projection of `c`'s tools for `provider` (`c`'s own when it is that provider's).
pub(crate) fn projection_for(project: &Project, c: &Compiled, provider: Provider) -> Value {
    match (&c.projection, c.provider) {
        (Some(p), Some(q)) if q == provider => p.clone(),
        _ => projection::project(provider, &c.tools, ProjectionOptions { strict: project.strict_tools }),
    }
}

/// What an account of one cell for one provider measures, built once: the texts to count
/// (primed in one parallel pass) and what the account is made of.
pub(super) struct Prepared {
    /// The provider's projection (native).
    pub(super) projection: Option<(Provider, Value)>,
    /// The whole tools JSON, compact (native).
    pub(super) tools_json: Option<String>,
    /// Each tool's text: its compact JSON entry (native) or its part of the prompt.
    pub(super) tool_texts: Vec<String>,
    /// Each tool's parameters' texts.
    pub(super) param_texts: Vec<Vec<String>>,
    /// Texts the billing recipe counts.
    pub(super) recipe: Vec<String>,
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

    /// Every text the account counts.
    pub(super) fn texts<'a>(&'a self, c: &'a Compiled) -> Vec<&'a str> {
        let sp = &c.prefix;
        let mut out = vec![c.prompt.as_str(), &c.prompt[sp.bytes..]];
        out.extend(c.sections.iter().map(|s| s.text.as_str()));
        out.extend(self.tools_json.as_deref());
        out.extend(self.tool_texts.iter().map(String::as_str));
        out.extend(self.param_texts.iter().flatten().map(String::as_str));
        out.extend(self.recipe.iter().map(String::as_str));
        out
    }
}

/// Every text an account of `c` for `provider` counts (for benchmarks and priming).
pub fn texts(project: &Project, c: &Compiled, provider: Option<Provider>) -> Vec<String> {
    let p = Prepared::new(project, c, provider);
    p.texts(c).into_iter().map(str::to_string).collect()
}
