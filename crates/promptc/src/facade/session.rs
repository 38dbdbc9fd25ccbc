//! A report session: the one policy for what a caller keeps between reports and what it reads
//! and writes on disk. The CLI's `report` and `watch report`, the language server and the
//! bindings all report through it, so none of them chooses among the facade's calls.

use std::path::PathBuf;

use crate::diagnostic::Diagnostic;
use crate::error::Result;
use crate::measure::tokens::CacheStats;
use crate::memo::{CompileCache, CompileStats};
use crate::model::Project;
use crate::resolve::Request;

use super::report::{measured, Report, ReportOptions};
use super::tokens::TokenCounter;

/// What a caller keeps from one report to the next, and how the project's caches on disk (its
/// `tokens: {cache:}` file and the compile cache beside it) are used:
///
/// - [`Session::once`] is one report (a command): the caches on disk are read and, when it is a
///   matrix report, the compiled cells are kept there for the next process;
/// - [`Session::kept`] follows edits (`watch`, an editor): the tokenizers, the counts and the
///   compiled cells stay in memory, so a re-run recompiles and recounts only what an edit
///   reached, and the same report comes out, byte for byte.
///
/// Either way, with `disk` false nothing is read from or written to disk.
#[derive(Debug)]
pub struct Session {
    disk: bool,
    /// The counter, with the token cache file it was made for (a project that names another
    /// file gets a new counter).
    counter: Option<(Option<PathBuf>, TokenCounter)>,
    /// The compiled cells kept across runs ([`Session::kept`] only).
    kept: Option<CompileCache>,
    /// What the compile cache did in the last report.
    stats: Option<CompileStats>,
}

/// A report and what producing it did to the caches.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Reported {
    /// The report.
    pub report: Report,
    /// The report as a self-contained HTML page, when asked for.
    pub html: Option<String>,
    /// What the compile cache on disk did (a one-off matrix report with the project's caches).
    pub compile_cache: Option<CompileStats>,
    /// The token cache's hits and misses; `None` without a cache file.
    pub token_cache: Option<CacheStats>,
    /// Problems with the caches on disk (ignored, or not saved): the report is right either way.
    pub cache_warnings: Vec<Diagnostic>,
}

impl Session {
    /// A session for one report; `disk`: use the project's caches on disk.
    pub fn once(disk: bool) -> Session {
        Session { disk, counter: None, kept: None, stats: None }
    }

    /// A session for reports that follow edits, keeping tokenizers, counts and compiled cells
    /// in memory; `disk`: also read and write the project's token cache file.
    pub fn kept(disk: bool) -> Session {
        Session { disk, counter: None, kept: Some(CompileCache::new()), stats: None }
    }

    /// What the compile cache did in the last report (zero for a session that keeps none).
    pub fn compile_stats(&self) -> CompileStats {
        self.stats.unwrap_or_default()
    }

    /// The report of `request` (with `options.matrix`, of every cell), as [`crate::report()`]
    /// computes it; with `html`, also the page [`crate::report_html`] builds.
    pub fn report(
        &mut self,
        project: &Project,
        request: &Request,
        options: &ReportOptions,
        html: bool,
    ) -> Result<Reported> {
        let file = project.token_cache().filter(|_| self.disk);
        if self.counter.as_ref().is_some_and(|(f, _)| *f != file) {
            self.counter = None;
        }
        let disk = self.disk;
        let (_, counter) = self.counter.get_or_insert_with(|| (file, TokenCounter::for_project(project, None, disk)));
        // A one-off matrix report keeps its compiled cells on disk for the next process; a kept
        // session holds them in memory; a single cell's report caches none.
        let mut own = (self.kept.is_none() && !html && options.matrix && self.disk && project.token_cache().is_some())
            .then(|| CompileCache::for_project(project, true));
        let cache = if html { None } else { self.kept.as_mut().or(own.as_mut()) };
        let (compiled, report) = measured(project, request, options, html, counter, cache)?;
        let html = match html {
            true => Some(crate::output::html::report::render(project, &compiled, &report.accounts)?),
            false => None,
        };
        counter.save();
        let mut cache_warnings: Vec<Diagnostic> = counter.warnings().into_iter().cloned().collect();
        let token_cache = counter.cache_stats();
        let mut compile_cache = None;
        if let Some(cache) = &mut own {
            cache.save();
            cache_warnings.extend(cache.warnings().iter().cloned());
            compile_cache = cache.on_disk().then(|| cache.stats());
        }
        self.stats = self.kept.as_ref().map(CompileCache::stats).or(compile_cache);
        Ok(Reported { report, html, compile_cache, token_cache, cache_warnings })
    }
}
