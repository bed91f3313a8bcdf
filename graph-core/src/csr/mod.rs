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
//! * directed ([`build_trustees_with`], [`Shard::is_directed`]): every
//!   input record `(u, v, w)` is the arc `u -> v` and appears in `u`'s list
//!   only, as `(v, w)`: the rows are out-edges, one entry per arc. The shard
//!   also keeps an unweighted in-edge index (`u` listed under `v`, 4 bytes
//!   per arc plus 8 per vertex: [`Shard::in_neighbors`]) for the kernels
//!   that pull along in-edges (PageRank) and the components' linking;
//! * self-loops are dropped;
//! * **duplicates are kept**: parallel edges stay as separate entries (SSSP
//!   only needs the minimum weight, but the Graph500 TEPS count needs, for
//!   every reached vertex `u`, the number of entries `v <= u` in this
//!   self-loop-free CSR, duplicates included);
//! * each vertex's list is in input (generator) order, so a build is
//!   deterministic whatever the number of threads.
//!
//! A kernel may *rewrite the rows in place* ([`Shard::rewrite_rows`]) instead
//! of keeping a private copy of them: it renames the targets to its own ids
//! and reorders each row (SSSP's light/heavy rows, see `graph_kernel`'s
//! `LightHeavy`), and leaves the table that names them back
//! ([`Shard::renamed`]). Rows then keep their vertices, degrees and entries
//! (duplicates too), so degrees, the Graph500 validation and the TEPS count
//! still read them; [`neighbors`](Shard::neighbors) names targets by global
//! id either way, while [`adjacency`](Shard::adjacency) and
//! [`targets`](Shard::targets) hand out the stored ids. Kernels that read
//! raw global ids refuse such a graph
//! (`ShardedGraph::check_global_ids`).
//!
//! Building ([`build_rank`], [`build_trustees`], [`build_whole`]) is a
//! parallel two-pass counting sort of the adjacency entries. The edge list
//! is cut into one contiguous chunk per worker thread (rayon); each chunk
//! is read once per pass:
//! 1. each chunk counts its endpoints per owned vertex in a private array;
//! 2. a prefix sum over vertices (and, per vertex, over chunks) gives every
//!    chunk its own write cursor per vertex, after the entries of the
//!    earlier chunks;
//! 3. each chunk writes both directions of its edges at its cursors.
//!
//! No two chunks write the same position, so there are no atomic
//! read-modify-writes and no locks; each vertex's list comes out in input
//! order, so the CSR is the same for any thread count.
//!
//! The passes are bound by accesses to unpredictable cache lines; three
//! small private modules hold this file's `unsafe`, each with its `SAFETY`
//! argument: `atomic_view` (the scattered writes are relaxed stores through
//! an `AtomicU32` view of the adjacency arrays), `huge_pages`
//! (`madvise(MADV_HUGEPAGE)` on the big arrays, fewer TLB misses) and
//! `prefetch` (x86_64 software prefetch of the cursor and entry lines a few
//! dozen edges ahead).
//!
//! Peak memory during construction is the edge list (12 B/edge) plus the
//! adjacency (2 entries x 8 B = 16 B per non-loop edge) plus one `u64` per
//! owned vertex (0.5 B/edge at edgefactor 16) plus one `u32` cursor per
//! owned vertex for every chunk but the last (0.25 B/edge with 2 threads at
//! edgefactor 16; capped at 1 B/edge by using fewer chunks), measured with
//! `cargo run --release -p graph-core --example build_memory`. Graphs with
//! more than `u32::MAX / 2` edges are sorted as one chunk (64-bit cursors).

use std::fmt;
use std::ops::Range;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use crate::edge_list::{EdgeList, EdgeListError, PackedEdge};
use crate::mapped::{MappedSlice, Plain};
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
    /// An array of the shards could not be allocated.
    OutOfMemory(crate::alloc::OutOfMemory),
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
            CsrError::OutOfMemory(e) => write!(f, "{e}"),
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
///
/// The arrays are either owned (a shard built in memory) or views of a
/// memory-mapped prepared-shard file ([`crate::io::prepared`]); the accessors
/// hand out plain slices either way (one predictable branch per access).
/// A clone of a mapped shard shares the mapping; serialized (shipped to
/// another rank) it travels as its values and arrives owned.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Shard {
    partition: Partition,
    trustee: u32,
    offsets: Array<u64>,
    targets: Array<u32>,
    weights: Array<f32>,
    /// The records were arcs: the rows hold out-edges only, and the
    /// in-edge index below is filled.
    directed: bool,
    /// Directed graphs only (empty otherwise): each owned vertex's
    /// in-neighbours (tails of the arcs into it, duplicates kept), as
    /// `in_sources[in_offsets[l]..in_offsets[l + 1]]`.
    in_offsets: Array<u64>,
    in_sources: Array<u32>,
    /// Set when a kernel rewrote the rows in place
    /// ([`Shard::rewrite_rows`]): the global id of each stored target id.
    #[serde(skip)]
    renamed: Option<Arc<[u32]>>,
}

