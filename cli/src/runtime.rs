//! The Gossamer runtime as the commands set it up: the worker-thread count
//! (rayon's pool gets the same), the request-slot size, and the one start-up
//! every kernel run goes through, which joins a rack job when there is one.

use crate::error::{CliError, Result};

/// The worker-thread count: the user's, or every core. Also sizes rayon's
/// global pool (generation, root selection, counting) to it; that part is a
/// no-op if the pool was already started.
pub fn threads(requested: Option<usize>) -> Result<usize> {
    let threads = match requested {
        Some(0) => return Err(CliError::new("--threads 0: give at least 1 thread")),
        Some(t) if t > gossamer::MAX_THREADS => {
            return Err(CliError::new(format!(
                "--threads {t}: at most {} threads are supported",
                gossamer::MAX_THREADS
            )))
        }
        Some(t) => t,
        None => std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1),
    };
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global();
    Ok(threads)
}

/// Checks the shape of a job before anything starts: refuses one whose
/// request/response slots could not fit in this host's memory (with the
/// numbers), and warns when its workers outnumber the cores. `ranks` is the
/// number of processes the built-in launcher is about to start on this host
/// (1 for a one-process run); `threads` is the command's `--threads`.
pub fn check_job(ranks: usize, threads: Option<usize>) -> Result<()> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let t = threads.unwrap_or(cores).clamp(1, gossamer::MAX_THREADS);
    let slot = graph_kernel::runtime::slot_bytes(t, ranks * t);
    gossamer::check_slot_memory(t, ranks, slot).map_err(CliError::new)?;
    let workers = ranks * t;
    if workers > cores {
        eprintln!(
            "warning: {ranks} rank(s) x {t} thread(s) = {workers} workers on {cores} core(s): \
             workers will take turns on the cores and every global agreement waits for all of \
             them, so this run will be much slower than {cores} worker(s) would be"
        );
    }
    Ok(())
}

/// Runs `body` inside a Gossamer runtime of `threads` workers per rank, with
/// the kernels' slot size (`graph_kernel::runtime`, which a library caller
/// uses the same way); returns the number of ranks and `body`'s answer.
/// In a rack job (`--ranks N`, mpirun, srun) every rank joins here: rank 0
/// runs `body`, the others serve their shards and exit when it is done.
pub fn run<T: Send + 'static>(
    threads: usize,
    body: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<(usize, T)> {
    let builder = crate::trace::configure(graph_kernel::runtime::builder(threads)?);
    let ranks = builder.ranks();
    KERNEL_PROFILES
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clear();
    let answer = builder.run(move || {
        let answer = body();
        // Every rank's timeline first (the rounds below are not the run's).
        crate::trace::collect();
        // Every rank's trustees, for the JSON reports (rank 0 runs `body`).
        let stats = gossamer::stats();
        *LAST_STATS.lock().unwrap_or_else(|p| p.into_inner()) = stats;
        // Every rank's peak resident set (each worker reads its process's).
        let hwm =
            gossamer::on_every_worker_with(|()| crate::memtrace::peaks().map_or(0, |p| p.0), ());
        *LAST_PEAKS.lock().unwrap_or_else(|p| p.into_inner()) = hwm
            .chunks(threads.max(1))
            .map(|c| c.iter().copied().max().unwrap_or(0))
            .collect();
        answer
    })?;
    // The trace, also of a run whose body failed.
    crate::trace::write_collected()?;
    Ok((ranks, answer?))
}

