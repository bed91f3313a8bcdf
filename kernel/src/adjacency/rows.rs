//! [`Rows`]: the unweighted rows of an [`Adjacency`](super::Adjacency), flat
//! ids ascending with parallel edges merged, plain or compressed
//! ([`RowsFormat`]); [`simple_lists`], the same merging for plain neighbour
//! lists.

use std::ops::Range;
use std::sync::Arc;

use graph_core::alloc::{huge_vec_or_exit, reserve_or_exit};
use graph_core::csr::{advise_huge_pages, Lent};

use super::packed::{Packed, PackedView};

/// How a graph's unweighted [`Rows`] are stored, chosen when the graph is
/// prepared ([`prepare_with`](crate::prepare_with); the first preparation
/// of a graph decides).
///
/// ```
/// assert_eq!(graph_kernel::RowsFormat::default(), graph_kernel::RowsFormat::Plain);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum RowsFormat {
    /// Flat ids, 4 B an entry, read as slices ([`Rows::row`]); on a shard
    /// without weights the shard's own array (no second copy).
    #[default]
    Plain,
    /// Byte-coded differences of the sorted flat ids (1-5 B an entry, see
    /// `packed.rs`), read in order through [`Rows::for_each`] and
    /// [`Rows::find`] ([`Local::for_each_target`](crate::Local::for_each_target),
    /// [`Local::find_target`](crate::Local::find_target)); [`Rows::row`]
    /// panics. 12 B per vertex (byte offset, length) beside the bytes. On
    /// a shard without weights they replace the shard's own array
    /// ([`Shard::take_rows`](graph_core::Shard::take_rows)).
    Compressed,
}

/// The unweighted rows of an [`Adjacency`](super::Adjacency): position `v`'s targets are
/// `targets[start[v]..start[v] + len[v]]`, flat ids ascending, parallel edges
/// merged; where no stored row holds merged entries after its targets (a
/// copy, or the shard's array of a graph without parallel edges) `len` is
/// empty and the row ends where the next begins, at `start[v + 1]`: one
/// array fewer for a search to read per row (4 B per vertex less).
///
/// The targets are either the rows' own (copied from the shard) or the
/// shard's own array, renamed and ordered in place
/// ([`Shard::share_rows`](graph_core::Shard::share_rows)), in which each
/// stored row holds the merged parallel entries after its targets.
///
/// Compressed rows ([`RowsFormat::Compressed`]) hold the same targets
/// byte-coded instead (the plain arrays above are then empty): a kernel
/// written against [`for_each`](Self::for_each) and [`find`](Self::find)
/// (or [`Local::for_each_target`](crate::Local::for_each_target) and
/// [`Local::find_target`](crate::Local::find_target)) reads either format,
/// one branch per row on which it is and none per entry (the closure is
/// compiled into both arms).
#[derive(Debug)]
pub struct Rows {
    /// Shared with the shard when the targets are; one per position and
    /// one more.
    start: Lent<u64>,
    /// Empty when every row ends at the next one's start.
    len: Vec<u32>,
    targets: Lent<u32>,
    /// The compressed rows, when the rows are compressed (shared with
    /// the shard when it gave its rows up: [`Rows::taken`]).
    packed: Option<Arc<Packed>>,
    entries: u64,
    merged: u64,
    shared: bool,
}

