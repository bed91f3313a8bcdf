//! Choosing the search roots, and the vertex sets that decide which
//! vertices may be roots.
//!
//! Graph500 draws its BFS/SSSP roots from a stream independent of the edges:
//! the same seeds, `2 * 2^128` steps in. Candidate `k` is built from the two
//! doubles at positions `2k` and `2k + 1` of that stream (each double from two
//! MRG outputs): `floor((d0 + d1) * N) mod N`. A candidate that was already
//! chosen, or that has no incident edge other than self-loops, is consumed
//! and skipped. The reference stops checking after `N` candidates and then
//! accepts every further candidate as is; this port does the same, so small
//! graphs get the reference's roots too (and the search always terminates).

use std::collections::HashSet;
use std::fmt;

use rayon::prelude::*;

use crate::kronecker::Kronecker;
use crate::mrg::Distance;

impl Kronecker {
    /// The first `count` search roots the reference picks (it uses 64), in
    /// its order. `has_edge(v)` must say whether `v` has an incident edge that
    /// is not a self-loop — e.g. [`VertexSet::contains`] on
    /// [`Kronecker::non_isolated`].
    ///
    /// ```
    /// use generators::{Graph500Config, Kronecker};
    /// let g = Kronecker::new(Graph500Config::with_scale(10))?;
    /// let live = g.non_isolated();
    /// let roots = g.search_roots(64, |v| live.contains(v));
    /// assert_eq!(&roots[..4], &[458, 214, 220, 966]);
    /// # Ok::<(), generators::ConfigError>(())
    /// ```
    pub fn search_roots(&self, count: usize, has_edge: impl Fn(u64) -> bool) -> Vec<u64> {
        let n = self.num_vertices();
        let mut stream = self.base_state();
        stream.skip(Distance {
            high: 2,
            mid: 0,
            low: 0,
        });
        let mut consumed: u64 = 0; // doubles read so far
        let mut chosen = HashSet::with_capacity(count);
        let mut roots = Vec::with_capacity(count);
        while roots.len() < count {
            let root = loop {
                let d0 = stream.next_double();
                let d1 = stream.next_double();
                // Truncation of a value in [0, 2N): the reference's int64 cast.
                let candidate = ((d0 + d1) * n as f64) as u64 % n;
                consumed += 2;
                if consumed > 2 * n {
                    break candidate; // the reference's give-up rule
                }
                if chosen.contains(&candidate) {
                    continue;
                }
                if has_edge(candidate) {
                    break candidate;
                }
            };
            chosen.insert(root);
            roots.push(root);
        }
        roots
    }

    /// The vertices with at least one incident non-self-loop edge in the
    /// whole graph, generated in parallel (rayon's current pool).
    pub fn non_isolated(&self) -> VertexSet {
        const CHUNK: u64 = 1 << 16;
        let m = self.num_edges();
        let n = self.num_vertices();
        (0..m.div_ceil(CHUNK))
            .into_par_iter()
            .fold(
                || VertexSet::new(n),
                |mut set, c| {
                    let end = ((c + 1) * CHUNK).min(m);
                    for e in self.edges(c * CHUNK..end) {
                        if e.u != e.v {
                            set.insert_unchecked(e.u);
                            set.insert_unchecked(e.v);
                        }
                    }
                    set
                },
            )
            .reduce(
                || VertexSet::new(n),
                |mut a, b| {
                    a.union_words(&b.words);
                    a
                },
            )
    }
}

/// A set of vertex ids in `0..num_vertices`, one bit per vertex.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VertexSet {
    words: Vec<u64>,
    num_vertices: u64,
}

/// A vertex id was not below the number of vertices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VertexOutOfRange {
    /// The offending id.
    pub vertex: u64,
    /// The number of vertices of the set.
    pub num_vertices: u64,
}

impl fmt::Display for VertexOutOfRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "vertex {} is out of range: ids must be below the number of vertices {} \
             (check that the edges belong to a graph of this size)",
            self.vertex, self.num_vertices
        )
    }
}

impl std::error::Error for VertexOutOfRange {}

impl VertexSet {
    /// The empty set over `num_vertices` vertices.
    pub fn new(num_vertices: u64) -> Self {
        let words = usize::try_from(num_vertices.div_ceil(64))
            .expect("VertexSet::new: bitmap does not fit in memory");
        VertexSet {
            words: vec![0; words],
            num_vertices,
        }
    }

    /// The number of vertices the set ranges over.
    pub fn num_vertices(&self) -> u64 {
        self.num_vertices
    }

    /// Adds `v`; returns whether it was new.
    pub fn insert(&mut self, v: u64) -> Result<bool, VertexOutOfRange> {
        if v >= self.num_vertices {
            return Err(VertexOutOfRange {
                vertex: v,
                num_vertices: self.num_vertices,
            });
        }
        let was = self.contains(v);
        self.insert_unchecked(v);
        Ok(!was)
    }

