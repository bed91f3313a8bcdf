//! Connected components against the sequential union-find on the Graph500
//! reference graphs (SCALE 10 and 12) and on small random graphs (isolated
//! vertices, self-loops, parallel edges, many small components): 1 to 4
//! trustees, both partitions, with and without sampling and skipping the
//! largest component; and the verifier rejects broken labellings.
//!
//! Vectors come from `$GRAPH500_VECTORS` or the bundled `graph-core/vectors`.

use components::{cc, cc_sequential, verify_cc, CcConfig};
use graph_core::io::vectors::Vectors;
use graph_core::sharded::ShardedGraph;
use graph_core::{EdgeList, PartitionKind};
use graph_kernel::RowsFormat;

fn load(scale: u32) -> EdgeList<'static> {
    let vectors = Vectors::bundled().unwrap_or_else(|e| panic!("{e}"));
    vectors.edge_list(scale).unwrap()
}

fn check_scale(scale: u32) {
    let list = load(scale);
    let want = cc_sequential(&list);
    let components = verify_cc(&list, &want).expect("the reference passes its verifier");
    // Kronecker graphs leave many vertices isolated: more than one component.
    assert!(components > 1);
    check(&list, &want, components, &[1, 2, 3]);
}

/// Every setting the kernel has that changes its path (not its answer).
const CONFIGS: [CcConfig; 5] = [
    CcConfig {
        neighbor_rounds: 2,
        samples: 1024,
        skip_largest: true,
        extra_rounds: 0,
        rows: RowsFormat::Plain,
    },
    // No sampling: the finishing phase reads every edge of the non-largest.
    CcConfig {
        neighbor_rounds: 0,
        samples: 1024,
        skip_largest: true,
        extra_rounds: 2,
        rows: RowsFormat::Plain,
    },
    // Plain Shiloach-Vishkin over all edges after one sampled neighbour.
    CcConfig {
        neighbor_rounds: 1,
        samples: 1,
        skip_largest: false,
        extra_rounds: 0,
        rows: RowsFormat::Plain,
    },
    // More sampled neighbours than most rows have.
    CcConfig {
        neighbor_rounds: 5,
        samples: 7,
        skip_largest: true,
        extra_rounds: 0,
        rows: RowsFormat::Plain,
    },
    // Added rounds whenever the largest sample is small: a few samples
    // over many components keep them coming until the limit.
    CcConfig {
        neighbor_rounds: 1,
        samples: 3,
        skip_largest: true,
        extra_rounds: 3,
        rows: RowsFormat::Plain,
    },
];

fn check(list: &EdgeList<'static>, want: &[u64], components: u64, threads: &[usize]) {
    let configs = CONFIGS;
    for &threads in threads {
        for kind in [PartitionKind::Block, PartitionKind::Cyclic] {
            let l = list.clone();
            let outs = gossamer::main(threads, move || {
                let g = ShardedGraph::build(&l, kind).unwrap();
                configs.map(|c| cc(&g, &c).unwrap())
            });
            for (out, c) in outs.iter().zip(configs) {
                let what = format!(
                    "{} vertices, {threads} threads, {kind:?}, {c:?}",
                    list.num_vertices()
                );
                assert_eq!(out.labels, want, "{what}");
                assert_eq!(out.components, components, "{what}");
                assert_eq!(verify_cc(list, &out.labels), Ok(components), "{what}");
                assert!(out.sweeps >= 1, "{what}: {} sweeps", out.sweeps);
                if threads == 1 {
                    assert_eq!(out.records, 0, "{what}: one trustee sends nothing");
                }
            }
        }
    }
}

#[test]
fn random_graphs_match_union_find() {
    // Graphs with several components of more than one vertex.
    let mut several = 0;
    for (seed, (n, m)) in [
        (10, 0),
        (37, 20),
        (100, 60),
        (300, 500),
        (1000, 700),
        (2000, 6000),
        (800, 250),
        (3000, 1000),
    ]
    .into_iter()
    .enumerate()
    {
        let list = graph_kernel::doc::random(n, m, seed as u64 + 1);
        let want = cc_sequential(&list);
        let components = verify_cc(&list, &want).expect("the reference passes its verifier");
        let mut size = vec![0u32; n as usize];
        want.iter().for_each(|&l| size[l as usize] += 1);
        several += usize::from(size.iter().filter(|&&c| c > 1).count() > 2);
        check(&list, &want, components, &[1, 2, 3, 4]);
    }
    assert!(several >= 3, "{several} graphs with several components");
}

#[test]
fn scale10_matches_union_find() {
    check_scale(10);
}

#[test]
fn scale12_matches_union_find() {
    check_scale(12);
}

#[test]
fn verifier_rejects_wrong_labellings() {
    let list = load(10);
    let good = cc_sequential(&list);
    // A split component: relabel one non-root vertex to itself.
    let v = (0..good.len()).find(|&v| good[v] != v as u64).unwrap();
    let mut split = good.clone();
    split[v] = v as u64;
    assert!(verify_cc(&list, &split).is_err());
    // Two components merged under one label.
    let roots: Vec<usize> = (0..good.len()).filter(|&v| good[v] == v as u64).collect();
    let (a, b) = (roots[0], roots[1]);
    let merged: Vec<u64> = good
        .iter()
        .map(|&l| if l == b as u64 { a as u64 } else { l })
        .collect();
    let e = verify_cc(&list, &merged).unwrap_err();
    assert!(e.contains("components"), "{e}");
    // Wrong length.
    assert!(verify_cc(&list, &good[1..])
        .unwrap_err()
        .contains("labels for a graph"));
}

#[test]
fn verifier_rejects_the_kernels_answer_with_one_label_flipped() {
    // The kernel's own labelling passes; with one label changed to that of
    // another component (a vertex with edges, and an isolated one), or to
    // the vertex itself, it does not.
    let list = load(10);
    let l = list.clone();
    let out = gossamer::main(2, move || {
        let g = ShardedGraph::build(&l, PartitionKind::Cyclic).unwrap();
        cc(&g, &CcConfig::default()).unwrap()
    });
    let good = out.labels;
    assert_eq!(verify_cc(&list, &good), Ok(out.components));
    let mut degree = vec![0u32; good.len()];
    for e in list.edges().iter().filter(|e| e.u != e.v) {
        degree[e.u as usize] += 1;
        degree[e.v as usize] += 1;
    }
    let linked = (0..good.len()).rev().find(|&v| degree[v] > 0).unwrap();
    let isolated = (0..good.len()).rev().find(|&v| degree[v] == 0).unwrap();
    for v in [linked, isolated] {
        let other = (0..v)
            .find(|&u| good[u] == u as u64 && good[u] != good[v])
            .unwrap();
        for wrong in [other as u64, v as u64] {
            if wrong == good[v] {
                continue;
            }
            let mut bad = good.clone();
            bad[v] = wrong;
            assert!(
                verify_cc(&list, &bad).is_err(),
                "vertex {v} labelled {wrong}"
            );
        }
    }
}

#[test]
fn runs_again_on_the_same_graph() {
    let list = load(10);
    let want = cc_sequential(&list);
    let l = list.clone();
    let (a, b) = gossamer::main(2, move || {
        let g = ShardedGraph::build(&l, PartitionKind::Cyclic).unwrap();
        let a = cc(&g, &CcConfig::default()).unwrap();
        let b = cc(&g, &CcConfig::default()).unwrap();
        (a.labels, b.labels)
    });
    assert_eq!(a, want);
    assert_eq!(b, want);
}
