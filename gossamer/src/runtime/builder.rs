//! [`Runtime`] and its [`Builder`]: configuring, validating and running a runtime
//! (in one process, or as one rank of a rack run), and [`main`].

use super::ids::Error;
use super::slot_budget::{check_slot_memory, MAX_THREADS};
use super::start::{finish, join_workers, main_body, start_workers};
use crate::config::Config;
use crate::rack::{RankEnv, TransportKind};
use crate::slot;
use crate::worker::Shared;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Entry point for configuring a runtime; see [`Builder`].
pub struct Runtime;

impl Runtime {
    /// A builder with the defaults ([`Config::default`]): 1 thread, 1024-byte
    /// slots in one process ([`rack_slot_size`](crate::rack_slot_size) in a rack
    /// run), pinned threads, 256 KiB fiber stacks.
    pub fn builder() -> Builder {
        Builder {
            config: Config::default(),
            rank_env: None,
            transport: None,
            code_bounds: None,
        }
    }
}

/// Runtime configuration: a [`Config`] (every tunable, see there; the setters
/// below change the common ones), plus this process's place in a rack job and
/// the transport.
#[derive(Clone, Debug)]
pub struct Builder {
    config: Config,
    pub(crate) rank_env: Option<RankEnv>,
    pub(crate) transport: Option<TransportKind>,
    /// Tests only: accepted code words in a one-process run (rack runs use the
    /// binary's text segment).
    code_bounds: Option<(u64, u64)>,
}

impl Builder {
    /// A builder with the defaults plus this process's place in a rack job, read
    /// from the launcher's environment: the built-in launcher
    /// ([`rack::launch_local`](crate::rack::launch_local)), `mpirun` (Open MPI,
    /// MPICH/Hydra) or Slurm `srun`. Without such variables it is a one-process run.
    ///
    /// `GOSSAMER_TRANSPORT` (`local`, `shm`, `tcp`, `rdma`) sets the transport.
    ///
    /// With several ranks this re-executes the process once with address-space
    /// randomisation disabled (so code and static addresses agree between ranks):
    /// call it first thing in `main`, before any output or side effect.
    pub fn from_env() -> Result<Builder, Error> {
        let env = crate::rack::env_from_process().map_err(Error::Config)?;
        if let Some(e) = &env {
            if e.size > 1 {
                if let Err(m) = crate::rack::disable_aslr() {
                    eprintln!("gossamer: warning: {m}");
                }
            }
        }
        let mut b = Runtime::builder();
        b.rank_env = env;
        if let Ok(t) = std::env::var("GOSSAMER_TRANSPORT") {
            b.transport = Some(
                t.parse()
                    .map_err(|e| Error::Config(format!("GOSSAMER_TRANSPORT: {e}")))?,
            );
        }
        Ok(b)
    }

    /// This process's rank (0 outside a rack run).
    pub fn rank(&self) -> usize {
        self.rank_env.as_ref().map_or(0, |e| e.rank)
    }

    /// Number of ranks (1 outside a rack run).
    pub fn ranks(&self) -> usize {
        self.rank_env.as_ref().map_or(1, |e| e.size)
    }

    /// How slot writes travel between ranks. Default: `Local` for one rank, `Shm`
    /// for several. `Shm`/`Tcp` with one rank run locally.
    pub fn transport(mut self, t: TransportKind) -> Self {
        self.transport = Some(t);
        self
    }

    /// Replaces the whole configuration (every tunable, see [`Config`]).
    pub fn config(mut self, config: Config) -> Self {
        self.config = config;
        self
    }

    /// The configuration this builder holds.
    pub fn get_config(&self) -> &Config {
        &self.config
    }

    /// Number of worker threads (each both trustee and client) — per rank in a rack
    /// run. Default 1.
    pub fn threads(mut self, n: usize) -> Self {
        self.config.threads = n;
        self
    }
    /// Bytes per request/response slot: a multiple of 64 in 256..=16 MiB.
    /// Default 1024 in one process; in a rack run [`rack_slot_size`](crate::rack_slot_size)
    /// of the job's shape (64 KiB on one host), so requests of a few KiB between
    /// ranks travel whole, batched, instead of in pieces.
    pub fn slot_size(mut self, bytes: usize) -> Self {
        self.config.slot_size = Some(bytes);
        self
    }

    /// The slot size a run of this builder uses (see [`Builder::slot_size`]).
    pub fn effective_slot_size(&self) -> usize {
        self.config.effective_slot_size(self.ranks())
    }
    /// Pin worker `i` to the `i`-th allowed CPU (wrapping around). Default true.
    pub fn pin_threads(mut self, pin: bool) -> Self {
        self.config.pin_threads = pin;
        self
    }
    /// Bytes of stack per fiber (at least 16 KiB). Default 256 KiB.
    pub fn stack_size(mut self, bytes: usize) -> Self {
        self.config.stack_size = bytes;
        self
    }

