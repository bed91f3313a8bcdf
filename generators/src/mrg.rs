//! The splittable pseudo-random number generator used by Graph500.
//!
//! It is a multiple recursive generator (MRG) of order 5 modulo the Mersenne
//! prime `P = 2^31 - 1` (L'Ecuyer, Blouin and Couture 1993, the same one GSL
//! calls `mrg`). The state is five residues `z1..z5` (`z1` newest); one step
//! computes
//!
//! ```text
//! z_new = (X * z1 + Y * z5) mod P        X = 107374182, Y = 104480
//! ```
//!
//! and shifts it in as the new `z1`. One step is the linear map
//! `z -> A z` with the 5x5 companion matrix `A`, so jumping ahead by `n`
//! steps is multiplication by `A^n` — that is what makes the stream
//! *splittable*: edge `i` of the graph uses the base state advanced by
//! `i * 2^64` steps, so any slice of the edge list can be produced on its own.
//!
//! All arithmetic here is exact modular arithmetic with canonical residues in
//! `0..P`, so every way of reaching `A^n z` (bit by bit, nibble by nibble,
//! or one step at a time) yields the same state: that is what lets this port
//! use different skip tables from the reference and still be bit-exact.

use std::sync::OnceLock;

/// The modulus `2^31 - 1`.
pub const MODULUS: u32 = 0x7FFF_FFFF;
/// Multiplier of `z1` in one step.
pub const MULT_X: u32 = 107_374_182;
/// Multiplier of `z5` in one step.
pub const MULT_Y: u32 = 104_480;

// The two scale factors keep the reference's decimal literals verbatim (both
// parse to the nearest f64), so a reader can compare them digit by digit.

/// `1 / (2^31 - 1)` as the reference writes it.
#[allow(clippy::excessive_precision)]
const INV_P: f64 = 0.000000000465661287524579692;
/// `1 / (2^31 - 1)^2` as the reference writes it.
#[allow(clippy::excessive_precision)]
const INV_P2: f64 = 0.0000000000000000002168404346990492787;

/// Reduces `x < 2^64` modulo `2^31 - 1` to a canonical residue.
#[inline(always)]
pub(crate) fn reduce(x: u64) -> u32 {
    const P: u64 = MODULUS as u64;
    // 2^31 ≡ 1 (mod P): fold the high part onto the low part.
    let x = (x & P) + (x >> 31); // < 2^31 + 2^33
    let x = (x & P) + (x >> 31); // < 2^31 + 2^3
    let x = if x >= P { x - P } else { x };
    x as u32
}

/// `a * b mod P` for canonical residues.
#[inline(always)]
fn mul_mod(a: u32, b: u32) -> u32 {
    reduce(a as u64 * b as u64)
}

/// A position offset in the stream: `high * 2^128 + mid * 2^64 + low` steps.
///
/// The reference addresses its stream with such 192-bit offsets: edge `i`
/// sits at `mid = i`, the scrambling constants at `high = 50, mid = 7`, and
/// the root-choosing doubles at `high = 2`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Distance {
    /// Multiples of `2^128` steps.
    pub high: u64,
    /// Multiples of `2^64` steps.
    pub mid: u64,
    /// Single steps.
    pub low: u64,
}

impl Distance {
    /// `steps` single steps.
    pub const fn steps(steps: u64) -> Self {
        Distance {
            high: 0,
            mid: 0,
            low: steps,
        }
    }
}

/// A 5x5 transition matrix modulo `P` acting on `(z1, .., z5)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Transition(pub(crate) [[u32; 5]; 5]);

impl Transition {
    pub(crate) const IDENTITY: Transition = {
        let mut m = [[0u32; 5]; 5];
        let mut i = 0;
        while i < 5 {
            m[i][i] = 1;
            i += 1;
        }
        Transition(m)
    };

    /// The one-step matrix `A`.
    pub(crate) const STEP: Transition = {
        let mut m = [[0u32; 5]; 5];
        m[0][0] = MULT_X;
        m[0][4] = MULT_Y;
        let mut i = 1;
        while i < 5 {
            m[i][i - 1] = 1;
            i += 1;
        }
        Transition(m)
    };

