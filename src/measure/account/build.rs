//! Building accounts: one cell for one provider ([`account`]), or the whole matrix with every
//! text counted once per encoding in one parallel pass ([`accounts`]).

use std::collections::HashMap;

use super::prepare::{add_tool_sources, OwnCounts, Prepared, ToolCounts};
use super::{Account, CacheSplit, MessageItem, ParamItem, SectionItem, SlotItem, TokenizerInfo, ToolItem};
use crate::compile::Compiled;
use crate::diagnostic::Diagnostic;
use crate::error::Result;
use crate::measure::billing::{bill, Billed};
use crate::measure::budget::{Check, Scope};
use crate::measure::tokens::Counters;
use crate::measure::Measure;
use crate::model::provider::Provider;
use crate::model::tokenizer::Tokenizer;
use crate::model::transport::Transport;
use crate::model::Project;
use crate::resolve::matrix::{cell_name, Cell};

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

/// The account of compiled cell `c` for `provider`, counted with `tokenizer`. `model` picks
/// the billing constants where they differ by model.
pub fn account(
    project: &Project,
    c: &Compiled,
    provider: Option<Provider>,
    tokenizer: &Tokenizer,
    model: Option<&str>,
    counters: &mut Counters,
) -> Result<Account> {
    let provider = provider.filter(|_| c.transport == Transport::Native);
    let prepared = Prepared::new(project, c, provider);
    counters.prime(tokenizer, &prepared.texts(c))?;
    let mut sources = HashMap::new();
    add_tool_sources(&mut sources, project, c.tools.iter().map(|t| t.name.as_str()));
    let ctx = Context { project, c, provider, tokenizer, model, sources: &sources };
    let own = OwnCounts::new(c, |_, text| counters.count(tokenizer, text))?;
    let counted = prepared.counts(tokenizer, counters)?;
    account_primed(&ctx, &counted, &own, counters)
}

/// Everything an account is made from, but the texts.
pub(super) struct Context<'a> {
    pub(super) project: &'a Project,
    pub(super) c: &'a Compiled,
    pub(super) provider: Option<Provider>,
    pub(super) tokenizer: &'a Tokenizer,
    pub(super) model: Option<&'a str>,
    /// Where each tool is declared (`file:line`).
    pub(super) sources: &'a HashMap<String, String>,
}

/// [`account`] once every text of `prepared` has been counted: the items, then the totals,
/// the cache split, the bill and the budgets.
pub(super) fn account_primed(
    ctx: &Context,
    counted: &ToolCounts,
    own: &OwnCounts,
    counters: &mut Counters,
) -> Result<Account> {
    let Context { project, c, provider, tokenizer, .. } = *ctx;
    let cell = &c.cell();
    let prompt = own.prompt;
    let mut sections = section_items(c, own);
    let mut tools = tool_items(ctx, counted);
    let tools_sent = counted.tools_sent;
    let messages: Vec<MessageItem> = c
        .messages
        .iter()
        .zip(&own.messages)
        .map(|(m, sent)| {
            let sections = m.sections.iter().map(|s| s.id.clone()).collect();
            MessageItem { role: m.role, sections, sent: *sent }
        })
        .collect();
    let total = messages.iter().fold(prompt.plus(tools_sent), |t, m| t.plus(m.sent));
    super::set_shares(&mut sections, &mut tools, total);
    let in_sections = sections.iter().fold(Measure::default(), |m, s| m.plus(s.sent));
    let layout = Measure {
        tokens: prompt.tokens.saturating_sub(in_sections.tokens),
        bytes: prompt.bytes.saturating_sub(in_sections.bytes),
    };
    let sp = c.static_prefix();
    // Only the (short) dynamic rest is counted: the prefix is the prompt less it, to within
    // the one token that may straddle the cut.
    let rest = own.rest;
    // The tools come before the prompt in every provider's cache order: a native tool whose
    // text changes between sessions (`templated: true` reading a dynamic value) leaves nothing
    // to reuse.
    let dynamic_tool = c.tools.iter().find(|t| t.dynamic).filter(|_| c.projection.is_some());
    let cache = match dynamic_tool {
        Some(t) => CacheSplit {
            cacheable: 0,
            uncached: prompt.tokens + tools_sent.tokens,
            breakpoint_after: None,
            ends_at: Some(format!("tool {}", t.name)),
        },
        None => CacheSplit {
            cacheable: prompt.tokens.saturating_sub(rest.tokens) + tools_sent.tokens,
            uncached: rest.tokens,
            breakpoint_after: sp.last_static,
            ends_at: sp.first_dynamic,
        },
    };
    let slots = slot_items(c, &sections);
    let billed = billed(ctx, counted, prompt, &messages, counters)?;
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
    a.budgets = budget_checks(project, cell, &a)?;
    Ok(a)
}

