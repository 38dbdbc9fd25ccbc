//! The accounts of many cells — the whole matrix — as a pipeline: one thread counts while this
//! one compiles and prepares the next cells, and a cell is accounted, then let go, as soon as
//! its texts are counted. Only the cells still waiting for counts are held, so memory stays
//! bounded however large the matrix, and every distinct text is still counted once.

use std::borrow::Borrow;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use super::build::{account_primed, tokenizer_for, Context};
use super::prepare::{add_tool_sources, cell_texts, OwnCounts, Places, Prepared, ToolCounts};
use super::Account;
use crate::compile::Compiled;
use crate::diagnostic::Diagnostic;
use crate::error::Result;
use crate::measure::tokens::{key_of, Background, Counters};
use crate::model::provider::Provider;
use crate::model::tokenizer::Tokenizer;
use crate::model::transport::Transport;
use crate::model::Project;
use crate::projection::ProjectionOptions;
use crate::resolve::tools::ActiveTool;

/// Prepared text that may wait for counts before preparing another cell waits instead (and
/// counts beside the counting thread while it waits). It bounds memory on large projects: each
/// byte of text is held with its cell and projections. Measured on the 1,050-tool benchmark
/// (1.11 s, 220 MB): 4 MB was 0.1 s slower at the same peak, 24 MB no faster.
const MAX_WAITING_BYTES: usize = 8 << 20;

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
    let cells = cells.into_iter().map(|c| c.map(Streamed::Fresh));
    let mut parts = ToolParts::default();
    accounts_reusing(project, cells, model, forced, counters, &mut parts, |cell, _| {
        if let Streamed::Fresh(c) = cell {
            done(c)
        }
    })
}

/// A cell of a streamed run: compiled now, or one whose accounts are known already (kept by
/// the compile cache from an earlier run over the same inputs).
pub enum Streamed<C> {
    /// A compiled cell, to be accounted.
    Fresh(C),
    /// A cell accounted before.
    Known(Known),
}

/// What a run needs of a cell accounted before: its accounts, and what the run would have
/// taken from the compiled cell (its warnings, and its transport for the providers' warnings),
/// so the report is the same, warnings and their order included.
#[derive(Debug, Clone)]
pub struct Known {
    /// The cell's transport.
    pub transport: Transport,
    /// What compiling it warned of.
    pub warnings: Vec<Diagnostic>,
    /// Its accounts, one per provider, in [`providers_of`] order.
    pub accounts: Arc<[Account]>,
}

/// [`accounts_streamed`] over cells some of which are [`Known`]: those are not counted again,
/// only their warnings taken, in order. The providers' parts of sets of tools are looked up in
/// (and kept in) `parts`, which a caller may keep from run to run. `done` gets each cell with
/// its accounts.
pub fn accounts_reusing<C: Borrow<Compiled>>(
    project: &Project,
    cells: impl IntoIterator<Item = Result<Streamed<C>>>,
    model: Option<&str>,
    forced: Option<Tokenizer>,
    counters: &mut Counters,
    parts: &mut ToolParts,
    mut done: impl FnMut(Streamed<C>, &[Account]),
) -> Result<(Vec<Account>, Vec<Diagnostic>)> {
    let mut run = Run { project, model, forced, tokenizers: Vec::new(), shared: parts, warnings: Vec::new() };
    let mut sources = HashMap::new();
    let mut out = Vec::new();
    counters.with_background(|counters, bg| {
        let mut waiting: VecDeque<Waiting<C>> = VecDeque::new();
        let mut held = 0;
        let mut cells = cells.into_iter();
        loop {
            let more = match cells.next() {
                Some(c) => {
                    let w = run.prepare(c?, counters, bg)?;
                    held += w.bytes;
                    waiting.push_back(w);
                    true
                }
                None => false,
            };
            // Account every cell whose counts are in; wait for them when too much is held, or
            // for every one once there are no more cells.
            while let Some(front) = waiting.front() {
                if !bg.wait(counters, front.ticket, !more || held > MAX_WAITING_BYTES)? {
                    break;
                }
                let Some(w) = waiting.pop_front() else { break };
                held -= w.bytes;
                let from = out.len();
                out.extend(run.finish(&w, &mut sources, counters)?);
                done(w.cell, &out[from..]);
            }
            if !more {
                return Ok(());
            }
        }
    })?;
    Ok((out, run.warnings))
}

/// A cell prepared for every provider, its texts submitted for counting.
struct Waiting<C> {
    cell: Streamed<C>,
    /// The cache keys of the cell's own texts ([`cell_texts`]), in order.
    own_keys: Vec<String>,
    /// Per provider: its tokenizer, and its part of the tools (native cells).
    work: Vec<(Option<Provider>, Tokenizer, Option<Tools>)>,
    /// Counted once the counting thread has reached this ticket.
    ticket: u64,
    /// Bytes of text held.
    bytes: usize,
}

