//! k-core against the sequential algorithm on the Graph500 reference graphs
//! (SCALE 10 and 12) and on small random graphs (isolated vertices,
//! self-loops, parallel edges), 1 to 4 trustees, both partitions; the
//! verifier rejects wrong corenesses; directed graphs are refused.

use graph_core::io::vectors::Vectors;
use graph_core::sharded::{KernelError, ShardedGraph};
use graph_core::{EdgeList, PartitionKind};
use kcore::{kcore, kcore_sequential, verify_kcore, KcoreConfig};

fn run(
    list: &EdgeList<'static>,
    threads: usize,
    kind: PartitionKind,
    pass_work: usize,
) -> Vec<u32> {
    let l = list.clone();
    gossamer::main(threads, move || {
        let g = ShardedGraph::build(&l, kind).unwrap();
        kcore(&g, &KcoreConfig { pass_work }).unwrap().core
    })
}

#[test]
fn matches_the_sequential_peeling_on_graph500_and_random_graphs() {
    let mut graphs: Vec<(String, EdgeList<'static>)> = [10u32, 12]
        .iter()
        .map(|&s| {
            (
                format!("SCALE {s}"),
                Vectors::bundled().unwrap().edge_list(s).unwrap(),
            )
        })
        .collect();
    for seed in 1..4 {
        graphs.push((
            format!("random {seed}"),
            graph_kernel::doc::random(500, 3000, seed),
        ));
    }
    for (what, list) in &graphs {
        let want = kcore_sequential(list).unwrap();
        assert!(
            *want.iter().max().unwrap() >= 2,
            "{what}: a graph with cores"
        );
        for threads in 1..=4 {
            for kind in [PartitionKind::Block, PartitionKind::Cyclic] {
                // A tiny pass budget exercises many passes per level.
                for work in [1, 1 << 16] {
                    let got = run(list, threads, kind, work);
                    assert_eq!(
                        got, want,
                        "{what}, {threads} threads, {kind:?}, work {work}"
                    );
                }
            }
        }
        assert_eq!(verify_kcore(list, &want), Ok(*want.iter().max().unwrap()));
    }
}

#[test]
fn the_verifier_rejects_wrong_corenesses() {
    let list = Vectors::bundled().unwrap().edge_list(10).unwrap();
    let good = kcore_sequential(&list).unwrap();
    let hub = (0..good.len()).max_by_key(|&v| good[v]).unwrap();
    for (v, delta) in [(hub, 1i64), (hub, -1), (0, 1)] {
        let mut bad = good.clone();
        bad[v] = (i64::from(bad[v]) + delta).max(0) as u32;
        if bad == good {
            continue;
        }
        let e = verify_kcore(&list, &bad).unwrap_err();
        assert!(e.contains(&format!("vertex {v}")), "{e}");
    }
    assert!(verify_kcore(&list, &good[1..])
        .unwrap_err()
        .contains("values for a graph of"));
}

#[test]
fn directed_graphs_and_bad_settings_are_refused() {
    let list = graph_kernel::doc::path(5);
    let (directed, zero) = gossamer::main(2, move || {
        let d = ShardedGraph::build_with(&list, PartitionKind::Block, true).unwrap();
        let u = ShardedGraph::build(&list, PartitionKind::Block).unwrap();
        (
            kcore(&d, &KcoreConfig::default()).unwrap_err(),
            kcore(&u, &KcoreConfig { pass_work: 0 }).unwrap_err(),
        )
    });
    assert!(
        matches!(&directed, KernelError::Config(m) if m.contains("undirected")),
        "{directed}"
    );
    assert!(
        matches!(&zero, KernelError::Config(m) if m.contains("pass_work")),
        "{zero}"
    );
}
