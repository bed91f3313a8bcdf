//! Built graph files: `convert --built` (from a graph file) and `generate
//! --built` write one, every kernel command's --graph maps it instead of
//! building, and the answers are those of the graph file bit for bit
//! (roots, traversed edges, reached vertices, the dumped distances and
//! levels) on one rank and on two, block and cyclic. A damaged or
//! truncated file is refused with what to do, never a panic; `verify`
//! checks one whole.

mod common;

use std::path::Path;
use std::process::Output;

use common::*;

/// Per root (root, traversed edges, reached) of a JSON report.
fn roots(out: &Output) -> Vec<(u64, u64, u64)> {
    let v: serde_json::Value = serde_json::from_str(ok(out).trim()).expect("one JSON report");
    json_roots(&v)
}

fn search(
    graph: &Path,
    shape: &[&str],
    kernel: &str,
    threads: &str,
    partition: &str,
    dump: &Path,
) -> Output {
    let flag = if kernel == "sssp" {
        "--dump-dist"
    } else {
        "--dump-levels"
    };
    let mut args: Vec<&str> = shape.to_vec();
    args.extend([
        kernel,
        "--graph",
        arg(graph),
        "--roots",
        "3",
        "--threads",
        threads,
        "--partition",
        partition,
        "--json",
        flag,
        arg(dump),
    ]);
    run(&args)
}

/// A shape to search on: extra leading arguments (`--ranks 2`), threads,
/// partition.
type Shape<'a> = (&'a [&'a str], &'a str, &'a str);

/// SSSP and BFS from the graph file `g` and from each of `others` (path,
/// what it is), on every shape of `shapes`: the roots, counts and dumped
/// distances or levels must be those of `g`, bit for bit.
fn same_answers(dir: &Path, g: &Path, others: &[(&Path, &str)], shapes: &[Shape<'_>]) {
    for kernel in ["sssp", "bfs"] {
        for (i, (shape, threads, partition)) in shapes.iter().enumerate() {
            let tag = format!("{kernel}-{i}");
            let run_on = |graph: &Path, name: &str| {
                let dump = dir.join(format!("{tag}.{name}"));
                let out = search(graph, shape, kernel, threads, partition, &dump);
                (roots(&out), std::fs::read(&dump).unwrap())
            };
            let want = run_on(g, "file");
            assert_eq!(want.0.len(), 3);
            for (k, (other, what)) in others.iter().enumerate() {
                assert!(
                    run_on(other, &format!("other{k}")) == want,
                    "{tag}: {what} answers otherwise"
                );
            }
        }
    }
}

#[test]
fn a_built_file_answers_as_its_graph_file() {
    let dir = scratch("built");
    let g = dir.join("g.ggraph");
    ok(&run(&["generate", "--scale", "10", "-o", arg(&g)]));
    let b = dir.join("g.gbuilt");
    ok(&run(&["convert", arg(&g), "--built", "-o", arg(&b)]));
    let generated = dir.join("gen.gbuilt");
    ok(&run(&[
        "generate",
        "--scale",
        "10",
        "--built",
        "-o",
        arg(&generated),
    ]));
    let v = ok(&run(&["verify", arg(&b)]));
    assert!(
        v.contains("a sound built graph file: 1024 vertices, 16384 edges"),
        "{v}"
    );
    let shapes: [Shape<'_>; 3] = [
        (&[], "2", "block"),
        (&[], "3", "cyclic"),
        (&["--ranks", "2"], "1", "block"),
    ];
    let others = [
        (b.as_path(), "the converted built file"),
        (generated.as_path(), "the generated built file"),
    ];
    same_answers(&dir, &g, &others, &shapes);
    // The whole-graph commands map it too, and check their answers
    // against its edges.
    for kernel in ["cc", "pagerank", "tc"] {
        let text = ok(&run(&[kernel, "--graph", arg(&b), "--threads", "2"]));
        assert!(text.contains(", verified"), "{kernel}: {text}");
    }
    // A built file serves every run: no prepared shards for it.
    let e = fails(&run(&["bfs", "--graph", arg(&b), "--prepared", arg(&dir)]));
    assert!(
        e.contains("a built graph file is mapped by every run"),
        "{e}"
    );
    // ... and refusing to save them makes no directory.
    let never = dir.join("never-made");
    let e = fails(&run(&[
        "bfs",
        "--graph",
        arg(&b),
        "--save-prepared",
        arg(&never),
    ]));
    assert!(
        e.contains("a built graph file is mapped by every run"),
        "{e}"
    );
    assert!(
        !never.exists(),
        "a refused --save-prepared made its directory"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A graph whose hubs have rows of thousands of entries (the rows the
/// kernels radix sort while preparing): the built file still answers as
/// the graph file, on every shape.
#[test]
fn a_built_file_with_long_rows_answers_as_its_graph_file() {
    let dir = scratch("built-long");
    let g = dir.join("g.ggraph");
    ok(&run(&["generate", "--scale", "13", "-o", arg(&g)]));
    let b = dir.join("g.gbuilt");
    ok(&run(&["convert", arg(&g), "--built", "-o", arg(&b)]));
    let shapes: [Shape<'_>; 4] = [
        (&[], "1", "block"),
        (&[], "2", "block"),
        (&[], "3", "cyclic"),
        (&["--ranks", "2"], "2", "block"),
    ];
    same_answers(&dir, &g, &[(b.as_path(), "the built file")], &shapes);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_damaged_built_file_is_refused_with_what_to_do() {
    let dir = scratch("built-damaged");
    let b = dir.join("g.gbuilt");
    ok(&run(&[
        "generate",
        "--scale",
        "10",
        "--built",
        "-o",
        arg(&b),
    ]));
    let bytes = std::fs::read(&b).unwrap();
    let bad = dir.join("bad.gbuilt");
    let bfs = |bytes: &[u8]| {
        std::fs::write(&bad, bytes).unwrap();
        fails(&run(&[
            "bfs",
            "--graph",
            arg(&bad),
            "--roots",
            "1",
            "--threads",
            "2",
        ]))
    };
    let again = "write it again with `gossamer-graph convert GRAPH --built -o FILE`";
    let e = bfs(&bytes[..bytes.len() - 100]);
    assert!(e.contains("is truncated") && e.contains(again), "{e}");
    // The neighbour ids start at 16 KiB (the header's page, then the
    // 8 KiB of offsets from 4 KiB on, each section page-aligned).
    let mut v = bytes.clone();
    let at = 16384 + 40;
    v[at] ^= 0x20;
    let e = bfs(&v);
    assert!(
        e.contains("do not match their checksum") && e.contains(again),
        "{e}"
    );
    let e = fails(&run(&["verify", arg(&bad)]));
    assert!(e.contains("do not match their checksum"), "{e}");
    let mut v = bytes.clone();
    v[8] = 7;
    let e = bfs(&v);
    assert!(e.contains("format v7, this build reads v1"), "{e}");
    let e = fails(&run(&["verify", arg(&dir.join("g.ggraph"))]));
    assert!(e.contains("does not exist"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
