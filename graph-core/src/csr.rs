//! Per-shard compressed sparse rows (CSR).
//!
//! A [`Shard`] holds the adjacency of the vertices one trustee owns (by a
//! [`Partition`]): `offsets` (one `u64` per local vertex, plus one) and the
//! adjacency as two parallel arrays (structure of arrays): neighbour global
//! id (`u32`) and weight (`f32`), 8 bytes per entry.
//!
//! Semantics (the Graph500 kernels' graph):
//! * undirected: every input edge `(u, v, w)` appears in `u`'s list as
//!   `(v, w)` and in `v`'s list as `(u, w)`;
//! * self-loops are dropped;
//! * **duplicates are kept**: parallel edges stay as separate entries (SSSP
//!   only needs the minimum weight, but the Graph500 TEPS count needs, for
//!   every reached vertex `u`, the number of entries `v <= u` in this
//!   self-loop-free CSR, duplicates included);
//! * each vertex's list is sorted by (neighbour, weight), so a build is
//!   deterministic whatever the thread count, and duplicates are adjacent
//!   (the cheapest-duplicate is the first of its run).
//!
//! Building ([`build_rank`], [`build_trustees`], [`build_whole`]) takes two
//! parallel passes over the edge list (rayon): degree counting into atomic
//! per-vertex counters, then a fill through atomic cursors; no allocation
//! per edge. Peak memory during construction is the edge list (12 B/edge)
//! plus the adjacency (2 entries x 8 B = 16 B per non-loop edge) plus one
//! `u64` per owned vertex (0.5 B/edge at edgefactor 16): about 28.5 bytes per
//! input edge for the whole graph on one rank; see `examples/build_memory.rs`.

mod scatter;

use std::fmt;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use crate::edge_list::{EdgeList, EdgeListError};
use crate::partition::Partition;
use scatter::Scatter;

/// Why shards could not be built.
#[derive(Clone, Debug, PartialEq)]
pub enum CsrError {
    /// The partition was made for a different vertex count.
    PartitionMismatch {
        /// Vertices of the edge list.
        graph: u64,
        /// Vertices of the partition.
        partition: u64,
    },
    /// The trustee range names trustees the partition does not have.
    NoSuchTrustees {
        /// Requested range.
        requested: Range<u32>,
        /// Trustees in the partition.
        trustees: u32,
    },
    /// An edge names a vertex outside the graph.
    Edge(EdgeListError),
    /// A shard would have more entries than this platform can address.
    TooLarge {
        /// The entry count.
        entries: u64,
    },
}

impl fmt::Display for CsrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CsrError::PartitionMismatch { graph, partition } => write!(
                f,
                "the partition covers {partition} vertices but the graph has {graph}: make the partition from the graph's vertex count"
            ),
            CsrError::NoSuchTrustees { requested, trustees } => write!(
                f,
                "trustees {}..{} requested but the partition has only {trustees}",
                requested.start, requested.end
            ),
            CsrError::Edge(e) => write!(f, "cannot build the CSR: {e}"),
            CsrError::TooLarge { entries } => write!(
                f,
                "a shard would hold {entries} adjacency entries, more than this platform can address: use more trustees"
            ),
        }
    }
}

impl std::error::Error for CsrError {}

impl From<EdgeListError> for CsrError {
    fn from(e: EdgeListError) -> Self {
        CsrError::Edge(e)
    }
}

/// The adjacency of one trustee's vertices.
///
/// ```
/// use graph_core::{build_whole, EdgeList, PackedEdge};
/// let list = EdgeList::from_edges(3, vec![
///     PackedEdge::new(0, 1, 0.5),
///     PackedEdge::new(1, 1, 9.0), // self-loop: dropped
///     PackedEdge::new(2, 1, 0.25),
///     PackedEdge::new(1, 0, 0.75), // duplicate of (0,1): kept
/// ]).unwrap();
/// let g = build_whole(&list).unwrap();
/// assert_eq!(g.degree(1), 3);
/// let n1: Vec<(u32, f32)> = g.neighbors(1).collect();
/// assert_eq!(n1, [(0, 0.5), (0, 0.75), (2, 0.25)]);
/// assert_eq!(g.num_entries(), 6);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Shard {
    partition: Partition,
    trustee: u32,
    offsets: Vec<u64>,
    targets: Vec<u32>,
    weights: Vec<f32>,
}

impl Shard {
    /// The partition this shard belongs to.
    #[inline]
    pub fn partition(&self) -> &Partition {
        &self.partition
    }

