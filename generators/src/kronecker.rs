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
    /// `A^(2^64)`: edge `i`'s stream start to edge `i + 1`'s.
    stride: Transition,
    /// `A^(LANES * 2^64)`: one lane's step when `LANES` edges are made at once.
    lane_stride: Transition,
}

/// Number of streamed edges per rayon task in [`Kronecker::par_map_into`]:
/// large enough that the per-task random-access skip (at most 16
/// matrix-vector products) is noise, small enough to balance two cores.
const PAR_CHUNK: usize = 1 << 14;

/// Most draws one edge can take without a rejection: one per level, plus
/// the weight.
const MAX_DRAWS: usize = crate::config::MAX_SCALE as usize + 1;

/// Edges made together, interleaved, to overlap their serial MRG chains.
const LANES: usize = 4;

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
            lane_stride: *mrg::edge_stride_times(LANES),
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

    /// The vertex-id scrambling of this graph.
    pub(crate) fn scrambler(&self) -> &Scrambler {
        &self.scrambler
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
            lanes: self.lanes_at(start),
            buf: [EMPTY; LANES],
            buf_pos: LANES,
            next_block: start,
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
                self.fill(start, chunk, &f);
            });
    }

    /// The streams of edges `first .. first + LANES`.
    fn lanes_at(&self, first: u64) -> [MrgState; LANES] {
        let mut lanes = [self.stream_of(first); LANES];
        for k in 1..LANES {
            lanes[k] = lanes[k - 1];
            lanes[k].apply(&self.stride);
        }
        lanes
    }

    /// `out[k] = f(edge(first + k))`, sequentially, `LANES` edges at a time.
    fn fill<T>(&self, first: u64, out: &mut [T], f: &impl Fn(Edge) -> T) {
        let mut lanes = self.lanes_at(first);
        let mut blocks = out.chunks_exact_mut(LANES);
        for block in &mut blocks {
            let edges = self.edges_from(lanes);
            for lane in lanes.iter_mut() {
                lane.apply(&self.lane_stride);
            }
            for (slot, e) in block.iter_mut().zip(edges) {
                *slot = f(e);
            }
        }
        for (slot, lane) in blocks.into_remainder().iter_mut().zip(lanes) {
            *slot = f(self.edge_from(&mut { lane }));
        }
    }

    /// The edges whose private streams start at `lanes`.
    ///
    /// Fast path for streaming. The MRG is a serial chain (each output needs
    /// the previous one), so a single edge's `scale + 1` draws cannot overlap.
    /// Here the draws of `LANES` edges are made first, interleaved, with the
    /// chain kept in a lazily reduced form (congruent, below `2^32`); then
    /// each lane's recursion reads its draws from the buffer. A lane whose
    /// draws include a rejected value (probability about `scale * 1.7e-6`)
    /// would need more draws than were made: it is redone by the scalar path.
    #[inline(always)]
    fn edges_from(&self, lanes: [MrgState; LANES]) -> [Edge; LANES] {
        const P: u64 = mrg::MODULUS as u64;
        let scale = self.cfg.scale as usize;
        // buf[0..5] = (z5, z4, z3, z2, z1) per lane; draw n lands in buf[5 + n].
        let mut buf = [[0u32; LANES]; 5 + MAX_DRAWS];
        for (k, lane) in lanes.iter().enumerate() {
            let z = lane.words();
            for j in 0..5 {
                buf[4 - j][k] = z[j];
            }
        }
        let mut prev = buf[4];
        for n in 0..=scale {
            let old = buf[n];
            for k in 0..LANES {
                let x = mrg::MULT_X as u64 * prev[k] as u64 + mrg::MULT_Y as u64 * old[k] as u64;
                // One fold keeps x congruent and below 2^31 + 2^29.
                prev[k] = ((x & P) + (x >> 31)) as u32;
            }
            buf[5 + n] = prev;
        }
        let canonical = |v: u32| {
            if v >= mrg::MODULUS {
                v - mrg::MODULUS
            } else {
                v
            }
        };
        // One lane at a time: within a lane the levels are independent but
        // for three one-instruction chains, which keeps registers free.
        let mut out = [EMPTY; LANES];
        for (k, slot) in out.iter_mut().enumerate() {
            let mut src = 0u64;
            let mut tgt = 0u64;
            let mut diagonal = 1u64;
            let mut rejected = false;
            for draws in &buf[5..5 + scale] {
                let x = canonical(draws[k]);
                rejected |= x < REJECT_BELOW;
                let (s, t) = quadrant_bits(x, &mut diagonal);
                src = src << 1 | s;
                tgt = tgt << 1 | t;
            }
            *slot = if rejected {
                self.edge_from(&mut { lanes[k] })
            } else {
                Edge {
                    u: self.scrambler.apply(src),
                    v: self.scrambler.apply(tgt),
                    w: mrg::weight_from(canonical(buf[5 + scale][k])),
                }
            };
        }
        out
    }

    /// The edge whose private stream starts at `st`.
    #[inline(always)]
    fn edge_from(&self, st: &mut MrgState) -> Edge {
        let mut src = 0u64;
        let mut tgt = 0u64;
        let mut diagonal = 1u64;
        for _ in 0..self.cfg.scale {
            let (s, t) = quadrant(st, &mut diagonal);
            src = src << 1 | s;
            tgt = tgt << 1 | t;
        }
        let w = st.next_float();
        Edge {
            u: self.scrambler.apply(src),
            v: self.scrambler.apply(tgt),
            w,
        }
    }
}

