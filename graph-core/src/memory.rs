//! Memory estimates for a run, and the refusal text when it will not fit.
//!
//! The model (per rank, conservative; all shares assume an even split,
//! which the partitions give up to one vertex):
//! * edge list: `12 B x M / ranks` (the rank's share of packed records);
//! * CSR: `2 x 8 B x M / ranks` (two adjacency entries per edge, `u32`
//!   neighbour + `f32` weight; self-loops are not subtracted) plus
//!   `8 B x (n / ranks + threads)` offsets;
//! * per-vertex kernel state: `dist f32` (4 B) + `parent` (4 B while
//!   n <= 2^32) + bucket/frontier bits (two bitmaps: 2 bits) per owned
//!   vertex;
//! * construction scratch is the offsets array itself (counted in CSR).
//!
//! `per_rank_bytes` is the sum (the edge list is kept during the run: it is
//! the input of validation). Measured construction peak on one rank matches
//! edge list + CSR (see `examples/build_memory.rs`).

use std::fmt;

use crate::edge_list::MAX_SCALE;

/// Bytes per adjacency entry (u32 neighbour + f32 weight).
pub const ENTRY_BYTES: u64 = 8;
/// Bytes per edge record.
pub const RECORD_BYTES: u64 = 12;

/// Per-rank memory needs of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryEstimate {
    /// Graph500 SCALE.
    pub scale: u32,
    /// Edges per vertex.
    pub edgefactor: u32,
    /// Ranks the graph is spread over.
    pub ranks: u32,
    /// Trustees per rank.
    pub threads_per_rank: u32,
    /// The rank's share of the packed edge list.
    pub edge_list_bytes: u64,
    /// The rank's CSR shards (adjacency + offsets).
    pub csr_bytes: u64,
    /// Per-vertex kernel state (distance, parent, bucket/frontier bits).
    pub vertex_state_bytes: u64,
    /// Sum of the above: bytes one rank needs.
    pub per_rank_bytes: u64,
    /// `per_rank_bytes x ranks`.
    pub total_bytes: u64,
}

/// Estimates the memory a SCALE/edgefactor graph needs over `ranks` ranks of
/// `threads_per_rank` trustees. Zero ranks or threads count as one.
///
/// ```
/// use graph_core::memory::estimate;
/// let one = estimate(20, 16, 1, 2);
/// let two = estimate(20, 16, 2, 2);
/// assert!(two.per_rank_bytes < one.per_rank_bytes);
/// assert_eq!(one.edge_list_bytes, 12 * 16 << 20);
/// ```
pub fn estimate(scale: u32, edgefactor: u32, ranks: u32, threads_per_rank: u32) -> MemoryEstimate {
    let ranks_u = u128::from(ranks.max(1));
    let threads = u128::from(threads_per_rank.max(1));
    let n: u128 = 1u128 << scale.min(127);
    let m = n * u128::from(edgefactor);
    let div_up = |x: u128| x.div_ceil(ranks_u);
    let n_rank = div_up(n);
    let m_rank = div_up(m);
    let edge_list = u128::from(RECORD_BYTES) * m_rank;
    let csr = 2 * u128::from(ENTRY_BYTES) * m_rank + 8 * (n_rank + threads);
    let parent = if scale <= MAX_SCALE { 4 } else { 8 };
    let vertex_state = n_rank * (4 + parent) + (2 * n_rank).div_ceil(8);
    let clamp = |x: u128| u64::try_from(x).unwrap_or(u64::MAX);
    let per_rank = edge_list + csr + vertex_state;
    MemoryEstimate {
        scale,
        edgefactor,
        ranks: ranks.max(1),
        threads_per_rank: threads_per_rank.max(1),
        edge_list_bytes: clamp(edge_list),
        csr_bytes: clamp(csr),
        vertex_state_bytes: clamp(vertex_state),
        per_rank_bytes: clamp(per_rank),
        total_bytes: clamp(per_rank * ranks_u),
    }
}

