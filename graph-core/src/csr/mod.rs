//! Per-shard compressed sparse rows (CSR).
//!
//! A [`Shard`] holds the adjacency of the vertices one trustee owns (by a
//! [`Partition`](crate::Partition)): `offsets` (one `u64` per local vertex, plus one) and the
//! adjacency as two parallel arrays (structure of arrays): neighbour global
//! id (`u32`) and weight (`f32`), 8 bytes per entry; a shard built for
//! kernels that never read weights has no weight array, 4 bytes per entry
//! ([`Shard::is_weighted`]).
//!
//! Semantics (the Graph500 kernels' graph):
//! * undirected: every input edge `(u, v, w)` appears in `u`'s list as
//!   `(v, w)` and in `v`'s list as `(u, w)`;
//! * directed ([`build_trustees_with`], [`Shard::is_directed`]): every
//!   input record `(u, v, w)` is the arc `u -> v` and appears in `u`'s list
//!   only, as `(v, w)`: the rows are out-edges, one entry per arc. The shard
//!   also keeps an unweighted in-edge index (`u` listed under `v`, 4 bytes
//!   per arc plus 8 per vertex: [`Shard::in_neighbors`]) for the kernels
//!   that pull along in-edges (PageRank) and the components' linking;
//! * self-loops are dropped;
//! * **duplicates are kept**: parallel edges stay as separate entries (SSSP
//!   only needs the minimum weight, but the Graph500 TEPS count needs, for
//!   every reached vertex `u`, the number of entries `v <= u` in this
//!   self-loop-free CSR, duplicates included);
//! * each vertex's list is in input (generator) order, so a build is
//!   deterministic whatever the number of threads.
//!
//! A kernel may *rewrite the rows in place* ([`Shard::rewrite_rows`]) instead
//! of keeping a private copy of them: it renames the targets to its own ids
//! and reorders each row (SSSP's light/heavy rows, see `graph_kernel`'s
//! `LightHeavy`), and leaves the table that names them back
//! ([`Shard::renamed`]). Rows then keep their vertices, degrees and entries
//! (duplicates too), so degrees, the Graph500 validation and the TEPS count
//! still read them; [`neighbors`](Shard::neighbors) names targets by global
//! id either way, while [`adjacency`](Shard::adjacency) and
//! [`targets`](Shard::targets) hand out the stored ids. Kernels that read
//! raw global ids refuse such a graph
//! (`ShardedGraph::check_global_ids`).
//!
//! A shard built without weights stores its rows in position order (by
//! decreasing degree where degrees are skewed, [`positions`];
//! [`Shard::row_slots`]: the order in which graph-kernel numbers a
//! trustee's vertices), so that the kernels' unweighted rows can be the
//! shard's own targets, renamed and ordered in place
//! ([`Shard::share_rows`]) instead of a second copy.
//!
//! Building ([`build_rank`], [`build_trustees`], [`build_whole`]) is a
//! parallel two-pass counting sort of the adjacency entries. The edge list
//! is cut into one contiguous chunk per worker thread (rayon); each chunk
//! is read once per pass:
//! 1. each chunk counts its endpoints per owned vertex in a private array;
//! 2. a prefix sum over vertices (and, per vertex, over chunks) gives every
//!    chunk its own write cursor per vertex, after the entries of the
//!    earlier chunks;
//! 3. each chunk writes both directions of its edges at its cursors.
//!
//! No two chunks write the same position, so there are no atomic
//! read-modify-writes and no locks; each vertex's list comes out in input
//! order, so the CSR is the same for any thread count.
//!
//! The passes are bound by accesses to unpredictable cache lines; three
//! small private modules hold this folder's `unsafe`, each with its
//! `SAFETY` argument: `atomic_view.rs` (the scattered writes are relaxed
//! stores through an `AtomicU32` view of the adjacency arrays),
//! `huge_pages.rs` (`madvise(MADV_HUGEPAGE)` on the big arrays, fewer TLB
//! misses) and `prefetch.rs` (x86_64 software prefetch of the cursor and
//! entry lines a few dozen edges ahead).
//!
//! Peak memory during construction is the edge list (12 B/edge) plus the
//! adjacency (2 entries x 8 B = 16 B per non-loop edge) plus one `u64` per
//! owned vertex (0.5 B/edge at edgefactor 16) plus one `u32` cursor per
//! owned vertex for every chunk but the last (0.25 B/edge with 2 threads at
//! edgefactor 16; capped at 1 B/edge by using fewer chunks), measured with
//! `cargo run --release -p graph-core --example build_memory`. Graphs with
//! more than `u32::MAX / 2` edges are sorted as one chunk (64-bit cursors).
//!
//! | file | what |
//! |---|---|
//! | `shard.rs` | the [`Shard`] and what the kernels read of it |
//! | `build.rs` | [`build_rank`] and its relatives: chunks of the list, shards of the trustees |
//! | `sort.rs` | the counting sort: count, prefix sums, scatter |
//! | `error.rs` | [`CsrError`] |
//! | `atomic_view.rs`, `huge_pages.rs`, `prefetch.rs` | the `unsafe` above |

mod atomic_view;
mod build;
mod error;
pub(crate) mod huge_pages;
mod order;
pub(crate) mod prefetch;
mod shard;
mod sort;

pub use build::{build_rank, build_rank_with, build_trustees, build_trustees_with, build_whole};
pub use error::CsrError;
pub use huge_pages::advise as advise_huge_pages;
pub use order::{positions, SKEW};
pub use prefetch::line as prefetch_line;
pub(crate) use shard::Array;
pub(crate) use shard::Ready;
pub use shard::{Lent, ReadyLent, Shard, SharedRows, TakeRows, TakenRows, AHEAD};
