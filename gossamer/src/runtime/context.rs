//! What a fiber asks of the runtime it runs in: the worker count, where it runs,
//! yielding, waiting for its requests, statistics.

use super::ids::WorkerId;
use super::spawn::on_every_worker_with;
use crate::fiber::{self, Suspend};
use crate::stats::TrusteeStats;
use crate::worker::{try_worker, worker, Worker};

/// Number of workers of the running runtime (of all ranks in a rack run).
pub fn num_workers() -> usize {
    worker("num_workers").n()
}

/// True when worker `w` runs in this process (always, outside a rack run): values
/// can then move to it through memory ([`entrust_on`](crate::entrust_on),
/// [`spawn_on`]); otherwise use [`entrust_with`](crate::entrust_with) and
/// [`spawn_on_with`](crate::spawn_on_with).
pub fn is_local_worker(w: WorkerId) -> bool {
    worker("is_local_worker").shared.is_local(w.0)
}

/// The worker the caller runs on.
pub fn current_worker() -> WorkerId {
    WorkerId(worker("current_worker").id)
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

/// Gives the CPU to the next ready fiber of this worker (and lets the worker loop
/// send, serve and poll). A no-op in delegated context, which never suspends.
pub fn yield_now() {
    if let Some(w) = try_worker() {
        if w.delegated.get() == 0 && fiber::in_fiber() {
            fiber::suspend(Suspend::Yield);
        }
    }
}

/// Suspends the calling fiber until every request this worker issued so far has
/// been answered and its continuation has run (including `launch_then`s and local
/// requests deferred from delegated context). Requests issued after the call
/// began, e.g. by those continuations, are not waited for: call it again for them.
/// Panics in delegated context.
pub fn wait_outstanding() {
    let w = blocking_point("wait_outstanding");
    let marks = w.issued_marks();
    while !w.marks_done(&marks) {
        w.wait_for_completion();
    }
}

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
