//! The memory check counts what a run holds per vertex, not only per edge,
//! for every command and any graph; it reads the limits a user or a job
//! sets (RLIMIT_AS, RLIMIT_DATA, the cgroup's memory limit), and a run that
//! goes ahead anyway (`--force`) ends with a message, never an abort.
//!
//! Runs that could allocate much are started under `prlimit`, so that they
//! fail inside a bound here instead of taking the machine's memory; where
//! `prlimit` is missing those parts are skipped, saying so.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::*;

const BIN: &str = env!("CARGO_BIN_EXE_gossamer-graph");

/// Runs the binary under `prlimit` with `limit` (e.g. `--as=38000000`);
/// `None` when prlimit cannot run.
fn limited(limit: &str, args: &[&str]) -> Option<Output> {
    let out = Command::new("prlimit")
        .arg(limit)
        .arg(BIN)
        .args(args)
        .output()
        .ok()?;
    // prlimit itself failed (missing, or not allowed): no gossamer output.
    if !out.status.success() && stderr(&out).starts_with("prlimit:") {
        return None;
    }
    Some(out)
}

/// Asserts that `out` ended with a message (status 1 or success), not a
/// signal (an abort or the kernel's OOM killer), and that a failure says
/// it ran out of memory.
fn ended_cleanly(what: &str, out: &Output) {
    let err = stderr(out);
    assert!(
        out.status.code().is_some(),
        "{what}: killed by a signal ({:?}):\n{err}",
        out.status
    );
    assert!(!err.contains("panicked"), "{what}:\n{err}");
    assert!(
        !err.contains("memory allocation of"),
        "{what}: the abort message:\n{err}"
    );
    if !out.status.success() {
        assert_eq!(out.status.code(), Some(1), "{what}:\n{err}");
        assert!(err.contains("out of memory"), "{what}:\n{err}");
    }
}

/// A 35-byte DIMACS file of 2^32 vertices and one arc, and its conversion.
fn huge_sparse(dir: &Path) -> (PathBuf, PathBuf) {
    let gr = dir.join("u32.gr");
    std::fs::write(&gr, "p sp 4294967296 1\na 1 4294967296 1\n").unwrap();
    let gg = dir.join("u32.ggraph");
    ok(&run(&["convert", arg(&gr), "-o", arg(&gg)]));
    (gr, gg)
}

