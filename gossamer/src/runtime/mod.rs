//! Start-up and shut-down, workers, fibers and their join handles: every way to
//! spawn a fiber (`spawn`, `spawn_on`, `spawn_spread`, `on_every_worker`, and across
//! processes `spawn_on_with`, `on_every_worker_with`).

use crate::codec;
use crate::delegable::Delegable;
use crate::fiber::{self, Suspend};
use crate::rack::{RankEnv, TransportKind};
use crate::slot;
use crate::slot::{pad8, AlignedBuf, Reader, RECORD_HEADER};
use crate::stats::TrusteeStats;
use crate::trust::trampolines::{tr_launch_done, tramp};
use crate::trust::values::read_serde;
use crate::worker::{panic_message, try_worker, worker, Cont, Shared, Worker};
use serde::{de::DeserializeOwned, Serialize};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// A worker's global index (one worker = one OS thread = one trustee + one client).
/// In a rack run, worker `rank * threads + t` is thread `t` of rank `rank`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WorkerId(pub usize);

impl WorkerId {
    /// The index as a `usize`.
    pub fn index(self) -> usize {
        self.0
    }
}

impl std::fmt::Display for WorkerId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "worker {}", self.0)
    }
}

/// Why a runtime could not start or finish.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// A configuration value is out of range; the message says which and why.
    Config(String),
    /// The operating system refused to start a worker thread.
    Spawn(String),
    /// A closure running in delegated context panicked; the run was stopped.
    DelegatedPanic(String),
    /// A rack run could not start (bootstrap, identity check, transport setup).
    Rack(String),
    /// A rank of a rack run failed (exited, crashed, lost its connection, or a
    /// delegated closure panicked there); every rank stops with this error. The
    /// message names the rank and the cause.
    RankFailed(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Config(m) => write!(f, "invalid gossamer configuration: {m}"),
            Error::Spawn(m) => write!(f, "could not start a gossamer worker thread: {m}"),
            Error::DelegatedPanic(m) => write!(f, "{m}"),
            Error::Rack(m) => write!(f, "gossamer rack: {m}"),
            Error::RankFailed(m) => write!(f, "{m}"),
        }
    }
}
impl std::error::Error for Error {}

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

/// Largest number of workers in one runtime (slot memory grows with its square).
pub const MAX_THREADS: usize = 1024;

/// The largest slot [`rack_slot_size`] picks (and the one a host-sized job gets).
pub const RACK_MAX_SLOT_BYTES: usize = 64 << 10;
/// The smallest slot [`rack_slot_size`] picks (the one-process default).
pub const RACK_MIN_SLOT_BYTES: usize = 1 << 10;
/// Slot memory [`rack_slot_size`] allows per rank.
pub const RACK_SLOT_BUDGET_BYTES: usize = 256 << 20;

/// The slot size a rack run gets unless [`Builder::slot_size`] sets one, for
/// `threads` workers per rank and `workers` in the whole job:
/// [`RACK_MAX_SLOT_BYTES`] unless that would take more than
/// [`RACK_SLOT_BUDGET_BYTES`] per rank. Each rank holds `2 x threads x
/// workers` slots (its rows of the request and response squares), so on large
/// racks the size shrinks, in powers of two (rounded up, so up to twice the
/// budget), never below [`RACK_MIN_SLOT_BYTES`].
///
/// Why large: a pair has one request slot and one batch in flight, and a
/// request bigger than the slot travels in slot-sized pieces, each answered
/// before the next is written (one round trip per piece). With 1 KiB slots a
/// 4 KiB request took five round trips and never shared a batch; with 64 KiB
/// slots it is one record among up to fifteen in one batch. Only the used
/// tail of a slot is copied, so small requests do not pay for the size.
///
/// ```
/// use gossamer::rack_slot_size;
/// assert_eq!(rack_slot_size(1, 2), 64 << 10);
/// assert_eq!(rack_slot_size(32, 256), 16 << 10); // 8 hosts x 32 threads
/// assert_eq!(rack_slot_size(1024, 1024), 1 << 10);
/// ```
pub fn rack_slot_size(threads: usize, workers: usize) -> usize {
    let per_rank_slots = 2 * threads.max(1) * workers.max(1);
    (RACK_SLOT_BUDGET_BYTES / per_rank_slots)
        .clamp(RACK_MIN_SLOT_BYTES, RACK_MAX_SLOT_BYTES)
        .next_power_of_two()
        .min(RACK_MAX_SLOT_BYTES)
}

