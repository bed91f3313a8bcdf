//! The one primitive the runtime needs from a transport, and its in-process version.
//!
//! The worker loop only ever (a) writes the used part of a batch into the peer's
//! slot memory, ready word last, and (b) polls its *own* slot memory for a new ready
//! word. Closures and payloads are read out of slot bytes, never out of the client's
//! memory, so a shared-memory, TCP or RDMA transport can be put under the same trait
//! without touching the trustee loop (the rack issue).

use crate::slot::{self, Header, HEADER_BYTES, HEADER_SIZE, OFF_SEQ};
use std::cell::UnsafeCell;
use std::ptr;
use std::sync::atomic::{AtomicU64, Ordering};

/// Which square of slots: requests live at the trustee, responses at the client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dir {
    Request,
    Response,
}

/// A view of a slot in local memory, valid until the peer may write it again
/// (i.e. until this side answers the batch).
#[derive(Clone, Copy)]
pub(crate) struct SlotView {
    pub base: *const u8,
    pub size: usize,
}

impl SlotView {
    /// Parses the header of the batch in this slot.
    pub(crate) fn header(&self) -> Result<(Header, usize), slot::SlotError> {
        // SAFETY: `base` points at `size` bytes of this side's slot memory, which the
        // peer does not write while we hold an unanswered batch (slot protocol).
        // Only the header region (always fully written) is viewed as bytes.
        let end = unsafe {
            std::slice::from_raw_parts(self.base.add(self.size - HEADER_SIZE), HEADER_SIZE)
        };
        Header::from_end(end, self.size)
    }
}

/// Moves batches between workers' slot memories.
pub(crate) trait Transport: Send + Sync {
    /// Places `len` bytes at `body` so they end where the header starts in the slot
    /// `dir` of the pair (`from` -> `to`), then the header, then `seq` in the ready
    /// word, last, with release ordering. The slot must be free (its previous batch
    /// answered).
    fn write(&self, dir: Dir, from: usize, to: usize, body: Body, header: &Header, seq: u64);
    /// Polls the slot `dir` that `peer` writes into at `me`. Returns the new ready
    /// word and a view of the slot when it differs from `seen`.
    fn poll(&self, dir: Dir, me: usize, peer: usize, seen: u64) -> Option<(u64, SlotView)>;
}

/// The used bytes of a batch: `len` bytes at `ptr` (8-aligned, `len` a multiple of 8).
#[derive(Clone, Copy)]
pub(crate) struct Body {
    pub ptr: *const u8,
    pub len: usize,
}

/// One slot of memory, 64-byte aligned, the ready word in its last 8 bytes.
struct SlotMem {
    words: Box<[UnsafeCell<u64>]>,
}

impl SlotMem {
    fn new(size: usize) -> Self {
        SlotMem {
            words: (0..size / 8).map(|_| UnsafeCell::new(0)).collect(),
        }
    }
    fn base(&self) -> *mut u8 {
        self.words.as_ptr() as *mut u8
    }
    fn ready(&self) -> &AtomicU64 {
        let last = self.words.last().expect("slot has words");
        // SAFETY: the last word is 8-aligned, lives as long as `self`, and is only
        // ever accessed atomically (through this function).
        unsafe { AtomicU64::from_ptr(last.get()) }
    }
}

/// All slots of one machine, in process memory: `n x n` request slots and `n x n`
/// response slots.
pub(crate) struct InProcess {
    n: usize,
    size: usize,
    requests: Vec<SlotMem>,
    responses: Vec<SlotMem>,
}

// SAFETY: slot memory is shared between worker threads under the slot protocol: a
// writer writes only while the slot is free (the reader has answered or consumed the
// previous batch, observed through an acquire load), and publishes with a release
// store of the ready word; the reader reads only after an acquire load of that word.
unsafe impl Sync for InProcess {}
// SAFETY: as above; the memory is plain bytes.
unsafe impl Send for InProcess {}

