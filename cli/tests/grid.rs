//! `generate --kind grid` (issue 25 item 4): the road-like grid into a
//! graph file and a DIMACS `.gr` file that read back as the same graph
//! (directed: two arcs per street; undirected: one edge, the `.gr` read
//! with --undirected), the same bytes whatever the thread count, roots in
//! the graph, `sssp` and `bfs` validated on it, and the refusals.

mod common;

use std::path::{Path, PathBuf};

use common::{arg, fails, ok, run, scratch};
use graph_core::io::file;
use graph_core::io::formats::{self, Format, ReadOptions};

/// Generates a 23 x 31 grid into `dir` (`extra` added), returning the
/// graph file and the `.gr` file.
fn generate(dir: &Path, name: &str, extra: &[&str]) -> (PathBuf, PathBuf) {
    let (g, gr) = (
        dir.join(format!("{name}.ggraph")),
        dir.join(format!("{name}.gr")),
    );
    let mut args = vec![
        "generate",
        "--kind",
        "grid",
        "--rows",
        "23",
        "--cols",
        "31",
        "-o",
        arg(&g),
        "--dimacs-out",
        arg(&gr),
    ];
    args.extend_from_slice(extra);
    ok(&run(&args));
    (g, gr)
}

#[test]
fn the_dimacs_file_is_the_same_graph_as_the_graph_file() {
    let dir = scratch("grid-dimacs");
    for directed in [true, false] {
        let extra: &[&str] = if directed { &["--directed"] } else { &[] };
        let (g, gr) = generate(&dir, &format!("d{directed}"), extra);
        let mapped = file::open(&g).unwrap();
        assert_eq!(mapped.meta().directed, directed);
        assert!(mapped.meta().weighted);
        let opts = if directed {
            ReadOptions::default()
        } else {
            ReadOptions::undirected()
        };
        let read = formats::read(&gr, Format::Gr, &opts, &|_| {}).unwrap();
        assert_eq!(read.meta.directed, directed);
        assert_eq!(read.edges.num_vertices(), 23 * 31);
        assert_eq!(read.edges.edges(), mapped.edges(), "directed {directed}");
        // A tenth removed of 23 x 30 + 22 x 31 = 1372 streets, binomially.
        let streets = mapped.edges().len() / if directed { 2 } else { 1 };
        assert!((1150..=1320).contains(&streets), "{streets} streets kept");
        for e in mapped.edges() {
            assert!((1.0..=1000.0).contains(&e.w) && e.w.fract() == 0.0, "{e:?}");
        }
        // 64 distinct roots, each with a street.
        let roots = mapped.roots().to_vec();
        assert_eq!(roots.len(), 64);
        let mut distinct = roots.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 64);
        for r in roots {
            assert!(
                mapped
                    .edges()
                    .iter()
                    .any(|e| u64::from(e.u) == r || u64::from(e.v) == r),
                "root {r} has no street"
            );
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_bytes_whatever_the_threads() {
    let dir = scratch("grid-threads");
    let (g1, gr1) = generate(&dir, "t1", &["--threads", "1", "--directed"]);
    let (g3, gr3) = generate(&dir, "t3", &["--threads", "3", "--directed"]);
    let bytes = |p: &Path| std::fs::read(p).unwrap();
    assert_eq!(bytes(&g1), bytes(&g3));
    assert_eq!(bytes(&gr1), bytes(&gr3));
    let (g2, _) = generate(&dir, "s2", &["--seed", "2", "--directed"]);
    assert_ne!(bytes(&g1), bytes(&g2), "another seed, another graph");
    // Unit weights and no removal: every street, length 1.
    let (u, _) = generate(&dir, "unit", &["--weights", "1", "--removed", "0"]);
    let unit = file::open(&u).unwrap();
    assert_eq!(unit.edges().len(), 23 * 30 + 22 * 31);
    assert!(unit.edges().iter().all(|e| e.w == 1.0));
}

#[test]
fn sssp_and_bfs_run_validated_on_a_grid() {
    let dir = scratch("grid-search");
    for directed in [true, false] {
        let extra: &[&str] = if directed { &["--directed"] } else { &[] };
        let (g, gr) = generate(&dir, &format!("s{directed}"), extra);
        let mut dists = Vec::new();
        // The .gr file numbers vertices from 1.
        for (input, root) in [(&g, "100"), (&gr, "101")] {
            let mut graph = vec!["--graph", arg(input)];
            if !directed && input == &gr {
                graph.push("--undirected");
            }
            let dump = dir.join("dist");
            let common = ["--threads", "2", "--root", root, "--json"];
            let out = ok(&run(&[
                &["sssp"][..],
                &graph,
                &common,
                &["--dump-dist", arg(&dump)],
            ]
            .concat()));
            let v: serde_json::Value = serde_json::from_str(&out).unwrap();
            let per_root = common::json_roots(&v);
            assert_eq!(per_root.len(), 1);
            dists.push(std::fs::read(&dump).unwrap());
            let out = ok(&run(&[&["bfs"][..], &graph, &common].concat()));
            let v: serde_json::Value = serde_json::from_str(&out).unwrap();
            assert_eq!(common::json_roots(&v).len(), 1);
        }
        assert!(dists[0] == dists[1], "the .gr and the graph file differ");
        // Distances are sums of integer lengths.
        let d: Vec<f32> = dists[0]
            .chunks(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
            .collect();
        assert!(d.iter().filter(|x| x.is_finite()).count() > 600);
        assert!(d.iter().all(|x| !x.is_finite() || x.fract() == 0.0));
        // The stored roots serve `--roots`.
        let out = ok(&run(&[
            "sssp",
            "--graph",
            arg(&g),
            "--threads",
            "2",
            "--roots",
            "3",
            "--json",
        ]));
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(common::json_roots(&v).len(), 3);
    }
}

#[test]
fn bad_grids_are_refused_with_the_reason() {
    let dir = scratch("grid-bad");
    let out = dir.join("g.ggraph");
    let o = arg(&out);
    let cases: [(&[&str], &str); 8] = [
        (&["--rows", "0", "--cols", "5"], "no street"),
        (&["--rows", "65536", "--cols", "65537"], "2^32"),
        (&["--rows", "4", "--cols", "4", "--removed", "1"], "[0, 1)"),
        (
            &["--rows", "4", "--cols", "4", "--weights", "9..2"],
            "1 <= LO <= HI",
        ),
        (
            &["--rows", "4", "--cols", "4", "--weights", "0..5"],
            "1 <= LO <= HI",
        ),
        (&["--rows", "4"], "--rows R --cols C"),
        (
            &["--rows", "4", "--cols", "4", "--scale", "3"],
            "--scale is for --kind kronecker",
        ),
        (
            &["--rows", "4", "--cols", "4", "--edges-out", o],
            "--edges-out is for --kind kronecker",
        ),
    ];
    for (args, want) in cases {
        let err = fails(&run(
            &[&["generate", "--kind", "grid", "-o", o][..], args].concat()
        ));
        assert!(err.contains(want), "{args:?}: {err}");
    }
    let err = fails(&run(&[
        "generate", "--kind", "grid", "--rows", "4", "--cols", "4",
    ]));
    assert!(err.contains("nothing to write"), "{err}");
    let err = fails(&run(&["generate", "--rows", "4", "-o", o]));
    assert!(err.contains("--rows is for --kind grid"), "{err}");
    let err = fails(&run(&["generate", "-o", o]));
    assert!(err.contains("needs --scale S"), "{err}");
    // The memory check, before anything large is allocated.
    let big = [
        "generate", "--kind", "grid", "--rows", "4096", "--cols", "4096", "-o", o,
    ];
    let err = fails(&common::run_env(
        &big,
        &[("GOSSAMER_GRAPH_AVAILABLE_BYTES", "100000000")],
    ));
    assert!(err.contains("Pass --force to try anyway"), "{err}");
    assert!(!out.exists());
    // The help says what the grid is and how its .gr file is read.
    let help = ok(&run(&["generate", "--help"]));
    let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
    for want in [
        "--kind <KIND>",
        "two arcs, u -> v and v -> u",
        "converter -s",
    ] {
        assert!(
            flat.contains(want),
            "generate --help lacks {want:?}:\n{help}"
        );
    }
}

#[test]
fn sssp_derives_its_delta_from_the_graph_unless_given() {
    let dir = scratch("grid-delta");
    let json = |args: &[&str]| -> serde_json::Value {
        let out = ok(&run(&[
            args,
            &["--threads", "2", "--roots", "1", "--json"][..],
        ]
        .concat()));
        serde_json::from_str(&out).unwrap()
    };
    for directed in [true, false] {
        let extra: &[&str] = if directed { &["--directed"] } else { &[] };
        let (g, _) = generate(&dir, &format!("d{directed}"), extra);
        let mapped = file::open(&g).unwrap();
        // Entries: every arc, or every edge at both ends.
        let entries = mapped.edges().len() as f64 * if directed { 1.0 } else { 2.0 };
        let d = entries / (23.0 * 31.0);
        let w_max = mapped.edges().iter().map(|e| e.w).fold(0.0, f32::max);
        let w_min = mapped.edges().iter().map(|e| e.w).fold(f32::MAX, f32::min);
        let want = (f64::from(w_max) / (d * d)).max(f64::from(w_min));
        let v = json(&["sssp", "--graph", arg(&g)]);
        assert_eq!(v["delta_source"], "derived", "{v}");
        let got = v["delta"].as_f64().unwrap();
        assert!((got / want - 1.0).abs() < 1e-4, "delta {got}, want {want}");
        assert!(
            (v["delta_from"]["average_degree"].as_f64().unwrap() - d).abs() < 1e-9,
            "{v}"
        );
        assert_eq!(
            v["delta_from"]["w_min"].as_f64(),
            Some(f64::from(w_min)),
            "{v}"
        );
        assert_eq!(
            v["delta_from"]["w_max"].as_f64(),
            Some(f64::from(w_max)),
            "{v}"
        );
        common::json_roots(&v);
        // --delta overrides.
        let v = json(&["sssp", "--graph", arg(&g), "--delta", "250"]);
        assert_eq!(
            (v["delta"].as_f64(), &v["delta_source"]),
            (Some(250.0), &"given".into())
        );
        assert!(v.get("delta_from").is_none(), "{v}");
        common::json_roots(&v);
    }
    // Unit lengths: one bucket per hop; the report's first line says so.
    let (u, _) = generate(&dir, "unit", &["--weights", "1"]);
    let out = ok(&run(&[
        "sssp",
        "--graph",
        arg(&u),
        "--threads",
        "2",
        "--roots",
        "2",
    ]));
    let first = out.lines().next().unwrap();
    assert!(
        first.contains(", delta 1 (derived: max(w_min 1, w_max 1 / d^2), d = "),
        "{out}"
    );
    let out = ok(&run(&[
        "sssp",
        "--graph",
        arg(&u),
        "--threads",
        "2",
        "--roots",
        "2",
        "--delta",
        "3",
    ]));
    assert!(
        out.lines().next().unwrap().contains(", delta 3 (given)"),
        "{out}"
    );
}

#[test]
fn cc_across_two_ranks_walks_no_vertex_twice_on_a_grid() {
    // `Forest::flatten` sends the words other processes read before the
    // whole compress: on a grid cut into two blocks the second rank's
    // compress then reads the first rank's roots as they are, and no
    // vertex is walked a second time (before, every vertex of the second
    // rank whose root lay in the first was). The labels are those of one
    // process, under both partitions.
    let dir = scratch("grid-cc-ranks");
    let (g, _) = generate(&dir, "cc", &[]);
    let labels = |name: &str, args: &[&str]| {
        let dump = dir.join(name);
        let mut all = args.to_vec();
        all.extend(["--graph", arg(&g), "--json", "--dump-labels", arg(&dump)]);
        let out = ok(&run(&all));
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        (v["rewalked"].as_u64(), std::fs::read(&dump).unwrap())
    };
    let (again, one) = labels("one.bin", &["cc", "--threads", "2"]);
    assert_eq!(again, Some(0), "one process publishes nothing");
    let (again, two) = labels("two.bin", &["--ranks", "2", "cc", "--threads", "1"]);
    assert_eq!(again, Some(0), "block partition, 2 ranks");
    assert_eq!(two, one);
    let cyclic = [
        "--ranks",
        "2",
        "cc",
        "--threads",
        "1",
        "--partition",
        "cyclic",
    ];
    let (again, cyc) = labels("cyclic.bin", &cyclic);
    assert!(again.is_some());
    assert_eq!(cyc, one);
}