impl Rows {
    /// The rows of the own vertices in position order (`order[v]`: the
    /// local index at position `v`) from `source(local)`, renamed to flat ids
    /// by `to_flat` (to flat ids below `num_flat`), sorted and merged.
    pub(super) fn build<'s>(
        order: &[u32],
        source: impl Fn(u64) -> &'s [u32],
        to_flat: impl Fn(u32) -> u32,
        num_flat: u32,
    ) -> Rows {
        let (bits, mut scratch) = (super::radix::bits_below(num_flat), Vec::new());
        let n = order.len();
        let (mut start, mut targets, mut merged) = (Vec::new(), Vec::new(), 0);
        reserve_or_exit(&mut start, n + 1, "row offsets");
        let total: usize = order.iter().map(|&l| source(u64::from(l)).len()).sum();
        // At most one entry per shard entry: reserved once, not grown by doubling.
        reserve_or_exit(&mut targets, total, "adjacency rows");
        // A search reads both at random: huge pages spare it the page walks.
        advise_huge_pages(start.spare_capacity_mut());
        advise_huge_pages(targets.spare_capacity_mut());
        start.push(0);
        let mut row: Vec<u32> = Vec::new();
        for &l in order {
            row.clear();
            row.extend(source(u64::from(l)).iter().map(|&v| to_flat(v)));
            super::radix::sort_by_bits(&mut row, &mut scratch, bits, u64::from);
            let before = row.len();
            row.dedup();
            merged += (before - row.len()) as u64;
            targets.extend_from_slice(&row);
            start.push(targets.len() as u64);
        }
        Rows {
            start: start.into(),
            len: Vec::new(),
            entries: targets.len() as u64,
            targets: targets.into(),
            packed: None,
            merged,
            shared: false,
        }
    }

    /// Rows over `targets` and `start` (a shard's, shared: position `v`'s
    /// row at `start[v]..start[v + 1]`) that `ordered` ordered row by row.
    pub(super) fn shared((targets, start): graph_core::csr::SharedRows, ordered: InPlace) -> Rows {
        let entries = ordered.len.iter().map(|&l| u64::from(l)).sum();
        Rows {
            start,
            // Without merged entries every stored row is its targets.
            len: if ordered.merged == 0 {
                Vec::new()
            } else {
                ordered.len
            },
            targets,
            packed: None,
            entries,
            merged: ordered.merged,
            shared: true,
        }
    }

    /// The rows of a shard taken from a built file's ready rows, lent as
    /// they are ([`Shard::lend_ready_rows`](graph_core::Shard::lend_ready_rows)):
    /// no renaming, ordering or copying.
    pub(super) fn ready(lent: graph_core::csr::ReadyLent) -> Rows {
        let (targets, start) = lent.rows;
        let entries = if lent.merged == 0 {
            targets.len() as u64
        } else {
            lent.distinct.iter().map(|&d| u64::from(d)).sum()
        };
        Rows {
            start,
            len: if lent.merged == 0 {
                Vec::new()
            } else {
                lent.distinct
            },
            targets,
            packed: None,
            entries,
            merged: lent.merged,
            shared: true,
        }
    }

    /// The plain rows' arrays as stored (offsets by position, each row's
    /// distinct count or empty, the targets with any parallel entries
    /// after each row's distinct ones) and the entries merged: what a
    /// built file's ready rows keep. `None` when compressed or not the
    /// shard's own (a copy holds no parallel entries).
    pub fn stored_parts(&self) -> Option<StoredParts<'_>> {
        (self.packed.is_none() && self.shared).then(|| {
            (
                &self.start[..],
                &self.len[..],
                &self.targets[..],
                self.merged,
            )
        })
    }

    /// The same rows compressed ([`RowsFormat::Compressed`]); `lo` is the
    /// flat id of position 0. Drops the plain arrays (the shard keeps its
    /// own handle on them when they were its).
    pub(super) fn compressed(self, lo: u32) -> Rows {
        if self.packed.is_some() {
            return self;
        }
        let n = self.start.len().saturating_sub(1) as u32;
        let packed = Packed::build(n, lo, |v| self.row(v));
        Rows {
            start: Vec::new().into(),
            len: Vec::new(),
            targets: Vec::new().into(),
            packed: Some(Arc::new(packed)),
            ..self
        }
    }

    /// Compressed rows coded from a shard's own targets as it gave them up
    /// ([`Shard::take_rows`](graph_core::Shard::take_rows)), `ordered`
    /// having ordered each row (their counts); the shard reads its entries
    /// back through the same `packed`.
    pub(super) fn taken(packed: Arc<Packed>, ordered: &InPlace) -> Rows {
        Rows {
            start: Vec::new().into(),
            len: Vec::new(),
            targets: Vec::new().into(),
            packed: Some(packed),
            entries: ordered.distinct,
            merged: ordered.merged,
            shared: true,
        }
    }

    /// The rows' arrays as plain slices, for a sweep to hold (one
    /// indirection fewer per row than through the shared array); `None`
    /// when the rows are compressed.
    #[inline(always)]
    pub(crate) fn view(&self) -> Option<RowsView<'_>> {
        match self.packed {
            None => Some(RowsView {
                start: &self.start,
                len: &self.len,
                targets: &self.targets,
            }),
            Some(_) => None,
        }
    }

    /// The compressed rows as slices, when they are compressed.
    #[inline(always)]
    pub(crate) fn packed_view(&self) -> Option<PackedView<'_>> {
        self.packed.as_deref().map(Packed::view)
    }

    /// How the rows are stored.
    pub fn format(&self) -> RowsFormat {
        match self.packed {
            None => RowsFormat::Plain,
            Some(_) => RowsFormat::Compressed,
        }
    }

    /// Entries of position `v` as a range of the rows' array.
    ///
    /// # Panics
    ///
    /// On compressed rows (no array of targets).
    #[inline(always)]
    pub fn range(&self, v: u32) -> Range<usize> {
        if self.start.get(v as usize).is_none() && self.packed.is_some() {
            compressed_has_no_slices();
        }
        row_range(&self.start, &self.len, v)
    }

    /// Targets of position `v` (flat ids, ascending, no repeats).
    ///
    /// # Panics
    ///
    /// On compressed rows: read them with [`for_each`](Self::for_each) or
    /// [`find`](Self::find).
    #[inline]
    pub fn row(&self, v: u32) -> &[u32] {
        &self.targets[self.range(v)]
    }

    /// Calls `f` on each target of position `v` (flat ids, ascending, no
    /// repeats), in either format.
    #[inline(always)]
    pub fn for_each(&self, v: u32, mut f: impl FnMut(u32)) {
        match &self.packed {
            None => self.row(v).iter().for_each(|&t| f(t)),
            Some(p) => p.view().for_each(v, f),
        }
    }

    /// Position `v`'s targets as a slice in either format: a plain row
    /// itself, a compressed one decoded into `buf` (cleared first). For a
    /// kernel that hands whole rows to a function of slices.
    #[inline(always)]
    pub fn read<'x>(&'x self, v: u32, buf: &'x mut Vec<u32>) -> &'x [u32] {
        match &self.packed {
            None => self.row(v),
            Some(p) => p.view().decode(v, buf),
        }
    }

    /// Target `r` of position `v` (ascending from 0), in either format;
    /// `None` when the row is shorter. Decodes no further than it.
    #[inline(always)]
    pub fn nth(&self, v: u32, r: usize) -> Option<u32> {
        match &self.packed {
            None => self.row(v).get(r).copied(),
            Some(p) => {
                let mut i = 0;
                p.view().find(v, |_| {
                    i += 1;
                    i > r
                })
            }
        }
    }

    /// The first target of position `v` (ascending) for which `pred`
    /// holds, in either format; reads no further than it.
    #[inline(always)]
    pub fn find(&self, v: u32, mut pred: impl FnMut(u32) -> bool) -> Option<u32> {
        match &self.packed {
            None => self.row(v).iter().copied().find(|&t| pred(t)),
            Some(p) => p.view().find(v, pred),
        }
    }

    /// Degree of position `v` after merging parallel edges.
    #[inline(always)]
    pub fn degree(&self, v: u32) -> u64 {
        match &self.packed {
            None => self.range(v).len() as u64,
            Some(p) => p.view().degree(v),
        }
    }

    /// Bytes that hold the targets: 4 per stored entry of a plain array
    /// (merged parallel entries included when the array is the shard's),
    /// the coded bytes of compressed rows.
    pub fn target_bytes(&self) -> u64 {
        match &self.packed {
            None => 4 * self.targets.len() as u64,
            Some(p) => p.num_bytes(),
        }
    }

    /// Bytes the rows hold in all: [`target_bytes`](Self::target_bytes)
    /// and the per-vertex arrays (offsets, lengths; a plain array's offsets
    /// counted though the shard may share them).
    pub fn footprint(&self) -> u64 {
        match &self.packed {
            None => self.target_bytes() + 8 * self.start.len() as u64 + 4 * self.len.len() as u64,
            Some(p) => p.footprint(),
        }
    }

    /// Entries of all own rows (after merging).
    pub fn num_entries(&self) -> u64 {
        self.entries
    }

    /// Whether the rows are the shard's own array (renamed and ordered in
    /// place, [`Shard::share_rows`](graph_core::Shard::share_rows)), or
    /// compressed in its place
    /// ([`Shard::take_rows`](graph_core::Shard::take_rows)), rather than a
    /// copy.
    pub fn is_shared(&self) -> bool {
        self.shared
    }

    /// Shard entries merged away as parallel edges (statistics).
    pub fn entries_merged(&self) -> u64 {
        self.merged
    }
}