impl InProcess {
    pub(crate) fn new(n: usize, slot_size: usize) -> Self {
        InProcess {
            n,
            size: slot_size,
            requests: (0..n * n).map(|_| SlotMem::new(slot_size)).collect(),
            responses: (0..n * n).map(|_| SlotMem::new(slot_size)).collect(),
        }
    }
    /// The slot owned by `owner` that `writer` writes into.
    fn slot(&self, dir: Dir, owner: usize, writer: usize) -> &SlotMem {
        let i = owner * self.n + writer;
        match dir {
            Dir::Request => &self.requests[i],
            Dir::Response => &self.responses[i],
        }
    }
}

impl Transport for InProcess {
    #[inline]
    fn write(&self, dir: Dir, from: usize, to: usize, body: Body, header: &Header, seq: u64) {
        let Body { ptr: body, len } = body;
        let s = self.slot(dir, to, from);
        let cap = slot::data_capacity(self.size);
        assert!(
            len <= cap && len % 8 == 0,
            "batch of {len} bytes does not fit a {} byte slot",
            self.size
        );
        let hb = header.encode(self.size);
        // SAFETY: the slot is free (caller contract, slot protocol), so no one reads
        // these bytes concurrently; the ranges are inside the slot's allocation and do
        // not overlap `body` (a local staging buffer).
        unsafe {
            ptr::copy_nonoverlapping(body, s.base().add(cap - len), len);
            ptr::copy_nonoverlapping(
                hb.as_ptr(),
                s.base().add(self.size - HEADER_SIZE),
                HEADER_BYTES,
            );
        }
        debug_assert_eq!(self.size - OFF_SEQ, self.size - HEADER_SIZE + HEADER_BYTES);
        s.ready().store(seq, Ordering::Release);
    }

    #[inline]
    fn poll(&self, dir: Dir, me: usize, peer: usize, seen: u64) -> Option<(u64, SlotView)> {
        let s = self.slot(dir, me, peer);
        let seq = s.ready().load(Ordering::Acquire);
        (seq != seen).then(|| {
            (
                seq,
                SlotView {
                    base: s.base(),
                    size: self.size,
                },
            )
        })
    }
}

#[cfg(test)]
// SAFETY (whole module): every Reader/raw access below points into a live, 8-aligned
// buffer owned by the test, at offsets the matching writer produced.
mod tests {
    use super::*;
    use crate::slot::{AlignedBuf, BatchWriter, Reader, RECORD_HEADER};

    #[test]
    fn write_then_poll_sees_end_aligned_batch() {
        let t = InProcess::new(2, 256);
        assert!(t.poll(Dir::Request, 1, 0, 0).is_none());
        let mut b = BatchWriter::new(256);
        let mut w = b.record(77, 88, RECORD_HEADER + 8);
        w.put_u64(99);
        let h = b.header(0);
        t.write(
            Dir::Request,
            0,
            1,
            Body {
                ptr: b.buf.as_ptr(),
                len: b.buf.len(),
            },
            &h,
            1,
        );
        let (seq, view) = t.poll(Dir::Request, 1, 0, 0).expect("batch visible");
        assert_eq!(seq, 1);
        assert!(t.poll(Dir::Request, 1, 0, 1).is_none());
        let (hh, start) = view.header().unwrap();
        assert_eq!(hh.count, 1);
        assert_eq!(start, 256 - 64 - 24);
        // SAFETY: the view covers the whole slot in the transport's 8-aligned memory,
        // which outlives `r`; the data starts at `start` and spans `data_len` bytes.
        let mut r = unsafe { Reader::new(view.base.add(start), hh.data_len as usize) };
        assert_eq!(hh.resolve(r.u64()), 77);
        assert_eq!(r.u64(), 88);
        assert_eq!(r.u64(), 99);
        let _ = AlignedBuf::default();
    }
}
