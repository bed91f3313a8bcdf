//! The Gossamer runtime as the commands set it up: the worker-thread count
//! (rayon's pool gets the same), the request-slot size, and the one start-up
//! every kernel run goes through, which joins a rack job when there is one.

use std::sync::{Arc, Mutex};

use crate::error::{CliError, Result};

/// The worker-thread count: the user's, or [`default_threads`]. Also sizes
/// rayon's global pool (generation, root selection, counting) to it; that
/// part is a no-op if the pool was already started.
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
        None => default_threads(),
    };
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global();
    Ok(threads)
}

/// The default `--threads` of this process: the CPUs it may use, shared
/// among the ranks of its job on this host (see [`default_threads_for`]).
pub fn default_threads() -> usize {
    let var = |k: &str| std::env::var(k).ok();
    let place = HostPlace::from_env(&var);
    default_threads_for(allowed_cpus(), host_cpus(), place)
}

/// The default `--threads` of each of the `ranks` processes the built-in
/// launcher is about to start on this host (`--ranks N`).
pub fn default_threads_of_launch(ranks: usize) -> usize {
    let place = HostPlace {
        ranks_here: ranks,
        bound_by_launcher: false,
    };
    default_threads_for(allowed_cpus(), host_cpus(), place)
}

/// Where a process sits on its host, as its launcher said.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostPlace {
    /// Ranks of the job on this host (1 outside a rack job).
    pub ranks_here: usize,
    /// An external launcher (mpirun, srun) started this rank: then a CPU
    /// set smaller than the host's is the one it gave this rank.
    pub bound_by_launcher: bool,
}

impl HostPlace {
    /// Reads the launchers' variables through `var`: Open MPI's
    /// `OMPI_COMM_WORLD_LOCAL_SIZE`, MPICH's `MPI_LOCALNRANKS`, Slurm's
    /// `SLURM_STEP_TASKS_PER_NODE` at `SLURM_NODEID`, and the built-in
    /// launcher's `GOSSAMER_SIZE` (all of whose ranks share this host, as
    /// gossamer's CPU placement assumes too).
    pub fn from_env(var: &dyn Fn(&str) -> Option<String>) -> HostPlace {
        let num = |k: &str| var(k)?.trim().parse::<usize>().ok().filter(|&n| n >= 1);
        let external = num("OMPI_COMM_WORLD_LOCAL_SIZE")
            .or_else(|| num("MPI_LOCALNRANKS"))
            .or_else(|| {
                let node = num("SLURM_NODEID").unwrap_or(0);
                slurm_tasks_on_node(&var("SLURM_STEP_TASKS_PER_NODE")?, node)
            });
        match external {
            Some(n) => HostPlace {
                ranks_here: n,
                bound_by_launcher: true,
            },
            None => HostPlace {
                ranks_here: num("GOSSAMER_SIZE").unwrap_or(1),
                bound_by_launcher: false,
            },
        }
    }
}

/// Slurm's tasks on node `node` from `SLURM_STEP_TASKS_PER_NODE`, which
/// reads like `2(x3),1`: 2 tasks on each of the first 3 nodes, then 1.
fn slurm_tasks_on_node(spec: &str, node: usize) -> Option<usize> {
    let mut first = 0;
    for part in spec.split(',') {
        let (count, repeat) = match part.split_once("(x") {
            Some((c, r)) => (c, r.strip_suffix(')')?),
            None => (part, "1"),
        };
        let (count, repeat) = (
            count.trim().parse().ok()?,
            repeat.trim().parse::<usize>().ok()?,
        );
        if node < first + repeat {
            return Some(count).filter(|&c: &usize| c >= 1);
        }
        first += repeat;
    }
    None
}

