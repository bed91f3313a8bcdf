//! [`Packed`]: compressed unweighted rows, each row's flat ids stored as
//! byte-coded differences (the layout of Ligra+'s byte codes; this code
//! is our own).
//!
//! # The format
//!
//! A row (position `v`, flat id `lo + v`, targets `t0 < t1 < ...`, no
//! repeats) is one run of bytes:
//!
//! - the first target relative to the row's own vertex, `t0 - (lo + v)`,
//!   zigzag-coded (`2x` for `x >= 0`, `-2x - 1` below), so a neighbour
//!   whose id is near the vertex's own costs a byte or two;
//! - then each gap less one, `t(i) - t(i - 1) - 1` (the targets are
//!   distinct, so the gap is at least 1).
//!
//! Each number is a varint: 7 bits a byte, low bits first, the high bit
//! set on every byte but the last. A `u32` gap takes 1 to 5 bytes, the
//! first number (up to 33 bits) also at most 5. Per vertex the rows keep
//! the byte offset of the row (8 B) and its length in targets (4 B: the
//! loop runs by count, so the end of a row is never read, and a
//! direction-optimizing search sums the lengths of its frontier).
//!
//! Decoding reads 8 bytes at once (the array ends with 8 zero bytes so a
//! read near the end stays inside it), finds the first byte without the
//! high bit in that word and gathers the 7-bit groups with shifts and
//! masks: no branch on a number's length, one load per number.
//!
//! # Cost and use
//!
//! Kronecker rows ordered by degree have many small gaps (the hubs come
//! first and have the smallest flat ids), a road grid's rows sit next to
//! their vertex: most numbers take one or two bytes where a plain row
//! takes four. A search reads fewer bytes but decodes each entry
//! (a few shifts). The rows are read only in order, through
//! [`PackedView::for_each`] and [`PackedView::find`] (which stops at the
//! first match, as a bottom-up BFS does at its first parent).

use graph_core::alloc::{huge_vec_or_exit, reserve_or_exit, vec_or_exit};
use graph_core::csr::{advise_huge_pages, prefetch_line};

/// Bytes of zeros after the last row: a decoder's 8-byte read that starts
/// on a row's last byte stays inside the array.
pub(super) const PAD: usize = 8;

/// Compressed rows of `n` positions; see the module docs.
#[derive(Debug)]
pub(crate) struct Packed {
    /// Byte offset of each position's row (one per position).
    start: Vec<u64>,
    /// Targets of each position's row.
    degree: Vec<u32>,
    /// The rows, then [`PAD`] zero bytes.
    bytes: Vec<u8>,
    /// Flat id of position 0: the rows' first targets are coded relative
    /// to their own vertex's flat id.
    lo: u32,
}

impl Packed {
    /// Codes `n` rows: `row(v)` is position `v`'s targets (flat ids,
    /// ascending, distinct), `lo + v` its own flat id.
    pub(crate) fn build<'r>(n: u32, lo: u32, row: impl Fn(u32) -> &'r [u32]) -> Packed {
        let mut start = huge_vec_or_exit(n as usize, 0u64, "compressed row offsets");
        let mut degree = huge_vec_or_exit(n as usize, 0u32, "compressed row lengths");
        // A first pass sizes the bytes exactly: no doubling, no copy.
        let mut total = 0usize;
        for v in 0..n {
            total += row_bytes(lo.wrapping_add(v), row(v));
        }
        let mut bytes = Vec::new();
        reserve_or_exit(&mut bytes, total + PAD, "compressed rows");
        advise_huge_pages(bytes.spare_capacity_mut());
        for v in 0..n {
            let r = row(v);
            start[v as usize] = bytes.len() as u64;
            degree[v as usize] = r.len() as u32;
            encode_row(lo.wrapping_add(v), r, &mut bytes);
        }
        debug_assert_eq!(bytes.len(), total);
        bytes.resize(total + PAD, 0);
        Packed {
            start,
            degree,
            bytes,
            lo,
        }
    }

    /// Starts rows coded one by one in any order of positions
    /// ([`Builder::push`]), for `n` positions holding at most `entries`
    /// entries in all; `lo` is the flat id of position 0.
    pub(crate) fn builder(n: u32, lo: u32, entries: u64) -> Builder {
        let mut bytes = Vec::new();
        // Room for the longest coding of every entry (5 B): address space
        // only, as pages are touched when written; `finish` gives the
        // rest back.
        reserve_or_exit(&mut bytes, 5 * entries as usize + PAD, "compressed rows");
        advise_huge_pages(bytes.spare_capacity_mut());
        // Zeroed by the system, touched as rows are coded (the shard's
        // plain rows are given back meanwhile).
        let (mut start, mut degree) = (
            vec_or_exit(n as usize, 0u64, "compressed row offsets"),
            vec_or_exit(n as usize, 0u32, "compressed row lengths"),
        );
        advise_huge_pages(&mut start);
        advise_huge_pages(&mut degree);
        Builder {
            p: Packed {
                start,
                degree,
                bytes,
                lo,
            },
            measured: false,
            placed: false,
            scratch: Vec::new(),
        }
    }

    /// The rows as plain slices.
    #[inline(always)]
    pub(crate) fn view(&self) -> PackedView<'_> {
        PackedView {
            start: &self.start,
            degree: &self.degree,
            bytes: &self.bytes,
            lo: self.lo,
        }
    }

    /// Bytes of the coded rows (without the padding).
    pub(crate) fn num_bytes(&self) -> u64 {
        (self.bytes.len() - PAD) as u64
    }

    /// Bytes held in all: the rows, the padding, 12 B per position.
    pub(crate) fn footprint(&self) -> u64 {
        (self.bytes.len() + 8 * self.start.len() + 4 * self.degree.len()) as u64
    }
}

