//! [`Adjacency`]: a kernel-ready view of one trustee's adjacency, renumbered
//! by degree, prepared once per graph and shared by every kernel that runs on
//! it; [`LightHeavy`], the weighted rows split at a bucket width for
//! delta-stepping.
//!
//! # Flat ids
//!
//! A [`Shard`](graph_core::Shard) names neighbours by global id, so every edge a kernel follows
//! would cost a partition lookup (a division for a block partition) to find
//! the neighbour's owner and its index there. The prepared adjacency renames
//! every vertex once, to a *flat id*:
//!
//! - each trustee orders its own vertices by decreasing degree (ties by local
//!   index) when the degrees are skewed, and keeps their local order on a
//!   graph without hubs, such as a road network, where that order keeps
//!   neighbours near in memory ([`graph_core::csr::positions`]); a vertex's
//!   place in that order is its *position* at its owner;
//! - trustee `o`'s vertex at position `r` has flat id `base(o) + r`, where
//!   the bases are cumulative vertex counts rounded up to multiples of 64, so
//!   each trustee's vertices fill whole words of a bitmap over flat ids (what
//!   [`Replica`](crate::Replica) exchanges) and the owner of a flat id is one
//!   comparison per trustee ([`owner_of`](Adjacency::owner_of)).
//!
//! On a directed graph the rows are the out-edges (what the shard's rows
//! hold) and [`Adjacency::in_rows`] gives the in-edges, built the same way
//! from the shard's in-edge index when a kernel pulls along them.
//!
//! [`Rows`] are in position order, their targets are flat ids sorted
//! ascending with parallel edges merged (the count merged stays available for
//! statistics: [`entries_merged`](Rows::entries_merged); TEPS count the
//! input edges, through the validator, not these rows). On a shard without
//! weights they are the shard's own array, renamed to flat ids and ordered
//! when the graph is prepared ([`Shard::share_rows`](graph_core::Shard::share_rows):
//! each row's targets, then its parallel entries): in place when the build
//! stored the rows in position order already
//! ([`Shard::row_slots`](graph_core::Shard::row_slots)), else copied into
//! position order in one pass (rows viewed in a mapped built graph file,
//! whose pages the shard gives back behind the copy), so the process keeps
//! one copy of every entry; otherwise they are a copy, built the first time a
//! kernel asks ([`Adjacency::rows`]), so a kernel that uses only
//! its weighted rows ([`LightHeavy`], split inside the shard or in a copy)
//! does not pay their memory. Hubs come first in every row and their
//! per-vertex state shares a few cache lines, which is where most edges of a
//! Kronecker graph lead.
//!
//! A kernel works on positions (its per-vertex arrays are indexed by them),
//! turns a flat id into "mine, at position `v`" with
//! [`own`](Adjacency::own) or into `(owner, position there)` with
//! [`locate`](Adjacency::locate), and hands results back by original local
//! index with [`by_local`](Adjacency::by_local) (what
//! [`ShardedGraph::gather`](graph_core::sharded::ShardedGraph::gather) wants),
//! flat ids back as global ids with [`global_of`](Adjacency::global_of).
//!
//! # Preparing
//!
//! Preparing is collective ([`run`](crate::run) and
//! [`prepare`](crate::prepare) do it, the first time on a graph): each trustee sends its positions to every other one as
//! POD slices; the first trustee of each process files them, and the
//! process's trustees then share one copy of the renumbering tables (every
//! vertex's flat id, in huge pages, and the flat-id map, 8 B per vertex of
//! the whole graph: once per rank, not once per trustee). It does the work only the
//! first time on a graph; later calls (any kernel) find the adjacency in
//! place. A program's setup gets the shared handle
//! ([`Setup::adjacency`](crate::Setup::adjacency)).
//!
//! # Compressed rows
//!
//! A graph prepared with [`RowsFormat::Compressed`]
//! ([`prepare_with`](crate::prepare_with)) keeps its unweighted rows (and
//! in-rows) as byte-coded differences of the sorted flat ids, the first
//! relative to the row's own vertex (as Ligra+ does; `packed.rs` has the
//! format): 1-5 B an entry instead of 4, plus a byte offset and a length
//! per vertex. They have no slices to hand out: a kernel reads them with
//! [`Rows::for_each`], [`Rows::find`], [`Rows::nth`] and [`Rows::read`]
//! (a row as a slice, a compressed one decoded into a buffer; in a sweep,
//! [`Local::for_each_target`](crate::Local::for_each_target) and
//! [`Local::find_target`](crate::Local::find_target)), which read plain
//! rows too with one branch per row on the format, none per entry, so a
//! kernel is written once for both; [`Rows::row`] panics on compressed
//! rows. On a shard without weights the shard gives its targets up to them
//! ([`Shard::take_rows`](graph_core::Shard::take_rows)): each row is
//! renamed, ordered and coded as the shard hands it over, its parallel
//! entries coded after its targets (a search never reads them), and the
//! shard's plain array is given back chunk by chunk behind the coding, so
//! the process never holds both; validation and the TEPS count read the
//! shard's entries back through the compressed rows
//! ([`Shard::row_ids`](graph_core::Shard::row_ids)). Elsewhere (a weighted
//! shard, in-rows of a directed graph) the compressed rows are coded from a
//! copy.
//!
//! Preparing costs O(entries): each entry is renamed (one load from the
//! flat-id table, prefetched a few dozen entries ahead) and each row
//! sorted (radix sorted when long, `radix.rs`); from a built graph file
//! the rows are also copied out of the mapping into their position order.
//! A shard taken from a built file's *ready rows* (graph-core's
//! `io::built::ReadyRows`, written by this very preparation for one
//! layout) holds its rows renamed and ordered already: once the
//! renumbering tables prove equal to the file's
//! ([`Shard::adopt_names`](graph_core::Shard::adopt_names)), its rows are
//! lent as they are ([`Shard::lend_ready_rows`](graph_core::Shard::lend_ready_rows),
//! SSSP's split likewise), and preparing costs O(vertices).
//!
//! ```
//! use graph_core::sharded::ShardedGraph;
//! use graph_kernel::{run, Program};
//! /// Each own vertex's row, by position, as global ids.
//! struct Rows(Vec<Vec<u32>>);
//! impl Program for Rows { type Msg = u32; fn receive(&mut self, _: u32, _: u32) -> bool { false } }
//! let list = graph_kernel::doc::path(5); // 0-1-2-3-4
//! let rows = gossamer::main(2, move || {
//!     let g = ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
//!     let init = |s: &mut graph_kernel::Setup<'_>, _: Option<Rows>| {
//!         let (a, rows) = (s.adjacency(), s.rows());
//!         Rows((0..a.num_own()).map(|v| rows.row(v).iter().map(|&f| a.global_of(f)).collect()).collect())
//!     };
//!     run(&g, init, |k| k.with_returning(|l| l.state().0.clone()))
//! });
//! // A path has no hubs: trustee 0 keeps its vertices 0, 1, 2 in their
//! // order (flat ids 0, 1, 2); rows list flat ids ascending. (On a graph
//! // with hubs, each trustee's vertices go by decreasing degree.)
//! assert_eq!(rows[0], [vec![1], vec![0, 2], vec![1, 3]]);
//! assert_eq!(rows[1], [vec![2, 4], vec![3]]);
//! ```
//!
//! # The parts
//!
//! | file | holds |
//! | --- | --- |
//! | `renumber.rs` | positions by degree, flat-id bases, the tables a process's trustees share |
//! | `flat.rs` | [`Adjacency`]: flat ids, owner lookup, positions, global ids; [`NO_FLAT`] |
//! | `rows.rs` | [`Rows`]: the unweighted rows, merged, copied or in the shard, plain or compressed ([`RowsFormat`]); [`simple_lists`] |
//! | `packed.rs` | compressed rows: byte-coded differences of each row's flat ids |
//! | `prepare.rs` | the collective renumbering, once per graph |
//! | `radix.rs` | sorting a row while preparing: radix sort for long rows |
//! | `light_heavy.rs` | [`LightHeavy`]: the weighted rows split at Δ |

mod flat;
mod light_heavy;
mod packed;
mod prepare;
mod radix;
mod renumber;
mod rows;

pub use flat::{Adjacency, NO_FLAT};
pub use light_heavy::LightHeavy;
pub(crate) use packed::PackedView;
pub(crate) use prepare::{prepare, shared};
pub(crate) use rows::RowsView;
pub use rows::{simple_lists, Rows, RowsFormat};
