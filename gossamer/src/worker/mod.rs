//! A worker: one OS thread that is at once a fiber scheduler, a trustee (serving the
//! request slots of every client) and a client (batching requests to every trustee).
//!
//! The scheduling loop (`run_loop.rs`), each iteration:
//! 1. takes remote wake-ups and spawns from its inbox;
//! 2. runs every fiber that was ready at the start of the iteration (FIFO), each
//!    until it yields, parks or finishes;
//! 3. runs deferred local jobs (local-trustee requests issued in delegated context);
//! 4. serves each request slot with a new ready word (the trustee);
//! 5. polls the response slot of each pair with a batch in flight and runs the
//!    continuations in request order (the client);
//! 6. sends the next batch on every pair that has none in flight.
//!
//! Per (client, trustee) pair at most one batch is in flight, so a request slot is
//! free again once its response arrived, and requests keep accumulating in the
//! client's staging batch meanwhile (opportunistic batching).
//!
//! # Where things live
//!
//! | file | what it owns |
//! | --- | --- |
//! | `mod.rs` | the `Worker` struct and the thread's current worker (`try_worker`, `worker`) |
//! | `shared.rs` | `Shared`: what all workers of one process share |
//! | `placement.rs` | `Placement`: where this process's workers sit among all workers |
//! | `fate.rs` | `Fate`: why a run stops early (the first failure wins) |
//! | `inbox.rs` | `Inbox`, `Mailbox`: cross-thread mail (wake-ups, spawns) and draining it (`Shared::post` posts) |
//! | `termination.rs` | detecting that no worker can create work any more |
//! | `cont.rs` | closure storage: `Trampoline`, `Cont`, in-place continuations |
//! | `delegated.rs` | delegated context: the `Delegated` marker, the panic guard, panic messages, `blocking_point` |
//! | `fibers.rs` | this worker's fibers: spawn, park, wake, run the ready ones |
//! | `registry.rs` | `PropHeader` and the trustee's registry of live properties |
//! | `deferred.rs` | local-trustee jobs deferred from delegated context |
//! | `launches.rs` | continuations of launches and `spawn_on_with` fibers, by token |
//! | `moves.rs` | properties that moved: tombstones, bounced records sent again to the new address, the routes this worker learnt, the chase queue |
//! | `outstanding.rs` | what `wait_outstanding` waits for: issue marks, waiting fibers |
//! | `client.rs` | the client side: per-trustee channels, batching, sending, responses |
//! | `trustee.rs` | the trustee side: serving request slots, running records, answering |
//! | `run_loop.rs` | the scheduling loop, idle spinning and sleeping, teardown |
//! | `activity.rs` | what the worker is doing over time (delegated work, fibers, collective, idle): counters and the timeline |

pub(crate) mod activity;
mod client;
mod cont;
mod deferred;
mod delegated;
mod fate;
mod fibers;
mod inbox;
mod launches;
mod moves;
mod outstanding;
mod placement;
mod registry;
mod run_loop;
mod shared;
mod termination;
mod trustee;

pub(crate) use cont::{Chased, Cont, LaunchCont, Trampoline};
pub(crate) use delegated::{blocking_point, panic_message, Delegated};
pub(crate) use fate::Fate;
pub(crate) use inbox::Inbox;
pub(crate) use placement::Placement;
pub(crate) use registry::{PropHeader, UNREGISTERED};
pub(crate) use shared::Shared;

use crate::scheduler::Scheduler;
use crate::slot::{AlignedBuf, Header};
use crate::transport::{Body, Dir};
use client::Channel;
use registry::Registry;
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use trustee::Serve;

thread_local! {
    static CURRENT: Cell<*const Worker> = const { Cell::new(std::ptr::null()) };
}

/// The worker running on this thread, if any.
pub(crate) fn try_worker() -> Option<&'static Worker> {
    let p = CURRENT.get();
    // SAFETY: CURRENT is set by `Worker::run` to a worker that outlives every use on
    // this thread (it is cleared before the worker is dropped).
    (!p.is_null()).then(|| unsafe { &*p })
}

/// The worker running on this thread; panics with guidance outside a runtime.
pub(crate) fn worker(what: &str) -> &'static Worker {
    try_worker().unwrap_or_else(|| {
        panic!("gossamer: `{what}` needs a running gossamer runtime; call it from inside `gossamer::main` (or `Runtime::builder().run`) or a fiber spawned there")
    })
}