/// [`Packed`] coded a row at a time ([`Packed::builder`]), each row's
/// parallel entries kept after its targets so that the shard's entries
/// can be read back ([`TakenRows`](graph_core::csr::TakenRows)).
///
/// Rows pushed without [`measure`](Self::measure) are appended in the
/// order they come; rows measured first (all of them, before any push)
/// are laid out by position, each at its place.
pub(crate) struct Builder {
    p: Packed,
    /// Rows measured ([`measure`](Self::measure)): `p.start` holds each
    /// row's size in bytes until the first push lays them out.
    measured: bool,
    placed: bool,
    scratch: Vec<u8>,
}

impl Builder {
    /// Codes position `v`'s row: `targets` (flat ids, ascending,
    /// distinct) as in the module docs, then `repeats` (ascending,
    /// entries that repeat targets: parallel edges) in the same codes but
    /// with gaps not less one, which a search never reads (it stops after
    /// `targets.len()` numbers).
    pub(crate) fn push(&mut self, v: u32, targets: &[u32], repeats: &[u32]) {
        if self.measured && !self.placed {
            self.place();
        }
        if targets.is_empty() && repeats.is_empty() {
            // Nothing to code, and its offset and length stay 0 (never
            // read): an isolated vertex's words stay untouched.
            return;
        }
        let me = self.p.lo.wrapping_add(v);
        self.p.degree[v as usize] = targets.len() as u32;
        let out = if self.placed {
            self.scratch.clear();
            &mut self.scratch
        } else {
            self.p.start[v as usize] = self.p.bytes.len() as u64;
            &mut self.p.bytes
        };
        encode_row(me, targets, out);
        if let Some(&r0) = repeats.first() {
            put(out, first_code(me, r0));
            for w in repeats.windows(2) {
                put(out, u64::from(w[1] - w[0]));
            }
        }
        if self.placed {
            let at = self.p.start[v as usize] as usize;
            self.p.bytes[at..at + self.scratch.len()].copy_from_slice(&self.scratch);
        }
    }

    /// Notes the size of position `v`'s row as [`push`](Self::push)
    /// will code it; once every row is measured, pushes lay the rows out
    /// by position.
    pub(crate) fn measure(&mut self, v: u32, targets: &[u32], repeats: &[u32]) {
        self.measured = true;
        if targets.is_empty() && repeats.is_empty() {
            return;
        }
        let me = self.p.lo.wrapping_add(v);
        let mut size = row_bytes(me, targets);
        if let Some(&r0) = repeats.first() {
            size += varint_len(first_code(me, r0))
                + repeats
                    .windows(2)
                    .map(|w| varint_len(u64::from(w[1] - w[0])))
                    .sum::<usize>();
        }
        self.p.start[v as usize] = size as u64;
    }

