//! The [`Shard`]: one trustee's adjacency, its arrays owned or viewed in
//! a mapped file ([`Array`]), and what the kernels read of it.

use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use crate::mapped::{MappedSlice, Plain};
use crate::partition::Partition;

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
    pub(super) offsets: Array<u64>,
    pub(super) targets: Array<u32>,
    /// Parallel to `targets`; empty when the shard was built unweighted.
    weights: Array<f32>,
    /// Whether `weights` holds a weight per entry ([`Shard::is_weighted`]).
    weighted: bool,
    /// Empty when the rows are stored by local index; else `slots[l]` is
    /// the stored row of local vertex `l` (`offsets` then runs over the
    /// stored rows: [`Shard::row_slots`]).
    slots: Array<u32>,
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
    /// Set when a kernel took the rows ([`Shard::take_rows`]): `targets`
    /// is then empty and this reads the rows back. Such a shard cannot be
    /// serialized (its rows live in the kernel's format).
    #[serde(
        skip_deserializing,
        skip_serializing_if = "Option::is_none",
        serialize_with = "refuse_taken"
    )]
    taken: Option<Taken>,
    /// Set when the shard was taken from a built file's ready rows
    /// ([`crate::io::built::ReadyRows`]): what the kernels' preparation
    /// would otherwise work out ([`Shard::lend_ready_rows`],
    /// [`Shard::ready_split`]).
    #[serde(skip)]
    ready: Option<Ready>,
}

/// What a shard taken from a built file's ready rows carries for the
/// kernels ([`crate::io::built::ReadyRows`]).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Ready {
    /// Unweighted: each stored row's count of distinct targets (empty when
    /// no row holds parallel entries).
    pub(crate) distinct: Vec<u32>,
    /// Unweighted: parallel entries merged, all rows.
    pub(crate) merged: u64,
    /// Weighted: SSSP's spans, one word per position (its `Spans`), and
    /// the Δ the rows are split at.
    pub(crate) spans: Vec<u64>,
    pub(crate) delta: f32,
    /// Weighted: the smallest and largest weight of the whole graph.
    pub(crate) weights: (f32, f32),
}

/// The unweighted rows of a shard taken from ready rows, lent to a kernel
/// ([`Shard::lend_ready_rows`]).
pub struct ReadyLent {
    /// The targets (flat ids) and offsets, by position.
    pub rows: SharedRows,
    /// Each position's count of distinct targets (its first entries);
    /// empty when no row holds parallel entries.
    pub distinct: Vec<u32>,
    /// Parallel entries merged, all rows.
    pub merged: u64,
}

/// How a kernel that took a shard's rows ([`Shard::take_rows`]) hands
/// them back to whoever reads the shard's entries (validation, the TEPS
/// count): each row's entries, in the kernel's own storage.
pub trait TakenRows: Send + Sync {
    /// Appends to `out` the `entries` stored ids of stored row `row` (the
    /// ids the shard held there after the kernel's `order`, parallel
    /// entries included, in any order).
    fn read_row(&self, row: usize, entries: usize, out: &mut Vec<u32>);
}

/// A kernel taking a shard's rows ([`Shard::take_rows`]).
pub trait TakeRows {
    /// What the kernel keeps of the rows.
    type Kept;
    /// Sees position `v`'s row before it is taken (only for rows not
    /// stored by position, all of them in one pass first): e.g. to size
    /// the kernel's storage of each row. May reorder the row as `take`
    /// may; it is copied again for `take`.
    fn measure(&mut self, v: usize, row: &mut [u32]);
    /// Takes position `v`'s row (see [`Shard::take_rows`]).
    fn take(&mut self, v: usize, row: &mut [u32]);
    /// The reader the shard keeps, and what the kernel keeps.
    fn finish(self) -> (Arc<dyn TakenRows>, Self::Kept);
}

/// A shard's handle on the rows a kernel took: compared by identity.
#[derive(Clone)]
struct Taken(Arc<dyn TakenRows>);

impl fmt::Debug for Taken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Taken(..)")
    }
}

impl PartialEq for Taken {
    fn eq(&self, o: &Self) -> bool {
        Arc::ptr_eq(&self.0, &o.0)
    }
}

/// A shard whose rows a kernel took has no targets to send.
fn refuse_taken<S: serde::Serializer>(_: &Option<Taken>, _: S) -> Result<S::Ok, S::Error> {
    Err(serde::ser::Error::custom(
        "a shard whose rows a kernel took (Shard::take_rows) cannot be serialized",
    ))
}

