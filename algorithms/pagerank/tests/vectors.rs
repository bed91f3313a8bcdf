//! PageRank against the sequential reference on the Graph500 reference graphs
//! (SCALE 10 and 12) and on small random graphs (isolated vertices,
//! self-loops, parallel edges): 1 to 4 trustees, both partitions;
//! tolerance-stopped and fixed-iteration runs, Jacobi exactly and the
//! default (which stays Jacobi there) alike; Gauss–Seidel to the same fixed
//! point, and the default turning to it on a grid; the verifier accepts the
//! results and rejects perturbed ones; bad settings are refused.
//!
//! Vectors come from `$GRAPH500_VECTORS` or the bundled `graph-core/vectors`.

use graph_core::io::vectors::Vectors;
use graph_core::sharded::{KernelError, ShardedGraph};
use graph_core::{EdgeList, PartitionKind};
use pagerank::{pagerank, pagerank_sequential, verify_pagerank, PageRankConfig, Sweep};

fn load(scale: u32) -> EdgeList<'static> {
    let vectors = Vectors::bundled().unwrap_or_else(|e| panic!("{e}"));
    vectors.edge_list(scale).unwrap()
}

const CONFIGS: [PageRankConfig; 2] = [
    // GAPBS defaults: stops on the tolerance.
    PageRankConfig {
        damping: 0.85,
        max_iterations: 20,
        tolerance: 1e-4,
        sweep: Sweep::Jacobi,
    },
    // Exactly 7 iterations.
    PageRankConfig {
        damping: 0.85,
        max_iterations: 7,
        tolerance: 0.0,
        sweep: Sweep::Jacobi,
    },
];

fn check_scale(scale: u32) {
    let list = load(scale);
    let (want, turned) = check(&list, &[1, 2, 3]);
    assert_eq!(
        turned, 0,
        "Graph500: Jacobi halves the residual or more every iteration"
    );
    assert!(
        want[0].iterations < 20 && want[0].residual < 1e-4,
        "the reference converges before 20 iterations"
    );
}

/// Runs both configurations on `threads` trustees and both partitions and
/// compares with the reference, and the default sweep; returns the
/// reference's results and the iterations the default ran Gauss–Seidel.
fn check(
    list: &EdgeList<'static>,
    threads: &[usize],
) -> (Vec<graph_core::validate::reference::PageRank>, u32) {
    let want: Vec<_> = CONFIGS
        .iter()
        .map(|c| {
            pagerank_sequential(list, false, c.damping, c.max_iterations, c.tolerance).unwrap()
        })
        .collect();
    assert_eq!(want[1].iterations, 7);
    let mut turned = 0;
    for &threads in threads {
        for kind in [PartitionKind::Block, PartitionKind::Cyclic] {
            let l = list.clone();
            let (outs, auto) = gossamer::main(threads, move || {
                let g = ShardedGraph::build(&l, kind).unwrap();
                let auto = PageRankConfig {
                    sweep: Sweep::Auto,
                    ..CONFIGS[0]
                };
                (
                    CONFIGS.map(|c| pagerank(&g, &c).unwrap()),
                    pagerank(&g, &auto).unwrap(),
                )
            });
            // The default is Jacobi until it turns to Gauss–Seidel (on
            // Graph500 graphs it never does: `check_scale`).
            if auto.gauss_seidel_iterations == 0 {
                assert_eq!(auto.scores, outs[0].scores);
            }
            let r = verify_pagerank(list, false, &auto.scores, 0.85).unwrap();
            assert!(r <= 0.85 * auto.residual + 1e-12, "residual {r}");
            turned += auto.gauss_seidel_iterations;
            for ((out, w), c) in outs.iter().zip(&want).zip(CONFIGS) {
                let what = format!(
                    "{} vertices, {threads} threads, {kind:?}, {c:?}",
                    list.num_vertices()
                );
                assert_eq!(out.iterations, w.iterations, "{what}");
                assert!((out.residual - w.residual).abs() < 1e-9, "{what}");
                let worst = out
                    .scores
                    .iter()
                    .zip(&w.scores)
                    .map(|(a, b)| (a - b).abs())
                    .fold(0.0, f64::max);
                assert!(worst < 1e-12, "{what}: scores differ by {worst}");
                let r = verify_pagerank(list, false, &out.scores, c.damping).unwrap();
                assert!(
                    r <= c.damping * out.residual + 1e-12,
                    "{what}: residual {r}"
                );
                // One process: the trustees share the replicas.
                assert_eq!(out.records, 0, "{what}");
            }
        }
    }
    (want, turned)
}

#[test]
fn random_graphs_match_sequential() {
    for (seed, (n, m)) in [(4, 1), (37, 30), (300, 900), (2000, 12000)]
        .into_iter()
        .enumerate()
    {
        let list = graph_kernel::doc::random(n, m, seed as u64 + 1);
        check(&list, &[1, 2, 3, 4]);
    }
}

#[test]
fn scale10_matches_sequential() {
    check_scale(10);
}

#[test]
fn scale12_matches_sequential() {
    check_scale(12);
}

#[test]
fn verifier_rejects_perturbed_scores() {
    let list = load(10);
    let cfg = PageRankConfig::default();
    let (d, tol) = (cfg.damping, cfg.tolerance);
    let good = pagerank_sequential(&list, false, d, cfg.max_iterations, tol)
        .unwrap()
        .scores;
    assert!(verify_pagerank(&list, false, &good, d).unwrap() < tol);
    // Moving mass between two vertices keeps the total but not the fixed point.
    let mut moved = good.clone();
    let (a, b) = (0, good.iter().position(|&s| s > 1e-3).unwrap());
    moved[a] += 1e-3;
    moved[b] -= 1e-3;
    assert!(verify_pagerank(&list, false, &moved, d).unwrap() > tol);
    // Created mass: one more iteration takes at least (1 - d) x of it away.
    let mut created = good.clone();
    created[0] += 0.5;
    assert!(verify_pagerank(&list, false, &created, d).unwrap() >= (1.0 - d) * 0.5);
    let mut low = good;
    low[3] = 0.0;
    assert!(verify_pagerank(&list, false, &low, d)
        .unwrap_err()
        .contains("base score"));
}