    /// Matrix product `self * other` (apply `other` first, then `self`).
    pub(crate) fn mul(&self, other: &Transition) -> Transition {
        let mut r = [[0u32; 5]; 5];
        for (i, row) in r.iter_mut().enumerate() {
            for (j, cell) in row.iter_mut().enumerate() {
                let mut acc = 0u32;
                for k in 0..5 {
                    acc = add_mod(acc, mul_mod(self.0[i][k], other.0[k][j]));
                }
                *cell = acc;
            }
        }
        Transition(r)
    }

    /// `self^n` by square-and-multiply (tests check the tables with it).
    #[cfg(test)]
    pub(crate) fn pow(&self, mut n: u64) -> Transition {
        let mut result = Transition::IDENTITY;
        let mut base = *self;
        while n > 0 {
            if n & 1 == 1 {
                result = result.mul(&base);
            }
            base = base.mul(&base);
            n >>= 1;
        }
        result
    }

    /// The state `self * z`.
    #[inline(always)]
    pub(crate) fn apply(&self, z: &[u32; 5]) -> [u32; 5] {
        const P: u64 = MODULUS as u64;
        let z = [
            z[0] as u64,
            z[1] as u64,
            z[2] as u64,
            z[3] as u64,
            z[4] as u64,
        ];
        let mut out = [0u32; 5];
        for (o, row) in out.iter_mut().zip(&self.0) {
            // Each product is < 2^62, so three of them fit in a u64; fold
            // each partial sum to < 2^34 before adding.
            let a = row[0] as u64 * z[0] + row[1] as u64 * z[1] + row[2] as u64 * z[2];
            let b = row[3] as u64 * z[3] + row[4] as u64 * z[4];
            *o = reduce((a & P) + (a >> 31) + (b & P) + (b >> 31));
        }
        out
    }
}

#[inline(always)]
fn add_mod(a: u32, b: u32) -> u32 {
    let s = a + b; // both < 2^31, no overflow
    if s >= MODULUS {
        s - MODULUS
    } else {
        s
    }
}

/// Jump tables: `POW[k][j - 1] = A^(j * 16^k)` for the 48 hexadecimal digits
/// of a 192-bit distance, so a skip costs at most one matrix-vector product
/// per non-zero digit. Computed once from `A` (about 700 small matrix
/// products), shared by every generator.
struct SkipTables {
    pow: Vec<[Transition; 15]>,
}

const DIGITS: usize = 48;

fn skip_tables() -> &'static SkipTables {
    static TABLES: OnceLock<SkipTables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut pow = Vec::with_capacity(DIGITS);
        let mut base = Transition::STEP; // A^(16^k)
        for _ in 0..DIGITS {
            let mut row = [Transition::IDENTITY; 15];
            row[0] = base;
            for j in 1..15 {
                row[j] = row[j - 1].mul(&base);
            }
            base = row[14].mul(&base);
            pow.push(row);
        }
        SkipTables { pow }
    })
}

/// `A^(2^64)`: the distance between consecutive edges' streams.
pub(crate) fn edge_stride() -> &'static Transition {
    &skip_tables().pow[16][0]
}

/// `A^(j * 2^64)` for `j` in `1..=15`: the distance between the streams of
/// edges `j` apart.
pub(crate) fn edge_stride_times(j: usize) -> &'static Transition {
    &skip_tables().pow[16][j - 1]
}

/// The weight made from one output `x` (see [`MrgState::next_float`]).
#[inline(always)]
pub(crate) fn weight_from(x: u32) -> f32 {
    ((x as f32) as f64 * INV_P) as f32
}

/// The state of the generator: five residues modulo `2^31 - 1`.
///
/// ```
/// use generators::mrg::{Distance, MrgState};
/// let mut a = MrgState::from_user_seeds(2, 3);
/// let mut b = a;
/// for _ in 0..1000 {
///     a.next_uint();
/// }
/// b.skip(Distance::steps(1000));
/// assert_eq!(a, b);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MrgState {
    z: [u32; 5],
}

/// A seed word was not a valid residue, or all were zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InvalidSeed {
    /// The rejected seed words.
    pub seed: [u32; 5],
}

impl std::fmt::Display for InvalidSeed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "invalid MRG seed {:?}: every word must be below 2^31 - 1 = {} and not all may be zero \
             (use MrgState::from_user_seeds to derive a valid seed from two u64s)",
            self.seed, MODULUS
        )
    }
}

