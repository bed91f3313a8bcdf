//! A road-like graph: a `rows x cols` grid of crossings joined by streets
//! to their 4 neighbours, a random fraction of the streets removed, integer
//! lengths.
//!
//! Vertex `(r, c)` has id `r * cols + c`. The streets are numbered row by
//! row: row `r`'s block starts at `r * (2 * cols - 1)` and holds first its
//! `cols - 1` streets to the right (`(r, c) - (r, c + 1)`), then, except in
//! the last row, its `cols` streets down (`(r, c) - (r + 1, c)`). Street
//! `i` is removed, and gets its length, from hashes of `(seed, i)` alone
//! ([`Grid::street`]), so the graph does not depend on how many threads
//! make it, nor on the order they do: each thread fills its own rows
//! ([`Grid::layout`], [`Grid::fill`]).
//!
//! Each street is removed independently with probability `removed`, so the
//! kept count is binomial around `(1 - removed) x streets`. A kept street
//! becomes one undirected record, or with [`GridConfig::directed`] two
//! arcs, `u -> v` then `v -> u`, of the same length (as a DIMACS road file
//! lists a two-way street).

use std::fmt;
use std::ops::Range;

/// The largest street length: lengths are held as `f32` by the graph
/// files, exact up to `2^24`.
pub const MAX_GRID_WEIGHT: u32 = 1 << 24;

/// What grid to make.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridConfig {
    /// Rows of crossings (>= 1).
    pub rows: u32,
    /// Crossings per row (>= 1).
    pub cols: u32,
    /// The probability that a street is removed, in `[0, 1)`.
    pub removed: f64,
    /// Street lengths are uniform integers in `lo..=hi`, `1 <= lo <= hi <=`
    /// [`MAX_GRID_WEIGHT`].
    pub weights: (u32, u32),
    /// The seed of the removals and lengths.
    pub seed: u64,
    /// Two arcs per street (otherwise one undirected record).
    pub directed: bool,
}

impl GridConfig {
    /// A grid with the issue-25 road graph's defaults: a tenth of the
    /// streets removed, lengths 1..=1000, seed 1, undirected.
    pub fn new(rows: u32, cols: u32) -> Self {
        GridConfig {
            rows,
            cols,
            removed: 0.1,
            weights: (1, 1000),
            seed: 1,
            directed: false,
        }
    }
}

/// Why a [`GridConfig`] cannot be made.
#[derive(Clone, Debug, PartialEq)]
pub enum GridError {
    /// A side of 0 crossings, or a 1 x 1 grid (no street).
    TooSmall {
        /// Rows asked for.
        rows: u32,
        /// Columns asked for.
        cols: u32,
    },
    /// More than `2^32` crossings: vertex ids are 32-bit.
    TooLarge {
        /// Rows asked for.
        rows: u32,
        /// Columns asked for.
        cols: u32,
    },
    /// A removed fraction outside `[0, 1)`.
    Removed(f64),
    /// A length range with `lo = 0`, `lo > hi` or `hi >` [`MAX_GRID_WEIGHT`].
    Weights(u32, u32),
}

impl fmt::Display for GridError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            GridError::TooSmall { rows, cols } => write!(
                f,
                "a {rows} x {cols} grid has no street: rows and columns must be at least 1, and the grid at least 2 crossings"
            ),
            GridError::TooLarge { rows, cols } => write!(
                f,
                "a {rows} x {cols} grid has {} crossings, more than the 2^32 that 32-bit vertex ids number",
                u64::from(rows) * u64::from(cols)
            ),
            GridError::Removed(x) => write!(
                f,
                "removed fraction {x}: expected a number in [0, 1) (0.1 removes a tenth of the streets)"
            ),
            GridError::Weights(lo, hi) => write!(
                f,
                "street lengths {lo}..{hi}: expected 1 <= LO <= HI <= {MAX_GRID_WEIGHT} (lengths are positive integers, exact as f32)"
            ),
        }
    }
}

impl std::error::Error for GridError {}

/// One record of the grid: `u - v` (or the arc `u -> v`), length `w`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GridEdge {
    /// One end (the tail of an arc).
    pub u: u32,
    /// The other end (the head of an arc).
    pub v: u32,
    /// The street's length.
    pub w: u32,
}

/// Which rows each thread fills and where its records start: from
/// [`Grid::layout`], for [`Grid::fill`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Row ranges, one per part.
    parts: Vec<Range<u32>>,
    /// The first record of each part, then the total.
    starts: Vec<u64>,
}

impl Layout {
    /// Records in the whole grid.
    pub fn total(&self) -> u64 {
        *self.starts.last().unwrap_or(&0)
    }
}

/// The grid graph of a [`GridConfig`] (see the module docs).
#[derive(Clone, Debug)]
pub struct Grid {
    cfg: GridConfig,
    /// `removed` as a threshold on 53-bit draws.
    cut: u64,
}