/// One array of a shard: owned, or viewed in place in a mapped file.
pub(crate) enum Array<T: Plain> {
    /// Built in memory.
    Owned(Vec<T>),
    /// A view of a memory-mapped prepared-shard file.
    Mapped(MappedSlice<T>),
}

impl<T: Plain> std::ops::Deref for Array<T> {
    type Target = [T];
    #[inline(always)]
    fn deref(&self) -> &[T] {
        match self {
            Array::Owned(v) => v,
            Array::Mapped(m) => m.as_slice(),
        }
    }
}

impl<T: Plain> Array<T> {
    /// The values as a vector (moved when owned, copied when mapped).
    pub(crate) fn into_vec(self) -> Vec<T> {
        match self {
            Array::Owned(v) => v,
            Array::Mapped(m) => m.as_slice().to_vec(),
        }
    }
}

impl<T: Plain> From<Vec<T>> for Array<T> {
    fn from(v: Vec<T>) -> Self {
        Array::Owned(v)
    }
}

impl<T: Plain> Clone for Array<T> {
    fn clone(&self) -> Self {
        match self {
            Array::Owned(v) => Array::Owned(v.clone()),
            Array::Mapped(m) => Array::Mapped(m.clone()),
        }
    }
}

impl<T: Plain + fmt::Debug> fmt::Debug for Array<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Plain + PartialEq> PartialEq for Array<T> {
    fn eq(&self, o: &Self) -> bool {
        **self == **o
    }
}

impl<T: Plain + serde::Serialize> serde::Serialize for Array<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // The same encoding as a `Vec<T>` (a sequence).
        (**self).serialize(s)
    }
}

