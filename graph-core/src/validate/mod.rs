//! Graph500 validation of a search result, and the checks of the
//! whole-graph kernels' answers (connected components, PageRank,
//! betweenness, triangles).
//!
//! The checks follow the Graph500 specification (and the reference's
//! `validate.c`), restated here in our own terms. A result is a parent array
//! (`NO_PARENT` for unreached vertices) plus, for SSSP, a distance array; for
//! BFS the validator derives each vertex's depth from the parent tree itself.
//!
//! 1. Every parent is a vertex id or `NO_PARENT`.
//! 2. The root is its own parent at depth / distance 0.
//! 3. Following parents from any reached vertex ends at the root: no cycle,
//!    no chain into an unreached vertex.
//! 4. Every input edge (self-loops ignored) joins two reached or two unreached
//!    vertices: the tree spans the root's whole component.
//! 5. The triangle rule holds on every input edge: `d(v) <= d(u) + w` both
//!    ways, in `f32` for SSSP and with `w = 1` on depths for BFS.
//! 6. Every reached non-root vertex is *confirmed* by an input edge from its
//!    parent with `d(v) == d(parent) + w` exactly (in `f32`): the parent is a
//!    neighbour and the distance is the length of the tree path.
//!
//! While it scans the edges, the validator also counts the edges of the
//! traversed component the Graph500 way (each non-loop input edge whose ends
//! are reached, duplicates included): that count is the TEPS numerator.
//!
//! # Directed graphs
//!
//! Graph500's rules assume undirected edges. On a directed graph (each
//! record an arc `u -> v`; [`validate_bfs_directed`],
//! [`validate_sssp_directed`], and the sharded validators on a directed
//! [`ShardedGraph`](crate::sharded::ShardedGraph)) rules 4-6 follow the
//! arcs:
//!
//! 4. every arc `u -> v` whose tail `u` is reached has its head `v`
//!    reached (an arc into a reached vertex from an unreached one is fine);
//! 5. `d(v) <= d(u) + w` along every arc from a reached tail (one way only);
//! 6. every reached non-root vertex `v` is confirmed by an arc
//!    `parent(v) -> v` with `d(v) == d(parent) + w`.
//!
//! The traversed-edge count is the number of non-loop arcs (duplicates
//! included) whose tail is reached: the arcs a search from the root
//! examines, as GAPBS's TEPS count them. On a valid answer their heads are
//! reached too.
//!
//! The generic forms ([`validate_bfs`], [`validate_sssp`]) take any edge
//! iterator (a file, a generator stream); [`validate_bfs_list`] and
//! [`validate_sssp_list`] take an [`EdgeList`](crate::EdgeList).
//! [`validate_bfs_sharded`] and [`validate_sssp_sharded`] need no edge
//! list: rules 4-6 and the edge count run on every trustee of a
//! [`ShardedGraph`](crate::sharded::ShardedGraph) over its own shard, with
//! the same results (see `validate/sharded/`); [`count_traversed_sharded`]
//! is their edge count without the checks.
//!
//! ```
//! use graph_core::validate::{validate_sssp_list, NO_PARENT};
//! use graph_core::{EdgeList, PackedEdge};
//! let list = EdgeList::from_edges(4, vec![
//!     PackedEdge::new(0, 1, 0.5),
//!     PackedEdge::new(1, 2, 0.25),
//!     PackedEdge::new(0, 2, 1.0),
//! ]).unwrap();
//! let parent = [0, 0, 1, NO_PARENT];
//! let dist = [0.0, 0.5, 0.75, f32::INFINITY];
//! let ok = validate_sssp_list(&list, 0, &parent, &dist).unwrap();
//! assert_eq!((ok.reached, ok.traversed_edges), (3, 3));
//! // A distance that is too long breaks the triangle rule on edge (0, 2).
//! let bad = [0.0, 0.5, 1.0, f32::INFINITY];
//! assert!(validate_sssp_list(&list, 0, &parent, &bad).is_err());
//! ```
//!
//! | file | what |
//! |---|---|
//! | `tree.rs` | rules 1-3 on the answer arrays, and the depths of the parent tree |
//! | `list.rs` | rules 4-6 and the edge count over the input records |
//! | `sharded/` | rules 4-6 and the edge count on every trustee's shard (`check.rs`, `scan.rs`) |
//! | `problems.rs` | the verdict ([`Validated`], [`ValidationError`]) and each problem's words |
//! | `components.rs` | [`verify_cc`]: a component labelling against the edge list ([`verify_cc_rows`]: against a whole graph's rows, e.g. a built file's read piece by piece) |
//! | `pagerank.rs` | [`verify_pagerank`]: PageRank scores against the edge list (one more iteration from them; [`verify_pagerank_rows`]: from a whole graph's rows), and the simple graph PageRank reads |
//! | `reference.rs` | sequential BFS, Dijkstra, union-find components and PageRank, the plain answers tests compare against |
//! | `triangles.rs` | [`tc_sequential`] and [`verify_tc`]: triangle counting's sequential count and verifier (the `tc` kernel's, kept here like the other validators); [`tc_rows`], [`verify_tc_rows`]: the same from a whole graph's rows |
//! | `betweenness.rs` | [`bc_rows`], [`verify_bc_rows`] (and the checks it shares with the `bc` crate's, [`check_bc_scores`], [`compare_bc_scores`]): betweenness from a few sources checked by a sequential Brandes over a whole graph's rows (the `bc` crate's verifier reads the list) |
//! | `row_reads.rs` | [`RowReads`]: a whole graph's rows one vertex at a time (a built file's [`RowReader`](crate::io::built::RowReader)), for the checks that follow edges |

mod betweenness;
mod components;
mod list;
mod pagerank;
mod problems;
pub mod reference;
mod row_reads;
mod sharded;
mod tree;
mod triangles;

pub use betweenness::{bc_rows, check_bc_scores, compare_bc_scores, verify_bc_rows};
pub use components::{verify_cc, verify_cc_rows, RowPass};

pub use list::{
    validate_bfs, validate_bfs_directed, validate_bfs_list, validate_sssp, validate_sssp_directed,
    validate_sssp_list,
};
pub use pagerank::{verify_pagerank, verify_pagerank_rows};
pub use problems::{Validated, ValidationError};
pub use row_reads::RowReads;
pub use sharded::{
    count_traversed_sharded, count_traversed_sharded_u32, validate_bfs_sharded,
    validate_bfs_sharded_u32, validate_sssp_sharded,
};
pub use tree::NO_PARENT;
pub use triangles::{tc_rows, tc_sequential, verify_tc, verify_tc_rows};
