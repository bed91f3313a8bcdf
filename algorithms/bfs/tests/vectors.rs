//! BFS against the Graph500 reference vectors (SCALE 10 and 12, 4 roots each):
//! levels exactly equal the oracle in both modes, the validator accepts the
//! tree, and BFS and SSSP agree on reachability; 1, 2 and 3 trustees, every
//! partition.
//!
//! Vectors come from `$GRAPH500_VECTORS` or the bundled `graph-core/vectors`.

use bfs::{bfs, BfsConfig, BfsMode};
use graph_core::io::vectors::Vectors;
use graph_core::sharded::{KernelError, ShardedGraph};
use graph_core::validate::{validate_bfs_list, NO_PARENT};
use graph_core::{EdgeList, PartitionKind};
use sssp::{sssp, SsspConfig};

fn vectors() -> Vectors {
    Vectors::bundled().unwrap_or_else(|e| panic!("{e}"))
}

fn load(scale: u32) -> EdgeList<'static> {
    vectors().edge_list(scale).unwrap()
}

fn roots(scale: u32) -> Vec<u64> {
    vectors().roots(scale).unwrap()[..4].to_vec()
}

fn oracle(scale: u32, root: u64) -> Vec<i64> {
    vectors().levels(scale, root).unwrap()
}

const MODES: [BfsMode; 2] = [BfsMode::DirectionOptimizing, BfsMode::TopDown];

fn check_scale(scale: u32) {
    let list = load(scale);
    let roots = roots(scale);
    let oracles: Vec<Vec<i64>> = roots.iter().map(|&r| oracle(scale, r)).collect();
    for threads in [1, 2, 3] {
        for kind in [
            PartitionKind::Block,
            PartitionKind::Cyclic,
            PartitionKind::Striped,
            PartitionKind::Blocks,
        ] {
            let (l, r) = (list.clone(), roots.clone());
            let outs = gossamer::main(threads, move || {
                let g = ShardedGraph::build(&l, kind).unwrap();
                let mut outs = Vec::new();
                for mode in MODES {
                    for &root in &r {
                        let cfg = BfsConfig {
                            mode,
                            ..Default::default()
                        };
                        let b = bfs(&g, root, &cfg).unwrap();
                        let s = sssp(&g, root, &SsspConfig::default()).unwrap();
                        let reach: Vec<bool> = s.dist.iter().map(|d| d.is_finite()).collect();
                        outs.push((b, reach));
                    }
                }
                outs
            });
            for (i, (out, reach)) in outs.iter().enumerate() {
                let (k, mode) = (i % roots.len(), MODES[i / roots.len()]);
                let root = roots[k];
                let what = format!("scale {scale} root {root} threads {threads} {kind:?} {mode:?}");
                assert_eq!(
                    out.level, oracles[k],
                    "{what}: levels differ from the oracle"
                );
                for (v, (&p, &r)) in out.parent.iter().zip(reach).enumerate() {
                    assert_eq!(
                        p != NO_PARENT,
                        r,
                        "{what}: BFS and SSSP disagree on vertex {v}"
                    );
                }
                validate_bfs_list(&list, root, &out.parent, Some(&out.level))
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                if mode == BfsMode::TopDown {
                    assert_eq!(out.bottom_up_levels, 0, "{what}");
                }
            }
        }
    }
}

#[test]
fn scale10_matches_oracle() {
    check_scale(10);
}

#[test]
fn scale12_matches_oracle_and_goes_bottom_up() {
    check_scale(12);
    // The Kronecker graph's big middle level is dense enough to switch.
    let list = load(12);
    let root = roots(12)[0];
    let bu = gossamer::main(2, move || {
        let g = ShardedGraph::build(&list, PartitionKind::Cyclic).unwrap();
        bfs(&g, root, &BfsConfig::default())
            .unwrap()
            .bottom_up_levels
    });
    assert!(bu >= 1, "direction-optimizing BFS never went bottom-up");
}

#[test]
fn the_tail_of_a_path_stays_top_down() {
    // In the last 15 levels of a path m_f (2 entries) exceeds m_u / 15, but
    // a bottom-up level would sweep all 3000 vertices for one: graph_kernel::PULL_MIN.
    let n = 3000u32;
    let edges = (0..n - 1)
        .map(|v| graph_core::PackedEdge::new(v, v + 1, 1.0))
        .collect();
    let list = EdgeList::from_edges(n.into(), edges).unwrap();
    let out = gossamer::main(2, move || {
        let g = ShardedGraph::build(&list, PartitionKind::Block).unwrap();
        bfs(&g, 0, &BfsConfig::default()).unwrap()
    });
    assert_eq!(out.bottom_up_levels, 0);
    assert!(out.level.iter().enumerate().all(|(v, &l)| l == v as i64));
}

#[test]
fn bad_arguments_are_errors() {
    let list = load(10);
    let (e1, e2, e3) = gossamer::main(2, move || {
        let g = ShardedGraph::build(&list, PartitionKind::Block).unwrap();
        let e1 = bfs(&g, 5000, &BfsConfig::default()).unwrap_err();
        let e2 = bfs(
            &g,
            0,
            &BfsConfig {
                alpha: 0.0,
                ..Default::default()
            },
        )
        .unwrap_err();
        let e3 = bfs(
            &g,
            0,
            &BfsConfig {
                step_work: 0,
                ..Default::default()
            },
        )
        .unwrap_err();
        (e1, e2, e3)
    });
    assert!(
        matches!(e3, KernelError::Config(ref m) if m.contains("step_work")),
        "{e3}"
    );
    assert_eq!(
        e1,
        KernelError::RootOutOfRange {
            root: 5000,
            vertices: 1024
        }
    );
    assert!(
        matches!(e2, KernelError::Config(ref m) if m.contains("alpha")),
        "{e2}"
    );
}
