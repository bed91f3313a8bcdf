//! How big the request slots are, and whether their memory fits: the slot-size
//! rule of a rack run ([`rack_slot_size`]) and the memory check of a job's slots.

use crate::config::Config;
use crate::memory::{available, show_bytes, Available};

/// The memory a check compares with: [`available`], or, where that cannot be
/// read, the most one process can address (so a size that does not even fit
/// in an address is still refused).
fn available_or_address_space() -> Available {
    available().unwrap_or_else(|| Available {
        bytes: isize::MAX as u64,
        source: "the most one process can address".into(),
    })
}

/// Largest number of workers in one runtime (slot memory grows with its square).
pub const MAX_THREADS: usize = 1024;

/// The largest slot [`rack_slot_size`] picks (and the one a host-sized job gets):
/// [`Config::rack_max_slot_bytes`]'s default.
pub const RACK_MAX_SLOT_BYTES: usize = Config::DEFAULT.rack_max_slot_bytes;
/// The smallest slot [`rack_slot_size`] picks (the one-process default):
/// [`Config::rack_min_slot_bytes`]'s default.
pub const RACK_MIN_SLOT_BYTES: usize = Config::DEFAULT.rack_min_slot_bytes;
/// Slot memory [`rack_slot_size`] allows per rank:
/// [`Config::rack_slot_budget_bytes`]'s default.
pub const RACK_SLOT_BUDGET_BYTES: usize = Config::DEFAULT.rack_slot_budget_bytes;

/// The slot size a rack run with the default [`Config`] gets unless
/// [`Builder::slot_size`](crate::Builder::slot_size) sets one, for `threads`
/// workers per rank and `workers` in the whole job: [`Config::rack_slot_size`]
/// of the defaults ([`RACK_MAX_SLOT_BYTES`] unless that would take more than
/// [`RACK_SLOT_BUDGET_BYTES`] per rank, in powers of two, never below
/// [`RACK_MIN_SLOT_BYTES`]).
///
/// ```
/// use gossamer::rack_slot_size;
/// assert_eq!(rack_slot_size(1, 2), 64 << 10);
/// assert_eq!(rack_slot_size(32, 256), 16 << 10); // 8 hosts x 32 threads
/// assert_eq!(rack_slot_size(1024, 1024), 1 << 10);
/// ```
pub fn rack_slot_size(threads: usize, workers: usize) -> usize {
    Config::DEFAULT.rack_slot_size(threads, workers)
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
/// ([`memory::available`](crate::memory::available): `MemAvailable`, or a
/// tighter limit of this process), or, for several ranks, in the free space of `/dev/shm`
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
    let avail = available_or_address_space();
    if need > avail.bytes as u128 {
        return Err(format!(
            "{}, but only {} of memory is available here ({}); {advice}",
            what(),
            show_bytes(avail.bytes),
            avail.source
        ));
    }
    if ranks > 1 {
        if let Some(free) = shm_free() {
            if need > free as u128 {
                return Err(format!(
                    "{}, but /dev/shm has only {} free for the shared-memory transport; {advice}",
                    what(),
                    show_bytes(free)
                ));
            }
        }
    }
    Ok(())
}

/// Refuses, with the numbers, a rank of a job over tcp or rdma whose own slot
/// rows would not fit in the memory available to it: each rank holds
/// `2 x threads x workers` slots (its workers' request and response slots for
/// every worker of the job). For ranks that no launcher of ours checked (started
/// by hand, `mpirun`, `srun`), before anything is allocated.
pub fn check_rank_slot_memory(
    threads: usize,
    ranks: usize,
    slot_size: usize,
) -> Result<(), String> {
    let workers = threads as u128 * ranks as u128;
    let need = 2 * threads as u128 * workers * slot_size as u128;
    let avail = available_or_address_space();
    if need <= avail.bytes as u128 {
        return Ok(());
    }
    Err(format!(
        "{ranks} rank(s) x {threads} thread(s) = {workers} workers: each rank holds 2 x \
             {threads} x {workers} request/response slots of {slot_size} bytes = {}, but only {} \
             of memory is available here ({}); slot memory grows with the worker count: use \
             fewer ranks or threads (one rank per host, one thread per core is the intended shape)",
        show_bytes(need),
        show_bytes(avail.bytes),
        avail.source
    ))
}

fn shm_free() -> Option<u64> {
    // SAFETY: an all-zero statvfs is a valid value to be filled in.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: the path is a NUL-terminated literal and `st` is a valid place
    // for the result; statvfs writes nothing else.
    let rc = unsafe { libc::statvfs(c"/dev/shm".as_ptr(), &mut st) };
    (rc == 0).then(|| (st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::Runtime;

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
        assert!(e.contains("of memory is available here ("), "{e}");
    }

    #[test]
    fn a_ranks_own_slot_rows_that_cannot_fit_are_refused_with_the_numbers() {
        // Over tcp or rdma a rank holds 2 x threads x workers slots: 65536
        // ranks of 1024 threads with 1 KiB slots take 128 TiB each.
        let e = super::check_rank_slot_memory(1024, 65536, 1 << 10).unwrap_err();
        assert!(
            e.contains("65536 rank(s) x 1024 thread(s) = 67108864 workers: each rank holds 2 x 1024 x 67108864 request/response slots of 1024 bytes = "),
            "{e}"
        );
        assert!(e.contains("of memory is available here ("), "{e}");
        // Beyond any address, even where the available memory is unknown.
        let e = super::check_rank_slot_memory(MAX_THREADS, usize::MAX, 1 << 20).unwrap_err();
        assert!(e.contains("use fewer ranks or threads"), "{e}");
        // Two ranks of two threads hold 2 x 2 x 4 slots of 64 KiB: 1 MiB.
        super::check_rank_slot_memory(2, 2, 64 << 10).unwrap();
    }
}