/// Bytes of request and response slots that `ranks` ranks of `threads`
/// workers each need together: two squares of `n x n` slots, `n` = all
/// workers. On one host (one process, or ranks started by the built-in
/// launcher) all of it is this host's memory; in the shared-memory transport
/// it is the size of the one shared region.
pub fn slot_memory_bytes(threads: usize, ranks: usize, slot_size: usize) -> u128 {
    let n = threads as u128 * ranks as u128;
    2 * n * n * slot_size as u128
}

/// Refuses, with the numbers, a job whose slot memory on this host
/// ([`slot_memory_bytes`]) would not fit in the memory available here
/// (`MemAvailable`), or, for several ranks, in the free space of `/dev/shm`
/// that the shared-memory transport maps. Call it before starting anything:
/// the built-in launcher's caller before it starts the ranks.
pub fn check_slot_memory(threads: usize, ranks: usize, slot_size: usize) -> Result<(), String> {
    let need = slot_memory_bytes(threads, ranks, slot_size);
    let workers = threads as u128 * ranks as u128;
    let what = || {
        format!(
            "{ranks} rank(s) x {threads} thread(s) = {workers} workers need 2 x {workers} x \
             {workers} request/response slots of {slot_size} bytes = {}",
            show_bytes(need)
        )
    };
    let advice = "slot memory grows with the square of the worker count: use fewer ranks or \
                  threads (one rank per host, one thread per core is the intended shape)";
    if let Some(avail) = mem_available() {
        if need > avail as u128 {
            return Err(format!(
                "{}, but only {} of memory is available here (MemAvailable); {advice}",
                what(),
                show_bytes(avail as u128)
            ));
        }
    }
    if ranks > 1 {
        if let Some(free) = shm_free() {
            if need > free as u128 {
                return Err(format!(
                    "{}, but /dev/shm has only {} free for the shared-memory transport; {advice}",
                    what(),
                    show_bytes(free as u128)
                ));
            }
        }
    }
    Ok(())
}

fn show_bytes(b: u128) -> String {
    const GIB: f64 = (1u64 << 30) as f64;
    const MIB: f64 = (1u64 << 20) as f64;
    let f = b as f64;
    if f >= GIB {
        format!("{:.1} GiB", f / GIB)
    } else {
        format!("{:.1} MiB", f / MIB)
    }
}

fn mem_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kb.checked_mul(1024)
}

