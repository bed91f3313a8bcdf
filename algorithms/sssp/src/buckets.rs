//! The bucket queue of delta-stepping, with memory independent of Δ, and
//! the window of buckets an epoch spans ([`Window`]).
//!
//! Bucket `b` holds the vertices whose tentative distance `d` has
//! `⌊d/Δ⌋ = b`. A vector indexed by `b` needs `max distance / Δ` slots: with a
//! tiny Δ (or a graph file with huge weights) that is billions of slots for a
//! graph of a thousand vertices. Here the buckets near the current one live
//! in a ring of [`RING`] slots (bucket `b` in slot `b mod RING`, for
//! `base <= b < base + RING`), and buckets beyond the ring in a sorted map
//! that holds only the non-empty ones. The search only moves forward (no
//! vertex is ever pushed below the bucket the trustees agreed to start an
//! epoch at), so the ring's base follows the epochs, and map buckets enter
//! the ring as it reaches them.
//!
//! Memory: `RING` vector headers (24 B each) and a `RING`-bit occupancy map,
//! plus 8 B per queued entry (a vertex and its distance) and one map node per non-empty far bucket (at
//! most one per queued entry): `O(RING + queued entries)`, whatever the
//! largest weight and Δ. At the default Δ every push of a Graph500 search
//! (weights at most 1) lands in the ring, and the map is never touched.

use std::collections::BTreeMap;

/// Slots of the ring: buckets `base..base + RING` are O(1) to push to and
/// take from. A power of two. At the default Δ (0.001) a weight-1 edge spans
/// 1000 buckets, so the ring covers every push of a Graph500 search.
pub(crate) const RING: usize = 4096;
const MASK: u64 = RING as u64 - 1;
const WORDS: usize = RING / 64;

/// The largest bucket index. Distances whose `d/Δ` is beyond it (or beyond
/// `u64`) share this bucket: the bucket order stays monotone in `d`, which
/// is all the label-correcting search needs to end exact.
pub(crate) const MAX_BUCKET: u64 = 1 << 62;

/// "No bucket" (nothing queued at or after the bucket asked about).
pub(crate) const NO_BUCKET: u64 = u64::MAX;

/// A queue of entries by bucket index (the kernel's: a vertex and the
/// distance it was queued at; the tests': bare `u32`s); see the module docs.
pub(crate) struct Buckets<T = u32> {
    /// A fixed-size array, so that `slot(b)` indexes it without a bounds check.
    ring: Box<[Vec<T>; RING]>,
    /// Bit `s` set: ring slot `s` is non-empty.
    used: [u64; WORDS],
    /// The ring holds buckets `base..base + RING`.
    base: u64,
    /// Non-empty buckets at or beyond `base + RING`.
    far: BTreeMap<u64, Vec<T>>,
}

impl<T> Default for Buckets<T> {
    fn default() -> Self {
        Buckets {
            ring: std::iter::repeat_with(Vec::new)
                .take(RING)
                .collect::<Box<[Vec<T>]>>()
                .try_into()
                .unwrap_or_else(|_| unreachable!("RING slots were made")),
            used: [0; WORDS],
            base: 0,
            far: BTreeMap::new(),
        }
    }
}

#[inline(always)]
fn slot(b: u64) -> usize {
    (b & MASK) as usize
}

/// First set bit in `from..to` of `words`.
fn first_set(words: &[u64; WORDS], from: usize, to: usize) -> Option<usize> {
    let mut i = from;
    while i < to {
        let w = i / 64;
        let bits = words[w] & (!0u64 << (i % 64));
        if bits != 0 {
            let s = w * 64 + bits.trailing_zeros() as usize;
            return (s < to).then_some(s);
        }
        i = (w + 1) * 64;
    }
    None
}

impl<T> Buckets<T> {
    /// Empties every bucket and starts again at bucket 0. (A search that
    /// ran to its end left every slot without a buffer: see [`take`](Self::take).)
    pub(crate) fn clear(&mut self) {
        for (w, bits) in self.used.iter_mut().enumerate() {
            while *bits != 0 {
                self.ring[w * 64 + bits.trailing_zeros() as usize].clear();
                *bits &= *bits - 1;
            }
        }
        self.far.clear();
        self.base = 0;
    }

