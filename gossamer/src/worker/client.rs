//! The client side: one `Channel` per (this worker -> trustee) pair. Requests are
//! appended to the pair's staging batch (`Worker::enqueue`); sealed batches and
//! large (chunked) requests queue behind the one batch in flight; responses are
//! polled, reassembled when chunked, and their continuations run in request order.

use super::moves::HOLD;
use super::{Cont, Delegated, Worker};
use crate::fiber::{self, Suspend};
use crate::slot::{self, flags, large_record, AlignedBuf, BatchWriter, Header, Reader, Writer};
use crate::transport::{take_marks, Body, Dir, SlotView};
use std::collections::VecDeque;

pub(super) enum Inflight {
    Batch(u32),
    Chunk { last: bool },
}

enum Out {
    Batch(BatchWriter),
    Large { buf: AlignedBuf, sent: usize },
}

/// The client side of one (this worker -> trustee) pair.
pub(super) struct Channel {
    staging: BatchWriter,
    queue: VecDeque<Out>,
    pub(super) inflight: Option<Inflight>,
    pub(super) conts: VecDeque<Cont>,
    reasm: AlignedBuf,
    seq: u64,
    pub(super) resp_seen: u64,
    pub(super) issued: u64,
    /// Requests written to the pair's slot (in issue order, so request `i`
    /// has left once `sent >= i`).
    sent: u64,
    pub(super) completed: u64,
    pool: Vec<BatchWriter>,
}

impl Channel {
    pub(super) fn new(slot_size: usize) -> Self {
        Channel {
            staging: BatchWriter::new(slot_size),
            queue: VecDeque::new(),
            inflight: None,
            conts: VecDeque::new(),
            reasm: AlignedBuf::default(),
            seq: 0,
            resp_seen: 0,
            issued: 0,
            sent: 0,
            completed: 0,
            pool: Vec::new(),
        }
    }
}

impl Worker {
    /// Appends a request of `len` bytes (record header included) for `trustee`.
    /// Returns how many sealed batches wait on that pair. A `trustee` of
    /// `HOLD + t` ([`resolve`](Self::resolve) while this worker chases a moved
    /// property) puts the request in the chase queue instead (`moves.rs`).
    pub(crate) fn enqueue(
        &self,
        trustee: usize,
        code: u64,
        prop: u64,
        len: usize,
        cont: Cont,
        write: impl FnOnce(&mut Writer),
    ) -> usize {
        if trustee >= HOLD {
            return self.hold(trustee - HOLD, prop, code, len, cont, write);
        }
        self.sendable.borrow_mut()[trustee / 64] |= 1 << (trustee % 64);
        let mut ch = self.channels[trustee].borrow_mut();
        let ch = &mut *ch;
        if len > ch.staging.capacity() {
            if !ch.staging.is_empty() {
                Self::seal(ch);
            }
            let mut buf = AlignedBuf::with_capacity(len);
            let mut w = large_record(&mut buf, code, prop, len);
            write(&mut w);
            ch.queue.push_back(Out::Large { buf, sent: 0 });
        } else {
            if ch.staging.remaining() < len {
                if ch.inflight.is_none() && ch.queue.is_empty() {
                    self.send_staging(trustee, ch);
                } else {
                    Self::seal(ch);
                }
            }
            let mut w = ch.staging.record(code, prop, len);
            write(&mut w);
        }
        ch.conts.push_back(cont);
        ch.issued += 1;
        self.outstanding.set(self.outstanding.get() + 1);
        ch.queue.len()
    }

    /// Requests issued for `trustee` so far, and how many of them have been
    /// written to the pair's slot (the rest wait here, staged or queued, for
    /// the worker loop to send them).
    pub(crate) fn issued_sent(&self, trustee: usize) -> (u64, u64) {
        let ch = self.channels[trustee].borrow();
        (ch.issued, ch.sent)
    }

    /// Free bytes in the batch being filled for `trustee`, and a slot's record capacity.
    /// (A held request, `HOLD + t`, gets a slot's capacity.)
    pub(crate) fn room(&self, trustee: usize) -> (usize, usize) {
        let ch = self.channels[trustee.min(self.n() - 1)].borrow();
        if trustee >= HOLD {
            return (ch.staging.capacity(), ch.staging.capacity());
        }
        (ch.staging.remaining(), ch.staging.capacity())
    }