/// A shard's rows as [`Shard::share_rows`] lends them to a kernel: the
/// targets and the offsets (the row at position `v` is
/// `targets[offsets[v]..offsets[v + 1]]`).
pub type SharedRows = (Lent<u32>, Lent<u64>);

/// An array a shard shares, read-only, with a kernel
/// ([`Shard::share_rows`]): in memory, or viewed in place in a mapped file
/// (a built file's ready rows, [`crate::io::built::ReadyRows`]). Reads as
/// a slice; clones share it.
pub struct Lent<T: Plain>(Arc<Array<T>>);

impl<T: Plain> Lent<T> {
    /// Bytes of memory it holds of its own (0 for a view of a mapped
    /// file: those pages belong to the page cache).
    pub fn heap_bytes(&self) -> u64 {
        match &*self.0 {
            Array::Owned(v) => (v.capacity() * std::mem::size_of::<T>()) as u64,
            Array::Mapped(_) => 0,
            Array::Shared(l) => l.heap_bytes(),
        }
    }

    /// Whether it is a view of a mapped file.
    pub fn is_mapped(&self) -> bool {
        match &*self.0 {
            Array::Mapped(_) => true,
            Array::Owned(_) => false,
            Array::Shared(l) => l.is_mapped(),
        }
    }
}

impl<T: Plain> From<Vec<T>> for Lent<T> {
    fn from(v: Vec<T>) -> Self {
        Lent(Arc::new(Array::Owned(v)))
    }
}

impl<T: Plain> std::ops::Deref for Lent<T> {
    type Target = [T];
    #[inline(always)]
    fn deref(&self) -> &[T] {
        &self.0
    }
}

impl<T: Plain> Clone for Lent<T> {
    fn clone(&self) -> Self {
        Lent(self.0.clone())
    }
}

impl<T: Plain + fmt::Debug> fmt::Debug for Lent<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Lent({} values)", self.len())
    }
}

/// One array of a shard: owned, viewed in place in a mapped file, or
/// shared with a kernel's rows ([`Shard::share_rows`]).
pub(crate) enum Array<T: Plain> {
    /// Built in memory.
    Owned(Vec<T>),
    /// A view of a memory-mapped prepared-shard file.
    Mapped(MappedSlice<T>),
    /// Shared (read-only) with a kernel.
    Shared(Lent<T>),
}

impl<T: Plain> std::ops::Deref for Array<T> {
    type Target = [T];
    #[inline(always)]
    fn deref(&self) -> &[T] {
        match self {
            Array::Owned(v) => v,
            Array::Mapped(m) => m.as_slice(),
            Array::Shared(v) => v,
        }
    }
}

impl<T: Plain> Array<T> {
    /// The values as a vector (moved when owned, copied otherwise).
    pub(crate) fn into_vec(self) -> Vec<T> {
        match self {
            Array::Owned(v) => v,
            Array::Mapped(m) => m.as_slice().to_vec(),
            Array::Shared(v) => v.to_vec(),
        }
    }

    /// The array shared with a kernel (no copy: an owned or mapped array
    /// moves behind the shared handle).
    pub(crate) fn lend(&mut self) -> Lent<T> {
        if let Array::Shared(l) = self {
            return l.clone();
        }
        let a = std::mem::replace(self, Array::Owned(Vec::new()));
        let l = Lent(Arc::new(a));
        *self = Array::Shared(l.clone());
        l
    }
}

/// How many bytes a copy out of a mapping reads before it gives the pages
/// behind it back ([`Array::release`]): the copy and the mapped pages not
/// yet copied together hold about one copy's memory.
const RELEASE_STEP: usize = 2 << 20;

/// How many entries ahead of the row being ordered
/// [`Shard::share_rows_ahead`] shows the stored targets.
pub const AHEAD: usize = 64;

impl<T: Plain> Array<T> {
    /// Gives the mapped pages of values `elems` back (see
    /// [`MappedSlice::release`]); nothing for an array in memory.
    pub(crate) fn release(&self, elems: Range<usize>) {
        if let Array::Mapped(m) = self {
            m.release(elems);
        }
    }