/// The default thread count on plain numbers: `allowed` CPUs this process
/// may use (its affinity mask), the `host`'s online CPUs, and its
/// [`HostPlace`]. A rank an external launcher bound to fewer CPUs than the
/// host has takes them all (`mpirun --bind-to core`, `srun --cpu-bind`:
/// the set is its own); otherwise the ranks on this host share the
/// allowed CPUs evenly (`--ranks 2` on 2 cores: 1 thread each), at least 1.
pub fn default_threads_for(allowed: usize, host: usize, place: HostPlace) -> usize {
    let allowed = allowed.max(1);
    if place.bound_by_launcher && allowed < host {
        return allowed.min(gossamer::MAX_THREADS);
    }
    (allowed / place.ranks_here.max(1)).clamp(1, gossamer::MAX_THREADS)
}

/// The CPUs this process may run on (its affinity mask, and a cgroup
/// quota where there is one).
fn allowed_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The host's online CPUs (`/sys/devices/system/cpu/online`, e.g. `0-3,6`),
/// or the allowed ones when that cannot be read.
fn host_cpus() -> usize {
    std::fs::read_to_string("/sys/devices/system/cpu/online")
        .ok()
        .and_then(|s| count_cpu_list(s.trim()))
        .unwrap_or_else(allowed_cpus)
}

/// The number of CPUs in a kernel CPU list such as `0-3,6,8-9`.
fn count_cpu_list(list: &str) -> Option<usize> {
    list.split(',').try_fold(0, |n, part| {
        let part = part.trim();
        Some(
            n + match part.split_once('-') {
                Some((a, b)) => b.parse::<usize>().ok()? + 1 - a.parse::<usize>().ok()?,
                None => {
                    part.parse::<usize>().ok()?;
                    1
                }
            },
        )
    })
}

