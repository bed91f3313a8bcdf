//! Delegated context: the `Delegated` marker (code running on a trustee for a
//! client, or a continuation; it must not block), the guard that turns a panic
//! there into the run's failure, panic messages, and where blocking is allowed.

use super::{worker, Worker};
use crate::fiber;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Marks delegated context for its lifetime (also on unwind).
pub(crate) struct Delegated<'a>(&'a Worker);

impl<'a> Delegated<'a> {
    #[inline(always)]
    pub(crate) fn enter(w: &'a Worker) -> Self {
        w.delegated.set(w.delegated.get() + 1);
        Delegated(w)
    }
}

impl Drop for Delegated<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        self.0.delegated.set(self.0.delegated.get() - 1);
    }
}

/// Extracts a panic message.
pub(crate) fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_string()
    }
}

impl Worker {
    /// Runs user code in delegated context; a panic stops the whole run.
    pub(super) fn guard(&self, what: &str, f: impl FnOnce()) {
        if let Err(p) = catch_unwind(AssertUnwindSafe(f)) {
            let msg = panic_message(&*p);
            self.shared.poison(format!(
                "gossamer: {what} panicked on worker {}: {msg}",
                self.id
            ));
        }
    }
}

/// Checks that a blocking call is allowed here and returns the worker.
pub(crate) fn blocking_point(what: &str) -> &'static Worker {
    let w = worker(what);
    if w.delegated.get() > 0 {
        panic!(
            "gossamer: `{what}` blocks, but it was called in delegated context (a closure running on a trustee, \
             or an `apply_then` continuation), where blocking would stall the trustee and can deadlock. \
             Use `apply_then` and continue in its `then` closure, or put the property in a `Latch` and use \
             `launch`, whose closure runs in its own fiber and may block."
        );
    }
    if !fiber::in_fiber() {
        panic!("gossamer: `{what}` must be called from a fiber (inside `gossamer::main` or a spawned fiber)");
    }
    w
}
