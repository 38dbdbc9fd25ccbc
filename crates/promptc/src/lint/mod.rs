//! `promptc check`: rules that catch broken prompts before they ship. Every rule has a stable
//! code, a default level, a one-line summary and a long explanation (`--explain`); each lives
//! in its own file under `rules/`, registered in `registry`.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::code::{Level, RuleCode};
use crate::compile::Compiled;
use crate::diagnostic::{Diagnostic, Label, Severity};
use crate::error::Result;
use crate::measure::account::Account;
use crate::measure::tokens::Counters;
use crate::model::Project;
use crate::resolve::matrix::Cell;

mod format;
mod reach;
pub mod registry;
mod rules;

pub use format::Format;
pub use registry::{explain, known_code, Rule, RULES};
use rules::p004_cache_unfriendly_order;
use rules::{Run, ENTRIES};

/// A compiled cell with its accounts (one per provider for native cells).
#[derive(Clone)]
pub(crate) struct CellView {
    /// The compiled cell's identity ([`Compiled::cell`]), read once for the rules.
    pub(crate) cell: Cell,
    pub(crate) compiled: Compiled,
    pub(crate) accounts: Vec<Account>,
}

impl CellView {
    /// The declaration of the cell's profile.
    pub(crate) fn profile_label(&self, project: &Project) -> Label {
        project
            .profiles
            .get(&self.cell.profile)
            .map_or_else(|| Label::file(project.fs().display(&project.manifest)), |p| project.label(&p.span))
    }
}

/// The cacheable prefix of one cell and provider: the account's figures (see
/// `measure::account::CacheSplit`), the same `report` shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct CachePrefix {
    /// The cell and provider.
    pub cell: String,
    /// Tokens caching can reuse: the request (tools, prompt, harness messages) before the first
    /// byte another session changes.
    pub cacheable: u64,
    /// Tokens sent in all.
    pub total: u64,
    /// What holds that byte (a section, `(outside sections)`, `tool NAME`, `message N`), if any.
    pub ends_at: Option<String>,
}

/// What `check` found.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct CheckResult {
    /// Diagnostics after levels were applied (allowed ones removed).
    #[serde(skip)]
    pub diagnostics: Vec<Diagnostic>,
    /// Cacheable prefix per cell.
    pub cache_prefixes: Vec<CachePrefix>,
}

impl CheckResult {
    /// Whether any error remains.
    pub fn failed(&self) -> bool {
        self.diagnostics.iter().any(|d| d.severity == Severity::Error)
    }
}

/// Effective level of each rule: defaults, then the project's `check.levels`, then `overrides`
/// (command-line `-A/-W/-D`, in order).
pub fn levels(project: &Project, overrides: &[(RuleCode, Level)]) -> BTreeMap<RuleCode, Level> {
    let mut out: BTreeMap<RuleCode, Level> = RULES.iter().map(|r| (r.code, r.default)).collect();
    out.extend(project.lint.levels.iter().chain(overrides).copied());
    out
}

impl Project {
    /// Problems found while loading that do not stop a command, less those the project's own
    /// `check.levels` silence (`check` reports them itself, with every level applied).
    pub fn warnings(&self) -> Vec<&Diagnostic> {
        let levels = levels(self, &[]);
        self.warnings.iter().filter(|w| w.code.and_then(|c| levels.get(&c)) != Some(&Level::Allow)).collect()
    }
}

/// A finding of rule `code` (its level is applied later).
pub(crate) fn finding(code: RuleCode, message: String) -> Diagnostic {
    let mut d = Diagnostic::error(message);
    d.code = Some(code);
    d
}

/// Where `needle` first appears in project file `rel` (a template: prose has no spans), as a
/// label covering it; the whole file if absent.
pub(crate) fn find_in_file(project: &Project, rel: &str, needle: &str) -> Label {
    let Some(f) = project.files.get(rel) else { return Label::file(project.fs().display(rel)) };
    match f.text.find(needle) {
        Some(start) => f.label_bytes(start, start + needle.len()),
        None => Label::file(&f.display),
    }
}

/// Compile and account every cell of the matrix (cases and sub-agents included), then the cells
/// of the switch values no matrix cell has (`reach`); the notes say which of those were left out.
fn compile_all(project: &Project, counters: &mut Counters) -> Result<(Vec<CellView>, Vec<CellView>, Vec<Diagnostic>)> {
    let matrix = views(project, crate::compile::compile_matrix(project)?, counters)?;
    let (compiled, notes) = reach::compile_unreached(project)?;
    let reached = views(project, compiled, counters)?;
    Ok((matrix, reached, notes))
}

/// Compiled cells with their accounts.
fn views(project: &Project, compiled: Vec<Compiled>, counters: &mut Counters) -> Result<Vec<CellView>> {
    if compiled.is_empty() {
        return Ok(Vec::new());
    }
    let (accounts, _) = crate::measure::account::accounts(project, &compiled, None, None, counters)?;
    Ok(compiled
        .into_iter()
        .map(|compiled| {
            let cell = compiled.cell();
            let stem = cell.stem();
            let accounts = accounts.iter().filter(|a| a.cell == stem).cloned().collect();
            CellView { cell, compiled, accounts }
        })
        .collect())
}

