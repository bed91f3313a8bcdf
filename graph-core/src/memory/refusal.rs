//! A run that does not fit: [`check_fits`] and the text of its
//! [`MemoryRefusal`], whose advice names a SCALE and a rank count that fit.

use std::fmt;

use super::ranks::{largest_fitting_scale, ranks_needed, ranks_needed_for, why_no_rank_count_fits};
use super::run::{MemoryEstimate, Shape};
use gossamer::memory::show_bytes;

/// A run that does not fit: everything the refusal message needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryRefusal {
    /// What this rank needs (boxed: the phases make it large).
    pub estimate: Box<MemoryEstimate>,
    /// Bytes available per rank.
    pub available: u64,
    /// Where `available` comes from, for the message: `MemAvailable` unless
    /// the caller says otherwise (a tighter limit of the process, see
    /// [`gossamer::memory::available`]).
    pub source: String,
    /// Largest SCALE that fits here with the same shape.
    pub largest_scale: Option<u32>,
    /// Fewest ranks with this much memory each that the requested SCALE fits on.
    pub ranks_needed: Option<u32>,
}

impl fmt::Display for MemoryRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = &self.estimate;
        let peak = e.peak_phase();
        let graph = match e.exact {
            Some((n, m)) => {
                let s = if m == 1 { "" } else { "s" };
                format!("on this graph ({n} vertices, {m} edge{s})")
            }
            None => format!("at SCALE {} (edgefactor {})", e.scale, e.edgefactor),
        };
        write!(
            f,
            "{} {graph} needs about {} on rank {} of {} ({} thread(s) per rank; the peak is in {}), but only {} is available here ({}).",
            e.workload.name(),
            show_bytes(e.per_rank_bytes),
            e.rank,
            e.ranks,
            e.threads_per_rank,
            peak.name,
            show_bytes(self.available),
            self.source,
        )?;
        let shape = Shape {
            exact: e.exact,
            ..Shape::even(e.scale, e.edgefactor, e.ranks, e.threads_per_rank)
        };
        // What fits, at the start of a sentence and inside one.
        let (what, what_in) = match e.exact {
            Some(_) => ("This graph".to_string(), "this graph".to_string()),
            None => {
                match self.largest_scale {
                    Some(s) => write!(f, " The largest SCALE that fits here is {s}.")?,
                    None => write!(f, " No SCALE fits in this much memory.")?,
                }
                let s = format!("SCALE {}", e.scale);
                (s.clone(), s)
            }
        };
        match self.ranks_needed {
            Some(1) => write!(f, " {what} fits on 1 rank with this much memory.")?,
            Some(r) => write!(
                f,
                " {what} fits on {r} ranks with this much memory each (--ranks {r}), on separate hosts: ranks started on one host share its memory."
            )?,
            None => write!(
                f,
                " No number of ranks with this much memory each fits {what_in} today: {}.",
                why_no_rank_count_fits(e.workload, shape),
            )?,
        }
        if e.exact.is_some() {
            return Ok(());
        }
        write!(
            f,
            " Per phase: gossamer-graph plan --scale {} --edgefactor {} --ranks {} --threads {} --memory {}.",
            e.scale,
            e.edgefactor,
            e.ranks,
            e.threads_per_rank,
            self.available
        )
    }
}

impl std::error::Error for MemoryRefusal {}

/// Checks `estimate` (one rank's) against `available` bytes per rank;
/// `Err` carries the user-facing refusal (its `Display` is the message),
/// whose advice is consistent: a rank count it names fits on every rank.
///
/// ```
/// use graph_core::memory::{check_fits, estimate_rank, Shape, Workload};
/// let shape = Shape::even(26, 16, 1, 2);
/// let e = estimate_rank(Workload::Sssp, shape, 0);
/// let refusal = check_fits(&e, 1 << 30).unwrap_err();
/// let text = refusal.to_string();
/// assert!(text.contains("sssp at SCALE 26 (edgefactor 16) needs about"));
/// assert!(text.contains("The largest SCALE that fits here is"));
/// assert!(check_fits(&e, u64::MAX).is_ok());
/// ```
pub fn check_fits(estimate: &MemoryEstimate, available: u64) -> Result<(), MemoryRefusal> {
    if estimate.per_rank_bytes <= available {
        return Ok(());
    }
    if estimate.exact.is_some() {
        let shape = Shape {
            exact: estimate.exact,
            ..Shape::even(
                estimate.scale,
                estimate.edgefactor,
                estimate.ranks,
                estimate.threads_per_rank,
            )
        };
        return Err(MemoryRefusal {
            estimate: Box::new(*estimate),
            available,
            source: "MemAvailable".into(),
            largest_scale: None,
            ranks_needed: ranks_needed_for(estimate.workload, shape, available),
        });
    }
    Err(MemoryRefusal {
        estimate: Box::new(*estimate),
        available,
        source: "MemAvailable".into(),
        largest_scale: largest_fitting_scale(
            estimate.workload,
            estimate.edgefactor,
            estimate.ranks,
            estimate.threads_per_rank,
            available,
        ),
        ranks_needed: ranks_needed(
            estimate.workload,
            estimate.scale,
            estimate.edgefactor,
            estimate.threads_per_rank,
            available,
        ),
    })
}

