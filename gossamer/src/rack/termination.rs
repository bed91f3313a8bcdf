//! Termination, on rank 0 (`root`: its control threads, its workers and the
//! termination loop). When `gsm_main` returned on rank 0, rank 0 asks every rank for a
//! quiescence snapshot (all workers idle, activity sum) twice; two identical rounds
//! of all-idle snapshots mean no request is in flight anywhere (a client with a
//! request out is not idle), so it sends `Stop`; ranks stop, answer `Done` and exit.

use super::fate::{heartbeats, send_to, Alarm, Writer};
use super::wire::{self, Msg};
use super::RankEnv;
use crate::runtime::{finish, join_workers, main_body, start_workers, Error};
use crate::worker::Shared;
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Tests only: how often rank 0's termination loop has woken up so far.
#[cfg(feature = "test-hooks")]
pub(super) static LOOP_WAKEUPS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Rank 0 from `Go` on: a control thread per other rank (failures become `Abort`
/// for everyone), heartbeats, the workers with the main fiber, and the
/// termination loop; returns the main function's value (or the run's failure).
pub(super) fn root<R: Send + 'static>(
    env: RankEnv,
    shared: Arc<Shared>,
    alarm: Arc<Alarm>,
    streams: Vec<Option<TcpStream>>,
    gsm_main: impl FnOnce() -> R + Send + 'static,
) -> Result<R, Error> {
    let size = env.size;
    let mut writers: Vec<Option<Writer>> = Vec::with_capacity(size);
    let done: Arc<Vec<AtomicBool>> = Arc::new((0..size).map(|_| AtomicBool::new(false)).collect());
    let (tx, rx) = mpsc::channel::<(usize, u64, Option<u64>)>();
    let all_writers: Arc<Mutex<Vec<Writer>>> = Arc::new(Mutex::new(Vec::new()));
    for (r, s) in streams.into_iter().enumerate() {
        let Some(s) = s else {
            writers.push(None);
            continue;
        };
        let mut rd = s.try_clone().map_err(|e| Error::Rack(e.to_string()))?;
        let w: Writer = Arc::new(Mutex::new(s));
        writers.push(Some(w.clone()));
        all_writers.lock().unwrap().push(w);
        let (alarm, done, tx, all) = (alarm.clone(), done.clone(), tx.clone(), all_writers.clone());
        let _ = rd.set_read_timeout(Some(shared.config.silence));
        let _ = std::thread::Builder::new()
            .name(format!("gossamer-control{r}"))
            .spawn(move || {
                let cause = loop {
                    match wire::recv(&mut rd) {
                        Ok(Msg::Heartbeat) => {}
                        Ok(Msg::Quiescent(id, q)) => {
                            let _ = tx.send((r, id, q));
                        }
                        Ok(Msg::Done) => {
                            done[r].store(true, Ordering::SeqCst);
                            return;
                        }
                        Ok(Msg::Failed(m)) => break m,
                        Ok(m) => break format!("sent an unexpected control message {m:?}"),
                        Err(e) => {
                            if alarm.closing.load(Ordering::SeqCst) && done[r].load(Ordering::SeqCst) {
                                return;
                            }
                            break format!(
                                "lost its control connection ({e}): the process exited, was killed, \
                                 or its host is unreachable"
                            );
                        }
                    }
                };
                if alarm.closing.load(Ordering::SeqCst) {
                    return;
                }
                let abort = Msg::Abort { rank: r as u32, cause: cause.clone() };
                for w in all.lock().unwrap_or_else(|p| p.into_inner()).iter() {
                    let _ = send_to(w, &abort);
                }
                alarm.fail(format!("gossamer: rank {r} failed: {cause}"));
            });
    }
    drop(tx);
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
