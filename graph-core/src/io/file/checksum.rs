//! A fast 64-bit checksum for graph files (own design, not cryptographic).
//!
//! The data is cut into fixed 1 MiB chunks; each chunk is hashed with four
//! independent 64-bit lanes (multiply-rotate rounds, 32 bytes per step), and
//! the chunk digests are folded in order. The chunking is fixed, so the
//! result does not depend on the number of threads; chunks are hashed in
//! parallel with rayon, which matters at multi-GB sizes, or by the trustees
//! of a distributed build, each the chunks that start in its slice of the
//! records ([`chunk_digest`], [`fold`]).

use rayon::prelude::*;

const P1: u64 = 0x9E37_79B9_7F4A_7C15;
const P2: u64 = 0xC2B2_AE3D_27D4_EB4F;
const P3: u64 = 0x1656_67B1_9E37_79F9;
/// Bytes per chunk; the last chunk may be shorter.
pub(crate) const CHUNK: usize = 1 << 20;

#[inline]
fn round(acc: u64, word: u64) -> u64 {
    (acc ^ word.wrapping_mul(P1))
        .rotate_left(31)
        .wrapping_mul(P2)
}

#[inline]
fn finish(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(P2);
    h ^= h >> 29;
    h = h.wrapping_mul(P3);
    h ^ (h >> 32)
}

#[inline]
fn word(b: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w[..b.len()].copy_from_slice(b);
    u64::from_le_bytes(w)
}

/// Digest of one chunk; `index` makes equal chunks at different places differ.
pub(crate) fn chunk_digest(data: &[u8], index: u64) -> u64 {
    let seed = index.wrapping_mul(P3) ^ data.len() as u64;
    let mut lanes = [seed ^ P1, seed ^ P2, seed ^ P3, seed.rotate_left(17)];
    let mut blocks = data.chunks_exact(32);
    for block in &mut blocks {
        for (k, lane) in lanes.iter_mut().enumerate() {
            *lane = round(*lane, word(&block[8 * k..8 * k + 8]));
        }
    }
    let mut h = lanes[0]
        .rotate_left(1)
        .wrapping_add(lanes[1].rotate_left(7))
        .wrapping_add(lanes[2].rotate_left(12))
        .wrapping_add(lanes[3].rotate_left(18));
    for tail in blocks.remainder().chunks(8) {
        h = round(h, word(tail) ^ ((tail.len() as u64) << 56));
    }
    finish(h)
}

/// Number of chunks of `len` bytes: at least one (empty data has one,
/// empty chunk).
pub(crate) fn chunk_count(len: usize) -> usize {
    len.div_ceil(CHUNK).max(1)
}

/// The checksum of `len` bytes whose chunks have `digests`, in order.
pub(crate) fn fold(len: usize, digests: impl IntoIterator<Item = u64>) -> u64 {
    let mut h = P3 ^ len as u64;
    for d in digests {
        h = round(h, d);
    }
    finish(h ^ len as u64)
}

/// 64-bit checksum of `data` (parallel over 1 MiB chunks).
pub fn checksum64(data: &[u8]) -> u64 {
    let digests: Vec<u64> = if data.len() > CHUNK {
        data.par_chunks(CHUNK)
            .enumerate()
            .map(|(i, c)| chunk_digest(c, i as u64))
            .collect()
    } else {
        vec![chunk_digest(data, 0)]
    };
    fold(data.len(), digests)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_single_bit_flips_and_length_changes() {
        let data: Vec<u8> = (0..(3 * CHUNK + 77))
            .map(|i| (i * 31 % 251) as u8)
            .collect();
        let base = checksum64(&data);
        assert_eq!(base, checksum64(&data.clone()));
        for pos in [
            0,
            5,
            31,
            32,
            CHUNK - 1,
            CHUNK,
            2 * CHUNK + 3,
            data.len() - 1,
        ] {
            let mut d = data.clone();
            d[pos] ^= 1;
            assert_ne!(checksum64(&d), base, "flip at {pos}");
        }
        assert_ne!(checksum64(&data[..data.len() - 1]), base);
        assert_ne!(checksum64(&[]), checksum64(&[0]));
        assert_ne!(checksum64(&[0]), checksum64(&[0, 0]));
    }

    #[test]
    fn swapped_chunks_differ() {
        let mut data = vec![1u8; 2 * CHUNK];
        data[..CHUNK].fill(2);
        let a = checksum64(&data);
        data.rotate_left(CHUNK);
        assert_ne!(a, checksum64(&data));
    }
}
