//! Fibers: a thin wrapper around `corosensei` coroutines (all stack switching lives
//! here). A fiber runs on the worker thread that created it and never moves.

use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};
use std::cell::Cell;

/// Why a fiber gave the CPU back to its scheduler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Suspend {
    /// Put me at the back of the ready queue.
    Yield,
    /// Do not run me until someone wakes me.
    Park,
}

thread_local! {
    /// The yielder of the fiber running on this thread (null on the scheduler stack).
    static YIELDER: Cell<*const Yielder<(), Suspend>> = const { Cell::new(std::ptr::null()) };
}

/// A fiber with its own stack.
pub(crate) struct Fiber {
    co: Coroutine<(), Suspend, (), DefaultStack>,
}

impl Fiber {
    /// A fiber that will run `body` on `stack` when first resumed. `body` must not
    /// unwind (the caller wraps user code in `catch_unwind`).
    pub(crate) fn new(stack: DefaultStack, body: Box<dyn FnOnce()>) -> Fiber {
        let co = Coroutine::with_stack(stack, move |y: &Yielder<(), Suspend>, ()| {
            YIELDER.set(y as *const _);
            body();
        });
        Fiber { co }
    }

    /// Runs the fiber until it suspends (`Some(reason)`) or finishes (`None`).
    pub(crate) fn resume(&mut self) -> Option<Suspend> {
        let r = self.co.resume(());
        YIELDER.set(std::ptr::null());
        match r {
            CoroutineResult::Yield(s) => Some(s),
            CoroutineResult::Return(()) => None,
        }
    }

    /// The stack of a finished fiber, for reuse.
    pub(crate) fn into_stack(self) -> DefaultStack {
        self.co.into_stack()
    }
}

/// True when called from inside a fiber.
pub(crate) fn in_fiber() -> bool {
    !YIELDER.get().is_null()
}

/// Suspends the running fiber. Panics outside a fiber.
pub(crate) fn suspend(s: Suspend) {
    let y = YIELDER.get();
    assert!(!y.is_null(), "gossamer: suspend called outside a fiber");
    // SAFETY: `y` was set by this fiber's body from the yielder corosensei passed it;
    // the yielder lives on this fiber's stack for as long as the fiber runs, and we
    // are running on that fiber now (the scheduler resets YIELDER to null between
    // resumes and each fiber restores its own pointer after every suspend).
    unsafe { (*y).suspend(s) };
    YIELDER.set(y);
}
