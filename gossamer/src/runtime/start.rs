//! The life of this process's workers: starting the worker threads, wrapping the
//! main function into the main fiber, joining the threads, and the run's outcome.

use super::affinity::{allowed_cpus, first_cpu_slot, pin_to};
use super::ids::Error;
use crate::worker::{panic_message, Shared, Worker};
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

/// Starts this process's workers (global ids from `shared`'s placement, settings
/// from its config); the first one also runs `main_body` as a fiber.
pub(crate) fn start_workers(
    shared: &Arc<Shared>,
    main_body: Option<Box<dyn FnOnce() + Send>>,
) -> Result<Vec<std::thread::JoinHandle<()>>, Error> {
    let cpus = allowed_cpus();
    let config = &shared.config;
    let first = first_cpu_slot(&cpus, config.threads);
    let mut main_body = main_body;
    let mut handles = Vec::with_capacity(config.threads);
    for (k, i) in shared.local_workers().enumerate() {
        let sh = shared.clone();
        let body = if k == 0 { main_body.take() } else { None };
        let cpu = (config.pin_threads && !cpus.is_empty()).then(|| cpus[(first + k) % cpus.len()]);
        let spawned = std::thread::Builder::new()
            .name(format!("gossamer-w{i}"))
            .spawn(move || {
                if let Some(c) = cpu {
                    pin_to(c);
                }
                let w = Worker::new(i, sh);
                if let Some(b) = body {
                    w.spawn_local(b);
                }
                w.run();
            });
        match spawned {
            Ok(h) => handles.push(h),
            Err(e) => {
                shared.stop.store(true, Ordering::SeqCst);
                shared.wake_all();
                for h in handles {
                    let _ = h.join();
                }
                return Err(Error::Spawn(e.to_string()));
            }
        }
    }
    Ok(handles)
}