/// Available memory from `/proc/meminfo` (`MemAvailable`), in bytes; `None`
/// where that file does not exist or cannot be parsed.
pub fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_meminfo(&text)
}

/// Extracts `MemAvailable` (kB) from `/proc/meminfo` text, in bytes.
pub fn parse_meminfo(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let mut parts = line.split_whitespace().skip(1);
    let kb: u64 = parts.next()?.parse().ok()?;
    match parts.next() {
        Some("kB") | None => kb.checked_mul(1024),
        Some(_) => None,
    }
}

/// Largest SCALE (<= 32) whose per-rank estimate fits `available` bytes,
/// or `None` if not even SCALE 1 fits.
pub fn largest_fitting_scale(
    edgefactor: u32,
    ranks: u32,
    threads_per_rank: u32,
    available: u64,
) -> Option<u32> {
    (1..=MAX_SCALE)
        .rev()
        .find(|&s| estimate(s, edgefactor, ranks, threads_per_rank).per_rank_bytes <= available)
}

/// Fewest ranks, each with `available` bytes, on which the graph fits
/// (`None` beyond 2^20 ranks).
pub fn ranks_needed(
    scale: u32,
    edgefactor: u32,
    threads_per_rank: u32,
    available: u64,
) -> Option<u32> {
    let fits =
        |r: u32| estimate(scale, edgefactor, r, threads_per_rank).per_rank_bytes <= available;
    let limit = 1u32 << 20;
    if !fits(limit) {
        return None;
    }
    // per_rank_bytes is non-increasing in ranks: binary search.
    let (mut lo, mut hi) = (1u32, limit);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Some(lo)
}

/// A run that does not fit: everything the refusal message needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryRefusal {
    /// What the run needs.
    pub estimate: MemoryEstimate,
    /// Bytes available per rank.
    pub available: u64,
    /// Largest SCALE that fits here with the same shape.
    pub largest_scale: Option<u32>,
    /// Ranks with this much memory the requested SCALE would need.
    pub ranks_needed: Option<u32>,
}

/// `bytes` in GiB with one decimal (or MiB below 1 GiB).
pub fn human_bytes(bytes: u64) -> String {
    const GIB: f64 = (1u64 << 30) as f64;
    const MIB: f64 = (1u64 << 20) as f64;
    let b = bytes as f64;
    if b >= GIB {
        format!("{:.1} GiB", b / GIB)
    } else {
        format!("{:.1} MiB", b / MIB)
    }
}

impl fmt::Display for MemoryRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = &self.estimate;
        write!(
            f,
            "SCALE {} (edgefactor {}) needs about {} per rank on {} rank(s) (edge list {}, CSR {}, vertex state {}), but only {} is available here (MemAvailable).",
            e.scale,
            e.edgefactor,
            human_bytes(e.per_rank_bytes),
            e.ranks,
            human_bytes(e.edge_list_bytes),
            human_bytes(e.csr_bytes),
            human_bytes(e.vertex_state_bytes),
            human_bytes(self.available),
        )?;
        match self.largest_scale {
            Some(s) => write!(f, " The largest SCALE that fits here is {s}.")?,
            None => write!(f, " No SCALE fits in this much memory.")?,
        }
        match self.ranks_needed {
            Some(r) => write!(
                f,
                " SCALE {} would need at least {r} ranks with this much memory each.",
                e.scale
            ),
            None => write!(
                f,
                " SCALE {} needs more than 2^20 ranks of this size.",
                e.scale
            ),
        }
    }
}

impl std::error::Error for MemoryRefusal {}

