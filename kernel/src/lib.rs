//! A vertex-centric API for distributed graph kernels on gossamer: write what
//! one vertex does, and the framework moves the updates between trustees.
//!
//! # Glossary
//!
//! - **Trust**: a reference to a value owned by one worker; closures are
//!   *applied* through it and run on the owner ([`gossamer::Trust`]).
//! - **Trustee**: the worker that owns a value and runs every closure applied to
//!   it. Here each trustee owns one shard of the graph and the kernel's state
//!   for its vertices.
//! - **Property**: a value entrusted to a trustee; here, the trustee's shard plus
//!   the kernels' state ([`graph_core::sharded::TrusteeState`]).
//! - **Shard**: the adjacency (CSR) of the vertices one trustee owns
//!   ([`graph_core::Shard`]); vertices are numbered locally `0..n` on each
//!   trustee, edges point to global ids.
//! - **Owner**: the trustee that owns a vertex (by the graph's
//!   [`Partition`](graph_core::Partition)); updates to a vertex are applied by
//!   its owner only.
//! - **Superstep**: one round of a bulk-synchronous kernel: every trustee sweeps
//!   its vertices (all of them or its frontier) and sends updates; the superstep
//!   ends when every update is applied everywhere and the trustees agree on a
//!   few numbers (frontier size, a residual) by a global reduction.
//! - **Frontier**: the active vertices of a superstep ([`Frontier`]): a queue
//!   while sparse, a bitmap when dense.
//!
//! # The pieces
//!
//! | item | role |
//! | --- | --- |
//! | [`Program`] | the per-trustee state of a kernel, its update type (`Msg`), `receive` and the optional `combine` |
//! | [`run`] | sets the state up on every trustee and runs one driver fiber per trustee |
//! | [`Kernel`] | the driver: [`for_each_vertex`](Kernel::for_each_vertex), [`for_each_active`](Kernel::for_each_active), [`with`](Kernel::with), [`end_superstep`](Kernel::end_superstep), [`sync`](Kernel::sync), reductions ([`reduce`](Kernel::reduce), [`sum`](Kernel::sum), [`min`](Kernel::min), [`max`](Kernel::max), [`any`](Kernel::any), [`sum_f64`](Kernel::sum_f64)) |
//! | [`Local`] | the view of the own trustee inside a sweep: vertices, edges, state, [`send`](Local::send), [`activate`](Local::activate) |
//! | [`Frontier`], [`FrontierMode`] | sparse (queue) and dense (bitmap) sets of active vertices |
//! | [`gather`] | one value per vertex from every trustee, by global id |
//! | [`tutorial`] | a step-by-step kernel (degree count, BFS levels, then the fast BFS from the blocks below), compiled as tests |
//!
//! # The blocks the fast kernels are made of
//!
//! `algorithms/bfs` (direction-optimizing BFS), `algorithms/sssp`
//! (delta-stepping over a [`Filter`] of sent distances), `algorithms/components` (Afforest over a [`Replica`] of
//! parents) and `algorithms/pagerank` (pull over a [`Replica`] of
//! contributions) are written directly on these, one fiber per trustee
//! ([`ShardedGraph::on_trustees`](graph_core::sharded::ShardedGraph::on_trustees)),
//! without [`Program`]; step 5 of the [`tutorial`] builds a BFS from them.
//!
//! | module | role |
//! | --- | --- |
//! | [`adjacency`] | [`Adjacency`]: each trustee's rows renumbered by degree to flat ids (owner lookup, local/remote split, merged parallel edges), prepared once per graph and shared by every kernel; [`LightHeavy`]: the weighted rows split at a bucket width; `prepare_search`, `gather_parents`. One file per concept: renumbering, flat ids, rows, preparing, the light/heavy split, searches |
//! | [`filter`] | [`Filter`]: per-vertex upper bounds over flat ids, one per process, that any of its trustees may lower: what a push kernel already sent, so it sends only improvements |
//! | [`outbox`] | [`Outbox`]: POD records batched per destination, shipped in slot-sized pieces, buffers recycled |
//! | [`replica`] | [`Replica`]: a dense bitmap or per-vertex array over flat ids, one per process, shared by its trustees and published to other processes |
//! | [`runtime`] | starting the runtime configured for graph work (the slot size the kernels were measured with) |
//! | [`source`] | [`Graph500Source`]: the Graph500 generator read slice by slice, for [`ShardedGraph::build_from`](graph_core::sharded::ShardedGraph::build_from) (every trustee generates its own share) |
//! | [`test_hook!`] | an environment variable read only in builds with the `test-hooks` feature (test builds of the command) |
//!
//! Tunables live in each kernel's config struct with measured defaults
//! (`BfsConfig::{alpha, beta, send_budget}`, `SsspConfig::{delta,
//! pass_budget, epoch_work}`, `CcConfig::{neighbor_rounds, samples,
//! skip_largest}`).
//!
//! How updates travel: [`Local::send`] to a vertex the sender owns calls
//! [`Program::receive`] at once; otherwise the record `(local index, msg)` is
//! appended to the batch for its owner (merged with a pending one for the same
//! vertex when [`Program::COMBINE`] is set). Between steps of a sweep the
//! batches leave as plain-old-data slices (`Trust::apply_slice_chunked_then`,
//! sized to the runtime's slots) and a delegated closure on the owner applies
//! them with `receive`. Nothing here blocks inside delegated context, uses
//! shared memory between trustees or atomics: the kernels only apply closures
//! to trusts, so they run unchanged wherever the trusts point.
//!
//! # Limits
//!
//! - Vertex ids are `u32` (graph-core's limit of 2^32 vertices); messages are
//!   [`gossamer::Pod`] values whose size is a multiple of 4 bytes.
//! - An update to a vertex of the sending trustee is applied at once, during
//!   the sweep; kernels that need the previous superstep's values keep two
//!   arrays (as PageRank does).
//! - [`Kernel::end_superstep`] costs two collective rounds (a barrier after
//!   every trustee's batches were answered, then the frontier count), so that
//!   the count it returns is exact; [`Kernel::end_superstep_quick`] and
//!   [`Kernel::sync`] cost one.
//! - Combining keeps one pending value and one bit per vertex of every other
//!   trustee on each trustee (allocated when first sent to).
//! - Closures given to [`run`], [`Kernel::with`] and the sweeps capture and
//!   return only plain values; per-vertex results come out with [`gather`].
//! - Missing so far: [`Program`] kernels do not use the blocks yet (a
//!   [`Local`] sweep still reads the [`Shard`](graph_core::Shard) by global
//!   id, pays a partition lookup per update, and has no pull step over a
//!   [`Replica`]). A [`Replica`] is published to every trustee of another process,
//!   not once per process (a rank does not know which of its peers share a
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
//!     run(&g, |s| MinLabel(s.vertices().map(|(_, g)| g as u32).collect()), |k| {
//!         k.with(|l| l.activate_all());
//!         while k.end_superstep() > 0 {
//!             k.for_each_active(|l, v| {
//!                 let label = l.state().0[v as usize];
//!                 for &u in l.neighbors(v) { l.send(u, label) }
//!             });
//!         }
//!     });
//!     gather(&g, 0, |m: &MinLabel| m.0.clone()).unwrap()
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
pub mod outbox;
pub mod replica;
pub mod runtime;
pub mod source;
pub mod tutorial;

mod test_hooks;

pub use adjacency::{Adjacency, LightHeavy};
pub use bounds::Bounds;
pub use filter::Filter;
pub use frontier::{Frontier, FrontierMode};
pub use kernel::{Direction, Kernel, STEP_WORK};
pub use local::{Local, Sender};
pub use net::KernelStats;
pub use outbox::Outbox;
pub use program::Program;
pub use replica::Replica;
pub use run::{gather, gather_flat, prepare, run, Prepare, Setup};
pub use source::Graph500Source;

pub use gossamer::Op;
