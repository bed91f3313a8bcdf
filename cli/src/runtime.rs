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
    let builder = graph_kernel::runtime::builder(threads)?;
    let ranks = builder.ranks();
    let answer = builder.run(move || {
        let answer = body();
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
    })??;
    Ok((ranks, answer))
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
    /// Seconds spent running request batches.
    pub busy_s: f64,
    /// Seconds of worker-loop passes that found nothing to do.
    pub idle_s: f64,
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