/// Checks the shape of a job before anything starts: refuses one whose
/// request/response slots could not fit in this host's memory (with the
/// numbers), and warns when its workers outnumber the cores. `ranks` is the
/// number of processes the built-in launcher is about to start on this host
/// (1 for a one-process run); `threads` is the command's `--threads`.
pub fn check_job(ranks: usize, threads: Option<usize>) -> Result<()> {
    let cores = allowed_cpus();
    let t = threads
        .unwrap_or_else(|| default_threads_of_launch(ranks))
        .clamp(1, gossamer::MAX_THREADS);
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
    let started = std::time::Instant::now();
    let builder = crate::trace::configure(graph_kernel::runtime::builder(threads)?);
    let ranks = builder.ranks();
    KERNEL_PROFILES
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clear();
    let ended = Arc::new(Mutex::new(None));
    let end = ended.clone();
    let answer = builder.run(move || {
        crate::phases::add("runtime start", started.elapsed().as_secs_f64());
        let answer = body();
        *end.lock().unwrap_or_else(|p| p.into_inner()) = Some(std::time::Instant::now());
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
    // From the body's end: collecting the trace and the statistics,
    // stopping the workers, freeing the kernels' graph.
    if let Some(t) = *ended.lock().unwrap_or_else(|p| p.into_inner()) {
        crate::phases::add("runtime teardown", t.elapsed().as_secs_f64());
    }
    // The trace, also of a run whose body failed.
    crate::phases::time("writing the trace", crate::trace::write_collected)?;
    Ok((ranks, answer?))
}

/// Each kernel's trustee counters summed over its runs ([`kernel_window`]),
/// by kernel name, for the last [`run`].
static KERNEL_PROFILES: Mutex<Vec<(&'static str, Vec<gossamer::TrusteeStats>)>> =
    Mutex::new(Vec::new());

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
    let mut last = after
        .iter()
        .zip(&before)
        .map(|(a, b)| (a.worker.index(), a.since(b).busy_ns as f64 * 1e-9))
        .collect::<Vec<_>>();
    last.sort_by_key(|&(w, _)| w);
    *LAST_WINDOW.lock().unwrap_or_else(|p| p.into_inner()) =
        last.into_iter().map(|(_, b)| b).collect();
    out
}

/// Every trustee's busy seconds in the last [`kernel_window`], by worker.
static LAST_WINDOW: std::sync::Mutex<Vec<f64>> = std::sync::Mutex::new(Vec::new());

/// Each trustee's busy seconds (by global worker index) in the last
/// [`kernel_window`]: what the between-searches balancer reads.
pub fn last_window_busy() -> Vec<f64> {
    LAST_WINDOW
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone()
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
static LAST_STATS: Mutex<Vec<gossamer::TrusteeStats>> = Mutex::new(Vec::new());

/// Each rank's peak resident set in KiB (`VmHWM`) at the end of the last
/// [`run`], by rank.
static LAST_PEAKS: Mutex<Vec<u64>> = Mutex::new(Vec::new());

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

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn ranks_on_one_host_share_its_cores() {
        let alone = HostPlace::from_env(&env(&[]));
        assert_eq!(
            alone,
            HostPlace {
                ranks_here: 1,
                bound_by_launcher: false
            }
        );
        assert_eq!(default_threads_for(8, 8, alone), 8);
        // `--ranks 2` on 2 cores: one thread each, not 2 x 2 on 2 cores.
        let ours = HostPlace::from_env(&env(&[("GOSSAMER_RANK", "1"), ("GOSSAMER_SIZE", "2")]));
        assert_eq!(default_threads_for(2, 2, ours), 1);
        assert_eq!(default_threads_for(8, 8, ours), 4);
        // More ranks than cores: still one thread each.
        let many = HostPlace {
            ranks_here: 4,
            bound_by_launcher: false,
        };
        assert_eq!(default_threads_for(2, 2, many), 1);
        // The built-in launcher under `taskset -c 0-3` on an 8-core host.
        assert_eq!(default_threads_for(4, 8, ours), 2);
    }

    #[test]
    fn an_external_launchers_cpu_set_is_the_ranks_own() {
        // mpirun -np 4 --bind-to core on 16 cores: each rank has 1 CPU.
        let mpi = HostPlace::from_env(&env(&[("OMPI_COMM_WORLD_LOCAL_SIZE", "4")]));
        assert_eq!(
            mpi,
            HostPlace {
                ranks_here: 4,
                bound_by_launcher: true
            }
        );
        assert_eq!(default_threads_for(1, 16, mpi), 1);
        // Bound to a socket's 8 cores: 8 threads.
        assert_eq!(default_threads_for(8, 16, mpi), 8);
        // Not bound (--bind-to none): the host's cores shared by 4.
        assert_eq!(default_threads_for(16, 16, mpi), 4);
        let mpich = HostPlace::from_env(&env(&[("MPI_LOCALNRANKS", "2")]));
        assert_eq!(default_threads_for(16, 16, mpich), 8);
        // Slurm: 2 tasks on each of nodes 0-2, 1 on node 3.
        let slurm = |node| {
            HostPlace::from_env(&env(&[
                ("SLURM_STEP_TASKS_PER_NODE", "2(x3),1"),
                ("SLURM_NODEID", node),
            ]))
        };
        assert_eq!(slurm("2").ranks_here, 2);
        assert_eq!(slurm("3").ranks_here, 1);
        assert_eq!(default_threads_for(32, 32, slurm("0")), 16);
    }

    #[test]
    fn cpu_lists_and_slurm_task_lists_parse() {
        assert_eq!(count_cpu_list("0-3,6,8-9"), Some(7));
        assert_eq!(count_cpu_list("0"), Some(1));
        assert_eq!(count_cpu_list("x"), None);
        assert_eq!(slurm_tasks_on_node("4", 0), Some(4));
        assert_eq!(slurm_tasks_on_node("2(x3),1", 3), Some(1));
        assert_eq!(slurm_tasks_on_node("2(x3),1", 4), None);
        assert_eq!(slurm_tasks_on_node("2(x", 0), None);
    }
}
