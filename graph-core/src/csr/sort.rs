//! The parallel counting sort of the adjacency entries (see the [module
//! docs](super)): count per chunk, prefix sums into cursors, scatter at the
//! cursors, with prefetching ahead of the scattered accesses.

use std::sync::atomic::{AtomicU32, Ordering};

use super::error::CsrError;
use super::{atomic_view, huge_pages, prefetch};
use crate::edge_list::PackedEdge;

/// Which rows an edge `(u, v)` is entered in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Sides {
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
    pub(super) fn flips(self) -> &'static [bool] {
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

/// Per-shard offsets, targets and weights.
pub(super) type Arrays = (Vec<Vec<u64>>, Vec<Vec<u32>>, Vec<Vec<f32>>);

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
pub(super) fn sort_entries<F>(
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
pub(super) fn zeroed<T: Clone + Default>(n: usize, what: &'static str) -> Result<Vec<T>, CsrError> {
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

/// The same counter for both widths: `u32` cursors for the chunks of a
/// graph whose entries fit 32 bits, `u64` for the last chunk (the offsets).
macro_rules! cursor {
    ($($t:ty),*) => {$(
        impl Cursor for $t {
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
    )*};
}

cursor!(u32, u64);

/// How many edges ahead the scatter prefetches entry lines.
const NEAR: usize = 16;

/// How many edges ahead the passes prefetch cursor lines.
const FAR: usize = 32;

/// Prefetches the counter (cursor) lines of both ends of edge `ahead`, if
/// there is one.
#[inline(always)]
fn prefetch_cursors<C, F>(edges: &[PackedEdge], ahead: usize, cursors: &[Vec<C>], locate: &F)
where
    F: Fn(u32) -> Option<(usize, usize)>,
{
    if let Some(f) = edges.get(ahead) {
        for x in [f.u, f.v] {
            if let Some((s, l)) = locate(x) {
                prefetch::line(&cursors[s][l]);
            }
        }
    }
}

/// Counts the owned endpoints of `edges` (self-loops skipped).
fn count<C, F>(edges: &[PackedEdge], counts: &mut [Vec<C>], sides: Sides, locate: &F)
where
    C: Cursor,
    F: Fn(u32) -> Option<(usize, usize)>,
{
    for (i, e) in edges.iter().enumerate() {
        prefetch_cursors(edges, i + FAR, counts, locate);
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
        prefetch_cursors(edges, i + FAR, cursors, locate);
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
