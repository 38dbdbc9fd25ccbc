//! The accounts of many cells — the whole matrix — as a pipeline: one thread counts while this
//! one compiles and prepares the next cells, and a cell is accounted, then let go, as soon as
//! its texts are counted. Only the cells still waiting for counts are held, so memory stays
//! bounded however large the matrix, and every distinct text is still counted once.

use std::borrow::Borrow;
use std::collections::{HashMap, VecDeque};

use super::build::{account_primed, tokenizer_for, Context};
use super::prepare::{add_tool_sources, Prepared};
use super::Account;
use crate::compile::Compiled;
use crate::diagnostic::Diagnostic;
use crate::error::Result;
use crate::measure::tokens::{Background, Counters};
use crate::model::provider::Provider;
use crate::model::tokenizer::Tokenizer;
use crate::model::transport::Transport;
use crate::model::Project;

/// Prepared text that may wait for counts before preparing another cell waits instead. It
/// bounds memory on large projects (each byte of text is held with its cell and projections)
/// while leaving the counting thread enough queued work never to idle.
const MAX_WAITING_BYTES: usize = 24 << 20;

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
    compiled: &[Compiled],
    model: Option<&str>,
    forced: Option<Tokenizer>,
    counters: &mut Counters,
) -> Result<(Vec<Account>, Vec<Diagnostic>)> {
    accounts_streamed(project, compiled.iter().map(Ok), model, forced, counters, |_| {})
}

/// [`accounts`] of the cells `cells` yields, made one at a time (compiled on demand, say):
/// each is handed to `done` once its accounts are made, so a caller that does not keep them
/// holds only the few cells waiting for counts.
pub fn accounts_streamed<C: Borrow<Compiled>>(
    project: &Project,
    cells: impl IntoIterator<Item = Result<C>>,
    model: Option<&str>,
    forced: Option<Tokenizer>,
    counters: &mut Counters,
    mut done: impl FnMut(C),
) -> Result<(Vec<Account>, Vec<Diagnostic>)> {
    let mut run = Run { project, model, forced, tokenizers: Vec::new(), warnings: Vec::new() };
    let mut sources = HashMap::new();
    let mut out = Vec::new();
    counters.with_background(|counters, bg| {
        let mut waiting: VecDeque<Waiting<C>> = VecDeque::new();
        let mut held = 0;
        for c in cells {
            let w = run.prepare(c?, counters, bg)?;
            held += w.bytes;
            waiting.push_back(w);
            // Account every cell whose counts are in; wait for them when too much is held.
            while let Some(front) = waiting.front() {
                if !bg.wait(counters, front.ticket, held > MAX_WAITING_BYTES)? {
                    break;
                }
                let Some(w) = waiting.pop_front() else { break };
                held -= w.bytes;
                out.extend(run.finish(&w, &mut sources, counters)?);
                done(w.cell);
            }
        }
        while let Some(w) = waiting.pop_front() {
            bg.wait(counters, w.ticket, true)?;
            out.extend(run.finish(&w, &mut sources, counters)?);
            done(w.cell);
        }
        Ok(())
    })?;
    Ok((out, run.warnings))
}

/// A cell prepared for every provider, its texts submitted for counting.
struct Waiting<C> {
    cell: C,
    work: Vec<(Option<Provider>, Tokenizer, Prepared)>,
    /// Counted once the counting thread has reached this ticket.
    ticket: u64,
    /// Bytes of text held.
    bytes: usize,
}

/// What every cell of one run shares: the tokenizer of each provider, found once.
struct Run<'a> {
    project: &'a Project,
    model: Option<&'a str>,
    forced: Option<Tokenizer>,
    tokenizers: Vec<(Option<Provider>, Tokenizer)>,
    /// Each once.
    warnings: Vec<Diagnostic>,
}

impl Run<'_> {
    /// The tokenizer of `provider`'s cells (its warning kept, once).
    fn tokenizer(&mut self, provider: Option<Provider>) -> Tokenizer {
        if let Some((_, t)) = self.tokenizers.iter().find(|(p, _)| *p == provider) {
            return *t;
        }
        let (t, warning) = tokenizer_for(self.project, provider, self.model, self.forced);
        if let Some(w) = warning {
            if !self.warnings.iter().any(|x| x.message == w.message) {
                self.warnings.push(w);
            }
        }
        self.tokenizers.push((provider, t));
        t
    }

    /// Prepare `cell` for each of its providers and submit its texts for counting.
    fn prepare<C: Borrow<Compiled>>(
        &mut self,
        cell: C,
        counters: &mut Counters,
        bg: &mut Background,
    ) -> Result<Waiting<C>> {
        let c = cell.borrow();
        let mut work = Vec::new();
        let (mut ticket, mut bytes) = (0, 0);
        for provider in providers_of(self.project, c.transport) {
            let tokenizer = self.tokenizer(provider);
            let prepared = Prepared::new(self.project, c, provider);
            let texts = prepared.texts(c);
            bytes += texts.iter().map(|t| t.len()).sum::<usize>();
            ticket = bg.submit(counters, &tokenizer, &texts)?;
            work.push((provider, tokenizer, prepared));
        }
        Ok(Waiting { cell, work, ticket, bytes })
    }

    /// The accounts of a cell whose texts are counted.
    fn finish<C: Borrow<Compiled>>(
        &self,
        w: &Waiting<C>,
        sources: &mut HashMap<String, String>,
        counters: &mut Counters,
    ) -> Result<Vec<Account>> {
        let c = w.cell.borrow();
        add_tool_sources(sources, self.project, c.tools.iter().map(|t| t.name.as_str()));
        let mut out = Vec::new();
        for (provider, tokenizer, prepared) in &w.work {
            let ctx = Context { project: self.project, c, provider: *provider, tokenizer, model: self.model, sources };
            out.push(account_primed(&ctx, prepared, counters)?);
        }
        Ok(out)
    }
}
