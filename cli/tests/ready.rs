//! Ready rows of a built file (`gossamer-graph ready FILE --threads T`,
//! `FILE.w<T>.ready`): runs of that layout take their shards from them
//! (the report's phase says so) and answer as the graph file does, bit for
//! bit (BFS levels, SSSP distances, at the default Δ and another; cc's
//! labels and PageRank's scores, which read BFS's rows); runs of
//! another layout take the built file's rows and say the ready rows do not
//! serve them; a damaged, truncated, foreign or other-version file is
//! refused with what to do.

mod common;

use std::path::{Path, PathBuf};

use common::*;

/// The dump and the per-root counts of one search, and whether the run
/// took the ready rows (its phases say).
fn search(graph: &Path, kernel: &str, extra: &[&str], dump: &Path) -> (Vec<u8>, String, bool) {
    let flag = if kernel == "sssp" {
        "--dump-dist"
    } else {
        "--dump-levels"
    };
    let mut args = vec![kernel, "--graph", arg(graph), "--roots", "3", "--json"];
    args.extend_from_slice(extra);
    args.extend([flag, arg(dump)]);
    let out = run(&args);
    let text = ok(&out);
    let v: serde_json::Value = serde_json::from_str(text.trim()).expect("one JSON report");
    let ready = v["wall_time"]["phases"]
        .as_array()
        .expect("phases")
        .iter()
        .any(|p| p["name"].as_str().unwrap_or("").contains("ready rows"));
    let roots = format!("{:?}", json_roots(&v));
    (
        std::fs::read(dump).unwrap(),
        roots + "\n" + &stderr(&out),
        ready,
    )
}

/// A SCALE 12 graph file and its built file with ready rows for 2 trustees.
fn setup(name: &str) -> (PathBuf, PathBuf, PathBuf, PathBuf) {
    let dir = scratch(name);
    let g = dir.join("g.ggraph");
    ok(&run(&["generate", "--scale", "12", "-o", arg(&g)]));
    let b = dir.join("g.gbuilt");
    ok(&run(&["convert", arg(&g), "--built", "-o", arg(&b)]));
    let text = ok(&run(&["ready", arg(&b), "--threads", "2"]));
    let r = dir.join("g.gbuilt.w2.ready");
    assert!(text.contains("for 2 trustees") && r.exists(), "{text}");
    (dir, g, b, r)
}

#[test]
fn ready_rows_answer_as_the_graph_file_and_other_layouts_fall_back() {
    let (dir, g, b, _) = setup("ready-same");
    let runs: [(&str, &[&str], bool); 7] = [
        ("bfs", &["--threads", "2"], true),
        ("sssp", &["--threads", "2"], true),
        // Another Δ: the ready split is moved to it.
        ("sssp", &["--threads", "2", "--delta", "0.05"], true),
        // Two ranks of one trustee each: the same 2 trustees' rows.
        ("sssp", &["--ranks", "2", "--threads", "1"], true),
        // Other layouts: the built file's rows.
        ("bfs", &["--threads", "1"], false),
        ("sssp", &["--threads", "2", "--partition", "cyclic"], false),
        ("sssp", &["--threads", "2", "--unit-weights"], false),
    ];
    for (i, (kernel, extra, mapped)) in runs.iter().enumerate() {
        let d = |what: &str| dir.join(format!("{i}.{what}"));
        let want = search(&g, kernel, extra, &d("file"));
        let got = search(&b, kernel, extra, &d("built"));
        assert_eq!(
            got.2, *mapped,
            "{kernel} {extra:?}: ready rows taken? {}",
            got.1
        );
        assert!(!want.2);
        assert!(got.0 == want.0, "{kernel} {extra:?}: the dumps differ");
        let counts = |s: &str| s.lines().next().unwrap_or("").to_string();
        assert_eq!(counts(&got.1), counts(&want.1), "{kernel} {extra:?}");
        if !mapped {
            assert!(
                got.1.contains("ready rows")
                    && got.1.contains("prepare their rows from the built file"),
                "{kernel} {extra:?}: no word of the ready rows not serving: {}",
                got.1
            );
        }
    }
    // Graph500 runs both kernels on the weighted shards (BFS copies its rows).
    let text = ok(&run(&["graph500", "--graph", arg(&b), "--threads", "2"]));
    assert!(text.contains("validation"), "{text}");
}

