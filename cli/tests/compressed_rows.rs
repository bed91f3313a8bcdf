//! `bfs --rows compressed`: the same roots, traversed edges, reached
//! counts and dumped levels as `--rows plain`, validated, in one process
//! of 2 threads and on 2 ranks of 1, both directions and top-down only,
//! from a graph file (the rows the shard's own array) and from a built
//! file; the report says which rows ran and their bytes.

mod common;

use std::path::Path;

use common::*;

/// (per root (root, traversed, reached), dumped levels, rows report).
type Answer = (Vec<(u64, u64, u64)>, Vec<u8>, serde_json::Value);

fn bfs(graph: &Path, shape: &[&str], extra: &[&str], rows: &str, dump: &Path) -> Answer {
    let mut args: Vec<&str> = shape.to_vec();
    args.extend(["bfs", "--graph", arg(graph), "--roots", "4", "--json"]);
    args.extend(extra);
    args.extend(["--rows", rows, "--dump-levels", arg(dump)]);
    let out = ok(&run(&args));
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON report");
    (
        json_roots(&v),
        std::fs::read(dump).unwrap(),
        v["rows"].clone(),
    )
}

#[test]
fn compressed_rows_give_the_levels_of_plain_rows() {
    let dir = scratch("compressed-rows");
    let g = dir.join("g.ggraph");
    ok(&run(&["generate", "--scale", "12", "-o", arg(&g)]));
    let b = dir.join("g.gbuilt");
    ok(&run(&["convert", arg(&g), "--built", "-o", arg(&b)]));
    let shapes: [(&[&str], &str); 2] = [(&[], "2"), (&["--ranks", "2"], "1")];
    for graph in [&g, &b] {
        for (shape, threads) in shapes {
            for mode in ["do", "top-down"] {
                let extra = ["--threads", threads, "--mode", mode];
                let tag = format!("{}-{}-{mode}", shape.len(), threads);
                let plain = bfs(graph, shape, &extra, "plain", &dir.join(format!("{tag}.p")));
                let packed = bfs(
                    graph,
                    shape,
                    &extra,
                    "compressed",
                    &dir.join(format!("{tag}.c")),
                );
                assert_eq!(plain.0.len(), 4);
                assert!(plain.0.iter().all(|r| r.1 > 0), "{tag}: {:?}", plain.0);
                assert_eq!(plain.0, packed.0, "{tag}: roots and counts");
                assert!(plain.1 == packed.1, "{tag}: the dumped levels differ");
                assert_eq!(plain.2["format"], "Plain", "{tag}: {}", plain.2);
                assert_eq!(packed.2["format"], "Compressed", "{tag}: {}", packed.2);
                assert_eq!(plain.2["entries"], packed.2["entries"]);
                let bytes = |a: &Answer| a.2["target_bytes"].as_u64().unwrap();
                // A Graph500 graph's gaps mostly fit in one or two bytes.
                assert!(
                    bytes(&packed) * 3 < bytes(&plain) * 2,
                    "{tag}: {} against {}",
                    packed.2,
                    plain.2
                );
            }
        }
    }
    let help = ok(&run(&["bfs", "--help"]));
    assert!(help.contains("--rows"), "{help}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `cc` / `pagerank --rows R --dump-*`: the dumped answer (verified).
fn whole(graph: &Path, shape: &[&str], kernel: &str, rows: &str, dump: &Path) -> Vec<u8> {
    let (ranks, threads) = shape.split_at(shape.len() - 2);
    let mut args: Vec<&str> = ranks.to_vec();
    let flag = if kernel == "cc" {
        "--dump-labels"
    } else {
        "--dump-scores"
    };
    args.extend([
        kernel,
        "--graph",
        arg(graph),
        "--rows",
        rows,
        flag,
        arg(dump),
    ]);
    args.extend(threads);
    let out = ok(&run(&args));
    assert!(out.contains(", verified"), "{out}");
    std::fs::read(dump).unwrap()
}

#[test]
fn cc_and_pagerank_on_compressed_rows_dump_the_answers_of_plain_rows() {
    let dir = scratch("compressed-whole");
    let g = dir.join("g.ggraph");
    ok(&run(&["generate", "--scale", "12", "-o", arg(&g)]));
    let b = dir.join("g.gbuilt");
    ok(&run(&["convert", arg(&g), "--built", "-o", arg(&b)]));
    let shapes: [&[&str]; 2] = [&["--threads", "2"], &["--ranks", "2", "--threads", "1"]];
    for graph in [&g, &b] {
        for shape in shapes {
            for kernel in ["cc", "pagerank"] {
                let tag = format!("{kernel}-{}", shape.len());
                let plain = whole(graph, shape, kernel, "plain", &dir.join(format!("{tag}.p")));
                let packed = whole(
                    graph,
                    shape,
                    kernel,
                    "compressed",
                    &dir.join(format!("{tag}.c")),
                );
                assert!(!plain.is_empty());
                // Labels, and scores bit for bit.
                assert!(
                    plain == packed,
                    "{tag} from {}: the dumps differ",
                    graph.display()
                );
            }
        }
    }
    for kernel in ["cc", "pagerank"] {
        let help = ok(&run(&[kernel, "--help"]));
        assert!(help.contains("--rows"), "{help}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `sssp --rows compressed` (targets taken out of the shard, byte-coded
/// beside its weights): the roots, counts and distances of plain rows,
/// validated (the validator reads the targets back through the split),
/// in one process of 2 threads and on 2 ranks of 1, from a graph file
/// (rows in memory) and a built file (mapped rows; cyclic: copied rows).
#[test]
fn sssp_on_compressed_rows_gives_the_distances_of_plain_rows() {
    let dir = scratch("compressed-sssp");
    let g = dir.join("g.ggraph");
    ok(&run(&["generate", "--scale", "12", "-o", arg(&g)]));
    let b = dir.join("g.gbuilt");
    ok(&run(&["convert", arg(&g), "--built", "-o", arg(&b)]));
    let shapes: [&[&str]; 3] = [
        &["--threads", "2"],
        &["--ranks", "2", "--threads", "1"],
        &["--threads", "2", "--partition", "cyclic"],
    ];
    for graph in [&g, &b] {
        for (i, shape) in shapes.iter().enumerate() {
            let (ranks, rest) = shape.split_at(if shape[0] == "--ranks" { 2 } else { 0 });
            let run_one = |rows: &str, tag: &str| {
                let mut args: Vec<&str> = ranks.to_vec();
                args.extend(["sssp", "--graph", arg(graph), "--roots", "4", "--json"]);
                args.extend(rest);
                let dump = dir.join(format!("{i}-{tag}"));
                args.extend(["--rows", rows, "--dump-dist", arg(&dump)]);
                let out = ok(&run(&args));
                let v: serde_json::Value = serde_json::from_str(out.trim()).expect("JSON");
                // Every root validated (asserted by json_roots).
                (json_roots(&v), std::fs::read(&dump).unwrap())
            };
            let plain = run_one("plain", "p");
            let packed = run_one("compressed", "c");
            let tag = format!("{} {shape:?}", graph.display());
            assert_eq!(plain.0.len(), 4);
            assert!(plain.0.iter().all(|r| r.1 > 0), "{tag}: {:?}", plain.0);
            assert_eq!(plain.0, packed.0, "{tag}: roots and counts");
            assert!(
                !plain.1.is_empty() && plain.1 == packed.1,
                "{tag}: the distances differ"
            );
        }
    }
    let help = ok(&run(&["sssp", "--help"]));
    assert!(help.contains("--rows"), "{help}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `tc --rows compressed` (the out-lists made from compressed rows): the
/// triangles of plain rows, verified, in one process of 2 threads and on
/// 2 ranks of 1, from a graph file and a built file.
#[test]
fn tc_on_compressed_rows_counts_the_triangles_of_plain_rows() {
    let dir = scratch("compressed-tc");
    let g = dir.join("g.ggraph");
    ok(&run(&["generate", "--scale", "12", "-o", arg(&g)]));
    let b = dir.join("g.gbuilt");
    ok(&run(&["convert", arg(&g), "--built", "-o", arg(&b)]));
    let shapes: [&[&str]; 2] = [&["--threads", "2"], &["--ranks", "2", "--threads", "1"]];
    let mut counts = Vec::new();
    for graph in [&g, &b] {
        for shape in shapes {
            for rows in ["plain", "compressed"] {
                let (ranks, threads) = shape.split_at(shape.len() - 2);
                let mut args: Vec<&str> = ranks.to_vec();
                args.extend(["tc", "--graph", arg(graph), "--rows", rows, "--json"]);
                args.extend(threads);
                let out = ok(&run(&args));
                let v: serde_json::Value =
                    serde_json::from_str(out.trim()).expect("one JSON report");
                assert_eq!(v["validated"], true, "{out}");
                counts.push((
                    v["triangles"].as_u64().unwrap(),
                    v["simple_edges"].as_u64().unwrap(),
                ));
            }
        }
    }
    assert!(counts[0].0 > 1000, "{counts:?}");
    assert!(counts.iter().all(|&c| c == counts[0]), "{counts:?}");
    let help = ok(&run(&["tc", "--help"]));
    assert!(help.contains("--rows"), "{help}");
    let _ = std::fs::remove_dir_all(&dir);
}