/// The hash streams of a street: whether it is removed, its length.
const REMOVE: u64 = 0x5bd1_e995_3c6e_f372;
const LENGTH: u64 = 0x9e37_79b9_7f4a_7c15;
const ROOTS: u64 = 0xd1b5_4a32_d192_ed03;

/// SplitMix64's finaliser: a bijection of `u64` that mixes every bit.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Draw `i` of stream `stream` under `seed`.
fn draw(seed: u64, stream: u64, i: u64) -> u64 {
    mix(mix(seed ^ stream).wrapping_add(i.wrapping_mul(0x9e37_79b9_7f4a_7c15)))
}

/// A uniform integer in `0..n` from a 64-bit draw (`n >= 1`).
fn below(x: u64, n: u64) -> u64 {
    ((u128::from(x) * u128::from(n)) >> 64) as u64
}

impl Grid {
    /// Checks `cfg` (see [`GridError`]).
    pub fn new(cfg: GridConfig) -> Result<Grid, GridError> {
        let (rows, cols) = (cfg.rows, cfg.cols);
        let n = u64::from(rows) * u64::from(cols);
        if rows == 0 || cols == 0 || n < 2 {
            return Err(GridError::TooSmall { rows, cols });
        }
        if n > 1 << 32 {
            return Err(GridError::TooLarge { rows, cols });
        }
        if !(0.0..1.0).contains(&cfg.removed) {
            return Err(GridError::Removed(cfg.removed));
        }
        let (lo, hi) = cfg.weights;
        if lo == 0 || lo > hi || hi > MAX_GRID_WEIGHT {
            return Err(GridError::Weights(lo, hi));
        }
        let cut = (cfg.removed * (1u64 << 53) as f64) as u64;
        Ok(Grid { cfg, cut })
    }

    /// The configuration.
    pub fn config(&self) -> &GridConfig {
        &self.cfg
    }

    /// Crossings: `rows x cols`.
    pub fn num_vertices(&self) -> u64 {
        u64::from(self.cfg.rows) * u64::from(self.cfg.cols)
    }

    /// Streets before any is removed: `rows (cols - 1) + (rows - 1) cols`.
    pub fn num_streets(&self) -> u64 {
        let (r, c) = (u64::from(self.cfg.rows), u64::from(self.cfg.cols));
        r * (c - 1) + (r - 1) * c
    }

    /// Records per kept street: 2 when directed, else 1.
    fn per_street(&self) -> u64 {
        if self.cfg.directed {
            2
        } else {
            1
        }
    }

    /// Street `i` (`< num_streets`): its ends and its length, or `None`
    /// when it is removed.
    pub fn street(&self, i: u64) -> Option<GridEdge> {
        if draw(self.cfg.seed, REMOVE, i) >> 11 < self.cut {
            return None;
        }
        let cols = u64::from(self.cfg.cols);
        let (r, j) = (i / (2 * cols - 1), i % (2 * cols - 1));
        let (u, v) = if j < cols - 1 {
            (r * cols + j, r * cols + j + 1)
        } else {
            let c = j - (cols - 1);
            (r * cols + c, (r + 1) * cols + c)
        };
        let (lo, hi) = self.cfg.weights;
        let span = u64::from(hi - lo) + 1;
        let w = lo + below(draw(self.cfg.seed, LENGTH, i), span) as u32;
        Some(GridEdge {
            u: u as u32,
            v: v as u32,
            w,
        })
    }

    /// The street numbers of row `r`'s block.
    fn row_streets(&self, r: u32) -> Range<u64> {
        let cols = u64::from(self.cfg.cols);
        let start = u64::from(r) * (2 * cols - 1);
        let len = if r + 1 < self.cfg.rows {
            2 * cols - 1
        } else {
            cols - 1
        };
        start..start + len
    }

