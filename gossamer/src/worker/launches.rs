//! Launch continuations: the continuation of each `Trust::launch` and each
//! `spawn_on_with` fiber waits here, keyed by token, until its completion record
//! arrives.

use super::{Delegated, LaunchCont, Worker};
use crate::slot::Reader;

/// Top bit of the completion tokens of `spawn_on_with` fibers.
const SPAWN_TOKEN: u64 = 1 << 63;

impl Worker {
    /// Stores a launch continuation; returns its token.
    pub(crate) fn add_launch(&self, cont: LaunchCont) -> u64 {
        let t = self.next_token.get();
        self.next_token.set(t + 1);
        self.launches.borrow_mut().insert(t, cont);
        self.outstanding.set(self.outstanding.get() + 1);
        t
    }

    /// Stores the completion of a fiber spawned with `spawn_on_with`; returns its
    /// token. Such tokens have the top bit set, so `wait_outstanding` (which waits for
    /// launches below a mark) does not wait for spawned fibers: a spawned fiber may
    /// call `wait_outstanding` on the worker that spawned it without waiting for
    /// itself.
    pub(crate) fn add_spawn(&self, cont: LaunchCont) -> u64 {
        let t = self.next_token.get();
        self.next_token.set(t + 1);
        let t = t | SPAWN_TOKEN;
        self.launches.borrow_mut().insert(t, cont);
        self.outstanding.set(self.outstanding.get() + 1);
        t
    }

    /// Runs the continuation of launch `token` with its result.
    pub(crate) fn finish_launch(&self, token: u64, r: &mut Reader) {
        let cont = self
            .launches
            .borrow_mut()
            .remove(&token)
            .expect("gossamer: unknown launch token (runtime bug)");
        self.outstanding.set(self.outstanding.get() - 1);
        {
            let _d = Delegated::enter(self);
            cont(r);
        }
        self.notify_waiters();
    }
}
