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

use super::layout::{marks_at, place, ready, Layout};
use super::tcp::Links;
use crate::slot::Header;
use crate::transport::{set_mark, Body, Dir, SlotView, Transport};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

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
            if l.marks {
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
        if !l.marks {
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
            marks: false,
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
            marks: true,
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
