//! Every kernel on a directed graph (issue 14 item 3): a hand-written
//! `.wel` file whose arcs make the directed answers differ from the
//! undirected ones; BFS levels, SSSP distances, weak CC labels and PageRank
//! scores (with a dangling vertex) checked against sequential references
//! computed here, for 1-3 trustees and for 2 ranks; roots picked among the
//! vertices with out-arcs; bc along the arcs (against a reference computed
//! here, and hand-computed scores on a directed path); tc refused.

mod common;

use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use common::{arg, fails, ok, run, scratch};

/// `(u, v, w)` arcs over 10 vertices: 5 -> 0 only (so 5 is reached from 0
/// only against the arc), a heavier parallel arc 0 -> 1, a cycle 6 <-> 7,
/// 8 dangling (an in-arc, no out-arc), 9 with only a self-loop.
const ARCS: [(usize, usize, f32); 13] = [
    (0, 1, 1.0),
    (1, 2, 1.0),
    (0, 3, 5.0),
    (3, 2, 1.0),
    (2, 4, 1.0),
    (5, 0, 1.0),
    (4, 1, 0.5),
    (6, 7, 2.0),
    (7, 6, 2.0),
    (4, 4, 1.0),
    (0, 1, 3.0),
    (2, 8, 1.0),
    (9, 9, 1.0),
];
const N: usize = 10;

fn write_graph(dir: &Path) -> PathBuf {
    let p = dir.join("arcs.wel");
    let text: String = ARCS
        .iter()
        .map(|(u, v, w)| format!("{u} {v} {w}\n"))
        .collect();
    std::fs::write(&p, format!("% a directed test graph\n{text}")).unwrap();
    p
}

/// Out-rows (self-loops dropped); both directions when `!directed`.
fn rows(directed: bool) -> Vec<Vec<(usize, f32)>> {
    let mut r = vec![Vec::new(); N];
    for &(u, v, w) in ARCS.iter().filter(|a| a.0 != a.1) {
        r[u].push((v, w));
        if !directed {
            r[v].push((u, w));
        }
    }
    r
}

fn levels(directed: bool, root: usize) -> Vec<i64> {
    let r = rows(directed);
    let mut level = vec![-1i64; N];
    level[root] = 0;
    let mut q = VecDeque::from([root]);
    while let Some(u) = q.pop_front() {
        for &(v, _) in &r[u] {
            if level[v] < 0 {
                level[v] = level[u] + 1;
                q.push_back(v);
            }
        }
    }
    level
}

fn distances(root: usize) -> Vec<f32> {
    let r = rows(true);
    let mut dist = vec![f32::INFINITY; N];
    let mut done = [false; N];
    dist[root] = 0.0;
    while let Some(u) = (0..N)
        .filter(|&v| !done[v] && dist[v].is_finite())
        .min_by(|&a, &b| dist[a].total_cmp(&dist[b]))
    {
        done[u] = true;
        for &(v, w) in &r[u] {
            dist[v] = dist[v].min(dist[u] + w);
        }
    }
    dist
}

/// GAPBS's PageRank on the simple directed graph: contributions over
/// out-degrees, pulled along in-arcs; dangling vertices contribute nothing.
fn pagerank(iterations: u32) -> Vec<f64> {
    let mut out: Vec<Vec<usize>> = rows(true)
        .into_iter()
        .map(|r| r.into_iter().map(|(v, _)| v).collect())
        .collect();
    for r in out.iter_mut() {
        r.sort_unstable();
        r.dedup();
    }
    let (d, n) = (0.85, N as f64);
    let mut score = vec![1.0 / n; N];
    for _ in 0..iterations {
        let mut next = vec![(1.0 - d) / n; N];
        for (u, r) in out.iter().enumerate() {
            for &v in r {
                next[v] += d * score[u] / r.len() as f64;
            }
        }
        score = next;
    }
    score
}

/// Brandes along the arcs from `sources` on the simple graph (parallel arcs
/// once), summed and divided by the largest: GAPBS's bc on a directed graph.
fn betweenness(directed: bool, sources: &[usize]) -> Vec<f64> {
    let r: Vec<Vec<usize>> = rows(directed)
        .into_iter()
        .map(|row| {
            let mut vs: Vec<usize> = row.into_iter().map(|(v, _)| v).collect();
            vs.sort_unstable();
            vs.dedup();
            vs
        })
        .collect();
    let mut score = vec![0.0f64; N];
    for &s in sources {
        let mut depth = [-1i64; N];
        let mut sigma = [0.0f64; N];
        let mut order = vec![s];
        depth[s] = 0;
        sigma[s] = 1.0;
        let mut i = 0;
        while i < order.len() {
            let u = order[i];
            i += 1;
            for &v in &r[u] {
                if depth[v] < 0 {
                    depth[v] = depth[u] + 1;
                    order.push(v);
                }
                if depth[v] == depth[u] + 1 {
                    sigma[v] += sigma[u];
                }
            }
        }
        let mut delta = [0.0f64; N];
        for &u in order.iter().rev() {
            for &v in &r[u] {
                if depth[v] == depth[u] + 1 {
                    delta[u] += sigma[u] / sigma[v] * (1.0 + delta[v]);
                }
            }
            score[u] += delta[u];
        }
    }
    let top = score.iter().copied().fold(0.0, f64::max);
    if top > 0.0 {
        score.iter_mut().for_each(|x| *x /= top);
    }
    score
}

