//! Per-trustee statistics.

use crate::worker::activity as act;
use crate::WorkerId;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// What one trustee did so far.
///
/// The times partition the worker's life (see [`profile`](crate::profile)):
/// `busy_ns + idle_ns + collective_ns` is at most `wall_ns`, short of it by
/// the time before the worker's loop started and the interval the worker was
/// in when the counters were read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TrusteeStats {
    /// The trustee's worker.
    pub worker: WorkerId,
    /// Delegated requests served from slots (the local-trustee shortcut is not counted).
    pub requests: u64,
    /// Request batches served.
    pub batches: u64,
    /// Nanoseconds polling with nothing to do (no fiber to run, no request to
    /// serve, no response to take; sleeping included), outside collectives.
    pub idle_ns: u64,
    /// Nanoseconds of work: `delegated_ns + fiber_ns`.
    pub busy_ns: u64,
    /// Nanoseconds running delegated work: request batches from clients and
    /// local jobs deferred from delegated context. Told apart from `fiber_ns`
    /// only while a timeline is recorded ([`Config::trace`](crate::Config::trace));
    /// otherwise this and `fiber_ns` are 0 and `busy_ns` holds both.
    pub delegated_ns: u64,
    /// Nanoseconds running this worker's own fibers and its requests'
    /// continuations (see `delegated_ns`).
    pub fiber_ns: u64,
    /// Nanoseconds a fiber of this worker spent in a [`Party`](crate::Party)
    /// round (arriving and waiting), apart from the delegated work served meanwhile.
    pub collective_ns: u64,
    /// Nanoseconds since this process's runtime started, when the counters were read.
    pub wall_ns: u64,
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

    /// The counters accumulated since `earlier` (a snapshot of the same
    /// trustee), e.g. over one kernel run.
    pub fn since(&self, earlier: &TrusteeStats) -> TrusteeStats {
        TrusteeStats {
            worker: self.worker,
            requests: self.requests.saturating_sub(earlier.requests),
            batches: self.batches.saturating_sub(earlier.batches),
            idle_ns: self.idle_ns.saturating_sub(earlier.idle_ns),
            busy_ns: self.busy_ns.saturating_sub(earlier.busy_ns),
            delegated_ns: self.delegated_ns.saturating_sub(earlier.delegated_ns),
            fiber_ns: self.fiber_ns.saturating_sub(earlier.fiber_ns),
            collective_ns: self.collective_ns.saturating_sub(earlier.collective_ns),
            wall_ns: self.wall_ns.saturating_sub(earlier.wall_ns),
        }
    }

    /// Adds `other`'s counters to these (sums of windows; `worker` is kept).
    pub fn add(&mut self, other: &TrusteeStats) {
        self.requests += other.requests;
        self.batches += other.batches;
        self.idle_ns += other.idle_ns;
        self.busy_ns += other.busy_ns;
        self.delegated_ns += other.delegated_ns;
        self.fiber_ns += other.fiber_ns;
        self.collective_ns += other.collective_ns;
        self.wall_ns += other.wall_ns;
    }
}

/// The busiest trustee's busy time over the mean busy time (1.0 when all are
/// equally busy, `n` when one of `n` did all the work; 1.0 when none worked).
pub fn imbalance(stats: &[TrusteeStats]) -> f64 {
    let max = stats.iter().map(|s| s.busy_ns).max().unwrap_or(0);
    let sum: u64 = stats.iter().map(|s| s.busy_ns).sum();
    if sum == 0 {
        1.0
    } else {
        max as f64 * stats.len() as f64 / sum as f64
    }
}

/// The owner-written, anyone-read counters behind [`TrusteeStats`].
#[derive(Default)]
pub(crate) struct StatsCell {
    pub requests: AtomicU64,
    pub batches: AtomicU64,
    /// Nanoseconds per activity, indexed by `worker::activity`'s codes.
    pub activity_ns: [AtomicU64; act::COUNT],
}

impl StatsCell {
    /// Adds to a counter; only the owning worker writes, so load+store suffices.
    #[inline(always)]
    pub(crate) fn add(c: &AtomicU64, v: u64) {
        c.store(c.load(Relaxed) + v, Relaxed);
    }
    pub(crate) fn snapshot(&self, worker: WorkerId, wall_ns: u64) -> TrusteeStats {
        let ns = |a: u8| self.activity_ns[a as usize].load(Relaxed);
        let (delegated_ns, fiber_ns) = (ns(act::DELEGATED), ns(act::FIBER));
        TrusteeStats {
            worker,
            requests: self.requests.load(Relaxed),
            batches: self.batches.load(Relaxed),
            idle_ns: ns(act::IDLE),
            busy_ns: ns(act::BUSY) + delegated_ns + fiber_ns,
            delegated_ns,
            fiber_ns,
            collective_ns: ns(act::COLLECTIVE),
            wall_ns,
        }
    }
}
