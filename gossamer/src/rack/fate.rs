//! Fate sharing: heartbeats on the control connections, the failure alarm, rank
//! 0's control thread per other rank (`watch_ranks`), and a non-zero rank's
//! control thread (rank 0's failures and `Stop` reach it there).
//!
//! Running: rank 0 and each other rank exchange `Heartbeat`s every
//! [`Config::heartbeat`](crate::Config::heartbeat) (500 ms) over the control
//! connection; silence for [`Config::silence`](crate::Config::silence) (10 s) or a
//! closed connection means the peer is gone. A rank that fails reports `Failed`; rank 0 turns any failure into `Abort`
//! for everyone, so all ranks stop with an error naming the failed rank.

use super::wire::{self, Msg};
use super::RankEnv;
use crate::park::Parking;
use crate::runtime::{join_workers, start_workers, Error};
use crate::worker::{Fate, Shared};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex, OnceLock};
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

/// Why a connection to a peer ended with `e`, for the failure message after
/// "rank R failed: " (`link`: "its control connection", ...): silence for
/// `silence` (a read timeout) means the peer's host is unreachable or the
/// process hangs; a close or a reset, that the process ended or the network
/// cut the connection. A rack job survives neither (docs/rack.md, "Network
/// conditions", says why).
pub(super) fn lost(e: &std::io::Error, silence: Duration, link: &str) -> String {
    use std::io::ErrorKind as K;
    match e.kind() {
        K::WouldBlock | K::TimedOut => format!(
            "lost it: no heartbeat on {link} for {} s (its host is unreachable, the network \
             between the ranks is down, or the process hangs)",
            silence.as_secs_f64()
        ),
        K::UnexpectedEof => format!(
            "lost it: {link} was closed (the process exited or was killed, or a proxy or \
             firewall closed the connection)"
        ),
        _ => format!(
            "lost it: {link} broke: {e} (the process was killed, or the network reset the \
             connection)"
        ),
    }
}

/// Rank 0's control connections once the job runs.
pub(super) struct Ranks {
    /// A writer per other rank (`None` for rank 0 itself).
    pub writers: Vec<Option<Writer>>,
    /// Which ranks said `Done`.
    pub done: Arc<Vec<AtomicBool>>,
    /// Quiescence answers: (rank, query, snapshot).
    pub answers: mpsc::Receiver<(usize, u64, Option<u64>)>,
}

/// Rank 0: starts a control thread per other rank (connections `streams`, by
/// rank). It passes quiescence answers on, records `Done`, and turns a failure
/// (`Failed`, silence for `silence`, a closed connection) into `Abort` for every
/// rank and a failure of this rank's `alarm`.
pub(super) fn watch_ranks(
    streams: Vec<Option<TcpStream>>,
    alarm: &Arc<Alarm>,
    silence: Duration,
) -> Result<Ranks, Error> {
    let size = streams.len();
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
        let (alarm, done, tx, all) = (
            Arc::clone(alarm),
            done.clone(),
            tx.clone(),
            all_writers.clone(),
        );
        let _ = rd.set_read_timeout(Some(silence));
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
                            if alarm.closing.load(Ordering::SeqCst)
                                && done[r].load(Ordering::SeqCst)
                            {
                                return;
                            }
                            break lost(&e, silence, "its control connection");
                        }
                    }
                };
                if alarm.closing.load(Ordering::SeqCst) {
                    return;
                }
                let abort = Msg::Abort {
                    rank: r as u32,
                    cause: cause.clone(),
                };
                for w in all.lock().unwrap_or_else(|p| p.into_inner()).iter() {
                    let _ = send_to(w, &abort);
                }
                alarm.fail(format!("gossamer: rank {r} failed: {cause}"));
            });
    }
    drop(tx);
    Ok(Ranks {
        writers,
        done,
        answers: rx,
    })
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
                            "gossamer: rank 0 failed: {}",
                            lost(&e, shared.config.silence, "the control connection to it")
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
