//! Every cell of the project's matrix compiled at once, spread over the machine's cores.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crate::diagnostic::Diagnostic;
use crate::error::{Error, Result};
use crate::model::Project;
use promptc_template::work::RUN_FUEL;

use super::{compile_matrix_cell, Compiled};

/// The stack size of the threads promptc compiles on (template rendering recurses, up to the
/// project's limits).
pub(crate) const COMPILE_STACK: usize = 16 << 20;

/// What one run over the whole matrix may render in all (`limits.matrix_bytes`), charged as
/// each cell is compiled: a project multiplying a huge section by hundreds of profiles stops
/// at the cap, in seconds, instead of holding gigabytes of prompts. And what its cells' renders
/// may spend in all ([`RUN_FUEL`]): a section that loops for most of its instruction budget, in
/// 400 profiles, stops within seconds instead of running for minutes.
pub struct RunBudget<'p> {
    project: &'p Project,
    used: AtomicUsize,
    fuel: AtomicU64,
}

impl<'p> RunBudget<'p> {
    /// Nothing charged yet; an error when the project's matrix has more cells than a run may
    /// compile (`limits.matrix_cells`), before any is.
    pub fn new(project: &'p Project) -> Result<RunBudget<'p>> {
        let cells = crate::resolve::matrix::cells(project).len();
        let cap = project.templates.limits().matrix_cells;
        if cells > cap {
            return Err(Diagnostic::error(format!(
                "the matrix has {cells} cells, more than `limits.matrix_cells` ({cap})"
            ))
            .with_label(crate::diagnostic::Label::file(project.fs().display(&project.manifest)))
            .with_help(
                "every profile × case × transport (and each sub-agent's) is a cell that `snapshot`, `diff`, `check` \
                 and `report --matrix` compile, and `snapshot` writes: raise `limits.matrix_cells` in promptc.yaml \
                 only if the project is meant to be this large",
            )
            .into_error(crate::error::ErrorKind::Template));
        }
        Ok(RunBudget { project, used: AtomicUsize::new(0), fuel: AtomicU64::new(0) })
    }

    /// Charge a compiled cell's prompt and messages, and the fuel its renders spent (the
    /// account of the thread that just compiled it); an error once the run is over either cap.
    pub fn charge(&self, c: &Compiled) -> Result<()> {
        let spent = self.project.templates.work().spent();
        let fuel = self.fuel.fetch_add(spent, Ordering::Relaxed).saturating_add(spent);
        if fuel > RUN_FUEL {
            return Err(Diagnostic::error(format!(
                "the matrix's templates ran too long in all: more than {RUN_FUEL} instructions"
            ))
            .with_label(crate::diagnostic::Label::file(self.project.fs().display(&self.project.manifest)))
            .with_help(
                "each render has an instruction budget, and so have all the cells of a run together: look for a \
                 template every profile renders (a section, a tool's docs template) that loops for long",
            )
            .into_error(crate::error::ErrorKind::Template));
        }
        self.charge_bytes(c.text_bytes(), c)
    }

    /// Charge more text a cell made (its text through a chat template, say).
    pub fn charge_bytes(&self, bytes: usize, c: &Compiled) -> Result<()> {
        self.charge_named(bytes, &c.cell().stem())
    }

    /// Charge `bytes` of cell `stem` (a cell the compile cache answers for is charged what
    /// compiling it would charge, so the run stops where it would).
    pub fn charge_named(&self, bytes: usize, stem: &str) -> Result<()> {
        let used = self.used.fetch_add(bytes, Ordering::Relaxed) + bytes;
        let cap = self.project.templates.limits().matrix_bytes;
        if used <= cap {
            return Ok(());
        }
        Err(Diagnostic::error(format!(
            "the matrix's prompts, messages, tools JSON and chat texts add up to more than {cap} bytes \
             ({used} by cell `{stem}`)"
        ))
        .with_label(crate::diagnostic::Label::file(self.project.fs().display(&self.project.manifest)))
        .with_help(
            "every profile × case × transport is rendered: raise `limits.matrix_bytes` in promptc.yaml only if the \
             project is meant to be this large",
        )
        .into_error(crate::error::ErrorKind::Template))
    }

    /// Whether the run is already over the cap (the cells still to compile are skipped).
    fn spent(&self) -> bool {
        self.used.load(Ordering::Relaxed) > self.project.templates.limits().matrix_bytes
            || self.fuel.load(Ordering::Relaxed) > RUN_FUEL
    }
}

/// Compile every cell of the project's matrix (profiles × cases × transports, and sub-agents)
/// with its case's runtime values, spread over the machine's cores; in matrix order. Stops at
/// the run's cap (`limits.matrix_bytes`).
pub fn compile_matrix(project: &Project) -> Result<Vec<Compiled>> {
    // The caller's own account starts the run afresh: what it renders after the matrix (the
    // cells' chat texts) is drawn from it, and a long-lived host runs many runs on one thread.
    project.templates.work().open();
    let cells = crate::resolve::matrix::cells(project);
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, cells.len().max(1));
    let mut slots: Vec<Option<Result<Compiled>>> = (0..cells.len()).map(|_| None).collect();
    let budget = RunBudget::new(project)?;
    // The lowest cell that failed so far. A worker stops at a cell past it: the run fails
    // anyway, and a template that fails by building too much would otherwise fail once per
    // cell (400 profiles: seconds and every worker at its build limit). Every cell before the
    // lowest failure is still compiled, so the error reported is the first in matrix order,
    // whatever the timing.
    let first_failed = AtomicUsize::new(usize::MAX);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .filter_map(|w| {
                let (cells, budget, first_failed) = (&cells, &budget, &first_failed);
                // A larger stack than the default 2 MiB: template rendering recurses.
                std::thread::Builder::new()
                    .stack_size(COMPILE_STACK)
                    .spawn_scoped(scope, move || {
                        let done = (w..cells.len())
                            .step_by(workers)
                            .take_while(|&i| !budget.spent() && i < first_failed.load(Ordering::Relaxed))
                            .map(|i| {
                                let out =
                                    compile_matrix_cell(project, &cells[i]).and_then(|c| budget.charge(&c).map(|_| c));
                                if out.is_err() {
                                    first_failed.fetch_min(i, Ordering::Relaxed);
                                }
                                (i, out)
                            })
                            .collect::<Vec<_>>();
                        project.templates.work().close();
                        done
                    })
                    .ok()
            })
            .collect();
        for h in handles {
            for (i, out) in h.join().unwrap_or_default() {
                slots[i] = Some(out);
            }
        }
    });
    // Over the cap, the cells after it were skipped: the first error there is (the cap's, or a
    // cell's that failed first).
    if budget.spent() {
        if let Some(Some(Err(e))) = slots.iter_mut().find(|s| matches!(s, Some(Err(_)))).map(Option::take) {
            return Err(e);
        }
    }
    cells
        .into_iter()
        .zip(slots)
        .map(|(cell, slot)| {
            let c = slot.unwrap_or_else(|| {
                Err(Error::new(
                    crate::error::ErrorKind::Internal,
                    vec![Diagnostic::error(format!("cell `{}` failed to compile", cell.stem()))],
                ))
            })?;
            Ok(c)
        })
        .collect()
}
