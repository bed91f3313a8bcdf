//! Per-trustee statistics.

use crate::WorkerId;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// What one trustee did so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TrusteeStats {
    /// The trustee's worker.
    pub worker: WorkerId,
    /// Delegated requests served from slots (the local-trustee shortcut is not counted).
    pub requests: u64,
    /// Request batches served.
    pub batches: u64,
    /// Nanoseconds spent in worker-loop iterations that found nothing to do.
    pub idle_ns: u64,
    /// Nanoseconds spent running request batches (closures included).
    pub busy_ns: u64,
}

impl TrusteeStats {
    /// Average requests per batch (0 when no batch was served).
    pub fn avg_batch(&self) -> f64 {
        if self.batches == 0 {
            0.0
        } else {
            self.requests as f64 / self.batches as f64
        }
    }
}

/// The owner-written, anyone-read counters behind [`TrusteeStats`].
#[derive(Default)]
pub(crate) struct StatsCell {
    pub requests: AtomicU64,
    pub batches: AtomicU64,
    pub idle_ns: AtomicU64,
    pub busy_ns: AtomicU64,
}

impl StatsCell {
    /// Adds to a counter; only the owning worker writes, so load+store suffices.
    #[inline(always)]
    pub(crate) fn add(c: &AtomicU64, v: u64) {
        c.store(c.load(Relaxed) + v, Relaxed);
    }
    pub(crate) fn snapshot(&self, worker: WorkerId) -> TrusteeStats {
        TrusteeStats {
            worker,
            requests: self.requests.load(Relaxed),
            batches: self.batches.load(Relaxed),
            idle_ns: self.idle_ns.load(Relaxed),
            busy_ns: self.busy_ns.load(Relaxed),
        }
    }
}
