//! Slot memory of a rack (§4.7) and the transport that writes into it.
//!
//! The whole run has two `n x n` squares of slots (requests, responses), `n` = all
//! workers of all ranks. Each rank holds only the rows it owns: the slots its own
//! `t` workers are written into, `2 x t x n` slots, laid out as
//! `[dir][owner - first local worker][writer]`. A client prepares a batch in local
//! staging memory and the transport puts the used tail plus header into the owner's
//! row, ready word last.
//!
//! - shm: all ranks' rows sit in one shared mapping (after a page of futex words),
//!   so a remote write is a copy followed by a release store of the ready word.
//! - tcp: each rank's rows are private memory; a remote write becomes a frame that
//!   the peer's workers (or its receiver thread, while they sleep) place into its
//!   rows, ready word last.

use super::tcp::Links;
use crate::slot::{data_capacity, Header, HEADER_BYTES, HEADER_SIZE};
use crate::transport::{mark_words, marks_wanted, set_mark, Body, Dir, SlotView, Transport};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Geometry of the slot rows: `t` workers per rank, `n` workers in all, slots of
/// `size` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    pub t: usize,
    pub n: usize,
    pub size: usize,
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

/// A rank's view of the rack's slot memory.
pub(crate) struct RackSlots {
    layout: Layout,
    rank: usize,
    /// Base of each rank's rows in this process (null where not mapped: tcp).
    regions: Vec<*mut u8>,
    tcp: Option<Arc<Links>>,
    _keep: Arc<dyn Send + Sync>,
}

// SAFETY: slot memory is shared under the slot protocol (see transport.rs): a writer
// writes only a free slot and publishes with a release store of the ready word; a
// reader reads after an acquire load. The pointers stay valid while `_keep` lives.
unsafe impl Send for RackSlots {}
// SAFETY: as above.
unsafe impl Sync for RackSlots {}

impl RackSlots {
    /// # Safety
    /// Each non-null `regions[r]` must point at `layout.region_bytes()` bytes,
    /// 64-aligned, kept alive by `keep`, and `regions[rank]` must be non-null.
    pub(crate) unsafe fn new(
        layout: Layout,
        rank: usize,
        regions: Vec<*mut u8>,
        tcp: Option<Arc<Links>>,
        keep: Arc<dyn Send + Sync>,
    ) -> Self {
        assert!(!regions[rank].is_null());
        RackSlots {
            layout,
            rank,
            regions,
            tcp,
            _keep: keep,
        }
    }
}

impl Transport for RackSlots {
    #[inline]
    fn write(&self, dir: Dir, from: usize, to: usize, body: Body, header: &Header, seq: u64) {
        let l = self.layout;
        let (to_rank, owner) = (to / l.t, to % l.t);
        let base = self.regions[to_rank];
        if base.is_null() {
            let links = self.tcp.as_ref().expect("tcp links for unmapped ranks");
            return links.send(to_rank, dir, from, to, body, header, seq);
        }
        // SAFETY: the region is mapped (constructor contract) and the offset lies in
        // it; the slot is free (Transport::write contract).
        unsafe {
            place(
                base.add(l.offset(dir, owner, from)),
                l.size,
                body,
                header,
                seq,
            );
            if marks_wanted(l.n) {
                set_mark(marks_at(base, l.marks_offset(dir, owner), &l), from);
            }
        }
    }

    #[inline]
    fn poll(&self, dir: Dir, me: usize, peer: usize, seen: u64) -> Option<(u64, SlotView)> {
        let l = self.layout;
        debug_assert_eq!(me / l.t, self.rank);
        // SAFETY: our own rows are always mapped; the offset lies inside them.
        let slot = unsafe { self.regions[self.rank].add(l.offset(dir, me % l.t, peer)) };
        // SAFETY: a live slot of `size` bytes.
        let seq = unsafe { ready(slot, l.size) }.load(Ordering::Acquire);
        (seq != seen).then_some((
            seq,
            SlotView {
                base: slot,
                size: l.size,
            },
        ))
    }

    fn pump(&self) -> bool {
        self.tcp.as_ref().is_some_and(|t| t.pump())
    }

    fn arm(&self) {
        if let Some(t) = &self.tcp {
            t.arm();
        }
    }

