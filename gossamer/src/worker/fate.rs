//! `Fate`: why a run stops early. Shared by the workers of a process and, in a
//! rack run, by the rack control thread; the first failure message wins.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Why a run stops early: the first failure message wins.
#[derive(Default)]
pub(crate) struct Fate {
    poisoned: AtomicBool,
    msg: Mutex<Option<String>>,
}

impl Fate {
    /// Records a failure (the first one is kept). Returns true for the first.
    pub(crate) fn fail(&self, msg: String) -> bool {
        let mut m = self.msg.lock().unwrap_or_else(|p| p.into_inner());
        let first = m.is_none();
        if first {
            *m = Some(msg);
        }
        self.poisoned.store(true, Ordering::SeqCst);
        first
    }
    #[inline(always)]
    pub(crate) fn failed(&self) -> bool {
        self.poisoned.load(Ordering::Relaxed)
    }
    pub(crate) fn message(&self) -> Option<String> {
        self.msg.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}
