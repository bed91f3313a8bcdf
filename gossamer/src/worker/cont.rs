//! Closure storage: how a request's code travels ([`Trampoline`]) and what a client
//! does with each response value ([`Cont`]), including the allocation-free
//! in-place continuation ([`InlineThen`]).

use crate::slot::{AlignedBuf, Reader};
use std::mem::MaybeUninit;

/// A monomorphised request handler: reads its closure (and payload) from the record
/// and appends its return value to the response. Returns true when it did not run
/// the record because its property has moved away (the record is then bounced to
/// the client with the new address, see `moves.rs`); it has read the whole record
/// either way.
pub(crate) type Trampoline = unsafe fn(prop: u64, r: &mut Reader, out: &mut AlignedBuf) -> bool;

/// The continuation of a launch, keyed by token on the launching worker.
pub(crate) type LaunchCont = Box<dyn FnOnce(&mut Reader)>;

/// What to do with one response value, in request order.
pub(crate) enum Cont {
    /// Nothing comes back (zero-sized answers of internal requests).
    Skip,
    /// Write the value through `out` and wake the blocked fiber `fid`.
    Wake {
        fid: usize,
        out: *mut u8,
        read: unsafe fn(&mut Reader, *mut u8),
    },
    /// Run a small continuation stored in place (in delegated context).
    Inline(InlineThen),
    /// Run a continuation (in delegated context).
    Then(Box<dyn FnOnce(&mut Reader)>),
    /// A request in the chase of a moved property (`moves.rs`): bookkeeping,
    /// then its own continuation.
    Chased(Box<Chased>),
}

/// The continuation of a request that waits in, or was sent from, the chase
/// queue (`moves.rs`).
pub(crate) struct Chased {
    /// Sent in the chase's current round, and not answered yet.
    pub member: bool,
    pub cont: Cont,
}

impl Cont {
    /// A continuation, stored in place when small enough (no allocation).
    #[inline(always)]
    pub(crate) fn then<C: FnOnce(&mut Reader) + 'static>(c: C) -> Cont {
        match InlineThen::new(c) {
            Ok(i) => Cont::Inline(i),
            Err(c) => Cont::Then(Box::new(c)),
        }
    }
}

/// Words of in-place storage for a continuation's captures.
const INLINE_WORDS: usize = 3;

/// A type-erased `FnOnce(&mut Reader)` of at most `INLINE_WORDS` words and
/// alignment 8, stored without a heap allocation.
pub(crate) struct InlineThen {
    call: unsafe fn(*mut u8, &mut Reader),
    drop_fn: unsafe fn(*mut u8),
    data: [MaybeUninit<u64>; INLINE_WORDS],
}

/// Calls the closure stored in place at `p` (an `InlineThen`'s `call`).
///
/// # Safety
/// `p` must point to a live `C` written by `InlineThen::new::<C>` into the
/// `InlineThen`'s data, which the caller then treats as moved out: it neither
/// calls nor drops it again (`run` forgets the `InlineThen`).
unsafe fn inline_call<C: FnOnce(&mut Reader)>(p: *mut u8, r: &mut Reader) {
    // SAFETY: `p` holds a C written by `InlineThen::new`, read out exactly once
    // (`run` forgets the InlineThen so `drop_fn` does not run afterwards).
    let c = unsafe { std::ptr::read(p as *mut C) };
    c(r)
}

/// Drops the closure stored in place at `p` without calling it (an `InlineThen`'s
/// `drop_fn`).
///
/// # Safety
/// `p` must point to a live `C` written by `InlineThen::new::<C>` that was never
/// called (moved out by `inline_call`), and the caller must not use it afterwards.
unsafe fn inline_drop<C>(p: *mut u8) {
    // SAFETY: `p` holds a C that was never called (otherwise `run` forgot us).
    unsafe { std::ptr::drop_in_place(p as *mut C) }
}

impl InlineThen {
    #[inline(always)]
    fn new<C: FnOnce(&mut Reader) + 'static>(c: C) -> Result<Self, C> {
        if size_of::<C>() > INLINE_WORDS * 8 || align_of::<C>() > 8 {
            return Err(c);
        }
        let mut data = [MaybeUninit::<u64>::uninit(); INLINE_WORDS];
        // SAFETY: checked above that C fits and needs no more than 8-byte alignment.
        unsafe { std::ptr::write(data.as_mut_ptr() as *mut C, c) };
        Ok(InlineThen {
            call: inline_call::<C>,
            drop_fn: inline_drop::<C>,
            data,
        })
    }

    #[inline(always)]
    pub(super) fn run(self, r: &mut Reader) {
        let mut me = std::mem::ManuallyDrop::new(self);
        // SAFETY: the stored closure is consumed once; `me` is never dropped.
        unsafe { (me.call)(me.data.as_mut_ptr() as *mut u8, r) }
    }
}

impl Drop for InlineThen {
    fn drop(&mut self) {
        // SAFETY: the closure was not run (run() forgets self), so it is still live.
        unsafe { (self.drop_fn)(self.data.as_mut_ptr() as *mut u8) }
    }
}