#[test]
fn verifier_rejects_the_kernels_answer_with_one_score_perturbed() {
    // The kernel's own answer passes as the CLI checks it (one more
    // iteration moves the scores by at most d x the last residual); the
    // same answer with one score off by 1e-4 of the total does not, and
    // neither does one with a score below the base score.
    let list = load(10);
    let l = list.clone();
    let cfg = PageRankConfig::default();
    let out = gossamer::main(2, move || {
        let g = ShardedGraph::build(&l, PartitionKind::Cyclic).unwrap();
        pagerank(&g, &cfg).unwrap()
    });
    let d = cfg.damping;
    let passes = |scores: &[f64]| {
        verify_pagerank(&list, false, scores, d).is_ok_and(|r| r <= d * out.residual + 1e-12)
    };
    assert!(passes(&out.scores));
    let top = (0..out.scores.len())
        .max_by(|&a, &b| out.scores[a].total_cmp(&out.scores[b]))
        .unwrap();
    for v in [top, out.scores.len() / 2] {
        let mut bad = out.scores.clone();
        bad[v] -= 1e-4;
        assert!(!passes(&bad), "vertex {v} lowered by 1e-4");
    }
    let low = (0..out.scores.len())
        .min_by(|&a, &b| out.scores[a].total_cmp(&out.scores[b]))
        .unwrap();
    let mut bad = out.scores.clone();
    bad[low] *= 0.5;
    let e = verify_pagerank(&list, false, &bad, d).unwrap_err();
    assert!(e.contains("base score"), "{e}");
}

#[test]
fn bad_settings_are_refused() {
    let list = load(10);
    let msgs = gossamer::main(2, move || {
        let g = ShardedGraph::build(&list, PartitionKind::Cyclic).unwrap();
        [
            PageRankConfig {
                damping: 1.0,
                ..Default::default()
            },
            PageRankConfig {
                max_iterations: 0,
                ..Default::default()
            },
            PageRankConfig {
                tolerance: f64::NAN,
                ..Default::default()
            },
        ]
        .map(|c| match pagerank(&g, &c) {
            Err(KernelError::Config(m)) => m,
            other => panic!("expected a config error, got {other:?}"),
        })
    });
    assert!(msgs[0].contains("damping"));
    assert!(msgs[1].contains("max_iterations"));
    assert!(msgs[2].contains("tolerance"));
}

/// A `rows` x `cols` grid graph (every vertex joined to its right and lower
/// neighbours).
fn grid(rows: u32, cols: u32) -> EdgeList<'static> {
    let e = |u, v| graph_core::PackedEdge::new(u, v, 1.0);
    let mut edges = Vec::new();
    for r in 0..rows {
        for c in 0..cols {
            let v = r * cols + c;
            if c + 1 < cols {
                edges.push(e(v, v + 1));
            }
            if r + 1 < rows {
                edges.push(e(v, v + cols));
            }
        }
    }
    EdgeList::from_edges(u64::from(rows * cols), edges).unwrap()
}

/// Gauss–Seidel (and the default on a grid) against Jacobi: stopped by the
/// tolerance it passes the CLI's check (one more iteration moves the scores
/// by at most d x the last residual); run long enough it reaches the same
/// fixed point; on a grid it needs fewer iterations, and the default turns
/// to it.
#[test]
fn gauss_seidel_reaches_the_fixed_point_and_the_default_takes_it_on_a_grid() {
    for (list, threads) in [(load(10), 3), (grid(30, 40), 2), (grid(30, 40), 1)] {
        let l = list.clone();
        let gs = PageRankConfig {
            sweep: Sweep::GaussSeidel,
            ..Default::default()
        };
        let long = PageRankConfig {
            max_iterations: 3000,
            tolerance: 1e-15,
            ..gs
        };
        let outs = gossamer::main(threads, move || {
            let g = ShardedGraph::build(&l, PartitionKind::Block).unwrap();
            [gs, long, Default::default(), CONFIGS[0]].map(|c| pagerank(&g, &c).unwrap())
        });
        let [gs_out, long_out, auto, jacobi] = &outs;
        let what = format!("{} vertices, {threads} threads", list.num_vertices());
        for out in [gs_out, auto] {
            let r = verify_pagerank(&list, false, &out.scores, 0.85).unwrap();
            assert!(r <= 0.85 * out.residual + 1e-12, "{what}: residual {r}");
        }
        assert_eq!(gs_out.gauss_seidel_iterations, gs_out.iterations, "{what}");
        let want = pagerank_sequential(&list, false, 0.85, 3000, 1e-15).unwrap();
        let worst = (long_out.scores.iter().zip(&want.scores))
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        assert!(worst < 1e-13, "{what}: {worst}");
        if list.num_vertices() == 1200 {
            assert!(gs_out.residual < 1e-4 && auto.residual < 1e-4, "{what}");
            assert!(
                jacobi.residual >= 1e-4 || jacobi.iterations > auto.iterations,
                "{what}"
            );
            assert!(gs_out.iterations < jacobi.iterations, "{what}");
            assert!(auto.gauss_seidel_iterations > 0, "{what}");
        }
    }
}