    /// Global trustee index of the owner.
    #[inline]
    pub fn trustee(&self) -> u32 {
        self.trustee
    }

    /// Number of vertices this shard owns.
    #[inline]
    pub fn num_local_vertices(&self) -> u64 {
        self.offsets.len() as u64 - 1
    }

    /// Number of adjacency entries (sum of degrees).
    #[inline]
    pub fn num_entries(&self) -> u64 {
        self.targets.len() as u64
    }

    /// Global id of local vertex `local`.
    #[inline]
    pub fn global_id(&self, local: u64) -> u64 {
        self.partition.global(self.trustee, local)
    }

    /// Range of local vertex `local`'s entries in [`Shard::targets`] /
    /// [`Shard::weights`] (empty for an unknown vertex).
    #[inline]
    pub fn entry_range(&self, local: u64) -> Range<usize> {
        let i = local as usize;
        match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(&a), Some(&b)) => a as usize..b as usize,
            _ => 0..0,
        }
    }

    /// Degree (entries, duplicates included, self-loops excluded).
    #[inline]
    pub fn degree(&self, local: u64) -> u64 {
        self.entry_range(local).len() as u64
    }

    /// Neighbour ids and weights of `local` as two parallel slices.
    #[inline]
    pub fn adjacency(&self, local: u64) -> (&[u32], &[f32]) {
        let r = self.entry_range(local);
        (&self.targets[r.clone()], &self.weights[r])
    }

    /// `(neighbour global id, weight)` pairs of local vertex `local`.
    #[inline]
    pub fn neighbors(&self, local: u64) -> impl Iterator<Item = (u32, f32)> + '_ {
        let (t, w) = self.adjacency(local);
        t.iter().copied().zip(w.iter().copied())
    }

    /// `(local index, global id)` of every owned vertex.
    pub fn vertices(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        (0..self.num_local_vertices()).map(move |l| (l, self.global_id(l)))
    }

    /// Offsets array (`num_local_vertices + 1` entries, first is 0).
    #[inline]
    pub fn offsets(&self) -> &[u64] {
        &self.offsets
    }

    /// Neighbour global ids of all entries.
    #[inline]
    pub fn targets(&self) -> &[u32] {
        &self.targets
    }

    /// Weights of all entries.
    #[inline]
    pub fn weights(&self) -> &[f32] {
        &self.weights
    }

    /// Heap bytes held by this shard.
    pub fn heap_bytes(&self) -> u64 {
        (self.offsets.capacity() * 8 + self.targets.capacity() * 4 + self.weights.capacity() * 4)
            as u64
    }
}

/// The whole graph as one shard (partition: one trustee), for validators
/// and sequential references. Local index == global id.
pub fn build_whole(list: &EdgeList<'_>) -> Result<Shard, CsrError> {
    let p = Partition::single(list.num_vertices());
    let mut shards = build_trustees(list, &p, 0..1)?;
    Ok(shards.remove(0))
}

/// All shards of `rank` (trustees `rank * threads .. (rank + 1) * threads`),
/// in trustee order.
///
/// ```
/// use graph_core::{build_rank, EdgeList, PackedEdge, Partition, PartitionKind};
/// let list = EdgeList::from_edges(4, vec![PackedEdge::new(0, 3, 1.0), PackedEdge::new(1, 2, 2.0)]).unwrap();
/// let p = Partition::new(PartitionKind::Cyclic, 4, 2, 2).unwrap();
/// let shards = build_rank(&list, &p, 1).unwrap(); // trustees 2 and 3
/// assert_eq!(shards[0].trustee(), 2);
/// assert_eq!(shards[0].global_id(0), 2);
/// assert_eq!(shards[0].neighbors(0).collect::<Vec<_>>(), [(1, 2.0)]);
/// assert_eq!(shards[1].neighbors(0).collect::<Vec<_>>(), [(0, 1.0)]);
/// ```
pub fn build_rank(
    list: &EdgeList<'_>,
    partition: &Partition,
    rank: u32,
) -> Result<Vec<Shard>, CsrError> {
    build_trustees(list, partition, partition.trustees_of_rank(rank))
}

