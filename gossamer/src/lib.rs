//! Gossamer: a delegation runtime.
//!
//! Instead of locking shared data, a program *entrusts* each piece of data to one
//! worker thread and *applies* closures to it; the closures travel to that thread in
//! batches and run there one at a time.
//!
//! # Concepts
//!
//! - **Property**: a value that has been entrusted. It is only ever touched by its
//!   trustee; it stays there unless moved with [`Trust::migrate_to`].
//! - **Trustee**: the worker that owns a property and runs every closure applied to
//!   it. Every worker is a trustee (and a client) — see [`WorkerId`], [`num_workers`].
//! - **Trust** ([`Trust<T>`]): a cloneable, `Send` reference to a property, through
//!   which closures are applied: [`Trust::apply`] (blocking the calling fiber),
//!   [`Trust::apply_then`] (non-blocking, with a continuation), [`Trust::apply_with`]
//!   (with a serialized payload for heap values), [`Trust::apply_slice`] (zero-copy
//!   plain-old-data records, see [`Pod`]), [`Trust::apply_returning`]
//!   (variable-size results). Create one with [`entrust`], [`entrust_on`] or
//!   [`entrust_with`]. The property is dropped on its trustee when the last trust
//!   is dropped (weighted reference counting, see `src/trust/weight.rs`).
//! - **Migration**: [`Trust::migrate_to`] moves a property's value to another
//!   trustee of the same process while requests keep coming, and
//!   [`Trust::migrate_with`] (for serde values) to any worker, also of another
//!   rank, through bytes. The old trustee
//!   keeps a *forwarding address* (a tombstone): a request that reaches it is not
//!   run but bounced to its client, which sends it again to the new address, so it
//!   runs exactly once; every trust stays valid. A client whose request bounced
//!   holds its other requests back until nothing of it is on its way to an old
//!   address (its chase queue), so each worker's requests keep their order.
//!   Each worker remembers the moves it learnt, so only its first requests after
//!   a move pay the extra round trips (a worker that knows of no move pays one
//!   branch per request, one that does a hash lookup). See `src/worker/moves.rs`. Affinity: [`entrust_near`] and
//!   [`spawn_near`] place a new property or a fiber on an existing trust's trustee.
//! - **Fiber**: a light user thread with its own stack ([`spawn`], [`spawn_on`],
//!   [`spawn_spread`], [`on_every_worker`], [`JoinHandle::join`], [`yield_now`]).
//!   Each worker runs its fibers in FIFO order; fibers never migrate. Blocking calls
//!   suspend only the calling fiber; the worker meanwhile serves requests.
//! - **Slot**: the fixed-size byte area (default 1024 bytes) through which one
//!   client worker sends a batch of requests to one trustee (and gets the batch of
//!   responses back). Closures are copied into it byte for byte, so they may capture
//!   only plain values: see [`Delegable`]. Requests or responses bigger than a slot
//!   are sent in chunks.
//! - **Delegated context**: code running on a trustee on behalf of a client (an
//!   applied closure) or a `then` continuation. It must not block: [`Trust::apply`],
//!   [`JoinHandle::join`], [`wait_outstanding`] and [`Trust::launch`] panic there
//!   with advice. Use `apply_then`, or [`Latch`] + [`Trust::launch`], whose closure
//!   runs in its own trustee-side fiber and may block.
//!
//! - **Runtime**: [`main`] or [`Runtime::builder`] start one worker OS thread per
//!   requested thread (pinned to a core when possible), run the main closure as a
//!   fiber on worker 0, wait until every worker is idle, drop the properties still
//!   entrusted (each on its trustee) and stop. [`stats`] reports per-trustee
//!   counters ([`TrusteeStats`]).
//! - **Config** ([`Config`]): every tunable of the runtime in one struct (slot
//!   sizes, fiber stacks, spinning and napping, backpressure, collectives,
//!   transports, rack control), with units and measured defaults; set it through
//!   [`Builder::config`].
//! - **Activity** ([`profile`]): what a worker is doing at each moment: delegated
//!   work, its own fibers, waiting in a collective, or idle polling. Counted per
//!   trustee in [`TrusteeStats`] always; with [`Config::trace`] also recorded as a
//!   rack-wide timeline ([`profile::timeline`]).
//!
//! A panic in delegated context stops the whole run: the panic message is printed by
//! the panic hook and returned as [`Error::DelegatedPanic`] from
//! [`Builder::run`] ([`main`] panics with it). A panic in a fiber is resumed by
//! [`JoinHandle::join`] (and by `main` for the main fiber).
//!
//! # Where things live
//!
//! | module | concept |
//! | --- | --- |
//! | `trust/` | [`Trust`], entrusting, the apply family, launch, migration and affinity, weighted reference counting, trampolines (map in `trust/mod.rs`) |
//! | `latch` | [`Latch`] for [`Trust::launch`] |
//! | `delegable`, `pod` | what may cross the channel: [`Delegable`], [`Pod`], [`pod_struct!`] |
//! | `config` | [`Config`]: every tunable, its unit and its default |
//! | `runtime/` | [`Builder`], [`main`], the slot budget, CPU pinning, spawning fibers (also across ranks: [`spawn_on_with`]) and [`JoinHandle`], [`wait_outstanding`] (map in `runtime/mod.rs`) |
//! | `worker/` | one worker thread: scheduling loop, client side, trustee side, registry, moved properties' forwarding, mail, termination (map in `worker/mod.rs`) |
//! | `scheduler`, `fiber` | FIFO fiber scheduler; the only stack-switching code |
//! | `slot` | the request/response slot format (one encoder and decoder) |
//! | `transport` | the one primitive needed from a transport, in-process version |
//! | `codec` | serde codec for payloads and variable-size results (postcard) |
//! | `stats` | [`TrusteeStats`] |
//! | [`profile`] | activities, imbalance, timelines and their clocks across ranks (the recording itself is `worker/activity.rs`) |
//! | [`memory`] | the memory this process may still use (`MemAvailable`, rlimits, cgroup) and byte counts for messages |
//! | `park` | putting idle worker threads to sleep and waking them (thread park or futex) |
//! | [`rack`] | several processes (ranks) as one run: transports (shm, tcp, rdma), bootstrap, fate sharing, launcher; see docs/rack.md |
//! | `collective` | [`Collective`], [`Party`]: all-reduce and barrier among one fiber per worker, through a hub trust and mailbox trusts |
//!
//! # Limits
//!
//! - [`Delegable`] is `Copy + Send + 'static`, so a `&'static T` passes; it is only
//!   meaningful inside one process.
//! - [`entrust_on`], [`spawn_on`] and [`on_every_worker`] move values through process
//!   memory (one process); [`entrust_with`], closures, [`spawn_on_with`] and
//!   [`on_every_worker_with`] go through slot bytes only and work across the ranks of
//!   a rack run ([`Builder::from_env`]), where `WorkerId`s are global
//!   (`rank * threads + thread`) and [`num_workers`] counts every rank's workers.
//! - A trust dropped outside any worker thread (e.g. on a plain `std::thread`) does
//!   not release its weight; its property is dropped at shutdown.
//! - Cloning a remote trust whose weight is exhausted inside delegated context
//!   panics (see `src/trust/weight.rs`); ordinary code never gets near that.
//! - [`Trust::migrate_to`] moves a value within one process only (through memory,
//!   `T: Send`); clients on any rank reach it after the move, and a move into
//!   another rank panics. [`Trust::migrate_with`] (`T: Serialize` and
//!   `DeserializeOwned`, encoded as [`Trust::apply_with`]'s payloads, no size
//!   limit) moves a value into any worker: through memory within a process,
//!   else through bytes, in four round trips driven by the calling fiber, and
//!   while the value is in transit requests to it bounce and retry (one round
//!   trip each). The copy left on the old trustee is dropped there, so a `Drop`
//!   with effects beyond the value's memory runs once per process the value
//!   left, plus once at the end. A value whose launched closure is running does
//!   not move (both return false). Tombstones are
//!   kept until shutdown (one property header plus the value's inline size per
//!   move). A request chases a moving value: a value moved again and again
//!   without pause can keep requests waiting, and while a worker chases, all its
//!   requests (to any property) wait in its chase queue and go out in rounds, one
//!   round trip each, until a round comes back with nothing bounced. Order is kept
//!   per property among the trusts that share its address; a trust serialized
//!   after a move carries the address its sender knew, and requests through it
//!   and through older trusts of the same property, from one worker that has not
//!   learnt the moves in between, are not ordered with each other.
//!
//! # Example
//!
//! ```
//! use gossamer::{entrust_on, WorkerId};
//!
//! let total = gossamer::main(2, || {
//!     // A counter owned by worker 1; this fiber runs on worker 0.
//!     let counter = entrust_on(WorkerId(1), 17u64);
//!     counter.apply(|c| *c += 1);
//!     // Non-blocking: the continuation runs here when the answer arrives.
//!     counter.apply_then(|c| { *c += 1; *c }, |v| assert_eq!(v, 19));
//!     gossamer::wait_outstanding();
//!     // Heap values go through a serialized payload.
//!     let n = counter.apply_with(|c, v: Vec<u64>| { *c += v.iter().sum::<u64>(); *c }, vec![1, 2, 3]);
//!     assert_eq!(n, 25);
//!     counter.apply(|c| *c)
//! });
//! assert_eq!(total, 25);
//! ```

mod codec;
mod collective;
mod config;
mod delegable;
mod fiber;
mod latch;
pub mod memory;
mod park;
mod pod;
pub mod profile;
pub mod rack;
mod runtime;
mod scheduler;
mod slot;
mod stats;
mod transport;
mod trust;
mod worker;

pub use codec::CodecError;
pub use collective::{Collective, Op, Party, MAX_LANES};
pub use config::Config;
pub use delegable::Delegable;
pub use latch::Latch;
pub use pod::Pod;
pub use runtime::{
    check_slot_memory, current_worker, is_local_worker, main, num_workers, on_every_worker,
    on_every_worker_with, process_of, rack_slot_size, slot_memory_bytes, spawn, spawn_on,
    spawn_on_with, spawn_spread, stats, trustee_stats, wait_outstanding, yield_now, Builder, Error,
    JoinHandle, Runtime, WorkerId, MAX_THREADS, RACK_MAX_SLOT_BYTES, RACK_MIN_SLOT_BYTES,
    RACK_SLOT_BUDGET_BYTES,
};
pub use stats::TrusteeStats;
pub use trust::{entrust, entrust_near, entrust_on, entrust_with, spawn_near, Trust};