/// Checks the estimate against `available` bytes per rank; `Err` carries the
/// user-facing refusal (its `Display` is the message).
///
/// ```
/// use graph_core::memory::{check_fits, estimate};
/// let e = estimate(26, 16, 1, 2);
/// let refusal = check_fits(&e, 1 << 30).unwrap_err();
/// let text = refusal.to_string();
/// assert!(text.contains("SCALE 26 (edgefactor 16) needs about"));
/// assert!(text.contains("The largest SCALE that fits here is"));
/// assert!(check_fits(&e, u64::MAX).is_ok());
/// ```
pub fn check_fits(estimate: &MemoryEstimate, available: u64) -> Result<(), MemoryRefusal> {
    if estimate.per_rank_bytes <= available {
        return Ok(());
    }
    Err(MemoryRefusal {
        estimate: *estimate,
        available,
        largest_scale: largest_fitting_scale(
            estimate.edgefactor,
            estimate.ranks,
            estimate.threads_per_rank,
            available,
        ),
        ranks_needed: ranks_needed(
            estimate.scale,
            estimate.edgefactor,
            estimate.threads_per_rank,
            available,
        ),
    })
}

/// [`check_fits`] against this machine's `MemAvailable`; passes when it
/// cannot be read (no basis for refusing).
pub fn check_fits_here(estimate: &MemoryEstimate) -> Result<(), MemoryRefusal> {
    match available_memory() {
        Some(avail) => check_fits(estimate, avail),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_with_scale_and_edgefactor_shrinks_with_ranks() {
        for s in 1..40 {
            let a = estimate(s, 16, 2, 2);
            let b = estimate(s + 1, 16, 2, 2);
            assert!(b.per_rank_bytes > a.per_rank_bytes, "scale {s}");
            assert!(estimate(s, 32, 2, 2).per_rank_bytes > a.per_rank_bytes);
            assert!(estimate(s, 16, 4, 2).per_rank_bytes <= a.per_rank_bytes);
            assert_eq!(
                a.per_rank_bytes,
                a.edge_list_bytes + a.csr_bytes + a.vertex_state_bytes
            );
        }
    }

    #[test]
    fn scale_20_numbers() {
        let e = estimate(20, 16, 1, 1);
        let m = 16u64 << 20;
        assert_eq!(e.edge_list_bytes, 12 * m);
        assert_eq!(e.csr_bytes, 16 * m + 8 * ((1 << 20) + 1));
        assert_eq!(e.vertex_state_bytes, 8 * (1 << 20) + (1 << 18));
        // About 28.5 bytes per edge plus per-vertex state.
        let per_edge = e.per_rank_bytes as f64 / m as f64;
        assert!((28.5..29.1).contains(&per_edge), "{per_edge}");
    }

    #[test]
    fn refusal_text_names_need_availability_and_ways_out() {
        let e = estimate(30, 16, 1, 2);
        let avail = 20u64 << 30;
        let r = check_fits(&e, avail).unwrap_err();
        let largest = r.largest_scale.unwrap();
        assert!(estimate(largest, 16, 1, 2).per_rank_bytes <= avail);
        assert!(estimate(largest + 1, 16, 1, 2).per_rank_bytes > avail);
        let need = r.ranks_needed.unwrap();
        assert!(estimate(30, 16, need, 2).per_rank_bytes <= avail);
        assert!(estimate(30, 16, need - 1, 2).per_rank_bytes > avail);
        let text = r.to_string();
        assert!(
            text.contains("SCALE 30 (edgefactor 16) needs about"),
            "{text}"
        );
        assert!(text.contains("only 20.0 GiB is available here"), "{text}");
        assert!(
            text.contains(&format!("The largest SCALE that fits here is {largest}.")),
            "{text}"
        );
        assert!(text.contains(&format!("at least {need} ranks")), "{text}");
        let tiny = check_fits(&e, 10).unwrap_err();
        assert!(tiny.to_string().contains("No SCALE fits"));
    }

    #[test]
    fn meminfo_parsing() {
        let text = "MemTotal:       24000000 kB\nMemFree:  1 kB\nMemAvailable:   20000000 kB\n";
        assert_eq!(parse_meminfo(text), Some(20_000_000 * 1024));
        assert_eq!(parse_meminfo("MemTotal: 5 kB\n"), None);
        assert_eq!(parse_meminfo("MemAvailable: lots kB\n"), None);
    }
}