    /// Checks the configuration, with the slot size resolved for this job.
    pub(super) fn validate(&self) -> Result<(), Error> {
        let c = &self.config;
        if c.threads == 0 || c.threads > MAX_THREADS {
            return Err(Error::Config(format!(
                "threads = {}, expected 1..={MAX_THREADS}",
                c.threads
            )));
        }
        let s = self.effective_slot_size();
        if !(slot::MIN_SLOT_SIZE..=slot::MAX_SLOT_SIZE).contains(&s) || !s.is_multiple_of(64) {
            return Err(Error::Config(format!(
                "slot_size = {s}, expected a multiple of 64 between {} and {}",
                slot::MIN_SLOT_SIZE,
                slot::MAX_SLOT_SIZE
            )));
        }
        if self.rank_env.is_none() {
            // In one process the whole square of slots is allocated here.
            check_slot_memory(c.threads, 1, s).map_err(Error::Config)?;
        }
        c.validate().map_err(Error::Config)
    }

    /// Starts the workers, runs `gsm_main` as a fiber on worker 0, waits until every
    /// worker is idle (no runnable fiber, nothing outstanding), drops every property
    /// still entrusted on its trustee, stops the workers and returns `gsm_main`'s value.
    ///
    /// A panic in `gsm_main` is resumed on the calling thread. A panic in delegated
    /// context stops the run and is returned as [`Error::DelegatedPanic`].
    ///
    /// In a rack run ([`Builder::from_env`] with several ranks) this first joins the
    /// other ranks through rank 0. Rank 0 runs `gsm_main` and returns its value once
    /// every rank is idle; **on the other ranks `run` does not return on success**:
    /// they serve requests until rank 0 is done and then exit the process with status
    /// 0. If any rank fails, every rank stops within seconds and `run` returns
    /// [`Error::RankFailed`] naming the failed rank.
    pub fn run<R: Send + 'static>(
        mut self,
        gsm_main: impl FnOnce() -> R + Send + 'static,
    ) -> Result<R, Error> {
        self.validate()?;
        // From here on the slot size is this job's.
        self.config.slot_size = Some(self.effective_slot_size());
        if let Some(env) = self.rank_env.clone() {
            if env.size > 1 {
                return crate::rack::run_rank(self.config, self.transport, env, gsm_main);
            }
        }
        static NEXT_RT: AtomicU64 = AtomicU64::new(1);
        let rt = NEXT_RT.fetch_add(1, Ordering::Relaxed);
        let mut shared = Shared::new(rt, self.config);
        if let Some(b) = self.code_bounds {
            shared.place.code_bounds = b;
        }
        let shared = Arc::new(shared);
        let (body, result) = main_body(&shared, gsm_main);
        let handles = start_workers(&shared, Some(body))?;
        join_workers(&shared, handles);
        finish(&shared, &result)
    }
}

/// Runs `gsm_main` as a fiber on worker 0 of a runtime with `threads` workers and
/// default settings, and returns its value after shutting all workers down.
///
/// Panics with the error's message if the configuration is invalid or a delegated
/// closure panicked (use [`Runtime::builder`] to get a `Result` instead).
///
/// ```
/// let sum = gossamer::main(2, || {
///     let counter = gossamer::entrust_on(gossamer::WorkerId(1), 0u64);
///     for i in 1..=10 {
///         counter.apply(move |c| *c += i);
///     }
///     counter.apply(|c| *c)
/// });
/// assert_eq!(sum, 55);
/// ```
pub fn main<R: Send + 'static>(threads: usize, gsm_main: impl FnOnce() -> R + Send + 'static) -> R {
    match Runtime::builder().threads(threads).run(gsm_main) {
        Ok(v) => v,
        Err(e) => panic!("{e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::WorkerId;

    #[test]
    fn a_code_word_outside_the_accepted_range_is_rejected_not_called() {
        let mut b = Runtime::builder().threads(2).pin_threads(false);
        b.code_bounds = Some((0, 4096));
        let r = b.run(|| {
            let c = crate::entrust(0u64);
            let w = crate::spawn_on(WorkerId(1), move || c.apply(|x| *x += 1));
            w.join();
        });
        match r {
            Err(Error::DelegatedPanic(m)) => {
                assert!(m.contains("rejected a request whose code pointer"), "{m}")
            }
            Err(e) => panic!("wrong error {e}"),
            Ok(()) => panic!("a request with a code word outside the text ran"),
        }
        // the same run with the default bounds is fine
        let ok = Runtime::builder().threads(2).pin_threads(false).run(|| {
            let c = crate::entrust(0u64);
            crate::spawn_on(WorkerId(1), move || c.apply(|x| *x += 1)).join();
        });
        assert!(ok.is_ok());
    }

    #[test]
    fn a_config_sets_every_knob_and_bad_values_are_refused_by_name() {
        let cfg = Config {
            threads: 3,
            pin_threads: false,
            spin_iters: 0,
            yield_iters: 2,
            backpressure_batches: 1,
            slot_size: Some(2048),
            ..Config::default()
        };
        let b = Runtime::builder().config(cfg.clone());
        assert_eq!(b.get_config(), &cfg);
        assert_eq!(b.effective_slot_size(), 2048);
        let r = b.run(|| {
            let c = crate::entrust_on(WorkerId(2), 0u64);
            for _ in 0..100 {
                c.apply_then(|x| *x += 1, |()| {});
            }
            crate::wait_outstanding();
            (crate::num_workers(), c.apply(|x| *x))
        });
        assert_eq!(r, Ok((3, 100)));
        let bad = Config {
            collective_fanout: 1,
            ..Config::default()
        };
        match Runtime::builder().config(bad).run(|| ()) {
            Err(Error::Config(m)) => assert!(m.starts_with("collective_fanout = 1"), "{m}"),
            other => panic!("expected a config error, got {other:?}"),
        }
    }
}
