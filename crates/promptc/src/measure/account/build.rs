//! Building accounts: one cell for one provider ([`account`]), or the whole matrix with every
//! text counted once per encoding in one parallel pass ([`accounts`]).

use std::collections::HashMap;

use super::prepare::{
    add_tool_sources, cell_texts, compact, projection_for, OwnCounts, OwnCut, Places, Prepared, ToolCounts,
};
use super::{Account, CacheSplit, MessageItem, ParamItem, SectionItem, SlotItem, TokenizerInfo, ToolItem};
use crate::compile::Compiled;
use crate::compile::OUTSIDE_SECTIONS;
use crate::diagnostic::Diagnostic;
use crate::error::Result;
use crate::measure::billing::{bill, Billed};
use crate::measure::budget::{Check, Scope};
use crate::measure::tokens::{key_of, Counters};
use crate::measure::Measure;
use crate::model::provider::{CountsWith, Provider};
use crate::model::tokenizer::Tokenizer;
use crate::model::transport::Transport;
use crate::model::Project;
use crate::projection::ProjectionOptions;
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
    let by_provider = match provider.map(|p| p.info().counts_with) {
        Some(CountsWith::Estimate(family)) => Tokenizer::estimate(family, factors),
        Some(CountsWith::Exact(encoding)) => Tokenizer::Exact(encoding),
        Some(CountsWith::Project) | None => project.tokens.tokenizer,
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
    let prepared = provider.map(|p| Prepared::new(project, c, p));
    let mut texts = cell_texts(c);
    texts.extend(prepared.iter().flat_map(|p| p.tool_part_texts()));
    counters.prime(tokenizer, &texts)?;
    let mut sources = HashMap::new();
    add_tool_sources(&mut sources, project, c.tools.iter().map(|t| t.name.as_str()));
    let ctx = Context { project, c, provider, tokenizer, model, sources: &sources };
    let places = Places::of(c);
    let own = OwnCounts::new(c, &places, |_, text, points| counters.marks(tokenizer, &key_of(text), text, points))?;
    let counted = prepared.map(|p| p.counts(tokenizer, counters)).transpose()?;
    account_primed(&ctx, counted.as_ref(), &own, counters)
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

/// [`account`] once every text has been counted: the items, then the totals, the cache split,
/// the bill and the budgets. `counted` is the tools' part of a native cell.
pub(super) fn account_primed(
    ctx: &Context,
    counted: Option<&ToolCounts>,
    own: &OwnCounts,
    counters: &mut Counters,
) -> Result<Account> {
    let Context { project, c, provider, tokenizer, .. } = *ctx;
    let cell = &c.cell();
    let prompt = own.prompt;
    let mut sections = section_items(c, own);
    let mut tools = tool_items(ctx, counted, own);
    let tools_sent = counted.map_or_else(Measure::default, |t| t.tools_sent);
    let tools_framing = counted.map_or_else(Measure::default, |t| t.framing);
    let messages = message_items(c, own);
    let total = messages.iter().fold(prompt.plus(tools_sent), |t, m| t.plus(m.sent));
    super::set_shares(&mut sections, &mut tools, total);
    let in_sections = sections.iter().fold(Measure::default(), |m, s| m.plus(s.sent));
    // The sections' parts are the prompt's tokens that start in them: what is left is the text
    // no section owns, never less than nothing.
    let layout = Measure {
        tokens: prompt.tokens.saturating_sub(in_sections.tokens),
        bytes: prompt.bytes.saturating_sub(in_sections.bytes),
    };
    let cache = cache_split(ctx, own, tools_sent, total, counters)?;
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
        layout_dynamic: c.prefix.first_dynamic.as_deref() == Some(OUTSIDE_SECTIONS)
            || !project.layout_dynamic.is_empty(),
        tools,
        tools_framing,
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

/// What caching can reuse of the request — the tools (native), the prompt, the harness
/// messages, in that order — up to where it parts from another session's: the tokens that end
/// before that byte. The rest is uncached: the two add up to what is sent.
fn cache_split(
    ctx: &Context,
    own: &OwnCounts,
    tools_sent: Measure,
    total: Measure,
    counters: &mut Counters,
) -> Result<CacheSplit> {
    let c = ctx.c;
    let sp = &c.prefix;
    let measured = c.session.variation.is_some();
    let note = c.session.note();
    let split = |cacheable: u64, breakpoint_after: Option<String>, ends_at: Option<String>, why: Option<String>| {
        let cacheable = cacheable.min(total.tokens);
        let uncached = total.tokens - cacheable;
        CacheSplit { cacheable, uncached, breakpoint_after, ends_at, why, measured, note: note.clone() }
    };
    if let Some((tool, reused)) = tools_cut(ctx, counters)? {
        let why = Some(format!("tool `{tool}`'s text reads a value that changes between sessions"));
        return Ok(split(reused, None, Some(format!("tool {tool}")), why));
    }
    Ok(match own.cut {
        None => split(total.tokens, sp.last_static.clone(), None, None),
        Some((OwnCut::Prompt(_), reused)) => {
            split(tools_sent.tokens + reused, sp.last_static.clone(), sp.first_dynamic.clone(), sp.why.clone())
        }
        Some((OwnCut::Message(k), reused)) => {
            let before = match k.message {
                0 => sp.last_static.clone(),
                i => Some(format!("message {i}")),
            };
            let why = c.messages.get(k.message).and_then(|m| m.sections.iter().find_map(|s| s.why.clone()));
            split(tools_sent.tokens + reused, before, Some(format!("message {}", k.message + 1)), why)
        }
    })
}

/// Where a native cell's tools JSON for the account's provider parts from another session's
/// (a `templated: true` tool whose text reads a dynamic value): the tool, and the tokens of the
/// JSON that end before that byte. `None` when the JSON is the same.
fn tools_cut(ctx: &Context, counters: &mut Counters) -> Result<Option<(String, u64)>> {
    let (c, project) = (ctx.c, ctx.project);
    let Some(p) = ctx.provider else { return Ok(None) };
    let json = compact(&projection_for(project, c, p));
    let (byte, tool) = match (&c.session.other_tools, c.session.variation) {
        (Some(other), _) => {
            let theirs = compact(&crate::projection::project(p, other, ProjectionOptions::of(project)));
            let Some(byte) = crate::compile::session::first_difference(&json, &theirs) else { return Ok(None) };
            let tool = c.tools.iter().zip(other.iter()).find(|(a, b)| a != b).map(|(a, _)| a.name.clone());
            (byte, tool)
        }
        (None, Some(_)) => return Ok(None),
        // Not measured: the analysis says which tool's text changes.
        (None, None) => match c.tools.iter().find(|t| t.dynamic) {
            Some(t) => (0, Some(t.name.clone())),
            None => return Ok(None),
        },
    };
    let reused = counters.marks(ctx.tokenizer, &key_of(&json), &json, &[byte])?.first().map_or(0, |m| m.ends);
    Ok(Some((tool.unwrap_or_default(), reused)))
}

/// One item per rendered section, its share still to be set: its part of the prompt.
fn section_items(c: &Compiled, own: &OwnCounts) -> Vec<SectionItem> {
    c.sections
        .iter()
        .zip(&own.sections)
        .zip(&c.offsets)
        .map(|((s, sent), at)| SectionItem {
            id: s.id.clone(),
            sent: *sent,
            share: 0.0,
            dynamic: c.section_changes(&s.id),
            why: s.why.clone(),
            placed: at.is_some(),
            source: s.origin.clone(),
        })
        .collect()
}

/// One item per harness message: each block's part, and whether it changes between sessions.
fn message_items(c: &Compiled, own: &OwnCounts) -> Vec<MessageItem> {
    c.messages
        .iter()
        .zip(&own.messages)
        .enumerate()
        .map(|(i, (m, blocks))| MessageItem {
            role: m.role,
            sections: m.sections.iter().map(|s| s.id.clone()).collect(),
            sent: blocks.iter().fold(Measure::default(), |t, b| t.plus(*b)),
            blocks: if blocks.len() > 1 || m.form == crate::model::profile::MessageForm::Blocks {
                blocks.clone()
            } else {
                Vec::new()
            },
            dynamic: c.message_changes(i),
            why: m.sections.iter().find_map(|s| s.why.clone()),
        })
        .collect()
}

/// One item per active tool (with its parameters), its share still to be set: its entry in the
/// tools JSON (native), or its part of the section that describes it (xml, json).
fn tool_items(ctx: &Context, counted: Option<&ToolCounts>, own: &OwnCounts) -> Vec<ToolItem> {
    let c = ctx.c;
    // The section that describes the tools in the prompt, for xml and json cells.
    let holder = match c.transport {
        Transport::Native => None,
        Transport::Xml => Some("generated:tool_docs"),
        Transport::Json => Some("generated:action_schema"),
    }
    .and_then(|origin| c.sections.iter().find(|s| s.origin == origin))
    .map(|s| s.id.clone());
    let (tools, params, descriptions) = match counted {
        Some(t) => (&t.tools, &t.params, &t.descriptions),
        None => (&own.tools, &own.params, &own.descriptions),
    };
    c.tools
        .iter()
        .enumerate()
        .map(|(i, t)| ToolItem {
            name: t.name.clone(),
            toolset: t.toolset.clone(),
            sent: tools.get(i).copied().unwrap_or_default(),
            share: 0.0,
            part_of: if counted.is_some() { None } else { holder.clone() },
            source: ctx.sources.get(&t.name).cloned().unwrap_or_default(),
            params: t
                .params
                .iter()
                .enumerate()
                .map(|(j, prm)| ParamItem {
                    name: prm.name.clone(),
                    sent: params.get(i).and_then(|ps| ps.get(j)).copied().unwrap_or_default(),
                })
                .collect(),
            description: descriptions.get(i).copied().flatten(),
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
    counted: Option<&ToolCounts>,
    prompt: Measure,
    messages: &[MessageItem],
    counters: &mut Counters,
) -> Result<Billed> {
    let tools_sent = counted.map_or(0, |t| t.tools_sent.tokens);
    let bill_of_tools = counted.map(|t| t.bill).unwrap_or_default();
    let mut billed = bill(ctx.provider, ctx.model, prompt.tokens, tools_sent, bill_of_tools, ctx.tokenizer, counters)?;
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
