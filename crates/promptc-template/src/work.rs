//! What all the renders of a cell, and of a run, may spend. Each render has its own fuel (an
//! instruction budget, also spent per byte built: see the template environment), but a template
//! rendered many times — a tool docs template over 300 tools, a section in 400 profiles — could
//! spend it again each time: 300 renders of a second each. So renders draw on an account too:
//!
//! - a **cell's** renders together may spend at most [`CELL_FUEL`] (the account is opened when a
//!   cell starts compiling; its renders run one after the other on its thread, so where the
//!   account runs out is the same on every run);
//! - a **run's** cells together at most [`RUN_FUEL`] (`compile::RunBudget`, charged as each
//!   cell is compiled). Whether a run passes does not depend on timing (the sum of what its
//!   cells spend does not), but which cell is compiled last before it stops can, so that error
//!   names no cell.
//!
//! Accounts are kept per thread (a cell is compiled on one thread), inside the project's
//! templates: nothing global.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::thread::ThreadId;

/// What the renders of one cell may spend in all: as much as one render may (twenty million
/// instructions, about a second), where a real cell spends well under a million.
pub const CELL_FUEL: u64 = 20_000_000;

/// What the cells of one whole-matrix run may spend in all: twice a cell's.
pub const RUN_FUEL: u64 = 40_000_000;

/// Fuel spent since each thread's account was last opened.
#[derive(Debug, Default)]
pub struct Accounts {
    spent: Mutex<HashMap<ThreadId, u64>>,
}

impl Accounts {
    /// Start the current thread's account from nothing (a cell starts).
    pub fn open(&self) {
        self.with(|spent| *spent = 0);
    }

    /// What the current thread's renders spent since its account was opened.
    pub fn spent(&self) -> u64 {
        self.with(|spent| *spent)
    }

    /// Drop the current thread's account (a worker thread that ends).
    pub fn close(&self) {
        self.spent.lock().unwrap_or_else(PoisonError::into_inner).remove(&std::thread::current().id());
    }

    /// Add `fuel` to the current thread's account.
    pub fn add(&self, fuel: u64) {
        self.with(|spent| *spent = spent.saturating_add(fuel));
    }

    fn with<T>(&self, f: impl FnOnce(&mut u64) -> T) -> T {
        // A count is only ever changed by one step under the lock: a poisoned lock holds it whole.
        let mut map = self.spent.lock().unwrap_or_else(PoisonError::into_inner);
        f(map.entry(std::thread::current().id()).or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_thread_has_its_own_account_and_opening_it_starts_from_nothing() {
        let a = Accounts::default();
        a.add(5);
        a.add(7);
        std::thread::scope(|s| {
            s.spawn(|| {
                assert_eq!(a.spent(), 0);
                a.add(100);
                assert_eq!(a.spent(), 100);
                a.close();
            });
        });
        assert_eq!(a.spent(), 12);
        a.open();
        assert_eq!(a.spent(), 0);
        a.add(u64::MAX);
        a.add(1);
        assert_eq!(a.spent(), u64::MAX);
        a.close();
        assert!(a.spent.lock().unwrap().is_empty());
    }
}
