//! `Shared`: the state all workers of one runtime share in this process: the
//! placement, the transport, statistics, per-worker idle/activity/mail words, the
//! parking lot and the run's fate. The mailboxes live in `inbox.rs`, termination
//! detection in `termination.rs`.

use super::inbox::Mailbox;
use super::{Fate, Inbox, Placement};
use crate::config::Config;
use crate::park::Parking;
use crate::stats::StatsCell;
use crate::transport::{InProcess, Transport};
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Arc;

/// A per-worker value on cache lines of its own. The per-worker words
/// below sit in vectors indexed by worker, and each worker writes its own
/// at every turn of its loop that made progress (`activity`), when it
/// turns idle or busy (`idle`) and at every change of activity (`stats`):
/// packed, two workers' words shared a cache line, which then moved
/// between their cores at every turn. 128 bytes, because x86 cores also
/// fetch a line's neighbour. Measured in `results/kernels/supersteps.md`.
#[derive(Default)]
#[repr(align(128))]
pub(crate) struct Own<T>(pub T);

impl<T> std::ops::Deref for Own<T> {
    type Target = T;
    #[inline(always)]
    fn deref(&self) -> &T {
        &self.0
    }
}

/// State shared by all workers of one runtime (in this process).
pub(crate) struct Shared {
    pub rt: u64,
    pub n: usize,
    pub place: Placement,
    pub slot_size: usize,
    /// The run's configuration (workers copy what they use when they start).
    pub config: Config,
    pub transport: Box<dyn Transport>,
    pub stats: Vec<Own<StatsCell>>,
    /// When this process's runtime started: the origin of the workers'
    /// activity clocks (`activity.rs`).
    pub epoch: std::time::Instant,
    /// Per worker: nothing to run and nothing outstanding (see `termination.rs`).
    pub(super) idle: Vec<Own<AtomicBool>>,
    /// Per worker: loop iterations that made progress (see `termination.rs`).
    pub(super) activity: Vec<Own<AtomicU64>>,
    /// Per worker: its mail (see `inbox.rs`).
    pub(super) inbox: Vec<Own<Mailbox>>,
    pub parking: Arc<Parking>,
    pub main_done: AtomicBool,
    /// A thread to unpark when `main_done` is set (rack rank 0's termination
    /// loop, which sleeps until then instead of polling).
    pub main_waiter: std::sync::OnceLock<std::thread::Thread>,
    pub stop: AtomicBool,
    pub fate: Arc<Fate>,
    /// More workers on this host than cores: waiting workers and fibers give
    /// their core away at once instead of spinning (see `runtime::crowded`).
    pub crowded: bool,
}

impl Shared {
    /// A one-process run of `config` (its slot size resolved).
    pub(crate) fn new(rt: u64, config: Config) -> Self {
        let n = config.threads;
        let slot_size = config.effective_slot_size(1);
        Self::with(
            rt,
            Placement::single(n),
            slot_size,
            Box::new(InProcess::new(n, slot_size, config.marks_wanted(n))),
            Arc::new(Parking::local(n, config.nap, config.crowded_nap)),
            Arc::new(Fate::default()),
            config,
        )
    }

    pub(crate) fn with(
        rt: u64,
        place: Placement,
        slot_size: usize,
        transport: Box<dyn Transport>,
        parking: Arc<Parking>,
        fate: Arc<Fate>,
        config: Config,
    ) -> Self {
        let n = place.n;
        let local = place.local;
        Shared {
            rt,
            n,
            place,
            slot_size,
            config,
            transport,
            stats: (0..n).map(|_| Own::default()).collect(),
            epoch: std::time::Instant::now(),
            idle: (0..n).map(|_| Own::default()).collect(),
            activity: (0..n).map(|_| Own::default()).collect(),
            inbox: (0..n).map(|_| Own::default()).collect(),
            parking,
            main_done: AtomicBool::new(false),
            main_waiter: std::sync::OnceLock::new(),
            stop: AtomicBool::new(false),
            fate,
            crowded: crate::runtime::crowded(local),
        }
    }

    /// True when worker `w` runs in this process.
    #[inline(always)]
    pub(crate) fn is_local(&self, w: usize) -> bool {
        w.wrapping_sub(self.place.base) < self.place.local
    }

    /// Global ids of this process's workers.
    pub(crate) fn local_workers(&self) -> std::ops::Range<usize> {
        self.place.base..self.place.base + self.place.local
    }

    /// Posts mail to worker `w` (a worker of this process) and wakes it.
    pub(crate) fn post(&self, w: usize, f: impl FnOnce(&mut Inbox)) {
        assert!(
            self.is_local(w),
            "gossamer: worker {w} runs in another process (rank); only delegable closures and \
             serialized payloads can go there"
        );
        self.inbox[w].put(f);
        self.wake_worker(w);
    }

    /// Wakes worker `w` if it is (about to be) asleep. Call after publishing work
    /// for it (see [`Parking::wake`]).
    #[inline]
    pub(crate) fn wake_worker(&self, w: usize) {
        self.parking.wake(w);
    }

    /// Wakes every worker of this process (stop, poison).
    pub(crate) fn wake_all(&self) {
        for w in self.local_workers() {
            self.wake_worker(w);
        }
    }

    /// Stops the run because of a failure (a panic in delegated context, a lost rank).
    pub(crate) fn poison(&self, msg: String) {
        self.fate.fail(msg);
        self.wake_all();
    }

    /// The failure message, if the run failed.
    pub(crate) fn poison_message(&self) -> Option<String> {
        self.fate.message()
    }
}