    /// Queues entry `v` in bucket `b` (at most [`MAX_BUCKET`]).
    #[inline(always)]
    pub(crate) fn push(&mut self, b: u64, v: T) {
        if b.wrapping_sub(self.base) < RING as u64 {
            let s = slot(b);
            self.ring[s].push(v);
            self.used[s / 64] |= 1 << (s % 64);
        } else if b > self.base {
            self.far.entry(b).or_default().push(v);
        } else {
            // Below the ring: the kernel never does this (see `advance`);
            // stay exact anyway.
            self.lower_base(b);
            self.push(b, v);
        }
    }

    /// Moves bucket `b`'s entries into `into` (which must be empty; its
    /// allocation is freed, and the slot keeps none). False when `b` is
    /// empty.
    ///
    /// Handing `into`'s buffer to the slot instead kept one buffer per
    /// bucket a search ever filled, the size of its fullest bucket, until
    /// the next search (or for good, where the slot's next bucket comes in
    /// a later search): about every push of a search, 11-22 B per vertex at
    /// SCALE 22, growing from root to root. Freed, the queue holds what is
    /// queued; a bucket's buffer grows again by doubling, a copy of each
    /// entry at most once more on average.
    #[inline]
    pub(crate) fn take(&mut self, b: u64, into: &mut Vec<T>) -> bool {
        debug_assert!(into.is_empty());
        if b.wrapping_sub(self.base) < RING as u64 {
            let s = slot(b);
            if self.ring[s].is_empty() {
                return false;
            }
            *into = std::mem::take(&mut self.ring[s]);
            self.used[s / 64] &= !(1 << (s % 64));
            true
        } else {
            match self.far.remove(&b) {
                Some(v) => {
                    *into = v;
                    true
                }
                None => false,
            }
        }
    }

    /// The smallest non-empty bucket at or after `k`, or [`NO_BUCKET`].
    pub(crate) fn first_from(&self, k: u64) -> u64 {
        let k = k.max(self.base);
        let end = self.base + RING as u64;
        if k < end {
            if let Some(b) = self.first_in_ring(k, end) {
                return b;
            }
        }
        // Every far bucket is at or beyond `end`.
        self.far.range(k..).next().map_or(NO_BUCKET, |(&b, _)| b)
    }

    /// The smallest non-empty ring bucket in `k..end` (`base <= k < end <=
    /// base + RING`).
    fn first_in_ring(&self, k: u64, end: u64) -> Option<u64> {
        let n = (end - k) as usize;
        let s0 = slot(k);
        let straight = n.min(RING - s0);
        if let Some(s) = first_set(&self.used, s0, s0 + straight) {
            return Some(k + (s - s0) as u64);
        }
        first_set(&self.used, 0, n - straight).map(|s| k + (straight + s) as u64)
    }

    /// Moves the ring forward to start at `k` (the bucket an epoch starts at;
    /// no vertex is pushed below it afterwards), taking in the far buckets it
    /// now covers. The ring never passes a non-empty bucket, so nothing is
    /// dropped even if a caller breaks that promise.
    pub(crate) fn advance(&mut self, k: u64) {
        let k = k.min(self.first_from(self.base));
        if k <= self.base {
            return;
        }
        // Buckets base..k are empty, so the slots the new range takes over
        // (those of old buckets base..k) are free.
        self.base = k;
        let end = k + RING as u64;
        while let Some(entry) = self.far.first_entry() {
            let b = *entry.key();
            if b >= end {
                break;
            }
            let mut v = entry.remove();
            let s = slot(b);
            if self.ring[s].is_empty() {
                std::mem::swap(&mut self.ring[s], &mut v);
            } else {
                self.ring[s].append(&mut v);
            }
            self.used[s / 64] |= 1 << (s % 64);
        }
    }

