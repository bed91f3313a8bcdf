//! `Inbox`: cross-thread mail for a worker (wake-ups of parked fibers and fiber
//! spawns from other threads of this process): posting it (`Shared::post`) and
//! draining it from the worker loop.

use super::{Shared, Worker};
use std::sync::atomic::Ordering;

/// Cross-thread mail for a worker: wake-ups of parked fibers and fiber spawns.
#[derive(Default)]
pub(crate) struct Inbox {
    pub wakes: Vec<usize>,
    pub spawns: Vec<Box<dyn FnOnce() + Send>>,
}

impl Shared {
    /// Posts mail to worker `w` (a worker of this process).
    pub(crate) fn post(&self, w: usize, f: impl FnOnce(&mut Inbox)) {
        assert!(
            self.is_local(w),
            "gossamer: worker {w} runs in another process (rank); only delegable closures and \
             serialized payloads can go there"
        );
        let mut ib = self.inbox[w].lock().unwrap_or_else(|p| p.into_inner());
        f(&mut ib);
        self.inbox_flag[w].store(true, Ordering::SeqCst);
        self.wake_worker(w);
    }
}

impl Worker {
    pub(super) fn drain_inbox(&self) -> bool {
        if !self.shared.inbox_flag[self.id].load(Ordering::Acquire) {
            return false;
        }
        let mail = {
            let mut ib = self.shared.inbox[self.id]
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            self.shared.inbox_flag[self.id].store(false, Ordering::SeqCst);
            std::mem::take(&mut *ib)
        };
        for fid in mail.wakes {
            self.wake(fid);
        }
        for s in mail.spawns {
            self.spawn_local(s);
        }
        true
    }
}
