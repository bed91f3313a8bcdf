//! This worker's fibers: spawning one here, parking and waking, and running the
//! ready ones (FIFO) from the loop. The scheduler itself is `crate::scheduler`, the
//! stack switching `crate::fiber`; spawning on any worker is in `crate::runtime`.

use super::Worker;
use crate::fiber::{self, Suspend};
use crate::scheduler::Taken;

impl Worker {
    /// Spawns a fiber on this worker.
    pub(crate) fn spawn_local(&self, body: Box<dyn FnOnce()>) {
        self.sched.borrow_mut().spawn(body);
    }

    /// The running fiber's id; panics outside a fiber.
    pub(crate) fn current_fiber(&self) -> usize {
        self.current
            .get()
            .expect("gossamer: not running in a fiber")
    }

    /// Parks the running fiber until [`Worker::wake`].
    pub(crate) fn park(&self) {
        fiber::suspend(Suspend::Park);
    }

    pub(crate) fn wake(&self, fid: usize) {
        self.sched.borrow_mut().wake(fid);
    }

    pub(super) fn run_fibers(&self) -> bool {
        let n = self.sched.borrow().ready_len();
        for _ in 0..n {
            let Some(mut t): Option<Taken> = self.sched.borrow_mut().take_next() else {
                break;
            };
            self.enter_fiber(t.fid);
            self.current.set(Some(t.fid));
            let outcome = t.fiber.resume();
            self.current.set(None);
            self.sched.borrow_mut().put_back(t, outcome);
            if self.shared.fate.failed() {
                break;
            }
        }
        n > 0
    }
}
