//! [`Rows`]: the unweighted rows of an [`Adjacency`](super::Adjacency), flat
//! ids ascending with parallel edges merged; [`simple_lists`], the same
//! merging for plain neighbour lists.

use std::ops::Range;

/// The unweighted rows of an [`Adjacency`](super::Adjacency): position `v`'s targets are
/// `targets[start[v]..start[v + 1]]`, flat ids ascending, parallel edges
/// merged.
#[derive(Debug)]
pub struct Rows {
    pub(super) start: Vec<u64>,
    pub(super) targets: Vec<u32>,
    pub(super) merged: u64,
}

impl Rows {
    /// Entries of position `v` as a range of [`targets`](Self::targets).
    #[inline(always)]
    pub fn range(&self, v: u32) -> Range<usize> {
        self.start[v as usize] as usize..self.start[v as usize + 1] as usize
    }

    /// Where each row starts in [`targets`](Self::targets) (`num_own() + 1`
    /// offsets).
    #[inline(always)]
    pub fn starts(&self) -> &[u64] {
        &self.start
    }

    /// Every row's targets (flat ids), row after row.
    #[inline(always)]
    pub fn targets(&self) -> &[u32] {
        &self.targets
    }

    /// Targets of position `v` (flat ids, ascending, no repeats).
    #[inline]
    pub fn row(&self, v: u32) -> &[u32] {
        &self.targets[self.range(v)]
    }

    /// Degree of position `v` after merging parallel edges.
    #[inline(always)]
    pub fn degree(&self, v: u32) -> u64 {
        self.start[v as usize + 1] - self.start[v as usize]
    }

    /// Entries of all own rows (after merging).
    pub fn num_entries(&self) -> u64 {
        self.targets.len() as u64
    }

    /// Shard entries merged away as parallel edges (statistics).
    pub fn entries_merged(&self) -> u64 {
        self.merged
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
    let mut off = vec![0usize];
    let mut nbr = Vec::with_capacity(entries);
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