impl<'de, T: Plain + serde::Deserialize<'de>> serde::Deserialize<'de> for Array<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::<T>::deserialize(d).map(Array::Owned)
    }
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

    /// A shard from its arrays (`offsets` has one entry per owned vertex
    /// plus one, non-decreasing, ending at `targets.len() == weights.len()`).
    pub(crate) fn from_parts(
        partition: Partition,
        trustee: u32,
        offsets: Vec<u64>,
        targets: Vec<u32>,
        weights: Vec<f32>,
    ) -> Shard {
        Shard::from_arrays(
            partition,
            trustee,
            offsets.into(),
            targets.into(),
            weights.into(),
        )
    }

    /// [`Shard::from_parts`] for arrays that may be mapped (the caller
    /// checked the same invariants).
    pub(crate) fn from_arrays(
        partition: Partition,
        trustee: u32,
        offsets: Array<u64>,
        targets: Array<u32>,
        weights: Array<f32>,
    ) -> Shard {
        debug_assert_eq!(offsets.len() as u64, partition.local_count(trustee) + 1);
        debug_assert_eq!(offsets.last().copied(), Some(targets.len() as u64));
        debug_assert_eq!(targets.len(), weights.len());
        Shard {
            partition,
            trustee,
            offsets,
            targets,
            weights,
            directed: false,
            in_offsets: Vec::new().into(),
            in_sources: Vec::new().into(),
            renamed: None,
        }
    }

    /// Marks the shard directed, with its in-edge index (`in_offsets`: one
    /// entry per owned vertex plus one, ending at `in_sources.len()`).
    pub(crate) fn with_in_edges(
        mut self,
        in_offsets: impl Into<Array<u64>>,
        in_sources: impl Into<Array<u32>>,
    ) -> Shard {
        let (in_offsets, in_sources) = (in_offsets.into(), in_sources.into());
        debug_assert_eq!(in_offsets.len(), self.offsets.len());
        debug_assert_eq!(in_offsets.last().copied(), Some(in_sources.len() as u64));
        self.directed = true;
        self.in_offsets = in_offsets;
        self.in_sources = in_sources;
        self
    }

    /// Whether the graph is directed: then the rows ([`adjacency`](Self::adjacency),
    /// [`neighbors`](Self::neighbors), [`degree`](Self::degree)) hold
    /// out-edges only and [`in_neighbors`](Self::in_neighbors) the in-edges.
    #[inline]
    pub fn is_directed(&self) -> bool {
        self.directed
    }

    /// Tails of the arcs into local vertex `local` (global ids, duplicates
    /// kept, self-loops dropped). On an undirected shard every edge goes
    /// both ways, so this is the row itself ([`adjacency`](Self::adjacency)'s
    /// ids: the stored ones, after a [rename](Self::rewrite_rows)).
    #[inline]
    pub fn in_neighbors(&self, local: u64) -> &[u32] {
        if !self.directed {
            return self.adjacency(local).0;
        }
        let i = local as usize;
        match (self.in_offsets.get(i), self.in_offsets.get(i + 1)) {
            (Some(&a), Some(&b)) => &self.in_sources[a as usize..b as usize],
            _ => &[],
        }
    }

    /// The in-edge index of a directed shard: offsets (one per owned vertex
    /// plus one) and sources; both empty on an undirected shard.
    pub(crate) fn in_index(&self) -> (&[u64], &[u32]) {
        (&self.in_offsets, &self.in_sources)
    }

    /// In-degree of local vertex `local` (the degree on an undirected shard).
    #[inline]
    pub fn in_degree(&self, local: u64) -> u64 {
        self.in_neighbors(local).len() as u64
    }

    /// Whether the arrays are views of a mapped prepared-shard file.
    pub fn is_mapped(&self) -> bool {
        matches!(self.offsets, Array::Mapped(_))
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

    /// Neighbour ids and weights of `local` as two parallel slices: global
    /// ids, unless a kernel [renamed](Self::rewrite_rows) them (then
    /// [`renamed`](Self::renamed) maps them back).
    #[inline]
    pub fn adjacency(&self, local: u64) -> (&[u32], &[f32]) {
        let r = self.entry_range(local);
        (&self.targets[r.clone()], &self.weights[r])
    }

    /// `(neighbour global id, weight)` pairs of local vertex `local` (global
    /// ids also after a kernel [renamed](Self::rewrite_rows) the targets).
    #[inline]
    pub fn neighbors(&self, local: u64) -> impl Iterator<Item = (u32, f32)> + '_ {
        let (t, w) = self.adjacency(local);
        let names = self.renamed.as_deref();
        t.iter()
            .map(move |&v| names.map_or(v, |n| n[v as usize]))
            .zip(w.iter().copied())
    }

    /// The table of a shard whose rows a kernel rewrote in place
    /// ([`rewrite_rows`](Self::rewrite_rows)): `names[t]` is the global id
    /// of stored target `t`. `None` while the targets are global ids.
    #[inline]
    pub fn renamed(&self) -> Option<&Arc<[u32]>> {
        self.renamed.as_ref()
    }

    /// Lets a kernel rename the targets and reorder the entries of each row
    /// in place, to run on the shard instead of on a private copy (8 B per
    /// entry saved): `rewrite(offsets, targets, weights)` must leave every
    /// row with the same entries (each target renamed to its index in
    /// `names`, whose value is its global id; any order within the row;
    /// nothing dropped), so that degrees, validation and the TEPS count stay
    /// right. The shard keeps `names` ([`renamed`](Self::renamed)).
    ///
    /// Returns false, calling nothing, when the arrays are mapped from a
    /// prepared-shard file (read-only: the kernel copies them instead) or
    /// were renamed with another table. A shard renamed with the same table
    /// (the same `Arc`) may be rewritten again (e.g. reordered for a new
    /// bucket width); its targets are then already renamed.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use graph_core::{EdgeList, PackedEdge};
    /// let edges = vec![PackedEdge::new(0, 1, 0.5), PackedEdge::new(1, 2, 0.25)];
    /// let list = EdgeList::from_edges(3, edges).unwrap();
    /// let mut g = graph_core::csr::build_whole(&list).unwrap();
    /// // Name vertex v as 2 - v, and reverse every row.
    /// let names: Arc<[u32]> = Arc::from(vec![2, 1, 0]);
    /// assert!(g.rewrite_rows(names, |off, t, w| {
    ///     t.iter_mut().for_each(|v| *v = 2 - *v);
    ///     for r in off.windows(2) {
    ///         t[r[0] as usize..r[1] as usize].reverse();
    ///         w[r[0] as usize..r[1] as usize].reverse();
    ///     }
    /// }));
    /// assert_eq!(g.adjacency(1).0, [0, 2]); // stored: the new names
    /// let global: Vec<(u32, f32)> = g.neighbors(1).collect();
    /// assert_eq!(global, [(2, 0.25), (0, 0.5)]);
    /// ```
    pub fn rewrite_rows(
        &mut self,
        names: Arc<[u32]>,
        rewrite: impl FnOnce(&[u64], &mut [u32], &mut [f32]),
    ) -> bool {
        if self
            .renamed
            .as_ref()
            .is_some_and(|n| !Arc::ptr_eq(n, &names))
        {
            return false;
        }
        let (Array::Owned(offsets), Array::Owned(targets), Array::Owned(weights)) =
            (&self.offsets, &mut self.targets, &mut self.weights)
        else {
            return false;
        };
        rewrite(offsets, targets, weights);
        self.renamed = Some(names);
        true
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

    /// Neighbour ids of all entries (global ids unless
    /// [renamed](Self::rewrite_rows)).
    #[inline]
    pub fn targets(&self) -> &[u32] {
        &self.targets
    }

    /// Weights of all entries.
    #[inline]
    pub fn weights(&self) -> &[f32] {
        &self.weights
    }

    /// Heap bytes held by this shard (0 for arrays mapped from a
    /// prepared-shard file: those pages belong to the page cache).
    pub fn heap_bytes(&self) -> u64 {
        fn cap<T: Plain>(a: &Array<T>) -> usize {
            match a {
                Array::Owned(v) => v.capacity() * std::mem::size_of::<T>(),
                Array::Mapped(_) => 0,
            }
        }
        (cap(&self.offsets)
            + cap(&self.targets)
            + cap(&self.weights)
            + cap(&self.in_offsets)
            + cap(&self.in_sources)) as u64
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
/// trustee indices), built together by one parallel counting sort of the
/// adjacency entries (see the module docs).
pub fn build_trustees(
    list: &EdgeList<'_>,
    partition: &Partition,
    trustees: Range<u32>,
) -> Result<Vec<Shard>, CsrError> {
    build_trustees_with(list, partition, trustees, false)
}

/// [`build_trustees`] for records that are arcs `u -> v` when `directed`:
/// each row then holds its vertex's out-edges only, and the shard an
/// in-edge index ([`Shard::in_neighbors`]); undirected (`false`) is
/// [`build_trustees`].
///
/// ```
/// use graph_core::csr::build_trustees_with;
/// use graph_core::{EdgeList, PackedEdge, Partition};
/// let list = EdgeList::from_edges(3, vec![
///     PackedEdge::new(0, 1, 0.5),
///     PackedEdge::new(2, 1, 0.25),
/// ]).unwrap();
/// let g = build_trustees_with(&list, &Partition::single(3), 0..1, true).unwrap().remove(0);
/// assert!(g.is_directed());
/// assert_eq!(g.neighbors(0).collect::<Vec<_>>(), [(1, 0.5)]);
/// assert_eq!(g.degree(1), 0); // 1 has no out-edge
/// assert_eq!(g.in_neighbors(1), [0, 2]);
/// assert_eq!(g.num_entries(), 2); // one entry per arc
/// ```
pub fn build_trustees_with(
    list: &EdgeList<'_>,
    partition: &Partition,
    trustees: Range<u32>,
    directed: bool,
) -> Result<Vec<Shard>, CsrError> {
    let chunks = chunk_count(list, partition, &trustees, rayon::current_num_threads());
    if !directed {
        return build_in_chunks(list, partition, trustees, chunks, Sides::Both);
    }
    let out = build_in_chunks(list, partition, trustees.clone(), chunks, Sides::Out)?;
    let inn = build_in_chunks(list, partition, trustees, chunks, Sides::In)?;
    Ok(out
        .into_iter()
        .zip(inn)
        .map(|(o, i)| o.with_in_edges(i.offsets.into_vec(), i.targets.into_vec()))
        .collect())
}

/// [`build_rank`] with a direction (see [`build_trustees_with`]).
pub fn build_rank_with(
    list: &EdgeList<'_>,
    partition: &Partition,
    rank: u32,
    directed: bool,
) -> Result<Vec<Shard>, CsrError> {
    build_trustees_with(list, partition, partition.trustees_of_rank(rank), directed)
}

/// Which rows an edge `(u, v)` is entered in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sides {
    /// Undirected: `v` in `u`'s row and `u` in `v`'s.
    Both,
    /// Out-edges of an arc: `v` in `u`'s row only.
    Out,
    /// In-edges of an arc: `u` in `v`'s row only.
    In,
}

impl Sides {
    /// The orientations entered: `false` is `(u, v)` (`v` in `u`'s row),
    /// `true` is `(v, u)`; see [`oriented`].
    #[inline(always)]
    fn flips(self) -> &'static [bool] {
        match self {
            Sides::Both => &[false, true],
            Sides::Out => &[false],
            Sides::In => &[true],
        }
    }
}