    /// Makes a mapped array one of its own in memory: copied in one
    /// sequential pass that gives the mapped pages back behind it, so
    /// the copy never sits beside the whole mapped array in this
    /// process's memory. Nothing for an array in memory already.
    pub(crate) fn own(&mut self, what: &'static str) {
        let Array::Mapped(m) = self else {
            return;
        };
        let from = m.as_slice();
        let mut v = Vec::new();
        crate::alloc::reserve_or_exit(&mut v, from.len(), what);
        super::huge_pages::advise(v.spare_capacity_mut());
        let step = (RELEASE_STEP / std::mem::size_of::<T>()).max(1);
        for at in (0..from.len()).step_by(step) {
            let end = (at + step).min(from.len());
            v.extend_from_slice(&from[at..end]);
            m.release(at..end);
        }
        *self = Array::Owned(v);
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
            Array::Shared(v) => Array::Shared(v.clone()),
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

#[cold]
#[inline(never)]
fn rows_were_taken() -> ! {
    panic!("graph-core: Shard::adjacency on a shard whose rows a kernel took (Shard::take_rows): read them with Shard::row_ids")
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
            weighted: true,
            slots: Vec::new().into(),
            directed: false,
            in_offsets: Vec::new().into(),
            in_sources: Vec::new().into(),
            renamed: None,
            taken: None,
            ready: None,
        }
    }

    /// A shard without weights from its arrays (`offsets`: one per owned
    /// vertex plus one, rising to `targets.len()`; rows by local index),
    /// for kernels that never read weights.
    pub(crate) fn unweighted_from_arrays(
        partition: Partition,
        trustee: u32,
        offsets: Array<u64>,
        targets: Array<u32>,
    ) -> Shard {
        debug_assert_eq!(offsets.len() as u64, partition.local_count(trustee) + 1);
        debug_assert_eq!(offsets.last().copied(), Some(targets.len() as u64));
        Shard {
            partition,
            trustee,
            offsets,
            targets,
            weights: Vec::new().into(),
            weighted: false,
            slots: Vec::new().into(),
            directed: false,
            in_offsets: Vec::new().into(),
            in_sources: Vec::new().into(),
            renamed: None,
            taken: None,
            ready: None,
        }
    }

    /// The shard as taken from ready rows: its targets already renamed by
    /// `names` and ordered as a kernel's preparation leaves them, with what
    /// that preparation would work out (`ready`).
    pub(crate) fn with_ready(mut self, names: Arc<[u32]>, ready: Ready) -> Shard {
        self.renamed = Some(names);
        self.ready = Some(ready);
        self
    }

    /// Makes `names` the shard's renaming table when it holds the same ids
    /// as the one it has (a shard taken from ready rows, whose table a
    /// kernel then builds again for itself): the kernels then know the
    /// shard's targets are theirs. True when the shard is renamed by
    /// `names` afterwards. O(vertices).
    pub fn adopt_names(&mut self, names: &Arc<[u32]>) -> bool {
        match &self.renamed {
            Some(n) if Arc::ptr_eq(n, names) => true,
            Some(n) if **n == **names => {
                self.renamed = Some(names.clone());
                true
            }
            _ => false,
        }
    }

    /// The unweighted rows of a shard taken from ready rows, lent to a
    /// kernel as its own (no copy: views of the mapped file), when they are
    /// what the kernel would make: renamed by `names` (the same table,
    /// [`adopt_names`](Self::adopt_names)) and stored by the kernel's
    /// positions `slots`. `None`, changing nothing, otherwise (the kernel
    /// then copies the rows, renaming them by [`renamed`](Self::renamed)).
    pub fn lend_ready_rows(&mut self, names: &Arc<[u32]>, slots: &[u32]) -> Option<ReadyLent> {
        if self.weighted
            || !self.renamed.as_ref().is_some_and(|n| Arc::ptr_eq(n, names))
            || *self.slots != *slots
        {
            return None;
        }
        let ready = self.ready.as_mut()?;
        let (distinct, merged) = (std::mem::take(&mut ready.distinct), ready.merged);
        let rows = (self.targets.lend(), self.offsets.lend());
        Some(ReadyLent {
            rows,
            distinct,
            merged,
        })
    }

    /// SSSP's split of a weighted shard taken from ready rows, handed
    /// over once: the Δ its rows are split at and one span word per
    /// position (SSSP's own format), or `None`.
    pub fn take_ready_split(&mut self) -> Option<(f32, Vec<u64>)> {
        let r = self.ready.as_mut()?;
        (self.weighted && !r.spans.is_empty()).then(|| (r.delta, std::mem::take(&mut r.spans)))
    }

    /// The graph's smallest and largest weight, when the shard came with
    /// them (ready rows): no pass over the weights needed.
    pub fn ready_weight_range(&self) -> Option<(f32, f32)> {
        let r = self.ready.as_ref()?;
        self.weighted.then_some(r.weights)
    }

    /// The shard without its weights, their memory freed: for kernels and
    /// checks that never read them ([`is_weighted`](Self::is_weighted) is
    /// then false; the rows stay where they are).
    pub fn without_weights(mut self) -> Shard {
        self.weights = Vec::new().into();
        self.weighted = false;
        self
    }

