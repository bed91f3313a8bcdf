//! The searches behind a refusal's advice: the largest SCALE that fits a
//! rank's memory, and the fewest ranks a SCALE fits on.

use super::phases::{edge_list_bytes, estimate, estimate_shape, BASE_BYTES};
use super::run::{Shape, Workload};
use crate::edge_list::MAX_SCALE;
use gossamer::memory::show_bytes;

/// Largest SCALE (<= 32) whose estimate on the largest rank fits
/// `available` bytes, or `None` if not even SCALE 1 fits.
pub fn largest_fitting_scale(
    workload: Workload,
    edgefactor: u32,
    ranks: u32,
    threads_per_rank: u32,
    available: u64,
) -> Option<u32> {
    (1..=MAX_SCALE).rev().find(|&s| {
        estimate(workload, s, edgefactor, ranks, threads_per_rank).per_rank_bytes <= available
    })
}

/// The share [`ranks_needed`] assumes for every rank of a count above
/// one (25% above an even split): partitions of Graph500 graphs reach
/// about 1.19 at 8-12 ranks (see [`Shape::share_permille`]), and each
/// rank checks its own share when it runs.
pub const ADVICE_SHARE_PERMILLE: u32 = 1250;

/// Most ranks [`ranks_needed`] tries.
pub const MAX_RANKS: u32 = 1 << 16;

/// Fewest ranks, each with `available` bytes, on which every rank's
/// estimate fits (`None` when no count up to [`MAX_RANKS`] does: today
/// every rank holds the whole edge list and rank 0 builds every shard, so
/// adding ranks stops helping once those alone exceed `available`). Every
/// rank of a count above one is taken to hold [`ADVICE_SHARE_PERMILLE`] of
/// an even share of the edges; [`ranks_needed_with`] takes the shares.
pub fn ranks_needed(
    workload: Workload,
    scale: u32,
    edgefactor: u32,
    threads_per_rank: u32,
    available: u64,
) -> Option<u32> {
    let one = Shape::even(scale, edgefactor, 1, threads_per_rank.max(1));
    ranks_needed_for(workload, one, available)
}

/// [`ranks_needed`] for any shape (its rank count and share ignored), e.g.
/// a graph of another origin ([`Shape::of_graph`]).
pub fn ranks_needed_for(workload: Workload, shape: Shape, available: u64) -> Option<u32> {
    let allowance = |r: u32| if r > 1 { ADVICE_SHARE_PERMILLE } else { 1000 };
    let one = Shape {
        ranks: 1,
        share_permille: 1000,
        threads_per_rank: shape.threads_per_rank.max(1),
        ..shape
    };
    first_fitting(workload, one, available, &allowance)
}

/// [`ranks_needed`] where `heaviest(r)` is the largest share of the edges a
/// rank of `r` holds ([`Shape::share_permille`]; e.g. from the generator,
/// which costs a pass over the vertices per call). It is asked only
/// between the count an even split needs (no fewer can do) and the count
/// [`ranks_needed`] names, at most [`MAX_SHARE_QUERIES`] times; past that
/// the latter is the answer.
pub fn ranks_needed_with(
    workload: Workload,
    scale: u32,
    edgefactor: u32,
    threads_per_rank: u32,
    available: u64,
    heaviest: &dyn Fn(u32) -> u32,
) -> Option<u32> {
    let one = Shape::even(scale, edgefactor, 1, threads_per_rank.max(1));
    let even = first_fitting(workload, one, available, &|_| 1000)?;
    let allowed = ranks_needed(workload, scale, edgefactor, threads_per_rank, available);
    let last = allowed
        .unwrap_or(MAX_RANKS)
        .min(even.saturating_add(MAX_SHARE_QUERIES - 1));
    (even..=last)
        .find(|&r| need(workload, one, r, heaviest(r)) <= available)
        .or(allowed)
}

/// Most shares [`ranks_needed_with`] asks for.
pub const MAX_SHARE_QUERIES: u32 = 8;

