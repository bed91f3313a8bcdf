//! Termination detection: every local worker idle (no ready fiber, nothing
//! outstanding, no mail) twice in a row with no activity in between. A single
//! process decides with `Shared::terminated` (worker 0, in the loop); a rack run's
//! control thread combines every rank's `Shared::quiescent` sums.

use super::Shared;
use std::sync::atomic::Ordering;

impl Shared {
    /// Sum of this process's activity counters when every local worker is idle (no
    /// ready fiber, nothing outstanding, no mail), else `None`.
    pub(crate) fn quiescent(&self) -> Option<u64> {
        let mut sum = 0u64;
        for w in self.local_workers() {
            if !self.idle[w].load(Ordering::SeqCst) || self.inbox[w].is_waiting() {
                return None;
            }
            sum = sum.wrapping_add(self.activity[w].load(Ordering::SeqCst));
        }
        Some(sum)
    }

    /// Every worker idle twice in a row with no activity in between: nothing can
    /// create work any more.
    pub(super) fn terminated(&self) -> bool {
        let round = || -> Option<Vec<u64>> {
            let mut acts = Vec::with_capacity(self.n);
            for w in self.local_workers() {
                if !self.idle[w].load(Ordering::SeqCst) || self.inbox[w].is_waiting() {
                    return None;
                }
                acts.push(self.activity[w].load(Ordering::SeqCst));
            }
            Some(acts)
        };
        match (round(), round()) {
            (Some(a), Some(b)) => a == b,
            _ => false,
        }
    }
}
