//! Fate sharing: heartbeats on the control connections, the failure alarm, and a
//! non-zero rank's control thread (rank 0's failures and `Stop` reach it there).
//!
//! Running: rank 0 and each other rank exchange `Heartbeat`s every
//! [`Config::heartbeat`](crate::Config::heartbeat) (500 ms) over the control
//! connection; silence for [`Config::silence`](crate::Config::silence) (10 s) or a
//! closed connection means the peer is gone. A rank that fails reports `Failed`; rank 0 turns any failure into `Abort`
//! for everyone, so all ranks stop with an error naming the failed rank.

use super::wire::{self, Msg};
use super::RankEnv;
use crate::park::Parking;
use crate::runtime::{join_workers, start_workers};
use crate::worker::{Fate, Shared};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

pub(super) type Writer = Arc<Mutex<TcpStream>>;

pub(super) fn send_to(w: &Writer, m: &Msg) -> std::io::Result<()> {
    wire::send(&mut *w.lock().unwrap_or_else(|p| p.into_inner()), m)
}

/// Sends a heartbeat on every writer each `every` until the run stops cleanly.
pub(super) fn heartbeats(writers: Vec<Writer>, alarm: Arc<Alarm>, every: Duration) {
    let _ = std::thread::Builder::new()
        .name("gossamer-heartbeat".into())
        .spawn(move || loop {
            std::thread::sleep(every);
            if alarm.closing.load(Ordering::SeqCst) {
                return;
            }
            for w in &writers {
                let _ = send_to(w, &Msg::Heartbeat);
            }
        });
}

/// A non-zero rank from `Go` on: heartbeats to rank 0, a control thread that
/// answers its queries and obeys `Stop` and `Abort`, the workers; then exits.
pub(super) fn leaf(env: RankEnv, shared: Arc<Shared>, alarm: Arc<Alarm>, s: TcpStream) -> ! {
    let reader = s.try_clone();
    let w: Writer = Arc::new(Mutex::new(s));
    heartbeats(vec![w.clone()], alarm.clone(), shared.config.heartbeat);
    if let Ok(mut r) = reader {
        let (shared, alarm, w) = (shared.clone(), alarm.clone(), w.clone());
        let _ = r.set_read_timeout(Some(shared.config.silence));
        let _ = std::thread::Builder::new()
            .name("gossamer-control".into())
            .spawn(move || loop {
                match wire::recv(&mut r) {
                    Ok(Msg::Heartbeat) => {}
                    Ok(Msg::Query(id)) => {
                        let _ = send_to(&w, &Msg::Quiescent(id, shared.quiescent()));
                    }
                    Ok(Msg::Stop) => {
                        alarm.closing.store(true, Ordering::SeqCst);
                        shared.stop.store(true, Ordering::SeqCst);
                        shared.wake_all();
                        return;
                    }
                    Ok(Msg::Abort { rank, cause }) => {
                        return alarm.fail(format!("gossamer: rank {rank} failed: {cause}"));
                    }
                    Ok(m) => {
                        return alarm.fail(format!(
                            "gossamer: rank 0 failed: unexpected control message {m:?}"
                        ))
                    }
                    Err(e) => {
                        return alarm.fail(format!(
                            "gossamer: rank 0 failed: lost the control connection to it ({e}); the \
                             process exited, was killed, or its host is unreachable"
                        ))
                    }
                }
            });
    }
    let handles = match start_workers(&shared, None) {
        Ok(h) => h,
        Err(e) => {
            let _ = send_to(&w, &Msg::Failed(e.to_string()));
            eprintln!("gossamer: rank {}: {e}", env.rank);
            std::process::exit(1);
        }
    };
    join_workers(&shared, handles);
    if let Some(m) = shared.poison_message() {
        let _ = send_to(&w, &Msg::Failed(m.clone()));
        eprintln!("gossamer: rank {} stopped: {m}", env.rank);
        std::process::exit(1);
    }
    let _ = send_to(&w, &Msg::Done);
    std::process::exit(0);
}

/// Failure reporting shared by a rank's transport threads and control threads.
pub(crate) struct Alarm {
    pub fate: Arc<Fate>,
    pub parking: Arc<Parking>,
    /// Set once the run is stopping cleanly: closed connections are then expected.
    pub closing: AtomicBool,
    /// How long a failed rank waits for its workers to stop before it exits the
    /// process by itself ([`Config::watchdog`](crate::Config::watchdog)).
    grace: Duration,
    watchdog: OnceLock<()>,
}

impl Alarm {
    pub(crate) fn new(fate: Arc<Fate>, parking: Arc<Parking>, grace: Duration) -> Self {
        Alarm {
            fate,
            parking,
            grace,
            closing: AtomicBool::new(false),
            watchdog: OnceLock::new(),
        }
    }

    /// Fails the run (first message wins), wakes every worker, and arms a watchdog
    /// that ends the process if it has not stopped within a few seconds.
    pub(crate) fn fail(&self, msg: String) {
        if self.closing.load(Ordering::SeqCst) {
            return;
        }
        self.fate.fail(msg);
        self.parking.wake_all();
        self.watchdog.get_or_init(|| {
            let (fate, grace) = (self.fate.clone(), self.grace);
            let _ = std::thread::Builder::new()
                .name("gossamer-watchdog".into())
                .spawn(move || {
                    std::thread::sleep(grace);
                    eprintln!(
                        "{} (this rank did not stop by itself within {} s; exiting)",
                        fate.message().unwrap_or_default(),
                        grace.as_secs()
                    );
                    std::process::exit(1);
                });
        });
    }
}
