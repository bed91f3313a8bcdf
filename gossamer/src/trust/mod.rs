//! [`Trust<T>`]: the reference through which closures are applied to a property.
//!
//! # Where things live
//!
//! | file | what it owns |
//! | --- | --- |
//! | `entrust.rs` | making properties: [`entrust`], [`entrust_on`], [`entrust_with`] |
//! | `property.rs` | a property in trustee memory: header + value, allocation, drop, its initial weight, moving its value out (leaving a tombstone), pending boxes for values that move in through bytes |
//! | `apply.rs` | the [`Trust`] type and its apply family: `apply`, `apply_then`, `apply_with`, `apply_slice`, `apply_returning` (+ `_then`s) |
//! | `launch.rs` | `launch` on a [`Latch`](crate::Latch)ed property: the closure runs in a trustee-side fiber |
//! | `migrate.rs` | moving a property: [`Trust::migrate_to`] (through memory), [`Trust::migrate_with`] (also into another rank, through bytes); affinity: [`entrust_near`], [`spawn_near`] (forwarding and routes: `worker/moves.rs`) |
//! | `weight.rs` | weighted reference counting: clone, drop, refill, serde, and fenced releases of trusts whose non-blocking requests may still be on their way (the design is explained there) |
//! | `values.rs` | codec helpers: writing return values and payloads into records, reading them back |
//! | `trampolines.rs` | the trustee-side handlers (`tr_*`) named by each record's code word, and starting a launched closure's fiber |
//!
//! Fibers spawned across processes (`spawn_on_with`, `on_every_worker_with`) live with
//! the other spawns in `crate::runtime` (`runtime/spawn.rs`).
//!
//! Imports go one way: `apply`, `entrust`, `launch`, `migrate` and `weight` (the client side)
//! use `trampolines` (the trustee side), which uses `property` and `values`.

mod apply;
mod entrust;
mod launch;
mod migrate;
mod property;
pub(crate) mod trampolines;
pub(crate) mod values;
mod weight;

pub use apply::Trust;
pub use entrust::{entrust, entrust_on, entrust_with};
pub use migrate::{entrust_near, spawn_near};