    /// Moves the ring back to start at `b < base`: the buckets it no longer
    /// covers go to the far map.
    #[cold]
    fn lower_base(&mut self, b: u64) {
        let end = b + RING as u64;
        for w in 0..WORDS {
            let mut bits = self.used[w];
            while bits != 0 {
                let s = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let bucket = self.base + ((s as u64).wrapping_sub(self.base) & MASK);
                if bucket >= end {
                    let v = std::mem::take(&mut self.ring[s]);
                    self.far.entry(bucket).or_default().extend(v);
                    self.used[w] &= !(1 << (s % 64));
                }
            }
        }
        self.base = b;
    }

    /// Bytes held: the ring's headers and buffers, the far map's buffers and
    /// an estimate of its nodes (for the memory-bound tests).
    #[cfg(test)]
    pub(crate) fn heap_bytes(&self) -> usize {
        let (vec, t) = (std::mem::size_of::<Vec<T>>(), std::mem::size_of::<T>());
        let ring: usize = self.ring.iter().map(|v| vec + t * v.capacity()).sum();
        let far: usize = self
            .far
            .values()
            .map(|v| 8 + vec + t * v.capacity() + 16)
            .sum();
        ring + far + std::mem::size_of_val(&self.used)
    }

    /// Buckets held outside the ring (for tests).
    #[cfg(test)]
    pub(crate) fn far_len(&self) -> usize {
        self.far.len()
    }
}

/// How many buckets the next epoch spans: 1 (one agreement per bucket)
/// while the work per bucket grows; in the long tail, where buckets hold
/// few entries, as many as hold about `epoch_work` entries, at most
/// doubling from one epoch to the next. Every trustee computes the same
/// widths from the same agreed sums.
pub(crate) struct Window {
    /// Buckets of the current epoch.
    pub(crate) width: u64,
    epoch_work: u64,
    /// Entries scanned (all trustees) when the epoch started.
    pub(crate) at_start: u64,
    last_per_bucket: u64,
}

impl Window {
    pub(crate) fn new(epoch_work: u64) -> Window {
        Window {
            width: 1,
            epoch_work,
            at_start: 0,
            last_per_bucket: 0,
        }
    }

