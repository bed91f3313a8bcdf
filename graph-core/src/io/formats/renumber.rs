//! Settling vertex ids after a reader: keep them (minus the format's base)
//! or renumber sparse and huge ones densely, then pack the edges.

use rayon::prelude::*;

use super::error::{invalid, FormatError};
use super::raw::Edges;
use crate::edge_list::{EdgeList, PackedEdge, MAX_VERTICES};
use crate::meta::IdMap;

/// Id ranges up to this many ids are never renumbered.
const SMALL_RANGE: u64 = 1024;

/// The packed edge list and the id map for `chunks` (ids already minus
/// `base`). `declared`: the file's own vertex count, which is kept.
pub(crate) fn finish(
    chunks: Vec<Edges>,
    declared: Option<u64>,
    base: u64,
) -> Result<(EdgeList<'static>, IdMap), FormatError> {
    let max = chunks
        .par_iter()
        .filter_map(|c| {
            let mut m = None;
            c.for_each(|e| m = m.max(Some(e.u.max(e.v))));
            m
        })
        .max();
    if let Some(n) = declared {
        if n > MAX_VERTICES {
            return Err(invalid(format!(
                "the file declares {n} vertices; at most 2^32 are supported"
            )));
        }
        if let Some(m) = max.filter(|&m| m >= n) {
            return Err(invalid(format!(
                "vertex id {} is larger than the {n} vertices the file declares",
                m + base
            )));
        }
        return Ok((pack(chunks, n, |x| x)?, IdMap::Offset(base)));
    }
    let Some(max) = max else {
        return Ok((pack(chunks, 0, |x| x)?, IdMap::Offset(base)));
    };
    // `max + 1` would overflow for the largest id (u64::MAX, base 0): compare
    // `max` itself; such ids are renumbered below like any beyond 32 bits.
    if max < MAX_VERTICES {
        let range = max + 1;
        let bits = Bitset::of(&chunks, range);
        let distinct = bits.count();
        if range <= SMALL_RANGE || distinct * 2 >= range {
            return Ok((pack(chunks, range, |x| x)?, IdMap::Offset(base)));
        }
        let ranks = bits.ranks();
        let table: Vec<u64> = bits.ones().map(|x| x + base).collect();
        let list = pack(chunks, distinct, |x| bits.rank(&ranks, x))?;
        return Ok((list, IdMap::Table(table)));
    }
    // Ids beyond 32 bits: sort the distinct ones.
    let mut ids: Vec<u64> = chunks
        .par_iter()
        .flat_map_iter(|c| {
            let mut v = Vec::with_capacity(2 * c.len());
            c.for_each(|e| v.extend([e.u, e.v]));
            v
        })
        .collect();
    ids.par_sort_unstable();
    ids.dedup();
    let distinct = ids.len() as u64;
    if distinct > MAX_VERTICES {
        return Err(invalid(format!(
            "the file uses {distinct} distinct vertex ids; at most 2^32 are supported"
        )));
    }
    let list = pack(chunks, distinct, |x| {
        ids.binary_search(&x).map_or(u64::MAX, |i| i as u64)
    })?;
    let table = ids.into_iter().map(|x| x + base).collect();
    Ok((list, IdMap::Table(table)))
}

/// Packs the chunks into one list of `n` vertices, mapping ids with `map`
/// (in parallel, each chunk freed once packed).
fn pack(
    chunks: Vec<Edges>,
    n: u64,
    map: impl Fn(u64) -> u64 + Sync,
) -> Result<EdgeList<'static>, FormatError> {
    let total: usize = chunks.iter().map(Edges::len).sum();
    let mut out = vec![PackedEdge::default(); total];
    let mut slices = Vec::with_capacity(chunks.len());
    let mut rest = out.as_mut_slice();
    for c in &chunks {
        let (head, tail) = rest.split_at_mut(c.len());
        slices.push(head);
        rest = tail;
    }
    chunks
        .into_par_iter()
        .zip(slices)
        .for_each(|(chunk, slice)| {
            let mut out = slice.iter_mut();
            chunk.for_each(|e| {
                if let Some(o) = out.next() {
                    *o = PackedEdge::from_wide(map(e.u), map(e.v), e.w);
                }
            });
        });
    EdgeList::from_edges(n, out).map_err(|e| invalid(e.to_string()))
}

/// One bit per id in `0..len`.
struct Bitset {
    words: Vec<u64>,
}

