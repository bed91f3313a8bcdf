//! [`stats`] and [`trustee_stats`]: the trustees' counters of the running runtime
//! (in a rack run fetched from every rank by delegation).

use super::ids::WorkerId;
use super::spawn::on_every_worker_with;
use crate::stats::TrusteeStats;
use crate::worker::worker;

/// Statistics of every trustee of the running runtime, indexed by worker, on
/// every rank of a rack run. In a rack run the other ranks' counters are
/// fetched by delegation, so call it from a fiber (it waits for them).
pub fn stats() -> Vec<TrusteeStats> {
    let w = worker("stats");
    if !w.shared.place.rack {
        return (0..w.n())
            .map(|i| w.shared.stats[i].snapshot(WorkerId(i)))
            .collect();
    }
    // One fiber per worker reads its own counters (a plain fn: no captures).
    fn own(_: ()) -> [u64; 4] {
        let w = worker("stats");
        let s = w.shared.stats[w.id].snapshot(WorkerId(w.id));
        [s.requests, s.batches, s.idle_ns, s.busy_ns]
    }
    on_every_worker_with(own, ())
        .into_iter()
        .enumerate()
        .map(|(i, [requests, batches, idle_ns, busy_ns])| TrusteeStats {
            worker: WorkerId(i),
            requests,
            batches,
            idle_ns,
            busy_ns,
        })
        .collect()
}

/// Statistics of one trustee.
pub fn trustee_stats(t: WorkerId) -> TrusteeStats {
    let w = worker("trustee_stats");
    assert!(
        t.0 < w.n(),
        "gossamer: trustee_stats({t}) but there are only {} workers",
        w.n()
    );
    w.shared.stats[t.0].snapshot(t)
}