    fn marks(&self, dir: Dir, me: usize) -> Option<&[AtomicU64]> {
        let l = &self.layout;
        if !marks_wanted(l.n) {
            return None;
        }
        // SAFETY: our own region is always mapped, and the offset is its marks'.
        Some(unsafe { marks_at(self.regions[self.rank], l.marks_offset(dir, me % l.t), l) })
    }
}

/// Private, zeroed, 64-byte aligned memory for a rank's rows (tcp and rdma).
pub(crate) struct LocalRows {
    words: Box<[std::cell::UnsafeCell<[u64; 8]>]>,
}

// SAFETY: the memory is only accessed through raw pointers under the slot protocol.
unsafe impl Send for LocalRows {}
// SAFETY: as above.
unsafe impl Sync for LocalRows {}

impl LocalRows {
    pub(crate) fn new(bytes: usize) -> Self {
        LocalRows {
            words: (0..bytes.div_ceil(64))
                .map(|_| std::cell::UnsafeCell::new([0u64; 8]))
                .collect(),
        }
    }
    pub(crate) fn base(&self) -> *mut u8 {
        self.words.as_ptr() as *mut u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slot::{BatchWriter, Reader, RECORD_HEADER};

    #[test]
    fn layout_rows_tile_each_region_exactly() {
        let l = Layout {
            t: 3,
            n: 9,
            size: 256,
        };
        let mut seen = std::collections::BTreeSet::new();
        for dir in [Dir::Request, Dir::Response] {
            for o in 0..3 {
                for w in 0..9 {
                    let off = l.offset(dir, o, w);
                    assert_eq!(off % 256, 0);
                    assert!(off + 256 <= l.region_bytes());
                    assert!(seen.insert(off));
                }
            }
        }
        let rows = seen.len() * 256;
        // The marks follow the rows: one word (9 writers) per slot row.
        assert_eq!(l.marks_offset(Dir::Request, 0), rows);
        assert_eq!(l.marks_offset(Dir::Response, 2), rows + 5 * 8);
        assert_eq!(l.region_bytes(), rows + 64);
        assert_eq!(l.words_bytes(), 4096);
        assert_eq!(l.shm_region(2), 4096 + 2 * l.region_bytes());
        assert_eq!(l.shm_bytes(3) % 64, 0);
    }

    #[test]
    fn shared_rows_carry_batches_between_ranks() {
        // Two "ranks" of 20 workers each (enough to keep marks), both regions
        // in one buffer, as with shm.
        let l = Layout {
            t: 20,
            n: 40,
            size: 256,
        };
        let mem = Arc::new(LocalRows::new(l.shm_bytes(2)));
        let base = mem.base();
        // SAFETY: both regions lie inside `mem`, which `keep` holds.
        let (r0, r1) = unsafe {
            let regions = vec![base.add(l.shm_region(0)), base.add(l.shm_region(1))];
            (
                RackSlots::new(l, 0, regions.clone(), None, mem.clone()),
                RackSlots::new(l, 1, regions, None, mem.clone()),
            )
        };
        let mut b = BatchWriter::new(256);
        let mut w = b.record(5, 6, RECORD_HEADER + 8);
        w.put_u64(7);
        let body = Body {
            ptr: b.buf.as_ptr(),
            len: b.buf.len(),
        };
        // worker 1 (rank 0) -> worker 23 (rank 1)
        r0.write(Dir::Request, 1, 23, body, &b.header(0), 1);
        assert!(r1.poll(Dir::Request, 23, 0, 0).is_none());
        // The writer marked itself in the owner's marks, in the shared memory.
        let mut marked = Vec::new();
        crate::transport::take_marks(r1.marks(Dir::Request, 23).unwrap(), |w| marked.push(w));
        assert_eq!(marked, vec![1]);
        assert!(!crate::transport::any_mark(
            r1.marks(Dir::Request, 22).unwrap()
        ));
        let (seq, v) = r1.poll(Dir::Request, 23, 1, 0).expect("visible on rank 1");
        assert_eq!(seq, 1);
        let (h, start) = v.header().unwrap();
        // SAFETY: the header bounded the record range inside the slot.
        let mut r = unsafe { Reader::new(v.base.add(start), h.data_len as usize) };
        assert_eq!((h.resolve(r.u64()), r.u64(), r.u64()), (5, 6, 7));
    }
}
