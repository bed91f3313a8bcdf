//! The trustee side: for each client, poll its request slot, run the batch's
//! records (each a `Trampoline` code word, a property and the closure's bytes) in
//! delegated context, and answer in the response slot (in chunks when the answer
//! is bigger than a slot). Chunked requests are reassembled here first.

use super::{panic_message, Delegated, Trampoline, Worker};
use crate::slot::{self, flags, AlignedBuf, Header, Reader};
use crate::stats::StatsCell;
use crate::transport::{take_marks, Body, Dir, SlotView};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The trustee side of one (client -> this worker) pair.
#[derive(Default)]
pub(super) struct Serve {
    pub(super) seen: u64,
    reasm: AlignedBuf,
    /// A response being sent in chunks: bytes, bytes sent, flags of its last chunk.
    pending: Option<(AlignedBuf, usize, u32)>,
}

impl Worker {
    /// Serves every new request batch: the marked clients', or every client's
    /// when the transport keeps no marks.
    pub(super) fn serve_all(&self) -> bool {
        let mut any = false;
        match self.shared.transport.marks(Dir::Request, self.id) {
            Some(marks) => take_marks(marks, |c| any |= self.serve_from(c)),
            None => {
                for c in 0..self.n() {
                    any |= self.serve_from(c);
                }
            }
        }
        any
    }

    fn serve_from(&self, c: usize) -> bool {
        let seen = self.serve.borrow()[c].seen;
        match self.shared.transport.poll(Dir::Request, self.id, c, seen) {
            Some((seq, view)) => {
                self.enter_delegated();
                self.serve.borrow_mut()[c].seen = seq;
                self.serve_batch(c, seq, view);
                true
            }
            None => false,
        }
    }

    fn serve_batch(&self, c: usize, seq: u64, view: SlotView) {
        let (h, start) = match view.header() {
            Ok(x) => x,
            Err(e) => {
                return self.shared.poison(format!(
                    "gossamer: corrupt request slot from worker {c}: {}",
                    e.0
                ))
            }
        };
        if h.flags & flags::CONTINUE != 0 {
            return self.send_response_chunk(c, seq);
        }
        // SAFETY: the header check bounded `start + data_len` by the slot size.
        let data = unsafe { view.base.add(start) };
        let len = h.data_len as usize;
        let mut out = std::mem::take(&mut *self.resp.borrow_mut());
        out.clear();
        let count;
        if h.flags & flags::CHUNK != 0 {
            let mut sv = self.serve.borrow_mut();
            sv[c].reasm.extend(data, len);
            if h.flags & flags::LAST == 0 {
                drop(sv);
                *self.resp.borrow_mut() = out;
                let empty = Header::default();
                self.write(Dir::Response, c, Body { ptr: data, len: 0 }, &empty, seq);
                return;
            }
            let mut whole = std::mem::take(&mut sv[c].reasm);
            drop(sv);
            // A chunked batch holds one full-pointer record (no cache).
            self.run_records(&Header::default(), whole.as_ptr(), whole.len(), 1, &mut out);
            whole.clear();
            self.serve.borrow_mut()[c].reasm = whole;
            count = 1;
        } else {
            self.run_records(&h, data, len, h.count, &mut out);
            count = h.count;
        }
        let bounced = if self.take_bounces(&mut out) {
            flags::BOUNCED
        } else {
            0
        };
        let st = &self.shared.stats[self.id];
        StatsCell::add(&st.requests, count as u64);
        StatsCell::add(&st.batches, 1);
        if self.shared.fate.failed() {
            return;
        }
        let cap = slot::data_capacity(self.shared.slot_size);
        if out.len() <= cap {
            let rh = Header {
                data_len: out.len() as u32,
                count,
                flags: bounced,
                ..Header::default()
            };
            self.write(
                Dir::Response,
                c,
                Body {
                    ptr: out.as_ptr(),
                    len: out.len(),
                },
                &rh,
                seq,
            );
            *self.resp.borrow_mut() = out;
        } else {
            self.serve.borrow_mut()[c].pending = Some((out, 0, bounced));
            *self.resp.borrow_mut() = AlignedBuf::with_capacity(self.shared.slot_size);
            self.send_response_chunk(c, seq);
        }
    }

    fn send_response_chunk(&self, c: usize, seq: u64) {
        let cap = slot::data_capacity(self.shared.slot_size) & !7;
        let mut sv = self.serve.borrow_mut();
        let Some((buf, sent, last_flags)) = sv[c].pending.as_mut() else {
            drop(sv);
            return self.shared.poison(format!(
                "gossamer: worker {c} asked for a response chunk that does not exist"
            ));
        };
        let chunk = (buf.len() - *sent).min(cap);
        let more = *sent + chunk < buf.len();
        let h = Header {
            data_len: chunk as u32,
            flags: if more { flags::MORE } else { *last_flags },
            aux: buf.len() as u64,
            ..Header::default()
        };
        // SAFETY: `sent + chunk <= buf.len()`.
        let p = unsafe { buf.as_ptr().add(*sent) };
        self.write(Dir::Response, c, Body { ptr: p, len: chunk }, &h, seq);
        *sent += chunk;
        if !more {
            sv[c].pending = None;
        }
    }

    fn run_records(
        &self,
        h: &Header,
        data: *const u8,
        len: usize,
        count: u32,
        out: &mut AlignedBuf,
    ) {
        let _d = Delegated::enter(self);
        let res = catch_unwind(AssertUnwindSafe(|| {
            // SAFETY: `data..data+len` is the batch in local slot memory (or our
            // reassembly buffer), 8-aligned, not written until we answer.
            let mut r = unsafe { Reader::new(data, len) };
            for i in 0..count {
                let code = h.resolve(r.u64());
                let prop = r.u64();
                let (lo, hi) = self.shared.place.code_bounds;
                if code < lo || code >= hi {
                    panic!(
                        "rejected a request whose code pointer {code:#x} does not lie in this \
                         binary's text ({lo:#x}..{hi:#x}); was the peer built from the same binary?"
                    );
                }
                let body = r.cursor();
                // SAFETY: code words are addresses of `Trampoline`s written by a
                // gossamer client of this same binary (see `trust/trampolines.rs`); the trampoline
                // reads exactly the record its client wrote.
                let bounced = unsafe {
                    let f: Trampoline = std::mem::transmute::<usize, Trampoline>(code as usize);
                    f(prop, &mut r, out)
                };
                if bounced {
                    self.note_bounce(i, prop, code, body, r.cursor());
                }
            }
        }));
        if let Err(p) = res {
            let msg = panic_message(&*p);
            self.shared.poison(format!(
                "gossamer: a delegated closure panicked on trustee {}: {msg}",
                self.id
            ));
        }
    }
}