fn shm_free() -> Option<u64> {
    // SAFETY: an all-zero statvfs is a valid value to be filled in.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: the path is a NUL-terminated literal and `st` is a valid place
    // for the result; statvfs writes nothing else.
    let rc = unsafe { libc::statvfs(c"/dev/shm".as_ptr(), &mut st) };
    (rc == 0).then(|| (st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
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

    fn validate(&self) -> Result<(), Error> {
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

fn allowed_cpus() -> Vec<usize> {
    // SAFETY: `set` is a plain bitmask we own; sched_getaffinity fills it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Vec::new();
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect()
    }
}

/// Where this process's workers start in `cpus` (its allowed CPUs) when they
/// are pinned: worker `k` goes to `cpus[(first + k) % cpus.len()]`.
///
/// Several ranks on one host must not pile onto the same CPUs (with 2 ranks
/// of 1 thread each, both workers used to sit on CPU 0). The rank's place on
/// its host (its local rank) times `threads` is the offset. One exception:
/// an external launcher that binds each rank to CPUs of its own
/// (`mpirun --bind-to core`, `srun --cpu-bind`) leaves the rank fewer CPUs
/// than the host has; that set is already the rank's own, so its workers
/// fill it from the start. The built-in launcher binds nothing, so its ranks
/// always take the offset (also when the whole job was started under
/// `taskset`).
fn first_cpu_slot(cpus: &[usize], threads: usize) -> usize {
    // SAFETY: sysconf only reads a system setting.
    let host_cpus = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    let host_cpus = usize::try_from(host_cpus).unwrap_or(0);
    cpu_offset(cpus.len(), host_cpus, local_rank(), threads)
}

/// [`first_cpu_slot`]'s rule on plain numbers: `allowed` CPUs of the
/// `host`'s, this rank's `(local rank, started by the built-in launcher)`.
fn cpu_offset(allowed: usize, host: usize, local: Option<(usize, bool)>, threads: usize) -> usize {
    match local {
        None => 0,
        // An external launcher bound this rank to CPUs of its own.
        Some((_, false)) if allowed < host => 0,
        Some((r, _)) => r.saturating_mul(threads),
    }
}

/// True when this host runs more workers than this process may use cores:
/// `local` workers here, times the ranks the launcher put on this host
/// (`OMPI_COMM_WORLD_LOCAL_SIZE`, `MPI_LOCALNRANKS`, or the built-in
/// launcher's `GOSSAMER_SIZE`, all of whose ranks share this host).
pub(crate) fn crowded(local: usize) -> bool {
    let var = |k: &str| std::env::var(k).ok()?.trim().parse::<usize>().ok();
    let ranks_here = [
        "OMPI_COMM_WORLD_LOCAL_SIZE",
        "MPI_LOCALNRANKS",
        "GOSSAMER_SIZE",
    ]
    .iter()
    .find_map(|k| var(k))
    .unwrap_or(1);
    // The CPUs this process may use (a launcher may have bound it to a few)
    // and the host's.
    let allowed = std::thread::available_parallelism().map_or(1, |n| n.get());
    // SAFETY: sysconf only reads a system setting.
    let host = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    let host = usize::try_from(host).unwrap_or(allowed).max(allowed);
    local > allowed || local.saturating_mul(ranks_here.max(1)) > host
}

/// This process's index among the ranks on its host, from the launcher's
/// variables, and whether the built-in launcher started it.
fn local_rank() -> Option<(usize, bool)> {
    let var = |k: &str| std::env::var(k).ok()?.trim().parse::<usize>().ok();
    const EXTERNAL: [&str; 3] = [
        "OMPI_COMM_WORLD_LOCAL_RANK",
        "MPI_LOCALRANKID",
        "SLURM_LOCALID",
    ];
    if let Some(r) = EXTERNAL.iter().find_map(|k| var(k)) {
        return Some((r, false));
    }
    // The built-in launcher starts every rank on this host: its rank is
    // the local rank.
    var("GOSSAMER_RANK").map(|r| (r, true))
}

fn pin_to(cpu: usize) {
    // SAFETY: plain bitmask; failure is ignored (pinning is a hint).
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        let _ = libc::sched_setaffinity(0, size_of::<libc::cpu_set_t>(), &set);
    }
}

/// Number of workers of the running runtime (of all ranks in a rack run).
pub fn num_workers() -> usize {
    worker("num_workers").n()
}

/// True when worker `w` runs in this process (always, outside a rack run): values
/// can then move to it through memory ([`entrust_on`](crate::entrust_on),
/// [`spawn_on`]); otherwise use [`entrust_with`](crate::entrust_with) and
/// [`spawn_on_with`](crate::spawn_on_with).
pub fn is_local_worker(w: WorkerId) -> bool {
    worker("is_local_worker").shared.is_local(w.0)
}

/// The worker the caller runs on.
pub fn current_worker() -> WorkerId {
    WorkerId(worker("current_worker").id)
}

/// Checks that a blocking call is allowed here and returns the worker.
pub(crate) fn blocking_point(what: &str) -> &'static Worker {
    let w = worker(what);
    if w.delegated.get() > 0 {
        panic!(
            "gossamer: `{what}` blocks, but it was called in delegated context (a closure running on a trustee, \
             or an `apply_then` continuation), where blocking would stall the trustee and can deadlock. \
             Use `apply_then` and continue in its `then` closure, or put the property in a `Latch` and use \
             `launch`, whose closure runs in its own fiber and may block."
        );
    }
    if !fiber::in_fiber() {
        panic!("gossamer: `{what}` must be called from a fiber (inside `gossamer::main` or a spawned fiber)");
    }
    w
}

/// Gives the CPU to the next ready fiber of this worker (and lets the worker loop
/// send, serve and poll). A no-op in delegated context, which never suspends.
pub fn yield_now() {
    if let Some(w) = try_worker() {
        if w.delegated.get() == 0 && fiber::in_fiber() {
            fiber::suspend(Suspend::Yield);
        }
    }
}

/// Suspends the calling fiber until every request this worker issued so far has
/// been answered and its continuation has run (including `launch_then`s and local
/// requests deferred from delegated context). Requests issued after the call
/// began, e.g. by those continuations, are not waited for: call it again for them.
/// Panics in delegated context.
pub fn wait_outstanding() {
    let w = blocking_point("wait_outstanding");
    let marks = w.issued_marks();
    while !w.marks_done(&marks) {
        w.wait_for_completion();
    }
}

/// Statistics of every trustee of the running runtime, indexed by worker, on
/// every rank of a rack run. In a rack run the other ranks' counters are
/// fetched by delegation, so call it from a fiber (it waits for them).
pub fn stats() -> Vec<TrusteeStats> {
    let w = worker("stats");
    if !w.shared.place.rack {
        return (0..w.n())
            .map(|i| w.shared.stats[i].snapshot(WorkerId(i)))
            .collect();
    }
    // One fiber per worker reads its own counters (a plain fn: no captures).
    fn own(_: ()) -> [u64; 4] {
        let w = worker("stats");
        let s = w.shared.stats[w.id].snapshot(WorkerId(w.id));
        [s.requests, s.batches, s.idle_ns, s.busy_ns]
    }
    on_every_worker_with(own, ())
        .into_iter()
        .enumerate()
        .map(|(i, [requests, batches, idle_ns, busy_ns])| TrusteeStats {
            worker: WorkerId(i),
            requests,
            batches,
            idle_ns,
            busy_ns,
        })
        .collect()
}

/// Statistics of one trustee.
pub fn trustee_stats(t: WorkerId) -> TrusteeStats {
    let w = worker("trustee_stats");
    assert!(
        t.0 < w.n(),
        "gossamer: trustee_stats({t}) but there are only {} workers",
        w.n()
    );
    w.shared.stats[t.0].snapshot(t)
}

// ------------------------------------------------------------------ fibers

struct JoinInner<R> {
    result: Option<std::thread::Result<R>>,
    waiter: Option<(usize, usize)>,
}

/// Owned permission to wait for a fiber's result.
pub struct JoinHandle<R> {
    state: Arc<Mutex<JoinInner<R>>>,
    worker: WorkerId,
}

impl<R: Send + 'static> JoinHandle<R> {
    /// A handle whose result is delivered later by calling the returned closure (on
    /// a worker of this process).
    pub(crate) fn pending(target: WorkerId) -> (Self, impl FnOnce(R) + 'static) {
        let state = Arc::new(Mutex::new(JoinInner {
            result: None,
            waiter: None,
        }));
        let st = state.clone();
        let complete = move |v: R| {
            let waiter = {
                let mut g = st.lock().unwrap_or_else(|p| p.into_inner());
                g.result = Some(Ok(v));
                g.waiter.take()
            };
            if let Some((wid, fid)) = waiter {
                let me = worker("join wake-up");
                if wid == me.id {
                    me.wake(fid);
                } else {
                    me.shared.post(wid, |ib| ib.wakes.push(fid));
                }
            }
        };
        (
            JoinHandle {
                state,
                worker: target,
            },
            complete,
        )
    }
}

