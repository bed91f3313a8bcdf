//! Shared views of the adjacency arrays for the parallel scatter.
//!
//! The chunks of the scatter write interleaved positions of the same
//! arrays; safe Rust can only split a slice into contiguous pieces, so the
//! arrays are viewed as `AtomicU32` cells for the duration of the scatter
//! and written with relaxed stores (plain stores on common hardware). Even
//! if two chunks ever wrote the same cell this would be a wrong result, not
//! a data race.

use std::mem::{align_of, size_of};
use std::sync::atomic::AtomicU32;

const _: () = assert!(size_of::<AtomicU32>() == size_of::<u32>());
const _: () = assert!(align_of::<AtomicU32>() == align_of::<u32>());
const _: () = assert!(size_of::<AtomicU32>() == size_of::<f32>());
const _: () = assert!(align_of::<AtomicU32>() == align_of::<f32>());

/// `xs` as atomic cells, borrowed exclusively for the view's life.
pub(super) fn of_u32(xs: &mut [u32]) -> &[AtomicU32] {
    // SAFETY: `AtomicU32` has the same size and bit validity as `u32`
    // (std docs) and, checked above at compile time, the same
    // alignment, so the pointer and length describe valid cells. The
    // exclusive borrow of `xs` lasts as long as the returned view, so
    // no non-atomic access can happen while it exists.
    unsafe { &*(xs as *mut [u32] as *const [AtomicU32]) }
}

/// `xs` (as raw bits) as atomic cells, borrowed exclusively.
pub(super) fn of_f32(xs: &mut [f32]) -> &[AtomicU32] {
    // SAFETY: `f32` has the size and (checked above) alignment of
    // `AtomicU32`, and every `u32` bit pattern is a valid `f32`, so
    // whatever is stored reads back as an `f32`. The exclusive borrow
    // of `xs` lasts as long as the view, as in `of_u32`.
    unsafe { &*(xs as *mut [f32] as *const [AtomicU32]) }
}
