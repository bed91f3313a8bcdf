//! Path counts past `f64`'s range: a chain of `K` diamonds doubles the
//! number of shortest paths at every diamond, so the last vertex has 2^K of
//! them from the first. With `K` = 1100 a plain `f64` count becomes
//! infinite (and the scores NaN); the kernel and the sequential reference
//! count in `graph_kernel::paths::Paths` and get the scores worked out by
//! hand, on 1 to 3 trustees.

use bc::{bc, bc_sequential, verify_bc};
use graph_core::sharded::ShardedGraph;
use graph_core::{EdgeList, PackedEdge, PartitionKind};

const K: u32 = 1100;

/// Diamond `i`: `a_i = 3i` joined to `b_i = 3i + 1` and `c_i = 3i + 2`,
/// both joined to `a_{i+1}`; the chain ends at `a_K`.
fn diamonds() -> EdgeList<'static> {
    let mut edges = Vec::new();
    for i in 0..K {
        let (a, b, c, next) = (3 * i, 3 * i + 1, 3 * i + 2, 3 * i + 3);
        for (u, v) in [(a, b), (a, c), (b, next), (c, next)] {
            edges.push(PackedEdge::new(u, v, 1.0));
        }
    }
    EdgeList::from_edges(u64::from(3 * K + 1), edges).unwrap()
}

#[test]
fn scores_are_right_where_path_counts_pass_f64s_range() {
    let list = diamonds();
    // From a_0 every path to a vertex past a_i goes through it:
    // δ(a_i) = 3 (K - i) (the source's own too, as GAPBS counts it);
    // through b_i and c_i half of those past them:
    // δ(b_i) = (1 + 3 (K - i - 1)) / 2. The largest is δ(a_0) = 3 K.
    let top = f64::from(3 * K);
    let want = |v: u32| -> f64 {
        let i = v / 3;
        match v % 3 {
            0 => f64::from(3 * (K - i)) / top,
            _ => f64::from(1 + 3 * (K - i - 1)) / 2.0 / top,
        }
    };
    let reference = bc_sequential(&list, &[0]).unwrap();
    for (v, &got) in reference.iter().enumerate() {
        assert!(
            (got - want(v as u32)).abs() < 1e-12,
            "reference: vertex {v}: {got}"
        );
    }
    for threads in [1, 2, 3] {
        let l = list.clone();
        let out = gossamer::main(threads, move || {
            let g = ShardedGraph::build(&l, PartitionKind::Block).unwrap();
            bc(&g, &[0], &Default::default()).unwrap()
        });
        assert_eq!(out.levels, [2 * K + 1]);
        for (v, &got) in out.scores.iter().enumerate() {
            assert!(
                (got - want(v as u32)).abs() < 1e-12,
                "{threads} threads: vertex {v}: {got}"
            );
        }
        verify_bc(&list, &[0], &out.scores).unwrap();
    }
}
