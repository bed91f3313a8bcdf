//! Where a rack's slots sit in memory: the geometry of a rank's slot rows and their
//! marks ([`Layout`]), a slot's ready word, and placing a batch into a slot. The
//! transports (`slots` for shm and tcp, `tcp`, `rdma`) all write through these.

use crate::slot::{data_capacity, Header, HEADER_BYTES, HEADER_SIZE};
use crate::transport::{mark_words, Body, Dir};
use std::sync::atomic::{AtomicU64, Ordering};

/// Geometry of the slot rows: `t` workers per rank, `n` workers in all, slots of
/// `size` bytes, with or without marks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    pub t: usize,
    pub n: usize,
    pub size: usize,
    /// Whether writers set marks ([`Config::marks_wanted`](crate::Config::marks_wanted)
    /// of `n`; the same on every rank).
    pub marks: bool,
}

impl Layout {
    /// Bytes of one rank's rows and their marks (see `transport`): the slots,
    /// then one bit per writer for each slot row, `[dir][owner - first local
    /// worker][word]`.
    pub(crate) fn region_bytes(&self) -> usize {
        self.rows_bytes() + (2 * self.t * mark_words(self.n) * 8).next_multiple_of(64)
    }
    fn rows_bytes(&self) -> usize {
        2 * self.t * self.n * self.size
    }
    /// Offset inside a rank's region of the marks of `owner_local`'s slots `dir`
    /// (`mark_words(n)` 8-aligned words).
    #[inline(always)]
    pub(crate) fn marks_offset(&self, dir: Dir, owner_local: usize) -> usize {
        let d = match dir {
            Dir::Request => 0,
            Dir::Response => 1,
        };
        self.rows_bytes() + (d * self.t + owner_local) * mark_words(self.n) * 8
    }
    /// Offset inside a rank's rows of the slot of `owner_local` written by `writer`.
    #[inline(always)]
    pub(crate) fn offset(&self, dir: Dir, owner_local: usize, writer: usize) -> usize {
        let d = match dir {
            Dir::Request => 0,
            Dir::Response => 1,
        };
        ((d * self.t + owner_local) * self.n + writer) * self.size
    }
    /// Bytes of futex words in front of the rows in a shared file (page-rounded).
    pub(crate) fn words_bytes(&self) -> usize {
        (self.n * 4).div_ceil(4096) * 4096
    }
    /// Offset of rank `r`'s rows in a shared file.
    pub(crate) fn shm_region(&self, r: usize) -> usize {
        self.words_bytes() + r * self.region_bytes()
    }
    /// Size of the shared file for `ranks` ranks.
    pub(crate) fn shm_bytes(&self, ranks: usize) -> usize {
        self.shm_region(ranks)
    }
}

/// The ready word of the slot at `slot`.
///
/// # Safety
/// `slot` must point at a live, 8-aligned slot of `size` bytes.
#[inline(always)]
pub(crate) unsafe fn ready<'a>(slot: *mut u8, size: usize) -> &'a AtomicU64 {
    // SAFETY: caller contract; the last word is 8-aligned and only accessed atomically.
    unsafe { &*(slot.add(size - 8) as *const AtomicU64) }
}

/// The marks at `offset` of the region at `region`.
///
/// # Safety
/// `region` must point at a live, 64-aligned region of `layout`, and `offset`
/// come from its `marks_offset`.
#[inline(always)]
pub(crate) unsafe fn marks_at<'a>(
    region: *mut u8,
    offset: usize,
    layout: &Layout,
) -> &'a [AtomicU64] {
    // SAFETY: caller contract; the words lie inside the region, are 8-aligned
    // and only ever accessed atomically.
    unsafe {
        std::slice::from_raw_parts(region.add(offset) as *const AtomicU64, mark_words(layout.n))
    }
}

/// Places a batch into the slot at `slot`: body end-aligned, header, then the ready
/// word with release ordering.
///
/// # Safety
/// `slot` must be a live slot of `size` bytes that nobody reads right now (the slot
/// protocol: it is free), `body` valid for `len <= data_capacity(size)` bytes.
#[inline]
pub(crate) unsafe fn place(slot: *mut u8, size: usize, body: Body, header: &Header, seq: u64) {
    let cap = data_capacity(size);
    assert!(
        body.len <= cap && body.len.is_multiple_of(8),
        "batch of {} bytes does not fit a {size} byte slot",
        body.len
    );
    let hb = header.encode(size);
    // SAFETY: caller contract; the ranges are inside the slot and do not overlap the
    // local staging buffer `body`.
    unsafe {
        std::ptr::copy_nonoverlapping(body.ptr, slot.add(cap - body.len), body.len);
        std::ptr::copy_nonoverlapping(hb.as_ptr(), slot.add(size - HEADER_SIZE), HEADER_BYTES);
        ready(slot, size).store(seq, Ordering::Release);
    }
}