    /// The kept streets of rows `rows`, in order.
    fn kept(&self, rows: Range<u32>) -> impl Iterator<Item = GridEdge> + '_ {
        rows.flat_map(move |r| self.row_streets(r))
            .filter_map(move |i| self.street(i))
    }

    /// Splits the rows into `parts` runs (at least 1) and counts each run's
    /// records, `parts` threads at once.
    pub fn layout(&self, parts: usize) -> Layout {
        let rows = self.cfg.rows;
        let parts = parts.clamp(1, rows as usize) as u32;
        let ranges: Vec<Range<u32>> = (0..parts)
            .map(|p| {
                let at = |k: u32| (u64::from(rows) * u64::from(k) / u64::from(parts)) as u32;
                at(p)..at(p + 1)
            })
            .collect();
        let counts: Vec<u64> = std::thread::scope(|s| {
            let handles: Vec<_> = ranges
                .iter()
                .map(|rg| s.spawn(|| self.kept(rg.clone()).count() as u64))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a grid counting thread panicked"))
                .collect()
        });
        let mut starts = Vec::with_capacity(counts.len() + 1);
        let mut at = 0u64;
        starts.push(0);
        for c in counts {
            at += c * self.per_street();
            starts.push(at);
        }
        Layout {
            parts: ranges,
            starts,
        }
    }

    /// Fills `out` (exactly [`Layout::total`] long) with every record,
    /// mapped through `f`, one thread per part of `layout`: row by row,
    /// each row's kept streets in number order, a directed street as
    /// `u -> v` then `v -> u`.
    ///
    /// # Panics
    ///
    /// If `out` is not `layout.total()` long or `layout` is another grid's.
    pub fn fill<T: Send>(&self, layout: &Layout, out: &mut [T], f: impl Fn(GridEdge) -> T + Sync) {
        assert_eq!(out.len() as u64, layout.total(), "the output's length");
        let f = &f;
        std::thread::scope(|s| {
            let mut rest = out;
            for (p, rows) in layout.parts.iter().enumerate() {
                let len = (layout.starts[p + 1] - layout.starts[p]) as usize;
                let (mine, tail) = rest.split_at_mut(len);
                rest = tail;
                let rows = rows.clone();
                s.spawn(move || {
                    let mut slots = mine.iter_mut();
                    let mut put = |e: GridEdge| {
                        *slots.next().expect("the layout's count of a part") = f(e);
                    };
                    for e in self.kept(rows) {
                        put(e);
                        if self.cfg.directed {
                            put(GridEdge {
                                u: e.v,
                                v: e.u,
                                w: e.w,
                            });
                        }
                    }
                    assert!(slots.next().is_none(), "the layout's count of a part");
                });
            }
        });
    }

    /// Every record in order (see [`Grid::fill`]), on `threads` threads.
    pub fn edges(&self, threads: usize) -> Vec<GridEdge> {
        let layout = self.layout(threads);
        let mut out = vec![GridEdge { u: 0, v: 0, w: 0 }; layout.total() as usize];
        self.fill(&layout, &mut out, |e| e);
        out
    }

    /// Up to `count` distinct search roots, all in the largest connected
    /// piece of the grid (the smallest-numbered such piece on a tie):
    /// drawn uniformly from it with the seed's own stream, in draw order;
    /// every vertex of the piece when it has `count` or fewer.
    pub fn search_roots(&self, count: usize) -> Vec<u64> {
        let n = self.num_vertices() as usize;
        // Union-find by street; `find` halves paths.
        let mut parent: Vec<u32> = (0..n as u64).map(|v| v as u32).collect();
        fn find(parent: &mut [u32], mut v: u32) -> u32 {
            while parent[v as usize] != v {
                let up = parent[parent[v as usize] as usize];
                parent[v as usize] = up;
                v = up;
            }
            v
        }
        for e in self.kept(0..self.cfg.rows) {
            let (a, b) = (find(&mut parent, e.u), find(&mut parent, e.v));
            if a != b {
                parent[a.max(b) as usize] = a.min(b);
            }
        }
        let mut size = vec![0u32; n];
        for v in 0..n {
            let r = find(&mut parent, v as u32);
            parent[v] = r;
            size[r as usize] += 1;
        }
        let (mut best, mut best_size) = (0u32, 0u32);
        for (v, &s) in size.iter().enumerate() {
            if s > best_size {
                (best, best_size) = (v as u32, s);
            }
        }
        drop(size);
        let members: Vec<u32> = (0..n)
            .filter(|&v| parent[v] == best)
            .map(|v| v as u32)
            .collect();
        drop(parent);
        if members.len() <= count {
            return members.into_iter().map(u64::from).collect();
        }
        let mut roots: Vec<u64> = Vec::with_capacity(count);
        let mut k = 0u64;
        while roots.len() < count {
            let pick = below(draw(self.cfg.seed, ROOTS, k), members.len() as u64);
            k += 1;
            let v = u64::from(members[pick as usize]);
            if !roots.contains(&v) {
                roots.push(v);
            }
        }
        roots
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(rows: u32, cols: u32, f: impl FnOnce(&mut GridConfig)) -> Grid {
        let mut cfg = GridConfig::new(rows, cols);
        f(&mut cfg);
        Grid::new(cfg).unwrap()
    }

    #[test]
    fn same_graph_whatever_the_thread_count() {
        let g = grid(37, 53, |_| {});
        let one = g.edges(1);
        for t in [2, 3, 8, 100] {
            assert_eq!(g.edges(t), one, "{t} threads");
        }
        // Another seed is another graph.
        let other = grid(37, 53, |c| c.seed = 2).edges(2);
        assert_ne!(other, one);
        // Directed: the same streets, each as two arcs.
        let arcs = grid(37, 53, |c| c.directed = true).edges(3);
        assert_eq!(arcs.len(), 2 * one.len());
        for (e, pair) in one.iter().zip(arcs.chunks(2)) {
            assert_eq!(pair[0], *e);
            assert_eq!((pair[1].u, pair[1].v, pair[1].w), (e.v, e.u, e.w));
        }
    }

    #[test]
    fn streets_join_neighbours_once_with_lengths_in_range() {
        let g = grid(20, 31, |c| {
            c.removed = 0.0;
            c.weights = (7, 9);
        });
        let edges = g.edges(4);
        assert_eq!(edges.len() as u64, g.num_streets());
        assert_eq!(g.num_streets(), 20 * 30 + 19 * 31);
        let mut seen = std::collections::HashSet::new();
        let mut lengths = [0u32; 3];
        for e in &edges {
            let (a, b) = (e.u.min(e.v), e.u.max(e.v));
            assert!(
                (b == a + 1 && a % 31 != 30) || b == a + 31,
                "{a}-{b} are not neighbours"
            );
            assert!(b < 20 * 31);
            assert!(seen.insert((a, b)), "{a}-{b} twice");
            assert!((7..=9).contains(&e.w), "length {}", e.w);
            lengths[(e.w - 7) as usize] += 1;
        }
        // Every length of the range comes up (about a third each).
        for (i, &k) in lengths.iter().enumerate() {
            assert!(k > 300, "length {} came up {k} times of 1199", i + 7);
        }
        assert_eq!(grid(1, 2, |_| {}).num_streets(), 1);
        assert_eq!(grid(5, 1, |_| {}).num_streets(), 4);
    }

    #[test]
    fn the_kept_count_matches_the_removed_fraction() {
        for removed in [0.0, 0.1, 0.5, 0.9] {
            let g = grid(300, 200, |c| c.removed = removed);
            let n = g.num_streets() as f64;
            let kept = g.layout(3).total() as f64;
            let sd = (n * removed * (1.0 - removed)).sqrt();
            assert!(
                (kept - n * (1.0 - removed)).abs() <= 5.0 * sd + 0.5,
                "removed {removed}: kept {kept} of {n}"
            );
        }
    }

    #[test]
    fn roots_are_distinct_and_in_the_largest_piece() {
        // Nothing removed: one piece, 64 distinct roots of 100.
        let g = grid(10, 10, |c| c.removed = 0.0);
        let roots = g.search_roots(64);
        assert_eq!(roots.len(), 64);
        let mut sorted = roots.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 64);
        assert_eq!(g.search_roots(64), roots, "deterministic");
        // Mostly removed: the largest piece is small, and every root is in it.
        let sparse = grid(30, 30, |c| c.removed = 0.7);
        let roots = sparse.search_roots(64);
        let edges = sparse.edges(1);
        let mut adj = vec![Vec::new(); 900];
        for e in &edges {
            adj[e.u as usize].push(e.v);
            adj[e.v as usize].push(e.u);
        }
        let piece = |s: u64| {
            let mut seen = vec![false; 900];
            let mut stack = vec![s as u32];
            seen[s as usize] = true;
            while let Some(x) = stack.pop() {
                for &y in &adj[x as usize] {
                    if !seen[y as usize] {
                        seen[y as usize] = true;
                        stack.push(y);
                    }
                }
            }
            seen
        };
        let largest = (0..900u64)
            .map(|v| piece(v).iter().filter(|&&b| b).count())
            .max()
            .unwrap();
        let first = piece(roots[0]);
        assert_eq!(first.iter().filter(|&&b| b).count(), largest);
        assert!(roots.iter().all(|&r| first[r as usize]));
        assert_eq!(roots.len(), largest.min(64));
    }

    #[test]
    fn bad_configurations_are_refused() {
        let mut c = GridConfig::new(0, 5);
        assert!(matches!(Grid::new(c), Err(GridError::TooSmall { .. })));
        c = GridConfig::new(1, 1);
        assert!(matches!(Grid::new(c), Err(GridError::TooSmall { .. })));
        c = GridConfig::new(1 << 16, (1 << 16) + 1);
        let e = Grid::new(c).unwrap_err();
        assert!(e.to_string().contains("2^32"), "{e}");
        assert!(Grid::new(GridConfig::new(1 << 16, 1 << 16)).is_ok());
        for removed in [-0.1, 1.0, f64::NAN] {
            c = GridConfig::new(4, 4);
            c.removed = removed;
            assert!(Grid::new(c).is_err(), "{removed}");
        }
        for weights in [(0, 5), (6, 5), (1, MAX_GRID_WEIGHT + 1)] {
            c = GridConfig::new(4, 4);
            c.weights = weights;
            assert_eq!(
                Grid::new(c).unwrap_err(),
                GridError::Weights(weights.0, weights.1)
            );
        }
    }
}
