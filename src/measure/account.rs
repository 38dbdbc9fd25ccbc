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

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;

use crate::compile::Compiled;
use crate::diagnostic::Diagnostic;
use crate::error::Result;
use crate::measure::billing::{bill, Billed};
use crate::measure::budget::{Check, Scope};
use crate::measure::tokens::Counters;
use crate::measure::Measure;
use crate::model::params::Property;
use crate::model::provider::{Billing, Provider};
use crate::model::tokenizer::Tokenizer;
use crate::model::transport::Transport;
use crate::model::Project;
use crate::projection::{self, ProjectionOptions};
use crate::resolve::matrix::{cell_name, Cell};

/// How a cell's tokens were counted.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct SectionItem {
    /// Section id.
    pub id: String,
    /// What is sent.
    pub sent: Measure,
    /// Share of the cell's sent tokens, 0–1.
    pub share: f64,
    /// Whether it changes between sessions (a dynamic variable, untrusted text, a dynamic
    /// contribution).
    pub dynamic: bool,
    /// Where it comes from (`sections/role.md.j2`, `generated:tool_docs`, `slot:notes`).
    pub source: String,
}

/// One parameter of a tool: the part of the tool's definition it costs.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ParamItem {
    /// Parameter name.
    pub name: String,
    /// Its part of what is sent: `"name":{schema}` in the tool JSON, its lines in the XML docs.
    pub sent: Measure,
}

/// One tool: its entry in the tools JSON (native), or its part of the generated section that
/// describes it in the prompt (xml, json) — then already counted in that section.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
}

/// One injectable slot.
#[derive(Debug, Clone, PartialEq, Serialize)]
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

/// What provider prompt caching can reuse: the static prefix of the request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct CacheSplit {
    /// Tokens before the first section that changes between sessions: the tools (native) and
    /// the prompt up to that section (the prompt's tokens less the rest's, to within the one
    /// token that may straddle the cut).
    pub cacheable: u64,
    /// The rest of the prompt.
    pub uncached: u64,
    /// The last static section: where a cache breakpoint goes.
    pub breakpoint_after: Option<String>,
    /// The section that ends the prefix, if any.
    pub ends_at: Option<String>,
}

/// One harness message: who sends it and what it costs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MessageItem {
    /// `user` or `assistant`.
    pub role: crate::model::profile::Role,
    /// Its sections' ids, in order.
    pub sections: Vec<String>,
    /// Its text as sent.
    pub sent: Measure,
}

/// What one cell costs for one provider.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
    /// Text outside sections: separators, layout headings.
    pub layout: Measure,
    /// Where that text comes from.
    pub layout_source: String,
    /// The tools, in order.
    pub tools: Vec<ToolItem>,
    /// Injectable slots.
    pub slots: Vec<SlotItem>,
    /// The prompt as sent.
    pub prompt: Measure,
    /// The tools JSON as sent (compact); zero for xml and json, whose tools are in the prompt.
    pub tools_sent: Measure,
    /// The harness messages (the profile's `messages:`), each as sent; absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
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