/// A shard's own rows as stored ([`Rows::stored_parts`]): offsets by
/// position, distinct counts (empty without parallel entries), targets,
/// entries merged.
pub type StoredParts<'a> = (&'a [u64], &'a [u32], &'a [u32], u64);

/// Orders the rows of a shard's own targets in place, one row at a time
/// ([`Shard::share_rows`](graph_core::Shard::share_rows)): each row's
/// targets renamed to flat ids and ascending, then the entries that repeat
/// one of them (parallel edges) in any order; keeps each position's count
/// of distinct targets for [`Rows::shared`].
pub(super) struct InPlace {
    /// Empty when the counts are not kept ([`InPlace::counting`]).
    len: Vec<u32>,
    distinct: u64,
    merged: u64,
    repeats: Vec<u32>,
    /// Significant bits of a flat id, and room for the radix sort.
    bits: u32,
    scratch: Vec<u32>,
}

impl InPlace {
    /// For `n` positions, whose targets are flat ids below `num_flat`.
    pub(super) fn new(n: usize, num_flat: u32) -> InPlace {
        InPlace {
            len: huge_vec_or_exit(n, 0u32, "row lengths"),
            ..InPlace::counting(num_flat)
        }
    }

    /// [`new`](Self::new) without the per-position counts: for rows
    /// that keep their own ([`Rows::taken`]).
    pub(super) fn counting(num_flat: u32) -> InPlace {
        InPlace {
            len: Vec::new(),
            distinct: 0,
            merged: 0,
            repeats: Vec::new(),
            bits: super::radix::bits_below(num_flat),
            scratch: Vec::new(),
        }
    }

