//! Helpers shared by the integration tests: run the built binary, find the
//! reference vectors, make scratch directories.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub mod netns;

/// The names in `dir`, sorted (what a failed write must not leave behind).
pub fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// The reference vectors (see their README): `GRAPH500_VECTORS` if set, else
/// the ones bundled in the repository (`graph-core/vectors`).
pub fn vectors_dir() -> PathBuf {
    match std::env::var_os("GRAPH500_VECTORS") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../graph-core/vectors"),
    }
}

/// Path of a reference vector file, e.g. `vector("scale12.edges")`; fails
/// with the place it looked when the vectors are missing.
pub fn vector(name: &str) -> PathBuf {
    let dir = vectors_dir();
    assert!(
        dir.is_dir(),
        "reference vectors not found at {} (set GRAPH500_VECTORS)",
        dir.display()
    );
    dir.join(name)
}

/// Runs `gossamer-graph` with `args` (2 threads unless the test says otherwise).
pub fn run(args: &[&str]) -> Output {
    run_env(args, &[])
}

/// Runs `gossamer-graph` with `args` and extra environment variables.
pub fn run_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gossamer-graph"));
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("the gossamer-graph binary runs")
}

/// Stdout as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Stderr as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Asserts success and returns stdout.
pub fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "expected success, got {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status,
        stdout(o),
        stderr(o)
    );
    stdout(o)
}

/// Asserts a clean failure (exit status 1 or clap's 2, no panic) and returns stderr.
pub fn fails(o: &Output) -> String {
    let err = stderr(o);
    assert!(
        !o.status.success(),
        "expected failure, got success\nstdout:\n{}",
        stdout(o)
    );
    assert!(
        matches!(o.status.code(), Some(1) | Some(2)),
        "expected exit status 1 or 2, got {:?}\n{err}",
        o.status
    );
    assert!(!err.contains("panicked"), "the command panicked:\n{err}");
    assert!(
        !err.contains("RUST_BACKTRACE"),
        "the command panicked:\n{err}"
    );
    err
}

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("gossamer-graph-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// The file as a `&str` argument.
pub fn arg(p: &Path) -> &str {
    p.to_str().expect("utf-8 temp path")
}

/// Per root (root, traversed edges, reached) of a JSON search report, each
/// asserted validated.
#[allow(dead_code)] // not every test file searches
pub fn json_roots(v: &serde_json::Value) -> Vec<(u64, u64, u64)> {
    v["roots"]
        .as_array()
        .expect("roots")
        .iter()
        .map(|r| {
            assert_eq!(r["validated"], true, "{r}");
            (
                r["root"].as_u64().unwrap(),
                r["traversed_edges"].as_u64().unwrap(),
                r["reached"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// `kernel` (sssp or bfs) on the generated SCALE 10 graph from 3 Graph500
/// roots, `--json`, the first answer dumped to `dump`; `prefix` goes before
/// the command (`--ranks N ...`), `extra` after it.
#[allow(dead_code)]
pub fn search_scale10(
    prefix: &[&str],
    kernel: &str,
    threads: &str,
    dump: &Path,
    extra: &[&str],
) -> Output {
    let flag = if kernel == "sssp" {
        "--dump-dist"
    } else {
        "--dump-levels"
    };
    let mut args: Vec<&str> = prefix.to_vec();
    args.extend([
        kernel,
        "--scale",
        "10",
        "--roots",
        "3",
        "--threads",
        threads,
        "--json",
        flag,
    ]);
    args.push(arg(dump));
    args.extend(extra);
    run(&args)
}

/// What a run's answers are: per root (root, traversed edges, reached),
/// and the first root's dump.
#[derive(Debug)]
pub struct Answers {
    /// Ranks the report says the run spanned (not compared).
    pub ranks: u64,
    pub roots: Vec<(u64, u64, u64)>,
    pub dump: Vec<u8>,
}

pub fn answers(out: &Output, dump: &Path) -> Answers {
    let text = ok(out);
    let v: serde_json::Value = serde_json::from_str(text.trim()).expect("one JSON report");
    let roots = json_roots(&v);
    // Every rank reports its peak resident set.
    let peaks = v["peak_rss_kib_per_rank"]
        .as_array()
        .expect("peaks per rank");
    assert_eq!(peaks.len() as u64, v["ranks"].as_u64().unwrap(), "{v}");
    assert!(peaks.iter().all(|p| p.as_u64().unwrap() > 1024), "{v}");
    Answers {
        ranks: v["ranks"].as_u64().expect("ranks"),
        roots,
        dump: std::fs::read(dump).expect("the dump"),
    }
}

impl PartialEq for Answers {
    fn eq(&self, o: &Answers) -> bool {
        (&self.roots, &self.dump) == (&o.roots, &o.dump)
    }
}
