//! The report: where the prompt budget goes. One row per section (prompt order), one per tool
//! of the projection, totals, and budget checks — as a table, JSON, markdown or CSV.

use serde::Serialize;
use serde_json::Value;

use crate::compile::Compiled;
use crate::error::Result;
use crate::measure::budget::{Check, Scope};
use crate::measure::tokens::Counter;
use crate::measure::Measure;
use crate::model::provider::Provider;
use crate::model::selection::Selection;
use crate::model::tokenizer::Tokenizer;
use crate::model::transport::Transport;
use crate::model::Project;
use crate::projection;

use crate::resolve::matrix::cell_name;
use crate::resolve::runtime::Runtime;
use crate::resolve::tools::ActiveTool;

/// One section's row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SectionRow {
    /// Section id.
    pub id: String,
    /// Its size.
    #[serde(flatten)]
    pub size: Measure,
    /// Share of the total tokens (prompt + tools), 0–1.
    pub share: f64,
    /// Whether it reads dynamic variables.
    pub dynamic: bool,
    /// Where it comes from.
    pub source: String,
}

/// One tool's row: the tokens of its own JSON entry (native) or XML block (xml).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolRow {
    /// Tool name.
    pub name: String,
    /// Its toolset.
    pub toolset: String,
    /// Its size.
    #[serde(flatten)]
    pub size: Measure,
    /// Share of the total tokens, 0–1.
    pub share: f64,
    /// True for xml and json, where the tool is described inside the prompt (the tool_docs or
    /// action_schema section).
    pub in_prompt: bool,
}

/// How the counts were made.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TokenizerInfo {
    /// Tokenizer name.
    pub name: String,
    /// Whether counts are exact.
    pub exact: bool,
    /// How counts are obtained.
    pub method: String,
}

/// Report totals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Totals {
    /// The prompt text.
    pub prompt: Measure,
    /// The tool projection sent beside the prompt (zero for XML).
    pub tools: Measure,
    /// Prompt plus tools.
    pub total: Measure,
}

/// The report of one cell.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// Project name.
    pub project: String,
    /// Profile.
    pub profile: String,
    /// Transport.
    pub transport: Transport,
    /// Provider (native only).
    pub provider: Option<Provider>,
    /// Tokenizer.
    pub tokenizer: TokenizerInfo,
    /// Sections in prompt order.
    pub sections: Vec<SectionRow>,
    /// Text outside sections: separators and layout headings (prompt minus sections).
    pub layout: Measure,
    /// Where that text comes from: the layout template, or the blank lines between sections.
    pub layout_source: String,
    /// Tools in projection order.
    pub tools: Vec<ToolRow>,
    /// Totals.
    pub totals: Totals,
    /// Every budget of the profile, checked.
    pub budgets: Vec<Check>,
    /// Each injectable slot: tools declaring a contribution, tools contributing, bytes.
    pub slots: Vec<crate::render::SlotUse>,
}

impl Report {
    /// Whether any budget is exceeded.
    pub fn over_budget(&self) -> bool {
        self.budgets.iter().any(|c| c.exceeded)
    }

    /// A one-line name of the cell: `standard.native.openai`.
    pub fn cell(&self) -> String {
        cell_name(&self.profile, None, self.transport, None, self.provider)
    }
}

impl Compiled {
    /// Every text a report of this cell counts: the prompt, each section, the whole projection
    /// and each tool's JSON entry (native) or in-prompt description (xml, json).
    pub fn measured_texts(&self) -> Vec<String> {
        counted_texts(self)
    }
}

/// Every text a report of `c` counts (see [`Compiled::measured_texts`]).
pub(crate) fn counted_texts(c: &Compiled) -> Vec<String> {
    let mut texts = vec![c.prompt.clone()];
    texts.extend(c.sections.iter().map(|s| s.text.clone()));
    match (&c.projection, c.provider) {
        (Some(projection), Some(provider)) => {
            texts.push(compact(projection));
            texts.extend(projection::tool_entries(provider, projection).into_iter().map(compact));
        }
        _ => texts.extend(c.tools.iter().map(|t| in_prompt_text(c.transport, t))),
    }
    texts
}