impl Bitset {
    /// One shared bitset filled in parallel (`fetch_or`): a single
    /// allocation of `len / 8` bytes, however many threads.
    fn of(chunks: &[Edges], len: u64) -> Bitset {
        use std::sync::atomic::{AtomicU64, Ordering};
        let nwords = len.div_ceil(64) as usize;
        let words: Vec<AtomicU64> = (0..nwords).map(|_| AtomicU64::new(0)).collect();
        let set = |x: u64| {
            let bit = 1u64 << (x % 64);
            let w = &words[(x / 64) as usize];
            if w.load(Ordering::Relaxed) & bit == 0 {
                w.fetch_or(bit, Ordering::Relaxed);
            }
        };
        chunks.par_iter().for_each(|c| {
            c.for_each(|e| {
                set(e.u);
                set(e.v);
            })
        });
        Bitset {
            words: words.into_iter().map(AtomicU64::into_inner).collect(),
        }
    }

    fn count(&self) -> u64 {
        self.words.iter().map(|w| u64::from(w.count_ones())).sum()
    }

    /// Set bits before each word.
    fn ranks(&self) -> Vec<u64> {
        let mut acc = 0;
        self.words
            .iter()
            .map(|w| {
                let r = acc;
                acc += u64::from(w.count_ones());
                r
            })
            .collect()
    }

    /// Dense id of a set bit `x`: set bits below it.
    fn rank(&self, ranks: &[u64], x: u64) -> u64 {
        let i = (x / 64) as usize;
        let below = self.words[i] & ((1u64 << (x % 64)) - 1);
        ranks[i] + u64::from(below.count_ones())
    }

    fn ones(&self) -> impl Iterator<Item = u64> + '_ {
        self.words.iter().enumerate().flat_map(|(i, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                (w != 0).then(|| {
                    let b = w.trailing_zeros();
                    w &= w - 1;
                    i as u64 * 64 + u64::from(b)
                })
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::raw::RawEdge;
    use super::*;

    fn raw(pairs: &[(u64, u64)]) -> Vec<Edges> {
        let mut e = Edges::with_capacity(0);
        pairs
            .iter()
            .for_each(|&(u, v)| e.push(RawEdge { u, v, w: 1.0 }));
        vec![e]
    }

    #[test]
    fn dense_ids_are_kept() {
        let (l, ids) = finish(raw(&[(0, 3), (3, 3)]), None, 0).unwrap();
        assert_eq!(l.num_vertices(), 4);
        assert_eq!(ids, IdMap::Offset(0));
        assert_eq!(l.edges()[1], PackedEdge::new(3, 3, 1.0));
    }

    #[test]
    fn sparse_ids_are_renumbered_in_order() {
        let (l, ids) = finish(raw(&[(5000, 7), (7, 1_000_000)]), None, 0).unwrap();
        assert_eq!(l.num_vertices(), 3);
        assert_eq!(ids, IdMap::Table(vec![7, 5000, 1_000_000]));
        assert_eq!(
            l.edges(),
            [PackedEdge::new(1, 0, 1.0), PackedEdge::new(0, 2, 1.0)]
        );
    }

    #[test]
    fn huge_ids_are_renumbered_with_base() {
        let (l, ids) = finish(raw(&[(1 << 40, 2), (2, 1 << 41)]), None, 1).unwrap();
        assert_eq!(ids, IdMap::Table(vec![3, (1 << 40) + 1, (1 << 41) + 1]));
        assert_eq!(
            l.edges(),
            [PackedEdge::new(1, 0, 1.0), PackedEdge::new(0, 2, 1.0)]
        );
    }

    #[test]
    fn the_largest_id_is_renumbered_not_a_panic() {
        // `max + 1` used to wrap to 0 and index an empty bitset.
        let (l, ids) = finish(raw(&[(0, u64::MAX), (1, 2)]), None, 0).unwrap();
        assert_eq!(l.num_vertices(), 4);
        assert_eq!(ids, IdMap::Table(vec![0, 1, 2, u64::MAX]));
        assert_eq!(
            l.edges(),
            [PackedEdge::new(0, 3, 1.0), PackedEdge::new(1, 2, 1.0)]
        );
    }

    #[test]
    fn declared_counts_are_kept_and_checked() {
        let (l, _) = finish(raw(&[(0, 1)]), Some(5), 1).unwrap();
        assert_eq!(l.num_vertices(), 5);
        let e = finish(raw(&[(0, 5)]), Some(5), 1).unwrap_err();
        assert!(
            e.to_string().contains("vertex id 6 is larger than the 5"),
            "{e}"
        );
    }
}
