//! Termination, on rank 0 (`root`: its workers with the main fiber and the
//! termination loop; the control threads are `fate::watch_ranks`). When
//! `gsm_main` returned on rank 0, rank 0 asks every rank for a quiescence snapshot (all workers idle, activity sum) twice; two identical rounds
//! of all-idle snapshots mean no request is in flight anywhere (a client with a
//! request out is not idle), so it sends `Stop`; ranks stop, answer `Done` and exit.

use super::fate::{heartbeats, send_to, watch_ranks, Alarm, Ranks};
use super::wire::Msg;
use super::RankEnv;
use crate::runtime::{finish, join_workers, main_body, start_workers, Error};
use crate::worker::Shared;
use std::net::TcpStream;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Tests only: how often rank 0's termination loop has woken up so far.
#[cfg(feature = "test-hooks")]
pub(super) static LOOP_WAKEUPS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Rank 0 from `Go` on: a control thread per other rank (`fate::watch_ranks`),
/// heartbeats, the workers with the main fiber, and the
/// termination loop; returns the main function's value (or the run's failure).
pub(super) fn root<R: Send + 'static>(
    env: RankEnv,
    shared: Arc<Shared>,
    alarm: Arc<Alarm>,
    streams: Vec<Option<TcpStream>>,
    gsm_main: impl FnOnce() -> R + Send + 'static,
) -> Result<R, Error> {
    let size = env.size;
    let Ranks {
        writers,
        done,
        answers: rx,
    } = watch_ranks(streams, &alarm, shared.config.silence)?;
    heartbeats(
        writers.iter().flatten().cloned().collect(),
        alarm.clone(),
        shared.config.heartbeat,
    );

    let (body, result) = main_body(&shared, gsm_main);
    let _ = shared.main_waiter.set(std::thread::current());
    let handles = start_workers(&shared, Some(body))?;

    // Termination detection (see the module docs).
    let mut query = 0u64;
    let round = |query: &mut u64| -> Option<Vec<u64>> {
        *query += 1;
        for w in writers.iter().flatten() {
            let _ = send_to(w, &Msg::Query(*query));
        }
        let mut snap: Vec<Option<Option<u64>>> = vec![None; size];
        snap[0] = Some(shared.quiescent());
        let deadline = Instant::now() + Duration::from_secs(2);
        while snap.iter().skip(1).any(|s| s.is_none()) {
            let left = deadline.checked_duration_since(Instant::now())?;
            match rx.recv_timeout(left) {
                Ok((r, id, q)) if id == *query => snap[r] = Some(q),
                Ok(_) => {}
                Err(_) => return None,
            }
        }
        snap.into_iter()
            .map(|s| s.flatten())
            .collect::<Option<Vec<u64>>>()
    };
    loop {
        #[cfg(feature = "test-hooks")]
        LOOP_WAKEUPS.fetch_add(1, Ordering::Relaxed);
        if shared.fate.failed() {
            break;
        }
        if shared.main_done.load(Ordering::SeqCst) && shared.quiescent().is_some() {
            if let Some(a) = round(&mut query) {
                if let Some(b2) = round(&mut query) {
                    if a == b2 {
                        alarm.closing.store(true, Ordering::SeqCst);
                        for w in writers.iter().flatten() {
                            let _ = send_to(w, &Msg::Stop);
                        }
                        shared.stop.store(true, Ordering::SeqCst);
                        shared.wake_all();
                        break;
                    }
                }
            }
        }
        if shared.main_done.load(Ordering::SeqCst) {
            std::thread::sleep(shared.config.quiescence_poll);
        } else {
            // Until the main function returns there is nothing to detect:
            // sleep until it says so (failures are seen within `main_wait`).
            // Polling here every 200 us woke this thread 5000 times a second
            // on worker 0's core, a context switch each: 2 ranks x 1 thread
            // lost 10-15% of their SSSP speed to it.
            std::thread::park_timeout(shared.config.main_wait);
        }
    }
    join_workers(&shared, handles);
    if let Some(m) = shared.poison_message() {
        // A failure here (not reported by a peer): tell everyone.
        let abort = Msg::Abort {
            rank: 0,
            cause: m.clone(),
        };
        for w in writers.iter().flatten() {
            let _ = send_to(w, &abort);
        }
        return finish(&shared, &result);
    }
    // Wait (bounded) for every rank to finish cleanly.
    let deadline = Instant::now() + Duration::from_secs(10);
    while (1..size).any(|r| !done[r].load(Ordering::SeqCst)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(1));
    }
    finish(&shared, &result)
}
