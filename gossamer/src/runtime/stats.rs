//! [`stats`] and [`trustee_stats`]: the trustees' counters of the running runtime
//! (read by each worker itself, on every rank of a rack run).

use super::ids::WorkerId;
use super::spawn::{on_every_worker, on_every_worker_with};
use crate::stats::TrusteeStats;
use crate::worker::worker;

/// Statistics of every trustee of the running runtime, indexed by worker, on
/// every rank of a rack run. Each worker reads its own counters in a fiber,
/// after counting its current activity up to that moment (so the times are
/// exact at the moment of reading); call it from a fiber (it waits for them).
pub fn stats() -> Vec<TrusteeStats> {
    let w = worker("stats");
    // One fiber per worker reads its own counters (a plain fn: no captures).
    // In one process the fibers go by mail, not through request slots, so
    // reading the counters does not change them.
    let all = if w.shared.place.rack {
        on_every_worker_with(own, ())
    } else {
        on_every_worker(|| own(()))
    };
    fn own(_: ()) -> [u64; 8] {
        let w = worker("stats");
        let now = w.flush_activity();
        let s = w.shared.stats[w.id].snapshot(WorkerId(w.id), now);
        [
            s.requests,
            s.batches,
            s.idle_ns,
            s.busy_ns,
            s.delegated_ns,
            s.fiber_ns,
            s.collective_ns,
            s.wall_ns,
        ]
    }
    all.into_iter()
        .enumerate()
        .map(
            |(i, [requests, batches, idle_ns, busy_ns, delegated_ns, fiber_ns, collective_ns, wall_ns])| {
                TrusteeStats {
                    worker: WorkerId(i),
                    requests,
                    batches,
                    idle_ns,
                    busy_ns,
                    delegated_ns,
                    fiber_ns,
                    collective_ns,
                    wall_ns,
                }
            },
        )
        .collect()
}

/// Statistics of one trustee, read as they are, without waiting: the
/// interval the trustee is in is not counted yet (unless it is the calling
/// worker), and a trustee of another rank reads as zeros (use [`stats`]).
pub fn trustee_stats(t: WorkerId) -> TrusteeStats {
    let w = worker("trustee_stats");
    assert!(
        t.0 < w.n(),
        "gossamer: trustee_stats({t}) but there are only {} workers",
        w.n()
    );
    let now = if t.0 == w.id {
        w.flush_activity()
    } else {
        w.clock_ns()
    };
    w.shared.stats[t.0].snapshot(t, now)
}
