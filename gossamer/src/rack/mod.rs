//! Rack mode: one gossamer run across several processes (ranks), on one host or
//! many.
//!
//! Every rank runs the same binary (checked at bootstrap, see `image`). Rank `r`
//! runs workers `r*t .. (r+1)*t` (global [`WorkerId`](crate::WorkerId)s); rank 0
//! runs `gsm_main`, the others serve until it returns.
//!
//! | module | concept |
//! | --- | --- |
//! | `env` | rank, size, token, coordinator and the data link's addresses from the launcher's environment |
//! | `image` | ASLR off by re-exec, build id + anchor identity, text bounds |
//! | `wire` | mutual HMAC handshake (token), concurrent acceptor, control messages |
//! | `layout` | where the slot rows and their marks sit; placing a batch into a slot |
//! | `slots` | the rack's slot rows (§4.7) and the transport writing into them |
//! | `shm`, `tcp` | the two transports that run here; `rdma` (feature) for a rack |
//! | `hello` | what a rank says about itself at bootstrap, and rank 0's check of it |
//! | `bootstrap` | joining through rank 0 (hellos, table), setting up slots and transport |
//! | `fate` | heartbeats, the failure alarm, the control threads (rank 0's per rank, and the other ranks') |
//! | `termination` | rank 0's main fiber and quiescence detection, `Stop` |
//! | `launch` | the built-in launcher for N ranks on this host |

mod bootstrap;
mod env;
mod fate;
mod hello;
mod image;
mod launch;
mod layout;
#[cfg(feature = "rdma")]
pub mod rdma;
mod shm;
mod slots;
mod tcp;
mod termination;
mod wire;

pub use env::{DataLink, RankEnv};
pub use launch::{launch_local, launch_local_with_hint, LaunchError};
pub use shm::remove_job_files;

pub(crate) use bootstrap::run_rank;
pub(crate) use env::from_process as env_from_process;
pub(crate) use fate::Alarm;
pub(crate) use image::disable_aslr;

/// Tests only (feature `test-hooks`): how often rank 0's termination loop has
/// woken up so far in this process. While the main function runs it sleeps
/// [`Config::main_wait`](crate::Config::main_wait) at a time.
#[cfg(feature = "test-hooks")]
#[doc(hidden)]
pub fn termination_loop_wakeups() -> u64 {
    termination::LOOP_WAKEUPS.load(std::sync::atomic::Ordering::Relaxed)
}

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