/// [`check_fits`] against the memory this process may use
/// ([`gossamer::memory::available`]: `MemAvailable`, or a tighter limit of
/// the process); passes when none can be read (no basis for refusing).
pub fn check_fits_here(estimate: &MemoryEstimate) -> Result<(), MemoryRefusal> {
    match gossamer::memory::available() {
        Some(avail) => check_fits(estimate, avail.bytes).map_err(|mut r| {
            r.source = avail.source;
            r
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::phases::{estimate, estimate_rank};
    use crate::memory::ranks::ADVICE_SHARE_PERMILLE;
    use crate::memory::run::Workload;

    fn shape(scale: u32, ranks: u32, threads: u32) -> Shape {
        Shape::even(scale, 16, ranks, threads)
    }

    #[test]
    fn refusal_advice_names_a_rank_count_that_passes() {
        for w in Workload::ALL {
            for (scale, avail) in [(22u32, 3u64 << 30), (24, 12 << 30), (20, 600 << 20)] {
                let e = estimate_rank(w, shape(scale, 1, 2), 0);
                let Err(r) = check_fits(&e, avail) else {
                    continue;
                };
                let text = r.to_string();
                assert!(
                    text.contains(&format!(
                        "{} at SCALE {scale} (edgefactor 16) needs about",
                        w.name()
                    )),
                    "{text}"
                );
                if let Some(k) = r.largest_scale {
                    assert!(estimate(w, k, 16, 1, 2).per_rank_bytes <= avail);
                    assert!(estimate(w, k + 1, 16, 1, 2).per_rank_bytes > avail);
                    assert!(text.contains(&format!("The largest SCALE that fits here is {k}.")));
                }
                match r.ranks_needed {
                    Some(need) => {
                        assert!(text.contains(&format!("--ranks {need}")), "{text}");
                        // Every rank fits, even the heaviest a partition
                        // makes (up to the advice's allowance).
                        let heavy = |r: u32| Shape {
                            share_permille: if r > 1 { ADVICE_SHARE_PERMILLE } else { 1000 },
                            ..shape(scale, r, 2)
                        };
                        for rank in 0..need {
                            let mine = estimate_rank(w, heavy(need), rank);
                            assert!(
                                check_fits(&mine, avail).is_ok(),
                                "{w:?} rank {rank} of {need}"
                            );
                        }
                        // And no smaller count would.
                        for fewer in 1..need {
                            let worst = (0..fewer.min(2))
                                .map(|rank| estimate_rank(w, heavy(fewer), rank).per_rank_bytes)
                                .max()
                                .unwrap();
                            assert!(worst > avail, "{w:?} {fewer} ranks would fit");
                        }
                    }
                    None => {
                        assert!(text.contains("No number of ranks"), "{text}");
                        for ranks in [1, 2, 3, 8, 64, 1024] {
                            assert!(estimate(w, scale, 16, ranks, 2).per_rank_bytes > avail);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn any_graph_is_estimated_by_its_vertices_not_only_its_edges() {
        // The same counts as a Graph500 graph: the same estimate.
        let g500 = estimate_rank(Workload::Sssp, shape(20, 1, 2), 0);
        let same = estimate_rank(Workload::Sssp, Shape::of_graph(1 << 20, 16 << 20, 1, 2), 0);
        assert_eq!(g500.per_rank_bytes, same.per_rank_bytes);
        // 2^32 vertices and one edge (a 35-byte .gr file): per-vertex state
        // for every command but generate, far beyond the edges.
        for w in Workload::ALL {
            if w == Workload::Generate {
                continue;
            }
            let e = estimate_rank(w, Shape::of_graph(1 << 32, 1, 1, 2), 0);
            assert!(e.per_rank_bytes > 8 << 32, "{w:?}: {e:?}");
            let text = check_fits(&e, 16 << 30).unwrap_err().to_string();
            assert!(
                text.contains(&format!(
                    "{} on this graph (4294967296 vertices, 1 edge) needs about",
                    w.name()
                )),
                "{text}"
            );
            assert!(!text.contains("SCALE"), "{text}");
        }
        // Spread over ranks, a large sparse graph's edges and vertices shrink.
        let e = estimate_rank(Workload::Sssp, Shape::of_graph(1 << 28, 1 << 32, 1, 2), 0);
        let r = check_fits(&e, 32 << 30).unwrap_err();
        let need = r.ranks_needed.expect("more ranks help");
        assert!(
            r.to_string()
                .contains(&format!("This graph fits on {need} ranks")),
            "{r}"
        );
    }

    #[test]
    fn some_refusals_are_cured_by_more_ranks() {
        // SSSP at SCALE 22 (about 1.5 GiB on one rank) in 1 GiB: the
        // shards and the kernel state spread over the ranks.
        let e = estimate_rank(Workload::Sssp, shape(22, 1, 2), 0);
        let r = check_fits(&e, 1 << 30).unwrap_err();
        let need = r.ranks_needed.expect("more ranks help");
        assert!(need >= 2, "{need}");
        assert!(r
            .to_string()
            .contains(&format!("SCALE 22 fits on {need} ranks")));
    }

    #[test]
    fn generate_refusal_blames_only_the_edge_list() {
        let e = estimate_rank(Workload::Generate, shape(26, 1, 2), 0);
        let text = check_fits(&e, 1 << 30).unwrap_err().to_string();
        assert!(
            text.contains("every rank generates the whole edge list (12.0 GiB)"),
            "{text}"
        );
        assert!(!text.contains("shard"), "{text}");
    }
}
