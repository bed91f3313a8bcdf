//! Moving a property to another trustee ([`Trust::migrate_to`]) and placing new
//! work beside an existing property ([`entrust_near`], [`spawn_near`]).
//!
//! The design (forwarding addresses, bounced records, learnt routes, what a
//! lookup costs) is explained in `worker/moves.rs`; the move itself is
//! `migrate_here` (`trampolines.rs`) and `move_out` (`property.rs`).

use super::entrust::entrust_on;
use super::trampolines::{migrate_here, tr_migrate, tramp, MOVED, OTHER_RANK, PINNED, STAYED};
use super::values::read_into;
use super::Trust;
use crate::runtime::{spawn_on, JoinHandle, WorkerId};
use crate::slot::RECORD_HEADER;
use crate::worker::{blocking_point, Cont};
use std::mem::MaybeUninit;

impl<T: Send + 'static> Trust<T> {
    /// Moves the property's value to worker `to` (of this process), suspending
    /// the calling fiber until it has moved. Returns true when the value lives on
    /// `to` afterwards, false when it could not move because a
    /// [`launch`](Trust::launch)ed closure was running on it.
    ///
    /// Every trust of the property, wherever it is, stays valid: the old trustee
    /// keeps a forwarding address, and a request that reaches it is sent on to
    /// the new one (one extra round trip, only until the sending worker has learnt
    /// the new address). Requests already on their way run exactly once, before or
    /// after the move, and each worker's requests keep their issue order: a
    /// worker whose request bounced holds its later requests back until the
    /// bounced one has reached the value (its chase queue, `worker/moves.rs`;
    /// meanwhile its requests go out one round trip at a time). Moves of one
    /// property from several fibers happen one after the other.
    ///
    /// The value moves through process memory (it must be `Send`): the old and
    /// the new trustee must be workers of one process; the calling fiber may be
    /// on any worker, also of another rank. A move into another rank panics (not
    /// built: see the crate's Limits). Blocking: not in delegated context.
    ///
    /// ```
    /// use gossamer::{entrust_on, WorkerId};
    ///
    /// gossamer::main(3, || {
    ///     let c = entrust_on(WorkerId(1), 5u64);
    ///     let other = c.clone();
    ///     assert!(c.migrate_to(WorkerId(2)));
    ///     assert_eq!(c.trustee(), WorkerId(2));
    ///     other.apply(|v| *v += 1); // a clone made before the move still works
    ///     assert_eq!(c.apply(|v| *v), 6);
    /// });
    /// ```
    pub fn migrate_to(&self, to: WorkerId) -> bool {
        let w = blocking_point("migrate_to");
        self.check(w);
        assert!(
            to.0 < w.n(),
            "gossamer: migrate_to({to}) but there are only {} workers",
            w.n()
        );
        let (t, p, _) = self.at(w, true);
        let ans = if t == w.id {
            // SAFETY: `p` is a live property of this worker (`at` resolved the
            // routes after the deferred jobs ran), and we are in a fiber outside
            // delegated context, so no closure holds its value.
            unsafe { migrate_here::<T>(w, p, to.0) }
        } else {
            let mut out = MaybeUninit::<[u64; 5]>::uninit();
            let cont = Cont::Wake {
                fid: w.current_fiber(),
                out: out.as_mut_ptr() as *mut u8,
                read: read_into::<[u64; 5]>,
            };
            w.enqueue(
                t,
                tramp!(tr_migrate::<T>),
                p,
                RECORD_HEADER + 8,
                cont,
                |wr| wr.put_u64(to.0 as u64),
            );
            w.park();
            // SAFETY: the continuation wrote the answer before waking us.
            unsafe { out.assume_init() }
        };
        match ans[0] {
            MOVED => {
                w.learn((ans[1] as usize, ans[2]), (ans[3] as usize, ans[4]), false);
                true
            }
            STAYED => true,
            PINNED => false,
            OTHER_RANK => panic!(
                "gossamer: migrate_to({to}): the value lives on worker {} and {to} runs in another \
                 process (rank); moving a value between ranks is not built yet",
                ans[1]
            ),
            x => panic!("gossamer: migrate_to got answer {x} (runtime bug)"),
        }
    }
}

/// Entrusts `value` to the trustee of `near`'s property (as far as this worker
/// knows, see [`Trust::trustee`]), so that closures on both run on one worker:
/// affinity, like DRust's `spawn_to`. Blocking when that is another worker; the
/// value moves through process memory, as with [`entrust_on`].
pub fn entrust_near<T: Send + 'static, U>(near: &Trust<U>, value: T) -> Trust<T> {
    entrust_on(WorkerId(near.latest().0), value)
}

/// Spawns a fiber on the trustee of `near`'s property (as far as this worker
/// knows), so that its requests to that property run inline, as with
/// [`spawn_on`]; the property may move away later (fibers never move).
pub fn spawn_near<R: Send + 'static, U>(
    near: &Trust<U>,
    f: impl FnOnce() -> R + Send + 'static,
) -> JoinHandle<R> {
    spawn_on(WorkerId(near.latest().0), f)
}
