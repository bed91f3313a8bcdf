//! [`JoinHandle`]: waiting for a fiber's result.

use super::ids::WorkerId;
use crate::worker::{blocking_point, worker};
use std::panic::resume_unwind;
use std::sync::{Arc, Mutex};

struct JoinInner<R> {
    result: Option<std::thread::Result<R>>,
    waiter: Option<(usize, usize)>,
}

/// Owned permission to wait for a fiber's result.
pub struct JoinHandle<R> {
    state: Arc<Mutex<JoinInner<R>>>,
    worker: WorkerId,
}

impl<R: Send + 'static> JoinHandle<R> {
    /// A handle whose fiber's outcome (its value, or its panic) is delivered
    /// later by calling the returned closure on a worker of this process, which
    /// also wakes the fiber waiting in [`join`](JoinHandle::join).
    pub(super) fn outcome(
        target: WorkerId,
    ) -> (Self, impl FnOnce(std::thread::Result<R>) + 'static) {
        let state = Arc::new(Mutex::new(JoinInner {
            result: None,
            waiter: None,
        }));
        let st = state.clone();
        let deliver = move |r: std::thread::Result<R>| {
            let waiter = {
                let mut g = st.lock().unwrap_or_else(|p| p.into_inner());
                g.result = Some(r);
                g.waiter.take()
            };
            if let Some((wid, fid)) = waiter {
                let me = worker("join wake-up");
                if wid == me.id {
                    me.wake(fid);
                } else {
                    me.shared.post(wid, |ib| ib.wakes.push(fid));
                }
            }
        };
        (
            JoinHandle {
                state,
                worker: target,
            },
            deliver,
        )
    }

    /// A handle whose value is delivered later by calling the returned closure (on
    /// a worker of this process).
    pub(crate) fn pending(target: WorkerId) -> (Self, impl FnOnce(R) + 'static) {
        let (h, deliver) = Self::outcome(target);
        (h, move |v: R| deliver(Ok(v)))
    }
}

impl<R> JoinHandle<R> {
    /// The worker the fiber runs on.
    pub fn worker(&self) -> WorkerId {
        self.worker
    }
    /// True once the fiber has finished.
    pub fn is_finished(&self) -> bool {
        self.state
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .result
            .is_some()
    }
    /// Suspends the calling fiber (only) until the fiber finishes; returns its value.
    ///
    /// A panic in the fiber ends the whole run (other fibers may be waiting on
    /// it): the runtime stops and `run` returns [`Error::DelegatedPanic`](crate::Error::DelegatedPanic) with
    /// the panic message. If this join is reached first, the panic is resumed
    /// here.
    pub fn join(self) -> R {
        let w = blocking_point("join");
        let mut g = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if g.result.is_none() {
            g.waiter = Some((w.id, w.current_fiber()));
            drop(g);
            w.park();
            g = self.state.lock().unwrap_or_else(|p| p.into_inner());
        }
        match g.result.take().expect("joined fiber has a result") {
            Ok(v) => v,
            Err(p) => resume_unwind(p),
        }
    }
}
