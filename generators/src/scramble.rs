//! The vertex-id scrambling that hides the Kronecker structure.
//!
//! The recursion puts high-degree vertices at small ids; Graph500 relabels
//! every id through a fixed bijection of `0..2^scale` instead of a random
//! permutation (which would be too expensive to store at scale). The map is
//! two rounds of "add/multiply by an odd 64-bit constant, reverse the 64 bits,
//! keep the top `scale` bits". The two 64-bit keys come from the same MRG
//! stream as the edges, `50 * 2^128 + 7 * 2^64` steps in.

use crate::mrg::{Distance, MrgState};

/// The scrambling bijection of one graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Scrambler {
    key0: u64,
    key1: u64,
    shift: u32,
}

impl Scrambler {
    /// The bijection for `2^scale` vertices (`1 <= scale <= 64`) with keys
    /// drawn from the stream starting at `base`.
    pub(crate) fn new(base: &MrgState, scale: u32) -> Self {
        assert!(
            (1..=64).contains(&scale),
            "Scrambler::new: scale {scale} outside 1..=64"
        );
        let mut s = *base;
        s.skip(Distance {
            high: 50,
            mid: 7,
            low: 0,
        });
        let mut key = || {
            let hi = s.next_uint() as u64;
            let lo = s.next_uint() as u64;
            hi.wrapping_mul(0xFFFF_FFFF).wrapping_add(lo)
        };
        let key0 = key();
        let key1 = key();
        Scrambler {
            key0,
            key1,
            shift: 64 - scale,
        }
    }

    /// The scrambled id of `v` (`v < 2^scale`).
    #[inline(always)]
    pub(crate) fn apply(&self, v: u64) -> u64 {
        let mut x = v.wrapping_add(self.key0.wrapping_add(self.key1));
        x = x.wrapping_mul(self.key0 | 0x4519_8402_1149_3211);
        x = x.reverse_bits() >> self.shift;
        x = x.wrapping_mul(self.key1 | 0x3050_8521_02C8_43A5);
        x.reverse_bits() >> self.shift
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_a_bijection_on_small_scales() {
        let base = MrgState::from_user_seeds(2, 3);
        for scale in 1..=14 {
            let s = Scrambler::new(&base, scale);
            let n = 1u64 << scale;
            let mut seen = vec![false; n as usize];
            for v in 0..n {
                let x = s.apply(v);
                assert!(x < n);
                assert!(!seen[x as usize], "scale {scale}: collision at {v}");
                seen[x as usize] = true;
            }
        }
    }
}