/// Shards of the trustees in `trustees` (any contiguous range of global
/// trustee indices), built together in two parallel passes over the edges.
pub fn build_trustees(
    list: &EdgeList<'_>,
    partition: &Partition,
    trustees: Range<u32>,
) -> Result<Vec<Shard>, CsrError> {
    let n = list.num_vertices();
    if partition.num_vertices() != n {
        return Err(CsrError::PartitionMismatch {
            graph: n,
            partition: partition.num_vertices(),
        });
    }
    if trustees.start > trustees.end || trustees.end > partition.num_trustees() {
        return Err(CsrError::NoSuchTrustees {
            requested: trustees,
            trustees: partition.num_trustees(),
        });
    }
    let first = trustees.start;
    let edges = list.edges();

    // Pass 1: degrees, counted into cursor arrays (one per shard, with one
    // extra slot that ends up holding the total).
    let mut cursors: Vec<Vec<AtomicU64>> = trustees
        .clone()
        .map(|t| {
            let c = partition.local_count(t) as usize;
            (0..=c).map(|_| AtomicU64::new(0)).collect()
        })
        .collect();
    let owned_slot = |x: u32| -> Option<(usize, usize)> {
        let o = partition.owner(u64::from(x));
        if trustees.contains(&o.trustee) {
            Some(((o.trustee - first) as usize, o.local as usize))
        } else {
            None
        }
    };
    let bad = edges.par_iter().enumerate().try_for_each(|(i, e)| {
        if u64::from(e.u) >= n || u64::from(e.v) >= n {
            return Err(i);
        }
        if e.is_self_loop() {
            return Ok(());
        }
        for x in [e.u, e.v] {
            if let Some((s, l)) = owned_slot(x) {
                cursors[s][l].fetch_add(1, Ordering::Relaxed);
            }
        }
        Ok(())
    });
    if let Err(i) = bad {
        // Report the first offending record, not whichever a thread hit.
        list.validate()?;
        let e = edges[i];
        return Err(CsrError::Edge(EdgeListError::VertexOutOfRange {
            index: i as u64,
            u: e.u,
            v: e.v,
            num_vertices: n,
        }));
    }

    // Exclusive prefix sums: cursor[l] = first entry of local vertex l.
    let mut totals = Vec::with_capacity(cursors.len());
    for shard in cursors.iter_mut() {
        let mut sum = 0u64;
        for c in shard.iter_mut() {
            let d = *c.get_mut();
            *c.get_mut() = sum;
            sum += d;
        }
        // The extra slot saw no degree, so it now holds the total.
        let entries = usize::try_from(sum).map_err(|_| CsrError::TooLarge { entries: sum })?;
        totals.push(entries);
    }

    // Pass 2: fill. Each entry slot is claimed once by a fetch_add.
    let mut targets: Vec<Vec<u32>> = totals.iter().map(|&m| vec![0u32; m]).collect();
    let mut weights: Vec<Vec<f32>> = totals.iter().map(|&m| vec![0f32; m]).collect();
    {
        let t_out: Vec<Scatter<'_, u32>> = targets.iter_mut().map(|v| Scatter::new(v)).collect();
        let w_out: Vec<Scatter<'_, f32>> = weights.iter_mut().map(|v| Scatter::new(v)).collect();
        edges.par_iter().for_each(|e| {
            if e.is_self_loop() {
                return;
            }
            for (x, y) in [(e.u, e.v), (e.v, e.u)] {
                if let Some((s, l)) = owned_slot(x) {
                    let pos = cursors[s][l].fetch_add(1, Ordering::Relaxed) as usize;
                    // SAFETY: `pos` was handed out by this vertex's cursor,
                    // which starts at the vertex's first slot and is bumped
                    // exactly degree times (pass 1 counted the same edges), so
                    // every slot of the shard is claimed by exactly one write.
                    unsafe {
                        t_out[s].write(pos, y);
                        w_out[s].write(pos, e.w);
                    }
                }
            }
        });
    }

    // After the fill, cursor[l] = end of l = start of l + 1, and the extra
    // slot still holds the total: rotate to get offsets with a leading 0.
    let shards = cursors
        .into_iter()
        .zip(targets)
        .zip(weights)
        .zip(trustees)
        .map(|(((cur, mut targets), mut weights), trustee)| {
            let mut offsets: Vec<u64> = cur.into_iter().map(AtomicU64::into_inner).collect();
            offsets.rotate_right(1);
            offsets[0] = 0;
            sort_lists(&offsets, &mut targets, &mut weights);
            Shard {
                partition: *partition,
                trustee,
                offsets,
                targets,
                weights,
            }
        })
        .collect();
    Ok(shards)
}