/// `cc` / `pagerank --dump-*` (verified): the dump, the report's stderr,
/// and whether the run took the ready rows (its phases say).
fn whole(graph: &Path, kernel: &str, extra: &[&str], dump: &Path) -> (Vec<u8>, String, bool) {
    let flag = if kernel == "cc" {
        "--dump-labels"
    } else {
        "--dump-scores"
    };
    let mut args = vec![kernel, "--graph", arg(graph), "--json", flag, arg(dump)];
    args.extend_from_slice(extra);
    let out = run(&args);
    let text = ok(&out);
    let v: serde_json::Value = serde_json::from_str(text.trim()).expect("one JSON report");
    assert_eq!(v["validated"], true, "{text}");
    let ready = v["wall_time"]["phases"]
        .as_array()
        .expect("phases")
        .iter()
        .any(|p| p["name"].as_str().unwrap_or("").contains("ready rows"));
    (std::fs::read(dump).unwrap(), stderr(&out), ready)
}

#[test]
fn cc_and_pagerank_take_the_ready_rows_and_answer_as_the_graph_file() {
    let (dir, g, b, _) = setup("ready-whole");
    let runs: [(&[&str], bool); 5] = [
        (&["--threads", "2"], true),
        (&["--ranks", "2", "--threads", "1"], true),
        // Compressed rows are coded from the mapped ones.
        (&["--threads", "2", "--rows", "compressed"], true),
        // Other layouts: the built file's rows.
        (&["--threads", "1"], false),
        (&["--threads", "2", "--partition", "cyclic"], false),
    ];
    for kernel in ["cc", "pagerank"] {
        for (i, (extra, mapped)) in runs.iter().enumerate() {
            let d = |what: &str| dir.join(format!("{kernel}-{i}.{what}"));
            let want = whole(&g, kernel, extra, &d("file"));
            let got = whole(&b, kernel, extra, &d("built"));
            assert!(!want.2);
            assert_eq!(
                got.2, *mapped,
                "{kernel} {extra:?}: ready rows taken? {}",
                got.1
            );
            assert!(got.0 == want.0, "{kernel} {extra:?}: the dumps differ");
            if !mapped {
                assert!(
                    got.1.contains("prepare their rows from the built file"),
                    "{kernel} {extra:?}: no word of the ready rows not serving: {}",
                    got.1
                );
            }
        }
    }
}

#[test]
fn damaged_ready_rows_are_refused_with_what_to_do() {
    let (dir, _, b, r) = setup("ready-bad");
    let good = std::fs::read(&r).unwrap();
    let refused = |bytes: &[u8], want: &str| {
        std::fs::write(&r, bytes).unwrap();
        let e = fails(&run(&[
            "bfs",
            "--graph",
            arg(&b),
            "--threads",
            "2",
            "--roots",
            "1",
        ]));
        assert!(e.contains(want), "want {want:?}: {e}");
        assert!(e.contains("gossamer-graph ready"), "no way out: {e}");
    };
    // A byte in the middle of trustee 0's section `k` (the header's
    // table: start and length at 152 + 24 k).
    let flip = |k: usize| {
        let at = |o: usize| u64::from_le_bytes(good[o..o + 8].try_into().unwrap()) as usize;
        let (start, len) = (at(152 + 24 * k), at(160 + 24 * k));
        assert!(len > 0, "section {k} is empty");
        let mut bad = good.clone();
        bad[start + len / 2] ^= 0x40;
        bad
    };
    // BFS's rows, then SSSP's weights.
    refused(&flip(3), "checksum");
    std::fs::write(&r, flip(5)).unwrap();
    let e = fails(&run(&[
        "sssp",
        "--graph",
        arg(&b),
        "--threads",
        "2",
        "--roots",
        "1",
    ]));
    assert!(
        e.contains("split weights do not match their checksum"),
        "{e}"
    );
    refused(&good[..good.len() - 100], "truncated");
    let mut v = good.clone();
    v[8] = 9;
    refused(&v, "format v9");
    let mut h = good.clone();
    h[70] ^= 1;
    refused(&h, "corrupt header");
    // Ready rows of another built file.
    let other = dir.join("o.gbuilt");
    ok(&run(&[
        "generate",
        "--scale",
        "12",
        "--seed1",
        "5",
        "--built",
        "-o",
        arg(&other),
    ]));
    std::fs::write(&r, &good).unwrap();
    std::fs::copy(&r, dir.join("o.gbuilt.w2.ready")).unwrap();
    let e = fails(&run(&[
        "bfs",
        "--graph",
        arg(&other),
        "--threads",
        "2",
        "--roots",
        "1",
    ]));
    assert!(e.contains("written for another built file"), "{e}");
    // Sound again: taken.
    std::fs::write(&r, &good).unwrap();
    ok(&run(&[
        "bfs",
        "--graph",
        arg(&b),
        "--threads",
        "2",
        "--roots",
        "1",
    ]));
}
