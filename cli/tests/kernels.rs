//! `gossamer-graph cc`, `pagerank`, `bc`, `tc` and `kcore` on the SCALE 10 reference
//! vectors' graph (generated, byte-identical to them): the reported numbers
//! match the library's sequential references, dumps have the documented
//! format, and bad settings are refused.

mod common;

use common::*;

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out.trim()).expect("one JSON object")
}

fn vectors_list() -> graph_core::EdgeList<'static> {
    let edges = std::fs::read(vector("scale10.edges")).unwrap();
    let mut list = graph_core::EdgeList::zeroed(graph_core::Graph500Params::reference(10)).unwrap();
    for (out, e) in list.edges_mut().iter_mut().zip(edges.chunks_exact(16)) {
        let u = u64::from_le_bytes(e[0..8].try_into().unwrap());
        let v = u64::from_le_bytes(e[8..16].try_into().unwrap());
        *out = graph_core::PackedEdge::from_wide(u, v, 1.0);
    }
    list
}

#[test]
fn cc_matches_union_find_and_dumps_labels() {
    let dir = scratch("cli_cc");
    let dump = dir.join("labels");
    let out = json(&ok(&run(&[
        "cc",
        "--scale",
        "10",
        "--threads",
        "2",
        "--json",
        "--dump-labels",
        arg(&dump),
    ])));
    let want = components::cc_sequential(&vectors_list());
    let components = want
        .iter()
        .enumerate()
        .filter(|&(v, &l)| l == v as u64)
        .count();
    assert_eq!(out["kernel"], "cc");
    assert_eq!(out["components"], components as u64);
    assert_eq!(out["validated"], true);
    let bytes = std::fs::read(&dump).unwrap();
    let labels: Vec<u64> = bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(labels, want);
    let human = ok(&run(&["cc", "--scale", "10", "--threads", "2"]));
    assert!(
        human.contains(&format!("{components} components")),
        "{human}"
    );
}

#[test]
fn pagerank_matches_the_sequential_reference() {
    let out = json(&ok(&run(&[
        "pagerank",
        "--scale",
        "10",
        "--threads",
        "2",
        "--json",
    ])));
    let seq = pagerank::pagerank_sequential(&vectors_list(), false, 0.85, 20, 1e-4).unwrap();
    assert_eq!(out["kernel"], "pagerank");
    assert_eq!(out["iterations"], seq.iterations);
    assert_eq!(out["validated"], true);
    let best = (0..seq.scores.len())
        .max_by(|&a, &b| seq.scores[a].total_cmp(&seq.scores[b]))
        .unwrap();
    assert_eq!(out["top"][0][0], best as u64);
    let fixed = json(&ok(&run(&[
        "pagerank",
        "--scale",
        "10",
        "--threads",
        "2",
        "--json",
        "--tolerance",
        "0",
        "--max-iterations",
        "3",
    ])));
    assert_eq!(fixed["iterations"], 3);
}

#[test]
fn pagerank_refuses_bad_settings_before_generating() {
    let err = fails(&run(&["pagerank", "--scale", "10", "--damping", "1.5"]));
    assert!(err.contains("damping = 1.5"), "{err}");
    let err = fails(&run(&[
        "pagerank",
        "--scale",
        "10",
        "--max-iterations",
        "0",
    ]));
    assert!(err.contains("max_iterations = 0"), "{err}");
}