    /// When too many batches wait on a pair, suspends the running fiber until
    /// no pair of this worker has more than
    /// [`Config::backpressure_batches`](crate::Config::backpressure_batches) waiting
    /// (only from plain fiber context; delegated context never suspends).
    /// Meanwhile the worker loop serves, sends and polls, so the queues
    /// drain; without the wait a fiber that sends faster than a busy peer
    /// consumes would queue batches without bound.
    pub(crate) fn backpressure(&self, queued: usize) {
        let most = self.backpressure_batches;
        if queued <= most || self.delegated.get() != 0 || !fiber::in_fiber() {
            return;
        }
        loop {
            fiber::suspend(Suspend::Yield);
            let longest = self
                .channels
                .iter()
                .map(|c| c.borrow().queue.len())
                .max()
                .unwrap_or(0);
            if longest <= most {
                break;
            }
        }
    }

    fn seal(ch: &mut Channel) {
        let ss = ch.staging.capacity() + slot::HEADER_SIZE;
        let fresh = ch.pool.pop().unwrap_or_else(|| BatchWriter::new(ss));
        let full = std::mem::replace(&mut ch.staging, fresh);
        ch.queue.push_back(Out::Batch(full));
    }

    fn send_staging(&self, trustee: usize, ch: &mut Channel) {
        ch.seq += 1;
        let h = ch.staging.header(0);
        self.write(
            Dir::Request,
            trustee,
            Body {
                ptr: ch.staging.buf.as_ptr(),
                len: ch.staging.buf.len(),
            },
            &h,
            ch.seq,
        );
        ch.inflight = Some(Inflight::Batch(ch.staging.count));
        ch.sent += u64::from(ch.staging.count);
        ch.staging.reset();
    }

    /// Sends the next batch on every channel that has one queued and nothing in
    /// flight. Only channels marked in `sendable` are visited (with a thousand
    /// workers, looking at every channel on every loop turn was a fifth of the
    /// run); a channel's mark goes when it has nothing left to send.
    pub(super) fn send_queued(&self) -> bool {
        let mut any = false;
        let words = self.sendable.borrow().len();
        for i in 0..words {
            let mut bits = self.sendable.borrow()[i];
            while bits != 0 {
                let t = i * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                any |= self.try_send(t);
                let ch = self.channels[t].borrow();
                if ch.queue.is_empty() && ch.staging.is_empty() {
                    self.sendable.borrow_mut()[i] &= !(1 << (t % 64));
                }
            }
        }
        any
    }

    /// Sends the next batch on a pair with nothing in flight.
    pub(super) fn try_send(&self, trustee: usize) -> bool {
        let mut chb = self.channels[trustee].borrow_mut();
        let ch = &mut *chb;
        if ch.inflight.is_some() {
            return false;
        }
        let cap = ch.staging.capacity();
        match ch.queue.front_mut() {
            Some(Out::Batch(b)) => {
                ch.seq += 1;
                let h = b.header(0);
                self.write(
                    Dir::Request,
                    trustee,
                    Body {
                        ptr: b.buf.as_ptr(),
                        len: b.buf.len(),
                    },
                    &h,
                    ch.seq,
                );
                ch.inflight = Some(Inflight::Batch(b.count));
                ch.sent += u64::from(b.count);
                if let Some(Out::Batch(mut b)) = ch.queue.pop_front() {
                    b.reset();
                    ch.pool.push(b);
                }
                true
            }
            Some(Out::Large { buf, sent }) => {
                let chunk = (buf.len() - *sent).min(cap & !7);
                let last = *sent + chunk == buf.len();
                let h = Header {
                    data_len: chunk as u32,
                    count: 1,
                    flags: flags::CHUNK | if last { flags::LAST } else { 0 },
                    aux: buf.len() as u64,
                    ..Header::default()
                };
                ch.seq += 1;
                // SAFETY: `sent + chunk <= buf.len()`.
                let p = unsafe { buf.as_ptr().add(*sent) };
                self.write(
                    Dir::Request,
                    trustee,
                    Body { ptr: p, len: chunk },
                    &h,
                    ch.seq,
                );
                *sent += chunk;
                ch.inflight = Some(Inflight::Chunk { last });
                ch.sent += u64::from(last);
                true
            }
            None if !ch.staging.is_empty() => {
                self.send_staging(trustee, ch);
                true
            }
            None => false,
        }
    }