/// The `(row vertex, entry)` pair of `e`, reversed when `flip`.
#[inline(always)]
fn oriented(e: &PackedEdge, flip: bool) -> (u32, u32) {
    if flip {
        (e.v, e.u)
    } else {
        (e.u, e.v)
    }
}

/// Most scratch the per-chunk cursor arrays may add, in bytes per input
/// edge (each chunk but the last needs 4 bytes per owned vertex).
const MAX_CURSOR_BYTES_PER_EDGE: u64 = 1;

/// Fewest edges worth a chunk of their own.
const MIN_CHUNK_EDGES: u64 = 1 << 14;

/// How many contiguous chunks of the edge list to sort in parallel: one per
/// worker thread, fewer when the graph is small, when the cursor scratch
/// would exceed [`MAX_CURSOR_BYTES_PER_EDGE`], or when 32-bit cursors
/// could overflow (then one chunk with 64-bit cursors).
fn chunk_count(
    list: &EdgeList<'_>,
    partition: &Partition,
    trustees: &Range<u32>,
    threads: usize,
) -> usize {
    let m = list.num_edges();
    if 2 * m > u64::from(u32::MAX) {
        return 1;
    }
    let owned: u64 = trustees
        .clone()
        .map(|t| partition.local_count(t))
        .sum::<u64>()
        .max(1);
    let by_memory = 1 + MAX_CURSOR_BYTES_PER_EDGE * m / (4 * owned);
    let by_size = (m / MIN_CHUNK_EDGES).max(1);
    (threads as u64).min(by_memory).min(by_size).max(1) as usize
}