    /// Renames `row` (position `v`'s) by `to_flat` and orders it; returns
    /// its count of distinct targets (the row's first entries).
    #[inline]
    pub(super) fn order(
        &mut self,
        v: usize,
        row: &mut [u32],
        to_flat: impl Fn(u32) -> u32,
    ) -> usize {
        row.iter_mut().for_each(|x| *x = to_flat(*x));
        super::radix::sort_by_bits(row, &mut self.scratch, self.bits, u64::from);
        self.repeats.clear();
        let mut unique = 0;
        for i in 0..row.len() {
            if unique > 0 && row[i] == row[unique - 1] {
                self.repeats.push(row[i]);
            } else {
                row[unique] = row[i];
                unique += 1;
            }
        }
        row[unique..].copy_from_slice(&self.repeats);
        self.merged += self.repeats.len() as u64;
        self.distinct += unique as u64;
        if let Some(n) = self.len.get_mut(v) {
            *n = unique as u32;
        }
        unique
    }
}

/// [`Rows`] borrowed as plain slices ([`Rows::view`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct RowsView<'a> {
    start: &'a [u64],
    len: &'a [u32],
    targets: &'a [u32],
}

impl<'a> RowsView<'a> {
    /// [`Rows::row`].
    #[inline(always)]
    pub(crate) fn row(&self, v: u32) -> &'a [u32] {
        &self.targets[row_range(self.start, self.len, v)]
    }

    /// Starts loading position `v`'s offset and length (a hint; a
    /// position out of range is ignored).
    #[inline(always)]
    pub(crate) fn prefetch_span(&self, v: u32) {
        if let Some(a) = self.start.get(v as usize) {
            graph_core::csr::prefetch_line(a);
        }
        if let Some(n) = self.len.get(v as usize) {
            graph_core::csr::prefetch_line(n);
        }
    }

    /// Starts loading the first targets of position `v`'s row (a hint:
    /// reads its offset, which [`prefetch_span`](Self::prefetch_span)
    /// should have asked for some vertices earlier).
    #[inline(always)]
    pub(crate) fn prefetch_row(&self, v: u32) {
        if let Some(t) = self
            .start
            .get(v as usize)
            .and_then(|&a| self.targets.get(a as usize))
        {
            graph_core::csr::prefetch_line(t);
        }
    }

    /// [`Rows::degree`].
    #[inline(always)]
    pub(crate) fn degree(&self, v: u32) -> u64 {
        row_range(self.start, self.len, v).len() as u64
    }
}