const EMPTY: Edge = Edge { u: 0, v: 0, w: 0.0 };

/// One level of the recursion: the (source, target) bits of the quadrant
/// drawn from `st`. `diagonal` (0 or 1) says the block chosen so far lies on
/// the diagonal; it is updated.
#[inline(always)]
fn quadrant(st: &mut MrgState, diagonal: &mut u64) -> (u64, u64) {
    let mut x = st.next_uint();
    while x < REJECT_BELOW {
        x = st.next_uint();
    }
    quadrant_bits(x, diagonal)
}

/// `ceil(2^64 / 10000)`: `x.wrapping_mul(FRACTION_SCALE)` is the fractional
/// part of `x / 10000` in 64-bit fixed point (exact enough for every `u32`
/// `x`: Lemire, Kaser and Kurz, "Faster remainder by direct computation").
const FRACTION_SCALE: u64 = u64::MAX / 10_000 + 1;

/// The smallest fixed-point fraction whose remainder is at least `c`:
/// `x % 10000 < c` exactly when `x * FRACTION_SCALE (mod 2^64) < below(c)`.
const fn below(c: u64) -> u64 {
    ((c as u128) << 64).div_ceil(10_000) as u64
}
const BELOW_1900: u64 = below(1_900);
const BELOW_3800: u64 = below(3_800);
const BELOW_9500: u64 = below(9_500);

/// The (source, target) bits for an accepted draw `x`, from `x % 10000`:
/// below 1900 -> (0,1) (B), below 3800 -> (1,0) (C), below 9500 -> (0,0)
/// (A), else (1,1) (D). On the diagonal a (1,0) is flipped to (0,1) to stay
/// in the upper triangle; the block stays on the diagonal unless B or C was
/// drawn. Branch-free: the outcome is unpredictable.
#[inline(always)]
fn quadrant_bits(x: u32, diagonal: &mut u64) -> (u64, u64) {
    let frac = (x as u64).wrapping_mul(FRACTION_SCALE);
    let b = (frac < BELOW_1900) as u64;
    let b_or_c = (frac < BELOW_3800) as u64;
    let d = (frac >= BELOW_9500) as u64;
    let c_off_diagonal = b_or_c & (b ^ 1) & (*diagonal ^ 1);
    let s = c_off_diagonal | d;
    let t = (b_or_c ^ c_off_diagonal) | d;
    *diagonal &= b_or_c ^ 1;
    (s, t)
}

/// Iterator over a contiguous range of edges; see [`Kronecker::edges`].
#[derive(Clone, Debug)]
pub struct Edges<'a> {
    kron: &'a Kronecker,
    /// Streams of edges `next_block .. next_block + LANES`.
    lanes: [MrgState; LANES],
    /// Edges already made; `buf[buf_pos..]` are still to be returned.
    buf: [Edge; LANES],
    buf_pos: usize,
    /// Index of the first edge not yet in `buf`.
    next_block: u64,
    end: u64,
}

