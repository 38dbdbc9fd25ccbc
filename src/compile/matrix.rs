//! Every cell of the project's matrix compiled at once, spread over the machine's cores.

use crate::diagnostic::Diagnostic;
use crate::error::{Error, Result};
use crate::model::Project;

use super::{compile_matrix_cell, Compiled};

/// The stack size of the threads promptc compiles on (template rendering recurses, up to the
/// project's limits).
pub(crate) const COMPILE_STACK: usize = 16 << 20;

/// Compile every cell of the project's matrix (profiles × cases × transports, and sub-agents)
/// with its case's runtime values, spread over the machine's cores; in matrix order.
pub fn compile_matrix(project: &Project) -> Result<Vec<Compiled>> {
    let cells = crate::resolve::matrix::cells(project);
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, cells.len().max(1));
    let mut slots: Vec<Option<Result<Compiled>>> = (0..cells.len()).map(|_| None).collect();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .filter_map(|w| {
                let cells = &cells;
                // A larger stack than the default 2 MiB: template rendering recurses.
                std::thread::Builder::new()
                    .stack_size(COMPILE_STACK)
                    .spawn_scoped(scope, move || {
                        (w..cells.len())
                            .step_by(workers)
                            .map(|i| (i, compile_matrix_cell(project, &cells[i])))
                            .collect::<Vec<_>>()
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