    /// Turns the measured sizes into offsets and sizes the bytes exactly
    /// (zeroed by the system: touched as rows are coded).
    fn place(&mut self) {
        let mut at = 0u64;
        // Empty rows keep offset 0 (never read), their pages untouched.
        for s in self.p.start.iter_mut().filter(|s| **s > 0) {
            let size = *s;
            *s = at;
            at += size;
        }
        self.p.bytes = vec_or_exit(at as usize + PAD, 0u8, "compressed rows");
        advise_huge_pages(&mut self.p.bytes);
        self.placed = true;
    }

    /// The rows, their unused room given back.
    pub(crate) fn finish(self) -> Packed {
        let mut p = self.p;
        if !self.placed {
            p.bytes.extend_from_slice(&[0; PAD]);
            // Shrinking an allocation this large unmaps its tail, no copy.
            p.bytes.shrink_to_fit();
        }
        p
    }
}

impl graph_core::csr::TakenRows for Packed {
    /// Position `row`'s targets, then its parallel entries (see
    /// [`Builder::push`]): `entries` numbers in all.
    fn read_row(&self, row: usize, entries: usize, out: &mut Vec<u32>) {
        let targets = self.degree[row] as usize;
        let me = self.lo.wrapping_add(row as u32);
        let (mut at, mut t) = (self.start[row] as usize, 0u32);
        for i in 0..entries {
            let x = read(&self.bytes, &mut at);
            t = if i == 0 || i == targets {
                first(me, x)
            } else if i < targets {
                t.wrapping_add(x as u32).wrapping_add(1)
            } else {
                t.wrapping_add(x as u32)
            };
            out.push(t);
        }
    }
}

/// [`Packed`] borrowed as slices, for a sweep to hold.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PackedView<'a> {
    start: &'a [u64],
    degree: &'a [u32],
    bytes: &'a [u8],
    lo: u32,
}

impl<'a> PackedView<'a> {
    /// Targets of position `v`.
    #[inline(always)]
    pub(crate) fn degree(&self, v: u32) -> u64 {
        u64::from(self.degree[v as usize])
    }

    /// Calls `f` on each target of position `v`, ascending.
    #[inline(always)]
    pub(crate) fn for_each(&self, v: u32, mut f: impl FnMut(u32)) {
        let n = self.degree[v as usize];
        if n == 0 {
            return;
        }
        let mut at = self.start[v as usize] as usize;
        let mut t = first(self.lo.wrapping_add(v), read(self.bytes, &mut at));
        f(t);
        let mut left = n - 1;
        // Eight gaps of one byte each in a word are taken from one load:
        // no load waits for the previous number's length (a row's
        // remaining numbers hold at least `left` bytes, so the word is
        // inside it).
        while left >= 8 {
            let w = word(self.bytes, at);
            if w & 0x8080_8080_8080_8080 == 0 {
                for k in 0..8 {
                    t = t.wrapping_add((w >> (8 * k)) as u32 & 0x7f).wrapping_add(1);
                    f(t);
                }
                at += 8;
                left -= 8;
            } else {
                t = t.wrapping_add(number(w, &mut at) as u32).wrapping_add(1);
                f(t);
                left -= 1;
            }
        }
        for _ in 0..left {
            t = t
                .wrapping_add(read(self.bytes, &mut at) as u32)
                .wrapping_add(1);
            f(t);
        }
    }

    /// Position `v`'s targets decoded into `buf` (cleared first).
    #[inline(always)]
    pub(crate) fn decode<'x>(&self, v: u32, buf: &'x mut Vec<u32>) -> &'x [u32] {
        buf.clear();
        buf.reserve(self.degree[v as usize] as usize);
        self.for_each(v, |t| buf.push(t));
        buf
    }

    /// The first target of position `v` (ascending) for which `pred`
    /// holds; decodes no further than it.
    #[inline(always)]
    pub(crate) fn find(&self, v: u32, mut pred: impl FnMut(u32) -> bool) -> Option<u32> {
        let n = self.degree[v as usize];
        if n == 0 {
            return None;
        }
        let mut at = self.start[v as usize] as usize;
        let mut t = first(self.lo.wrapping_add(v), read(self.bytes, &mut at));
        if pred(t) {
            return Some(t);
        }
        for _ in 1..n {
            t = t
                .wrapping_add(read(self.bytes, &mut at) as u32)
                .wrapping_add(1);
            if pred(t) {
                return Some(t);
            }
        }
        None
    }

    /// Starts loading position `v`'s offset and length (a hint).
    #[inline(always)]
    pub(crate) fn prefetch_span(&self, v: u32) {
        if let Some(a) = self.start.get(v as usize) {
            prefetch_line(a);
        }
        if let Some(n) = self.degree.get(v as usize) {
            prefetch_line(n);
        }
    }

    /// Starts loading the first bytes of position `v`'s row (a hint).
    #[inline(always)]
    pub(crate) fn prefetch_row(&self, v: u32) {
        if let Some(b) = self
            .start
            .get(v as usize)
            .and_then(|&a| self.bytes.get(a as usize))
        {
            prefetch_line(b);
        }
    }
}

