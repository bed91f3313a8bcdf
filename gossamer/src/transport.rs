//! The one primitive the runtime needs from a transport, and its in-process version.
//!
//! The worker loop only ever (a) writes the used part of a batch into the peer's
//! slot memory, ready word last, and (b) polls its *own* slot memory for a new ready
//! word. Closures and payloads are read out of slot bytes, never out of the client's
//! memory, so a shared-memory, TCP or RDMA transport can be put under the same trait
//! without touching the trustee loop (the rack issue).
//!
//! A transport may also keep *marks*: one bit per writer, set after it publishes
//! a batch, so that a worker finds its new batches without reading every slot's
//! ready word. With many workers that scan was most of the run (one cache and
//! TLB miss per peer per loop turn); with marks a turn costs one word per 64
//! peers. RDMA writes cannot set them, so it keeps the scan. Jobs of up to
//! [`Config::marks_min_workers`](crate::Config::marks_min_workers) workers keep it too: a scan of a few slots is cheaper
//! than a shared mark word that both sides of every batch touch (2 ranks x 1
//! worker: BFS 18% slower with marks).

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
    /// The marks of the slots `dir` at `me` (bit `w % 64` of word `w / 64` set
    /// after writer `w` published a batch there), or `None` when this transport
    /// keeps none and every slot must be polled.
    fn marks(&self, dir: Dir, me: usize) -> Option<&[AtomicU64]> {
        let _ = (dir, me);
        None
    }
    /// Moves what has arrived from other ranks into this rank's slots, without
    /// blocking; true when something arrived. Transports whose peers write the
    /// slots directly (local, shm, rdma) have nothing to do.
    fn pump(&self) -> bool {
        false
    }
    /// Called by a worker about to sleep, after its sleeping word is set: a
    /// transport that [`pump`](Transport::pump)s must now deliver (and wake) by
    /// other means until the worker wakes.
    fn arm(&self) {}
}

/// Sets writer `from`'s mark in `marks`; call after the batch's ready word.
#[inline]
pub(crate) fn set_mark(marks: &[AtomicU64], from: usize) {
    marks[from / 64].fetch_or(1 << (from % 64), Ordering::Release);
}

/// Clears the marks that are set and calls `f` with each marked writer. A batch
/// published after its mark was taken sets it again, so none is missed; a mark
/// may name a slot already read (the caller's poll says so).
#[inline]
pub(crate) fn take_marks(marks: &[AtomicU64], mut f: impl FnMut(usize)) {
    for (i, word) in marks.iter().enumerate() {
        if word.load(Ordering::Relaxed) == 0 {
            continue;
        }
        let mut bits = word.swap(0, Ordering::Acquire);
        while bits != 0 {
            f(i * 64 + bits.trailing_zeros() as usize);
            bits &= bits - 1;
        }
    }
}

/// True when any mark is set.
#[inline]
pub(crate) fn any_mark(marks: &[AtomicU64]) -> bool {
    marks.iter().any(|w| w.load(Ordering::Acquire) != 0)
}

/// Words of marks for `n` writers.
pub(crate) fn mark_words(n: usize) -> usize {
    n.div_ceil(64)
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
    /// Whether writers set marks (see the module docs).
    keep_marks: bool,
    requests: Vec<SlotMem>,
    responses: Vec<SlotMem>,
    /// Marks, `[dir][owner][word]`.
    marks: Vec<AtomicU64>,
}

// SAFETY: slot memory is shared between worker threads under the slot protocol: a
// writer writes only while the slot is free (the reader has answered or consumed the
// previous batch, observed through an acquire load), and publishes with a release
// store of the ready word; the reader reads only after an acquire load of that word.
unsafe impl Sync for InProcess {}
// SAFETY: as above; the memory is plain bytes.
unsafe impl Send for InProcess {}

impl InProcess {
    /// `n x n` slots of `slot_size` bytes each way; marks kept when `keep_marks`.
    pub(crate) fn new(n: usize, slot_size: usize, keep_marks: bool) -> Self {
        InProcess {
            n,
            size: slot_size,
            keep_marks,
            requests: (0..n * n).map(|_| SlotMem::new(slot_size)).collect(),
            responses: (0..n * n).map(|_| SlotMem::new(slot_size)).collect(),
            marks: (0..2 * n * mark_words(n))
                .map(|_| AtomicU64::new(0))
                .collect(),
        }
    }
    fn marks_of(&self, dir: Dir, owner: usize) -> &[AtomicU64] {
        let w = mark_words(self.n);
        let d = match dir {
            Dir::Request => 0,
            Dir::Response => 1,
        };
        let i = (d * self.n + owner) * w;
        &self.marks[i..i + w]
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
        if self.keep_marks {
            set_mark(self.marks_of(dir, to), from);
        }
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

    fn marks(&self, dir: Dir, me: usize) -> Option<&[AtomicU64]> {
        self.keep_marks.then(|| self.marks_of(dir, me))
    }
}

#[cfg(test)]
mod mark_tests {
    use super::*;
    use crate::slot::BatchWriter;

    #[test]
    fn a_write_marks_its_writer_at_the_owner_only() {
        let n = 40;
        let t = InProcess::new(n, 256, true);
        let b = BatchWriter::new(256);
        let body = Body {
            ptr: b.buf.as_ptr(),
            len: b.buf.len(),
        };
        t.write(Dir::Request, n - 1, 1, body, &b.header(0), 1);
        assert!(!any_mark(t.marks(Dir::Request, 0).unwrap()));
        assert!(!any_mark(t.marks(Dir::Response, 1).unwrap()));
        let mut marked = Vec::new();
        take_marks(t.marks(Dir::Request, 1).unwrap(), |w| marked.push(w));
        assert_eq!(marked, vec![n - 1]);
        assert!(!any_mark(t.marks(Dir::Request, 1).unwrap()));
        assert!(t.poll(Dir::Request, 1, n - 1, 0).is_some());
    }

    #[test]
    fn marks_name_each_writer_once_across_words() {
        let marks: Vec<AtomicU64> = (0..mark_words(130)).map(|_| AtomicU64::new(0)).collect();
        assert_eq!(marks.len(), 3);
        for w in [0, 63, 64, 129, 63] {
            set_mark(&marks, w);
        }
        let mut seen = Vec::new();
        take_marks(&marks, |w| seen.push(w));
        assert_eq!(seen, vec![0, 63, 64, 129]);
        assert!(!any_mark(&marks));
        take_marks(&marks, |_| panic!("nothing is marked"));
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
        let t = InProcess::new(2, 256, false);
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
        // Two workers scan their slots: no marks.
        assert!(t.marks(Dir::Request, 1).is_none());
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