    /// The shard with its rows stored in the order `slots` gives (`slots[l]`:
    /// the stored row of local vertex `l`, a permutation), `offsets` running
    /// over the stored rows.
    pub(crate) fn with_row_slots(mut self, slots: Vec<u32>) -> Shard {
        debug_assert_eq!(slots.len() as u64, self.num_local_vertices());
        self.slots = slots.into();
        self
    }

    /// Where each local vertex's row is stored, when not at its local index:
    /// `slots[l]` is the stored row of local vertex `l`, and
    /// [`offsets`](Self::offsets) runs over the stored rows. An unweighted
    /// build stores the rows in position order ([`positions`](crate::csr::positions):
    /// by decreasing degree where degrees are skewed), the order in which
    /// graph-kernel's adjacency numbers a trustee's
    /// vertices, so that the kernels' rows can be the shard's own
    /// ([`share_rows`](Self::share_rows)). Empty: by local index.
    #[inline]
    pub fn row_slots(&self) -> &[u32] {
        &self.slots
    }

    /// Whether the shard keeps a weight per entry. An unweighted shard (built
    /// for kernels that never read weights, 4 B per entry less) has an
    /// empty [`weights`](Self::weights) array and reads every weight as 1.0
    /// ([`neighbors`](Self::neighbors)); its rows cannot be
    /// [rewritten](Self::rewrite_rows).
    #[inline]
    pub fn is_weighted(&self) -> bool {
        self.weighted
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

    /// Whether any of its arrays is a view of a mapped file (a
    /// prepared-shard file, or a built graph file's rows): false once a
    /// kernel took the rows into memory ([`share_rows`](Self::share_rows),
    /// [`rewrite_rows`](Self::rewrite_rows)) and the shard holds no
    /// view of them any more.
    pub fn is_mapped(&self) -> bool {
        fn mapped<T: Plain>(a: &Array<T>) -> bool {
            match a {
                Array::Mapped(_) => true,
                Array::Shared(l) => l.is_mapped(),
                Array::Owned(_) => false,
            }
        }
        mapped(&self.offsets)
            || mapped(&self.targets)
            || mapped(&self.weights)
            || mapped(&self.slots)
            || mapped(&self.in_offsets)
            || mapped(&self.in_sources)
    }

    /// Number of vertices this shard owns.
    #[inline]
    pub fn num_local_vertices(&self) -> u64 {
        self.offsets.len() as u64 - 1
    }

    /// Number of adjacency entries (sum of degrees).
    #[inline]
    pub fn num_entries(&self) -> u64 {
        self.offsets.last().copied().unwrap_or(0)
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
        let i = if self.slots.is_empty() {
            local as usize
        } else {
            match self.slots.get(local as usize) {
                Some(&s) => s as usize,
                None => return 0..0,
            }
        };
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
    /// [`renamed`](Self::renamed) maps them back). The weights are empty on
    /// an [unweighted](Self::is_weighted) shard.
    ///
    /// # Panics
    ///
    /// When a kernel [took](Self::take_rows) the rows: read them with
    /// [`row_ids`](Self::row_ids).
    #[inline]
    pub fn adjacency(&self, local: u64) -> (&[u32], &[f32]) {
        if self.taken.is_some() {
            rows_were_taken();
        }
        let r = self.entry_range(local);
        let w = if self.weighted {
            &self.weights[r.clone()]
        } else {
            &[]
        };
        (&self.targets[r], w)
    }

    /// The stored ids of local vertex `local`'s entries (as
    /// [`adjacency`](Self::adjacency)'s first slice: global ids unless
    /// [renamed](Self::renamed), parallel entries included), also when a
    /// kernel [took](Self::take_rows) the rows: then decoded into `buf`
    /// (in the order the kernel keeps them), else the shard's own slice.
    #[inline]
    pub fn row_ids<'a>(&'a self, local: u64, buf: &'a mut Vec<u32>) -> &'a [u32] {
        match &self.taken {
            None => self.adjacency(local).0,
            Some(t) => {
                let r = self.entry_range(local);
                buf.clear();
                // Taken rows are stored by position (the slot is the
                // row) or, weighted ones, by local index.
                let row = self
                    .slots
                    .get(local as usize)
                    .map_or(local as usize, |&s| s as usize);
                t.0.read_row(row, r.len(), buf);
                buf
            }
        }
    }

    /// Whether a kernel [took](Self::take_rows) the rows (then
    /// [`targets`](Self::targets) is empty and
    /// [`row_ids`](Self::row_ids) reads them).
    #[inline]
    pub fn rows_taken(&self) -> bool {
        self.taken.is_some()
    }

    /// `(neighbour global id, weight)` pairs of local vertex `local` (global
    /// ids also after a kernel [renamed](Self::rewrite_rows) the targets;
    /// weight 1.0 on an [unweighted](Self::is_weighted) shard).
    #[inline]
    pub fn neighbors(&self, local: u64) -> impl Iterator<Item = (u32, f32)> + '_ {
        let (t, w) = self.adjacency(local);
        let names = self.renamed.as_deref();
        // Weighted: `w` is as long as `t`, the ones are never reached.
        let w = w.iter().copied().chain(std::iter::repeat(1.0));
        t.iter()
            .map(move |&v| names.map_or(v, |n| n[v as usize]))
            .zip(w)
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
    /// Arrays viewed in a mapped file (a built graph file, a prepared-shard
    /// file) are read-only: they are first copied into the shard's own
    /// memory, in one sequential pass that gives the mapped pages back
    /// behind it, so the process holds one copy of the rows, not the copy
    /// beside the mapped pages.
    ///
    /// Returns false, calling nothing, when the shard is
    /// [unweighted](Self::is_weighted) (no weights to
    /// reorder with the targets) or when they were renamed with another
    /// table. A shard renamed with the same table
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
        if !self.weighted
            || self
                .renamed
                .as_ref()
                .is_some_and(|n| !Arc::ptr_eq(n, &names))
        {
            return false;
        }
        self.offsets.own("row offsets");
        self.targets.own("weighted adjacency");
        self.weights.own("weighted adjacency");
        let (Array::Owned(offsets), Array::Owned(targets), Array::Owned(weights)) =
            (&self.offsets, &mut self.targets, &mut self.weights)
        else {
            return false;
        };
        debug_assert!(
            self.slots.is_empty(),
            "weighted rows are stored by local index"
        );
        rewrite(offsets, targets, weights);
        self.renamed = Some(names);
        // Reordered: a ready split's Δ no longer says how.
        self.ready = None;
        true
    }

    /// Lets a kernel take an unweighted shard's rows as its own, to keep one
    /// copy of every entry. `slots` are the kernel's positions (`slots[l]`:
    /// the position of local vertex `l`, a permutation); the rows come to
    /// be stored in that order ([`row_slots`](Self::row_slots)), and
    /// `order(v, row)` renames the targets of the row at position `v` and
    /// reorders its entries, under the same rules as
    /// [`rewrite_rows`](Self::rewrite_rows). The shard then keeps `names`
    /// ([`renamed`](Self::renamed)) and shares its targets, read-only from
    /// then on, with the kernel, and its offsets too (the returned arrays:
    /// the row at position `v` is `targets[offsets[v]..offsets[v + 1]]`).
    ///
    /// A shard built in memory in that order already (an unweighted build,
    /// [`positions`](crate::csr::positions)) is ordered in place. Any other
    /// (rows viewed in a mapped file, or stored in another order) has its
    /// rows copied into a new array in `slots` order first, each row
    /// ordered as it lands, in one pass over the rows in the order they
    /// are stored that gives mapped pages back behind it; the old targets
    /// are dropped. The process then holds one copy of the rows (a built
    /// graph file's pages stay in the page cache for the next run), and
    /// never much more while copying if the mapped pages were not resident
    /// before (a built file's trustee gives them back once it checked them,
    /// [`BuiltGraph::shard`](crate::io::built::BuiltGraph::shard)).
    ///
    /// Returns `None`, calling nothing, unless the shard is unweighted and
    /// not renamed yet, and `slots` has one entry per owned vertex.
    pub fn share_rows(
        &mut self,
        names: Arc<[u32]>,
        slots: &[u32],
        order: impl FnMut(usize, &mut [u32]),
    ) -> Option<SharedRows> {
        self.share_rows_ahead(names, slots, |_| {}, order)
    }

    /// [`share_rows`](Self::share_rows), telling `ahead` the stored
    /// targets (as they were before any `order`) about [`AHEAD`] entries
    /// before `order` gets their rows, each entry once, in the order the
    /// rows are taken: a kernel that renames by a table prefetches the
    /// places it will read (a hint: what `ahead` does cannot change the
    /// rows).
    pub fn share_rows_ahead(
        &mut self,
        names: Arc<[u32]>,
        slots: &[u32],
        mut ahead: impl FnMut(&[u32]),
        mut order: impl FnMut(usize, &mut [u32]),
    ) -> Option<SharedRows> {
        if self.weighted
            || self.renamed.is_some()
            || slots.len() as u64 != self.num_local_vertices()
            || matches!(self.targets, Array::Shared(_))
        {
            return None;
        }
        let same_order = if self.slots.is_empty() {
            slots.iter().enumerate().all(|(l, &s)| s as usize == l)
        } else {
            *self.slots == *slots
        };
        match &mut self.targets {
            Array::Owned(targets) if same_order => {
                let mut hinted = 0;
                for (v, r) in self.offsets.windows(2).enumerate() {
                    let (a, b) = (r[0] as usize, r[1] as usize);
                    let to = (b + AHEAD).min(targets.len());
                    if to > hinted {
                        ahead(&targets[hinted.max(b)..to]);
                        hinted = to;
                    }
                    order(v, &mut targets[a..b]);
                }
            }
            _ => self.lay_out_rows(slots, &mut ahead, &mut order),
        }
        self.offsets.own("row offsets");
        let (Array::Owned(targets), Array::Owned(offsets)) = (&mut self.targets, &mut self.offsets)
        else {
            unreachable!("in memory: ordered in place or laid out above");
        };
        let shared = (
            Lent::from(std::mem::take(targets)),
            Lent::from(std::mem::take(offsets)),
        );
        self.targets = Array::Shared(shared.0.clone());
        self.offsets = Array::Shared(shared.1.clone());
        self.renamed = Some(names);
        Some(shared)
    }

    /// Copies the rows into a new array stored by `slots` (see
    /// [`share_rows`](Self::share_rows)), calling `order` on each as it
    /// lands, reading the old rows in their stored order and giving mapped
    /// pages back behind the copy.
    fn lay_out_rows(
        &mut self,
        slots: &[u32],
        ahead: &mut dyn FnMut(&[u32]),
        order: &mut dyn FnMut(usize, &mut [u32]),
    ) {
        let n = slots.len();
        let mut offsets = crate::alloc::huge_vec_or_exit(n + 1, 0u64, "row offsets");
        for (l, &s) in slots.iter().enumerate() {
            offsets[s as usize + 1] = self.degree(l as u64);
        }
        for v in 0..n {
            offsets[v + 1] += offsets[v];
        }
        let mut targets = crate::alloc::vec_or_exit(self.targets.len(), 0u32, "adjacency rows");
        super::huge_pages::advise(&mut targets);
        // The position of the row stored at each index.
        let position: std::borrow::Cow<'_, [u32]> = if self.slots.is_empty() {
            slots.into()
        } else {
            let mut at = crate::alloc::vec_or_exit(n, 0u32, "row positions");
            for (l, &s) in self.slots.iter().enumerate() {
                at[s as usize] = slots[l];
            }
            at.into()
        };
        let step = RELEASE_STEP / std::mem::size_of::<u32>();
        let (mut released, mut hinted) = (0, 0);
        for (r, &v) in self.offsets.windows(2).zip(position.iter()) {
            let (a, b, v) = (r[0] as usize, r[1] as usize, v as usize);
            let to = (b + AHEAD).min(self.targets.len());
            if to > hinted {
                ahead(&self.targets[hinted.max(b)..to]);
                hinted = to;
            }
            let row = &mut targets[offsets[v] as usize..offsets[v + 1] as usize];
            row.copy_from_slice(&self.targets[a..b]);
            order(v, row);
            if b - released >= step {
                self.targets.release(released..b);
                released = b;
            }
        }
        self.targets.release(released..self.targets.len());
        self.targets = Array::Owned(targets);
        self.offsets = Array::Owned(offsets);
        self.slots = Array::Owned(slots.to_vec());
    }