impl Account {
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

/// The tokenizer for a cell of `provider` (`None`: xml and json cells): `forced` wins, then
/// the model's, then the provider's. A model id promptc does not know is counted with the
/// provider's tokenizer and returned as a warning to show once.
pub fn tokenizer_for(
    project: &Project,
    provider: Option<Provider>,
    model: Option<&str>,
    forced: Option<Tokenizer>,
) -> (Tokenizer, Option<Diagnostic>) {
    if let Some(t) = forced {
        return (t, None);
    }
    let factors = &project.tokens.factors;
    let by_provider = match provider.and_then(|p| p.info().estimated_family) {
        Some(family) => Tokenizer::estimate(family, factors),
        None => project.tokens.tokenizer,
    };
    match model {
        None => (by_provider, None),
        Some(m) => match Tokenizer::for_model(m, factors) {
            Some(t) => (t, None),
            None => (
                by_provider,
                Some(
                    Diagnostic::warning(format!(
                        "model `{}` is not one promptc knows a tokenizer for",
                        crate::diagnostic::excerpt(m, 60)
                    ))
                    .with_note(format!("counting with {} ({})", by_provider.name(), by_provider.method()))
                    .with_help("name a tokenizer explicitly (`o200k_base`, `cl100k_base`, `claude`, `gemini`)"),
                ),
            ),
        },
    }
}

fn compact(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default() // ok: a Value always serialises
}

/// One parameter's part of what is sent for its tool.
fn param_text(entry: &Value, p: &Property) -> String {
    let schema = ["parameters", "input_schema"]
        .iter()
        .find_map(|k| entry.get("function").unwrap_or(entry).get(*k))
        .and_then(|s| s.get("properties"))
        .and_then(|props| props.get(&p.name));
    schema.map(|s| format!("{}:{}", compact(&Value::String(p.name.clone())), compact(s))).unwrap_or_default()
}

/// Where each of `tools` is declared, as `file:line` (found once per report: locating a
/// declaration reads its file).
fn tool_sources<'a>(project: &Project, tools: impl Iterator<Item = &'a str>) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for t in tools {
        if !out.contains_key(t) {
            out.insert(t.to_string(), tool_source(project, t));
        }
    }
    out
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
struct Prepared {
    /// The provider's projection (native).
    projection: Option<(Provider, Value)>,
    /// The whole tools JSON, compact (native).
    tools_json: Option<String>,
    /// Each tool's text: its compact JSON entry (native) or its part of the prompt.
    tool_texts: Vec<String>,
    /// Each tool's parameters' texts.
    param_texts: Vec<Vec<String>>,
    /// Texts the billing recipe counts.
    recipe: Vec<String>,
}