    #[inline]
    fn insert_unchecked(&mut self, v: u64) {
        self.words[(v / 64) as usize] |= 1 << (v % 64);
    }

    /// Whether `v` is in the set (`false` for ids out of range).
    #[inline]
    pub fn contains(&self, v: u64) -> bool {
        v < self.num_vertices && self.words[(v / 64) as usize] >> (v % 64) & 1 == 1
    }

    /// Number of vertices in the set.
    pub fn count(&self) -> u64 {
        self.words.iter().map(|w| w.count_ones() as u64).sum()
    }

    /// The bitmap words (bit `v % 64` of word `v / 64`), e.g. to combine
    /// the sets of several ranks with a bitwise-or reduction.
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// Adds every vertex of `other`. Fails if the two sets range over a
    /// different number of vertices.
    pub fn union_with(&mut self, other: &VertexSet) -> Result<(), VertexOutOfRange> {
        if other.num_vertices != self.num_vertices {
            return Err(VertexOutOfRange {
                vertex: other.num_vertices.saturating_sub(1),
                num_vertices: self.num_vertices,
            });
        }
        self.union_words(&other.words);
        Ok(())
    }

    fn union_words(&mut self, other: &[u64]) {
        for (a, b) in self.words.iter_mut().zip(other) {
            *a |= b;
        }
    }
}

/// The vertices (of `0..num_vertices`) that occur in at least one edge
/// `(a, b)` with `a != b`. Feed it the edges of a whole graph — or of one
/// rank's range, then combine with [`VertexSet::union_with`].
pub fn non_isolated(
    num_vertices: u64,
    edges: impl IntoIterator<Item = (u64, u64)>,
) -> Result<VertexSet, VertexOutOfRange> {
    let mut set = VertexSet::new(num_vertices);
    for (a, b) in edges {
        if a != b {
            set.insert(a)?;
            set.insert(b)?;
        }
    }
    Ok(set)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Graph500Config;

    #[test]
    fn vertex_set_basics() {
        let mut s = VertexSet::new(130);
        assert_eq!(s.insert(129), Ok(true));
        assert_eq!(s.insert(129), Ok(false));
        assert_eq!(s.insert(0), Ok(true));
        assert!(s.contains(129) && s.contains(0) && !s.contains(64));
        assert!(!s.contains(130) && !s.contains(u64::MAX));
        assert_eq!(s.count(), 2);
        let e = s.insert(130).unwrap_err();
        assert!(e.to_string().contains("below the number of vertices 130"));
        let mut t = VertexSet::new(130);
        t.insert(64).unwrap();
        s.union_with(&t).unwrap();
        assert_eq!(s.count(), 3);
        assert!(s.union_with(&VertexSet::new(7)).is_err());
    }

    #[test]
    fn non_isolated_ignores_self_loops() {
        let s = non_isolated(8, [(1, 1), (2, 3), (3, 3), (7, 2)]).unwrap();
        let members: Vec<u64> = (0..8).filter(|&v| s.contains(v)).collect();
        assert_eq!(members, [2, 3, 7]);
        assert!(non_isolated(8, [(1, 8)]).is_err());
    }

    #[test]
    fn parallel_non_isolated_equals_sequential() {
        let g = Kronecker::new(Graph500Config::with_scale(9)).unwrap();
        let seq = non_isolated(
            g.num_vertices(),
            g.edges(0..g.num_edges()).map(|e| (e.u, e.v)),
        )
        .unwrap();
        assert_eq!(g.non_isolated(), seq);
    }

    #[test]
    fn roots_are_distinct_and_non_isolated() {
        let g = Kronecker::new(Graph500Config::with_scale(9)).unwrap();
        let live = g.non_isolated();
        let roots = g.search_roots(64, |v| live.contains(v));
        assert_eq!(roots.len(), 64);
        let distinct: HashSet<u64> = roots.iter().copied().collect();
        assert_eq!(distinct.len(), 64);
        assert!(roots.iter().all(|&r| live.contains(r)));
        // A prefix of a longer search is the shorter search.
        assert_eq!(g.search_roots(10, |v| live.contains(v)), roots[..10]);
    }

    #[test]
    fn tiny_graphs_terminate_with_the_give_up_rule() {
        // Two vertices cannot give 64 distinct roots: after N candidates the
        // reference accepts whatever comes.
        let g = Kronecker::new(Graph500Config::with_scale(1)).unwrap();
        let roots = g.search_roots(64, |_| false);
        assert_eq!(roots.len(), 64);
        assert!(roots.iter().all(|&r| r < 2));
    }
}
