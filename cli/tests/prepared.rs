//! Built once, reused: `--save-prepared DIR` saves every trustee's shard,
//! `--prepared DIR` maps them instead of building, and the answers are
//! those of a fresh run bit for bit (roots, traversed edges, reached
//! vertices, the dumped distances and levels), on one rank and on two.
//! Files of another run, damaged, truncated or missing files, and a DIR
//! that is a file are refused with a clear error, and nothing is written.

mod common;

use std::path::Path;
use std::process::Output;

use common::*;

/// Per root (root, traversed edges, reached) of a JSON report.
fn roots(out: &Output) -> Vec<(u64, u64, u64)> {
    let v: serde_json::Value = serde_json::from_str(ok(out).trim()).expect("one JSON report");
    json_roots(&v)
}

fn search(shape: &[&str], kernel: &str, threads: &str, dump: &Path, extra: &[&str]) -> Output {
    search_scale10(shape, kernel, threads, dump, extra)
}

#[test]
fn saved_then_reused_answers_as_a_fresh_run() {
    let dir = scratch("prepared");
    // (ranks prefix, threads): 1 rank x 2 threads and 2 ranks x 1 thread.
    let shapes: [(&[&str], &str); 2] = [(&[], "2"), (&["--ranks", "2"], "1")];
    for kernel in ["sssp", "bfs"] {
        for (i, (shape, threads)) in shapes.iter().enumerate() {
            let tag = format!("{kernel}-{i}");
            let fresh_dump = dir.join(format!("{tag}.fresh"));
            let fresh = search(shape, kernel, threads, &fresh_dump, &[]);
            let want = roots(&fresh);
            assert_eq!(want.len(), 3);
            let p = dir.join(format!("{tag}.prepared"));
            let saved_dump = dir.join(format!("{tag}.saved"));
            let saved = search(
                shape,
                kernel,
                threads,
                &saved_dump,
                &["--save-prepared", arg(&p)],
            );
            assert_eq!(roots(&saved), want, "{tag}: the saving run");
            assert_eq!(
                names(&p),
                ["shard-0-of-2.gshard", "shard-1-of-2.gshard"],
                "{tag}: one file per trustee, no temporaries"
            );
            let reused_dump = dir.join(format!("{tag}.reused"));
            let reused = search(
                shape,
                kernel,
                threads,
                &reused_dump,
                &["--prepared", arg(&p)],
            );
            assert_eq!(roots(&reused), want, "{tag}: the reusing run");
            let fresh_bytes = std::fs::read(&fresh_dump).unwrap();
            assert_eq!(std::fs::read(&saved_dump).unwrap(), fresh_bytes, "{tag}");
            assert_eq!(std::fs::read(&reused_dump).unwrap(), fresh_bytes, "{tag}");
        }
        // Saved by 1 rank x 2 threads, reused by 2 ranks x 1 thread: the
        // same 2 trustees and partition, so the same files.
        let p = dir.join(format!("{kernel}-0.prepared"));
        let d = dir.join(format!("{kernel}.across"));
        let across = search(&["--ranks", "2"], kernel, "1", &d, &["--prepared", arg(&p)]);
        let want = roots(&search(&[], kernel, "2", &dir.join("x"), &[]));
        assert_eq!(roots(&across), want);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_graph_file_is_saved_and_reused_by_its_checksum() {
    let dir = scratch("prepared-file");
    let g = dir.join("g.ggraph");
    ok(&run(&["generate", "--scale", "9", "-o", arg(&g)]));
    let p = dir.join("p");
    let base = [
        "bfs",
        "--graph",
        arg(&g),
        "--roots",
        "2",
        "--threads",
        "2",
        "--json",
    ];
    let with = |extra: &[&str]| {
        let mut a = base.to_vec();
        a.extend(extra);
        run(&a)
    };
    let want = roots(&with(&[]));
    assert_eq!(roots(&with(&["--save-prepared", arg(&p)])), want);
    assert_eq!(roots(&with(&["--prepared", arg(&p)])), want);
    // Another graph file (other seeds) is refused by its checksum.
    let h = dir.join("h.ggraph");
    ok(&run(&[
        "generate",
        "--scale",
        "9",
        "--seed1",
        "5",
        "-o",
        arg(&h),
    ]));
    let e = fails(&run(&[
        "bfs",
        "--graph",
        arg(&h),
        "--roots",
        "2",
        "--threads",
        "2",
        "--prepared",
        arg(&p),
    ]));
    assert!(
        e.contains("holds the graph file with data checksum")
            && e.contains("run on the graph it was saved from"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn runs_that_do_not_match_or_damaged_files_are_refused() {
    let dir = scratch("prepared-refused");
    let p = dir.join("p");
    let d = dir.join("d.bin");
    ok(&search(&[], "sssp", "2", &d, &["--save-prepared", arg(&p)]));
    std::fs::remove_file(&d).unwrap();
    let shard0 = p.join("shard-0-of-2.gshard");
    let good = std::fs::read(&shard0).unwrap();
    let refused = |extra: &[&str], threads: &str, want: &[&str]| {
        let mut a = vec!["--prepared", arg(&p)];
        a.extend(extra);
        let e = fails(&search(&[], "sssp", threads, &d, &a));
        for w in want {
            assert!(e.contains(w), "expected {w:?} in:\n{e}");
        }
        assert!(!d.exists(), "nothing is written on failure");
        assert_eq!(
            names(&p),
            ["shard-0-of-2.gshard", "shard-1-of-2.gshard"],
            "nothing is written on failure"
        );
    };
    // Another trustee count.
    refused(
        &[],
        "3",
        &[
            "shard-0-of-3.gshard does not exist",
            "holds the shards of a run with 2 trustees (ranks x threads), this run has 3",
            "--threads",
        ],
    );
    // Another partition.
    refused(
        &["--partition", "cyclic"],
        "2",
        &["was saved with --partition block, this run uses --partition cyclic: re-run with --partition block"],
    );
    // Another graph (edgefactor).
    refused(
        &["--edgefactor", "8"],
        "2",
        &[
            "holds the generated Graph500 graph of SCALE 10, edgefactor 16",
            "edgefactor 8",
        ],
    );
    // A flipped byte in the data: checksum.
    let mut bad = good.clone();
    let at = bad.len() - 100;
    bad[at] ^= 0x10;
    std::fs::write(&shard0, &bad).unwrap();
    refused(
        &[],
        "2",
        &[
            "is corrupt",
            "do not match their checksum",
            "re-save it with --save-prepared",
        ],
    );
    // A flipped byte in the header.
    let mut bad = good.clone();
    bad[30] ^= 1;
    std::fs::write(&shard0, &bad).unwrap();
    refused(&[], "2", &["corrupt header"]);
    // Truncated.
    std::fs::write(&shard0, &good[..good.len() / 2]).unwrap();
    refused(&[], "2", &["is truncated: its header promises"]);
    // Another format version.
    let mut bad = good.clone();
    bad[8] = 9;
    std::fs::write(&shard0, &bad).unwrap();
    refused(&[], "2", &["written by format v9, this build reads v1"]);
    // Missing.
    std::fs::remove_file(&shard0).unwrap();
    let e = fails(&search(&[], "sssp", "2", &d, &["--prepared", arg(&p)]));
    assert!(
        e.contains("shard-0-of-2.gshard does not exist: save the graph first with --save-prepared"),
        "{e}"
    );
    assert!(!d.exists());
    // A directory that is a file, for either flag; it is left alone.
    let f = dir.join("file");
    std::fs::write(&f, b"keep").unwrap();
    for flag in ["--prepared", "--save-prepared"] {
        let e = fails(&search(&[], "bfs", "2", &d, &[flag, arg(&f)]));
        assert!(
            e.contains(&format!(
                "{flag} {}: it is a regular file, not a directory",
                f.display()
            )),
            "{e}"
        );
        assert_eq!(std::fs::read(&f).unwrap(), b"keep");
        assert!(!d.exists());
    }
    // A directory that does not exist is not created by --prepared.
    let none = dir.join("none");
    let e = fails(&search(&[], "bfs", "2", &d, &["--prepared", arg(&none)]));
    assert!(e.contains("the directory does not exist"), "{e}");
    assert!(!none.exists());
    // The flags exclude each other.
    fails(&search(
        &[],
        "bfs",
        "2",
        &d,
        &["--prepared", arg(&p), "--save-prepared", arg(&p)],
    ));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn graph500_reuses_the_saved_graph_with_the_same_roots() {
    let dir = scratch("prepared-graph500");
    let p = dir.join("p");
    let args = ["graph500", "--scale", "8", "--threads", "2"];
    let nedge = |out: &Output| -> Vec<String> {
        ok(out)
            .lines()
            .filter(|l| l.contains("nedge") || l.starts_with("SCALE"))
            .map(str::to_string)
            .collect()
    };
    let with = |extra: &[&str]| {
        let mut a = args.to_vec();
        a.extend(extra);
        run(&a)
    };
    let want = nedge(&with(&[]));
    assert!(!want.is_empty());
    assert_eq!(nedge(&with(&["--save-prepared", arg(&p)])), want);
    assert_eq!(nedge(&with(&["--prepared", arg(&p)])), want);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_directed_graph_is_saved_with_its_in_edges_and_reused() {
    // Arcs one way only (and a few both ways), converted as directed: the
    // prepared shards carry the in-edge index, and searches on them answer
    // as on the graph file, on one process and on two ranks.
    let dir = scratch("prepared-directed");
    let el = dir.join("arcs.el");
    let mut text = String::new();
    for i in 0..400u32 {
        text.push_str(&format!("{} {}\n", (i * 7) % 97, (i * 13 + 5) % 97));
    }
    std::fs::write(&el, text).unwrap();
    let g = dir.join("g.ggraph");
    ok(&run(&["convert", arg(&el), "-o", arg(&g)]));
    let p = dir.join("p");
    for (kernel, extra) in [("bfs", None), ("sssp", Some("--unit-weights"))] {
        let levels = |name: &str| dir.join(format!("{kernel}-{name}.bin"));
        let dump = if kernel == "bfs" {
            "--dump-levels"
        } else {
            "--dump-dist"
        };
        let with = |shape: &[&str], name: &str, more: &[&str]| {
            let mut a: Vec<&str> = shape.to_vec();
            let out = levels(name);
            a.extend([
                kernel,
                "--graph",
                arg(&g),
                "--roots",
                "3",
                "--seed",
                "4",
                "--json",
                dump,
                arg(&out),
            ]);
            a.extend(extra);
            a.extend(more);
            let r = run(&a);
            (roots(&r), std::fs::read(&out).unwrap())
        };
        let fresh = with(&[], "fresh", &["--threads", "2"]);
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        let saved = with(
            &[],
            "saved",
            &["--threads", "2", "--save-prepared", arg(&p)],
        );
        let mapped = with(&[], "mapped", &["--threads", "2", "--prepared", arg(&p)]);
        let ranks = with(
            &["--ranks", "2"],
            "ranks",
            &["--threads", "1", "--prepared", arg(&p)],
        );
        assert_eq!(saved, fresh, "{kernel}");
        assert_eq!(mapped, fresh, "{kernel}");
        assert_eq!(ranks, fresh, "{kernel}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