/// [`build_trustees`] with the edge list cut into exactly `chunks`
/// contiguous chunks (`chunks >= 1`; the result does not depend on it).
fn build_in_chunks(
    list: &EdgeList<'_>,
    partition: &Partition,
    trustees: Range<u32>,
    chunks: usize,
    sides: Sides,
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
    let chunks = if 2 * edges.len() as u64 > u64::from(u32::MAX) {
        1
    } else {
        chunks.clamp(1, edges.len().max(1))
    };
    let step = edges.len().div_ceil(chunks).max(1);
    let parts: Vec<&[PackedEdge]> = if edges.is_empty() {
        vec![edges]
    } else {
        edges.chunks(step).collect()
    };
    let counts: Vec<usize> = trustees
        .clone()
        .map(|t| partition.local_count(t) as usize)
        .collect();
    let (offsets, targets, weights) = if partition.num_trustees() == 1 {
        // One trustee owns everything and local index == global id.
        sort_entries(&parts, &counts, sides, |x| Some((0, x as usize)))?
    } else {
        let first = u64::from(trustees.start);
        let shards = trustees.len() as u64;
        sort_entries(&parts, &counts, sides, move |x| {
            let (t, local) = partition.locate(u64::from(x));
            let s = t.wrapping_sub(first);
            (s < shards).then_some((s as usize, local as usize))
        })?
    };
    let shards = offsets
        .into_iter()
        .zip(targets)
        .zip(weights)
        .zip(trustees)
        .map(|(((offsets, targets), weights), trustee)| {
            Shard::from_parts(*partition, trustee, offsets, targets, weights)
        })
        .collect();
    Ok(shards)
}

/// Per-shard offsets, targets and weights.
type Arrays = (Vec<Vec<u64>>, Vec<Vec<u32>>, Vec<Vec<f32>>);

/// The counting sort. `locate` maps a global id to `(shard, local index)`
/// when one of the shards owns it.
///
/// 1. Each chunk counts its endpoints per owned vertex into its own array
///    (chunks `0..k-1`: `u32` arrays; the last chunk: the `u64` offsets).
/// 2. A prefix sum over vertices, and for each vertex over chunks, turns
///    the counts into cursors: chunk `j`'s cursor for `v` starts after all
///    of `v`'s entries from chunks `< j`.
/// 3. Each chunk writes its entries at its cursors, in edge order.
///
/// So every vertex's list is in edge order whatever the chunk count, and
/// the last chunk's cursors end at the next vertex's start: shifted right
/// by one, they are the offsets.
fn sort_entries<F>(
    parts: &[&[PackedEdge]],
    counts: &[usize],
    sides: Sides,
    locate: F,
) -> Result<Arrays, CsrError>
where
    F: Fn(u32) -> Option<(usize, usize)> + Sync,
{
    let locate = &locate;
    let mut offsets: Vec<Vec<u64>> = counts
        .iter()
        .map(|&c| zeroed(c + 1, "CSR offsets"))
        .collect::<Result<_, _>>()?;
    let mut cursors: Vec<Vec<Vec<u32>>> = (1..parts.len())
        .map(|_| {
            counts
                .iter()
                .map(|&c| zeroed(c, "CSR sorting cursors"))
                .collect::<Result<_, _>>()
        })
        .collect::<Result<_, _>>()?;
    let Some((last, rest)) = parts.split_last() else {
        unreachable!("at least one chunk")
    };

    // 1. Counts.
    rayon::scope(|sc| {
        for (&part, cur) in rest.iter().zip(cursors.iter_mut()) {
            sc.spawn(move |_| count(part, cur, sides, locate));
        }
        count(last, &mut offsets, sides, locate);
    });

    // 2. Counts -> start cursors; the extra slot of each offsets array gets
    //    the shard's total.
    let mut totals = Vec::with_capacity(counts.len());
    for (s, offs) in offsets.iter_mut().enumerate() {
        let mut cols: Vec<&mut [u32]> = cursors.iter_mut().map(|c| c[s].as_mut_slice()).collect();
        let c = offs.len() - 1;
        let mut sum = 0u64;
        for (l, slot) in offs[..c].iter_mut().enumerate() {
            for col in cols.iter_mut() {
                let d = u64::from(col[l]);
                // Fits: more than one chunk only when 2 * edges <= u32::MAX.
                col[l] = sum as u32;
                sum += d;
            }
            let d = *slot;
            *slot = sum;
            sum += d;
        }
        offs[c] = sum;
        totals.push(usize::try_from(sum).map_err(|_| CsrError::TooLarge { entries: sum })?);
    }

    // 3. Scatter.
    let mut targets: Vec<Vec<u32>> = totals
        .iter()
        .map(|&m| zeroed(m, "CSR targets"))
        .collect::<Result<_, _>>()?;
    let mut weights: Vec<Vec<f32>> = totals
        .iter()
        .map(|&m| zeroed(m, "CSR weights"))
        .collect::<Result<_, _>>()?;
    {
        let t_out: Vec<&[AtomicU32]> = targets.iter_mut().map(|t| atomic_view::of_u32(t)).collect();
        let w_out: Vec<&[AtomicU32]> = weights.iter_mut().map(|w| atomic_view::of_f32(w)).collect();
        let out = (t_out.as_slice(), w_out.as_slice());
        rayon::scope(|sc| {
            for (&part, cur) in rest.iter().zip(cursors.iter_mut()) {
                sc.spawn(move |_| scatter(part, cur, out, sides, locate));
            }
            scatter(last, &mut offsets, out, sides, locate);
        });
    }
    drop(cursors);
    for offs in offsets.iter_mut() {
        offs.rotate_right(1);
        offs[0] = 0;
    }
    Ok((offsets, targets, weights))
}

