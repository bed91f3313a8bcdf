//! Bit-exact port of the Graph500 Kronecker graph generator (reference
//! implementation, `newreference` line), with weights and search roots;
//! and a road-like grid graph for the other end of the spectrum (high
//! diameter, degree about 4).
//!
//! # Map
//!
//! * [`mrg`] — the random stream: a multiple recursive generator modulo
//!   `2^31 - 1` with a 5-word state, seeded from two `u64`s. Jumping ahead by
//!   any distance is one matrix power, so the stream splits without
//!   coordination.
//! * [`Kronecker`] — the graph. Edge `i` reads its own stream (`i * 2^64`
//!   steps in): `scale` quadrant draws of the R-MAT recursion
//!   (A = 0.57, B = C = 0.19, D = 0.05), clipped to the upper triangle, then
//!   both ids go through the scrambling bijection, then one more output is
//!   the weight. Any edge, any range ([`Kronecker::edges`]) or a parallel fill
//!   ([`Kronecker::par_map_into`]) gives the same values, so every rank can
//!   generate exactly its own slice.
//! * Scrambling — a fixed relabelling of `0..2^scale` (two multiply and
//!   bit-reverse rounds with keys drawn from the stream) that hides the
//!   Kronecker structure; applied inside the generator.
//! * Weights — [`Edge::w`]: the output converted to `f32`, times
//!   `1/(2^31-1)` in `f64`, rounded to `f32`; in `[0, 1]`.
//! * Roots — [`Kronecker::search_roots`]: the reference's 64 BFS/SSSP roots
//!   from an independent stream, skipping repeats and vertices that only have
//!   self-loops ([`non_isolated`], [`VertexSet`]).
//! * [`Graph500Config`] / [`ConfigError`] — SCALE, edgefactor and seeds,
//!   validated.
//! * [`Grid`] (`grid.rs`) — a road-like graph instead: a `rows x cols` grid
//!   of crossings joined to their 4 neighbours, each street removed with
//!   a given probability, integer lengths uniform in a range
//!   ([`GridConfig`], [`GridError`]); undirected, or two arcs per street.
//!   Street `i` depends only on `(seed, i)`, so threads fill disjoint rows
//!   ([`Grid::layout`], [`Grid::fill`]) and any thread count gives the
//!   same records; [`Grid::search_roots`] picks roots in the largest
//!   connected piece.
//!
//! # Example
//!
//! ```
//! use generators::{Edge, Graph500Config, Kronecker};
//!
//! let g = Kronecker::new(Graph500Config::with_scale(10))?; // edgefactor 16, seeds 2, 3
//! assert_eq!((g.num_vertices(), g.num_edges()), (1024, 16384));
//!
//! // Stream a slice, or fetch one edge: the same values.
//! let slice: Vec<Edge> = g.edges(1000..1010).collect();
//! assert_eq!(slice[3], g.edge(1003));
//!
//! // Fill a buffer in parallel, mapping each edge on the fly.
//! let mut ends = vec![(0, 0); g.num_edges() as usize];
//! g.par_map_into(0, &mut ends, |e| (e.u, e.v));
//!
//! // The reference's search roots.
//! let live = generators::non_isolated(g.num_vertices(), ends.iter().copied())?;
//! let roots = g.search_roots(64, |v| live.contains(v));
//! assert_eq!(roots[0], 458);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod config;
mod grid;
mod kronecker;
pub mod mrg;
mod roots;
mod scramble;
mod shares;

pub use config::{ConfigError, Graph500Config, MAX_SCALE};
pub use grid::{Grid, GridConfig, GridEdge, GridError, Layout, MAX_GRID_WEIGHT};
pub use kronecker::{Edge, Edges, Kronecker};
pub use roots::{non_isolated, VertexOutOfRange, VertexSet};