/// Sorts every vertex's list by (neighbour, weight), in parallel over
/// groups of vertices with roughly equal entry counts.
fn sort_lists(offsets: &[u64], targets: &mut [u32], weights: &mut [f32]) {
    let total = targets.len();
    let want = (total / (rayon::current_num_threads() * 8)).max(4096);
    // Cut the vertex range into groups, each with its own disjoint slices.
    let mut groups = Vec::new();
    let (mut t_rest, mut w_rest) = (targets, weights);
    let mut start_v = 0usize;
    let nv = offsets.len() - 1;
    while start_v < nv {
        let base = offsets[start_v];
        let mut end_v = start_v + 1;
        while end_v < nv && (offsets[end_v] - base) < want as u64 {
            end_v += 1;
        }
        let len = (offsets[end_v] - base) as usize;
        let (t_head, t_tail) = t_rest.split_at_mut(len);
        let (w_head, w_tail) = w_rest.split_at_mut(len);
        groups.push((start_v..end_v, t_head, w_head));
        t_rest = t_tail;
        w_rest = w_tail;
        start_v = end_v;
    }
    groups.into_par_iter().for_each(|(vs, t, w)| {
        let base = offsets[vs.start];
        let mut buf: Vec<(u32, f32)> = Vec::new();
        for v in vs {
            let a = (offsets[v] - base) as usize;
            let b = (offsets[v + 1] - base) as usize;
            if b - a < 2 {
                continue;
            }
            buf.clear();
            buf.extend(t[a..b].iter().copied().zip(w[a..b].iter().copied()));
            buf.sort_unstable_by(|x, y| x.0.cmp(&y.0).then(x.1.total_cmp(&y.1)));
            for (k, &(tt, ww)) in buf.iter().enumerate() {
                t[a + k] = tt;
                w[a + k] = ww;
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edge_list::PackedEdge;
    use crate::partition::PartitionKind;

    fn small() -> EdgeList<'static> {
        EdgeList::from_edges(
            5,
            vec![
                PackedEdge::new(0, 1, 0.5),
                PackedEdge::new(1, 0, 0.25),
                PackedEdge::new(2, 2, 1.0),
                PackedEdge::new(4, 2, 0.75),
                PackedEdge::new(3, 1, 0.125),
            ],
        )
        .unwrap()
    }

    #[test]
    fn whole_graph_lists() {
        let g = build_whole(&small()).unwrap();
        assert_eq!(g.offsets(), &[0, 2, 5, 6, 7, 8]);
        let lists: Vec<Vec<(u32, f32)>> = (0..5).map(|v| g.neighbors(v).collect()).collect();
        assert_eq!(lists[0], [(1, 0.25), (1, 0.5)]);
        assert_eq!(lists[1], [(0, 0.25), (0, 0.5), (3, 0.125)]);
        assert_eq!(lists[2], [(4, 0.75)]);
        assert_eq!(lists[3], [(1, 0.125)]);
        assert_eq!(lists[4], [(2, 0.75)]);
        assert_eq!(g.degree(99), 0);
    }

    #[test]
    fn shards_split_the_whole_graph() {
        let list = small();
        let whole = build_whole(&list).unwrap();
        let p = Partition::new(PartitionKind::Block, 5, 2, 2).unwrap();
        let mut total = 0;
        for rank in 0..2 {
            for s in build_rank(&list, &p, rank).unwrap() {
                total += s.num_entries();
                for (l, gid) in s.vertices() {
                    let a: Vec<_> = s.neighbors(l).collect();
                    let b: Vec<_> = whole.neighbors(gid).collect();
                    assert_eq!(a, b, "vertex {gid}");
                }
            }
        }
        assert_eq!(total, whole.num_entries());
    }

    #[test]
    fn bad_inputs_are_errors() {
        let list = EdgeList::from_edges(3, vec![PackedEdge::new(0, 7, 1.0)]).unwrap();
        assert!(matches!(
            build_whole(&list),
            Err(CsrError::Edge(EdgeListError::VertexOutOfRange {
                index: 0,
                ..
            }))
        ));
        let list = small();
        let p = Partition::single(4);
        assert!(matches!(
            build_rank(&list, &p, 0),
            Err(CsrError::PartitionMismatch { .. })
        ));
        let p = Partition::single(5);
        assert!(matches!(
            build_rank(&list, &p, 1),
            Err(CsrError::NoSuchTrustees { .. })
        ));
    }

    #[test]
    fn empty_graph_builds() {
        let list = EdgeList::from_edges(0, vec![]).unwrap();
        let g = build_whole(&list).unwrap();
        assert_eq!(g.num_local_vertices(), 0);
        assert_eq!(g.num_entries(), 0);
    }
}
