//! [`Packed`]: compressed unweighted rows, each row's flat ids stored as
//! group-varint differences (the difference coding of Ligra+, with the
//! lengths of four numbers in one byte as in Dean's group varint; this
//! code is our own).
//!
//! # The format
//!
//! A row (position `v`, flat id `lo + v`, targets `t0 < t1 < ...`, no
//! repeats) is a sequence of `u32` numbers:
//!
//! - the first target relative to the row's own vertex, `t0 - (lo + v)`
//!   (wrapping, read as an `i32`), zigzag-coded (`2x` for `x >= 0`,
//!   `-2x - 1` below), so a neighbour whose id is near the vertex's own
//!   costs one byte;
//! - then each gap less one, `t(i) - t(i - 1) - 1` (the targets are
//!   distinct, so the gap is at least 1).
//!
//! The numbers go in groups of four: a control byte (bits `2k..2k + 2`:
//! the `k`-th number's length in bytes, less one), then the four numbers,
//! each in as few little-endian bytes as hold it (1-4). A row's last
//! group may hold fewer than four: the rest of its control byte is zero
//! and no bytes follow for them (the row's length says how many there
//! are). Per vertex the rows keep the byte offset of the row (8 B) and its
//! length in targets (4 B: a search sums the lengths of its frontier, and
//! decoding runs by count, so a row's end is never read).
//!
//! Decoding a group reads its control byte, then four 4-byte words at the
//! offsets the lengths give, each masked to its length: no branch on a
//! number's length, and the only chain from one group to the next is the
//! group's size. The array ends with [`PAD`] zero bytes so a group's reads
//! stay inside it.
//!
//! # Cost and use
//!
//! Kronecker rows ordered by degree have many small gaps (the hubs come
//! first and have the smallest flat ids), a road grid's rows sit next to
//! their vertex: most numbers take one byte where a plain row takes four.
//! A search reads fewer bytes but decodes each entry (a mask and an add).
//! The rows are read only in order, through [`PackedView::for_each`] and
//! [`PackedView::find`] (which stops at the first match, as a bottom-up
//! BFS does at its first parent).

use graph_core::alloc::{huge_vec_or_exit, reserve_or_exit};
use graph_core::csr::{advise_huge_pages, prefetch_line};

/// Bytes of zeros after the last row: a group's reads (its control byte
/// and 20 bytes after it) that start at the last group stay inside the
/// array.
const PAD: usize = 21;

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
        let _ = self.walk(v, |t| {
            f(t);
            false
        });
    }

    /// The first target of position `v` (ascending) for which `pred`
    /// holds; decodes no group past it.
    #[inline(always)]
    pub(crate) fn find(&self, v: u32, pred: impl FnMut(u32) -> bool) -> Option<u32> {
        self.walk(v, pred)
    }

    /// Position `v`'s targets in order until `stop` says so: the one it
    /// stopped at.
    #[inline(always)]
    fn walk(&self, v: u32, mut stop: impl FnMut(u32) -> bool) -> Option<u32> {
        let mut left = self.degree[v as usize] as usize;
        if left == 0 {
            return None;
        }
        let mut at = self.start[v as usize] as usize;
        let g = group(self.bytes, &mut at);
        // The first number is the first target's zigzag difference to the
        // own flat id; "one less than the gap" from it: start one lower.
        let mut t = first(self.lo.wrapping_add(v), g[0]).wrapping_sub(1);
        let mut g = [0, g[1], g[2], g[3]];
        loop {
            let k = left.min(4);
            for &d in &g[..k] {
                t = t.wrapping_add(d).wrapping_add(1);
                if stop(t) {
                    return Some(t);
                }
            }
            left -= k;
            if left == 0 {
                return None;
            }
            g = group(self.bytes, &mut at);
        }
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

/// The first target from its code, relative to own flat id `me`.
#[inline(always)]
fn first(me: u32, z: u32) -> u32 {
    // Zigzag back: even is +z/2, odd is -(z + 1)/2 (wrapping).
    let d = (z >> 1) ^ (z & 1).wrapping_neg();
    me.wrapping_add(d)
}

/// Zigzag code of the first target relative to own flat id `me`.
#[inline]
fn first_code(me: u32, t: u32) -> u32 {
    let d = t.wrapping_sub(me) as i32;
    ((d << 1) ^ (d >> 31)) as u32
}

/// Bytes a number takes in a group (1-4).
#[inline]
fn len_of(x: u32) -> usize {
    let bytes = (32 - (x | 1).leading_zeros() as usize).div_ceil(8);
    bytes.max(1)
}

/// The numbers of a row of own flat id `me`.
fn numbers(me: u32, row: &[u32]) -> impl Iterator<Item = u32> + '_ {
    let head = row.first().map(|&t0| first_code(me, t0));
    head.into_iter()
        .chain(row.windows(2).map(|w| w[1] - w[0] - 1))
}