    /// Lets a kernel take an unweighted shard's rows into its own storage
    /// (e.g. compressed), so that the process never holds them twice: the
    /// shard gives its targets up, row by row as `taker` takes them, and
    /// keeps its offsets (degrees stay) and `names`
    /// ([`renamed`](Self::renamed)); validation and the TEPS count then
    /// read the rows back through the kernel ([`row_ids`](Self::row_ids)).
    ///
    /// `slots` are the kernel's positions, as for
    /// [`share_rows`](Self::share_rows). [`TakeRows::take`] gets every row
    /// once (its position, the stored targets as they are), may rename and
    /// reorder its entries under the rules of
    /// [`rewrite_rows`](Self::rewrite_rows) and must keep what it needs of
    /// them (the array is gone afterwards); rows not stored by position
    /// (a mapped built file's) first go once through
    /// [`TakeRows::measure`], in the same order, so that the kernel can
    /// lay its storage out by position. `ahead` is told the stored targets
    /// about [`AHEAD`] entries before the taker gets them, as in
    /// [`share_rows_ahead`](Self::share_rows_ahead).
    ///
    /// Rows in memory stored by position (an unweighted build's) are taken
    /// in place, in chunks from the last row back to the first, and each
    /// chunk's pages are given back (the array truncated and shrunk, which
    /// for an allocation this large unmaps its tail) before the next; rows
    /// viewed in a mapped file are copied out one by one and their pages
    /// given back behind. So the kernel's storage and the plain targets
    /// together never hold much more than the plain targets did.
    /// Afterwards the rows are stored by position
    /// ([`row_slots`](Self::row_slots) is `slots`).
    ///
    /// Returns `None`, calling nothing, unless the shard is unweighted and
    /// not renamed, shared or taken yet, and `slots` has one entry per
    /// owned vertex.
    pub fn take_rows<T: TakeRows>(
        &mut self,
        names: Arc<[u32]>,
        slots: &[u32],
        mut ahead: impl FnMut(&[u32]),
        mut taker: T,
    ) -> Option<T::Kept> {
        if self.weighted
            || self.renamed.is_some()
            || self.taken.is_some()
            || slots.len() as u64 != self.num_local_vertices()
            || matches!(self.targets, Array::Shared(_))
        {
            return None;
        }
        let n = slots.len();
        // The position of the row stored at each index (none when the
        // rows are stored by position already: an unweighted build's).
        let position: std::borrow::Cow<'_, [u32]> = if self.slots.is_empty() {
            slots.into()
        } else if *self.slots == *slots {
            Vec::new().into()
        } else {
            let mut at = crate::alloc::vec_or_exit(n, 0u32, "row positions");
            for (l, &s) in self.slots.iter().enumerate() {
                at[s as usize] = slots[l];
            }
            at.into()
        };
        let position_of = |s: usize| position.get(s).map_or(s, |&v| v as usize);
        let by_position = (0..n).all(|s| position_of(s) == s);
        let step = RELEASE_STEP / std::mem::size_of::<u32>();
        let offsets = &self.offsets;
        match &mut self.targets {
            Array::Owned(targets) if by_position => {
                // Chunks of about `step` entries, the last first.
                let mut b = n;
                while b > 0 {
                    let end = offsets[b];
                    let mut a = b - 1;
                    while a > 0 && end - offsets[a] < step as u64 {
                        a -= 1;
                    }
                    let mut hinted = offsets[a] as usize;
                    for s in a..b {
                        let (x, y) = (offsets[s] as usize, offsets[s + 1] as usize);
                        let to = (y + AHEAD).min(end as usize);
                        if to > hinted {
                            ahead(&targets[hinted.max(x)..to]);
                            hinted = to;
                        }
                        taker.take(s, &mut targets[x..y]);
                    }
                    targets.truncate(offsets[a] as usize);
                    targets.shrink_to_fit();
                    b = a;
                }
            }
            stored => {
                // Copied out row by row: measured first unless stored by
                // position, then taken; mapped pages given back behind.
                let mut row = Vec::new();
                for measuring in [true, false] {
                    if measuring && by_position {
                        continue;
                    }
                    let (mut released, mut hinted) = (0, 0);
                    for (s, r) in offsets.windows(2).enumerate() {
                        let (x, y) = (r[0] as usize, r[1] as usize);
                        let to = (y + AHEAD).min(stored.len());
                        if to > hinted {
                            ahead(&stored[hinted.max(y)..to]);
                            hinted = to;
                        }
                        row.clear();
                        row.extend_from_slice(&stored[x..y]);
                        if measuring {
                            taker.measure(position_of(s), &mut row);
                        } else {
                            taker.take(position_of(s), &mut row);
                        }
                        if y - released >= step {
                            stored.release(released..y);
                            released = y;
                        }
                    }
                    stored.release(released..stored.len());
                }
            }
        }
        // Offsets by position, the rows' new order.
        if !by_position {
            let mut new = crate::alloc::huge_vec_or_exit(n + 1, 0u64, "row offsets");
            for (s, r) in offsets.windows(2).enumerate() {
                new[position_of(s) + 1] = r[1] - r[0];
            }
            for v in 0..n {
                new[v + 1] += new[v];
            }
            self.offsets = Array::Owned(new);
        } else {
            self.offsets.own("row offsets");
        }
        drop(position);
        self.slots = Array::Owned(slots.to_vec());
        self.targets = Array::Owned(Vec::new());
        let (reader, kept) = taker.finish();
        self.taken = Some(Taken(reader));
        self.renamed = Some(names);
        Some(kept)
    }

    /// Lets a kernel take a weighted shard's targets into its own storage
    /// (e.g. compressed) while the shard keeps the weights, so that the
    /// process never holds the targets twice: `take(l, start, targets,
    /// weights)` gets local vertex `l`'s row once (`start`: its first
    /// entry; a copy of its stored targets, and its weights in the
    /// shard's memory), may rename and reorder both together under the
    /// rules of [`rewrite_rows`](Self::rewrite_rows), and must keep the
    /// targets (the array is gone afterwards); `finish` then gives the
    /// reader the shard keeps: validation reads the rows back through it
    /// ([`row_ids`](Self::row_ids), each row's ids in the order of its
    /// weights) and the shard keeps `names` ([`renamed`](Self::renamed)).
    ///
    /// Mapped weights are first taken into memory, giving the mapped pages
    /// back behind ([`rewrite_rows`](Self::rewrite_rows)); mapped targets are
    /// read row by row from the first, their pages given back behind;
    /// targets in memory are taken in chunks from the last row back, each
    /// chunk's pages given back (the array truncated and shrunk) before the
    /// next. Rows stay stored by local index.
    ///
    /// Returns `None`, calling nothing, unless the shard is weighted,
    /// stored by local index, not taken or shared, and not renamed with
    /// another table.
    pub fn take_weighted_rows<K>(
        &mut self,
        names: Arc<[u32]>,
        mut take: impl FnMut(usize, usize, &mut [u32], &mut [f32]),
        finish: impl FnOnce() -> (Arc<dyn TakenRows>, K),
    ) -> Option<K> {
        if !self.weighted
            || self.taken.is_some()
            || !self.slots.is_empty()
            || matches!(self.targets, Array::Shared(_))
            || self
                .renamed
                .as_ref()
                .is_some_and(|n| !Arc::ptr_eq(n, &names))
        {
            return None;
        }
        self.offsets.own("row offsets");
        self.weights.own("weighted adjacency");
        let (Array::Owned(offsets), Array::Owned(weights)) = (&self.offsets, &mut self.weights)
        else {
            return None;
        };
        let n = offsets.len().saturating_sub(1);
        let step = RELEASE_STEP / std::mem::size_of::<u32>();
        let range = |l: usize| offsets[l] as usize..offsets[l + 1] as usize;
        match &mut self.targets {
            Array::Owned(targets) => {
                // Chunks of about `step` entries, the last first.
                let mut b = n;
                while b > 0 {
                    let end = offsets[b];
                    let mut a = b - 1;
                    while a > 0 && end - offsets[a] < step as u64 {
                        a -= 1;
                    }
                    for l in a..b {
                        let r = range(l);
                        take(l, r.start, &mut targets[r.clone()], &mut weights[r]);
                    }
                    targets.truncate(offsets[a] as usize);
                    targets.shrink_to_fit();
                    b = a;
                }
            }
            stored => {
                let (mut row, mut released) = (Vec::new(), 0);
                for l in 0..n {
                    let r = range(l);
                    row.clear();
                    row.extend_from_slice(&stored[r.clone()]);
                    take(l, r.start, &mut row, &mut weights[r.clone()]);
                    if r.end - released >= step {
                        stored.release(released..r.end);
                        released = r.end;
                    }
                }
                stored.release(released..stored.len());
            }
        }
        self.targets = Array::Owned(Vec::new());
        let (reader, kept) = finish();
        self.taken = Some(Taken(reader));
        self.renamed = Some(names);
        self.ready = None;
        Some(kept)
    }

    /// `(local index, global id)` of every owned vertex.
    pub fn vertices(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        (0..self.num_local_vertices()).map(move |l| (l, self.global_id(l)))
    }

    /// Offsets array (`num_local_vertices + 1` entries, first is 0), by
    /// stored row: local index, unless the rows are stored by
    /// [slots](Self::row_slots).
    #[inline]
    pub fn offsets(&self) -> &[u64] {
        &self.offsets
    }

    /// Neighbour ids of all entries (global ids unless
    /// [renamed](Self::rewrite_rows)); empty when a kernel
    /// [took](Self::take_rows) the rows.
    #[inline]
    pub fn targets(&self) -> &[u32] {
        &self.targets
    }

    /// Weights of all entries (empty on an [unweighted](Self::is_weighted)
    /// shard).
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
                Array::Shared(v) => v.heap_bytes() as usize,
                Array::Mapped(_) => 0,
            }
        }
        (cap(&self.offsets)
            + cap(&self.targets)
            + cap(&self.weights)
            + cap(&self.slots)
            + cap(&self.in_offsets)
            + cap(&self.in_sources)) as u64
    }
}
