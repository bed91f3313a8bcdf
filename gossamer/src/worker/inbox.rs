//! `Inbox`: cross-thread mail for a worker (wake-ups of parked fibers and fiber
//! spawns from other threads of this process), the `Mailbox` that holds it, and
//! draining it from the worker loop. Posting is `Shared::post`.

use super::Worker;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Cross-thread mail for a worker: wake-ups of parked fibers and fiber spawns.
#[derive(Default)]
pub(crate) struct Inbox {
    pub wakes: Vec<usize>,
    pub spawns: Vec<Box<dyn FnOnce() + Send>>,
}

/// A worker's mail and the flag that says some is waiting.
#[derive(Default)]
pub(crate) struct Mailbox {
    mail: Mutex<Inbox>,
    waiting: AtomicBool,
}

impl Mailbox {
    /// Adds mail with `f` and raises the flag (the poster then wakes the worker).
    pub(crate) fn put(&self, f: impl FnOnce(&mut Inbox)) {
        let mut ib = self.mail.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut ib);
        self.waiting.store(true, Ordering::SeqCst);
    }

    /// True when mail is waiting.
    #[inline]
    pub(crate) fn is_waiting(&self) -> bool {
        self.waiting.load(Ordering::SeqCst)
    }

    /// Takes the mail waiting, if any.
    #[inline]
    fn take(&self) -> Option<Inbox> {
        if !self.waiting.load(Ordering::Acquire) {
            return None;
        }
        let mut ib = self.mail.lock().unwrap_or_else(|p| p.into_inner());
        self.waiting.store(false, Ordering::SeqCst);
        Some(std::mem::take(&mut *ib))
    }
}

impl Worker {
    pub(super) fn drain_inbox(&self) -> bool {
        let Some(mail) = self.shared.inbox[self.id].take() else {
            return false;
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