/// A zeroed array of `n` elements whose big interior the kernel is asked
/// to back with huge pages (see [`huge_pages`]) before anything touches it;
/// a failed allocation is an error naming `what`.
fn zeroed<T: Clone + Default>(n: usize, what: &'static str) -> Result<Vec<T>, CsrError> {
    let mut v = crate::alloc::try_vec(n, T::default(), what).map_err(CsrError::OutOfMemory)?;
    huge_pages::advise(&mut v);
    Ok(v)
}

/// A per-vertex counter that later serves as a write cursor.
trait Cursor: Copy + Send {
    fn bump(&mut self);
    /// Current position.
    fn get(self) -> usize;
    /// Current position; advances by one.
    fn take(&mut self) -> usize;
}

impl Cursor for u32 {
    #[inline(always)]
    fn bump(&mut self) {
        *self += 1;
    }
    #[inline(always)]
    fn get(self) -> usize {
        self as usize
    }
    #[inline(always)]
    fn take(&mut self) -> usize {
        let p = *self as usize;
        *self += 1;
        p
    }
}

impl Cursor for u64 {
    #[inline(always)]
    fn bump(&mut self) {
        *self += 1;
    }
    #[inline(always)]
    fn get(self) -> usize {
        self as usize
    }
    #[inline(always)]
    fn take(&mut self) -> usize {
        let p = *self as usize;
        *self += 1;
        p
    }
}

/// How many edges ahead the scatter prefetches entry lines.
const NEAR: usize = 16;
/// How many edges ahead the passes prefetch cursor lines.
const FAR: usize = 32;

/// Counts the owned endpoints of `edges` (self-loops skipped).
fn count<C, F>(edges: &[PackedEdge], counts: &mut [Vec<C>], sides: Sides, locate: &F)
where
    C: Cursor,
    F: Fn(u32) -> Option<(usize, usize)>,
{
    for (i, e) in edges.iter().enumerate() {
        if let Some(f) = edges.get(i + FAR) {
            for x in [f.u, f.v] {
                if let Some((s, l)) = locate(x) {
                    prefetch::line(&counts[s][l]);
                }
            }
        }
        if e.u == e.v {
            continue;
        }
        for &flip in sides.flips() {
            if let Some((s, l)) = locate(oriented(e, flip).0) {
                counts[s][l].bump();
            }
        }
    }
}

