//! The life of this process's workers around the main function: wrapping it into
//! the main fiber, joining the worker threads, and the run's outcome.

use super::ids::Error;
use crate::worker::{panic_message, Shared};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

/// The result slot of `gsm_main`.
pub(crate) type MainResult<R> = Arc<Mutex<Option<std::thread::Result<R>>>>;

/// Wraps `gsm_main` into the main fiber's body, which stores its result and marks
/// the main function done.
pub(crate) fn main_body<R: Send + 'static>(
    shared: &Arc<Shared>,
    gsm_main: impl FnOnce() -> R + Send + 'static,
) -> (Box<dyn FnOnce() + Send>, MainResult<R>) {
    let result: MainResult<R> = Arc::new(Mutex::new(None));
    let r2 = result.clone();
    let sh = shared.clone();
    let body = Box::new(move || {
        let r = catch_unwind(AssertUnwindSafe(gsm_main));
        *r2.lock().unwrap_or_else(|p| p.into_inner()) = Some(r);
        sh.main_done.store(true, Ordering::SeqCst);
        if let Some(t) = sh.main_waiter.get() {
            t.unpark();
        }
    });
    (body, result)
}

/// Waits for this process's workers; a worker thread's own panic fails the run.
pub(crate) fn join_workers(shared: &Shared, handles: Vec<std::thread::JoinHandle<()>>) {
    for h in handles {
        if let Err(p) = h.join() {
            shared.poison(format!(
                "gossamer: a worker thread panicked: {}",
                panic_message(&*p)
            ));
        }
    }
}

/// The run's outcome after the workers stopped.
pub(crate) fn finish<R>(shared: &Shared, result: &MainResult<R>) -> Result<R, Error> {
    if let Some(m) = shared.poison_message() {
        return Err(if shared.place.rack {
            Error::RankFailed(m)
        } else {
            Error::DelegatedPanic(m)
        });
    }
    let r = result.lock().unwrap_or_else(|p| p.into_inner()).take();
    match r {
        Some(Ok(v)) => Ok(v),
        Some(Err(p)) => resume_unwind(p),
        None => Err(Error::DelegatedPanic(
            "gossamer: the main fiber did not finish".into(),
        )),
    }
}
