//! Every user error ends in a clear message and a non-zero exit, never a
//! panic: bad roots, bad graph files, too little memory, bad flag mixes.

mod common;

use common::*;

#[test]
fn root_out_of_range_names_the_valid_range() {
    for kernel in ["sssp", "bfs"] {
        let err = fails(&run(&[kernel, "--scale", "12", "--root", "5000"]));
        assert!(
            err.contains("root 5000 is out of range: the graph has 4096 vertices (0..=4095)"),
            "{err}"
        );
    }
}

#[test]
fn missing_graph_file() {
    let err = fails(&run(&["sssp", "--graph", "/nonexistent/g.ggraph"]));
    assert!(
        err.contains("graph file /nonexistent/g.ggraph does not exist"),
        "{err}"
    );
}

/// Writes a SCALE 8 graph file and returns its bytes and a scratch dir.
fn small_graph(name: &str) -> (std::path::PathBuf, Vec<u8>) {
    let dir = scratch(name);
    let g = dir.join("g");
    ok(&run(&["generate", "--scale", "8", "-o", arg(&g)]));
    let bytes = std::fs::read(&g).unwrap();
    (dir, bytes)
}

#[test]
fn graph_file_round_trip_uses_the_stored_roots() {
    let (dir, _) = small_graph("roundtrip");
    let out = ok(&run(&[
        "bfs",
        "--graph",
        arg(&dir.join("g")),
        "--roots",
        "3",
        "--json",
    ]));
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["roots"].as_array().unwrap().len(), 3);
    assert_eq!(v["scale"], 8);
    let err = fails(&run(&[
        "bfs",
        "--graph",
        arg(&dir.join("g")),
        "--roots",
        "65",
    ]));
    assert!(err.contains("the graph file stores 64 roots"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn corrupt_graph_file() {
    let (dir, mut bytes) = small_graph("corrupt");
    let last = bytes.len() - 3;
    bytes[last] ^= 0x40;
    let g = dir.join("bad");
    std::fs::write(&g, &bytes).unwrap();
    let err = fails(&run(&["sssp", "--graph", arg(&g)]));
    assert!(err.contains("edge data is corrupt"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn truncated_graph_file() {
    let (dir, bytes) = small_graph("truncated");
    let g = dir.join("short");
    std::fs::write(&g, &bytes[..bytes.len() - 100]).unwrap();
    let err = fails(&run(&["bfs", "--graph", arg(&g)]));
    assert!(err.contains("the graph file is truncated"), "{err}");
    std::fs::write(&g, &bytes[..500]).unwrap();
    let err = fails(&run(&["bfs", "--graph", arg(&g)]));
    assert!(err.contains("fewer than the 1024-byte header"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn wrong_version_and_not_a_graph_file() {
    let (dir, mut bytes) = small_graph("version");
    bytes[8..12].copy_from_slice(&7u32.to_le_bytes());
    let g = dir.join("v7");
    std::fs::write(&g, &bytes).unwrap();
    let err = fails(&run(&["sssp", "--graph", arg(&g)]));
    assert!(err.contains("written by format v7"), "{err}");
    let junk = dir.join("junk");
    std::fs::write(&junk, vec![b'x'; 4096]).unwrap();
    let err = fails(&run(&["sssp", "--graph", arg(&junk)]));
    assert!(err.contains("not a gossamer-graph file"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn too_little_memory_is_refused_before_allocating() {
    // 1 GiB "available" (test hook): SCALE 26 needs far more.
    let env = [("GOSSAMER_GRAPH_AVAILABLE_BYTES", "1073741824")];
    let dir = scratch("memory");
    let never = dir.join("never-written");
    for args in [
        &["sssp", "--scale", "26", "--threads", "2"][..],
        &["generate", "--scale", "26", "-o", arg(&never)][..],
    ] {
        let err = fails(&run_env(args, &env));
        assert!(
            err.contains("SCALE 26 (edgefactor 16) needs about"),
            "{err}"
        );
        assert!(err.contains("only 1.0 GiB is available"), "{err}");
        assert!(err.contains("The largest SCALE that fits here is"), "{err}");
        assert!(err.contains("ranks with this much memory"), "{err}");
        assert!(err.contains("--force"), "{err}");
    }
    assert!(!never.exists(), "a refused run writes nothing");
    let _ = std::fs::remove_dir_all(&dir);
    // The real machine: SCALE 32 needs terabytes.
    let err = fails(&run(&["bfs", "--scale", "32"]));
    assert!(
        err.contains("SCALE 32 (edgefactor 16) needs about"),
        "{err}"
    );
}

#[test]
fn bad_flag_combinations() {
    let err = fails(&run(&["sssp", "--scale", "10", "--graph", "g"]));
    assert!(err.contains("cannot be used with"), "{err}");
    let err = fails(&run(&["bfs"]));
    assert!(err.contains("--scale") && err.contains("--graph"), "{err}");
    let err = fails(&run(&[
        "sssp", "--scale", "10", "--root", "1", "--roots", "2",
    ]));
    assert!(err.contains("cannot be used with"), "{err}");
    let err = fails(&run(&["bfs", "--graph", "g", "--edgefactor", "8"]));
    assert!(err.contains("cannot be used with"), "{err}");
    let err = fails(&run(&["generate", "--scale", "10"]));
    assert!(err.contains("nothing to write"), "{err}");
    let err = fails(&run(&["sssp", "--scale", "10", "--threads", "0"]));
    assert!(err.contains("--threads 0"), "{err}");
    let err = fails(&run(&["sssp", "--scale", "10", "--delta=-1"]));
    assert!(err.contains("--delta -1"), "{err}");
    let err = fails(&run(&["sssp", "--scale", "0"]));
    assert!(err.to_lowercase().contains("scale"), "{err}");
    let err = fails(&run(&["sssp", "--scale", "10", "--roots", "0"]));
    assert!(err.contains("--roots 0"), "{err}");
}

#[test]
fn failed_validation_lists_the_problems_and_fails() {
    let env = [("GOSSAMER_GRAPH_TEST_CORRUPT_ANSWERS", "1")];
    let err = fails(&run_env(&["sssp", "--scale", "10", "--root", "458"], &env));
    assert!(
        err.contains("sssp from root 458 failed validation"),
        "{err}"
    );
    assert!(err.contains("problem"), "{err}");
    let err = fails(&run_env(&["bfs", "--scale", "10", "--roots", "2"], &env));
    assert!(err.contains("bfs from root 458 failed validation"), "{err}");
    assert!(err.contains("tree depth"), "{err}");
    let o = run_env(&["graph500", "--scale", "10"], &env);
    let err = fails(&o);
    assert_eq!(stdout(&o), "No results printed for invalid run.\n");
    assert!(err.contains("failed validation"), "{err}");
    // --skip-validation does not look, so it does not fail.
    ok(&run_env(
        &[
            "sssp",
            "--scale",
            "10",
            "--root",
            "458",
            "--skip-validation",
        ],
        &env,
    ));
}

#[test]
fn unwritable_outputs_are_refused_before_any_work() {
    let err = fails(&run(&[
        "generate",
        "--scale",
        "10",
        "-o",
        "/nonexistent/dir/g",
    ]));
    assert!(
        err.contains(
            "cannot write /nonexistent/dir/g: the directory /nonexistent/dir does not exist"
        ),
        "{err}"
    );
    assert!(
        !err.contains("generated SCALE"),
        "refused before generating: {err}"
    );
    let err = fails(&run(&[
        "sssp",
        "--scale",
        "10",
        "--root",
        "1",
        "--dump-dist",
        "/nonexistent/d",
    ]));
    assert!(err.contains("cannot write /nonexistent/d"), "{err}");
}

#[test]
fn force_overrides_the_memory_check() {
    let env = [("GOSSAMER_GRAPH_AVAILABLE_BYTES", "1000")];
    let err = fails(&run_env(&["bfs", "--scale", "10", "--root", "458"], &env));
    assert!(
        err.contains("SCALE 10 (edgefactor 16) needs about"),
        "{err}"
    );
    assert!(err.contains("only 0.0 MiB is available"), "{err}");
    let out = ok(&run_env(
        &["bfs", "--scale", "10", "--root", "458", "--force"],
        &env,
    ));
    assert!(out.contains("458"), "{out}");
}
