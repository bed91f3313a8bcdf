//! Sorting one row of the adjacency while it is prepared: a comparison
//! sort for short rows, a least-significant-digit radix sort (8-bit
//! digits, only as many as the keys have, a pass skipped when every key
//! has the same digit there) for long ones, where it costs a few passes
//! over the row instead of `log(len)` (a Kronecker graph's hubs hold most
//! entries in rows of thousands). Both give the same sorted values.

/// Rows at least this long are radix sorted (measured on random flat ids
/// of a SCALE 22 graph: the radix sort is ahead from about 256 entries).
pub(super) const RADIX_MIN: usize = 256;

/// Sorts `row` ascending by `key` (at most `bits` significant bits; equal
/// keys must be equal values, so that the result is the one
/// `sort_unstable` gives); `scratch` is reused between calls.
pub(super) fn sort_by_bits<T: Copy + Ord>(
    row: &mut [T],
    scratch: &mut Vec<T>,
    bits: u32,
    key: impl Fn(T) -> u64,
) {
    if row.len() < RADIX_MIN {
        row.sort_unstable();
        return;
    }
    radix(row, scratch, 0..bits, key);
}

/// Sorts `keys` ascending, each an id (below `2^bits`) in the high 32
/// bits above a second field: a long row is radix sorted by its ids only
/// (stable), then each run of equal ids (parallel edges, rare) by the
/// whole key, which gives the same order as sorting by the whole key, in
/// a few passes instead of eight.
pub(super) fn sort_wide(keys: &mut [u64], scratch: &mut Vec<u64>, bits: u32) {
    if keys.len() < RADIX_MIN {
        keys.sort_unstable();
        return;
    }
    radix(keys, scratch, 32..32 + bits, |k| k);
    let mut i = 0;
    while i < keys.len() {
        let id = keys[i] >> 32;
        let mut j = i + 1;
        while j < keys.len() && keys[j] >> 32 == id {
            j += 1;
        }
        if j - i > 1 {
            keys[i..j].sort_unstable();
        }
        i = j;
    }
}

/// A stable least-significant-digit radix sort of `row` by bits `bits`
/// of `key` (8 at a time, a pass skipped where every key has the same
/// digit).
fn radix<T: Copy>(
    row: &mut [T],
    scratch: &mut Vec<T>,
    bits: std::ops::Range<u32>,
    key: impl Fn(T) -> u64,
) {
    if row.is_empty() {
        return;
    }
    scratch.clear();
    scratch.extend_from_slice(row);
    let mut count = [0u32; 256];
    // Where the keys are now: in `row` (false) or in `scratch` (true).
    let mut in_scratch = false;
    for shift in bits.step_by(8) {
        count.fill(0);
        let (src, dst): (&[T], &mut [T]) = if in_scratch {
            (scratch, row)
        } else {
            (row, scratch)
        };
        let digit = |x: T| ((key(x) >> shift) & 0xff) as usize;
        for &x in src.iter() {
            count[digit(x)] += 1;
        }
        if count[digit(src[0])] as usize == src.len() {
            continue;
        }
        let mut at = 0;
        for c in count.iter_mut() {
            (*c, at) = (at, at + *c);
        }
        for &x in src.iter() {
            let c = &mut count[digit(x)];
            dst[*c as usize] = x;
            *c += 1;
        }
        in_scratch = !in_scratch;
    }
    if in_scratch {
        row.copy_from_slice(scratch);
    }
}

/// Significant bits of ids below `bound`.
pub(super) fn bits_below(bound: u32) -> u32 {
    u32::BITS - bound.saturating_sub(1).leading_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radix_sort_gives_the_sorted_values() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut scratch = Vec::new();
        let mut wide = Vec::new();
        for len in [0usize, 1, 5, 255, 256, 257, 1000, 5000] {
            for bound in [1u32, 2, 300, 1 << 20, u32::MAX] {
                let row: Vec<u32> = (0..len)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        (x % u64::from(bound)) as u32
                    })
                    .collect();
                let mut want = row.clone();
                want.sort_unstable();
                let mut got = row.clone();
                sort_by_bits(&mut got, &mut scratch, bits_below(bound), u64::from);
                assert_eq!(got, want, "len {len}, ids below {bound}");
                // Wide keys: the id above a second field.
                let mut got: Vec<u64> = row
                    .iter()
                    .map(|&v| (u64::from(v) << 32) | u64::from(v % 7))
                    .collect();
                let mut want = got.clone();
                want.sort_unstable();
                sort_by_bits(&mut got, &mut wide, 32 + bits_below(bound), |k| k);
                assert_eq!(got, want, "len {len}, ids below {bound}, wide");
            }
        }
        // Ids above weights' order bits, parallel entries included.
        for len in [3usize, 300, 4000] {
            let mut keys: Vec<u64> = (0..len as u64)
                .map(|i| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    ((x % 50 + i % 2) << 32) | (x >> 40)
                })
                .collect();
            let mut want = keys.clone();
            want.sort_unstable();
            sort_wide(&mut keys, &mut wide, bits_below(51));
            assert_eq!(keys, want, "len {len}");
        }
        assert_eq!(
            (
                bits_below(0),
                bits_below(1),
                bits_below(2),
                bits_below(256),
                bits_below(257)
            ),
            (0, 0, 1, 8, 9)
        );
    }
}