/// The largest rank's estimate for `one` spread over `ranks` ranks whose
/// heaviest holds `share` (every rank taken as that heavy).
fn need(workload: Workload, one: Shape, ranks: u32, share: u32) -> u64 {
    let shape = Shape {
        ranks,
        share_permille: share,
        ..one
    };
    estimate_shape(workload, shape).per_rank_bytes
}

/// The first rank count over which `one` (a one-rank shape) fits when the
/// heaviest rank of `r` holds `share(r)`.
fn first_fitting(
    workload: Workload,
    one: Shape,
    available: u64,
    share: &dyn Fn(u32) -> u32,
) -> Option<u32> {
    // Rank 0's floor (the list a command that holds it holds on every
    // rank) does not depend on the rank count: stop early.
    let floor = BASE_BYTES.saturating_add(edge_list_bytes(one, 0));
    if !workload.streams() && workload != Workload::Generate && floor > available {
        return None;
    }
    // Not monotone: more ranks shrink the kernel state but add slots.
    (1..=MAX_RANKS).find(|&r| need(workload, one, r, share(r)) <= available)
}

/// Why no rank count fits: what rank 0 holds however many ranks there are.
pub fn why_no_rank_count_fits(workload: Workload, shape: Shape) -> String {
    if workload == Workload::Generate {
        return format!(
            "every rank generates the whole edge list ({})",
            show_bytes(edge_list_bytes(shape, 0))
        );
    }
    let least = (0..=16)
        .map(|k| {
            let spread = Shape {
                ranks: 1 << k,
                share_permille: 1000,
                threads_per_rank: shape.threads_per_rank.max(1),
                ..shape
            };
            estimate_shape(workload, spread).per_rank_bytes
        })
        .min()
        .unwrap_or(0);
    if workload.streams() {
        let (each, advice) = match shape.threads_per_rank.max(1) {
            1 => (
                "on a rank's one trustee".to_string(),
                "this graph needs hosts with more memory",
            ),
            t => (
                format!("on each of the {t} trustees of a rank"),
                "use fewer threads per rank",
            ),
        };
        return format!(
            "more ranks do not bring the largest rank below about {}: per-vertex arrays of the whole graph {each} and the answers gathered on rank 0 do not shrink with ranks; {advice}",
            show_bytes(least),
        );
    }
    format!(
        "more ranks do not bring the largest rank below about {}: every rank holds the whole edge list ({}), and per-vertex arrays of the whole graph on each of the {} trustees of a rank and the gathered answers do not shrink with ranks",
        show_bytes(least),
        show_bytes(edge_list_bytes(shape, 0)),
        shape.threads_per_rank.max(1),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_advice_asks_for_few_shares_and_never_when_nothing_fits() {
        use std::cell::Cell;
        let w = Workload::Sssp;
        let asked = Cell::new(0u32);
        // SCALE 22 on 1 GiB ranks needs a few ranks.
        let even = ranks_needed_with(w, 22, 16, 2, 1 << 30, &|_| {
            asked.set(asked.get() + 1);
            1000
        })
        .unwrap();
        let allowed = ranks_needed(w, 22, 16, 2, 1 << 30).unwrap();
        assert!(even <= allowed && asked.get() == 1, "{even} {allowed}");
        // A share heavier than the allowance: at most MAX_SHARE_QUERIES
        // asks, then the allowance's answer.
        asked.set(0);
        let heavy = ranks_needed_with(w, 22, 16, 2, 1 << 30, &|_| {
            asked.set(asked.get() + 1);
            4000
        });
        assert!(asked.get() <= MAX_SHARE_QUERIES);
        assert!(heavy.unwrap() >= even);
        // Nothing fits 1 MiB: no share is asked for.
        asked.set(0);
        let none = ranks_needed_with(w, 30, 16, 2, 1 << 20, &|_| {
            asked.set(asked.get() + 1);
            1000
        });
        assert_eq!((none, asked.get()), (None, 0));
    }
}