impl Iterator for Edges<'_> {
    type Item = Edge;

    #[inline]
    fn next(&mut self) -> Option<Edge> {
        if self.buf_pos == LANES {
            let left = self.end.saturating_sub(self.next_block);
            if left == 0 {
                return None;
            }
            if left >= LANES as u64 {
                self.buf = self.kron.edges_from(self.lanes);
                for lane in self.lanes.iter_mut() {
                    lane.apply(&self.kron.lane_stride);
                }
                self.buf_pos = 0;
                self.next_block += LANES as u64;
            } else {
                // The tail: one edge at a time, shifting the lanes down.
                let e = self.kron.edge_from(&mut { self.lanes[0] });
                self.lanes.rotate_left(1);
                self.next_block += 1;
                return Some(e);
            }
        }
        let e = self.buf[self.buf_pos];
        self.buf_pos += 1;
        Some(e)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.end.saturating_sub(self.next_block) + (LANES - self.buf_pos) as u64;
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
        // Every length and alignment around the lane width.
        for start in 0..6u64 {
            for len in 0..11u64 {
                let got: Vec<Edge> = k.edges(start..start + len).collect();
                let want: Vec<Edge> = (start..start + len).map(|i| k.edge(i)).collect();
                assert_eq!(got, want, "range {start}..{}", start + len);
            }
        }
        let mut it = k.edges(3..12);
        it.next();
        assert_eq!(it.size_hint(), (8, Some(8)));
        assert_eq!(it.count(), 8);
        assert_eq!(k.edges(5..5).count(), 0);
        let reversed = std::ops::Range { start: 7, end: 3 };
        assert_eq!(k.edges(reversed).count(), 0);
        assert_eq!(k.edges(3..7).size_hint(), (4, Some(4)));
    }

    #[test]
    fn fixed_point_remainder_comparisons_are_exact() {
        let check = |x: u32| {
            let frac = (x as u64).wrapping_mul(FRACTION_SCALE);
            let r = x % 10_000;
            assert_eq!(frac < BELOW_1900, r < 1_900, "x = {x}");
            assert_eq!(frac < BELOW_3800, r < 3_800, "x = {x}");
            assert_eq!(frac < BELOW_9500, r < 9_500, "x = {x}");
        };
        // Every remainder class near the bottom and the top of the range,
        // and the thresholds' neighbours in every 10000-block sampled.
        (0..200_000).for_each(check);
        (u32::MAX - 200_000..=u32::MAX).for_each(check);
        for block in (0..u32::MAX / 10_000).step_by(997) {
            for c in [1_899, 1_900, 3_799, 3_800, 9_499, 9_500, 0, 9_999] {
                check(block * 10_000 + c);
            }
        }
    }

    #[test]
    fn quadrant_frequencies_and_clipping() {
        // Diagonal: (1,0) never appears; off the diagonal all four do.
        let mut counts = [[0u32; 2]; 2];
        for x in (0..2_000_000u32).step_by(7) {
            let mut on = 1;
            let (s, t) = quadrant_bits(x, &mut on);
            assert!(!(s == 1 && t == 0));
            assert_eq!(on, (s == t) as u64);
            let mut off = 0;
            let (s, t) = quadrant_bits(x, &mut off);
            assert_eq!(off, 0);
            counts[s as usize][t as usize] += 1;
        }
        let total: u32 = counts.iter().flatten().sum();
        let share = |c: u32| c as f64 / total as f64;
        assert!((share(counts[0][0]) - 0.57).abs() < 0.01);
        assert!((share(counts[0][1]) - 0.19).abs() < 0.01);
        assert!((share(counts[1][0]) - 0.19).abs() < 0.01);
        assert!((share(counts[1][1]) - 0.05).abs() < 0.01);
    }

    #[test]
    fn lanes_with_rejected_draws_take_the_scalar_path() {
        // Find edges whose stream rejects a draw (about 1 in 70 000 at scale
        // 8) and check the batched path against random access around them.
        let k = small();
        let scale = k.config().scale;
        let rejecting: Vec<u64> = (0..400_000u64)
            .filter(|&i| {
                let mut s = k.stream_of(i);
                (0..scale).any(|_| s.next_uint() < REJECT_BELOW)
            })
            .take(3)
            .collect();
        assert!(!rejecting.is_empty(), "no rejecting edge found");
        for &i in &rejecting {
            for start in i.saturating_sub(LANES as u64)..=i {
                let got: Vec<Edge> = k.edges(start..start + 2 * LANES as u64).collect();
                let want: Vec<Edge> = (start..start + 2 * LANES as u64)
                    .map(|j| k.edge(j))
                    .collect();
                assert_eq!(got, want, "edges from {start} (rejecting edge {i})");
            }
        }
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
        let mut out = vec![(0u64, 0u64, 0u32); 3 * PAR_CHUNK + 7];
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
