//! Reports: what cells cost, as data and as an HTML page, and the texts a matrix report counts.

use std::borrow::Borrow;

use crate::compile::Compiled;
use crate::diagnostic::Diagnostic;
use crate::error::Result;
use crate::measure::account::Account;
use crate::memo::CompileCache;
use crate::model::tokenizer::Tokenizer;
use crate::model::Project;
use crate::resolve::Request;

use super::tokens::TokenCounter;

/// What a report covers and how it counts.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct ReportOptions {
    /// Count every cell with this tokenizer instead of each provider's (see [`tokenizer_named`](crate::tokenizer_named)).
    pub tokenizer: Option<Tokenizer>,
    /// Every cell of the snapshot matrix (profiles × cases × transports × providers, and
    /// sub-agents, each with its case's values) instead of the request's cell.
    pub matrix: bool,
}

impl ReportOptions {
    /// The defaults: the request's cell, each provider's own tokenizer.
    pub fn new() -> ReportOptions {
        ReportOptions::default()
    }

    /// Count with this tokenizer instead of each provider's.
    pub fn tokenizer(mut self, tokenizer: Option<Tokenizer>) -> ReportOptions {
        self.tokenizer = tokenizer;
        self
    }

    /// Cover every cell of the snapshot matrix instead of the request's cell.
    pub fn matrix(mut self, matrix: bool) -> ReportOptions {
        self.matrix = matrix;
        self
    }
}

/// A report: the accounts of the cells it covers, and anything to warn about (a model id
/// promptc knows no tokenizer for).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Report {
    /// One account per cell and provider.
    pub accounts: Vec<Account>,
    /// Warnings, each once.
    pub warnings: Vec<Diagnostic>,
}

/// What the request's cell costs (or, with `options.matrix`, every cell of the matrix): sent
/// and billed tokens and bytes per section, tool, parameter and slot; the cacheable prefix;
/// budgets. The same figures as `summary.json`, `diff` and `check` give for the same cells.
/// Without a nonce in the request, untrusted text is wrapped with the cell's derived nonce, as
/// in snapshots, so the figures do not change from run to run.
pub fn report(
    project: &Project,
    request: &Request,
    options: &ReportOptions,
    tokens: &mut TokenCounter,
) -> Result<Report> {
    measured(project, request, options, false, tokens, None).map(|(_, report)| report)
}

/// [`report`], keeping in `cache` what a matrix run makes of each cell and taking from it
/// every cell whose inputs (the files it read, promptc's version, the model and tokenizer)
/// are as they were: a re-run recompiles and recounts only the cells an edit reached, and the
/// same report comes out, byte for byte. A single cell's report does not use the cache.
pub fn report_cached(
    project: &Project,
    request: &Request,
    options: &ReportOptions,
    tokens: &mut TokenCounter,
    cache: &mut CompileCache,
) -> Result<Report> {
    measured(project, request, options, false, tokens, Some(cache)).map(|(_, report)| report)
}

/// A report as a self-contained HTML page, and the report it shows.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct HtmlReport {
    /// The accounts the page shows (budgets and warnings for the caller to act on).
    pub report: Report,
    /// The page: one file with inline CSS, script and data, loading nothing.
    pub html: String,
}

/// [`report`] as a page to open in a browser: the matrix overview (every cell's sent and
/// billed tokens and budget status, sortable), per cell a treemap of sections, tools and
/// parameters sized by tokens with the cacheable prefix marked, the rendered prompt by
/// section and the tool JSON per provider, and a comparison of any two cells. The page embeds
/// the document `report --format json` prints for the same cells, so its numbers are those.
pub fn report_html(
    project: &Project,
    request: &Request,
    options: &ReportOptions,
    tokens: &mut TokenCounter,
) -> Result<HtmlReport> {
    let (compiled, report) = measured(project, request, options, true, tokens, None)?;
    let html = crate::output::html::report::render(project, &compiled, &report.accounts)?;
    Ok(HtmlReport { report, html })
}

