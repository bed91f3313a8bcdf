//! What `wait_outstanding` waits for: marks of everything issued so far (per pair,
//! deferred jobs, launch tokens), the check that it all completed, and the fibers
//! parked until some request completes.

use super::Worker;

impl Worker {
    /// Parks the running fiber until some outstanding request of this worker
    /// completes (used by `wait_outstanding`, which then re-checks).
    pub(crate) fn wait_for_completion(&self) {
        self.waiters.borrow_mut().push(self.current_fiber());
        self.park();
    }

    /// Wakes the fibers waiting in `wait_outstanding`.
    #[inline]
    pub(super) fn notify_waiters(&self) {
        if !self.waiters.borrow().is_empty() {
            let ws = std::mem::take(&mut *self.waiters.borrow_mut());
            for fid in ws {
                self.wake(fid);
            }
        }
    }

    /// Snapshot of everything issued so far, for `wait_outstanding`.
    pub(crate) fn issued_marks(&self) -> (Vec<u64>, u64, u64) {
        let ch: Vec<u64> = self.channels.iter().map(|c| c.borrow().issued).collect();
        (ch, self.deferred_issued.get(), self.next_token.get())
    }

    /// Suspends the running fiber until every request this worker issued so
    /// far has been served and answered (a request that bounced off a moved
    /// property counts as completed on its first pair, so this also waits until
    /// no bounced request is on its way: perhaps longer than needed, never
    /// shorter) (launched fibers need not have
    /// finished: a launch is served when its fiber starts).
    pub(crate) fn wait_served(&self) {
        let (marks, deferred, _) = self.issued_marks();
        let served = || {
            self.channels
                .iter()
                .zip(&marks)
                .all(|(c, &m)| c.borrow().completed >= m)
                && self.deferred_done.get() >= deferred
                && self.rerouted.get() == 0
        };
        while !served() {
            self.wait_for_completion();
        }
    }

    /// True when everything in `marks` has completed.
    pub(crate) fn marks_done(&self, marks: &(Vec<u64>, u64, u64)) -> bool {
        self.channels
            .iter()
            .zip(&marks.0)
            .all(|(c, &m)| c.borrow().completed >= m)
            && self.deferred_done.get() >= marks.1
            && self.rerouted.get() == 0
            && self
                .launches
                .borrow()
                .keys()
                .next()
                .is_none_or(|&k| k >= marks.2)
    }
}