impl<R> JoinHandle<R> {
    /// The worker the fiber runs on.
    pub fn worker(&self) -> WorkerId {
        self.worker
    }
    /// True once the fiber has finished.
    pub fn is_finished(&self) -> bool {
        self.state
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .result
            .is_some()
    }
    /// Suspends the calling fiber (only) until the fiber finishes; returns its value.
    ///
    /// A panic in the fiber ends the whole run (other fibers may be waiting on
    /// it): the runtime stops and `run` returns [`Error::DelegatedPanic`] with
    /// the panic message. If this join is reached first, the panic is resumed
    /// here.
    pub fn join(self) -> R {
        let w = blocking_point("join");
        let mut g = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if g.result.is_none() {
            g.waiter = Some((w.id, w.current_fiber()));
            drop(g);
            w.park();
            g = self.state.lock().unwrap_or_else(|p| p.into_inner());
        }
        match g.result.take().expect("joined fiber has a result") {
            Ok(v) => v,
            Err(p) => resume_unwind(p),
        }
    }
}

/// Spawns a fiber on the current worker.
pub fn spawn<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> JoinHandle<R> {
    let w = worker("spawn");
    spawn_on(WorkerId(w.id), f)
}

/// Spawns a fiber on worker `target`. The fiber stays on that worker's thread.
pub fn spawn_on<R: Send + 'static>(
    target: WorkerId,
    f: impl FnOnce() -> R + Send + 'static,
) -> JoinHandle<R> {
    let w = worker("spawn_on");
    assert!(
        target.0 < w.n(),
        "gossamer: spawn_on({target}) but there are only {} workers",
        w.n()
    );
    assert!(
        w.shared.is_local(target.0),
        "gossamer: spawn_on({target}) targets another process (rank) of this rack run; a fiber \
         capturing arbitrary values cannot go there. Use `spawn_on_with` (a Delegable closure \
         plus a serialized payload) instead"
    );
    let state = Arc::new(Mutex::new(JoinInner {
        result: None,
        waiter: None,
    }));
    let st = state.clone();
    let body = move || {
        let r = catch_unwind(AssertUnwindSafe(f));
        if let Err(p) = &r {
            // Other fibers may wait on this one through a collective or a
            // trust it would have answered: a panic here ends the whole run
            // instead of leaving them parked forever.
            let me = worker("fiber panic");
            me.shared.poison(format!(
                "gossamer: a fiber panicked on worker {}: {}",
                me.id,
                panic_message(&**p)
            ));
        }
        let waiter = {
            let mut g = st.lock().unwrap_or_else(|p| p.into_inner());
            g.result = Some(r);
            g.waiter.take()
        };
        if let Some((wid, fid)) = waiter {
            let me = worker("join wake-up");
            if wid == me.id {
                me.wake(fid);
            } else {
                me.shared.post(wid, |ib| ib.wakes.push(fid));
            }
        }
    };
    if target.0 == w.id {
        w.spawn_local(Box::new(body));
    } else {
        w.shared.post(target.0, |ib| ib.spawns.push(Box::new(body)));
    }
    JoinHandle {
        state,
        worker: target,
    }
}

