//! Graph data structures of gossamer-graph: the input edge list, vertex
//! partitions, per-shard CSR, the sharded graph the kernels run on, its
//! distributed construction, the files graph-core reads and writes, the
//! Graph500 validation and memory estimates.
//!
//! # Map of the concepts
//!
//! | concept | module | main items |
//! |---|---|---|
//! | input graph: packed 12-byte edge records, owned or zero-copy | [`edge_list`] | [`EdgeList`], [`PackedEdge`], [`Graph500Params`] |
//! | what the records mean: directed, weighted, the input file's vertex ids | [`meta`] | [`GraphMeta`], [`IdMap`] |
//! | who owns which vertex: (rank, trustee, local index); over-decomposed blocks and their table | [`partition`] | [`Partition`], [`PartitionKind`], [`Owner`], [`Partition::move_block`] |
//! | which blocks to move between searches: dealt by what each trustee owns (entries and live vertices; for BFS live vertices), checked against measured busy time, moved only when the search seconds repay the move | [`balance`] | [`balance::deal`], [`balance::block_cost`], [`balance::bfs_block_cost`], [`balance::plan`] (by busy rate), [`balance::BalanceConfig`], [`balance::Plan`] |
//! | per-trustee adjacency (undirected, or out-edges plus an in-edge index when directed; no self-loops, duplicates kept), its parallel build from an edge list, and the kernels' vertex order (by degree where degrees are skewed) | [`csr`] | [`Shard`], [`build_rank`], [`build_whole`], [`csr::positions`] |
//! | the shards entrusted to their trustees, and what every kernel shares (fibers per trustee, a reduction group, gathering) | [`sharded`] | [`ShardedGraph`](sharded::ShardedGraph), [`TrusteeState`](sharded::TrusteeState), [`TrusteeCtx`](sharded::TrusteeCtx), [`KernelError`](sharded::KernelError) |
//! | distributed construction: each trustee reads its slice, entries sent to their owners; blocks given new owners, in one process by copying rows in memory, across ranks as messages | [`construct`] | [`construct::EdgeSource`], [`construct::LocalSource`], [`ShardedGraph::build_from`](sharded::ShardedGraph::build_from), [`ShardedGraph::move_blocks`](sharded::ShardedGraph::move_blocks), [`ShardedGraph::ship_blocks`](sharded::ShardedGraph::ship_blocks) |
//! | the graph as built, one file for any run: the whole CSR (weights in a section of their own), each trustee's shard taken from the mapping (views under a block partition, its rows copied under a cyclic one), checked lazily by chunk | [`io::built`] (the file), [`construct`] (on the trustees) | [`io::built::write`](fn@io::built::write), [`io::built::open`](fn@io::built::open), [`io::built::BuiltGraph::shard`], [`ShardedGraph::open_built`](sharded::ShardedGraph::open_built) |
//! | a built graph saved per trustee and memory-mapped by later runs | [`io::prepared`] (the file), [`construct`] (on the trustees) | [`ShardedGraph::save_prepared`](sharded::ShardedGraph::save_prepared), [`ShardedGraph::open_prepared`](sharded::ShardedGraph::open_prepared), [`io::prepared::GraphIdentity`] |
//! | versioned, checksummed binary graph file, memory-mapped | [`io::file`] | [`io::file::write`], [`io::file::write_graph`], [`io::file::open`](fn@io::file::open), [`io::file::open_in_slices`], [`MappedGraph`], [`io::file::parse`] |
//! | outputs other than graph files (dumps, sidecars): a file replaced whole, a stream written in place, a link refused | [`io::output`] | [`io::output::write`](fn@io::output::write), [`io::output::Output`] |
//! | other tools' formats in: `.el`, `.wel`, `.mtx`, `.gr`, GAPBS `.sg`/`.wsg` | [`io::formats`] | [`io::formats::read`](fn@io::formats::read), [`io::formats::Format`], [`io::formats::FormatError`] |
//! | the official reference's vectors (edges, weights, roots, oracle distances and levels) | [`io::vectors`] | [`io::vectors::Vectors`] |
//! | Graph500 check of a BFS/SSSP result and its TEPS edge count | [`validate`] | [`validate::validate_bfs_list`], [`validate::validate_sssp_list`] |
//! | check of a connected-components labelling or PageRank scores, and the sequential references tests compare with | [`validate`] | [`validate::verify_cc`], [`validate::verify_pagerank`], [`validate::reference`] |
//! | the same from the shards, on every trustee, without the edge list | [`validate`], [`sharded`] | [`validate::validate_sssp_sharded`], [`validate::validate_bfs_sharded`], [`validate::count_traversed_sharded`], [`sharded::non_isolated_sharded`] |
//! | how much memory a run needs, and the refusal text | [`memory`] | [`memory::estimate`], [`MemoryEstimate`], [`memory::check_fits`] |
//! | fallible allocation of the large arrays, and a global allocator that exits with a message instead of aborting | [`alloc`] | [`alloc::try_vec`], [`alloc::vec_or_exit`], [`OutOfMemory`], [`alloc::ExitOnOom`] |
//!
//! Each folder's `mod.rs` is the map of its files, one concept each.
//!
//! The modules depend on each other one way, each only on those above it:
//!
//! 1. [`alloc`] (and `oom.rs`, private: its global allocator), [`partition`],
//!    [`meta`]: nothing else of graph-core; [`balance`] only on
//!    [`partition`];
//! 2. [`edge_list`];
//! 3. `mapped.rs` (private: file mappings and byte views);
//! 4. [`csr`];
//! 5. [`sharded`] and [`io`];
//! 6. [`construct`] (reads [`io`] files, fills a [`sharded`] graph) and
//!    `per_rank.rs` (private: one copy per process of an array the
//!    trustees read);
//! 7. [`validate`] and [`memory`] (whose model reads the construction's
//!    scratch sizes).
//!
//! The flow: the generator (or a file, or another tool's format read by
//! [`io::formats`]) gives an [`EdgeList`] (with its [`GraphMeta`]); a
//! [`Partition`] over `(ranks, threads per rank)` decides ownership; each
//! rank builds the [`Shard`]s of its trustees from the edge list, or its
//! trustees build them from their slices ([`construct`]); algorithms run on
//! the shards; [`validate`] checks their answers against the edge list, or
//! against the shards themselves on every trustee (for runs where no rank
//! holds the edge list).
//!
//! ```
//! use graph_core::{build_rank, EdgeList, PackedEdge, Partition, PartitionKind};
//! let list = EdgeList::from_edges(4, vec![
//!     PackedEdge::new(0, 1, 0.5),
//!     PackedEdge::new(1, 2, 0.5),
//!     PackedEdge::new(2, 3, 0.5),
//!     PackedEdge::new(3, 3, 0.5), // self-loop: not in the CSR
//! ]).unwrap();
//! let p = Partition::new(PartitionKind::Block, list.num_vertices(), 1, 2).unwrap();
//! let shards = build_rank(&list, &p, 0).unwrap();
//! let degrees: u64 = shards.iter().map(|s| s.num_entries()).sum();
//! assert_eq!(degrees, 2 * list.count_non_loops());
//! ```
//!
//! `unsafe` lives in five small private modules, each block with a `SAFETY`
//! comment: `mapped.rs` (the mappings of graph files, of [`io::formats`]'
//! inputs, of [`io::prepared`] shards and of [`io::built`] files, the byte <-> record and byte <->
//! number casts, and the slices that keep a mapping alive), `oom.rs` (the
//! global allocator [`alloc::ExitOnOom`], passing through to the system's,
//! and [`alloc::give_back_freed`]'s `malloc_trim`)
//! and, in
//! [`csr`], `csr/atomic_view.rs` (relaxed atomic stores during the
//! parallel fill), `csr/huge_pages.rs` (`madvise`) and `csr/prefetch.rs`
//! (x86_64 prefetch hints).
//!
//! Limits: vertex ids are 32-bit, so at most 2^32 vertices (Graph500 SCALE
//! <= 32); larger requests are refused with a clear error.

#![warn(missing_docs)]

pub mod alloc;
pub mod balance;
pub mod construct;
pub mod csr;
pub mod edge_list;
pub mod io;
mod mapped;
pub mod memory;
pub mod meta;
mod oom;
pub mod partition;
mod per_rank;
pub mod sharded;
pub mod validate;

pub use alloc::OutOfMemory;
pub use csr::{
    build_rank, build_rank_with, build_trustees, build_trustees_with, build_whole, CsrError, Shard,
};
pub use edge_list::{EdgeList, EdgeListError, Graph500Params, PackedEdge, MAX_SCALE, MAX_VERTICES};
pub use io::file::{GraphFileError, MappedGraph};
pub use memory::MemoryEstimate;
pub use meta::{GraphMeta, IdMap};
pub use partition::{Owner, Partition, PartitionError, PartitionKind};