/// Writes the entries of `edges` at `cursors` (advancing them).
fn scatter<C, F>(
    edges: &[PackedEdge],
    cursors: &mut [Vec<C>],
    (targets, weights): (&[&[AtomicU32]], &[&[AtomicU32]]),
    sides: Sides,
    locate: &F,
) where
    C: Cursor,
    F: Fn(u32) -> Option<(usize, usize)>,
{
    for (i, e) in edges.iter().enumerate() {
        // Two-stage prefetch: the cursor lines of the edge FAR ahead, then,
        // with those cursors (likely cached by now), the entry lines of the
        // edge NEAR ahead.
        if let Some(f) = edges.get(i + FAR) {
            for x in [f.u, f.v] {
                if let Some((s, l)) = locate(x) {
                    prefetch::line(&cursors[s][l]);
                }
            }
        }
        if let Some(f) = edges.get(i + NEAR) {
            for x in [f.u, f.v] {
                if let Some((s, l)) = locate(x) {
                    let pos = cursors[s][l].get();
                    if let (Some(t), Some(w)) = (targets[s].get(pos), weights[s].get(pos)) {
                        prefetch::line(t);
                        prefetch::line(w);
                    }
                }
            }
        }
        if e.u == e.v {
            continue;
        }
        let w = e.w.to_bits();
        for &flip in sides.flips() {
            let (x, y) = oriented(e, flip);
            if let Some((s, l)) = locate(x) {
                let pos = cursors[s][l].take();
                // Relaxed plain stores: every position has one writer (the
                // cursors partition it), and the scope's join publishes them.
                targets[s][pos].store(y, Ordering::Relaxed);
                weights[s][pos].store(w, Ordering::Relaxed);
            }
        }
    }
}

/// Software prefetch for the scattered accesses of the build.
///
/// The counting sort's cursor updates and entry stores go to unpredictable
/// cache lines; the hardware prefetchers cannot guess them, but the edge
/// list tells which lines the next few dozen edges need.
pub(crate) mod prefetch {
    /// Starts loading the cache line holding `x` (a hint: no effect on
    /// results).
    #[inline(always)]
    pub(crate) fn line<T>(x: &T) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            // SAFETY: `_mm_prefetch` needs SSE, part of every x86_64 CPU
            // (the target's baseline), and a prefetch never faults or
            // changes memory; the pointer comes from a live reference.
            unsafe { _mm_prefetch::<_MM_HINT_T0>((x as *const T).cast::<i8>()) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = x;
    }
}