/// The accounts of the cells a report covers, and with `keep` the cells compiled (else none).
pub(super) fn measured(
    project: &Project,
    request: &Request,
    options: &ReportOptions,
    keep: bool,
    tokens: &mut TokenCounter,
    cache: Option<&mut CompileCache>,
) -> Result<(Vec<Compiled>, Report)> {
    let runtime = crate::resolve::runtime::Runtime::resolve(project, request)?;
    let model = request.model.clone().or_else(|| runtime.model.clone());
    // Build the tokenizer while the cells compile (unless the disk cache answers everything).
    tokens.counters.prefetch(options.tokenizer.unwrap_or(project.tokens.tokenizer).encoding());
    if !options.matrix {
        project.templates.work().open();
        let mut cell = crate::resolve::resolve_with(project, request, runtime)?;
        let id = crate::resolve::matrix::Cell {
            profile: cell.selection.profile.clone(),
            case: None,
            transport: cell.transport,
            subagent: cell.subagent.clone(),
        };
        if request.nonce.is_none() {
            cell.runtime.nonce = crate::resolve::matrix::case_runtime(project, None, &id.stem()).nonce;
        }
        let provider = cell.provider;
        let c = crate::compile::compile_resolved(project, cell)?;
        let (tokenizer, warning) =
            crate::measure::account::tokenizer_for(project, c.provider, model.as_deref(), options.tokenizer);
        let a = crate::measure::account::account(
            project,
            &c,
            Some(provider),
            &tokenizer,
            model.as_deref(),
            &mut tokens.counters,
        )?;
        let warnings = warning.into_iter().chain(c.warnings.iter().cloned()).collect();
        let report = Report { accounts: vec![a], warnings };
        return Ok((vec![c], report));
    }
    if let Some(cache) = cache {
        return matrix_cached(project, model.as_deref(), options.tokenizer, tokens, cache).map(|r| (Vec::new(), r));
    }
    // Cells are compiled one at a time as the counting thread takes their texts, and let go
    // once accounted unless the caller keeps them (the HTML page shows them).
    let cells = crate::resolve::matrix::cells(project);
    let budget = crate::compile::RunBudget::new(project)?;
    let compiled = cells.iter().map(|cell| {
        super::on_compile_stack(|| crate::compile::compile_matrix_cell(project, cell))
            .and_then(|c| budget.charge(&c).map(|_| c))
    });
    let mut kept = Vec::new();
    let (accounts, warnings) = crate::measure::account::accounts_streamed(
        project,
        compiled,
        model.as_deref(),
        options.tokenizer,
        &mut tokens.counters,
        |c| {
            if keep {
                kept.push(c)
            }
        },
    )?;
    Ok((kept, Report { accounts, warnings }))
}

/// The matrix report through the compile cache: a cell whose entry is fresh gives its accounts
/// (charged against the run's size cap as compiling it would be), the others are compiled,
/// accounted and kept. The same pipeline as without the cache, in the same order, so the
/// report and its warnings are the same.
fn matrix_cached(
    project: &Project,
    model: Option<&str>,
    forced: Option<Tokenizer>,
    tokens: &mut TokenCounter,
    cache: &mut CompileCache,
) -> Result<Report> {
    use crate::measure::account::Streamed;
    cache.begin();
    let cells = crate::resolve::matrix::cells(project);
    let run = crate::memo::RunKey { model, forced };
    let keys: Vec<Option<String>> = cells.iter().map(|c| CompileCache::key(project, c, &run)).collect();
    let known: Vec<_> = keys.iter().map(|k| k.as_deref().and_then(|k| cache.get(project, k))).collect();
    let budget = crate::compile::RunBudget::new(project)?;
    let items = cells.iter().zip(known).zip(&keys).map(|((cell, known), key)| match known {
        Some((k, bytes)) => budget.charge_named(bytes, &cell.stem()).map(|_| Streamed::Known(k)),
        None => super::on_compile_stack(|| crate::compile::compile_matrix_cell(project, cell))
            .and_then(|c| budget.charge(&c).map(|_| Streamed::Fresh(Keyed(c, key.clone())))),
    });
    let mut parts = std::mem::take(cache.parts());
    let result = crate::measure::account::accounts_reusing(
        project,
        items,
        model,
        forced,
        &mut tokens.counters,
        &mut parts,
        |cell, accounts| match cell {
            Streamed::Fresh(Keyed(c, Some(key))) => cache.put(project, key, &c, accounts),
            Streamed::Fresh(Keyed(_, None)) => cache.uncached(),
            Streamed::Known(_) => {}
        },
    );
    *cache.parts() = parts;
    cache.end();
    let (accounts, warnings) = result?;
    Ok(Report { accounts, warnings })
}

/// A cell compiled in a cached run, with its key in the cache (`None`: not cached).
struct Keyed(Compiled, Option<String>);

impl Borrow<Compiled> for Keyed {
    fn borrow(&self) -> &Compiled {
        &self.0
    }
}

/// Every distinct text `report --matrix` counts (for benchmarks that compare a report with
/// tokenising the same text alone).
#[doc(hidden)]
pub fn matrix_texts(project: &Project) -> Result<std::collections::BTreeSet<String>> {
    let compiled = crate::compile::compile_matrix(project)?;
    let mut out = std::collections::BTreeSet::new();
    for c in &compiled {
        for p in crate::measure::account::providers_of(project, c.transport) {
            out.extend(crate::measure::account::texts(project, c, p));
        }
    }
    out.remove("");
    Ok(out)
}
