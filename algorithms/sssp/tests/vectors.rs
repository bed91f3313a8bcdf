//! SSSP against the Graph500 reference vectors (SCALE 10 and 12, 4 roots each):
//! distances equal the f32 oracle, the validator accepts the result, under 1, 2
//! and 3 trustees (3: uneven shards) and both partitions.
//!
//! Vectors come from `$GRAPH500_VECTORS` or the bundled `graph-core/vectors`.

use graph_core::io::vectors::Vectors;
use graph_core::sharded::{KernelError, ShardedGraph};
use graph_core::validate::{validate_sssp_list, NO_PARENT};
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

fn oracle(scale: u32, root: u64) -> Vec<f32> {
    vectors().dist(scale, root).unwrap()
}

/// Equal within a relative 1e-6 (a few ulp at these magnitudes); infinities exactly.
fn close(a: f32, b: f32) -> bool {
    if a.is_infinite() || b.is_infinite() {
        return a == b;
    }
    (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1e-30)
}

fn check_scale(scale: u32, deltas: &[f32]) {
    let list = load(scale);
    let roots = roots(scale);
    let oracles: Vec<Vec<f32>> = roots.iter().map(|&r| oracle(scale, r)).collect();
    for threads in [1, 2, 3] {
        for kind in [
            PartitionKind::Block,
            PartitionKind::Cyclic,
            PartitionKind::Blocks,
        ] {
            let (l, r, d) = (list.clone(), roots.clone(), deltas.to_vec());
            let outs = gossamer::main(threads, move || {
                let g = ShardedGraph::build(&l, kind).unwrap();
                let mut outs = Vec::new();
                for &delta in &d {
                    for &root in &r {
                        outs.push(
                            sssp(
                                &g,
                                root,
                                &SsspConfig {
                                    delta,
                                    ..SsspConfig::default()
                                },
                            )
                            .unwrap(),
                        );
                    }
                }
                outs
            });
            for (i, out) in outs.iter().enumerate() {
                let (k, delta) = (i % roots.len(), deltas[i / roots.len()]);
                let root = roots[k];
                let what =
                    format!("scale {scale} root {root} threads {threads} {kind:?} delta {delta}");
                assert_eq!(out.dist.len(), oracles[k].len(), "{what}");
                for (v, (&a, &b)) in out.dist.iter().zip(&oracles[k]).enumerate() {
                    assert!(
                        close(a, b),
                        "{what}: vertex {v} has distance {a}, oracle {b}"
                    );
                    assert_eq!(
                        a.is_finite(),
                        out.parent[v] != NO_PARENT,
                        "{what}: vertex {v}"
                    );
                }
                validate_sssp_list(&list, root, &out.parent, &out.dist)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
            }
        }
    }
}

#[test]
fn scale10_matches_oracle() {
    // Several Δ: tiny (many buckets), default, and larger than every weight
    // (no heavy edges at all).
    check_scale(10, &[0.01, SsspConfig::default().delta, 2.0]);
}

#[test]
fn scale12_matches_oracle() {
    check_scale(12, &[SsspConfig::default().delta]);
}

#[test]
fn tiny_deltas_stay_exact() {
    // Δ = 1e-9 spreads SCALE 10's distances over ~10^9 buckets, and at
    // 1e-30 d/Δ overflows any integer (indices saturate into one last
    // bucket). Both used to break the bucket vector (gigabytes; an index
    // out of bounds); the result must be the oracle's, and validate.
    check_scale(10, &[1e-9, 1e-30, f32::MIN_POSITIVE]);
}

#[test]
fn bad_deltas_are_errors_that_say_why() {
    let list = load(10);
    let errs = gossamer::main(2, move || {
        let g = ShardedGraph::build(&list, PartitionKind::Block).unwrap();
        let errs: Vec<KernelError> = [f32::NAN, -1.0, 0.0, f32::INFINITY, 1e-40]
            .into_iter()
            .map(|delta| {
                sssp(
                    &g,
                    0,
                    &SsspConfig {
                        delta,
                        ..SsspConfig::default()
                    },
                )
                .unwrap_err()
            })
            .collect();
        assert!(sssp(&g, roots(10)[0], &SsspConfig::default()).is_ok());
        errs
    });
    let want = [
        "delta = NaN: not a number",
        "delta = -1.0: the bucket width must be positive",
        "delta = 0.0: the bucket width must be positive",
        "delta = inf: the bucket width must be finite",
        "delta = 1e-40: too small: a width below 1.1754944e-38",
    ];
    for (e, w) in errs.iter().zip(want) {
        let m = e.to_string();
        assert!(matches!(e, KernelError::Config(_)), "{e:?}");
        assert!(m.contains(w), "{m:?} does not say {w:?}");
        assert!(
            m.contains(&format!(
                "e.g. {} (the default for Graph500 weights)",
                sssp::DEFAULT_DELTA
            )),
            "{m}"
        );
    }
}

#[test]
fn bad_arguments_are_errors() {
    let list = load(10);
    let (e1, e2, e3) = gossamer::main(2, move || {
        let g = ShardedGraph::build(&list, PartitionKind::Block).unwrap();
        let e1 = sssp(&g, 1024, &SsspConfig::default()).unwrap_err();
        let e2 = sssp(
            &g,
            0,
            &SsspConfig {
                delta: 0.0,
                ..SsspConfig::default()
            },
        )
        .unwrap_err();
        let e3 = [
            SsspConfig {
                pass_budget: 0,
                ..Default::default()
            },
            SsspConfig {
                epoch_work: 0,
                ..Default::default()
            },
        ]
        .map(|c| sssp(&g, 0, &c).unwrap_err());
        // The graph is still usable afterwards.
        assert!(sssp(&g, roots(10)[0], &SsspConfig::default()).is_ok());
        (e1, e2, e3)
    });
    for e in e3 {
        assert!(
            matches!(e, KernelError::Config(ref m) if m.contains("pass_budget") && m.contains("at least 1")),
            "{e}"
        );
    }
    assert_eq!(
        e1,
        KernelError::RootOutOfRange {
            root: 1024,
            vertices: 1024
        }
    );
    assert!(e1.to_string().contains("not a vertex"));
    assert!(
        matches!(e2, KernelError::Config(ref m) if m.contains("delta")),
        "{e2}"
    );
}

#[test]
fn sparse_buckets_share_agreements() {
    // At SCALE 12 most of the buckets of width 0.01 hold a handful of vertices;
    // the kernel processes windows of them between agreements, so it needs
    // fewer all-reduce rounds than there are non-empty buckets (one round per
    // bucket would be Meyer & Sanders' schedule), and stays exact.
    let list = load(12);
    let root = roots(12)[0];
    let delta = 0.01f32;
    let out = gossamer::main(2, move || {
        let g = ShardedGraph::build(&list, PartitionKind::Cyclic).unwrap();
        sssp(
            &g,
            root,
            &SsspConfig {
                delta,
                ..SsspConfig::default()
            },
        )
        .unwrap()
    });
    let oracle = oracle(12, root);
    assert!(out.dist.iter().zip(&oracle).all(|(&a, &b)| close(a, b)));
    let mut buckets: Vec<u64> = oracle
        .iter()
        .filter(|d| d.is_finite())
        .map(|&d| (d * (1.0 / delta)) as u64)
        .collect();
    buckets.sort_unstable();
    buckets.dedup();
    assert!(
        out.rounds < buckets.len() as u64,
        "{} rounds for {} non-empty buckets",
        out.rounds,
        buckets.len()
    );
}
