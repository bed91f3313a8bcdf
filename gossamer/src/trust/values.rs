//! Codec helpers: how return values and payloads are written into response and
//! request records (plain bytes for `Copy` values, a length-prefixed postcard
//! encoding for serde values) and read back, e.g. into a parked fiber's frame.

use crate::codec;
use crate::slot::{pad8, AlignedBuf, Reader};
use serde::{de::DeserializeOwned, Serialize};

#[inline(always)]
pub(crate) fn put_value<U: Copy>(out: &mut AlignedBuf, u: U) {
    if size_of::<U>() == 0 {
        return;
    }
    let d = out.reserve(pad8(size_of::<U>()));
    // SAFETY: `reserve` returned room for `pad8(size_of U)` bytes.
    unsafe { (d as *mut U).write_unaligned(u) };
}

pub(super) fn put_serde<U: Serialize>(out: &mut AlignedBuf, u: &U) {
    let mut tmp = Vec::new();
    codec::encode_into(u, &mut tmp)
        .unwrap_or_else(|e| panic!("gossamer: could not encode a return value: {e}"));
    let d = out.reserve(8);
    // SAFETY: 8 bytes reserved, 8-aligned.
    unsafe { (d as *mut u64).write(tmp.len() as u64) };
    out.extend(tmp.as_ptr(), tmp.len());
}

pub(crate) fn read_serde<U: DeserializeOwned>(r: &mut Reader) -> U {
    let (p, n) = r.bytes();
    // SAFETY: the reader's bytes are valid for its lifetime.
    let s = unsafe { std::slice::from_raw_parts(p, n) };
    codec::decode(s)
        .unwrap_or_else(|e| panic!("gossamer: could not decode a value from a slot: {e}"))
}

/// Reads a `U` response value into a parked fiber's `MaybeUninit<U>` (the `read`
/// of a `Cont::Wake`).
///
/// # Safety
/// `r` must be positioned at a `U` written by `put_value::<U>`, and `out` must be
/// valid for writes of a `U` and aligned for it (the fiber's `MaybeUninit<U>`,
/// alive while the fiber is parked); whatever `out` held is overwritten, not dropped.
pub(super) unsafe fn read_into<U: Copy>(r: &mut Reader, out: *mut u8) {
    // SAFETY: the response holds a U written by `put_value::<U>`, and `out` is valid
    // and aligned for a U (caller contract).
    unsafe { (out as *mut U).write(r.value::<U>()) };
}

/// Decodes a serialized response value into a parked fiber's `MaybeUninit<U>`
/// (the `read` of a `Cont::Wake` for `apply_returning`).
///
/// # Safety
/// `out` must be valid for writes of a `U` and aligned for it (the fiber's
/// `MaybeUninit<U>`, alive while the fiber is parked); whatever it held is
/// overwritten, not dropped. Malformed bytes at `r` panic; they are not UB.
pub(super) unsafe fn read_serde_into<U: DeserializeOwned>(r: &mut Reader, out: *mut u8) {
    // SAFETY: `out` is valid and aligned for a U (caller contract).
    unsafe { (out as *mut U).write(read_serde::<U>(r)) };
}

/// How a request's answer is read back on the client: as plain bytes
/// ([`Plain`], written by `put_value`) or serialized ([`Serde`], by `put_serde`).
/// The apply family picks one per form.
pub(super) trait Decode<U> {
    /// Reads the answer at the cursor.
    ///
    /// # Safety
    /// `r` must be positioned at a `U` written the way this decoder reads it
    /// (malformed serialized bytes only panic).
    unsafe fn read(r: &mut Reader) -> U;

    /// Reads the answer into a parked fiber's `MaybeUninit<U>` (the `read` of a
    /// `Cont::Wake`).
    ///
    /// # Safety
    /// As for [`Decode::read`], and `out` must be valid for writes of a `U` and
    /// aligned for it; whatever it held is overwritten, not dropped.
    unsafe fn read_into(r: &mut Reader, out: *mut u8);
}

/// Answers written with `put_value` (`Copy` results).
pub(super) struct Plain;

impl<U: Copy> Decode<U> for Plain {
    #[inline(always)]
    unsafe fn read(r: &mut Reader) -> U {
        // SAFETY: a U written by `put_value` is at the cursor (caller contract).
        unsafe { r.value::<U>() }
    }
    #[inline(always)]
    unsafe fn read_into(r: &mut Reader, out: *mut u8) {
        // SAFETY: the caller's contract is `read_into`'s.
        unsafe { read_into::<U>(r, out) }
    }
}

/// Answers written with `put_serde` (variable-size results).
pub(super) struct Serde;

impl<U: DeserializeOwned> Decode<U> for Serde {
    #[inline(always)]
    unsafe fn read(r: &mut Reader) -> U {
        read_serde::<U>(r)
    }
    #[inline(always)]
    unsafe fn read_into(r: &mut Reader, out: *mut u8) {
        // SAFETY: the caller's contract is `read_serde_into`'s.
        unsafe { read_serde_into::<U>(r, out) }
    }
}