    /// Takes every new response: the marked trustees', or every trustee's
    /// with a batch in flight when the transport keeps no marks.
    pub(super) fn poll_responses(&self) -> bool {
        let mut any = false;
        match self.shared.transport.marks(Dir::Response, self.id) {
            Some(marks) => take_marks(marks, |t| any |= self.response_from(t)),
            None => {
                for t in 0..self.n() {
                    any |= self.response_from(t);
                }
            }
        }
        any
    }

    fn response_from(&self, t: usize) -> bool {
        let seen = {
            let ch = self.channels[t].borrow();
            if ch.inflight.is_none() {
                return false;
            }
            ch.resp_seen
        };
        match self.shared.transport.poll(Dir::Response, self.id, t, seen) {
            Some((seq, view)) => {
                self.on_response(t, seq, view);
                true
            }
            None => false,
        }
    }

    fn on_response(&self, t: usize, seq: u64, view: SlotView) {
        let (h, start) = match view.header() {
            Ok(x) => x,
            Err(e) => {
                return self.shared.poison(format!(
                    "gossamer: corrupt response slot from worker {t}: {}",
                    e.0
                ))
            }
        };
        // SAFETY: the header check bounded `start + data_len` by the slot size.
        let data = unsafe { view.base.add(start) };
        let len = h.data_len as usize;
        let mut chb = self.channels[t].borrow_mut();
        chb.resp_seen = seq;
        if h.flags & flags::MORE != 0 {
            chb.reasm.extend(data, len);
            chb.seq += 1;
            let ask = Header {
                flags: flags::CONTINUE,
                ..Header::default()
            };
            self.write(Dir::Request, t, Body { ptr: data, len: 0 }, &ask, chb.seq);
            return;
        }
        let owned = if chb.reasm.is_empty() {
            None
        } else {
            chb.reasm.extend(data, len);
            Some(std::mem::take(&mut chb.reasm))
        };
        let ncont = match chb.inflight {
            Some(Inflight::Batch(n)) => n as usize,
            Some(Inflight::Chunk { last }) => last as usize,
            None => 0,
        };
        drop(chb);
        // SAFETY: the bytes stay valid while we read them: the slot is not written
        // again before we send the next batch on this pair (below), and `owned` is ours.
        let mut r = unsafe {
            match &owned {
                Some(b) => Reader::new(b.as_ptr(), b.len()),
                None => Reader::new(data, len),
            }
        };
        // Take this batch's continuations in one go (continuations may append new
        // ones to the same pair, behind them), then run them in request order.
        let mut conts = std::mem::take(&mut *self.cont_buf.borrow_mut());
        {
            let mut ch = self.channels[t].borrow_mut();
            debug_assert!(ch.conts.len() >= ncont, "continuation for every request");
            conts.extend(ch.conts.drain(..ncont));
            ch.completed += ncont as u64;
        }
        self.outstanding.set(self.outstanding.get() - ncont);
        if ncont > 0 {
            self.enter_busy();
        }
        {
            let _d = Delegated::enter(self);
            self.guard("an `apply_then` continuation", || {
                if h.flags & flags::BOUNCED != 0 {
                    let (p, n) = match &owned {
                        Some(b) => (b.as_ptr(), b.len()),
                        None => (data, len),
                    };
                    return self.finish_bounced(t, &mut conts, p, n);
                }
                for cont in conts.drain(..) {
                    match cont {
                        Cont::Skip => {}
                        Cont::Wake { fid, out, read } => {
                            // SAFETY: `out` points into the parked fiber's stack frame,
                            // alive until we wake it; `read` matches the return type.
                            unsafe { read(&mut r, out) };
                            self.wake(fid);
                        }
                        Cont::Inline(f) => f.run(&mut r),
                        Cont::Then(f) => f(&mut r),
                        c @ Cont::Chased(_) => self.complete(c, &mut r),
                    }
                }
            });
        }
        conts.clear();
        *self.cont_buf.borrow_mut() = conts;
        if ncont > 0 {
            self.notify_waiters();
        }
        let mut chb = self.channels[t].borrow_mut();
        if let Some(Inflight::Chunk { last: true }) = chb.inflight {
            chb.queue.pop_front();
        }
        chb.inflight = None;
        if let Some(mut b) = owned {
            b.clear();
            chb.reasm = b;
        }
        drop(chb);
        self.try_send(t);
    }
}