/// Spawns `n` fibers `f(0)..f(n-1)`, round-robin over the workers starting at 0.
pub fn spawn_spread<R: Send + 'static>(
    n: usize,
    f: impl Fn(usize) -> R + Send + Sync + Clone + 'static,
) -> Vec<JoinHandle<R>> {
    let nw = num_workers();
    (0..n)
        .map(|i| {
            let f = f.clone();
            spawn_on(WorkerId(i % nw), move || f(i))
        })
        .collect()
}

/// Runs `f` once on every worker (one fiber each), waits for all, and returns the
/// results indexed by worker. Same-process only: in a rack run with several ranks
/// use [`on_every_worker_with`](crate::on_every_worker_with).
pub fn on_every_worker<R: Send + 'static>(f: impl Fn() -> R + Send + Sync + 'static) -> Vec<R> {
    let f = Arc::new(f);
    let hs: Vec<_> = (0..num_workers())
        .map(|i| {
            let f = f.clone();
            spawn_on(WorkerId(i), move || f())
        })
        .collect();
    hs.into_iter().map(JoinHandle::join).collect()
}

// ---------------------------------------------- fibers across processes (ranks)
// The closure crosses as bytes and the payload and result are serialized; the
// spawn request is an ordinary record whose trampoline starts the fiber, and the
// result comes back as a launch completion (`tr_launch_done`).