/// Bytes of the coded row of own flat id `me`.
fn row_bytes(me: u32, row: &[u32]) -> usize {
    row.len().div_ceil(4) + numbers(me, row).map(len_of).sum::<usize>()
}

/// Appends the coded row of own flat id `me` (targets ascending, distinct).
fn encode_row(me: u32, row: &[u32], out: &mut Vec<u8>) {
    debug_assert!(
        row.windows(2).all(|w| w[0] < w[1]),
        "a compressed row needs distinct targets, ascending"
    );
    let mut control = 0;
    for (i, x) in numbers(me, row).enumerate() {
        let k = i % 4;
        if k == 0 {
            control = out.len();
            out.push(0);
        }
        let len = len_of(x);
        out[control] |= ((len - 1) as u8) << (2 * k);
        out.extend_from_slice(&x.to_le_bytes()[..len]);
    }
}

/// The group at `*at` (four numbers; those past a row's end are
/// meaningless), moving `*at` past it.
#[inline(always)]
fn group(bytes: &[u8], at: &mut usize) -> [u32; 4] {
    let c = u32::from(bytes[*at]);
    let data: &[u8; 20] = bytes[*at + 1..*at + 21].try_into().expect("20 bytes");
    let len = [c & 3, (c >> 2) & 3, (c >> 4) & 3, c >> 6];
    let o1 = len[0] as usize + 1;
    let o2 = o1 + len[1] as usize + 1;
    let o3 = o2 + len[2] as usize + 1;
    *at += 1 + o3 + len[3] as usize + 1;
    let word = |o: usize, l: u32| {
        let w = u32::from_le_bytes(data[o..o + 4].try_into().expect("4 bytes"));
        // Length l + 1 bytes: keep the low 8 (l + 1) bits.
        w & (u32::MAX >> (24 - 8 * l))
    };
    [
        word(0, len[0]),
        word(o1, len[1]),
        word(o2, len[2]),
        word(o3, len[3]),
    ]
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
    fn numbers_of_every_length_in_every_place_of_a_group_decode() {
        let sizes = [
            0u32,
            0xff,
            0x100,
            0xffff,
            0x1_0000,
            0xff_ffff,
            0x100_0000,
            u32::MAX,
        ];
        assert_eq!(sizes.map(len_of), [1, 1, 2, 2, 3, 3, 4, 4]);
        // Every control byte: four numbers of lengths a, b, c, d.
        for c in 0..256usize {
            let x: Vec<u32> = (0..4)
                .map(|k| sizes[2 * ((c >> (2 * k)) & 3) + 1])
                .collect();
            let mut out = vec![0u8];
            for (k, &v) in x.iter().enumerate() {
                out[0] |= ((len_of(v) - 1) as u8) << (2 * k);
                out.extend_from_slice(&v.to_le_bytes()[..len_of(v)]);
            }
            assert_eq!(out[0] as usize, c);
            let len = out.len();
            out.extend_from_slice(&[0xff; 3]); // what follows must not leak in
            out.extend_from_slice(&[0; PAD]);
            let mut at = 0;
            assert_eq!(group(&out, &mut at).to_vec(), x, "control {c:#x}");
            assert_eq!(at, len);
        }
    }

    #[test]
    fn gaps_of_one_to_four_bytes_and_the_extreme_ids() {
        let max = u32::MAX - 1;
        let rows = vec![
            vec![],                                                             // vertex 0: empty
            vec![0, 1, 257, 514, 66_050, 131_587, 16_908_803, 33_686_020, max], // 1..4-byte gaps
            vec![max],    // far above its vertex
            vec![0],      // below it
            vec![4],      // itself (first code 0)
            vec![0, max], // one 4-byte gap
            vec![],
            vec![1, 2, 3],       // a partial group
            vec![1, 2, 3, 4, 9], // a group and one
        ];
        let p = round_trip(0, &rows);
        let lens: Vec<usize> = rows[1]
            .windows(2)
            .map(|w| len_of(w[1] - w[0] - 1))
            .collect();
        assert_eq!(lens, [1, 1, 2, 2, 3, 3, 4, 4]);
        assert!(p.footprint() > p.num_bytes());
        // The own vertex at the top of the id range, its row at the bottom.
        round_trip(max - 1, &[vec![0, 5], vec![0, max - 1, max]]);
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