/// One worker thread's state.
pub(crate) struct Worker {
    pub id: usize,
    pub shared: Arc<Shared>,
    sched: RefCell<Scheduler>,
    current: Cell<Option<usize>>,
    pub delegated: Cell<u32>,
    channels: Vec<RefCell<Channel>>,
    /// One bit per trustee whose channel has something queued to send, so
    /// that the loop visits those channels only (see `client.rs`).
    sendable: RefCell<Vec<u64>>,
    serve: RefCell<Vec<Serve>>,
    resp: RefCell<AlignedBuf>,
    registry: RefCell<Registry>,
    deferred: RefCell<VecDeque<Box<dyn FnOnce()>>>,
    deferred_issued: Cell<u64>,
    deferred_done: Cell<u64>,
    launches: RefCell<BTreeMap<u64, LaunchCont>>,
    next_token: Cell<u64>,
    /// Requests issued and not yet completed (conts, deferred jobs, launches).
    outstanding: Cell<usize>,
    pub stopping: Cell<bool>,
    pub scratch: RefCell<Vec<u8>>,
    cont_buf: RefCell<Vec<Cont>>,
    /// Fibers parked in `wait_outstanding`, woken whenever requests complete.
    waiters: RefCell<Vec<usize>>,
    /// [`Config::backpressure_batches`](crate::Config::backpressure_batches), read
    /// once here (see `client.rs`).
    backpressure_batches: usize,
    /// What this worker is doing, since when, and its timeline (`activity.rs`).
    rec: activity::Recorder,
    /// Routes to moved properties, tombstones, bounced records (`moves.rs`).
    moves: RefCell<moves::Moves>,
    /// This worker knows a route to a moved property: trusts then look their
    /// address up (`moves.rs`); false in a run without moves.
    pub any_fwd: Cell<bool>,
    /// Requests in the chase queue or sent from it and not yet answered
    /// (`wait_outstanding` waits for them too).
    rerouted: Cell<u64>,
    /// This worker chases moved properties: new requests wait in the chase
    /// queue (`moves.rs`).
    chasing: Cell<bool>,
    /// The batch being served has bounced records (`moves.rs`).
    bounced: Cell<bool>,
}

impl Worker {
    /// Worker `id` of `shared`'s run, with the settings of its config.
    pub(crate) fn new(id: usize, shared: Arc<Shared>) -> Self {
        let n = shared.n;
        let ss = shared.slot_size;
        Worker {
            id,
            sched: RefCell::new(Scheduler::new(shared.config.stack_size)),
            current: Cell::new(None),
            delegated: Cell::new(0),
            channels: (0..n).map(|_| RefCell::new(Channel::new(ss))).collect(),
            sendable: RefCell::new(vec![0; n.div_ceil(64)]),
            serve: RefCell::new((0..n).map(|_| Serve::default()).collect()),
            resp: RefCell::new(AlignedBuf::with_capacity(ss)),
            registry: RefCell::new(Registry::default()),
            deferred: RefCell::new(VecDeque::new()),
            deferred_issued: Cell::new(0),
            deferred_done: Cell::new(0),
            launches: RefCell::new(BTreeMap::new()),
            next_token: Cell::new(1),
            outstanding: Cell::new(0),
            stopping: Cell::new(false),
            scratch: RefCell::new(Vec::new()),
            cont_buf: RefCell::new(Vec::new()),
            waiters: RefCell::new(Vec::new()),
            backpressure_batches: shared.config.backpressure_batches,
            rec: activity::Recorder::new(
                shared.epoch,
                shared.config.trace.then_some(shared.config.trace_events),
            ),
            moves: RefCell::new(moves::Moves::default()),
            any_fwd: Cell::new(false),
            rerouted: Cell::new(0),
            chasing: Cell::new(false),
            bounced: Cell::new(false),
            shared,
        }
    }

    pub(crate) fn n(&self) -> usize {
        self.shared.n
    }

    /// Writes a batch into `to`'s slot and wakes `to` if it sleeps.
    #[inline]
    fn write(&self, dir: Dir, to: usize, body: Body, h: &Header, seq: u64) {
        self.shared.transport.write(dir, self.id, to, body, h, seq);
        self.shared.wake_worker(to);
    }
}