impl std::error::Error for InvalidSeed {}

impl MrgState {
    /// Seeds the state with five words, each in `0..2^31-1`, not all zero.
    pub fn new(seed: [u32; 5]) -> Result<Self, InvalidSeed> {
        if seed.iter().any(|&s| s >= MODULUS) || seed.iter().all(|&s| s == 0) {
            return Err(InvalidSeed { seed });
        }
        Ok(MrgState { z: seed })
    }

    /// The state Graph500 derives from its two 64-bit user seeds: the low
    /// and next 30 bits of each seed plus one, and a fifth word from their
    /// top four bits. Every pair of `u64`s gives a valid state.
    pub fn from_user_seeds(seed1: u64, seed2: u64) -> Self {
        const MASK30: u64 = 0x3FFF_FFFF;
        let z = [
            (seed1 & MASK30) as u32 + 1,
            ((seed1 >> 30) & MASK30) as u32 + 1,
            (seed2 & MASK30) as u32 + 1,
            ((seed2 >> 30) & MASK30) as u32 + 1,
            (((seed2 >> 60) << 4) + (seed1 >> 60)) as u32 + 1,
        ];
        MrgState { z }
    }

    /// The five state words `(z1, .., z5)`, newest first.
    pub fn words(&self) -> [u32; 5] {
        self.z
    }

    /// Advances one step and returns the new value, in `0..2^31-1`.
    #[inline(always)]
    pub fn next_uint(&mut self) -> u32 {
        let [z1, z2, z3, z4, z5] = self.z;
        let x = z1 as u64 * MULT_X as u64 + z5 as u64 * MULT_Y as u64; // < 2^59
        let new = reduce(x);
        self.z = [new, z1, z2, z3, z4];
        new
    }

    /// A double in `[0, 1)` from two consecutive outputs `a` then `b`:
    /// `a / P + b / P^2`. (The reference's C expression leaves the order of
    /// its two calls unspecified; the reference vectors' roots fix it to
    /// this one.)
    #[inline]
    pub fn next_double(&mut self) -> f64 {
        let a = self.next_uint();
        let b = self.next_uint();
        a as f64 * INV_P + b as f64 * INV_P2
    }

    /// A float from one output `x`: `x` rounded to `f32`, times `1/P` in
    /// `f64`, rounded to `f32`. This is the Graph500 SSSP edge weight; its
    /// range is `[0, 1]` (the top outputs round to exactly `1.0`).
    #[inline(always)]
    pub fn next_float(&mut self) -> f32 {
        weight_from(self.next_uint())
    }

    /// Jumps ahead by `distance` steps, as if `next_uint` had been called
    /// that many times (the 192-bit count is taken literally, not reduced
    /// modulo the period).
    pub fn skip(&mut self, distance: Distance) {
        let tables = skip_tables();
        for (word_index, word) in [distance.low, distance.mid, distance.high]
            .into_iter()
            .enumerate()
        {
            let mut w = word;
            let mut digit = word_index * 16;
            while w != 0 {
                let d = (w & 0xF) as usize;
                if d != 0 {
                    self.z = tables.pow[digit][d - 1].apply(&self.z);
                }
                w >>= 4;
                digit += 1;
            }
        }
    }