/// Run every rule over every cell and apply levels.
pub fn check(project: &Project, overrides: &[(RuleCode, Level)], counters: &mut Counters) -> Result<CheckResult> {
    let (mut views, reached, notes) = compile_all(project, counters)?;
    let levels = levels(project, overrides);
    // Findings, each with the level of the profiles it was found in where a profile has its own.
    let mut found: Vec<(Diagnostic, Option<Level>)> = Vec::new();
    // The cacheable prefix of every cell of the matrix, reported whatever P004's level (the
    // cells of values no case sets are linted, not listed).
    let cache_prefixes = p004_cache_unfriendly_order::prefixes(&views);
    views.extend(reached);
    let mut rest = notes;
    for (rule, run) in ENTRIES {
        match run {
            Run::Cells(check) => found.extend(run_on_cells(project, &views, rule.code, check, overrides, &levels)),
            Run::Project(check) => check(project, &mut rest),
            Run::Load => {}
        }
    }
    // Load-time warnings (sub-agent recursion, roles, dropped contributions) are findings too.
    rest.extend(project.warnings.iter().cloned());
    unsent_fields(project, &mut rest);
    found.extend(rest.into_iter().map(|d| (d, None)));
    let mut diagnostics: Vec<Diagnostic> = found
        .into_iter()
        .filter_map(|(mut d, own)| {
            // A load warning without a rule code (a role left to a profile's old name, a dropped
            // contribution) keeps its own severity: no level can allow or deny it.
            let Some(code) = d.code else { return Some(d) };
            let level = own.or_else(|| levels.get(&code).copied()).unwrap_or(Level::Deny);
            d.severity = match level {
                Level::Allow => return None,
                Level::Warn => Severity::Warning,
                Level::Deny => Severity::Error,
            };
            Some(d)
        })
        .collect();
    diagnostics.sort_by(|a, b| (&a.code, position_key(a)).cmp(&(&b.code, position_key(b))));
    Ok(CheckResult { diagnostics, cache_prefixes })
}

/// A note for each provider that tools carry `provider_fields` for but the project does not
/// enable: carried, sent to no one (an MCP import whose `mcp` was taken out of `providers:`).
fn unsent_fields(project: &Project, out: &mut Vec<Diagnostic>) {
    let mut by_provider: BTreeMap<crate::model::provider::Provider, Vec<&crate::model::catalog::Tool>> =
        BTreeMap::new();
    for t in project.catalog.tools() {
        for p in t.provider_fields.keys().filter(|p| !project.providers.contains(p)) {
            by_provider.entry(*p).or_default().push(t);
        }
    }
    for (p, tools) in by_provider {
        let names: Vec<String> = tools.iter().take(5).map(|t| format!("`{}`", t.name)).collect();
        let more = if tools.len() > 5 { format!(" and {} more", tools.len() - 5) } else { String::new() };
        out.push(
            Diagnostic::note(format!(
                "{} tool{} carr{} `provider_fields` for {p}, which this project does not enable: {}{more}",
                tools.len(),
                if tools.len() == 1 { "" } else { "s" },
                if tools.len() == 1 { "ies" } else { "y" },
                names.join(", ")
            ))
            .with_label(project.label(&tools[0].decl_span))
            .with_help(format!("add `{p}` to `providers:` to send them, or leave them out of the catalog")),
        );
    }
}

/// A per-cell rule's findings: over every cell, or, where the project sets the rule's level per
/// profile (and the command line does not override it), over each level's group of cells with
/// that level attached.
fn run_on_cells(
    project: &Project,
    views: &[CellView],
    code: RuleCode,
    check: fn(&Project, &[CellView], &mut Vec<Diagnostic>),
    overrides: &[(RuleCode, Level)],
    levels: &BTreeMap<RuleCode, Level>,
) -> Vec<(Diagnostic, Option<Level>)> {
    let by_profile: Vec<&(String, RuleCode, Level)> =
        project.lint.profile_levels.iter().filter(|(_, c, _)| *c == code).collect();
    // The command line's -A/-W/-D win over the project's levels, per profile too.
    if by_profile.is_empty() || overrides.iter().any(|(c, _)| *c == code) {
        let mut out = Vec::new();
        check(project, views, &mut out);
        return out.into_iter().map(|d| (d, None)).collect();
    }
    let level_of =
        |profile: &str| by_profile.iter().rev().find(|(p, _, _)| p == profile).map_or(levels[&code], |(_, _, l)| *l);
    let mut found = Vec::new();
    for level in [Level::Warn, Level::Deny] {
        let group: Vec<CellView> = views.iter().filter(|v| level_of(&v.cell.profile) == level).cloned().collect();
        if group.is_empty() {
            continue;
        }
        let mut out = Vec::new();
        check(project, &group, &mut out);
        found.extend(out.into_iter().map(|d| (d, Some(level))));
    }
    found
}

fn position_key(d: &Diagnostic) -> (String, usize, usize, String) {
    let (f, l, c) = d.label.as_ref().map_or((String::new(), 0, 0), |l| {
        (l.file.clone(), l.position.map_or(0, |p| p.line), l.position.map_or(0, |p| p.column))
    });
    (f, l, c, d.message.clone())
}
