//! Little-endian numbers at byte offsets: how the headers of the graph
//! file and of prepared shards, and GAPBS's serialized graphs, are read
//! and written. Each reads or writes exactly its bytes at `off` and panics
//! beyond the end, as slicing does (the callers check lengths first).

/// The `N` bytes at `off`.
#[inline]
fn bytes_at<const N: usize>(b: &[u8], off: usize) -> [u8; N] {
    let mut w = [0u8; N];
    w.copy_from_slice(&b[off..off + N]);
    w
}

/// The `u32` at `off`.
#[inline]
pub(super) fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(bytes_at(b, off))
}

/// The `u64` at `off`.
#[inline]
pub(super) fn u64_at(b: &[u8], off: usize) -> u64 {
    u64::from_le_bytes(bytes_at(b, off))
}

/// The `i32` at `off`.
#[inline]
pub(super) fn i32_at(b: &[u8], off: usize) -> i32 {
    i32::from_le_bytes(bytes_at(b, off))
}

/// The `i64` at `off`.
#[inline]
pub(super) fn i64_at(b: &[u8], off: usize) -> i64 {
    i64::from_le_bytes(bytes_at(b, off))
}

/// Writes `x` at `off`.
#[inline]
pub(super) fn put_u32(b: &mut [u8], off: usize, x: u32) {
    b[off..off + 4].copy_from_slice(&x.to_le_bytes());
}

/// Writes `x` at `off`.
#[inline]
pub(super) fn put_u64(b: &mut [u8], off: usize, x: u64) {
    b[off..off + 8].copy_from_slice(&x.to_le_bytes());
}
