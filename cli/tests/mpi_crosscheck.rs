//! Cross-check against the C + MPI baselines (`mpi-baselines/`): on the same
//! graph file and roots, gossamer-graph's SSSP distances equal the MPI
//! baseline's within float rounding and its BFS levels are identical; then the
//! baseline's own suite (vectors, bad files, echo) runs with `mpirun -np 1/2`.
//!
//! Needs Open MPI (`openmpi-bin libopenmpi-dev`, which `.ci/run` installs).
//! Without it the build script (`cli/build.rs`) marks these tests ignored
//! with the reason, so `cargo test` names them as skipped and says what to
//! install; under CI (`CI` set) they run anyway and fail, since a skip there
//! would hide a missing install step.

mod common;

use common::{ok, run, scratch};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const MPIRUN_FLAGS: [&str; 7] = [
    "--oversubscribe",
    "--mca",
    "btl",
    "self,vader",
    "--mca",
    "btl_vader_single_copy_mechanism",
    "none",
];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// Builds the baselines once per test binary (the tests run in parallel and
/// must not race two `make`s in one build directory); `None` (with a note)
/// when MPI is not installed here.
fn build_baselines() -> Option<PathBuf> {
    static BUILT: OnceLock<Option<PathBuf>> = OnceLock::new();
    BUILT.get_or_init(build_once).clone()
}

fn build_once() -> Option<PathBuf> {
    if !have("mpicc") || !have("mpirun") {
        let msg = "mpicc/mpirun not found: install openmpi-bin and libopenmpi-dev (.ci/run does)";
        assert!(std::env::var_os("CI").is_none(), "{msg}");
        eprintln!("skipping the MPI cross-check: {msg}");
        return None;
    }
    let dir = repo().join("mpi-baselines");
    let out = Command::new("make")
        .arg("-s")
        .arg("-C")
        .arg(&dir)
        .output()
        .expect("make runs");
    assert!(
        out.status.success(),
        "make -C mpi-baselines failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Some(dir.join("build"))
}

fn mpirun(np: usize, args: &[&str]) -> std::process::Output {
    Command::new("mpirun")
        .arg("-np")
        .arg(np.to_string())
        .args(MPIRUN_FLAGS)
        .args(args)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .output()
        .expect("mpirun runs")
}

fn f32s(path: &Path) -> Vec<f32> {
    std::fs::read(path)
        .unwrap()
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect()
}

#[test]
#[cfg_attr(
    gg_skip_mpi,
    ignore = "needs Open MPI (mpicc, mpirun): apt-get install openmpi-bin libopenmpi-dev"
)]
fn gossamer_and_mpi_agree_on_the_same_graph_file() {
    let Some(build) = build_baselines() else {
        return;
    };
    let dir = scratch("mpi-crosscheck");
    let graph = dir.join("s12.gg");
    ok(&run(&[
        "generate",
        "--scale",
        "12",
        "-o",
        graph.to_str().unwrap(),
    ]));
    let gg = build.join("gg_graph");
    // Two of the file's Graph500 roots (the first is a vector root).
    for root in ["1834", "3865"] {
        let (ours, theirs) = (
            dir.join(format!("g{root}.dist")),
            dir.join(format!("m{root}.dist")),
        );
        ok(&run(&[
            "sssp",
            "--graph",
            graph.to_str().unwrap(),
            "--root",
            root,
            "--threads",
            "2",
            "--dump-dist",
            ours.to_str().unwrap(),
        ]));
        let m = mpirun(
            2,
            &[
                gg.to_str().unwrap(),
                "sssp",
                graph.to_str().unwrap(),
                "--root",
                root,
                "--quiet",
                "--dump-dist",
                theirs.to_str().unwrap(),
            ],
        );
        ok(&m);
        let (a, b) = (f32s(&ours), f32s(&theirs));
        assert_eq!(a.len(), 4096);
        assert_eq!(a.len(), b.len());
        for (v, (x, y)) in a.iter().zip(&b).enumerate() {
            let same = x == y || (x - y).abs() <= 1e-6 * x.abs().max(y.abs());
            assert!(same, "root {root}, vertex {v}: gossamer {x} vs MPI {y}");
        }

        let (ours, theirs) = (
            dir.join(format!("g{root}.lvl")),
            dir.join(format!("m{root}.lvl")),
        );
        ok(&run(&[
            "bfs",
            "--graph",
            graph.to_str().unwrap(),
            "--root",
            root,
            "--threads",
            "2",
            "--dump-levels",
            ours.to_str().unwrap(),
        ]));
        ok(&mpirun(
            2,
            &[
                gg.to_str().unwrap(),
                "bfs",
                graph.to_str().unwrap(),
                "--root",
                root,
                "--quiet",
                "--dump-levels",
                theirs.to_str().unwrap(),
            ],
        ));
        assert_eq!(
            std::fs::read(&ours).unwrap(),
            std::fs::read(&theirs).unwrap(),
            "BFS levels differ for root {root}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[cfg_attr(
    gg_skip_mpi,
    ignore = "needs Open MPI (mpicc, mpirun): apt-get install openmpi-bin libopenmpi-dev"
)]
fn mpi_baseline_suite_passes() {
    let Some(_) = build_baselines() else {
        return;
    };
    let vectors = repo().join("graph-core/vectors");
    let out = Command::new("bash")
        .arg(repo().join("mpi-baselines/tests/run_tests.sh"))
        .env("GG_BIN", env!("CARGO_BIN_EXE_gossamer-graph"))
        .env("GG_VECTORS", &vectors)
        .output()
        .expect("run_tests.sh runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text.lines().last().unwrap_or("");
    assert!(
        out.status.success() && last.ends_with(" 0 failed"),
        "mpi-baselines/tests/run_tests.sh failed ({last}):\n{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