/// A provider's part of a cell's tools: prepared (its texts submitted for counting), or
/// counted already for an earlier cell with the same tools.
#[derive(Clone)]
enum Tools {
    Prepared(Arc<Prepared>),
    Counted(Arc<ToolCounts>),
}

/// How many sets of tools [`ToolParts`] remembers the counts of. A set costs a copy of its
/// tools (a few MB for a thousand tools) and its counts (a few kB).
const SHARED_TOOL_SETS: usize = 8;

/// One set of tools, the projection options and the tokenizer its parts were made with, and
/// per provider its part: what a part is computed from, whole, so an equal set is the same
/// part in any run.
struct ToolSet {
    tools: Vec<ActiveTool>,
    options: ProjectionOptions,
    parts: Vec<(Provider, Tokenizer, Tools)>,
}

/// The providers' parts of the last few sets of tools of native cells (newest last, at most
/// [`SHARED_TOOL_SETS`]): a profile's cases mostly have the same tools, and projecting,
/// serialising and counting them again is most of the work of a cell. A caller that keeps one
/// from run to run (the compile cache) reuses a part whenever the tools are equal again.
#[derive(Default)]
pub struct ToolParts {
    sets: VecDeque<ToolSet>,
    /// Parts prepared (projected and serialised) so far.
    prepared: usize,
}

impl ToolParts {
    /// How many providers' parts of tools were prepared (projected, serialised) so far; a part
    /// found again is not counted.
    pub fn prepared(&self) -> usize {
        self.prepared
    }
}

/// What the cells of one run share: the tokenizer of each provider, found once, and the
/// providers' parts of sets of tools ([`ToolParts`]); a part is kept as counts once counted,
/// its texts let go.
struct Run<'a> {
    project: &'a Project,
    model: Option<&'a str>,
    forced: Option<Tokenizer>,
    tokenizers: Vec<(Option<Provider>, Tokenizer)>,
    shared: &'a mut ToolParts,
    /// Each once.
    warnings: Vec<Diagnostic>,
}

