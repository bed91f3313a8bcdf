//! Rack mode: one gossamer run across several processes (ranks), on one host or
//! many.
//!
//! Every rank runs the same binary (checked at bootstrap, see `image`). Rank `r`
//! runs workers `r*t .. (r+1)*t` (global [`WorkerId`](crate::WorkerId)s); rank 0
//! runs `gsm_main`, the others serve until it returns.
//!
//! | module | concept |
//! | --- | --- |
//! | `env` | rank, size, token and coordinator from the launcher's environment |
//! | `image` | ASLR off by re-exec, build id + anchor identity, text bounds |
//! | `wire` | mutual HMAC handshake (token), concurrent acceptor, control messages |
//! | `slots` | the rack's slot rows (§4.7) and the transport writing into them |
//! | `shm`, `tcp` | the two transports that run here; `rdma` (feature) for a rack |
//! | `control` | bootstrap through rank 0, heartbeats, fate sharing, termination |
//! | `launch` | the built-in launcher for N ranks on this host |

mod bootstrap;
mod env;
mod image;
mod launch;
#[cfg(feature = "rdma")]
pub mod rdma;
mod shm;
mod slots;
mod tcp;
mod wire;

pub use env::RankEnv;
pub use launch::{launch_local, launch_local_with_hint, LaunchError};
pub use shm::remove_job_files;

pub(crate) use bootstrap::run_rank;
pub(crate) use env::from_process as env_from_process;
pub(crate) use image::disable_aslr;

use crate::park::Parking;
use crate::worker::Fate;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// How slot writes travel between ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TransportKind {
    /// One process, slots in process memory (the default for one rank).
    Local,
    /// Ranks on one host share a mapped region (the default for several ranks).
    Shm,
    /// TCP connections between ranks, for hosts without RDMA.
    Tcp,
    /// RDMA writes over ibverbs RC queue pairs (cargo feature `rdma`).
    Rdma,
}

impl TransportKind {
    /// The name used on command lines.
    pub fn name(self) -> &'static str {
        match self {
            TransportKind::Local => "local",
            TransportKind::Shm => "shm",
            TransportKind::Tcp => "tcp",
            TransportKind::Rdma => "rdma",
        }
    }
}

impl std::str::FromStr for TransportKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "local" => Ok(TransportKind::Local),
            "shm" => Ok(TransportKind::Shm),
            "tcp" => Ok(TransportKind::Tcp),
            "rdma" => Ok(TransportKind::Rdma),
            _ => Err(format!(
                "unknown transport {s:?}; expected local, shm, tcp or rdma"
            )),
        }
    }
}

impl std::fmt::Display for TransportKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How long a rank waits after a failure for its workers to stop before it exits
/// the process by itself.
const WATCHDOG: Duration = Duration::from_secs(5);

/// Failure reporting shared by a rank's transport threads and control threads.
pub(crate) struct Alarm {
    pub fate: Arc<Fate>,
    pub parking: Arc<Parking>,
    /// Set once the run is stopping cleanly: closed connections are then expected.
    pub closing: AtomicBool,
    watchdog: OnceLock<()>,
}

impl Alarm {
    pub(crate) fn new(fate: Arc<Fate>, parking: Arc<Parking>) -> Self {
        Alarm {
            fate,
            parking,
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
            let fate = self.fate.clone();
            let _ = std::thread::Builder::new()
                .name("gossamer-watchdog".into())
                .spawn(move || {
                    std::thread::sleep(WATCHDOG);
                    eprintln!(
                        "{} (this rank did not stop by itself within {} s; exiting)",
                        fate.message().unwrap_or_default(),
                        WATCHDOG.as_secs()
                    );
                    std::process::exit(1);
                });
        });
    }
}
