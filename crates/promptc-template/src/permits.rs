//! How many renders of one project may run at once. Each render may build up to its build limit
//! (`build_limit`) before it is stopped, and a whole-matrix run renders on every core:
//! on a 32-core machine, 32 renders of a template that builds too much would hold 32 times the
//! limit before the first error ended the run. Renders take a permit first; there are as many as
//! fit in [`RUN_BUILD_BYTES`] (at least one), so what the renders of a run hold at once is
//! bounded whatever the machine. Only scheduling changes: every render's output is the same with
//! one permit or many.

use std::sync::{Condvar, Mutex, PoisonError};

/// What all the renders of one run may build at once: the default build limit, so one render
/// builds at a time at the default limits (a render is a small share of compiling a cell: what
/// takes time, projecting and counting, still runs on every core).
pub const RUN_BUILD_BYTES: usize = 64 << 20;

/// A counting semaphore of render permits, shared by every clone of a project's templates.
#[derive(Debug)]
pub struct Permits {
    free: Mutex<usize>,
    returned: Condvar,
}

/// A render permit, given back when dropped.
#[derive(Debug)]
pub struct Permit<'a>(&'a Permits);

impl Permits {
    /// Permits for renders that may each build `build_limit` bytes.
    pub fn for_build_limit(build_limit: usize) -> Permits {
        Permits::new((RUN_BUILD_BYTES / build_limit.max(1)).max(1))
    }

    /// `n` permits (at least one).
    pub fn new(n: usize) -> Permits {
        Permits { free: Mutex::new(n.max(1)), returned: Condvar::new() }
    }

    /// Wait for a permit. A panic elsewhere while the count was held cannot leave it wrong (it
    /// is only ever changed by one step under the lock), so a poisoned lock is used as it is.
    pub fn take(&self) -> Permit<'_> {
        let mut free = self.free.lock().unwrap_or_else(PoisonError::into_inner);
        while *free == 0 {
            free = self.returned.wait(free).unwrap_or_else(PoisonError::into_inner);
        }
        *free -= 1;
        Permit(self)
    }
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        *self.0.free.lock().unwrap_or_else(PoisonError::into_inner) += 1;
        self.0.returned.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn the_default_limits_let_one_render_build_at_a_time_and_lower_ones_more() {
        let default = crate::build_limit(crate::Limits::default());
        assert_eq!(*Permits::for_build_limit(default).free.lock().unwrap(), 1);
        assert_eq!(*Permits::for_build_limit(default / 4).free.lock().unwrap(), 4);
        assert_eq!(*Permits::for_build_limit(default * 2).free.lock().unwrap(), 1);
        assert_eq!(*Permits::for_build_limit(0).free.lock().unwrap(), RUN_BUILD_BYTES);
    }

    #[test]
    fn no_more_holders_than_permits_at_once() {
        let permits = Permits::new(2);
        let (now, most) = (AtomicUsize::new(0), AtomicUsize::new(0));
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    for _ in 0..50 {
                        let _p = permits.take();
                        let n = now.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(n, Ordering::SeqCst);
                        std::thread::yield_now();
                        now.fetch_sub(1, Ordering::SeqCst);
                    }
                });
            }
        });
        assert_eq!(most.load(Ordering::SeqCst), 2);
        assert_eq!(*permits.free.lock().unwrap(), 2);
    }
}
