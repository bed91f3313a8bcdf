//! [`Paths`]: counts of shortest paths past `f64`'s range, for kernels
//! that count them (betweenness).
//!
//! The number of shortest paths to a vertex grows with its depth as fast
//! as a binomial coefficient on a grid: a 1024 x 1024 grid has more than
//! 2^1024 from one corner to the middle, and a plain `f64` count becomes
//! infinite there (and a ratio of two of them NaN). A `Paths` is a pair
//! `[x, e]` worth `x * 2^(SHIFT * e)`, `e` a small whole number; sums
//! carry to `e` when `x` reaches `2^SHIFT`. While every count fits in an
//! `f64` (`e == 0` everywhere, as on Kronecker graphs), every operation is
//! the plain `f64` one, so the results are bit for bit those of `f64`
//! counts.

/// A count `x * 2^(SHIFT * e)` as `[x, e]`; see the module docs.
pub type Paths = [f64; 2];

/// Bits carried into the exponent word at once.
const SHIFT: i32 = 900;

/// `2^(SHIFT * k)` for `k <= 0` (0 below `-1`: a count that much smaller
/// than another adds nothing to it).
#[inline(always)]
pub fn paths_scale(k: f64) -> f64 {
    if k == 0.0 {
        1.0
    } else if k == -1.0 {
        2f64.powi(-SHIFT)
    } else {
        0.0
    }
}

/// `a + b`.
#[inline(always)]
pub fn paths_add(a: Paths, b: Paths) -> Paths {
    // The common case first: one scale, no carry.
    let x = a[0] + b[0];
    if a[1] == b[1] && x < 2f64.powi(SHIFT) {
        return [x, a[1]];
    }
    let (hi, lo) = if a[1] >= b[1] { (a, b) } else { (b, a) };
    let x = hi[0] + lo[0] * paths_scale(lo[1] - hi[1]);
    if x >= 2f64.powi(SHIFT) {
        [x * 2f64.powi(-SHIFT), hi[1] + 1.0]
    } else {
        [x, hi[1]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_sums_are_plain_f64_sums_and_large_ones_carry() {
        assert_eq!(paths_add([0.1, 0.0], [0.2, 0.0]), [0.1 + 0.2, 0.0]);
        // Doubling 1100 times: 2^1100, past f64's range.
        let mut p: Paths = [1.0, 0.0];
        for _ in 0..1100 {
            p = paths_add(p, p);
        }
        assert_eq!(p, [2f64.powi(1100 - SHIFT), 1.0]);
        // A count one carry smaller adds at its scale, two carries smaller
        // not at all.
        assert_eq!(
            paths_add([4.0, 1.0], [2f64.powi(SHIFT - 1), 0.0]),
            [4.5, 1.0]
        );
        assert_eq!(paths_add([1.0, 0.0], [1.0, 2.0]), [1.0, 2.0]);
    }
}