#[cold]
#[inline(never)]
fn compressed_has_no_slices() -> ! {
    panic!("graph-kernel: Rows::row / Rows::range on compressed rows (RowsFormat::Compressed): read them with Rows::for_each / Rows::find, or prepare the graph with plain rows")
}

/// Position `v`'s entries: from its start, `len[v]` of them, or up to the
/// next row's start where `len` is empty (see [`Rows`]).
#[inline(always)]
fn row_range(start: &[u64], len: &[u32], v: u32) -> Range<usize> {
    let a = start[v as usize] as usize;
    match len.get(v as usize) {
        Some(&n) => a..a + n as usize,
        None => a..start[v as usize + 1] as usize,
    }
}

/// Neighbour lists as a simple graph: each list sorted and without repeats,
/// as offsets (one per list, plus one) and entries. For kernels that count
/// a neighbour once however often the input repeats the edge (betweenness,
/// triangles), as GAPBS's builder does; `entries` is a capacity hint.
///
/// ```
/// let (off, nbr) = graph_kernel::adjacency::simple_lists([&[3, 1, 3][..], &[], &[2, 2]].into_iter(), 5);
/// assert_eq!((off, nbr), (vec![0, 2, 2, 3], vec![1, 3, 2]));
/// ```
pub fn simple_lists<'a>(
    lists: impl Iterator<Item = &'a [u32]>,
    entries: usize,
) -> (Vec<usize>, Vec<u32>) {
    let mut off = Vec::new();
    reserve_or_exit(
        &mut off,
        lists.size_hint().0 + 1,
        "simple adjacency offsets",
    );
    off.push(0usize);
    let mut nbr = Vec::new();
    reserve_or_exit(&mut nbr, entries, "simple adjacency rows");
    for list in lists {
        let start = nbr.len();
        nbr.extend_from_slice(list);
        nbr[start..].sort_unstable();
        let mut keep = start;
        for i in start..nbr.len() {
            if keep == start || nbr[i] != nbr[keep - 1] {
                nbr[keep] = nbr[i];
                keep += 1;
            }
        }
        nbr.truncate(keep);
        off.push(keep);
    }
    (off, nbr)
}
