//! Ranks' shares of a generated graph's edges: the partition does not
//! split a Graph500 graph evenly, so the memory check and `plan` count each
//! rank with its own expected share, and advice with the heaviest.

use generators::Kronecker;
use graph_core::memory;

/// Each rank's expected share of a generated graph's edge endpoints under
/// `partition` over `ranks` x `threads` trustees (see
/// `Kronecker::expected_endpoint_shares`), as [`memory::Shape::share_permille`].
pub fn rank_shares(
    kron: &Kronecker,
    partition: graph_core::PartitionKind,
    ranks: u32,
    threads: u32,
) -> Vec<u32> {
    if ranks <= 1 {
        return vec![1000; ranks as usize];
    }
    let Ok(p) = graph_core::Partition::new(partition, kron.num_vertices(), ranks, threads) else {
        return vec![1000; ranks as usize];
    };
    let t = threads.max(1);
    kron.expected_endpoint_shares(ranks as usize, |v| (p.owner(v).trustee / t) as usize)
        .into_iter()
        .map(|s| memory::share_permille(s, ranks))
        .collect()
}

/// The heaviest rank's share of a generated graph's edges for each rank
/// count under `partition` (a default one settled for a Graph500 graph
/// and that count, [`crate::args::settle_kind`]; `explicit`: given with
/// `--partition`),
/// for the advice of a refusal.
pub fn heaviest_share(
    kron: &Kronecker,
    partition: graph_core::PartitionKind,
    explicit: bool,
    threads: u32,
) -> impl Fn(u32) -> u32 + '_ {
    move |ranks| {
        let n = kron.num_vertices();
        let p = crate::args::settle_kind(partition, explicit, n, true, ranks, threads);
        rank_shares(kron, p, ranks, threads)
            .into_iter()
            .max()
            .unwrap_or(1000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use generators::Graph500Config;

    #[test]
    fn each_rank_is_checked_with_its_own_share_of_the_edges() {
        let kron = Kronecker::new(Graph500Config::with_scale(18)).unwrap();
        let block = rank_shares(&kron, graph_core::PartitionKind::Block, 4, 2);
        let cyclic = rank_shares(&kron, graph_core::PartitionKind::Cyclic, 4, 2);
        // The last block of a Graph500 graph is the heavy one; round-robin
        // is close to even. No share is reported below even.
        assert!(block[3] > 1040, "{block:?}");
        assert!(block.iter().all(|&s| s >= 1000), "{block:?}");
        assert!(
            cyclic.iter().all(|&s| (1000..1030).contains(&s)),
            "{cyclic:?}"
        );
        // The heavy rank's estimate is larger than an even one.
        let even = memory::Shape::even(18, 16, 4, 2);
        let heavy = memory::Shape {
            share_permille: block[3],
            ..even
        };
        let w = memory::Workload::Sssp;
        assert!(
            memory::estimate_rank(w, heavy, 3).per_rank_bytes
                > memory::estimate_rank(w, even, 3).per_rank_bytes
        );
        assert_eq!(
            rank_shares(&kron, graph_core::PartitionKind::Block, 1, 2),
            [1000]
        );
    }
}
