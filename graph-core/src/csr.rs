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
//! * each vertex's list is in input (generator) order, so a build is
//!   deterministic whatever the number of threads.
//!
//! Building ([`build_rank`], [`build_trustees`], [`build_whole`]) takes two
//! parallel passes (rayon), each split into tasks that own disjoint ranges
//! of local vertices (and, in the fill, the matching ranges of the
//! adjacency arrays): every task scans the edge list sequentially and
//! handles the endpoints in its range, so counting and filling need no
//! atomics, no `unsafe` and no allocation per edge. Each task re-reads the
//! edge list (sequential, 12 B/edge), which is cheap next to the random
//! writes of the fill as long as tasks (about one per worker thread) stay
//! below a few dozen.
//!
//! Peak memory during construction is the edge list (12 B/edge) plus the
//! adjacency (2 entries x 8 B = 16 B per non-loop edge) plus one `u64` per
//! owned vertex (0.5 B/edge at edgefactor 16): 28.6 bytes per input edge
//! measured for a whole SCALE 20 graph on one rank
//! (`cargo run --release -p graph-core --example build_memory`).

use std::fmt;
use std::ops::Range;

use rayon::prelude::*;

use crate::edge_list::{EdgeList, EdgeListError};
use crate::partition::Partition;

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
/// assert_eq!(n1, [(0, 0.5), (2, 0.25), (0, 0.75)]); // input order
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

    /// Local index of global vertex `v` if this shard owns it.
    #[inline]
    pub fn local_of(&self, v: u64) -> Option<u64> {
        if v >= self.partition.num_vertices() {
            return None;
        }
        let (t, local) = self.partition.locate(v);
        (t == u64::from(self.trustee)).then_some(local)
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
    // Ids must be in range before any of them is used as an index.
    list.validate()?;
    let edges = list.edges();
    let shards = trustees.len();
    // Tasks per shard: enough to keep every worker busy.
    let per_shard = rayon::current_num_threads().div_ceil(shards.max(1)).max(1);

    // One offsets array per shard: `local_count + 1` slots. Pass 1 counts
    // degrees into slots 0..c; the last slot stays 0 until the prefix sum.
    let mut offsets: Vec<Vec<u64>> = trustees
        .clone()
        .map(|t| vec![0u64; partition.local_count(t) as usize + 1])
        .collect();

    // Pass 1: each task owns a range of one shard's local vertices and counts
    // the endpoints that fall in it.
    let mut tasks = Vec::new();
    for (offs, trustee) in offsets.iter_mut().zip(trustees.clone()) {
        let c = offs.len() - 1;
        let step = c.div_ceil(per_shard).max(1);
        let mut rest = &mut offs[..c];
        let mut start = 0;
        while !rest.is_empty() {
            let (head, tail) = rest.split_at_mut(step.min(rest.len()));
            tasks.push((trustee, start, head));
            start += step;
            rest = tail;
        }
    }
    tasks.into_par_iter().for_each(|(trustee, start, counts)| {
        for e in edges.iter().filter(|e| !e.is_self_loop()) {
            for x in [e.u, e.v] {
                if let Some(l) = local_in(partition, x, trustee, start, counts.len()) {
                    counts[l] += 1;
                }
            }
        }
    });

    // Exclusive prefix sums: slot l = first entry of local vertex l; the
    // extra slot ends up holding the total.
    let mut totals = Vec::with_capacity(shards);
    for offs in offsets.iter_mut() {
        let mut sum = 0u64;
        for slot in offs.iter_mut() {
            let d = *slot;
            *slot = sum;
            sum += d;
        }
        let entries = offs.last().copied().unwrap_or(0);
        totals.push(usize::try_from(entries).map_err(|_| CsrError::TooLarge { entries })?);
    }

    // Pass 2: each task owns a range of local vertices with about equal
    // entry counts, and the matching ranges of the adjacency arrays, and
    // fills them in edge order using its slots as cursors (slot l advances
    // from the start of l to the start of l + 1).
    let mut targets: Vec<Vec<u32>> = totals.iter().map(|&m| vec![0u32; m]).collect();
    let mut weights: Vec<Vec<f32>> = totals.iter().map(|&m| vec![0f32; m]).collect();
    let mut tasks = Vec::new();
    for (((offs, t_all), w_all), trustee) in offsets
        .iter_mut()
        .zip(targets.iter_mut())
        .zip(weights.iter_mut())
        .zip(trustees.clone())
    {
        let c = offs.len() - 1;
        let total = offs[c];
        let want = total.div_ceil(per_shard as u64).max(1);
        // Cut points: local vertex indices where a new task starts.
        let mut cuts = vec![0usize];
        for l in 1..c {
            if offs[l] - offs[cuts[cuts.len() - 1]] >= want {
                cuts.push(l);
            }
        }
        cuts.push(c);
        let (mut o_rest, mut t_rest, mut w_rest) =
            (&mut offs[..c], t_all.as_mut_slice(), w_all.as_mut_slice());
        for pair in cuts.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            let (o_head, o_tail) = o_rest.split_at_mut(b - a);
            let base = o_head.first().copied().unwrap_or(0);
            let end = o_tail.first().copied().unwrap_or(total);
            let len = (end - base) as usize;
            let (t_head, t_tail) = t_rest.split_at_mut(len);
            let (w_head, w_tail) = w_rest.split_at_mut(len);
            tasks.push((trustee, a, base, o_head, t_head, w_head));
            o_rest = o_tail;
            t_rest = t_tail;
            w_rest = w_tail;
        }
    }
    tasks
        .into_par_iter()
        .for_each(|(trustee, start, base, cursors, t_out, w_out)| {
            for e in edges.iter().filter(|e| !e.is_self_loop()) {
                for (x, y) in [(e.u, e.v), (e.v, e.u)] {
                    if let Some(l) = local_in(partition, x, trustee, start, cursors.len()) {
                        let pos = (cursors[l] - base) as usize;
                        t_out[pos] = y;
                        w_out[pos] = e.w;
                        cursors[l] += 1;
                    }
                }
            }
        });

    // Slot l now holds the end of l: shift right to get offsets.
    let shards = offsets
        .into_iter()
        .zip(targets)
        .zip(weights)
        .zip(trustees)
        .map(|(((mut offsets, targets), weights), trustee)| {
            offsets.rotate_right(1);
            offsets[0] = 0;
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

/// Index of `x` within a task's range `start..start + len` of `trustee`'s
/// local vertices, if it falls there.
#[inline]
fn local_in(p: &Partition, x: u32, trustee: u32, start: usize, len: usize) -> Option<usize> {
    let (t, local) = p.locate(u64::from(x));
    let l = (local as usize).wrapping_sub(start);
    (t == u64::from(trustee) && l < len).then_some(l)
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
        assert_eq!(lists[0], [(1, 0.5), (1, 0.25)]);
        assert_eq!(lists[1], [(0, 0.5), (0, 0.25), (3, 0.125)]);
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
                let owned = (0..7).filter(|&v| s.local_of(v).is_some()).count() as u64;
                assert_eq!(owned, s.num_local_vertices(), "ids 5, 6 are not vertices");
                for (l, gid) in s.vertices() {
                    assert_eq!(s.local_of(gid), Some(l));
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