/// Huge-page advice for the arrays the scatter writes at random.
///
/// Every entry write of the counting sort lands on an unpredictable page of
/// arrays far larger than the TLB covers; with 4 KiB pages nearly each one
/// also walks the page table. On Linux with transparent huge pages in
/// `madvise` mode, `MADV_HUGEPAGE` lets the kernel back those arrays with
/// 2 MiB pages instead. Elsewhere this does nothing.
pub(crate) mod huge_pages {
    /// Advises huge pages for the whole 2 MiB pages inside `xs` (if any).
    /// Best called before the memory is first touched.
    pub(crate) fn advise<T>(xs: &mut [T]) {
        #[cfg(target_os = "linux")]
        {
            const HUGE: usize = 2 << 20;
            let bytes = std::mem::size_of_val(xs);
            let start = xs.as_mut_ptr() as usize;
            let first = start.next_multiple_of(HUGE);
            let end = (start + bytes) / HUGE * HUGE;
            if end > first {
                // SAFETY: the range is whole pages inside the memory `xs`
                // owns (borrowed mutably, so nobody else is using it), and
                // MADV_HUGEPAGE only changes how the kernel backs those
                // pages, never their contents or validity. The call is
                // advice: an error leaves everything as it was, so the
                // result is ignored.
                unsafe {
                    libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
                }
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = xs;
    }
}

/// Shared views of the adjacency arrays for the parallel scatter.
///
/// The chunks of the scatter write interleaved positions of the same
/// arrays; safe Rust can only split a slice into contiguous pieces, so the
/// arrays are viewed as `AtomicU32` cells for the duration of the scatter
/// and written with relaxed stores (plain stores on common hardware). Even
/// if two chunks ever wrote the same cell this would be a wrong result, not
/// a data race.
mod atomic_view {
    use std::mem::{align_of, size_of};
    use std::sync::atomic::AtomicU32;

    const _: () = assert!(size_of::<AtomicU32>() == size_of::<u32>());
    const _: () = assert!(align_of::<AtomicU32>() == align_of::<u32>());
    const _: () = assert!(size_of::<AtomicU32>() == size_of::<f32>());
    const _: () = assert!(align_of::<AtomicU32>() == align_of::<f32>());

    /// `xs` as atomic cells, borrowed exclusively for the view's life.
    pub(super) fn of_u32(xs: &mut [u32]) -> &[AtomicU32] {
        // SAFETY: `AtomicU32` has the same size and bit validity as `u32`
        // (std docs) and, checked above at compile time, the same
        // alignment, so the pointer and length describe valid cells. The
        // exclusive borrow of `xs` lasts as long as the returned view, so
        // no non-atomic access can happen while it exists.
        unsafe { &*(xs as *mut [u32] as *const [AtomicU32]) }
    }

    /// `xs` (as raw bits) as atomic cells, borrowed exclusively.
    pub(super) fn of_f32(xs: &mut [f32]) -> &[AtomicU32] {
        // SAFETY: `f32` has the size and (checked above) alignment of
        // `AtomicU32`, and every `u32` bit pattern is a valid `f32`, so
        // whatever is stored reads back as an `f32`. The exclusive borrow
        // of `xs` lasts as long as the view, as in `of_u32`.
        unsafe { &*(xs as *mut [f32] as *const [AtomicU32]) }
    }
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

    /// A pseudo-random graph with self-loops, duplicates and hubs.
    fn scrambled(n: u32, m: usize) -> EdgeList<'static> {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let edges = (0..m)
            .map(|i| {
                let r = next();
                // Every 7th edge touches hub 3; every 11th is a self-loop.
                let u = if i % 7 == 0 {
                    3
                } else {
                    (r % u64::from(n)) as u32
                };
                let v = if i % 11 == 0 {
                    u
                } else {
                    ((r >> 32) % u64::from(n)) as u32
                };
                PackedEdge::new(u, v, (i % 1000) as f32 / 1000.0)
            })
            .collect();
        EdgeList::from_edges(u64::from(n), edges).unwrap()
    }

    /// Each vertex's list by the definition: both directions, input order,
    /// no self-loops.
    fn reference_lists(list: &EdgeList<'_>) -> Vec<Vec<(u32, f32)>> {
        let mut lists = vec![Vec::new(); list.num_vertices() as usize];
        for e in list.edges().iter().filter(|e| !e.is_self_loop()) {
            lists[e.u as usize].push((e.v, e.w));
            lists[e.v as usize].push((e.u, e.w));
        }
        lists
    }

    #[test]
    fn any_chunk_count_gives_the_defined_lists() {
        let list = scrambled(97, 3000);
        let want = reference_lists(&list);
        let shapes = [
            (PartitionKind::Block, 1, 1),
            (PartitionKind::Block, 2, 3),
            (PartitionKind::Cyclic, 3, 2),
            (PartitionKind::Cyclic, 1, 4),
        ];
        for (kind, ranks, threads) in shapes {
            let p = Partition::new(kind, 97, ranks, threads).unwrap();
            for rank in 0..ranks {
                let trustees = p.trustees_of_rank(rank);
                let one = build_in_chunks(&list, &p, trustees.clone(), 1, Sides::Both).unwrap();
                for s in &one {
                    for (l, gid) in s.vertices() {
                        let got: Vec<_> = s.neighbors(l).collect();
                        assert_eq!(got, want[gid as usize], "{kind:?} vertex {gid}");
                    }
                    assert_eq!(s.offsets()[0], 0);
                    assert_eq!(*s.offsets().last().unwrap(), s.num_entries());
                }
                for chunks in [2, 3, 5, 64, 5000] {
                    let many =
                        build_in_chunks(&list, &p, trustees.clone(), chunks, Sides::Both).unwrap();
                    assert_eq!(many, one, "{kind:?} rank {rank}, {chunks} chunks");
                }
            }
        }
    }

    #[test]
    fn chunk_count_follows_threads_size_and_memory() {
        let n = 1 << 13;
        let p = Partition::single(n);
        // 16 edges per vertex, 128 Ki edges: one chunk per thread, up to
        // what the cursor memory cap allows (1 + 16 / 4 = 5).
        let big = EdgeList::from_edges(n, vec![PackedEdge::new(0, 1, 1.0); 1 << 17]).unwrap();
        assert_eq!(chunk_count(&big, &p, &(0..1), 2), 2);
        assert_eq!(chunk_count(&big, &p, &(0..1), 64), 5);
        // Too few edges for a second chunk.
        let small = EdgeList::from_edges(n, vec![PackedEdge::new(0, 1, 1.0); 100]).unwrap();
        assert_eq!(chunk_count(&small, &p, &(0..1), 8), 1);
    }

    #[test]
    fn an_unallocatable_shard_array_is_an_error() {
        let e = zeroed::<u64>(usize::MAX / 16, "CSR offsets").unwrap_err();
        assert!(matches!(e, CsrError::OutOfMemory(_)), "{e:?}");
        let text = e.to_string();
        assert!(
            text.starts_with("out of memory while allocating CSR offsets ("),
            "{text}"
        );
        assert_eq!(zeroed::<u32>(5, "CSR targets").unwrap(), [0; 5]);
    }

    #[test]
    fn all_self_loops_give_empty_lists() {
        let list = EdgeList::from_edges(3, vec![PackedEdge::new(2, 2, 1.0); 10]).unwrap();
        let p = Partition::single(3);
        let g = build_in_chunks(&list, &p, 0..1, 4, Sides::Both)
            .unwrap()
            .remove(0);
        assert_eq!(g.offsets(), &[0, 0, 0, 0]);
        assert_eq!(g.num_entries(), 0);
    }
}