/// Each kernel's trustee counters summed over its runs ([`kernel_window`]),
/// by kernel name, for the last [`run`].
static KERNEL_PROFILES: std::sync::Mutex<Vec<(&'static str, Vec<gossamer::TrusteeStats>)>> =
    std::sync::Mutex::new(Vec::new());

/// Runs one kernel call `f` (one search, or a whole-graph kernel) as a
/// labelled region of the trace, and adds what every trustee did meanwhile
/// to `kernel`'s profile. Every worker reads its counters just before and
/// just after (two rounds over every rank, outside the kernel's own timing).
pub fn kernel_window<T>(
    kernel: &'static str,
    label: impl FnOnce() -> String,
    f: impl FnOnce() -> T,
) -> T {
    let before = gossamer::stats();
    let out = gossamer::profile::region(label, f);
    let after = gossamer::stats();
    let mut all = KERNEL_PROFILES.lock().unwrap_or_else(|p| p.into_inner());
    let i = match all.iter().position(|(k, _)| *k == kernel) {
        Some(i) => i,
        None => {
            let zero = after
                .iter()
                .map(|s| gossamer::TrusteeStats {
                    worker: s.worker,
                    ..Default::default()
                })
                .collect();
            all.push((kernel, zero));
            all.len() - 1
        }
    };
    for (acc, (a, b)) in all[i].1.iter_mut().zip(after.iter().zip(&before)) {
        acc.add(&a.since(b));
    }
    out
}

/// What every trustee did during one kernel's runs, as the reports show it.
#[derive(serde::Serialize)]
pub struct KernelProfile {
    /// What the numbers cover.
    pub window: &'static str,
    /// The busiest trustee's busy seconds over the mean busy seconds (1 =
    /// even; `trustees` when one trustee did everything).
    pub imbalance: f64,
    /// Every trustee of every rank.
    pub trustees: Vec<TrusteeProfile>,
    /// The `--trace` file written, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<crate::trace::TraceSummary>,
}

/// One trustee's seconds in a [`KernelProfile`]: busy + idle + collective
/// is at most wall (the rest is what it was doing when its counters were read).
#[derive(serde::Serialize)]
pub struct TrusteeProfile {
    /// Global worker index (`rank * threads + thread`).
    pub worker: usize,
    /// Running delegated work or its own fibers.
    pub busy_s: f64,
    /// Of `busy_s`, serving requests (only with `--trace`, which tells them apart).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delegated_s: Option<f64>,
    /// Of `busy_s`, its own fibers and continuations (only with `--trace`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fiber_s: Option<f64>,
    /// Polling with nothing to do.
    pub idle_s: f64,
    /// In a collective round (all-reduce, barrier), not serving.
    pub collective_s: f64,
    /// Wall-clock seconds of the windows, on this trustee's clock.
    pub wall_s: f64,
}

/// `kernel`'s profile from the last [`run`] (`None` if it never ran).
pub fn kernel_profile(kernel: &str) -> Option<KernelProfile> {
    let all = KERNEL_PROFILES.lock().unwrap_or_else(|p| p.into_inner());
    let (_, stats) = all.iter().find(|(k, _)| *k == kernel)?;
    let traced = crate::trace::file().is_some();
    let s = |ns: u64| ns as f64 * 1e-9;
    Some(KernelProfile {
        window: "the kernel's runs (every search, or the one kernel call), summed; \
                 construction and validation excluded",
        imbalance: gossamer::profile::imbalance(stats),
        trustees: stats
            .iter()
            .map(|t| TrusteeProfile {
                worker: t.worker.index(),
                busy_s: s(t.busy_ns),
                delegated_s: traced.then(|| s(t.delegated_ns)),
                fiber_s: traced.then(|| s(t.fiber_ns)),
                idle_s: s(t.idle_ns),
                collective_s: s(t.collective_ns),
                wall_s: s(t.wall_ns),
            })
            .collect(),
        trace: crate::trace::written(),
    })
}

impl KernelProfile {
    /// The one line of the human-readable reports.
    pub fn summary_line(&self) -> String {
        let total = |f: fn(&TrusteeProfile) -> f64| self.trustees.iter().map(f).sum::<f64>();
        let wall = total(|t| t.wall_s).max(f64::MIN_POSITIVE);
        format!(
            "trustee imbalance {:.2} (busiest / mean busy time over {} trustees); of their time \
             {:.0}% busy, {:.0}% in collectives, {:.0}% idle\n",
            self.imbalance,
            self.trustees.len(),
            100.0 * total(|t| t.busy_s) / wall,
            100.0 * total(|t| t.collective_s) / wall,
            100.0 * total(|t| t.idle_s) / wall,
        )
    }
}

/// The trustee statistics of the last [`run`] (every rank's trustees).
static LAST_STATS: std::sync::Mutex<Vec<gossamer::TrusteeStats>> =
    std::sync::Mutex::new(Vec::new());

/// Each rank's peak resident set in KiB (`VmHWM`) at the end of the last
/// [`run`], by rank.
static LAST_PEAKS: std::sync::Mutex<Vec<u64>> = std::sync::Mutex::new(Vec::new());

/// Each rank's peak resident set in KiB at the end of the last [`run`].
pub fn peak_rss_kib_per_rank() -> Vec<u64> {
    LAST_PEAKS.lock().unwrap_or_else(|p| p.into_inner()).clone()
}

/// One trustee's work in the last [`run`], as the JSON reports show it.
#[derive(serde::Serialize)]
pub struct TrusteeReport {
    /// Global worker index (`rank * threads + thread`).
    pub worker: usize,
    /// Requests served from slots (the local shortcut is not counted).
    pub requests: u64,
    /// Request batches served.
    pub batches: u64,
    /// Seconds running delegated work or its own fibers.
    pub busy_s: f64,
    /// Seconds of worker-loop passes that found nothing to do.
    pub idle_s: f64,
    /// Seconds in collective rounds (not serving meanwhile).
    pub collective_s: f64,
}

/// Every trustee's statistics from the last [`run`] on every rank.
pub fn trustee_reports() -> Vec<TrusteeReport> {
    LAST_STATS
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
        .map(|s| TrusteeReport {
            worker: s.worker.index(),
            requests: s.requests,
            batches: s.batches,
            busy_s: s.busy_ns as f64 * 1e-9,
            idle_s: s.idle_ns as f64 * 1e-9,
            collective_s: s.collective_ns as f64 * 1e-9,
        })
        .collect()
}

/// Runs `body` in a runtime of `threads` workers in this process alone, with
/// the runtime's default slots (`generate --construct`'s measurement).
pub fn run_local<T: Send + 'static>(
    threads: usize,
    body: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    gossamer::Runtime::builder().threads(threads).run(body)?
}
