//! The per-worker FIFO fiber scheduler.

use crate::fiber::{Fiber, Suspend};
use corosensei::stack::DefaultStack;
use std::collections::VecDeque;

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Free,
    Ready,
    Running,
    Parked,
    /// Woken while running, before it parked: its next park returns at once.
    WokenEarly,
}

/// Fibers of one worker and the FIFO of runnable ones.
pub(crate) struct Scheduler {
    fibers: Vec<Option<Fiber>>,
    state: Vec<State>,
    free: Vec<usize>,
    ready: VecDeque<usize>,
    stacks: Vec<DefaultStack>,
    stack_size: usize,
}

/// What to do with a fiber taken out to run.
pub(crate) struct Taken {
    pub fid: usize,
    pub fiber: Fiber,
}

impl Scheduler {
    pub(crate) fn new(stack_size: usize) -> Self {
        Scheduler {
            fibers: Vec::new(),
            state: Vec::new(),
            free: Vec::new(),
            ready: VecDeque::new(),
            stacks: Vec::new(),
            stack_size,
        }
    }

    /// Adds a runnable fiber running `body`.
    pub(crate) fn spawn(&mut self, body: Box<dyn FnOnce()>) -> usize {
        let stack = match self.stacks.pop() {
            Some(s) => s,
            None => DefaultStack::new(self.stack_size).unwrap_or_else(|e| {
                // Out of memory (or of address space under a limit): there
                // is no caller to return to; end the process with the
                // reason rather than a panic.
                eprintln!(
                    "error: out of memory: gossamer could not allocate a {} byte fiber stack: {e}; the process has reached its memory limit (ulimit -v, prlimit, its cgroup) or the machine's",
                    self.stack_size
                );
                std::process::exit(1)
            }),
        };
        let fiber = Fiber::new(stack, body);
        let fid = match self.free.pop() {
            Some(f) => {
                self.fibers[f] = Some(fiber);
                f
            }
            None => {
                self.fibers.push(Some(fiber));
                self.state.push(State::Free);
                self.fibers.len() - 1
            }
        };
        self.state[fid] = State::Ready;
        self.ready.push_back(fid);
        fid
    }

    pub(crate) fn ready_len(&self) -> usize {
        self.ready.len()
    }

    /// Takes the next runnable fiber out (the caller resumes it without holding
    /// the scheduler borrowed, then calls [`Scheduler::put_back`]).
    pub(crate) fn take_next(&mut self) -> Option<Taken> {
        let fid = self.ready.pop_front()?;
        let fiber = self.fibers[fid].take().expect("ready fiber present");
        self.state[fid] = State::Running;
        Some(Taken { fid, fiber })
    }

    /// Returns a fiber after it ran; `outcome` is what `Fiber::resume` said.
    pub(crate) fn put_back(&mut self, t: Taken, outcome: Option<Suspend>) {
        match outcome {
            None => {
                self.stacks.push(t.fiber.into_stack());
                self.state[t.fid] = State::Free;
                self.free.push(t.fid);
            }
            Some(s) => {
                self.fibers[t.fid] = Some(t.fiber);
                if s == Suspend::Yield || self.state[t.fid] == State::WokenEarly {
                    self.state[t.fid] = State::Ready;
                    self.ready.push_back(t.fid);
                } else {
                    self.state[t.fid] = State::Parked;
                }
            }
        }
    }

    /// Makes a parked fiber runnable (or marks a running one so its park is a no-op).
    pub(crate) fn wake(&mut self, fid: usize) {
        match self.state[fid] {
            State::Parked => {
                self.state[fid] = State::Ready;
                self.ready.push_back(fid);
            }
            State::Running => self.state[fid] = State::WokenEarly,
            State::Ready | State::WokenEarly => {}
            State::Free => debug_assert!(false, "wake of a finished fiber"),
        }
    }

    /// Leaks every fiber that has not finished (used at shutdown: a suspended fiber
    /// is never resumed again, and unwinding it could run user code at a bad time).
    pub(crate) fn abandon(&mut self) {
        for f in self.fibers.drain(..).flatten() {
            std::mem::forget(f);
        }
        self.ready.clear();
    }
}
