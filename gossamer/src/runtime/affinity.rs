//! Where worker threads run: pinning them to CPUs (several ranks on one host
//! apart), and telling whether this host is crowded (more workers than cores).

pub(super) fn allowed_cpus() -> Vec<usize> {
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
pub(super) fn first_cpu_slot(cpus: &[usize], threads: usize) -> usize {
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

pub(super) fn pin_to(cpu: usize) {
    // SAFETY: plain bitmask; failure is ignored (pinning is a hint).
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        let _ = libc::sched_setaffinity(0, size_of::<libc::cpu_set_t>(), &set);
    }
}

#[cfg(test)]
mod tests {
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
