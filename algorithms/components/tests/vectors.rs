//! Connected components against the sequential union-find on the Graph500
//! reference graphs (SCALE 10 and 12): 1, 2 and 3 trustees, both partitions,
//! every frontier mode, with and without pointer jumping; and the verifier
//! rejects broken labellings.
//!
//! Vectors come from `$GRAPH500_VECTORS` or the bundled `graph-core/vectors`.

use components::{cc, cc_sequential, verify_cc, CcConfig};
use graph_core::sharded::ShardedGraph;
use graph_core::vectors::Vectors;
use graph_core::{EdgeList, PartitionKind};
use graph_kernel::FrontierMode;

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
    let configs = [
        CcConfig::default(),
        CcConfig {
            pointer_jumping: false,
            frontier: FrontierMode::Sparse,
        },
        CcConfig {
            pointer_jumping: true,
            frontier: FrontierMode::Dense,
        },
    ];
    for threads in [1, 2, 3] {
        for kind in [PartitionKind::Block, PartitionKind::Cyclic] {
            let l = list.clone();
            let outs = gossamer::main(threads, move || {
                let g = ShardedGraph::build(&l, kind).unwrap();
                configs.map(|c| cc(&g, &c).unwrap())
            });
            for (out, c) in outs.iter().zip(configs) {
                let what = format!("scale {scale}, {threads} threads, {kind:?}, {c:?}");
                assert_eq!(out.labels, want, "{what}");
                assert_eq!(out.components, components, "{what}");
                assert_eq!(verify_cc(&list, &out.labels), Ok(components), "{what}");
                assert!(out.sweeps >= 2, "{what}: {} sweeps", out.sweeps);
                if threads == 1 {
                    assert_eq!(out.records, 0, "{what}: one trustee sends nothing");
                }
            }
        }
    }
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
