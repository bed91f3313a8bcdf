//! `bc` from a built file: sources chosen from the file's row offsets
//! (no edge list read before the run) are those chosen from the list, and
//! `bc --rows compressed` dumps the scores of plain rows, bit for bit, in
//! one process of 2 threads and on 2 ranks of 1, from a graph file and a
//! built file, validated.

mod common;

use std::path::Path;

use common::*;

/// `bc --graph G SHAPE.. --rows R --dump-scores DUMP --json` (validated):
/// its report and the dumped scores.
fn bc(
    graph: &Path,
    shape: &[&str],
    rows: &str,
    extra: &[&str],
    dump: &Path,
) -> (serde_json::Value, Vec<u8>) {
    let (ranks, threads) = shape.split_at(shape.len() - 2);
    let mut args: Vec<&str> = ranks.to_vec();
    args.extend(["bc", "--graph", arg(graph), "--rows", rows, "--json"]);
    args.extend(["--dump-scores", arg(dump)]);
    args.extend(threads);
    args.extend(extra);
    let out = ok(&run(&args));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(v["validated"], true, "{out}");
    (v, std::fs::read(dump).unwrap())
}

#[test]
fn bc_on_compressed_rows_dumps_the_scores_of_plain_rows() {
    let dir = scratch("bc-built");
    let g = dir.join("g.ggraph");
    ok(&run(&["generate", "--scale", "12", "-o", arg(&g)]));
    let b = dir.join("g.gbuilt");
    ok(&run(&["convert", arg(&g), "--built", "-o", arg(&b)]));
    let shapes: [&[&str]; 2] = [&["--threads", "2"], &["--ranks", "2", "--threads", "1"]];
    let mut first = None;
    for graph in [&g, &b] {
        for shape in shapes {
            for rows in ["plain", "compressed"] {
                let tag = format!("{}-{rows}", shape.len());
                let (v, scores) = bc(graph, shape, rows, &[], &dir.join(&tag));
                assert_eq!(scores.len(), 8 << 12);
                // The file's first 4 stored roots, and the same scores
                // bit for bit, whatever the file, shape and rows.
                let want = first.get_or_insert((v["sources"].clone(), scores.clone()));
                assert_eq!(v["sources"], want.0, "{} {tag}", graph.display());
                assert!(
                    scores == want.1,
                    "{} {tag}: the scores differ",
                    graph.display()
                );
            }
        }
    }
    assert!(ok(&run(&["bc", "--help"])).contains("--rows"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sources_picked_from_a_built_files_offsets_are_those_picked_from_its_list() {
    let dir = scratch("bc-offsets");
    // 40 vertices, edges among the first 30 only, self-loops on 31 and 32
    // (no edge to another vertex: never a source), a repeated edge; no
    // stored roots, so the sources are picked at random among the
    // vertices with edges.
    let mut text = String::from("39 39\n31 31\n32 32\n5 6\n5 6\n");
    for v in 0..29 {
        text.push_str(&format!("{v} {}\n", (v * 7 + 3) % 30));
    }
    let el = dir.join("g.el");
    std::fs::write(&el, text).unwrap();
    let g = dir.join("g.ggraph");
    ok(&run(&["convert", arg(&el), "--undirected", "-o", arg(&g)]));
    let b = dir.join("g.gbuilt");
    ok(&run(&["convert", arg(&g), "--built", "-o", arg(&b)]));
    for roots in ["4", "64"] {
        let extra = ["--roots", roots, "--seed", "11"];
        let (from_list, s1) = bc(&g, &["--threads", "2"], "plain", &extra, &dir.join("l"));
        let (from_offsets, s2) = bc(&b, &["--threads", "2"], "plain", &extra, &dir.join("o"));
        assert_eq!(
            from_list["sources"], from_offsets["sources"],
            "--roots {roots}"
        );
        assert!(s1 == s2, "--roots {roots}: the scores differ");
        let sources: Vec<u64> = serde_json::from_value(from_offsets["sources"].clone()).unwrap();
        assert!(sources.iter().all(|&s| s < 30), "{sources:?}");
        if roots == "64" {
            // Every vertex with an edge, once: 30 of them.
            assert_eq!(sources.len(), 30, "{sources:?}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
