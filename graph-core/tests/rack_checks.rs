//! The sharded Graph500 checks across real processes (ranks) on loopback:
//! the answer reaches the other ranks' trustees through their own copy, and
//! the verdicts, counts and non-isolated set equal the list's.
//!
//! As in gossamer's rack tests, this test binary is launched again as the
//! ranks: a `rank_*` test is a no-op unless `GOSSAMER_RANK` is set; the
//! `launcher` test runs the built-in launcher when `GOSSAMER_TEST_LAUNCH` is
//! set; the driver test spawns it and checks the exit code and output.

use std::process::{Command, Stdio};
use std::time::Duration;

use gossamer::rack::TransportKind;
use gossamer::Builder;
use graph_core::sharded::{non_isolated_sharded, ShardedGraph};
use graph_core::validate::{
    count_traversed_sharded, reference, validate_bfs_list, validate_bfs_sharded,
    validate_sssp_list, validate_sssp_sharded,
};
use graph_core::{EdgeList, PackedEdge, PartitionKind};

const THREADS: usize = 2;
/// Hang guard for a whole job (not a performance bound).
const GUARD: Duration = Duration::from_secs(120);

fn is_rank() -> bool {
    std::env::var_os("GOSSAMER_RANK").is_some()
}

/// Two components, isolated vertices, self-loops and duplicates; enough
/// vertices that the answer crosses in many request slots.
fn graph() -> EdgeList<'static> {
    let n = 3000u32;
    let mut x = 12345u64;
    let mut next = move |k: u32| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % u64::from(k)) as u32
    };
    let mut edges = Vec::new();
    for _ in 0..6000 {
        // Vertices 0..2000 and 2000..2900; 2900.. stay isolated.
        let (lo, len) = if next(3) == 0 { (2000, 900) } else { (0, 2000) };
        let u = lo + next(len);
        let v = if next(20) == 0 { u } else { lo + next(len) };
        let w = (1 + next(1000)) as f32 / 1000.0;
        edges.push(PackedEdge::new(u, v, w));
        if next(10) == 0 {
            edges.push(PackedEdge::new(v, u, w * 2.0));
        }
    }
    EdgeList::from_edges(u64::from(n), edges).unwrap()
}

/// Rank 0's work: every check on both partitions, against the list.
fn checks(t: TransportKind) {
    let b = Builder::from_env()
        .expect("rank environment")
        .threads(THREADS)
        .pin_threads(false)
        .transport(t);
    let ranks = b.ranks();
    let out = b
        .run(move || {
            let list = graph();
            let mut live = vec![0u64; list.num_vertices().div_ceil(64) as usize];
            for e in list.edges().iter().filter(|e| e.u != e.v) {
                for v in [e.u, e.v] {
                    live[v as usize / 64] |= 1 << (v % 64);
                }
            }
            let mut checked = 0;
            for kind in [PartitionKind::Block, PartitionKind::Cyclic] {
                let g = ShardedGraph::build(&list, kind).unwrap();
                assert_eq!(g.num_trustees(), ranks * THREADS);
                assert_eq!(non_isolated_sharded(&g), live);
                for root in [0, 2001, 2950] {
                    let (p, d) = reference::dijkstra(&list, root, false);
                    let ok = validate_sssp_sharded(&g, root, &p, &d).unwrap();
                    assert_eq!(Ok(ok), validate_sssp_list(&list, root, &p, &d));
                    assert_eq!(
                        count_traversed_sharded(&g, &p),
                        (ok.reached, ok.traversed_edges)
                    );
                    let (bp, bl) = reference::bfs(&list, root, false);
                    let okb = validate_bfs_sharded(&g, root, &bp, Some(&bl));
                    assert_eq!(okb, validate_bfs_list(&list, root, &bp, Some(&bl)));
                    assert_eq!(okb.unwrap(), ok);
                    // Broken: a reached vertex's distance one ulp short.
                    if let Some(v) = (0..d.len()).find(|&v| v as u64 != root && d[v] > 0.0) {
                        let mut bad = d.clone();
                        bad[v] = f32::from_bits(bad[v].to_bits() - 1);
                        let e = validate_sssp_sharded(&g, root, &p, &bad).unwrap_err();
                        let e_list = validate_sssp_list(&list, root, &p, &bad).unwrap_err();
                        assert_eq!(e.count, e_list.count, "{e}\n{e_list}");
                        assert!(e.to_string().contains(&format!("vertex {v}")), "{e}");
                    }
                    checked += 1;
                }
            }
            checked
        })
        .expect("rack run");
    println!("rank 0 result {out} roots checked");
}

#[test]
fn rank_checks_shm() {
    if is_rank() {
        checks(TransportKind::Shm);
    }
}

#[test]
fn rank_checks_tcp() {
    if is_rank() {
        checks(TransportKind::Tcp);
    }
}

#[test]
fn launcher() {
    let Ok(spec) = std::env::var("GOSSAMER_TEST_LAUNCH") else {
        return;
    };
    let (n, test) = spec.split_once(':').unwrap();
    let args: Vec<std::ffi::OsString> = [test, "--exact", "--nocapture", "--test-threads=1"]
        .iter()
        .map(Into::into)
        .collect();
    let code = gossamer::rack::launch_local(n.parse().unwrap(), &args).unwrap();
    std::process::exit(code);
}

/// Runs `ranks` ranks of rank test `test`; returns the exit code and all output.
fn launch(ranks: usize, test: &str) -> (i32, String) {
    let child = Command::new(std::env::current_exe().unwrap())
        .args(["launcher", "--exact", "--nocapture", "--test-threads=1"])
        .env("GOSSAMER_TEST_LAUNCH", format!("{ranks}:{test}"))
        .env_remove("GOSSAMER_RANK")
        .env("RUST_BACKTRACE", "0")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(child.wait_with_output()));
    let out = rx
        .recv_timeout(GUARD)
        .unwrap_or_else(|_| panic!("hang: {test} with {ranks} ranks did not finish in {GUARD:?}"))
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn sharded_checks_across_ranks_over_shm_and_tcp() {
    if is_rank() {
        return;
    }
    for (ranks, test) in [(2, "rank_checks_shm"), (3, "rank_checks_tcp")] {
        let (code, text) = launch(ranks, test);
        assert_eq!(code, 0, "{test} x{ranks} failed:\n{text}");
        assert!(text.contains("rank 0 result 6 roots checked"), "{text}");
    }
}