#[test]
fn every_command_counts_per_vertex_state_of_any_graph() {
    let dir = scratch("pervertex");
    let (gr, gg) = huge_sparse(&dir);
    for cmd in ["sssp", "bfs", "graph500", "cc", "pagerank", "bc", "tc"] {
        for input in [&gg, &gr] {
            let mut args = vec![cmd, "--graph", arg(input), "--threads", "2"];
            if cmd == "tc" && input == &gr {
                args.push("--undirected");
            }
            let err = fails(&run(&args));
            assert!(
                err.contains(&format!(
                    "{cmd} on this graph (4294967296 vertices, 1 edge) needs about"
                )),
                "{args:?}: {err}"
            );
            assert!(
                err.contains("Pass --force to try anyway"),
                "{args:?}: {err}"
            );
        }
    }
    // Forced, inside a 2 GB address space: a clear error, not an abort.
    for cmd in ["sssp", "bfs", "cc", "bc"] {
        let args = [cmd, "--graph", arg(&gg), "--threads", "2", "--force"];
        let Some(out) = limited("--as=2000000000", &args) else {
            eprintln!("note: skipped the forced runs: prlimit is not available");
            break;
        };
        ended_cleanly(cmd, &out);
        assert!(!out.status.success(), "{cmd}: 2^32 vertices in 2 GB");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rlimits_are_part_of_the_memory_check_and_forced_runs_never_abort() {
    for (limit, name) in [
        ("--as=38000000", "RLIMIT_AS, ulimit -v"),
        ("--data=20000000", "RLIMIT_DATA, ulimit -d"),
    ] {
        for cmd in ["sssp", "bc"] {
            let args = [cmd, "--scale", "16", "--threads", "2"];
            let Some(out) = limited(limit, &args) else {
                eprintln!("note: skipped: prlimit is not available");
                return;
            };
            let err = fails(&out);
            assert!(
                err.contains(&format!("{cmd} at SCALE 16 (edgefactor 16) needs about")),
                "{limit} {cmd}: {err}"
            );
            assert!(err.contains(name), "{limit} {cmd}: {err}");
        }
    }
    // Forced under limits that fail at different points (construction, the
    // kernel's queues, validation): always a message and status 1.
    for as_bytes in ["38000000", "44000000", "48000000", "52000000", "56000000"] {
        for cmd in ["sssp", "bc"] {
            let limit = format!("--as={as_bytes}");
            let args = [cmd, "--scale", "16", "--threads", "2", "--force"];
            let out = limited(&limit, &args).expect("prlimit ran above");
            ended_cleanly(&format!("{cmd} {limit}"), &out);
        }
    }
}

/// A fresh cgroup (v1 memory controller, or v2 with the memory controller)
/// under this process's own, removed on drop.
struct Cgroup {
    dir: PathBuf,
    limit_file: &'static str,
}

impl Cgroup {
    fn create() -> Result<Cgroup, String> {
        let text = std::fs::read_to_string("/proc/self/cgroup").map_err(|e| e.to_string())?;
        let name = format!("gossamer-graph-test-{}", std::process::id());
        let mut tried = Vec::new();
        for line in text.lines() {
            let mut parts = line.splitn(3, ':');
            let (Some(id), Some(ctl), Some(path)) = (parts.next(), parts.next(), parts.next())
            else {
                continue;
            };
            let rel = path.trim_start_matches('/');
            let (base, limit_file) = if ctl.split(',').any(|c| c == "memory") {
                (
                    PathBuf::from("/sys/fs/cgroup/memory"),
                    "memory.limit_in_bytes",
                )
            } else if id == "0" && ctl.is_empty() {
                (PathBuf::from("/sys/fs/cgroup"), "memory.max")
            } else {
                continue;
            };
            let parent = base.join(rel);
            let dir = parent.join(&name);
            match std::fs::create_dir(&dir) {
                Ok(()) if dir.join(limit_file).exists() => return Ok(Cgroup { dir, limit_file }),
                Ok(()) => {
                    let _ = std::fs::remove_dir(&dir);
                    tried.push(format!("{}: no {limit_file}", parent.display()));
                }
                Err(e) => tried.push(format!("{}: {e}", parent.display())),
            }
        }
        Err(if tried.is_empty() {
            "no memory cgroup in /proc/self/cgroup".into()
        } else {
            tried.join("; ")
        })
    }

    /// Runs the binary inside this cgroup (a shell moves itself in first).
    fn run(&self, limit: u64, args: &[&str]) -> Result<Output, String> {
        std::fs::write(self.dir.join(self.limit_file), limit.to_string())
            .map_err(|e| format!("could not set {}: {e}", self.limit_file))?;
        let procs = self.dir.join("cgroup.procs");
        Command::new("sh")
            .arg("-c")
            .arg(r#"echo $$ > "$0" && exec "$@""#)
            .arg(&procs)
            .arg(BIN)
            .args(args)
            .output()
            .map_err(|e| e.to_string())
    }
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.dir);
    }
}

#[test]
fn the_cgroup_memory_limit_is_part_of_the_memory_check() {
    let cg = match Cgroup::create() {
        Ok(cg) => cg,
        Err(why) => {
            eprintln!("note: skipped: could not create a memory cgroup to run in ({why})");
            return;
        }
    };
    let out = match cg.run(30_000_000, &["sssp", "--scale", "16", "--threads", "2"]) {
        Ok(out) => out,
        Err(why) => {
            eprintln!("note: skipped: could not run inside the test's cgroup ({why})");
            return;
        }
    };
    let err = fails(&out);
    assert!(
        err.contains("sssp at SCALE 16 (edgefactor 16) needs about"),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "the memory limit of cgroup {} ({})",
            cg.dir.display(),
            cg.limit_file
        )),
        "{err}"
    );
    // The same run fits a larger limit.
    let out = cg
        .run(400_000_000, &["sssp", "--scale", "10", "--threads", "2"])
        .unwrap();
    ok(&out);
}