fn read<T, const K: usize>(p: &Path, f: fn([u8; K]) -> T) -> Vec<T> {
    std::fs::read(p)
        .unwrap()
        .chunks_exact(K)
        .map(|c| f(c.try_into().unwrap()))
        .collect()
}

/// `gossamer-graph [prefix] kernel --graph g [args]`, which must succeed.
fn kernel(prefix: &[&str], kernel: &str, g: &Path, args: &[&str]) {
    let mut a: Vec<&str> = prefix.to_vec();
    a.extend_from_slice(&[kernel, "--graph", arg(g)]);
    a.extend_from_slice(args);
    ok(&run(&a));
}

#[test]
fn every_kernel_follows_the_arcs() {
    let dir = scratch("directed-kernels");
    let text = write_graph(&dir);
    // Converted (the file says directed) and read directly.
    let conv = dir.join("arcs.ggraph");
    ok(&run(&["convert", arg(&text), "-o", arg(&conv)]));
    // The directed answers differ from the undirected ones.
    assert_ne!(levels(true, 0), levels(false, 0));
    assert_eq!(levels(true, 0)[5], -1);
    let want_cc: Vec<u64> = vec![0, 0, 0, 0, 0, 0, 6, 6, 0, 9];
    let want_pr = pagerank(40);
    let (lv, dist, labels, scores) = (
        dir.join("lv"),
        dir.join("dist"),
        dir.join("labels"),
        dir.join("scores"),
    );
    let setups = shapes();
    for g in [&conv, &text] {
        for (prefix, threads) in &setups {
            let what = format!("{} {prefix:?} --threads {threads}", g.display());
            let t = ["--threads", threads];
            for root in [0usize, 5, 3] {
                let r = root.to_string();
                for mode in ["do", "top-down"] {
                    let a = [
                        &t[..],
                        &["--root", &r, "--mode", mode, "--dump-levels", arg(&lv)],
                    ]
                    .concat();
                    kernel(prefix, "bfs", g, &a);
                    assert_eq!(
                        read(&lv, i64::from_le_bytes),
                        levels(true, root),
                        "{what} bfs {root} {mode}"
                    );
                }
                let a = [&t[..], &["--root", &r, "--dump-dist", arg(&dist)]].concat();
                kernel(prefix, "sssp", g, &a);
                assert_eq!(
                    read(&dist, f32::from_le_bytes),
                    distances(root),
                    "{what} sssp {root}"
                );
            }
            kernel(
                prefix,
                "cc",
                g,
                &[&t[..], &["--dump-labels", arg(&labels)]].concat(),
            );
            assert_eq!(read(&labels, u64::from_le_bytes), want_cc, "{what} cc");
            let a = [
                &t[..],
                &[
                    "--jacobi",
                    "--max-iterations",
                    "40",
                    "--tolerance",
                    "0",
                    "--dump-scores",
                    arg(&scores),
                ],
            ]
            .concat();
            kernel(prefix, "pagerank", g, &a);
            let got = read(&scores, f64::from_le_bytes);
            for (v, (a, b)) in got.iter().zip(&want_pr).enumerate() {
                assert!(
                    (a - b).abs() < 1e-12,
                    "{what} pagerank vertex {v}: {a} vs {b}"
                );
            }
            assert!(
                got.iter().sum::<f64>() < 0.99,
                "the dangling vertex 8 leaks"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn roots_have_out_arcs_and_tc_refuses() {
    let dir = scratch("directed-roots");
    let g = write_graph(&dir);
    let reference_levels: Vec<Vec<i64>> = (0..N).map(|r| levels(true, r)).collect();
    for seed in ["1", "7", "99"] {
        let out = ok(&run(&[
            "bfs",
            "--graph",
            arg(&g),
            "--roots",
            "16",
            "--seed",
            seed,
            "--json",
            "--threads",
            "2",
        ]));
        let json: serde_json::Value = serde_json::from_str(&out).unwrap();
        for r in json["roots"].as_array().unwrap() {
            let root = r["root"].as_u64().unwrap() as usize;
            // 8 (no out-arc) and 9 (a self-loop only) are never roots.
            assert!(root < 8, "seed {seed}: root {root}");
            let lv = &reference_levels[root];
            let reached = lv.iter().filter(|&&l| l >= 0).count() as u64;
            // Traversed edges: the non-loop arcs whose tail is reached.
            let arcs = ARCS.iter().filter(|a| a.0 != a.1 && lv[a.0] >= 0).count() as u64;
            assert_eq!(r["reached"].as_u64(), Some(reached), "root {root}");
            assert_eq!(r["traversed_edges"].as_u64(), Some(arcs), "root {root}");
            assert_eq!(r["validated"], true);
        }
    }
    // tc refuses, with the reason and the way out.
    let e = fails(&run(&["tc", "--graph", arg(&g), "--threads", "2"]));
    assert!(e.contains("tc does not run on directed graphs"), "{e}");
    assert!(
        e.contains("triangles are counted on undirected graphs"),
        "{e}"
    );
    assert!(e.contains("--undirected"), "{e}");
    // Symmetrized, it runs, and so does bc.
    for k in ["bc", "tc"] {
        ok(&run(&[
            k,
            "--graph",
            arg(&g),
            "--undirected",
            "--threads",
            "2",
        ]));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The process shapes each answer is checked on: 1, 2 and 3 threads in
/// one process, and 2 ranks of 1 thread.
fn shapes() -> Vec<(Vec<&'static str>, &'static str)> {
    vec![
        (vec![], "1"),
        (vec![], "2"),
        (vec![], "3"),
        (vec!["--ranks", "2"], "1"),
    ]
}

#[test]
fn bc_follows_the_arcs() {
    let dir = scratch("directed-bc");
    let text = write_graph(&dir);
    let conv = dir.join("arcs.ggraph");
    ok(&run(&["convert", arg(&text), "-o", arg(&conv)]));
    let scores = dir.join("scores");
    let setups = shapes();
    for g in [&conv, &text] {
        for (prefix, threads) in &setups {
            let what = format!("{} {prefix:?} --threads {threads}", g.display());
            let mut a: Vec<&str> = prefix.clone();
            a.extend_from_slice(&["bc", "--graph", arg(g), "--roots", "6", "--json"]);
            a.extend_from_slice(&["--threads", threads, "--dump-scores", arg(&scores)]);
            let json: serde_json::Value = serde_json::from_str(&ok(&run(&a))).unwrap();
            assert_eq!(json["kernel"], "bc", "{what}");
            let sources: Vec<usize> = json["sources"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_u64().unwrap() as usize)
                .collect();
            assert_eq!(sources.len(), 6, "{what}");
            // Sources have out-arcs: not 8 (dangling) nor 9 (a self-loop).
            assert!(sources.iter().all(|&s| s < 8), "{what}: {sources:?}");
            let got = read(&scores, f64::from_le_bytes);
            let want = betweenness(true, &sources);
            assert_ne!(want, betweenness(false, &sources), "{what}: {sources:?}");
            for (v, (a, b)) in got.iter().zip(&want).enumerate() {
                assert!((a - b).abs() < 1e-12, "{what} bc vertex {v}: {a} vs {b}");
            }
            assert_eq!(got.len(), N, "{what}");
            // The verifier followed the arcs too.
            assert_eq!(json["validated"], true, "{what}");
            assert!(json["max_difference"].as_f64().unwrap() < 1e-12);
        }
    }
    // From 0 the arcs reach 1, 3, 2, 4, 8 (not 5: 5 -> 0 points the other
    // way), so the directed scores are not the undirected ones.
    assert_ne!(betweenness(true, &[0]), betweenness(false, &[0]));
    assert_eq!(betweenness(true, &[0])[5], 0.0);

    // A directed path 0 -> 1 -> 2 -> 3, by hand. Each source has out-arcs
    // (0, 1 or 2); raw dependencies from 0 are 3, 2, 1, 0, from 1 are
    // 0, 2, 1, 0, from 2 are 0, 0, 1, 0.
    let path = dir.join("path.el");
    std::fs::write(&path, "0 1\n1 2\n2 3\n").unwrap();
    let raw = [
        [3.0, 2.0, 1.0, 0.0],
        [0.0, 2.0, 1.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
    ];
    for threads in ["1", "2", "3"] {
        let out = ok(&run(&[
            "bc",
            "--graph",
            arg(&path),
            "--roots",
            "3",
            "--json",
            "--threads",
            threads,
            "--dump-scores",
            arg(&scores),
        ]));
        let json: serde_json::Value = serde_json::from_str(&out).unwrap();
        let mut want = [0.0f64; 4];
        for s in json["sources"].as_array().unwrap() {
            let s = s.as_u64().unwrap() as usize;
            assert!(s < 3, "3 has no out-arc: {s}");
            for (w, r) in want.iter_mut().zip(raw[s]) {
                *w += r;
            }
        }
        let top = want.iter().copied().fold(0.0, f64::max);
        want.iter_mut().for_each(|x| *x /= top);
        assert_eq!(
            read(&scores, f64::from_le_bytes),
            want,
            "--threads {threads}"
        );
        // The report's top vertex is the one with score 1.
        let top_vertex = json["top"][0].clone();
        let best = want.iter().position(|&x| x == 1.0).unwrap() as u64;
        assert_eq!(top_vertex[0].as_u64(), Some(best), "{top_vertex}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
