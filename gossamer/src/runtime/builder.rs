//! [`Runtime`] and its [`Builder`]: configuring, validating and running a runtime
//! (in one process, or as one rank of a rack run), and [`main`].

use super::affinity::{allowed_cpus, first_cpu_slot, pin_to};
use super::ids::Error;
use super::slot_budget::{check_slot_memory, rack_slot_size, MAX_THREADS};
use super::start::{finish, join_workers, main_body};
use crate::rack::{RankEnv, TransportKind};
use crate::slot;
use crate::worker::{Shared, Worker};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Entry point for configuring a runtime; see [`Builder`].
pub struct Runtime;

impl Runtime {
    /// A builder with the defaults: 1 thread, 1024-byte slots in one process
    /// ([`rack_slot_size`] in a rack run), pinned threads, 256 KiB fiber stacks.
    pub fn builder() -> Builder {
        Builder {
            threads: 1,
            slot_size: 1024,
            slot_size_set: false,
            pin: true,
            stack_size: 256 * 1024,
            rank_env: None,
            transport: None,
            code_bounds: None,
        }
    }
}

/// Runtime configuration.
#[derive(Clone, Debug)]
pub struct Builder {
    pub(crate) threads: usize,
    pub(crate) slot_size: usize,
    /// Whether [`Builder::slot_size`] was called; if not, a rack run takes
    /// [`rack_slot_size`].
    slot_size_set: bool,
    pin: bool,
    stack_size: usize,
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

    /// Number of worker threads (each both trustee and client) — per rank in a rack
    /// run. Default 1.
    pub fn threads(mut self, n: usize) -> Self {
        self.threads = n;
        self
    }
    /// Bytes per request/response slot: a multiple of 64 in 256..=16 MiB.
    /// Default 1024 in one process; in a rack run [`rack_slot_size`] of the
    /// job's shape (64 KiB on one host), so requests of a few KiB between
    /// ranks travel whole, batched, instead of in pieces.
    pub fn slot_size(mut self, bytes: usize) -> Self {
        self.slot_size = bytes;
        self.slot_size_set = true;
        self
    }

    /// The slot size a run of this builder uses (see [`Builder::slot_size`]).
    pub fn effective_slot_size(&self) -> usize {
        match &self.rank_env {
            Some(e) if e.size > 1 && !self.slot_size_set => {
                rack_slot_size(self.threads, self.threads.saturating_mul(e.size))
            }
            _ => self.slot_size,
        }
    }
    /// Pin worker `i` to the `i`-th allowed CPU (wrapping around). Default true.
    pub fn pin_threads(mut self, pin: bool) -> Self {
        self.pin = pin;
        self
    }
    /// Bytes of stack per fiber (at least 16 KiB). Default 256 KiB.
    pub fn stack_size(mut self, bytes: usize) -> Self {
        self.stack_size = bytes;
        self
    }

    pub(super) fn validate(&self) -> Result<(), Error> {
        if self.threads == 0 || self.threads > MAX_THREADS {
            return Err(Error::Config(format!(
                "threads = {}, expected 1..={MAX_THREADS}",
                self.threads
            )));
        }
        let s = self.slot_size;
        if !(slot::MIN_SLOT_SIZE..=slot::MAX_SLOT_SIZE).contains(&s) || !s.is_multiple_of(64) {
            return Err(Error::Config(format!(
                "slot_size = {s}, expected a multiple of 64 between {} and {}",
                slot::MIN_SLOT_SIZE,
                slot::MAX_SLOT_SIZE
            )));
        }
        if self.rank_env.is_none() {
            // In one process the whole square of slots is allocated here.
            check_slot_memory(self.threads, 1, self.slot_size).map_err(Error::Config)?;
        }
        if self.stack_size < 16 * 1024 {
            return Err(Error::Config(format!(
                "stack_size = {}, expected at least 16384 bytes",
                self.stack_size
            )));
        }
        Ok(())
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
        self.slot_size = self.effective_slot_size();
        self.validate()?;
        if let Some(env) = self.rank_env.clone() {
            if env.size > 1 {
                return crate::rack::run_rank(self, env, gsm_main);
            }
        }
        static NEXT_RT: AtomicU64 = AtomicU64::new(1);
        let rt = NEXT_RT.fetch_add(1, Ordering::Relaxed);
        let mut shared = Shared::new(rt, self.threads, self.slot_size);
        if let Some(b) = self.code_bounds {
            shared.place.code_bounds = b;
        }
        let shared = Arc::new(shared);
        let (body, result) = main_body(&shared, gsm_main);
        let handles = self.start_workers(&shared, Some(body))?;
        join_workers(&shared, handles);
        finish(&shared, &result)
    }

    /// Starts this process's workers (global ids from `shared`'s placement); the
    /// first one also runs `main_body` as a fiber.
    pub(crate) fn start_workers(
        &self,
        shared: &Arc<Shared>,
        main_body: Option<Box<dyn FnOnce() + Send>>,
    ) -> Result<Vec<std::thread::JoinHandle<()>>, Error> {
        let cpus = allowed_cpus();
        let first = first_cpu_slot(&cpus, self.threads);
        let mut main_body = main_body;
        let mut handles = Vec::with_capacity(self.threads);
        for (k, i) in shared.local_workers().enumerate() {
            let sh = shared.clone();
            let body = if k == 0 { main_body.take() } else { None };
            let cpu = (self.pin && !cpus.is_empty()).then(|| cpus[(first + k) % cpus.len()]);
            let stack = self.stack_size;
            let spawned = std::thread::Builder::new()
                .name(format!("gossamer-w{i}"))
                .spawn(move || {
                    if let Some(c) = cpu {
                        pin_to(c);
                    }
                    let w = Worker::new(i, sh, stack);
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
}