/// The first target from its coded difference to own flat id `me`.
#[inline(always)]
fn first(me: u32, z: u64) -> u32 {
    // Zigzag back: even is +z/2, odd is -(z + 1)/2.
    let d = ((z >> 1) as i64) ^ -((z & 1) as i64);
    (i64::from(me) + d) as u32
}

/// Zigzag code of the first target's difference to own flat id `me`.
#[inline]
fn first_code(me: u32, t: u32) -> u64 {
    let d = i64::from(t) - i64::from(me);
    ((d << 1) ^ (d >> 63)) as u64
}

/// Bytes of the varint of `x`.
#[inline]
fn varint_len(x: u64) -> usize {
    let bits = 64 - (x | 1).leading_zeros() as usize;
    bits.div_ceil(7)
}

/// Bytes of the coded row of own flat id `me`.
fn row_bytes(me: u32, row: &[u32]) -> usize {
    let Some(&t0) = row.first() else { return 0 };
    varint_len(first_code(me, t0))
        + row
            .windows(2)
            .map(|w| varint_len(u64::from(w[1] - w[0] - 1)))
            .sum::<usize>()
}

/// Appends `x` as a varint.
#[inline]
pub(super) fn put(out: &mut Vec<u8>, mut x: u64) {
    while x >= 0x80 {
        out.push((x as u8) | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

/// Appends the coded row of own flat id `me` (targets ascending, distinct).
fn encode_row(me: u32, row: &[u32], out: &mut Vec<u8>) {
    let Some(&t0) = row.first() else { return };
    put(out, first_code(me, t0));
    for w in row.windows(2) {
        debug_assert!(
            w[1] > w[0],
            "a compressed row needs distinct targets, ascending"
        );
        put(out, u64::from(w[1] - w[0] - 1));
    }
}

/// The varint at `*at` (at most 5 bytes), moving `*at` past it. Reads the
/// 8 bytes from `*at` (the padding keeps them inside the array).
#[inline(always)]
pub(super) fn read(bytes: &[u8], at: &mut usize) -> u64 {
    number(word(bytes, *at), at)
}

/// The 8 bytes from `at`, little-endian.
#[inline(always)]
pub(super) fn word(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

/// The varint that starts word `w` (the 8 bytes at `*at`), moving `*at`
/// past it.
#[inline(always)]
pub(super) fn number(w: u64, at: &mut usize) -> u64 {
    // The high bit of every byte that ends a number; the lowest is ours.
    let stops = !w & 0x8080_8080_8080_8080;
    let last = stops & stops.wrapping_neg();
    let x = w & (last | (last - 1));
    *at += (last.trailing_zeros() as usize >> 3) + 1;
    // Byte k's 7 bits move down by k (the stop bits fall out of the masks).
    (x & 0x7f)
        | ((x >> 1) & (0x7f << 7))
        | ((x >> 2) & (0x7f << 14))
        | ((x >> 3) & (0x7f << 21))
        | ((x >> 4) & (0x7f << 28))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(p: &Packed, n: u32) -> Vec<Vec<u32>> {
        let view = p.view();
        (0..n)
            .map(|v| {
                let mut out = Vec::new();
                view.for_each(v, |t| out.push(t));
                assert_eq!(out.len() as u64, view.degree(v));
                out
            })
            .collect()
    }

    fn round_trip(lo: u32, rows: &[Vec<u32>]) -> Packed {
        let p = Packed::build(rows.len() as u32, lo, |v| &rows[v as usize]);
        assert_eq!(decode_all(&p, rows.len() as u32), rows);
        let want: usize = (0..rows.len())
            .map(|v| row_bytes(lo + v as u32, &rows[v]))
            .sum();
        assert_eq!(p.num_bytes(), want as u64);
        p
    }

    #[test]
    fn varints_of_every_length_decode() {
        for x in [
            0u64,
            1,
            0x7f,
            0x80,
            0x3fff,
            0x4000,
            (1 << 21) - 1,
            1 << 21,
            (1 << 28) - 1,
            1 << 28,
            u64::from(u32::MAX),
            (1 << 33) - 1,
        ] {
            let mut b = Vec::new();
            put(&mut b, x);
            assert_eq!(b.len(), varint_len(x), "{x}");
            let len = b.len();
            b.extend_from_slice(&[0xff; 3]); // what follows must not leak in
            b.extend_from_slice(&[0; PAD]);
            let mut at = 0;
            assert_eq!(read(&b, &mut at), x);
            assert_eq!(at, len);
        }
    }

    #[test]
    fn gaps_of_one_to_five_bytes_and_the_extreme_ids() {
        let max = u32::MAX - 1;
        let rows = vec![
            vec![],                                                            // vertex 0: empty
            vec![0, 1, 129, 258, 16_642, 33_027, 2_130_180, 270_565_637, max], // 1..5-byte gaps
            vec![max],    // far above its vertex
            vec![0],      // below it
            vec![3],      // itself (first code 0)
            vec![0, max], // one 5-byte gap
            vec![],
        ];
        let p = round_trip(0, &rows);
        let mut lens = Vec::new();
        let r = &rows[1];
        for w in r.windows(2) {
            lens.push(varint_len(u64::from(w[1] - w[0] - 1)));
        }
        assert_eq!(lens, [1, 1, 2, 2, 3, 4, 5, 5]);
        assert!(p.footprint() > p.num_bytes());
        // The own vertex at the top of the id range, its row at the bottom.
        round_trip(max - 1, &[vec![0, 5], vec![0, max - 1, max]]);
    }

    #[test]
    fn runs_of_one_byte_gaps_around_longer_ones_decode() {
        // Runs of 1-17 one-byte gaps (the largest, 127, among them: the
        // decoder takes eight from one word) between gaps of 2-5 bytes,
        // the rows ending inside and right after a run.
        let mut rows = Vec::new();
        for run in [1usize, 7, 8, 9, 15, 16, 17] {
            for long in [128u32, 20_000, 3_000_000, 300_000_000] {
                let mut r = vec![5u32];
                for k in 0..3 {
                    for i in 0..run {
                        let gap = if i % 5 == 4 {
                            128
                        } else {
                            1 + (i as u32 * 37) % 100
                        };
                        r.push(r[r.len() - 1] + gap);
                    }
                    if k < 2 {
                        r.push(r[r.len() - 1] + long.min(u32::MAX - r[r.len() - 1] - 1000));
                    }
                }
                rows.push(r);
            }
        }
        round_trip(0, &rows);
        round_trip(1 << 30, &rows);
    }

    #[test]
    fn hub_rows_and_random_rows_decode_to_the_plain_rows() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let (n, ids) = (300u32, 1u32 << 24);
        let rows: Vec<Vec<u32>> = (0..n)
            .map(|v| {
                let len = match v % 7 {
                    0 => 0,
                    1 => 70_000 + (next() % 1000) as usize, // > 2^16 entries
                    _ => (next() % 40) as usize,
                };
                let spread = if v % 2 == 0 { ids } else { 1 << (next() % 32) };
                let mut r: Vec<u32> = (0..len)
                    .map(|_| (next() % u64::from(spread.max(1))) as u32)
                    .collect();
                r.sort_unstable();
                r.dedup();
                r
            })
            .collect();
        let p = round_trip(1 << 20, &rows);
        // find stops at the first match and sees the row in order.
        let view = p.view();
        for v in 0..n {
            let r = &rows[v as usize];
            if let Some(&m) = r.get(r.len() / 2) {
                let mut seen = 0;
                assert_eq!(
                    view.find(v, |t| {
                        seen += 1;
                        t >= m
                    }),
                    Some(m)
                );
                assert_eq!(seen, r.len() / 2 + 1);
            }
            assert_eq!(view.find(v, |_| false), None);
        }
    }
}
