//! Other tools' formats in (issue 14): the same small graph in every format
//! under `tests/data/` (the GAPBS `.sg`/`.wsg` files were written by GAPBS's
//! own `converter`), converted and searched; BFS levels, SSSP distances
//! and CC labels checked against sequential references computed here from
//! `graph.wel`; malformed files checked for the line in their error and
//! for writing nothing.

mod common;

use std::collections::{BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

use common::{arg, fails, ok, run, scratch, stderr};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// The reference graph: 10 vertices, `graph.wel`'s edges, read here by a
/// parser of its own.
fn reference() -> (usize, Vec<(usize, usize, f32)>) {
    let text = std::fs::read_to_string(data("graph.wel")).unwrap();
    let edges = text
        .lines()
        .filter(|l| !l.starts_with('%') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (
                f[0].parse().unwrap(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
            )
        })
        .collect();
    (10, edges)
}

/// Undirected adjacency, self-loops dropped.
fn adjacency(n: usize, edges: &[(usize, usize, f32)]) -> Vec<Vec<(usize, f32)>> {
    let mut adj = vec![Vec::new(); n];
    for &(u, v, w) in edges.iter().filter(|e| e.0 != e.1) {
        adj[u].push((v, w));
        adj[v].push((u, w));
    }
    adj
}

fn bfs_levels(n: usize, edges: &[(usize, usize, f32)], root: usize) -> Vec<i64> {
    let adj = adjacency(n, edges);
    let mut level = vec![-1i64; n];
    level[root] = 0;
    let mut queue = VecDeque::from([root]);
    while let Some(u) = queue.pop_front() {
        for &(v, _) in &adj[u] {
            if level[v] < 0 {
                level[v] = level[u] + 1;
                queue.push_back(v);
            }
        }
    }
    level
}

/// Dijkstra by repeated minimum (the graph is tiny).
fn distances(n: usize, edges: &[(usize, usize, f32)], root: usize) -> Vec<f32> {
    let adj = adjacency(n, edges);
    let mut dist = vec![f32::INFINITY; n];
    let mut done = vec![false; n];
    dist[root] = 0.0;
    while let Some(u) = (0..n)
        .filter(|&v| !done[v] && dist[v].is_finite())
        .min_by(|&a, &b| dist[a].total_cmp(&dist[b]))
    {
        done[u] = true;
        for &(v, w) in &adj[u] {
            dist[v] = dist[v].min(dist[u] + w);
        }
    }
    dist
}

fn read_i64s(p: &Path) -> Vec<i64> {
    std::fs::read(p)
        .unwrap()
        .chunks_exact(8)
        .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn read_u64s(p: &Path) -> Vec<u64> {
    read_i64s(p).into_iter().map(|x| x as u64).collect()
}

fn read_f32s(p: &Path) -> Vec<f32> {
    std::fs::read(p)
        .unwrap()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Converts `input` with `extra` flags into `dir/<name>.ggraph`; returns
/// the output and convert's stderr.
fn convert(dir: &Path, input: &Path, extra: &[&str]) -> (PathBuf, String) {
    let out = dir.join(format!(
        "{}.ggraph",
        input.file_name().unwrap().to_string_lossy()
    ));
    let mut args = vec!["convert", arg(input), "-o", arg(&out)];
    args.extend_from_slice(extra);
    let o = run(&args);
    ok(&o);
    (out, stderr(&o))
}

#[test]
fn every_format_converts_and_answers_like_the_reference() {
    let dir = scratch("formats-every");
    let (n, edges) = reference();
    // GAPBS's converter removes the self-loop and the repeated edge; that
    // changes no level or distance.
    let cases: [(&str, &[&str], bool, u64, &str); 8] = [
        (
            "graph.el",
            &["--undirected"],
            false,
            0,
            "undirected, unweighted",
        ),
        (
            "graph.wel",
            &["--undirected"],
            true,
            0,
            "undirected, weighted",
        ),
        (
            "graph.mtx",
            &["--undirected"],
            true,
            1,
            "undirected, weighted",
        ),
        (
            "graph-symmetric.mtx",
            &[],
            false,
            1,
            "undirected, unweighted",
        ),
        (
            "graph.gr",
            &["--undirected"],
            true,
            1,
            "undirected, weighted",
        ),
        ("graph.sg", &[], false, 0, "undirected, unweighted"),
        ("graph.wsg", &[], true, 0, "undirected, weighted"),
        (
            "graph-directed.sg",
            &["--undirected"],
            false,
            0,
            "undirected, unweighted",
        ),
    ];
    for (file, flags, weighted, base, kind) in cases {
        let (g, note) = convert(&dir, &data(file), flags);
        assert!(note.contains("10 vertices"), "{file}: {note}");
        assert!(note.contains(kind), "{file}: {note}");
        for root in [0usize, 3, 6] {
            let file_root = (root as u64 + base).to_string();
            let levels = dir.join("levels");
            let o = run(&[
                "bfs",
                "--graph",
                arg(&g),
                "--root",
                &file_root,
                "--threads",
                "2",
                "--dump-levels",
                arg(&levels),
                "--json",
            ]);
            let json: serde_json::Value = serde_json::from_str(&ok(&o)).unwrap();
            assert_eq!(
                json["roots"][0]["root"],
                base + root as u64,
                "{file}: reports speak file ids"
            );
            assert_eq!(json["roots"][0]["validated"], true);
            assert_eq!(
                read_i64s(&levels),
                bfs_levels(n, &edges, root),
                "{file} BFS from {root}"
            );
            let dist = dir.join("dist");
            let sssp = |extra: &[&str]| {
                let mut a = vec![
                    "sssp",
                    "--graph",
                    arg(&g),
                    "--root",
                    &file_root,
                    "--threads",
                    "2",
                    "--dump-dist",
                    arg(&dist),
                ];
                a.extend_from_slice(extra);
                run(&a)
            };
            if weighted {
                ok(&sssp(&[]));
                assert_eq!(
                    read_f32s(&dist),
                    distances(n, &edges, root),
                    "{file} SSSP from {root}"
                );
            } else {
                let e = fails(&sssp(&[]));
                assert!(
                    e.contains(
                        "the graph is unweighted, and sssp needs edge weights: pass --unit-weights"
                    ),
                    "{file}: {e}"
                );
                ok(&sssp(&["--unit-weights"]));
                let hops: Vec<f32> = bfs_levels(n, &edges, root)
                    .into_iter()
                    .map(|l| if l < 0 { f32::INFINITY } else { l as f32 })
                    .collect();
                assert_eq!(
                    read_f32s(&dist),
                    hops,
                    "{file} unit-weight SSSP from {root}"
                );
            }
        }
        // Connected components: the smallest dense id of each component.
        let labels = dir.join("labels");
        ok(&run(&[
            "cc",
            "--graph",
            arg(&g),
            "--threads",
            "2",
            "--dump-labels",
            arg(&labels),
        ]));
        assert_eq!(
            read_u64s(&labels),
            [0, 0, 0, 0, 0, 0, 6, 6, 8, 6],
            "{file} CC"
        );
        ok(&run(&["pagerank", "--graph", arg(&g), "--threads", "2"]));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unit_weights_override_real_weights() {
    let dir = scratch("formats-unit");
    let (n, edges) = reference();
    let (g, _) = convert(&dir, &data("graph.wel"), &["--undirected"]);
    let dist = dir.join("dist");
    ok(&run(&[
        "sssp",
        "--graph",
        arg(&g),
        "--root",
        "0",
        "--unit-weights",
        "--dump-dist",
        arg(&dist),
    ]));
    let hops: Vec<f32> = bfs_levels(n, &edges, 0)
        .into_iter()
        .map(|l| if l < 0 { f32::INFINITY } else { l as f32 })
        .collect();
    assert_eq!(read_f32s(&dist), hops);
    // A generated graph keeps its Graph500 roots and parameters.
    let roots = |extra: &[&str]| {
        let mut a = vec!["sssp", "--scale", "6", "--roots", "3", "--json"];
        a.extend_from_slice(extra);
        let json: serde_json::Value = serde_json::from_str(&ok(&run(&a))).unwrap();
        assert_eq!(json["scale"], 6);
        json["roots"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["root"].as_u64().unwrap())
            .collect::<Vec<u64>>()
    };
    assert_eq!(roots(&["--unit-weights"]), roots(&[]));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn directed_graphs_run_except_tc() {
    let dir = scratch("formats-directed");
    for (file, flags) in [
        ("graph.el", &[][..]),
        ("graph-directed.sg", &[][..]),
        ("graph.mtx", &["--directed"][..]),
    ] {
        let (g, note) = convert(&dir, &data(file), flags);
        assert!(note.contains("directed,"), "{note}");
        for kernel in ["bfs", "cc", "pagerank", "bc"] {
            ok(&run(&[
                kernel,
                "--graph",
                arg(&g),
                "--threads",
                "2",
                "--roots",
                "2",
            ][..if kernel == "bfs" { 7 } else { 5 }]));
        }
        ok(&run(&[
            "sssp",
            "--graph",
            arg(&g),
            "--threads",
            "2",
            "--roots",
            "2",
            "--unit-weights",
        ]));
        let e = fails(&run(&["tc", "--graph", arg(&g), "--threads", "2"]));
        assert!(
            e.contains("tc does not run on directed graphs: "),
            "{file} tc: {e}"
        );
        assert!(e.contains("convert with --undirected to symmetrize"), "{e}");
    }
    // A symmetric Matrix Market file stays undirected: its header wins.
    let (_, note) = convert(&dir, &data("graph-symmetric.mtx"), &["--directed"]);
    assert!(
        note.contains("declares the graph undirected (its header says symmetric): read as undirected although --directed was given"),
        "{note}"
    );
    assert!(note.contains("undirected, unweighted"), "{note}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn text_files_are_read_directly_with_a_note() {
    let dir = scratch("formats-direct");
    let (n, edges) = reference();
    let levels = dir.join("levels");
    let o = run(&[
        "bfs",
        "--graph",
        arg(&data("graph.gr")),
        "--undirected",
        "--root",
        "4",
        "--dump-levels",
        arg(&levels),
    ]);
    ok(&o);
    let note = stderr(&o);
    assert!(
        note.contains("as a .gr file on every run; `gossamer-graph convert")
            && note.contains("is faster"),
        "{note}"
    );
    assert_eq!(read_i64s(&levels), bfs_levels(n, &edges, 3));
    // The 1-based file's ids: the dump says which file id each entry is.
    assert_eq!(
        read_u64s(&dir.join("levels.ids")),
        (1..=10).collect::<Vec<u64>>()
    );
    // Without --undirected the edge list is directed: BFS follows the arcs.
    ok(&run(&[
        "bfs",
        "--graph",
        arg(&data("graph.el")),
        "--root",
        "0",
        "--dump-levels",
        arg(&levels),
    ]));
    let mut out = vec![Vec::new(); n];
    for &(u, v, _) in edges.iter().filter(|e| e.0 != e.1) {
        out[u].push(v);
    }
    let mut want = vec![-1i64; n];
    want[0] = 0;
    let mut queue = VecDeque::from([0usize]);
    while let Some(u) = queue.pop_front() {
        for &v in &out[u] {
            if want[v] < 0 {
                want[v] = want[u] + 1;
                queue.push_back(v);
            }
        }
    }
    assert_eq!(read_i64s(&levels), want);
    // An unknown extension: --format names the format.
    let txt = dir.join("edges.txt");
    std::fs::copy(data("graph.el"), &txt).unwrap();
    let e = fails(&run(&["bfs", "--graph", arg(&txt), "--root", "0"]));
    assert!(e.contains("pass --format"), "{e}");
    let e = fails(&run(&[
        "convert",
        arg(&txt),
        "-o",
        arg(&dir.join("x.ggraph")),
    ]));
    assert!(
        e.contains("cannot tell the format of") && e.contains("--format el|wel|mtx|gr|sg|wsg"),
        "{e}"
    );
    ok(&run(&[
        "bfs",
        "--graph",
        arg(&txt),
        "--format",
        "el",
        "--undirected",
        "--root",
        "0",
    ]));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn malformed_inputs_name_the_line_and_write_nothing() {
    let dir = scratch("formats-malformed");
    let cases = [
        ("bad-columns.el", "line 5: expected 2 numbers (src dst), found 'a b'"),
        (
            "bad-weight.wel",
            "line 3: weight -4 is negative: weights must be >= 0 (convert with --ignore-weights to read the graph as unweighted)",
        ),
        ("bad-id.mtx", "line 5: vertex id 0, but ids in a Matrix Market file start at 1"),
        ("bad-arc.gr", "line 4: expected an arc 'a SRC DST WEIGHT' or a comment 'c ...', found 'a 1 2'"),
    ];
    for (file, expected) in cases {
        let out = dir.join(format!("{file}.ggraph"));
        let e = fails(&run(&["convert", arg(&data(file)), "-o", arg(&out)]));
        assert!(e.contains(expected), "{file}: {e}");
        assert!(!out.exists(), "{file}: an output was written");
        // An existing output is left as it was.
        std::fs::write(&out, b"keep").unwrap();
        fails(&run(&["convert", arg(&data(file)), "-o", arg(&out)]));
        assert_eq!(std::fs::read(&out).unwrap(), b"keep");
    }
    // --ignore-weights reads the negative-weight file as unweighted.
    let (_, note) = convert(&dir, &data("bad-weight.wel"), &["--ignore-weights"]);
    assert!(note.contains("directed, unweighted"), "{note}");
    // A GAPBS file cut short.
    let bytes = std::fs::read(data("graph.wsg")).unwrap();
    let cut = dir.join("cut.wsg");
    std::fs::write(&cut, &bytes[..bytes.len() - 4]).unwrap();
    let e = fails(&run(&[
        "convert",
        arg(&cut),
        "-o",
        arg(&dir.join("cut.ggraph")),
    ]));
    assert!(
        e.contains("it is truncated or not a GAPBS serialized graph"),
        "{e}"
    );
    // A .wsg named .sg.
    let wrong = dir.join("weighted.sg");
    std::fs::write(&wrong, &bytes).unwrap();
    let e = fails(&run(&[
        "convert",
        arg(&wrong),
        "-o",
        arg(&dir.join("w.ggraph")),
    ]));
    assert!(e.contains("it has the size of a .wsg file"), "{e}");
    // No temporary files left behind by any failure.
    let left: BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn huge_sparse_ids_are_renumbered_and_speak_the_file_ids() {
    let dir = scratch("formats-huge");
    // SNAP-like ids: sparse, some beyond 2^32.
    let big = 1u64 << 40;
    let input = dir.join("snap.el");
    std::fs::write(
        &input,
        format!(
            "# FromNodeId\tToNodeId\n{big}\t17\n17\t{}\n{}\t99\n5000000\t5000001\n",
            big + 7,
            big + 7
        ),
    )
    .unwrap();
    let (g, note) = convert(&dir, &input, &["--undirected"]);
    assert!(note.contains("ids renumbered"), "{note}");
    // Six ids become 0 to 5.
    assert!(
        note.contains("6 distinct ids between 17 and 1099511627783 became 0..=5"),
        "{note}"
    );
    assert!(note.contains("6 vertices, 4 edges"), "{note}");
    let levels = dir.join("levels");
    let o = run(&[
        "bfs",
        "--graph",
        arg(&g),
        "--root",
        &big.to_string(),
        "--dump-levels",
        arg(&levels),
        "--json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&ok(&o)).unwrap();
    assert_eq!(json["roots"][0]["root"], big);
    assert_eq!(json["roots"][0]["reached"], 4);
    // Dense order is the file ids' order; the sidecar names them.
    let ids = read_u64s(&dir.join("levels.ids"));
    assert_eq!(ids, [17, 99, 5000000, 5000001, big, big + 7]);
    assert_eq!(read_i64s(&levels), [1, 3, -1, -1, 0, 2]);
    // A file id that no edge names is not a vertex.
    let e = fails(&run(&["bfs", "--graph", arg(&g), "--root", "18"]));
    assert!(
        e.contains("root 18 is not a vertex: no edge of the input file names vertex 18"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn whole_graph_dumps_of_renumbered_or_one_based_graphs_name_the_file_ids() {
    // cc, pagerank and bc dumps are indexed by dense vertex number too: like
    // the search dumps, they need the `.ids` sidecar to be read against the
    // input file (a renumbered SNAP file, a 1-based .mtx).
    let dir = scratch("formats-whole-ids");
    let big = 1u64 << 40;
    let snap = dir.join("snap.el");
    std::fs::write(&snap, format!("{big}\t17\n17\t99\n5000000\t5000001\n")).unwrap();
    let mtx = dir.join("g.mtx");
    std::fs::write(
        &mtx,
        "%%MatrixMarket matrix coordinate pattern symmetric\n4 4 3\n2 1\n3 2\n4 4\n",
    )
    .unwrap();
    for (input, extra, want_ids, want_labels) in [
        (
            &snap,
            &["--undirected"][..],
            vec![17, 99, 5000000, 5000001, big],
            vec![0, 0, 2, 2, 0],
        ),
        (&mtx, &[][..], vec![1, 2, 3, 4], vec![0, 0, 0, 3]),
    ] {
        let (g, _) = convert(&dir, input, extra);
        let labels = dir.join("labels");
        let o = run(&["cc", "--graph", arg(&g), "--dump-labels", arg(&labels)]);
        ok(&o);
        assert!(stderr(&o).contains("labels.ids"), "{}", stderr(&o));
        assert_eq!(read_u64s(&labels), want_labels, "{}", input.display());
        assert_eq!(read_u64s(&dir.join("labels.ids")), want_ids);
        let scores = dir.join("scores");
        ok(&run(&[
            "pagerank",
            "--graph",
            arg(&g),
            "--dump-scores",
            arg(&scores),
        ]));
        assert_eq!(read_u64s(&dir.join("scores.ids")), want_ids);
        if input == &snap {
            let bc = dir.join("bc");
            ok(&run(&[
                "bc",
                "--graph",
                arg(&g),
                "--roots",
                "1",
                "--dump-scores",
                arg(&bc),
            ]));
            assert_eq!(read_u64s(&dir.join("bc.ids")), want_ids);
        }
        for f in ["labels.ids", "scores.ids", "bc.ids"] {
            let _ = std::fs::remove_file(dir.join(f));
        }
    }
    // The reports name vertices by the file's ids too: pagerank's and bc's
    // top vertices, bc's sources.
    let json =
        |args: &[&str]| -> serde_json::Value { serde_json::from_str(&ok(&run(args))).unwrap() };
    let (g, _) = convert(&dir, &mtx, &[]);
    // The path 1 - 2 - 3: its middle vertex (file id 2, dense 1) ranks first.
    let pr = json(&["pagerank", "--graph", arg(&g), "--json"]);
    assert_eq!(pr["top"][0][0], 2, "{pr}");
    let (g, _) = convert(&dir, &snap, &["--undirected"]);
    let bc = json(&["bc", "--graph", arg(&g), "--roots", "2", "--json"]);
    let file_ids = [17, 99, 5000000, 5000001, big];
    for v in bc["sources"].as_array().unwrap() {
        assert!(file_ids.contains(&v.as_u64().unwrap()), "{bc}");
    }
    for v in bc["top"].as_array().unwrap() {
        assert!(file_ids.contains(&v[0].as_u64().unwrap()), "{bc}");
    }
    // A graph whose ids are the dense ones gets no sidecar.
    let (g, _) = convert(&dir, &data("graph.el"), &["--undirected"]);
    let labels = dir.join("labels");
    ok(&run(&[
        "cc",
        "--graph",
        arg(&g),
        "--dump-labels",
        arg(&labels),
    ]));
    assert!(!dir.join("labels.ids").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn roots_of_converted_graphs_are_seeded_picks_of_vertices_with_edges() {
    let dir = scratch("formats-roots");
    let (g, _) = convert(&dir, &data("graph.el"), &["--undirected"]);
    let roots = |seed: &str| -> Vec<u64> {
        let o = run(&[
            "bfs",
            "--graph",
            arg(&g),
            "--roots",
            "16",
            "--seed",
            seed,
            "--json",
        ]);
        let json: serde_json::Value = serde_json::from_str(&ok(&o)).unwrap();
        json["roots"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["root"].as_u64().unwrap())
            .collect()
    };
    let a = roots("1");
    assert_eq!(a.len(), 16);
    assert!(a.iter().all(|&r| r != 8), "vertex 8 has no edge: {a:?}");
    assert_eq!(a, roots("1"), "the same seed picks the same roots");
    // 16 picks from 9 candidates with two seeds: not all equal.
    assert_ne!(a, roots("2"));
    let _ = std::fs::remove_dir_all(&dir);
}