/// Measure a compiled cell.
pub fn build(project: &Project, c: &Compiled, counter: &mut Counter) -> Result<Report> {
    let texts = counted_texts(c);
    counter.prime(&texts.iter().map(String::as_str).collect::<Vec<_>>())?;
    let prompt = Measure::of(counter, &c.prompt)?;
    let mut sections = Vec::new();
    let mut in_sections = Measure::default();
    for s in &c.sections {
        let m = Measure::of(counter, &s.text)?;
        in_sections = in_sections.plus(m);
        sections.push(SectionRow {
            id: s.id.clone(),
            size: m,
            share: 0.0,
            dynamic: s.dynamic,
            source: s.origin.clone(),
        });
    }
    let mut tools = Vec::new();
    let tools_total = match (&c.projection, c.provider) {
        (Some(projection), Some(provider)) => {
            let entries = projection::tool_entries(provider, projection);
            for (t, entry) in c.tools.iter().zip(entries) {
                let m = Measure::of(counter, &compact(entry))?;
                tools.push(ToolRow {
                    name: t.name.clone(),
                    toolset: t.toolset.clone(),
                    size: m,
                    share: 0.0,
                    in_prompt: false,
                });
            }
            Measure::of(counter, &compact(projection))?
        }
        _ => {
            for t in &c.tools {
                let m = Measure::of(counter, &in_prompt_text(c.transport, t))?;
                tools.push(ToolRow {
                    name: t.name.clone(),
                    toolset: t.toolset.clone(),
                    size: m,
                    share: 0.0,
                    in_prompt: true,
                });
            }
            Measure::default()
        }
    };
    let total = prompt.plus(tools_total);
    let share = |tokens: u64| if total.tokens == 0 { 0.0 } else { tokens as f64 / total.tokens as f64 };
    for s in &mut sections {
        s.share = share(s.size.tokens);
    }
    for t in &mut tools {
        t.share = share(t.size.tokens);
    }
    let layout = Measure {
        tokens: prompt.tokens.saturating_sub(in_sections.tokens),
        bytes: prompt.bytes.saturating_sub(in_sections.bytes),
    };
    let totals = Totals { prompt, tools: tools_total, total };
    let budget = &project.profile(&c.selection.profile)?.budget;
    let mut budgets = Vec::new();
    for (scope, amount, measure) in [
        (Scope::Total, budget.total, total),
        (Scope::Prompt, budget.prompt, prompt),
        (Scope::Tools, budget.tools, tools_total),
    ] {
        if let Some(a) = amount {
            budgets.push(Check::new(scope, a, measure.get(a.unit)));
        }
    }
    for (id, a) in &budget.sections {
        let m = sections.iter().find(|s| &s.id == id).map(|s| s.size).unwrap_or_default();
        budgets.push(Check::new(Scope::Section(id.clone()), *a, m.get(a.unit)));
    }
    let t = counter.tokenizer();
    Ok(Report {
        project: project.name.clone(),
        profile: c.selection.profile.clone(),
        transport: c.transport,
        provider: c.provider,
        tokenizer: TokenizerInfo { name: t.name(), exact: t.exact(), method: t.method() },
        sections,
        layout,
        layout_source: project.layout.clone().unwrap_or_else(|| "blank lines between sections".into()),
        tools,
        totals,
        budgets,
        slots: c.slots.clone(),
    })
}

/// The text one tool adds to the prompt of an xml or json cell: its XML block, or its part
/// of the action schema (its rule and its parameters).
fn in_prompt_text(transport: Transport, t: &ActiveTool) -> String {
    match transport {
        Transport::Json => compact(&projection::actions::tool_fragment(t)),
        Transport::Native | Transport::Xml => projection::xml::tool_block(t),
    }
}

fn compact(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default() // ok: a Value always serialises
}

/// The tokenizer for a report: `--tokenizer` wins, then a known `--model`, then the project's.
pub fn choose_tokenizer(project: &Project, name: Option<&str>, model: Option<&str>) -> Result<Tokenizer> {
    let factors = &project.tokens.factors;
    if let Some(n) = name {
        return Tokenizer::from_name(n, factors);
    }
    Ok(model.and_then(|m| Tokenizer::for_model(m, factors)).unwrap_or(project.tokens.tokenizer))
}

/// Every profile × transport cell of the project with the request's runtime values; native
/// cells use `provider`.
pub fn matrix_cells(project: &Project, runtime: &Runtime, provider: Provider) -> Result<Vec<Compiled>> {
    let mut out = Vec::new();
    for profile in project.profiles.keys() {
        for transport in &project.transports {
            let sel = Selection { profile: profile.clone(), reason: "matrix".into() };
            out.push(crate::compile::compile_cell(project, sel, *transport, provider, runtime.clone())?);
        }
    }
    Ok(out)
}

/// The one-line summary of a cell in `--matrix` mode.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MatrixRow {
    /// `profile.transport[.provider]`.
    pub cell: String,
    /// Non-empty sections.
    pub sections: usize,
    /// Active tools.
    pub tools: usize,
    /// Totals.
    #[serde(flatten)]
    pub totals: Totals,
    /// Whether every budget holds.
    pub within_budget: bool,
    /// Whether counts are exact.
    pub exact: bool,
}

impl From<&Report> for MatrixRow {
    fn from(r: &Report) -> Self {
        MatrixRow {
            cell: r.cell(),
            sections: r.sections.len(),
            tools: r.tools.len(),
            totals: r.totals,
            within_budget: !r.over_budget(),
            exact: r.tokenizer.exact,
        }
    }
}
