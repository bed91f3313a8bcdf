//! Distributed construction: every trustee reads its own slice of the edge
//! stream and sends each adjacency entry once, in bulk, to the trustee that
//! owns it, so no process ever holds the whole edge list.
//!
//! [`ShardedGraph::build_from`](crate::sharded::ShardedGraph::build_from)
//! takes an [`EdgeSource`]: something every trustee can open in its own
//! process and read any range of (the Graph500 generator, a graph file on a
//! shared filesystem, a list every process holds). Trustee `t` of `W` reads
//! edges `t*M/W .. (t+1)*M/W` of the `M` input edges; the source decides
//! what the edge at an index is, so the graph is the same for any number of
//! ranks and threads.
//!
//! Two passes over the slice, so that every array is allocated once, at its
//! final size, and nothing grows by doubling. A mapped or in-memory slice is
//! read again; a generated one is generated again, except the part the
//! first pass kept for the second (12 B per edge until the shards are
//! built) when the source says so ([`EdgeSource::kept_permille`]): what is
//! kept saves its generation time, but once the kernels no longer copy the
//! rows the kept part adds to the rank's construction peak, so the
//! commands keep only as much as stays under the rank's later peak
//! (`graph_core::memory::MemoryEstimate::kept_permille`).
//!
//! 0. **check** (only a source that asks, [`EdgeSource::checks_slices`]: a
//!    graph file opened without reading it, `file::open_in_slices`): every
//!    trustee checks its slice's ids and weights and hashes the chunks of
//!    the file's data checksum that start in it; the builder folds the
//!    digests and compares them with the header, so a corrupt file is
//!    refused before anything is built, and no process reads more than
//!    its slices;
//! 1. **count**: each non-loop edge `(u, v)` sends `u`'s local index to
//!    `u`'s owner and `v`'s to `v`'s; owners count degrees;
//! 2. **fill**: after a prefix sum every owner allocates its rows exactly;
//!    the slice is read again and each edge sends `(local u, v, w)` to
//!    `u`'s owner and `(local v, u, w)` to `v`'s, written at a cursor.
//!
//! A **directed** source ([`EdgeSource::directed`]) reads each record as
//! the arc `u -> v`: the same two passes send `(local u, v, w)` to `u`'s
//! owner as a row entry (an out-edge) and `(local v, u)` to `v`'s owner as
//! an entry of its in-edge index, so each row holds its vertex's
//! out-edges only and [`Shard::in_neighbors`](crate::Shard::in_neighbors) the tails of its in-arcs
//! (see [`crate::csr`]). The same messages travel as for an undirected graph.
//!
//! Records travel as POD slices in slot-sized pieces
//! ([`Trust::apply_slice_chunked_then`](gossamer::Trust::apply_slice_chunked_then)),
//! pipelined, with no round trip per piece; a sender that runs ahead of a
//! busy owner waits (gossamer's backpressure), so the queues stay a few
//! slots deep. Entries arrive in no fixed order, so the order *within* a row
//! depends on timing: the kernels renumber and sort every row anyway
//! (graph-kernel's adjacency) and the validators do not depend on it, so
//! the rows are not sorted here (measured: sorting cost 0.5 s of CPU at
//! SCALE 20).
//!
//! A source wrapped in [`Unweighted`] builds shards without weights (4 B
//! per entry instead of 8), for the kernels that never read them.
//!
//! Peak memory per trustee: its shard (8 bytes per entry, 16 per owned
//! non-loop edge; 4 and 8 without weights), its offsets and cursors (16 bytes per owned vertex), a
//! few MiB of send buffers and read chunks, and the kept part of a
//! generated slice (12 bytes per kept edge). A graph file opened in
//! slices gives its pages back as each read chunk is done with
//! ([`EdgeSource::release`]), so they do not stay in the resident set (a
//! file opened whole stays mapped for the commands that read it whole).
//!
//! ```
//! use graph_core::construct::LocalSource;
//! use graph_core::sharded::ShardedGraph;
//! use graph_core::{EdgeList, PackedEdge, PartitionKind};
//! let list = EdgeList::from_edges(4, vec![
//!     PackedEdge::new(0, 1, 0.5),
//!     PackedEdge::new(2, 1, 0.25),
//!     PackedEdge::new(3, 3, 1.0), // self-loop: not in the shards
//! ]).unwrap();
//! let source = LocalSource::publish_list(list);
//! let degrees = gossamer::main(2, move || {
//!     let (g, _) = ShardedGraph::build_from(source, PartitionKind::Cyclic).unwrap();
//!     g.gather(0u64, |s| {
//!         let sh = s.shard();
//!         (0..sh.num_local_vertices()).map(|l| sh.degree(l)).collect()
//!     })
//! });
//! assert_eq!(degrees, [1, 2, 1, 0]);
//! ```
//!
//! | file | what |
//! |---|---|
//! | `source.rs` | where the edges come from: [`EdgeSource`], [`LocalSource`] over [`EdgeRecords`], [`Unweighted`] |
//! | `passes.rs` | [`ShardedGraph::build_from`](crate::sharded::ShardedGraph::build_from): the check and the two passes on every trustee |
//! | `exchange.rs` | what the trustees send each other: entries to their owners, and whether a step failed |
//! | `progress.rs` | how far this process's trustees are, for a progress display ([`build_progress`]) |
//! | `built.rs` | [`open_built`](crate::sharded::ShardedGraph::open_built): every trustee takes its shard from a built graph file ([`crate::io::built`]) |
//! | `moved.rs` | [`move_blocks`](crate::sharded::ShardedGraph::move_blocks): blocks given new owners in one process, the rows copied in memory from the old shards ([`Moved`]) |
//! | `shipped.rs` | [`ship_blocks`](crate::sharded::ShardedGraph::ship_blocks): blocks given new owners across ranks, each trustee sending its rows to their new owners in the build's two passes (what `move_blocks` does in a rack run) |
//! | `prepared.rs` | [`save_prepared`](crate::sharded::ShardedGraph::save_prepared) and [`open_prepared`](crate::sharded::ShardedGraph::open_prepared) on every trustee (the file is [`crate::io::prepared`]) |

mod built;
mod exchange;
mod moved;
mod passes;
mod prepared;
mod progress;
mod shipped;
#[cfg(test)]
mod skewed;
mod source;

pub use built::ReadyUse;
pub use moved::Moved;
pub use passes::{scratch_bytes_per_trustee, BuildTimes};
pub use progress::{build_progress, BuildProgress, BuildStep};
pub use source::{EdgeRecords, EdgeSource, LocalSource, Unweighted};