#[test]
fn both_kernels_run_across_two_ranks_unchanged() {
    // Two processes (shared-memory transport): the trustees of the other rank
    // are reached through the same trusts, and each process has its own
    // replicas (parents, contributions), kept in step by publishing; the
    // answers are verified in-process and compared here, label by label
    // and score by score.
    let dir = scratch("cli_two_ranks");
    let (labels_dump, scores_dump) = (dir.join("labels"), dir.join("scores"));
    let want = components::cc_sequential(&vectors_list());
    let components = want
        .iter()
        .enumerate()
        .filter(|&(v, &l)| l == v as u64)
        .count();
    let out = json(&ok(&run(&[
        "--ranks",
        "2",
        "cc",
        "--scale",
        "10",
        "--threads",
        "2",
        "--partition",
        "cyclic",
        "--json",
        "--dump-labels",
        arg(&labels_dump),
    ])));
    let words = |p: &std::path::Path| -> Vec<[u8; 8]> {
        let bytes = std::fs::read(p).unwrap();
        bytes
            .chunks_exact(8)
            .map(|c| c.try_into().unwrap())
            .collect()
    };
    let labels: Vec<u64> = words(&labels_dump)
        .into_iter()
        .map(u64::from_le_bytes)
        .collect();
    assert_eq!(labels, want);
    assert_eq!(
        (out["ranks"].clone(), out["validated"].clone()),
        (2.into(), true.into())
    );
    assert_eq!(out["components"], components as u64);
    let seq = pagerank::pagerank_sequential(&vectors_list(), false, 0.85, 20, 1e-4).unwrap();
    let out = json(&ok(&run(&[
        "--ranks",
        "2",
        "pagerank",
        "--scale",
        "10",
        "--threads",
        "2",
        "--json",
        "--dump-scores",
        arg(&scores_dump),
    ])));
    let scores: Vec<f64> = words(&scores_dump)
        .into_iter()
        .map(f64::from_le_bytes)
        .collect();
    assert_eq!(scores.len(), seq.scores.len());
    let worst = scores
        .iter()
        .zip(&seq.scores)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(worst < 1e-12, "scores differ by {worst}");
    assert_eq!(
        (out["ranks"].clone(), out["validated"].clone()),
        (2.into(), true.into())
    );
    assert_eq!(out["iterations"], seq.iterations);
}

fn first_roots(count: usize) -> Vec<u64> {
    let roots = graph_core::io::vectors::Vectors::at(vectors_dir())
        .roots(10)
        .unwrap();
    roots[..count].to_vec()
}

