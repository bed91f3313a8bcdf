//! The Kronecker (R-MAT) edge generator.
//!
//! Edge `i` is a pure function of the seeds, the scale and `i`: its private
//! random stream is the base MRG state advanced by `i * 2^64` steps. From that
//! stream the edge draws, for each of the `scale` levels of the recursion,
//! one quadrant of the adjacency matrix — `(0,0)` with probability A = 0.57,
//! `(0,1)` and `(1,0)` with B = C = 0.19, `(1,1)` with D = 0.05 — as an
//! integer in `0..10000` (values below `(2^31-1) mod 10000` are redrawn so
//! the draw is unbiased). While the source and target prefixes are still
//! equal (the block lies on the diagonal) a `(1,0)` draw is flipped to
//! `(0,1)`, which keeps every edge in the upper triangle. The two leaf ids are
//! then [scrambled](crate::scramble), and the next output of the same stream
//! becomes the weight.
//!
//! Streaming a contiguous range does not re-skip from the base state for
//! every edge: consecutive edges' streams are exactly `2^64` steps apart, so
//! one precomputed matrix `A^(2^64)` moves from edge `i`'s start to edge
//! `i + 1`'s — the same state the reference reaches by skipping from the base
//! (modular arithmetic is exact, so the path does not matter).

use rayon::prelude::*;

use crate::config::{ConfigError, Graph500Config};
use crate::mrg::{self, Distance, MrgState, Transition};
use crate::scramble::Scrambler;

/// One generated edge: endpoints `u`, `v` (scrambled ids below `2^scale`,
/// possibly equal — self-loops and duplicates are part of the graph) and the
/// SSSP weight `w` in `[0, 1]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Edge {
    /// First endpoint (the reference's `v0`).
    pub u: u64,
    /// Second endpoint (the reference's `v1`).
    pub v: u64,
    /// Weight, bit-identical to the reference's `float` weight.
    pub w: f32,
}

/// The Graph500 Kronecker graph for one [`Graph500Config`]: any edge, any
/// contiguous range, sequentially or in parallel, bit-identical to the
/// reference implementation.
#[derive(Clone, Debug)]
pub struct Kronecker {
    cfg: Graph500Config,
    base: MrgState,
    scrambler: Scrambler,
    stride: Transition,
}

/// Number of streamed edges per rayon task in [`Kronecker::par_map_into`]:
/// large enough that the per-task random-access skip (at most 16
/// matrix-vector products) is noise, small enough to balance two cores.
const PAR_CHUNK: usize = 1 << 14;

/// Draws below this value are rejected: `(2^31 - 1) mod 10000`.
const REJECT_BELOW: u32 = mrg::MODULUS % 10_000;

impl Kronecker {
    /// A generator for `cfg`, or the reason `cfg` is not a valid graph.
    pub fn new(cfg: Graph500Config) -> Result<Self, ConfigError> {
        cfg.validate()?;
        let base = MrgState::from_user_seeds(cfg.seed1, cfg.seed2);
        Ok(Kronecker {
            cfg,
            base,
            scrambler: Scrambler::new(&base, cfg.scale),
            stride: *mrg::edge_stride(),
        })
    }

    /// `2^scale`.
    pub fn num_vertices(&self) -> u64 {
        1 << self.cfg.scale
    }

    /// `edgefactor * 2^scale`.
    pub fn num_edges(&self) -> u64 {
        (self.cfg.edgefactor as u64) << self.cfg.scale
    }

    /// The parameters this generator was built from.
    pub fn config(&self) -> &Graph500Config {
        &self.cfg
    }

    /// The base MRG state (from the two user seeds).
    pub fn base_state(&self) -> MrgState {
        self.base
    }

    /// The start of edge `index`'s private stream.
    fn stream_of(&self, index: u64) -> MrgState {
        let mut s = self.base;
        s.skip(Distance {
            high: 0,
            mid: index,
            low: 0,
        });
        s
    }

    /// Edge `index` (random access: costs up to 16 extra matrix-vector
    /// products compared to streaming with [`Kronecker::edges`]).
    ///
    /// Indices at or past [`Kronecker::num_edges`] are not an error: edge
    /// `i` does not depend on the edgefactor, so they are the further edges
    /// of the same graph with a larger edgefactor.
    pub fn edge(&self, index: u64) -> Edge {
        self.edge_from(&mut self.stream_of(index))
    }