impl Run<'_> {
    /// Keep `w` unless a warning with its message is kept already (cells repeat them).
    fn warn_once(&mut self, w: Diagnostic) {
        if !self.warnings.iter().any(|x| x.message == w.message) {
            self.warnings.push(w);
        }
    }

    /// The tokenizer of `provider`'s cells (its warning kept, once).
    fn tokenizer(&mut self, provider: Option<Provider>) -> Tokenizer {
        if let Some((_, t)) = self.tokenizers.iter().find(|(p, _)| *p == provider) {
            return *t;
        }
        let (t, warning) = tokenizer_for(self.project, provider, self.model, self.forced);
        if let Some(w) = warning {
            self.warn_once(w);
        }
        self.tokenizers.push((provider, t));
        t
    }

    /// Prepare `cell` for each of its providers and submit its texts for counting: the
    /// cell's own once per encoding, the tools' once per tool set and provider. A known cell
    /// only gives its warnings, in the order a fresh one would.
    fn prepare<C: Borrow<Compiled>>(
        &mut self,
        cell: Streamed<C>,
        counters: &mut Counters,
        bg: &mut Background,
    ) -> Result<Waiting<C>> {
        let c = match &cell {
            Streamed::Fresh(c) => c.borrow(),
            Streamed::Known(k) => {
                for w in &k.warnings {
                    self.warn_once(w.clone());
                }
                for provider in providers_of(self.project, k.transport) {
                    self.tokenizer(provider);
                }
                // Ticket 0 is reached at once: it waits only behind the cells before it.
                return Ok(Waiting { cell, own_keys: Vec::new(), work: Vec::new(), ticket: 0, bytes: 0 });
            }
        };
        // What compiling the cell warned of (a dropped contribution, a share it cannot count).
        for w in &c.warnings {
            self.warn_once(w.clone());
        }
        let texts = cell_texts(c);
        let mut bytes: usize = texts.iter().map(|t| t.len()).sum();
        let own_keys: Vec<String> = texts.iter().map(|t| key_of(t)).collect();
        let own: Vec<(String, &str)> =
            own_keys.iter().zip(&texts).filter(|(_, t)| !t.is_empty()).map(|(k, t)| (k.clone(), *t)).collect();
        let (mut work, mut encodings, mut ticket) = (Vec::new(), Vec::new(), 0);
        for provider in providers_of(self.project, c.transport) {
            let tokenizer = self.tokenizer(provider);
            if !encodings.contains(&tokenizer.encoding()) {
                encodings.push(tokenizer.encoding());
                ticket = bg.submit_keyed(counters, tokenizer.encoding(), own.clone())?;
            }
            let tools = provider.filter(|_| c.transport == Transport::Native).map(|p| {
                let (tools, fresh) = self.tools(c, p, tokenizer);
                (tools, fresh)
            });
            if let Some((Tools::Prepared(prepared), true)) = &tools {
                let texts = prepared.tool_part_texts();
                bytes += texts.iter().map(|t| t.len()).sum::<usize>();
                ticket = bg.submit(counters, &tokenizer, &texts)?;
            }
            work.push((provider, tokenizer, tools.map(|(t, _)| t)));
        }
        Ok(Waiting { cell, own_keys, work, ticket, bytes })
    }

    /// The part of `provider` with `tokenizer` of the set of tools equal to `tools`, if
    /// remembered.
    fn part_of(&mut self, tools: &[ActiveTool], provider: Provider, tokenizer: Tokenizer) -> Option<&mut Tools> {
        let options = ProjectionOptions::of(self.project);
        let set = self.shared.sets.iter_mut().find(|s| s.options == options && s.tools == tools)?;
        set.parts.iter_mut().find(|(p, t, _)| *p == provider && *t == tokenizer).map(|(_, _, part)| part)
    }

    /// Native cell `c`'s tools for `p`: shared with an earlier cell with the same tools, or
    /// prepared now (`true`).
    fn tools(&mut self, c: &Compiled, p: Provider, tokenizer: Tokenizer) -> (Tools, bool) {
        if let Some(part) = self.part_of(&c.tools, p, tokenizer) {
            return (part.clone(), false);
        }
        self.shared.prepared += 1;
        let prepared = Tools::Prepared(Arc::new(Prepared::new(self.project, c, p)));
        let options = ProjectionOptions::of(self.project);
        let sets = &mut self.shared.sets;
        let set = match sets.iter().position(|s| s.options == options && s.tools == c.tools) {
            Some(i) => i,
            None => {
                if sets.len() == SHARED_TOOL_SETS {
                    sets.pop_front();
                }
                sets.push_back(ToolSet { tools: c.tools.clone(), options, parts: Vec::new() });
                sets.len() - 1
            }
        };
        if let Some(s) = sets.get_mut(set) {
            s.parts.push((p, tokenizer, prepared.clone()));
        }
        (prepared, true)
    }

    /// The counts of native cell `c`'s `tools` for `p`, counted now if they are not yet, and
    /// remembered as counts.
    fn counted(
        &mut self,
        c: &Compiled,
        p: Provider,
        tokenizer: &Tokenizer,
        tools: &Tools,
        counters: &mut Counters,
    ) -> Result<Arc<ToolCounts>> {
        let prepared = match tools {
            Tools::Counted(counted) => return Ok(Arc::clone(counted)),
            Tools::Prepared(prepared) => prepared,
        };
        if let Some(Tools::Counted(counted)) = self.part_of(&c.tools, p, *tokenizer) {
            return Ok(Arc::clone(counted));
        }
        let counted = Arc::new(prepared.counts(tokenizer, counters)?);
        if let Some(shared) = self.part_of(&c.tools, p, *tokenizer) {
            *shared = Tools::Counted(Arc::clone(&counted));
        }
        Ok(counted)
    }

    /// The accounts of a cell whose texts are counted.
    fn finish<C: Borrow<Compiled>>(
        &mut self,
        w: &Waiting<C>,
        sources: &mut HashMap<String, String>,
        counters: &mut Counters,
    ) -> Result<Vec<Account>> {
        let c = match &w.cell {
            Streamed::Fresh(c) => c.borrow(),
            Streamed::Known(k) => return Ok(k.accounts.to_vec()),
        };
        add_tool_sources(sources, self.project, c.tools.iter().map(|t| t.name.as_str()));
        let mut out = Vec::new();
        let places = Places::of(c);
        for (provider, tokenizer, tools) in &w.work {
            let counted = match (provider, tools) {
                (Some(p), Some(tools)) => Some(self.counted(c, *p, tokenizer, tools, counters)?),
                _ => None,
            };
            let own =
                OwnCounts::new(c, &places, |i, text, points| counters.marks(tokenizer, &w.own_keys[i], text, points))?;
            let ctx = Context { project: self.project, c, provider: *provider, tokenizer, model: self.model, sources };
            out.push(account_primed(&ctx, counted.as_deref(), &own, counters)?);
        }
        Ok(out)
    }
}
