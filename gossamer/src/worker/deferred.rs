//! Local deferral: a request for a property of this worker issued in delegated
//! context cannot run inline (another closure may hold the property), so it is
//! queued here and runs from the loop, or before the next inline local request,
//! in issue order.

use super::{Delegated, Worker};

impl Worker {
    /// Queues a local-trustee job issued in delegated context; it runs from the
    /// worker loop (or before the next inline local request), in issue order.
    pub(crate) fn defer(&self, job: Box<dyn FnOnce()>) {
        self.deferred.borrow_mut().push_back(job);
        self.deferred_issued.set(self.deferred_issued.get() + 1);
        self.outstanding.set(self.outstanding.get() + 1);
    }

    /// Whether some deferred local job has not finished yet: one compare, so
    /// that an inline local request calls `run_deferred` only when there is
    /// something to run.
    #[inline(always)]
    pub(crate) fn has_deferred(&self) -> bool {
        self.deferred_issued.get() != self.deferred_done.get()
    }

    /// Runs every deferred local job (also called before inline local requests, to
    /// keep per-pair order).
    pub(crate) fn run_deferred(&self) -> bool {
        let mut any = false;
        loop {
            let job = self.deferred.borrow_mut().pop_front();
            let Some(job) = job else { break };
            any = true;
            self.enter_delegated();
            {
                let _d = Delegated::enter(self);
                self.guard("a local delegated closure", job);
            }
            self.deferred_done.set(self.deferred_done.get() + 1);
            self.outstanding.set(self.outstanding.get() - 1);
        }
        if any {
            self.notify_waiters();
        }
        any
    }
}