impl Prepared {
    fn new(project: &Project, c: &Compiled, provider: Option<Provider>) -> Prepared {
        match provider.filter(|_| c.transport == Transport::Native) {
            Some(p) => {
                let v = projection_for(project, c, p);
                let entries = projection::tool_entries(p, &v);
                let tool_texts = entries.iter().map(|e| compact(e)).collect();
                let param_texts = c
                    .tools
                    .iter()
                    .zip(&entries)
                    .map(|(t, e)| t.params.iter().map(|prm| param_text(e, prm)).collect())
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
    fn texts<'a>(&'a self, c: &'a Compiled) -> Vec<&'a str> {
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

/// [`Prepared::new`] for every (cell, provider), spread over the machine's cores, in order.
fn prepare_all(project: &Project, work: &[(&Compiled, Option<Provider>)]) -> Vec<Prepared> {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, work.len().max(1));
    let mut out: Vec<Option<Prepared>> = (0..work.len()).map(|_| None).collect();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                scope.spawn(move || {
                    (w..work.len())
                        .step_by(workers)
                        .map(|i| (i, Prepared::new(project, work[i].0, work[i].1)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for h in handles {
            for (i, p) in h.join().unwrap_or_default() {
                out[i] = Some(p);
            }
        }
    });
    // A worker that died leaves its items empty: prepare them here instead.
    out.into_iter()
        .enumerate()
        .map(|(i, p)| p.unwrap_or_else(|| Prepared::new(project, work[i].0, work[i].1)))
        .collect()
}

/// Every text an account of `c` for `provider` counts (for benchmarks and priming).
pub fn texts(project: &Project, c: &Compiled, provider: Option<Provider>) -> Vec<String> {
    let p = Prepared::new(project, c, provider);
    p.texts(c).into_iter().map(str::to_string).collect()
}

/// The account of compiled cell `c` (whose matrix identity is `cell`) for `provider`,
/// counted with `tokenizer`. `model` picks the billing constants where they differ by model.
pub fn account(
    project: &Project,
    cell: &Cell,
    c: &Compiled,
    provider: Option<Provider>,
    tokenizer: &Tokenizer,
    model: Option<&str>,
    counters: &mut Counters,
) -> Result<Account> {
    let provider = provider.filter(|_| c.transport == Transport::Native);
    let prepared = Prepared::new(project, c, provider);
    counters.prime(tokenizer, &prepared.texts(c))?;
    let sources = tool_sources(project, c.tools.iter().map(|t| t.name.as_str()));
    let ctx = Context { project, cell, c, provider, tokenizer, model, sources: &sources };
    account_primed(&ctx, &prepared, counters)
}

/// Everything an account is made from, but the texts.
struct Context<'a> {
    project: &'a Project,
    cell: &'a Cell,
    c: &'a Compiled,
    provider: Option<Provider>,
    tokenizer: &'a Tokenizer,
    model: Option<&'a str>,
    sources: &'a HashMap<String, String>,
}

/// [`account`] once every text of `prepared` has been counted.
fn account_primed(ctx: &Context, prepared: &Prepared, counters: &mut Counters) -> Result<Account> {
    let Context { project, cell, c, provider, tokenizer, model, sources } = *ctx;
    let source = |name: &str| sources.get(name).cloned().unwrap_or_default();
    let mut count = |text: &str| -> Result<Measure> {
        Ok(Measure { tokens: counters.count(tokenizer, text)?, bytes: text.len() as u64 })
    };
    let prompt = count(&c.prompt)?;
    let mut sections = Vec::new();
    let mut in_sections = Measure::default();
    for s in &c.sections {
        let m = count(&s.text)?;
        in_sections = in_sections.plus(m);
        sections.push(SectionItem {
            id: s.id.clone(),
            sent: m,
            share: 0.0,
            dynamic: s.dynamic,
            source: s.origin.clone(),
        });
    }
    // The section that describes the tools in the prompt, for xml and json cells.
    let holder = match c.transport {
        Transport::Native => None,
        Transport::Xml => Some("generated:tool_docs"),
        Transport::Json => Some("generated:action_schema"),
    }
    .and_then(|origin| c.sections.iter().find(|s| s.origin == origin))
    .map(|s| s.id.clone());
    let mut tools = Vec::new();
    for (i, t) in c.tools.iter().enumerate() {
        let params = t
            .params
            .iter()
            .zip(&prepared.param_texts[i])
            .map(|(prm, text)| Ok(ParamItem { name: prm.name.clone(), sent: count(text)? }))
            .collect::<Result<Vec<_>>>()?;
        tools.push(ToolItem {
            name: t.name.clone(),
            toolset: t.toolset.clone(),
            sent: count(&prepared.tool_texts[i])?,
            share: 0.0,
            part_of: if provider.is_some() { None } else { holder.clone() },
            source: source(&t.name),
            params,
        });
    }
    let tools_sent = match &prepared.tools_json {
        Some(json) => count(json)?,
        None => Measure::default(),
    };
    let mut messages = Vec::new();
    for m in &c.messages {
        let sections = m.sections.iter().map(|s| s.id.clone()).collect();
        messages.push(MessageItem { role: m.role, sections, sent: count(&m.text)? });
    }
    let total = messages.iter().fold(prompt.plus(tools_sent), |t, m| t.plus(m.sent));
    let share = |tokens: u64| if total.tokens == 0 { 0.0 } else { tokens as f64 / total.tokens as f64 };
    for s in &mut sections {
        s.share = share(s.sent.tokens);
    }
    for t in &mut tools {
        t.share = share(t.sent.tokens);
    }
    let layout = Measure {
        tokens: prompt.tokens.saturating_sub(in_sections.tokens),
        bytes: prompt.bytes.saturating_sub(in_sections.bytes),
    };
    let sp = c.static_prefix();
    // Only the (short) dynamic rest is counted: the prefix is the prompt less it, to within
    // the one token that may straddle the cut.
    let rest = count(&c.prompt[sp.bytes..])?;
    let cache = CacheSplit {
        cacheable: prompt.tokens.saturating_sub(rest.tokens) + tools_sent.tokens,
        uncached: rest.tokens,
        breakpoint_after: sp.last_static,
        ends_at: sp.first_dynamic,
    };
    let slots = c
        .slots
        .iter()
        .map(|s| {
            let shown = c.sections.iter().position(|r| r.origin == format!("slot:{}", s.slot));
            SlotItem {
                slot: s.slot.clone(),
                declaring: s.declaring.clone(),
                contributing: s.contributing.clone(),
                sent: shown.map(|i| sections[i].sent).unwrap_or_default(),
            }
        })
        .collect();
    let entry_refs: Vec<&Value> = match &prepared.projection {
        Some((p, v)) => projection::tool_entries(*p, v),
        None => Vec::new(),
    };
    let mut billed = bill(provider, model, prompt.tokens, tools_sent.tokens, &entry_refs, tokenizer, counters)?;
    // Harness messages are input too: billed as sent (each message's few tokens of framing are
    // not modelled).
    let in_messages: u64 = messages.iter().map(|m| m.sent.tokens).sum();
    if in_messages > 0 {
        billed.total += in_messages;
        billed.method.push_str("; harness messages as sent");
    }
    let mut a = Account {
        name: cell_name(&cell.profile, cell.case.as_deref(), c.transport, cell.subagent.as_deref(), provider),
        cell: cell.stem(),
        project: project.name.clone(),
        profile: cell.profile.clone(),
        case: cell.case.clone(),
        transport: c.transport,
        provider,
        subagent: cell.subagent.clone(),
        tokenizer: TokenizerInfo::of(tokenizer),
        sections,
        layout,
        layout_source: project.layout.clone().unwrap_or_else(|| "blank lines between sections".into()),
        tools,
        slots,
        prompt,
        tools_sent,
        messages,
        total,
        billed,
        cache,
        budgets: Vec::new(),
    };
    // Sub-agents have no budget of their own: they share the profile's prompt contract.
    if cell.subagent.is_none() {
        let budget = &project.profile(&cell.profile)?.budget;
        let mut checks = Vec::new();
        for (scope, amount) in
            [(Scope::Total, budget.total), (Scope::Prompt, budget.prompt), (Scope::Tools, budget.tools)]
        {
            if let Some(limit) = amount {
                checks.push(Check::new(scope.clone(), limit, a.scope_measure(&scope).get(limit.unit)));
            }
        }
        for (id, limit) in &budget.sections {
            let scope = Scope::Section(id.clone());
            checks.push(Check::new(scope.clone(), *limit, a.scope_measure(&scope).get(limit.unit)));
        }
        a.budgets = checks;
    }
    Ok(a)
}

/// The providers a cell is accounted for: every provider of the project for a native cell,
/// none for xml and json.
pub fn providers_of(project: &Project, transport: Transport) -> Vec<Option<Provider>> {
    match transport {
        Transport::Native => project.providers.iter().copied().map(Some).collect(),
        Transport::Xml | Transport::Json => vec![None],
    }
}

/// The account of every cell of `compiled` (matrix cells with their compiled prompts) for
/// every provider: the whole matrix. Warnings (an unknown model) are returned once each.
pub fn accounts(
    project: &Project,
    compiled: &[(Cell, Compiled)],
    model: Option<&str>,
    forced: Option<Tokenizer>,
    counters: &mut Counters,
) -> Result<(Vec<Account>, Vec<Diagnostic>)> {
    let mut warnings: Vec<Diagnostic> = Vec::new();
    let mut plan = Vec::new();
    // Every distinct text of the whole matrix, counted once per encoding in one parallel pass.
    let mut by_encoding: std::collections::BTreeMap<crate::model::tokenizer::Encoding, (Tokenizer, Vec<&str>)> =
        Default::default();
    for (cell, c) in compiled {
        for provider in providers_of(project, c.transport) {
            let (tokenizer, warning) = tokenizer_for(project, provider, model, forced);
            if let Some(w) = warning {
                if !warnings.iter().any(|x| x.message == w.message) {
                    warnings.push(w);
                }
            }
            plan.push((cell, c, provider, tokenizer));
        }
    }
    // Projecting and serialising every tool for every provider is the costly part: spread it.
    let prepared = prepare_all(project, &plan.iter().map(|(_, c, p, _)| (*c, *p)).collect::<Vec<_>>());
    let plan: Vec<_> = plan.into_iter().zip(prepared).map(|((a, b, c, d), e)| (a, b, c, d, e)).collect();
    for (_, c, _, tokenizer, prepared) in &plan {
        let entry = by_encoding.entry(tokenizer.encoding()).or_insert_with(|| (*tokenizer, Vec::new()));
        entry.1.extend(prepared.texts(c));
    }
    for (tokenizer, list) in by_encoding.values() {
        counters.prime(tokenizer, list)?;
    }
    let sources = tool_sources(project, compiled.iter().flat_map(|(_, c)| c.tools.iter().map(|t| t.name.as_str())));
    let mut out = Vec::new();
    for (cell, c, provider, tokenizer, prepared) in &plan {
        let ctx = Context { project, cell, c, provider: *provider, tokenizer, model, sources: &sources };
        out.push(account_primed(&ctx, prepared, counters)?);
    }
    Ok((out, warnings))
}
