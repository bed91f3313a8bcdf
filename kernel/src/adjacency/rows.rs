//! [`Rows`]: the unweighted rows of an [`Adjacency`](super::Adjacency), flat
//! ids ascending with parallel edges merged; [`simple_lists`], the same
//! merging for plain neighbour lists.

use std::ops::Range;

use graph_core::alloc::reserve_or_exit;

/// The unweighted rows of an [`Adjacency`](super::Adjacency): position `v`'s targets are
/// `targets[start[v]..start[v + 1]]`, flat ids ascending, parallel edges
/// merged.
#[derive(Debug)]
pub struct Rows {
    start: Vec<u64>,
    targets: Vec<u32>,
    merged: u64,
}

impl Rows {
    /// The rows of the own vertices in position order (`order[v]`: the
    /// local index at position `v`) from `source(local)`, renamed to flat ids
    /// by `to_flat`, sorted and merged.
    pub(super) fn build<'s>(
        order: &[u32],
        source: impl Fn(u64) -> &'s [u32],
        to_flat: impl Fn(u32) -> u32,
    ) -> Rows {
        let n = order.len();
        let (mut start, mut targets, mut merged) = (Vec::new(), Vec::new(), 0);
        reserve_or_exit(&mut start, n + 1, "row offsets");
        let total: usize = order.iter().map(|&l| source(u64::from(l)).len()).sum();
        // At most one entry per shard entry: reserved once, not grown by doubling.
        reserve_or_exit(&mut targets, total, "adjacency rows");
        start.push(0);
        let mut row: Vec<u32> = Vec::new();
        for &l in order {
            row.clear();
            row.extend(source(u64::from(l)).iter().map(|&v| to_flat(v)));
            row.sort_unstable();
            let before = row.len();
            row.dedup();
            merged += (before - row.len()) as u64;
            targets.extend_from_slice(&row);
            start.push(targets.len() as u64);
        }
        Rows {
            start,
            targets,
            merged,
        }
    }

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
