//! Delegated context: the `Delegated` marker (code running on a trustee for a
//! client, or a continuation; it must not block), the guard that turns a panic
//! there into the run's failure, and panic messages.

use super::Worker;
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