    /// The edges with indices in `range`, in order; an empty or reversed
    /// range yields nothing. Each edge costs one matrix-vector product to
    /// reach its stream plus the recursion itself.
    pub fn edges(&self, range: std::ops::Range<u64>) -> Edges<'_> {
        let start = range.start.min(range.end);
        Edges {
            kron: self,
            state: self.stream_of(start),
            next: start,
            end: range.end,
        }
    }

    /// Fills `out[k] = f(self.edge(first + k))` in parallel (rayon's current
    /// pool), each task streaming a contiguous chunk. The result does not
    /// depend on the number of threads.
    pub fn par_map_into<T: Send>(
        &self,
        first: u64,
        out: &mut [T],
        f: impl Fn(Edge) -> T + Sync + Send,
    ) {
        out.par_chunks_mut(PAR_CHUNK)
            .enumerate()
            .for_each(|(chunk_index, chunk)| {
                let start = first.wrapping_add((chunk_index * PAR_CHUNK) as u64);
                let mut state = self.stream_of(start);
                for slot in chunk.iter_mut() {
                    let mut s = state;
                    state.apply(&self.stride);
                    *slot = f(self.edge_from(&mut s));
                }
            });
    }

    /// The edge whose private stream starts at `st`.
    #[inline(always)]
    fn edge_from(&self, st: &mut MrgState) -> Edge {
        let mut src = 0u64;
        let mut tgt = 0u64;
        for level in (0..self.cfg.scale).rev() {
            let mut x = st.next_uint();
            while x < REJECT_BELOW {
                x = st.next_uint();
            }
            let x = x % 10_000;
            // Quadrants: x < 1900 -> (0,1); < 3800 -> (1,0); < 9500 -> (0,0);
            // else (1,1). Branch-free: the outcome is unpredictable.
            let d = (x >= 9_500) as u64;
            let mut s_bit = ((1_900..3_800).contains(&x)) as u64 | d;
            let mut t_bit = (x < 1_900) as u64 | d;
            // On the diagonal, (1,0) becomes (0,1): stay in the upper triangle.
            let flip = (src == tgt) as u64 & s_bit & (t_bit ^ 1);
            s_bit ^= flip;
            t_bit ^= flip;
            src |= s_bit << level;
            tgt |= t_bit << level;
        }
        let w = st.next_float();
        Edge {
            u: self.scrambler.apply(src),
            v: self.scrambler.apply(tgt),
            w,
        }
    }
}

/// Iterator over a contiguous range of edges; see [`Kronecker::edges`].
#[derive(Clone, Debug)]
pub struct Edges<'a> {
    kron: &'a Kronecker,
    state: MrgState,
    next: u64,
    end: u64,
}

impl Iterator for Edges<'_> {
    type Item = Edge;

    #[inline]
    fn next(&mut self) -> Option<Edge> {
        if self.next >= self.end {
            return None;
        }
        let mut s = self.state;
        self.state.apply(&self.kron.stride);
        self.next += 1;
        Some(self.kron.edge_from(&mut s))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.end.saturating_sub(self.next);
        match usize::try_from(n) {
            Ok(n) => (n, Some(n)),
            Err(_) => (usize::MAX, None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> Kronecker {
        Kronecker::new(Graph500Config::with_scale(8)).unwrap()
    }

    #[test]
    fn counts() {
        let k = small();
        assert_eq!(k.num_vertices(), 256);
        assert_eq!(k.num_edges(), 4096);
        assert_eq!(k.config().scale, 8);
        assert!(Kronecker::new(Graph500Config::with_scale(0)).is_err());
    }

    #[test]
    fn streaming_equals_random_access() {
        let k = small();
        let streamed: Vec<Edge> = k.edges(100..400).collect();
        assert_eq!(streamed.len(), 300);
        for (i, e) in streamed.iter().enumerate() {
            assert_eq!(*e, k.edge(100 + i as u64));
        }
        assert_eq!(k.edges(5..5).count(), 0);
        let reversed = std::ops::Range { start: 7, end: 3 };
        assert_eq!(k.edges(reversed).count(), 0);
        assert_eq!(k.edges(3..7).size_hint(), (4, Some(4)));
    }

    #[test]
    fn ids_in_range_and_weights_in_unit_interval() {
        let k = small();
        for e in k.edges(0..k.num_edges()) {
            assert!(e.u < 256 && e.v < 256);
            assert!((0.0..=1.0).contains(&e.w));
        }
    }

    #[test]
    fn edges_do_not_depend_on_edgefactor() {
        let a = small();
        let b = Kronecker::new(Graph500Config {
            edgefactor: 3,
            ..*a.config()
        })
        .unwrap();
        assert!(a.edges(0..b.num_edges()).eq(b.edges(0..b.num_edges())));
    }

    #[test]
    fn par_map_into_equals_sequential_with_offset() {
        let k = small();
        let first = 17;
        let mut out = vec![(0u64, 0u64, 0u32); 3 * PAR_CHUNK + 5];
        k.par_map_into(first, &mut out, |e| (e.u, e.v, e.w.to_bits()));
        for (x, e) in out.iter().zip(k.edges(first..first + out.len() as u64)) {
            assert_eq!(*x, (e.u, e.v, e.w.to_bits()));
        }
    }

    #[test]
    fn seeds_change_the_graph() {
        let a = small();
        let b = Kronecker::new(Graph500Config {
            seed1: 5,
            ..*a.config()
        })
        .unwrap();
        assert!(!a.edges(0..64).eq(b.edges(0..64)));
    }
}
