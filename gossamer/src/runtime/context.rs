//! What a fiber asks of the runtime it runs in: the worker count, where it runs,
//! yielding, waiting for its requests.

use super::ids::WorkerId;
use crate::fiber::{self, Suspend};
use crate::worker::{blocking_point, try_worker, worker};

/// Number of workers of the running runtime (of all ranks in a rack run).
pub fn num_workers() -> usize {
    worker("num_workers").n()
}

/// True when worker `w` runs in this process (always, outside a rack run): values
/// can then move to it through memory ([`entrust_on`](crate::entrust_on),
/// [`spawn_on`](crate::spawn_on)); otherwise use [`entrust_with`](crate::entrust_with) and
/// [`spawn_on_with`](crate::spawn_on_with).
pub fn is_local_worker(w: WorkerId) -> bool {
    worker("is_local_worker").shared.is_local(w.0)
}

/// The process (rank) worker `w` runs in: every rank of a rack run has the
/// same number of workers, numbered rank by rank (0 outside a rack run).
/// Workers of one process share its memory: e.g. one copy of a replicated
/// array per process serves them all.
pub fn process_of(w: WorkerId) -> usize {
    let local = worker("process_of").shared.local_workers().len();
    w.0 / local.max(1)
}

/// The worker the caller runs on.
pub fn current_worker() -> WorkerId {
    WorkerId(worker("current_worker").id)
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