/// One item per rendered section, its share still to be set.
fn section_items(c: &Compiled, own: &OwnCounts) -> Vec<SectionItem> {
    c.sections
        .iter()
        .zip(&own.sections)
        .map(|(s, sent)| SectionItem {
            id: s.id.clone(),
            sent: *sent,
            share: 0.0,
            dynamic: s.dynamic,
            source: s.origin.clone(),
        })
        .collect()
}

/// One item per active tool (with its parameters), its share still to be set.
fn tool_items(ctx: &Context, counted: &ToolCounts) -> Vec<ToolItem> {
    let c = ctx.c;
    // The section that describes the tools in the prompt, for xml and json cells.
    let holder = match c.transport {
        Transport::Native => None,
        Transport::Xml => Some("generated:tool_docs"),
        Transport::Json => Some("generated:action_schema"),
    }
    .and_then(|origin| c.sections.iter().find(|s| s.origin == origin))
    .map(|s| s.id.clone());
    c.tools
        .iter()
        .enumerate()
        .map(|(i, t)| ToolItem {
            name: t.name.clone(),
            toolset: t.toolset.clone(),
            sent: counted.tools[i],
            share: 0.0,
            part_of: if ctx.provider.is_some() { None } else { holder.clone() },
            source: ctx.sources.get(&t.name).cloned().unwrap_or_default(),
            params: t
                .params
                .iter()
                .zip(&counted.params[i])
                .map(|(prm, sent)| ParamItem { name: prm.name.clone(), sent: *sent })
                .collect(),
        })
        .collect()
}

/// How each injectable slot was filled, measured by the section that shows it.
fn slot_items(c: &Compiled, sections: &[SectionItem]) -> Vec<SlotItem> {
    c.slots
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
        .collect()
}

/// The provider's estimated bill, harness messages included.
fn billed(
    ctx: &Context,
    counted: &ToolCounts,
    prompt: Measure,
    messages: &[MessageItem],
    counters: &mut Counters,
) -> Result<Billed> {
    let tools_sent = counted.tools_sent.tokens;
    let mut billed = bill(ctx.provider, ctx.model, prompt.tokens, tools_sent, counted.bill, ctx.tokenizer, counters)?;
    // Harness messages are input too: billed as sent (each message's few tokens of framing are
    // not modelled).
    let in_messages: u64 = messages.iter().map(|m| m.sent.tokens).sum();
    if in_messages > 0 {
        billed.total += in_messages;
        billed.method.push_str("; harness messages as sent");
    }
    Ok(billed)
}

/// The profile's budgets checked against `a`. Sub-agents have no budget of their own: they
/// share the profile's prompt contract.
fn budget_checks(project: &Project, cell: &Cell, a: &Account) -> Result<Vec<Check>> {
    if cell.subagent.is_some() {
        return Ok(Vec::new());
    }
    let budget = &project.profile(&cell.profile)?.budget;
    let mut checks = Vec::new();
    for (scope, amount) in [(Scope::Total, budget.total), (Scope::Prompt, budget.prompt), (Scope::Tools, budget.tools)]
    {
        if let Some(limit) = amount {
            checks.push(Check::new(scope.clone(), limit, a.scope_measure(&scope).get(limit.unit)));
        }
    }
    for (id, limit) in &budget.sections {
        let scope = Scope::Section(id.clone());
        checks.push(Check::new(scope.clone(), *limit, a.scope_measure(&scope).get(limit.unit)));
    }
    Ok(checks)
}
