//! Start-up and shut-down, workers, fibers and their join handles: every way to
//! spawn a fiber (`spawn`, `spawn_on`, `spawn_spread`, `on_every_worker`, and across
//! processes `spawn_on_with`, `on_every_worker_with`).
//!
//! | file | what it owns |
//! | --- | --- |
//! | `ids.rs` | [`WorkerId`], [`Error`] |
//! | `builder.rs` | [`Runtime`], [`Builder`]: configuring, validating and starting a run; [`main`] |
//! | `start.rs` | the main fiber's body, joining the worker threads, the run's outcome |
//! | `slot_budget.rs` | the rack slot-size rule and the slot-memory check |
//! | `affinity.rs` | pinning workers to CPUs; crowded hosts |
//! | `context.rs` | what a fiber asks of its runtime: worker count, current worker, yield, `wait_outstanding` |
//! | `stats.rs` | [`stats`], [`trustee_stats`] |
//! | `join.rs` | [`JoinHandle`] |
//! | `spawn.rs` | the spawn family, including across processes ([`spawn_on_with`]) |

mod affinity;
mod builder;
mod context;
mod ids;
mod join;
mod slot_budget;
mod spawn;
mod start;
mod stats;

pub(crate) use affinity::crowded;
pub use builder::{main, Builder, Runtime};
pub use context::{
    current_worker, is_local_worker, num_workers, process_of, wait_outstanding, yield_now,
};
pub use ids::{Error, WorkerId};
pub use join::JoinHandle;
pub use slot_budget::{
    check_rank_slot_memory, check_slot_memory, rack_slot_size, slot_memory_bytes, MAX_THREADS,
    RACK_MAX_SLOT_BYTES, RACK_MIN_SLOT_BYTES, RACK_SLOT_BUDGET_BYTES,
};
pub use spawn::{
    on_every_worker, on_every_worker_with, spawn, spawn_on, spawn_on_with, spawn_spread,
};
pub(crate) use start::{finish, join_workers, main_body, start_workers};
pub use stats::{stats, trustee_stats};
