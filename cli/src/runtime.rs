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
    let slot = kernel_slot_bytes(t, ranks * t);
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
/// the kernels' slot size; returns the number of ranks and `body`'s answer.
/// In a rack job (`--ranks N`, mpirun, srun) every rank joins here: rank 0
/// runs `body`, the others serve their shards and exit when it is done.
pub fn run<T: Send + 'static>(
    threads: usize,
    body: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<(usize, T)> {
    let builder = gossamer::Builder::from_env()?.threads(threads);
    let ranks = builder.ranks();
    let builder = builder.slot_size(kernel_slot_bytes(threads, ranks * threads));
    let answer = builder.run(move || {
        let answer = body();
        // Every rank's trustees, for the JSON reports (rank 0 runs `body`).
        let stats = gossamer::stats();
        *LAST_STATS.lock().unwrap_or_else(|p| p.into_inner()) = stats;
        answer
    })??;
    Ok((ranks, answer))
}

/// The trustee statistics of the last [`run`] (every rank's trustees).
static LAST_STATS: std::sync::Mutex<Vec<gossamer::TrusteeStats>> =
    std::sync::Mutex::new(Vec::new());

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

/// Slot size for the kernels. They send slot-filling batches of records,
/// and 64 KiB slots measured 1.4-1.5x faster than the runtime's 1 KiB
/// default for SSSP at SCALE 18 (results/kernels/delta.md, run C). Each rank
/// holds 2 x threads x workers slots (its rows of the request and response
/// squares, dissertation section 4.7), so on large racks the size shrinks to
/// keep that under 256 MiB per rank, never below the runtime's default.
fn kernel_slot_bytes(threads: usize, workers: usize) -> usize {
    // One definition, shared with the memory estimate.
    graph_core::memory::kernel_slot_bytes(threads, workers)
}

#[cfg(test)]
mod tests {
    use super::kernel_slot_bytes;

    #[test]
    fn slots_are_large_on_a_host_and_bounded_on_a_rack() {
        assert_eq!(kernel_slot_bytes(2, 2), 64 << 10);
        assert_eq!(kernel_slot_bytes(2, 8), 64 << 10);
        // 8 hosts x 32 threads: 16K slots per rank of 16 KiB each (256 MiB).
        assert_eq!(kernel_slot_bytes(32, 256), 16 << 10);
        // 1024 workers in one process: 2M slots; the size floors at 1 KiB.
        assert_eq!(kernel_slot_bytes(1024, 1024), 1 << 10);
        for (t, w) in [
            (1, 1),
            (3, 3),
            (4, 40),
            (64, 64),
            (2, 90),
            (8, 200),
            (16, 1000),
        ] {
            let s = kernel_slot_bytes(t, w);
            assert!(
                s.is_power_of_two() && (1 << 10..=64 << 10).contains(&s),
                "{t}x{w}: {s}"
            );
        }
    }
}
