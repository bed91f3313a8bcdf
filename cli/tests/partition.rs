//! The default partition is the command's (`--partition`'s help): striped
//! for `bfs`, block for `sssp`, `graph500` and the whole-graph commands,
//! blocks with `--block-table` or `--balance between-searches`; an explicit
//! `--partition` wins, and every report names the partition that ran. BFS's
//! default falls back to block on Graph500 graphs, from a built file and
//! where the stripes would not deal the vertices evenly. The searches answer under
//! every partition as under block, bit for bit, from a graph file and a
//! built file, in one process and across ranks.

mod common;

use std::path::{Path, PathBuf};

use common::*;

/// A 40 x 50 road-like grid (2000 crossings: 4 stripes of 256 ids per
/// trustee at 2 trustees), symmetrized, in `dir`.
fn grid(dir: &Path) -> PathBuf {
    let g = dir.join("grid.ggraph");
    ok(&run(&[
        "generate",
        "--kind",
        "grid",
        "--rows",
        "40",
        "--cols",
        "50",
        "-o",
        arg(&g),
    ]));
    g
}

/// The `partition` field of a `--json` report.
fn partition_of(out: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON report");
    v["partition"]
        .as_str()
        .expect("a partition field")
        .to_string()
}

#[test]
fn each_command_runs_and_reports_its_default_partition() {
    let dir = scratch("partition-defaults");
    let g = grid(&dir);
    for (command, want) in [
        ("bfs", "striped"),
        ("sssp", "block"),
        ("cc", "block"),
        ("pagerank", "block"),
        ("bc", "block"),
        ("tc", "block"),
        ("kcore", "block"),
    ] {
        let mut args = vec![command, "--graph", arg(&g), "--threads", "2", "--json"];
        if matches!(command, "bfs" | "sssp") {
            args.extend(["--roots", "2"]);
        }
        let out = ok(&run(&args));
        assert_eq!(partition_of(&out), want, "{command}");
    }
    let out = ok(&run(&[
        "graph500",
        "--scale",
        "8",
        "--threads",
        "2",
        "--json",
    ]));
    assert_eq!(partition_of(&out), "block", "graph500");
    // BFS on a Graph500 graph (scrambled ids), generated or from its file,
    // runs block; asked for, striped.
    let k = dir.join("k.ggraph");
    ok(&run(&["generate", "--scale", "10", "-o", arg(&k)]));
    for (input, extra, want) in [
        (["--scale", "10"], &[][..], "block"),
        (["--graph", arg(&k)], &[][..], "block"),
        (
            ["--graph", arg(&k)],
            &["--partition", "striped"][..],
            "striped",
        ),
    ] {
        let mut args = vec!["bfs", "--threads", "2", "--roots", "2", "--json"];
        args.extend(input);
        args.extend(extra);
        assert_eq!(partition_of(&ok(&run(&args))), want, "{args:?}");
    }
    // The text report's first line names it too.
    let text = ok(&run(&[
        "bfs",
        "--graph",
        arg(&g),
        "--threads",
        "2",
        "--roots",
        "1",
    ]));
    let first = text.lines().next().unwrap();
    assert!(first.contains("striped partition"), "{first}");
    let text = ok(&run(&["cc", "--graph", arg(&g), "--threads", "2"]));
    let first = text.lines().next().unwrap();
    assert!(first.contains("block partition"), "{first}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_explicit_partition_overrides_the_default() {
    let dir = scratch("partition-override");
    let g = grid(&dir);
    for (command, given) in [
        ("bfs", "block"),
        ("sssp", "striped"),
        ("cc", "striped"),
        ("pagerank", "striped"),
    ] {
        let mut args = vec![command, "--graph", arg(&g), "--threads", "2", "--json"];
        if matches!(command, "bfs" | "sssp") {
            args.extend(["--roots", "2"]);
        }
        args.extend(["--partition", given]);
        let out = ok(&run(&args));
        assert_eq!(partition_of(&out), given, "{command}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// What a search run answered, and under which partition.
#[derive(Debug)]
struct Ran {
    same: Answers,
    partition: String,
}

/// `kernel` from `graph`'s first 3 roots, its first answer dumped: the
/// per-root counts and the dump's bytes, and the partition that ran.
fn answers_of(
    graph: &Path,
    prefix: &[&str],
    kernel: &str,
    threads: &str,
    extra: &[&str],
    dump: &Path,
) -> Ran {
    let flag = if kernel == "sssp" {
        "--dump-dist"
    } else {
        "--dump-levels"
    };
    let mut args = prefix.to_vec();
    args.extend([
        kernel,
        "--graph",
        arg(graph),
        "--roots",
        "3",
        "--threads",
        threads,
        "--json",
        flag,
        arg(dump),
    ]);
    args.extend(extra);
    let out = run(&args);
    Ran {
        partition: partition_of(&stdout(&out)),
        same: answers(&out, dump),
    }
}

#[test]
fn searches_under_the_default_answer_as_under_block() {
    let dir = scratch("partition-same");
    let g = grid(&dir);
    let b = dir.join("grid.gbuilt");
    ok(&run(&["convert", arg(&g), "--built", "-o", arg(&b)]));
    for kernel in ["bfs", "sssp"] {
        let want = answers_of(
            &g,
            &[],
            kernel,
            "2",
            &["--partition", "block"],
            &dir.join("want"),
        );
        // Validated (no --skip-validation), on every shape and input, under
        // the default (the partition it reports) and under stripes.
        let striped: &[&str] = &["--partition", "striped"];
        let default = if kernel == "bfs" { "striped" } else { "block" };
        for (i, (graph, prefix, threads, extra, ran)) in [
            (&g, &[][..], "1", &[][..], default),
            (&g, &[][..], "2", &[][..], default),
            (&g, &["--ranks", "2"][..], "1", &[][..], default),
            // 16 stripes of 128 over 3 trustees: 5 each, and the short
            // last one (80 ids) to trustee 0: 8% above an even share.
            (&g, &["--ranks", "3"][..], "1", &[][..], "block"),
            (&g, &["--ranks", "3"][..], "1", striped, "striped"),
            // From a built file block maps the rows in place.
            (&b, &[][..], "2", &[][..], "block"),
            (&b, &["--ranks", "2"][..], "1", &[][..], "block"),
            (&b, &[][..], "2", striped, "striped"),
            (&b, &["--ranks", "2"][..], "1", striped, "striped"),
            (&b, &["--ranks", "2"][..], "2", striped, "striped"),
        ]
        .into_iter()
        .enumerate()
        {
            let got = answers_of(
                graph,
                prefix,
                kernel,
                threads,
                extra,
                &dir.join(format!("{kernel}{i}")),
            );
            assert_eq!(got.partition, ran, "{kernel}, case {i}");
            assert!(
                got.same == want.same,
                "{kernel}, case {i}: {got:?} against {want:?}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn balancing_and_block_tables_make_blocks_the_default() {
    let base = ["sssp", "--scale", "8", "--roots", "2", "--threads", "2"];
    let with = |extra: &[&str]| {
        let mut a = base.to_vec();
        a.extend(extra);
        run(&a)
    };
    // --balance between-searches alone runs on blocks.
    let out = ok(&with(&["--balance", "between-searches", "--json"]));
    assert_eq!(partition_of(&out), "blocks");
    // Given another partition, it is refused, saying which one it needs.
    let e = fails(&with(&[
        "--partition",
        "striped",
        "--balance",
        "between-searches",
    ]));
    assert!(e.contains("use --partition blocks"), "{e}");
    // --block-table alone means blocks (this table's length is checked).
    let e = fails(&with(&["--block-table", "0,1"]));
    assert!(e.contains("the block table has 2 entries"), "{e}");
}