/// Starts a `spawn_on_with` fiber on this worker; its result goes back to the
/// spawning worker as a launch completion.
///
/// # Safety
/// A trampoline (see `trust/trampolines.rs`): `r` must be positioned at an `F`
/// written by `put_value`, then the client's worker id and the completion token as
/// `u64`s, then the payload (by `send_spawn` for these `F, V, R`; a malformed
/// payload only panics); the property word is unused.
unsafe fn tr_spawn_with<F, V, R>(_: u64, r: &mut Reader, _: &mut AlignedBuf)
where
    F: FnOnce(V) -> R + Copy + 'static,
    V: DeserializeOwned + 'static,
    R: Serialize + 'static,
{
    // SAFETY: the client wrote F with `put_value`, then its worker id, the token and
    // the payload (caller contract).
    let f: F = unsafe { r.value() };
    let client = r.u64() as usize;
    let token = r.u64();
    let v: V = read_serde(r);
    let w = worker("spawn_on_with");
    w.spawn_local(Box::new(move || {
        let w = worker("spawn_on_with");
        match catch_unwind(AssertUnwindSafe(move || f(v))) {
            Ok(res) => {
                let mut bytes = Vec::new();
                codec::encode_into(&res, &mut bytes).unwrap_or_else(|e| {
                    panic!("gossamer: could not encode a spawn_on_with result: {e}")
                });
                if client == w.id {
                    let mut buf = AlignedBuf::default();
                    let d = buf.reserve(8);
                    // SAFETY: 8 bytes reserved, 8-aligned.
                    unsafe { (d as *mut u64).write(bytes.len() as u64) };
                    buf.extend(bytes.as_ptr(), bytes.len());
                    // SAFETY: reading our own buffer.
                    let mut r = unsafe { Reader::new(buf.as_ptr(), buf.len()) };
                    w.finish_launch(token, &mut r);
                } else {
                    let q = w.enqueue(
                        client,
                        tramp!(tr_launch_done),
                        token,
                        RECORD_HEADER + 8 + pad8(bytes.len()),
                        Cont::Skip,
                        |wr| wr.put_bytes(bytes.as_ptr(), bytes.len()),
                    );
                    w.backpressure(q);
                }
            }
            Err(e) => {
                let msg = panic_message(&*e);
                w.shared.poison(format!(
                    "gossamer: a fiber started with spawn_on_with panicked on worker {}: {msg}",
                    w.id
                ));
            }
        }
    }));
}

/// Spawns a fiber running `f(payload)` on worker `target`, which may be in another
/// process (rank) of a rack run: `f` crosses as bytes (it must be [`Delegable`]) and
/// `payload` and the result are serialized, so they may hold heap values and
/// [`Trust`](crate::Trust)s. Use [`spawn_on`](crate::spawn_on) for same-process fibers capturing
/// anything `Send`.
///
/// A panic in the fiber stops the whole run (like a delegated closure's).
///
/// ```
/// let v = gossamer::main(2, || {
///     let counter = gossamer::entrust(0u64);
///     let h = gossamer::spawn_on_with(gossamer::WorkerId(1), |(c, n): (gossamer::Trust<u64>, u64)| {
///         c.apply(move |x| { *x += n; *x })
///     }, (counter.clone(), 5));
///     h.join()
/// });
/// assert_eq!(v, 5);
/// ```
pub fn spawn_on_with<V, R>(
    target: WorkerId,
    f: impl FnOnce(V) -> R + Delegable,
    payload: V,
) -> crate::runtime::JoinHandle<R>
where
    V: Serialize + DeserializeOwned + 'static,
    R: Serialize + DeserializeOwned + Send + 'static,
{
    let w = worker("spawn_on_with");
    assert!(
        target.0 < w.n(),
        "gossamer: spawn_on_with({target}) but there are only {} workers",
        w.n()
    );
    let (handle, complete) = crate::runtime::JoinHandle::<R>::pending(target);
    let token = w.add_spawn(Box::new(move |r: &mut Reader| complete(read_serde::<R>(r))));
    send_spawn(w, target.0, f, &payload, token);
    handle
}

