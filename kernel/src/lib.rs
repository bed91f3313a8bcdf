//! A vertex-centric API for distributed graph kernels on gossamer: write
//! what one vertex does and what a message does when it arrives; the driver
//! moves the messages between trustees, ends supersteps and picks
//! directions. Every kernel of gossamer-graph (BFS, SSSP, connected
//! components, PageRank, betweenness, triangles, k-core) is written in this
//! one shape; [`tutorial`] builds one step by step.
//!
//! # Glossary
//!
//! - **Trust**: a reference to a value owned by one worker; closures are
//!   *applied* through it and run on the owner ([`gossamer::Trust`]).
//! - **Trustee**: the worker that owns a value and runs every closure
//!   applied to it. Here each trustee owns one shard of the graph and the
//!   kernel's state for its vertices.
//! - **Owner**: the trustee that owns a vertex (by the graph's
//!   [`Partition`](graph_core::Partition)); messages to a vertex are
//!   applied by its owner only.
//! - **Position** and **flat id**: an own vertex's index in every
//!   per-vertex array of a state (`0..num_own()`), and any vertex's name in
//!   the rows and in [`Local::send`]; see [`Adjacency`].
//! - **Superstep**: one round of a bulk-synchronous kernel: every trustee
//!   sweeps its vertices (all of them or its frontier) and sends; the
//!   superstep ends when every message is applied everywhere and the
//!   trustees agree on a few numbers (frontier size, a residual) by a
//!   global reduction.
//! - **Frontier**: the active vertices of a superstep ([`Frontier`]): a
//!   queue while sparse, a bitmap when dense.
//!
//! # The one shape
//!
//! | item | role |
//! | --- | --- |
//! | [`Program`] | the per-trustee state: the message type (`Msg`), [`receive`](Program::receive) (what a message does to a vertex), the optional [`combine`](Program::combine), [`receive_here`](Program::receive_here) (a message to the trustee itself), [`next_superstep`](Program::next_superstep) and [`prefetch`](Program::prefetch) (a cache hint a push sweep gives for the targets of the rows it reads next) |
//! | [`run`], [`Setup`], [`update_states`], [`release_states`] | makes the state on every trustee (from the previous run's, to reset instead of allocate) and runs one driver fiber per trustee; changes every trustee's state between runs |
//! | [`Kernel`] | the driver: sweeps ([`for_each_vertex`](Kernel::for_each_vertex), [`for_each_active`](Kernel::for_each_active)), [`step`](Kernel::step) in a [`Direction`] (push, pull, or switched by Beamer's heuristic), [`passes`](Kernel::passes) for kernels that order their own work, [`end_superstep`](Kernel::end_superstep), [`sync`](Kernel::sync), reductions, [`publish`](Kernel::publish) |
//! | [`Local`] | the own trustee inside a sweep: positions, flat ids, rows (as slices, or through [`for_each_target`](Local::for_each_target) / [`find_target`](Local::find_target), which read compressed rows too), state, [`send`](Local::send), [`send_first`](Local::send_first), [`send_to_trustee`](Local::send_to_trustee), [`activate`](Local::activate), [`was_active`](Local::was_active) in a pull |
//! | [`gather`], [`gather_flat`], [`gather_flat_u32`] | one value per vertex from every trustee, by global id |
//! | [`prepare`], [`prepare_with`] | the renumbering and rows built before a kernel starts its clock; [`prepare_with`] chooses plain or compressed rows ([`RowsFormat`]); [`rows_footprint`] their bytes |
//!
//! # The blocks a state is made of
//!
//! | module | role |
//! | --- | --- |
//! | [`adjacency`] | [`Adjacency`]: each trustee's vertices renumbered by degree to flat ids (owner lookup, local/remote split), rows with parallel edges merged (in an unweighted shard itself, else a copy; or compressed, byte-coded differences), prepared once per graph and shared by every kernel; [`LightHeavy`]: the weighted rows split at a bucket width |
//! | `bounds` | [`Bounds`]: per-flat-id upper bounds of a push kernel's values, so it sends only improvements (SSSP) |
//! | [`paths`] | [`Paths`](paths::Paths): shortest-path counts past `f64`'s range, bit for bit `f64` sums while they fit (betweenness) |
//! | [`filter`] | [`Filter`]: those bounds for the other processes' vertices, one per process |
//! | [`lists`] | [`Lists`](lists::Lists): lists by index whose lengths are known before their items, filed in place as records arrive (tc's out-lists) |
//! | [`forest`] | [`Forest`]: a per-vertex replica of vertex names (a union-find parent forest) [published](Kernel::publish_forest) only where other processes can read it: the boundary and the vertices named in what was sent; [filled](Forest::fill) in a run's first step, [compressed](Forest::compress) to stars across processes by [`Forest::flatten`] |
//! | [`replica`] | [`Replica`]: a dense bitmap or per-vertex array over flat ids, one per process, shared by its trustees and [published](Kernel::publish) to other processes |
//! | [`roots`] | [`check_roots`](roots::check_roots): 1 to a most roots, each a vertex |
//! | [`runtime`] | starting the runtime configured for graph work (the slot size the kernels were measured with) |
//! | [`sequential`] | [`simple_rows`](sequential::simple_rows): an edge list as the simple graph the kernels see, for the sequential references |
//! | [`source`] | [`Graph500Source`]: the Graph500 generator read slice by slice, for [`ShardedGraph::build_from`](graph_core::sharded::ShardedGraph::build_from) |
//! | [`test_hook!`] | an environment variable read only in builds with the `test-hooks` feature (test builds of the command) |
//!
//! Inside: `program.rs`, `run.rs`, `kernel.rs` (the driver), `local.rs`,
//! `net.rs` (outgoing messages, combining, delivery), `outbox.rs` (batches
//! per destination, shipped in slot-sized pieces), `state.rs` (what the
//! driver keeps per trustee), `frontier.rs`, `addressed.rs` (the wire
//! record, this crate's only `unsafe`).
//!
//! Tunables live in each kernel's config struct with measured defaults
//! (`BfsConfig`, `SsspConfig`, `CcConfig`, `PageRankConfig`, `BcConfig`,
//! `TcConfig`, `KcoreConfig`); the driver's one, the work of a sweep step,
//! is [`STEP_WORK`] ([`Kernel::set_step_work`]).
//!
//! # How messages travel, and what is shared
//!
//! [`Local::send`] to a vertex the sender owns calls [`Program::receive`]
//! at once; otherwise the record `(position at the owner, msg)` is
//! appended to the batch for its owner (merged with a pending one for the
//! same vertex when [`Program::COMBINE`] is set). Between steps of a sweep
//! and after every pass the batches leave as plain-old-data slices
//! (`Trust::apply_slice_chunked_then`, sized to the runtime's slots) and a
//! delegated closure on the owner applies them with `receive`. A barrier
//! or all-reduce travels behind every party's batches, so when it returns
//! everything sent before it has been applied.
//!
//! Messages are the only way trustees of *different processes* reach each
//! other. Trustees of *one process* also share three blocks, each once per
//! process instead of once per trustee: the renumbering tables (read
//! only), a [`Replica`] (each trustee writes only its own words; barriers
//! order the writes of one step before the reads of the next) and a
//! [`Filter`] (any trustee may lower any entry, but every value in it was
//! sent during the current search, so a race only weakens it). All three
//! are relaxed atomics or read-only data: no locks, no read-modify-write.
//! In a rack job each process has its own copy; [`Kernel::publish`] copies
//! a trustee's words of a replica to the trustees of the other processes,
//! and a filter is never copied (each process filters what it sends).
//!
//! # Limits
//!
//! - Vertex ids are `u32` (graph-core's limit of 2^32 vertices); messages
//!   are [`gossamer::Pod`] values whose size is a multiple of 4 bytes.
//! - A message to a vertex of the sending trustee is applied at once,
//!   during the sweep; kernels that need the previous superstep's values
//!   keep two arrays (as PageRank does).
//! - [`Kernel::end_superstep`] costs two collective rounds when a record
//!   went between trustees in the superstep (so that the count it returns
//!   is exact), one otherwise; [`Kernel::end_superstep_quick`] and
//!   [`Kernel::sync`] cost one.
//! - Combining keeps one pending value and one bit per vertex of every
//!   other trustee on each trustee (allocated when first sent to);
//!   [`Local::send_first`] one bit per vertex of the graph.
//! - Closures given to [`run`], [`Kernel::with`] and the sweeps capture
//!   only plain values; [`Kernel::with_returning`] and [`gather`] bring
//!   other results back.
//! - A [`Replica`] is published to every trustee of another process, not
//!   once per process (a rank does not know which of its peers share a
//!   process), so a rack job sends it `trustees per rank` times over.
//!
//! ```
//! use graph_kernel::{gather, run, Program};
//! /// Minimum global id in each vertex's connected component.
//! struct MinLabel(Vec<u32>);
//! impl Program for MinLabel {
//!     type Msg = u32;
//!     const COMBINE: bool = true;
//!     fn receive(&mut self, v: u32, l: u32) -> bool {
//!         let lower = l < self.0[v as usize];
//!         if lower { self.0[v as usize] = l; }
//!         lower
//!     }
//!     fn combine(acc: &mut u32, l: u32) { *acc = (*acc).min(l); }
//! }
//! let list = graph_core::EdgeList::from_edges(5, vec![
//!     graph_core::PackedEdge::new(3, 4, 1.0),
//!     graph_core::PackedEdge::new(1, 2, 1.0),
//!     graph_core::PackedEdge::new(2, 4, 1.0),
//! ]).unwrap();
//! let labels = gossamer::main(2, move || {
//!     let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Cyclic).unwrap();
//!     run(&g, |s, _| {
//!         let a = s.adjacency();
//!         MinLabel((0..a.num_own()).map(|v| a.global_of(a.flat(v))).collect())
//!     }, |k| {
//!         k.with(|l| l.activate_all());
//!         while k.end_superstep() > 0 {
//!             k.for_each_active(|l, v| {
//!                 let label = l.state().0[v as usize];
//!                 for &f in l.row(v) { l.send(f, label) }
//!             });
//!         }
//!     });
//!     gather(&g, 0, |m: &MinLabel, v| m.0[v as usize]).unwrap()
//! });
//! assert_eq!(labels, [0, 1, 1, 1, 1]);
//! ```

#![warn(missing_docs)]

mod addressed;
mod frontier;
mod kernel;
mod local;
mod net;
mod program;
mod run;
mod state;

pub mod adjacency;
mod bounds;
pub mod doc;
pub mod filter;
pub mod forest;
pub mod lists;
mod outbox;
pub mod paths;
pub mod replica;
pub mod roots;
pub mod runtime;
pub mod sequential;
pub mod source;
pub mod tutorial;

mod test_hooks;

pub use adjacency::{Adjacency, LightHeavy, RowsFormat};
pub use bounds::Bounds;
pub use filter::Filter;
pub use forest::Forest;
pub use frontier::{Frontier, FrontierMode, Members};
pub use kernel::{Direction, Kernel, PULL_MIN, STEP_WORK};
pub use local::{Local, Sender};
pub use net::KernelStats;
pub use program::Program;
pub use replica::Replica;
pub use run::{
    gather, gather_flat, gather_flat_u32, prepare, prepare_with, release_states, rows_footprint,
    run, update_states, Prepare, RowsFootprint, Setup,
};
pub use source::Graph500Source;

pub use gossamer::Op;