    /// Advances by `2^64` steps (from one edge's stream to the next).
    #[inline(always)]
    pub(crate) fn apply(&mut self, t: &Transition) {
        self.z = t.apply(&self.z);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plain `%`-based reference for the modular step.
    fn naive_step(z: [u32; 5]) -> [u32; 5] {
        let p = MODULUS as u64;
        let x = (z[0] as u64 * MULT_X as u64 % p + z[4] as u64 * MULT_Y as u64) % p;
        [x as u32, z[0], z[1], z[2], z[3]]
    }

    #[test]
    fn reduce_matches_remainder() {
        let p = MODULUS as u64;
        let samples = [
            0u64,
            1,
            p - 1,
            p,
            p + 1,
            2 * p,
            (p - 1) * (p - 1),
            u64::MAX,
            u64::MAX - 1,
            1 << 63,
            (1 << 62) + 12345,
            0xDEAD_BEEF_CAFE_F00D,
        ];
        for &x in &samples {
            assert_eq!(reduce(x) as u64, x % p, "x = {x}");
        }
        let mut s = MrgState::from_user_seeds(7, 11);
        for _ in 0..100_000 {
            let x = (s.next_uint() as u64) << 33 | s.next_uint() as u64;
            assert_eq!(reduce(x) as u64, x % p);
        }
    }

    #[test]
    fn step_matches_naive_definition() {
        let mut s = MrgState::from_user_seeds(2, 3);
        let mut z = s.words();
        for _ in 0..10_000 {
            z = naive_step(z);
            assert_eq!(s.next_uint(), z[0]);
            assert_eq!(s.words(), z);
        }
    }

    #[test]
    fn step_matrix_is_one_step() {
        let mut s = MrgState::from_user_seeds(5, 9);
        let z = Transition::STEP.apply(&s.words());
        s.next_uint();
        assert_eq!(s.words(), z);
    }

    #[test]
    fn user_seed_spreading() {
        assert_eq!(MrgState::from_user_seeds(2, 3).words(), [3, 1, 4, 1, 1]);
        let s = MrgState::from_user_seeds(u64::MAX, u64::MAX).words();
        assert_eq!(s, [1 << 30, 1 << 30, 1 << 30, 1 << 30, 256]);
        assert!(s.iter().all(|&w| w < MODULUS && w > 0));
    }

    #[test]
    fn skip_equals_stepping() {
        for n in [
            0u64, 1, 2, 5, 15, 16, 17, 255, 256, 1000, 4097, 65_535, 100_003,
        ] {
            let mut a = MrgState::from_user_seeds(2, 3);
            let mut b = a;
            for _ in 0..n {
                a.next_uint();
            }
            b.skip(Distance::steps(n));
            assert_eq!(a, b, "n = {n}");
        }
    }

    #[test]
    fn skip_is_additive_across_words() {
        // (mid = 3, low = 5) == skip 5, then 2^64 three times, in any order.
        let base = MrgState::from_user_seeds(2, 3);
        let mut a = base;
        a.skip(Distance {
            high: 1,
            mid: 3,
            low: 5,
        });
        let mut b = base;
        for _ in 0..3 {
            b.apply(edge_stride());
        }
        b.skip(Distance {
            high: 1,
            mid: 0,
            low: 0,
        });
        b.skip(Distance::steps(5));
        assert_eq!(a, b);
        // 2^64 = 16^16 steps, also via a repeated-squaring power of A.
        let mut c = base;
        c.apply(&Transition::STEP.pow(1 << 32).pow(1 << 32));
        let mut d = base;
        d.skip(Distance {
            high: 0,
            mid: 1,
            low: 0,
        });
        assert_eq!(c, d);
        // Crossing a word boundary: 2^64 - 1 steps then one more.
        let mut e = base;
        e.skip(Distance::steps(u64::MAX));
        e.next_uint();
        assert_eq!(e, d);
    }

    #[test]
    fn matrix_power_laws() {
        let a = Transition::STEP;
        assert_eq!(a.pow(0), Transition::IDENTITY);
        assert_eq!(a.pow(7).mul(&a.pow(9)), a.pow(16));
        assert_eq!(a.pow(12345).mul(&a.pow(54321)), a.pow(66666));
        // The tables hold A^(j * 16^k).
        let t = skip_tables();
        assert_eq!(t.pow[0][0], a);
        assert_eq!(t.pow[1][2], a.pow(48));
        assert_eq!(t.pow[3][14], a.pow(15 * 4096));
    }

    #[test]
    fn seed_validation() {
        assert!(MrgState::new([0; 5]).is_err());
        assert!(MrgState::new([MODULUS, 1, 1, 1, 1]).is_err());
        let err = MrgState::new([0; 5]).unwrap_err().to_string();
        assert!(err.contains("not all may be zero"), "{err}");
        assert_eq!(
            MrgState::new([3, 1, 4, 1, 1]).unwrap(),
            MrgState::from_user_seeds(2, 3)
        );
    }

    #[test]
    fn double_and_float_ranges() {
        let mut s = MrgState::from_user_seeds(2, 3);
        for _ in 0..10_000 {
            let d = s.next_double();
            assert!((0.0..1.0).contains(&d));
            let f = s.next_float();
            assert!((0.0..=1.0).contains(&f));
        }
    }
}