fn send_spawn<F, V, R>(w: &Worker, target: usize, f: F, payload: &V, token: u64)
where
    F: FnOnce(V) -> R + Copy + 'static,
    V: Serialize + DeserializeOwned + 'static,
    R: Serialize + 'static,
{
    let mut bytes = Vec::new();
    codec::encode_into(payload, &mut bytes)
        .unwrap_or_else(|e| panic!("gossamer: could not encode the spawn_on_with payload: {e}"));
    let len = RECORD_HEADER + pad8(size_of::<F>()) + 16 + 8 + pad8(bytes.len());
    let me = w.id as u64;
    let q = w.enqueue(
        target,
        tramp!(tr_spawn_with::<F, V, R>),
        0,
        len,
        Cont::Skip,
        |wr| {
            wr.put_value(f);
            wr.put_u64(me);
            wr.put_u64(token);
            wr.put_bytes(bytes.as_ptr(), bytes.len());
        },
    );
    w.backpressure(q);
}

/// Runs `f(payload.clone())` once on every worker of every rank (one fiber each),
/// waits for all and returns the results indexed by worker: the rack-wide
/// [`on_every_worker`](crate::on_every_worker). See [`spawn_on_with`].
pub fn on_every_worker_with<V, R>(f: impl Fn(V) -> R + Delegable, payload: V) -> Vec<R>
where
    V: Serialize + DeserializeOwned + Clone + 'static,
    R: Serialize + DeserializeOwned + Send + 'static,
{
    let n = crate::runtime::num_workers();
    let hs: Vec<_> = (0..n)
        .map(|i| spawn_on_with(WorkerId(i), f, payload.clone()))
        .collect();
    hs.into_iter().map(|h| h.join()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn slot_memory_that_cannot_fit_is_refused_with_the_numbers() {
        // The issue's case: 1000 ranks x 1 thread with 64 KiB slots.
        assert_eq!(
            super::slot_memory_bytes(1, 1000, 64 << 10),
            2 * 1000 * 1000 * 65536
        );
        let e = super::check_slot_memory(1, 1000, 64 << 10).unwrap_err();
        assert!(
            e.contains("1000 rank(s) x 1 thread(s) = 1000 workers"),
            "{e}"
        );
        assert!(e.contains("122.1 GiB"), "{e}");
        assert!(e.contains("use fewer ranks or threads"), "{e}");
        // A normal job fits.
        super::check_slot_memory(2, 2, 64 << 10).unwrap();
        // And the builder refuses a one-process square that cannot fit.
        let big = Runtime::builder().threads(MAX_THREADS).slot_size(16 << 20);
        let e = big.validate().unwrap_err().to_string();
        assert!(e.contains("MemAvailable"), "{e}");
    }

    #[test]
    fn ranks_on_one_host_pin_to_different_cpus() {
        // 2 ranks x 1 thread from the built-in launcher on a 2-CPU host: CPU 0
        // and CPU 1, not both on CPU 0.
        assert_eq!(super::cpu_offset(2, 2, Some((0, true)), 1), 0);
        assert_eq!(super::cpu_offset(2, 2, Some((1, true)), 1), 1);
        // 2 ranks x 2 threads under mpirun without binding, 4 CPUs.
        assert_eq!(super::cpu_offset(4, 4, Some((1, false)), 2), 2);
        // mpirun --bind-to core gave the rank 1 of 4 CPUs: it is its own.
        assert_eq!(super::cpu_offset(1, 4, Some((3, false)), 1), 0);
        // The built-in launcher under taskset: still offset by the rank.
        assert_eq!(super::cpu_offset(2, 8, Some((1, true)), 1), 1);
        // A single process starts at its first allowed CPU.
        assert_eq!(super::cpu_offset(8, 8, None, 4), 0);
    }
}
