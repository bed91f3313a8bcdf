//! Starting the gossamer runtime for graph work.
//!
//! Kernels send their records in slot-filling batches,
//! so the size of the runtime's request slots sets how many records travel per
//! request. It is fixed when the runtime starts and must agree across the
//! ranks of a rack job, so it cannot be chosen per kernel: a program that runs
//! graph kernels starts its runtime through [`builder`] (or applies
//! [`for_graphs`] to a builder it made), which is what the `gossamer-graph`
//! command does. The runtime's own default (1 KiB) suits fine-grained
//! delegation; 64 KiB measured 1.4-1.5x faster for SSSP at SCALE 18
//! (`results/kernels/delta.md`, run C).
//!
//! ```
//! use graph_core::sharded::ShardedGraph;
//! let list = graph_kernel::doc::path(4);
//! // Two workers in this process (or this rank's share of a rack job when
//! // started by a launcher), with the slots graph kernels want.
//! let levels = graph_kernel::runtime::builder(2)
//!     .expect("launcher environment")
//!     .run(move || {
//!         let g = ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
//!         bfs::bfs(&g, 0, &bfs::BfsConfig::default()).unwrap().level
//!     })
//!     .expect("runtime");
//! assert_eq!(levels, [0, 1, 2, 3]);
//! ```

use gossamer::{Builder, Error};

/// The largest slot [`slot_bytes`] picks (and the one a host-sized job gets):
/// gossamer's default [`Config::rack_max_slot_bytes`](gossamer::Config::rack_max_slot_bytes).
pub use gossamer::RACK_MAX_SLOT_BYTES as MAX_SLOT_BYTES;
/// The smallest (the runtime's default): gossamer's default
/// [`Config::rack_min_slot_bytes`](gossamer::Config::rack_min_slot_bytes).
pub use gossamer::RACK_MIN_SLOT_BYTES as MIN_SLOT_BYTES;
/// Slot memory [`slot_bytes`] allows per rank: gossamer's default
/// [`Config::rack_slot_budget_bytes`](gossamer::Config::rack_slot_budget_bytes).
pub use gossamer::RACK_SLOT_BUDGET_BYTES as SLOT_BUDGET_BYTES;

/// Slot size for graph kernels with `threads` workers per rank and `workers`
/// in the whole job, with gossamer's default configuration: the runtime's own
/// rack rule ([`gossamer::rack_slot_size`], which
/// [`Config::rack_slot_size`](gossamer::Config::rack_slot_size) applies to any
/// configuration), used for graph work in one process too. [`MAX_SLOT_BYTES`]
/// unless that would take more than [`SLOT_BUDGET_BYTES`] per rank, in powers
/// of two, never below [`MIN_SLOT_BYTES`].
///
/// ```
/// use graph_kernel::runtime::slot_bytes;
/// assert_eq!(slot_bytes(2, 2), 64 << 10);
/// assert_eq!(slot_bytes(32, 256), 16 << 10); // 8 hosts x 32 threads
/// ```
pub use gossamer::rack_slot_size as slot_bytes;

/// Sets `builder` up for graph kernels: `threads` workers per rank and the
/// slot size the rack rule of the builder's configuration
/// ([`Config::rack_slot_size`](gossamer::Config::rack_slot_size); [`slot_bytes`]
/// with the defaults) gives for the builder's rank count.
///
/// ```
/// let b = graph_kernel::runtime::for_graphs(gossamer::Runtime::builder(), 2);
/// assert_eq!(b.run(gossamer::num_workers).unwrap(), 2);
/// ```
pub fn for_graphs(builder: Builder, threads: usize) -> Builder {
    let ranks = builder.ranks();
    let slot = builder
        .get_config()
        .rack_slot_size(threads, ranks * threads);
    builder.threads(threads).slot_size(slot)
}

/// A runtime builder for graph work: this process's place in a rack job from
/// the launcher's environment ([`Builder::from_env`]; a one-process run
/// without one), `threads` workers per rank, and graph kernels' slot size.
/// Call it first thing in `main` (in a rack job it may re-execute the
/// process). Fails when the launcher's environment is malformed.
///
/// See the module docs for an example.
pub fn builder(threads: usize) -> Result<Builder, Error> {
    Ok(for_graphs(Builder::from_env()?, threads))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_large_on_a_host_and_bounded_on_a_rack() {
        assert_eq!(slot_bytes(2, 2), 64 << 10);
        assert_eq!(slot_bytes(2, 8), 64 << 10);
        // 8 hosts x 32 threads: 16K slots per rank of 16 KiB each (256 MiB).
        assert_eq!(slot_bytes(32, 256), 16 << 10);
        // 1024 workers in one process: 2M slots; the size floors at 1 KiB.
        assert_eq!(slot_bytes(1024, 1024), 1 << 10);
        for (t, w) in [
            (1, 1),
            (3, 3),
            (4, 40),
            (64, 64),
            (2, 90),
            (8, 200),
            (16, 1000),
            (12, 700),
        ] {
            let s = slot_bytes(t, w);
            assert!(
                s.is_power_of_two() && (MIN_SLOT_BYTES..=MAX_SLOT_BYTES).contains(&s),
                "{t}x{w}: {s}"
            );
            assert!(2 * t * w * s <= 2 * SLOT_BUDGET_BYTES || s == MIN_SLOT_BYTES);
        }
    }
}