fn read_f64s(path: &std::path::Path) -> Vec<f64> {
    std::fs::read(path)
        .unwrap()
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn worst_difference(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

#[test]
fn bc_matches_the_sequential_reference_and_dumps_scores() {
    let dir = scratch("cli_bc");
    let dump = dir.join("scores");
    let out = json(&ok(&run(&[
        "bc",
        "--scale",
        "10",
        "--threads",
        "2",
        "--json",
        "--dump-scores",
        arg(&dump),
    ])));
    let sources = first_roots(4);
    let want = bc::bc_sequential(&vectors_list(), &sources).unwrap();
    assert_eq!(out["kernel"], "bc");
    assert_eq!(out["validated"], true);
    assert_eq!(out["sources"], serde_json::json!(sources));
    assert_eq!(out["levels"].as_array().unwrap().len(), 4);
    assert!(out["max_difference"].as_f64().unwrap() < 1e-12);
    let scores = read_f64s(&dump);
    assert!(worst_difference(&scores, &want) < 1e-12);
    let best = (0..want.len()).find(|&v| want[v] == 1.0).unwrap();
    assert_eq!(out["top"][0][0], best as u64);
    // Another source count, human-readable report.
    let human = ok(&run(&[
        "bc",
        "--scale",
        "10",
        "--threads",
        "2",
        "--roots",
        "2",
    ]));
    assert!(
        human.contains(&format!("sources {}, {}", sources[0], sources[1])),
        "{human}"
    );
}

#[test]
fn tc_matches_the_sequential_reference() {
    let out = json(&ok(&run(&[
        "tc",
        "--scale",
        "10",
        "--threads",
        "2",
        "--json",
    ])));
    let want = tc::tc_sequential(&vectors_list()).unwrap();
    assert_eq!(out["kernel"], "tc");
    assert_eq!(out["triangles"], want);
    assert_eq!(out["validated"], true);
    let human = ok(&run(&["tc", "--scale", "10", "--threads", "1"]));
    assert!(human.contains(&format!("{want} triangles")), "{human}");
}

#[test]
fn bc_and_tc_read_a_graph_file() {
    let dir = scratch("cli_bc_tc_file");
    let file = dir.join("g10.gg");
    ok(&run(&["generate", "--scale", "10", "-o", arg(&file)]));
    let tri = json(&ok(&run(&[
        "tc",
        "--graph",
        arg(&file),
        "--threads",
        "2",
        "--json",
    ])));
    assert_eq!(
        tri["triangles"],
        tc::tc_sequential(&vectors_list()).unwrap()
    );
    let dump = dir.join("scores");
    let out = json(&ok(&run(&[
        "bc",
        "--graph",
        arg(&file),
        "--threads",
        "2",
        "--partition",
        "cyclic",
        "--json",
        "--dump-scores",
        arg(&dump),
    ])));
    assert_eq!(out["validated"], true);
    let want = bc::bc_sequential(&vectors_list(), &first_roots(4)).unwrap();
    assert!(worst_difference(&read_f64s(&dump), &want) < 1e-12);
    // The file stores 64 roots: more sources than that are refused.
    let err = fails(&run(&["bc", "--graph", arg(&file), "--roots", "65"]));
    assert!(err.contains("--roots 65"), "{err}");
}

#[test]
fn bc_refuses_bad_source_counts_before_generating() {
    for n in ["0", "65"] {
        let err = fails(&run(&["bc", "--scale", "30", "--roots", n]));
        assert!(
            err.contains(&format!("--roots {n}: betweenness runs from 1 to 64")),
            "{err}"
        );
    }
}

/// Two ranks of two threads: bc's shares are published to both trustees
/// of the other rank, whose copies may land a round apart.
#[test]
fn bc_and_tc_across_two_ranks_give_the_one_rank_answers() {
    let dir = scratch("cli_bc_tc_ranks");
    let (one, two) = (dir.join("one"), dir.join("two"));
    let mut answers = vec![];
    for (ranks, dump) in [("1", &one), ("2", &two)] {
        let b = json(&ok(&run(&[
            "--ranks",
            ranks,
            "bc",
            "--scale",
            "10",
            "--threads",
            "2",
            "--json",
            "--dump-scores",
            arg(dump),
        ])));
        let t = json(&ok(&run(&[
            "--ranks",
            ranks,
            "tc",
            "--scale",
            "10",
            "--threads",
            "2",
            "--json",
        ])));
        assert_eq!(b["ranks"], ranks.parse::<u64>().unwrap());
        assert_eq!(
            (b["validated"].clone(), t["validated"].clone()),
            (true.into(), true.into())
        );
        answers.push((
            b["levels"].clone(),
            b["top"][0][0].clone(),
            t["triangles"].clone(),
        ));
    }
    assert_eq!(answers[0], answers[1]);
    assert!(worst_difference(&read_f64s(&one), &read_f64s(&two)) < 1e-12);
}

#[test]
fn cc_across_two_ranks_joins_many_small_components() {
    // Many small components spread over both ranks (the Graph500 graph has
    // one giant component and isolated vertices, which hides a rank that
    // reads another's parents wrong): labels must be the union-find's.
    let dir = scratch("cli_cc_small_components");
    let (graph, dump) = (dir.join("g.el"), dir.join("labels"));
    let n = 3000u32;
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    // Every id appears (a self-loop, dropped by the CSR); edges stay inside
    // clusters of ids equal modulo 97, and only every third vertex has any.
    let mut edges: Vec<(u32, u32)> = (0..n).map(|v| (v, v)).collect();
    for _ in 0..1200 {
        let u = (next() % u64::from(n / 3)) as u32 * 3;
        let v = ((next() % u64::from(n / 97 / 3)) as u32 * 3 * 97 + u % 97).min(n - 1);
        edges.push((u, v));
    }
    let text: String = edges.iter().map(|(u, v)| format!("{u} {v}\n")).collect();
    std::fs::write(&graph, text).unwrap();
    let list = graph_core::EdgeList::from_edges(
        u64::from(n),
        edges
            .iter()
            .map(|&(u, v)| graph_core::PackedEdge::new(u, v, 1.0))
            .collect(),
    )
    .unwrap();
    let want = components::cc_sequential(&list);
    let classes = want
        .iter()
        .enumerate()
        .filter(|&(v, &l)| l == v as u64)
        .count();
    assert!(classes > 100, "{classes} components");
    for partition in ["block", "cyclic"] {
        ok(&run(&[
            "--ranks",
            "2",
            "cc",
            "--graph",
            arg(&graph),
            "--undirected",
            "--threads",
            "2",
            "--partition",
            partition,
            "--dump-labels",
            arg(&dump),
        ]));
        let bytes = std::fs::read(&dump).unwrap();
        let labels: Vec<u64> = bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(labels, want, "{partition}");
    }
}

#[test]
fn bc_sources_are_distinct_and_can_be_chosen() {
    // Two triangles' worth of vertices: 0-1-2 a cycle, 3-4-5 a path. Random
    // picks with repeats gave sources 0, 0, 0, 4 here.
    let dir = scratch("cli_bc_sources");
    let g = dir.join("six.el");
    std::fs::write(&g, "0 1\n1 2\n2 0\n3 4\n4 5\n").unwrap();
    let sources_of = |extra: &[&str]| -> (Vec<u64>, String) {
        let mut a = vec!["bc", "--graph", arg(&g), "--json"];
        a.extend_from_slice(extra);
        let out = run(&a);
        let v = json(&ok(&out));
        assert_eq!(v["validated"], true, "{v}");
        let s = v["sources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .collect();
        (s, stderr(&out))
    };
    for seed in ["1", "2", "3", "27491095"] {
        let (s, _) = sources_of(&["--seed", seed]);
        assert_eq!(s.len(), 4, "--seed {seed}: {s:?}");
        let mut d = s.clone();
        d.sort_unstable();
        d.dedup();
        assert_eq!(d.len(), 4, "--seed {seed}: repeated sources {s:?}");
    }
    // More than the vertices with out-arcs (the .el is directed; 5 has
    // none): all five, once each, with a note.
    let (mut s, err) = sources_of(&["--roots", "64"]);
    s.sort_unstable();
    assert_eq!(s, [0, 1, 2, 3, 4]);
    assert!(
        err.contains("bc runs from 5 distinct sources, not 64"),
        "{err}"
    );
    // Chosen sources: repeated flag and comma lists, in the order given.
    let (s, _) = sources_of(&["--source", "5,0", "--source", "3"]);
    assert_eq!(s, [5, 0, 3]);
    let e = fails(&run(&["bc", "--graph", arg(&g), "--source", "1,1"]));
    assert!(e.contains("--source 1 is given twice"), "{e}");
    let e = fails(&run(&["bc", "--graph", arg(&g), "--source", "9"]));
    assert!(e.contains("root 9 is out of range"), "{e}");
    let help = ok(&run(&["bc", "--help"]));
    assert!(
        help.contains("the source's own dependency counts"),
        "{help}"
    );
    assert!(
        !help.contains("at most the number of roots stored"),
        "{help}"
    );
}

#[test]
fn kcore_matches_the_sequential_peeling_in_one_process_from_a_file_and_on_two_ranks() {
    let dir = scratch("cli_kcore");
    let want = kcore::kcore_sequential(&vectors_list()).unwrap();
    let top = *want.iter().max().unwrap();
    let file = dir.join("g10.gg");
    ok(&run(&["generate", "--scale", "10", "-o", arg(&file)]));
    let cores = |p: &std::path::Path| -> Vec<u32> {
        let bytes = std::fs::read(p).unwrap();
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    let runs: [&[&str]; 3] = [
        &["kcore", "--scale", "10", "--threads", "2"],
        &["kcore", "--graph", arg(&file), "--threads", "2"],
        &["--ranks", "2", "kcore", "--scale", "10", "--threads", "1"],
    ];
    for (i, args) in runs.iter().enumerate() {
        let dump = dir.join(format!("cores{i}"));
        let mut args = args.to_vec();
        args.extend(["--json", "--dump-cores", arg(&dump)]);
        let out = json(&ok(&run(&args)));
        assert_eq!(out["kernel"], "kcore", "{args:?}");
        assert_eq!(out["validated"], true, "{args:?}");
        assert_eq!(out["max_core"], top, "{args:?}");
        assert_eq!(cores(&dump), want, "{args:?}");
    }
    let human = ok(&run(&["kcore", "--scale", "10", "--threads", "2"]));
    assert!(human.contains(&format!("max core {top}")), "{human}");
}

#[test]
fn pagerank_on_a_grid_across_two_ranks_gets_the_one_process_scores() {
    // A grid cut into two blocks: each process reads of the other's
    // contributions only those of the row next to the cut, and those are
    // all it is sent (as (index, value) pairs); a vertex missed or an
    // index wrong would change the scores. Jacobi, a fixed number of
    // iterations: the same sums in another order.
    let dir = scratch("cli_pagerank_grid_ranks");
    for directed in [false, true] {
        let g = dir.join(format!("grid-{directed}.ggraph"));
        let mut gen = vec!["generate", "--kind", "grid", "--rows", "48", "--cols", "40"];
        if directed {
            gen.push("--directed");
        }
        ok(&run(&[&gen[..], &["-o", arg(&g)]].concat()));
        let scores = |ranks: &str, threads: &str| {
            let dump = dir.join(format!("scores-{directed}-{ranks}"));
            ok(&run(&[
                "--ranks",
                ranks,
                "pagerank",
                "--graph",
                arg(&g),
                "--threads",
                threads,
                "--jacobi",
                "--max-iterations",
                "30",
                "--tolerance",
                "0",
                "--dump-scores",
                arg(&dump),
            ]));
            read_f64s(&dump)
        };
        let (one, two) = (scores("1", "2"), scores("2", "1"));
        assert_eq!(one.len(), 48 * 40);
        let worst = worst_difference(&one, &two);
        assert!(
            worst < 1e-12,
            "directed {directed}: scores differ by {worst}"
        );
    }
}

#[test]
fn cc_on_grids_across_ranks_gets_the_one_process_labels() {
    // A grid cut into blocks: each process is sent only the parents the
    // other can read (the row next to the cut, the roots those name, the
    // vertices named in hooks), as (index, word) pairs; a word missed
    // leaves a parent that is not the root, and a label wrong. Nearly half
    // the streets removed: many components, many across the cut. Two and
    // three ranks, and two ranks of two trustees (one trustee exposes
    // another's vertices). Cyclic partitions send every word (the boundary
    // is every vertex). Leaving out the exposing of the vertices that sent
    // words name fails it (checked by hand); leaving out a hook's did not
    // (on these runs a hook names a vertex that was exposed already).
    let dir = scratch("cli_cc_grid_ranks");
    for directed in [false, true] {
        let g = dir.join(format!("grid-{directed}.ggraph"));
        let mut gen = vec!["generate", "--kind", "grid", "--rows", "60", "--cols", "50"];
        gen.extend(["--removed", "0.45", "--seed", "7"]);
        if directed {
            gen.push("--directed");
        }
        ok(&run(&[&gen[..], &["-o", arg(&g)]].concat()));
        let labels = |ranks: &str, threads: &str, partition: &str| {
            let dump = dir.join(format!("labels-{directed}-{ranks}-{threads}-{partition}"));
            let out = ok(&run(&[
                "--ranks",
                ranks,
                "cc",
                "--graph",
                arg(&g),
                "--threads",
                threads,
                "--partition",
                partition,
                "--json",
                "--dump-labels",
                arg(&dump),
            ]));
            assert_eq!(json(&out)["validated"], true, "{out}");
            std::fs::read(&dump).unwrap()
        };
        let one = labels("1", "2", "block");
        let components = one
            .chunks_exact(8)
            .enumerate()
            .filter(|&(v, l)| u64::from_le_bytes(l.try_into().unwrap()) == v as u64)
            .count();
        assert!(components > 50, "{components} components");
        let shapes = [
            ("2", "1", "block"),
            ("2", "2", "block"),
            ("3", "1", "block"),
        ];
        for (ranks, threads, partition) in [&shapes[..], &[("2", "1", "cyclic")]].concat() {
            assert!(
                labels(ranks, threads, partition) == one,
                "directed {directed}: {ranks} x {threads} {partition} differs"
            );
        }
    }
}