    /// The epoch ended with `scanned` entries scanned since the search
    /// began: sets the next epoch's width.
    pub(crate) fn end_epoch(&mut self, scanned: u64) {
        let per_bucket = (scanned - self.at_start) / self.width;
        self.at_start = scanned;
        self.width = if per_bucket <= self.last_per_bucket {
            (self.epoch_work / per_bucket.max(1)).clamp(1, 2 * self.width)
        } else {
            1
        };
        self.last_per_bucket = per_bucket;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pops everything in bucket order: (bucket, vertices in push order).
    fn drain(q: &mut Buckets) -> Vec<(u64, Vec<u32>)> {
        let mut out = Vec::new();
        let mut k = q.first_from(0);
        while k != NO_BUCKET {
            q.advance(k);
            let mut v = Vec::new();
            assert!(q.take(k, &mut v));
            out.push((k, v));
            k = q.first_from(k);
        }
        out
    }

    #[test]
    fn buckets_come_out_in_order_near_and_far() {
        let mut q = Buckets::default();
        let pushes = [
            (5u64, 1u32),
            (MAX_BUCKET, 2),
            (0, 3),
            (RING as u64 + 3, 4),
            (5, 5),
            (3 * RING as u64, 6),
            (1_000_000_000_000, 7),
            (RING as u64 - 1, 8),
            (1_000_000_000_000, 9),
        ];
        for &(b, v) in &pushes {
            q.push(b, v);
        }
        assert_eq!(q.first_from(6), RING as u64 - 1);
        assert_eq!(q.first_from(RING as u64), RING as u64 + 3);
        assert_eq!(q.first_from(MAX_BUCKET + 1), NO_BUCKET);
        let got = drain(&mut q);
        assert_eq!(
            got,
            [
                (0, vec![3]),
                (5, vec![1, 5]),
                (RING as u64 - 1, vec![8]),
                (RING as u64 + 3, vec![4]),
                (3 * RING as u64, vec![6]),
                (1_000_000_000_000, vec![7, 9]),
                (MAX_BUCKET, vec![2]),
            ]
        );
        assert_eq!(q.first_from(0), NO_BUCKET);
    }

    #[test]
    fn memory_is_bounded_by_the_ring_and_the_entries_not_by_the_span() {
        // One entry every 10^9 buckets (a tiny Δ, or huge weights): a vector
        // indexed by bucket would need 10^15 slots. Here: the ring plus one
        // far node per entry.
        let mut q = Buckets::default();
        let empty = q.heap_bytes();
        let n = 1000u64;
        for i in 0..n {
            q.push(i * 1_000_000_000 + 7, i as u32);
        }
        assert_eq!(q.far_len(), n as usize - 1);
        let bound = empty + n as usize * 128;
        assert!(
            q.heap_bytes() <= bound,
            "{} bytes for {n} entries (bound {bound})",
            q.heap_bytes()
        );
        // Draining while advancing keeps it there, and every entry comes back.
        let got = drain(&mut q);
        assert_eq!(got.len(), n as usize);
        assert!(got.iter().enumerate().all(|(i, (_, v))| v == &[i as u32]));
        assert!(q.heap_bytes() <= bound);
        assert_eq!(q.far_len(), 0);
        // The ring itself is fixed: RING headers, whatever was pushed.
        assert!(empty <= RING * 24 + RING / 8);
    }

    #[test]
    fn a_drained_queue_holds_no_buffers() {
        // A search's pushes, 1000 buckets of 1000 entries (as a Graph500
        // search at the default Δ: every push in the ring), taken bucket
        // by bucket into one wave: what the queue holds afterwards is its
        // headers, not a buffer per bucket it ever filled.
        let mut q = Buckets::default();
        let empty = q.heap_bytes();
        for b in 0..1000u64 {
            for v in 0..1000 {
                q.push(b, v);
            }
        }
        assert!(q.heap_bytes() >= empty + 1000 * 1000 * 4);
        let mut wave = Vec::new();
        let mut k = q.first_from(0);
        while k != NO_BUCKET {
            q.advance(k);
            wave.clear();
            assert!(q.take(k, &mut wave));
            assert_eq!(wave.len(), 1000);
            k = q.first_from(k);
        }
        assert_eq!(q.heap_bytes(), empty);
        // The wave holds the last bucket's buffer only.
        assert!(wave.capacity() < 4 * 1000);
        q.clear();
        assert_eq!(q.heap_bytes(), empty);
    }

    #[test]
    fn advance_never_passes_a_non_empty_bucket() {
        let mut q = Buckets::default();
        q.push(10, 1);
        q.push(20_000, 2);
        q.advance(15_000); // promise broken: bucket 10 is still queued
        assert_eq!(q.first_from(0), 10);
        let mut v = Vec::new();
        assert!(q.take(10, &mut v));
        assert_eq!(v, [1]);
        q.advance(15_000);
        assert_eq!(q.first_from(0), 20_000);
        // A push below the ring moves the ring back, losing nothing.
        q.push(3, 3);
        assert_eq!(drain(&mut q), [(3, vec![3]), (20_000, vec![2])]);
    }

    #[test]
    fn wrapping_ring_scan_finds_the_first_bucket() {
        let mut q = Buckets::default();
        q.advance(0);
        q.push(RING as u64 - 2, 1);
        let mut v = Vec::new();
        assert!(q.take(RING as u64 - 2, &mut v));
        q.advance(RING as u64 - 2);
        // Buckets RING-2 .. 2*RING-2 are in the ring; these two wrap around.
        q.push(RING as u64 + 5, 2);
        q.push(RING as u64 + 1, 3);
        assert_eq!(q.first_from(RING as u64 - 2), RING as u64 + 1);
        assert_eq!(q.first_from(RING as u64 + 2), RING as u64 + 5);
        q.clear();
        assert_eq!(q.first_from(0), NO_BUCKET);
    }
}
