//! Rack mode end to end: `gossamer-graph --ranks 4 --transport shm|tcp` runs SSSP
//! and BFS as 4 processes on this host and must give the reference vectors' answers
//! (distances within f32 rounding, levels byte for byte).

mod common;

use common::*;

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn sssp_and_bfs_across_4_ranks_equal_the_oracle_over_shm_and_tcp() {
    let dir = scratch("rack");
    let root = "1834";
    for transport in ["shm", "tcp"] {
        let d = dir.join(format!("{transport}.dist"));
        let l = dir.join(format!("{transport}.level"));
        ok(&run(&[
            "--ranks",
            "4",
            "--transport",
            transport,
            "sssp",
            "--scale",
            "12",
            "--root",
            root,
            "--threads",
            "1",
            "--dump-dist",
            arg(&d),
        ]));
        ok(&run(&[
            "--ranks",
            "4",
            "--transport",
            transport,
            "bfs",
            "--scale",
            "12",
            "--root",
            root,
            "--threads",
            "1",
            "--dump-levels",
            arg(&l),
        ]));
        let got = f32s(&std::fs::read(&d).unwrap());
        let want = f32s(&std::fs::read(vector(&format!("scale12.root{root}.dist"))).unwrap());
        assert_eq!(got.len(), 4096, "{transport}: one distance per vertex");
        for (v, (&a, &b)) in got.iter().zip(&want).enumerate() {
            if b.is_infinite() {
                assert!(
                    a.is_infinite() && a > 0.0,
                    "{transport} vertex {v}: {a} should be +inf"
                );
            } else {
                let tol = 1e-6 * b.abs().max(f32::MIN_POSITIVE);
                assert!(
                    (a - b).abs() <= tol,
                    "{transport} vertex {v}: {a} vs oracle {b}"
                );
            }
        }
        let levels = std::fs::read(&l).unwrap();
        let want = std::fs::read(vector(&format!("scale12.root{root}.level"))).unwrap();
        assert!(
            levels == want,
            "{transport}: BFS levels differ from the oracle"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_rank_count_is_a_clear_error() {
    let e = fails(&run(&[
        "--ranks", "0", "sssp", "--scale", "4", "--root", "0",
    ]));
    assert!(e.contains("--ranks 0"), "{e}");
    let e = fails(&run(&[
        "--transport",
        "carrier-pigeon",
        "sssp",
        "--scale",
        "4",
        "--root",
        "0",
    ]));
    assert!(e.contains("unknown transport"), "{e}");
}

/// Runs the binary with `args`, killing it if it has not finished after
/// `guard` (a hang guard only, far above the expected time).
fn run_guarded(args: &[&str], guard: std::time::Duration) -> std::process::Output {
    run_guarded_env(args, &[], guard)
}

/// [`run_guarded`] with extra environment variables.
fn run_guarded_env(
    args: &[&str],
    env: &[(&str, &str)],
    guard: std::time::Duration,
) -> std::process::Output {
    use std::process::{Command, Stdio};
    let child = Command::new(env!("CARGO_BIN_EXE_gossamer-graph"))
        .args(args)
        .envs(env.iter().copied())
        .env("RUST_BACKTRACE", "0")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the gossamer-graph binary runs");
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(guard) {
        Ok(out) => out.expect("output"),
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            panic!("hang: gossamer-graph {args:?} did not finish in {guard:?}");
        }
    }
}

#[test]
fn oversubscribed_ranks_finish_with_a_warning() {
    // 2 ranks x 40 threads = 80 workers on this 2-core box: slow, but they
    // must finish (1024 threads used to run for more than ten minutes). 80
    // parties also take the collective's tree (more than 64), across both
    // processes; the search is validated as usual.
    let out = run_guarded(
        &[
            "--ranks",
            "2",
            "sssp",
            "--scale",
            "8",
            "--threads",
            "40",
            "--roots",
            "2",
        ],
        std::time::Duration::from_secs(300),
    );
    let text = ok(&out);
    assert!(text.contains("sssp"), "{text}");
    let err = stderr(&out);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert!(text.contains("2 searches"), "{text}");
    if cores < 80 {
        assert!(
            err.contains("2 rank(s) x 40 thread(s) = 80 workers on"),
            "{err}"
        );
    }
}

#[test]
fn a_rack_whose_slots_cannot_fit_is_refused_before_any_rank_starts() {
    let out = run_guarded(
        &["--ranks", "1000", "sssp", "--scale", "10", "--threads", "1"],
        std::time::Duration::from_secs(120),
    );
    let err = fails(&out);
    assert!(
        err.contains("1000 rank(s) x 1 thread(s) = 1000 workers need"),
        "{err}"
    );
    assert!(err.contains("GiB"), "{err}");
    assert!(err.contains("use fewer ranks or threads"), "{err}");
    // No rank was started: nothing but the launcher's own message.
    assert!(!err.contains("rank 0"), "{err}");
}

#[test]
fn gossamer_variables_out_of_range_are_refused_by_name_not_a_panic() {
    let guard = std::time::Duration::from_secs(120);
    let search = ["bfs", "--scale", "6", "--threads", "1", "--root", "1"];
    // Through the built-in launcher, every rank reads it: it used to panic
    // on each (an instant beyond the clock's range).
    let huge = ("GOSSAMER_JOIN_TIMEOUT", "9223372036854775807");
    let launched: Vec<&str> = ["--ranks", "2"].iter().chain(&search).copied().collect();
    let err = fails(&run_guarded_env(&launched, &[huge], guard));
    assert!(
        err.contains("GOSSAMER_JOIN_TIMEOUT=\"9223372036854775807\": expected")
            && err.contains("from 1 to 86400"),
        "{err}"
    );
    assert!(!err.contains("overflow"), "{err}");
    // A rank started by hand: the same, and a job name that is a path is
    // refused before it can name the shared region.
    let by_hand = [
        ("GOSSAMER_RANK", "0"),
        ("GOSSAMER_SIZE", "2"),
        ("GOSSAMER_TOKEN", "a-test-token"),
    ];
    for (k, v) in [huge, ("GOSSAMER_JOB", "x/../../../tmp/evil")] {
        // A short join timeout bounds the run if the value were taken; the
        // variable under test comes last, so it is the one in effect.
        let mut env = by_hand.to_vec();
        env.push(("GOSSAMER_JOIN_TIMEOUT", "2"));
        env.push((k, v));
        let err = fails(&run_guarded_env(&search, &env, guard));
        assert!(err.contains(&format!("{k}={v:?}: expected")), "{err}");
    }
    // The command's own variable.
    let err = fails(&run_guarded_env(
        &search,
        &[("GOSSAMER_GRAPH_MEMTRACE", "yes")],
        guard,
    ));
    assert!(
        err.contains("GOSSAMER_GRAPH_MEMTRACE=\"yes\": expected 1"),
        "{err}"
    );
}

#[test]
fn ranks_started_by_hand_whose_slots_cannot_fit_say_why() {
    // 65536 ranks: the shared region of all their slots (16 TiB over shm,
    // every rank maps it) and each rank's own rows over tcp (128 TiB at
    // 1024 threads) fit no host. Rank 0 and any other rank say so at once
    // with the numbers, as the built-in launcher does, instead of failing to
    // map the memory ("Cannot allocate memory") or waiting for the others.
    // --force passes the command's own estimate (which counts the slots as
    // well and would refuse first at 1024 threads): the runtime's check of
    // the slots is what is tested, and no --force passes it.
    let guard = std::time::Duration::from_secs(120);
    for (rank, transport, threads) in [("0", "shm", "1"), ("5", "shm", "1"), ("0", "tcp", "1024")] {
        let out = run_guarded_env(
            &[
                "--transport",
                transport,
                "bfs",
                "--scale",
                "6",
                "--threads",
                threads,
                "--root",
                "1",
                "--force",
            ],
            &[
                ("GOSSAMER_RANK", rank),
                ("GOSSAMER_SIZE", "65536"),
                ("GOSSAMER_TOKEN", "a-test-token"),
                ("GOSSAMER_JOIN_TIMEOUT", "2"),
            ],
            guard,
        );
        let err = fails(&out);
        assert!(
            err.contains(&format!("rank {rank}: 65536 rank(s) x {threads} thread(s)")),
            "{transport}: {err}"
        );
        assert!(err.contains("request/response slots"), "{transport}: {err}");
        assert!(
            err.contains("use fewer ranks or threads"),
            "{transport}: {err}"
        );
        assert!(
            !err.contains("Cannot allocate memory"),
            "{transport}: {err}"
        );
        assert!(!err.contains("did not join"), "{transport}: {err}");
    }
}

#[test]
fn json_reports_show_every_ranks_trustees() {
    let sssp = [
        "--ranks",
        "2",
        "sssp",
        "--scale",
        "10",
        "--threads",
        "1",
        "--roots",
        "2",
        "--json",
    ];
    let cc = [
        "--ranks",
        "2",
        "cc",
        "--scale",
        "10",
        "--threads",
        "1",
        "--json",
    ];
    for args in [&sssp[..], &cc[..]] {
        let out = ok(&run(args));
        let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
        let t = v["trustees"].as_array().expect("a trustees array");
        assert_eq!(
            t.len(),
            2,
            "{args:?}: one entry per worker of both ranks: {v}"
        );
        assert_eq!(t[1]["worker"], 1);
        // Rank 1's trustee served requests from rank 0: its counters came
        // from the other process, not zeros.
        assert!(t[1]["requests"].as_u64().unwrap() > 0, "{args:?}: {v}");
        assert!(t[1]["batches"].as_u64().unwrap() > 0, "{args:?}: {v}");
    }
}

#[test]
fn ranks_share_this_hosts_cores_by_default() {
    // Without --threads, each of N ranks on this host gets the cores / N
    // (at least 1): no more workers than cores, so no oversubscription
    // warning.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let out = run(&[
        "--ranks", "2", "bfs", "--scale", "8", "--roots", "2", "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(ok(&out).trim()).unwrap();
    assert_eq!(v["ranks"], 2);
    assert_eq!(v["threads"], (cores / 2).max(1) as u64, "{v}");
    assert_eq!(
        v["trustees"].as_array().unwrap().len(),
        2 * (cores / 2).max(1),
        "{v}"
    );
    if cores >= 2 {
        assert!(!stderr(&out).contains("warning"), "{}", stderr(&out));
    }
    // One process keeps every core.
    let one: serde_json::Value =
        serde_json::from_str(ok(&run(&["bfs", "--scale", "8", "--roots", "1", "--json"])).trim())
            .unwrap();
    assert_eq!(one["threads"], cores as u64, "{one}");
}

#[test]
fn ranks_work_before_and_after_the_command_and_show_in_the_help() {
    for args in [
        &[
            "--ranks",
            "2",
            "bfs",
            "--scale",
            "8",
            "--root",
            "3",
            "--threads",
            "1",
            "--json",
        ][..],
        &[
            "bfs",
            "--ranks",
            "2",
            "--scale",
            "8",
            "--root",
            "3",
            "--threads",
            "1",
            "--json",
        ][..],
        &[
            "bfs",
            "--scale",
            "8",
            "--root",
            "3",
            "--threads",
            "1",
            "--json",
            "--ranks=2",
        ][..],
        &[
            "bfs",
            "--scale",
            "8",
            "--root",
            "3",
            "--threads",
            "1",
            "--json",
            "--ranks",
            "2",
            "--transport",
            "tcp",
        ][..],
    ] {
        let v: serde_json::Value = serde_json::from_str(ok(&run(args)).trim()).unwrap();
        assert_eq!(v["ranks"], 2, "{args:?}: {v}");
    }
    // Twice with different values: refused, with both named.
    let e = fails(&run(&[
        "--ranks", "2", "bfs", "--ranks", "3", "--scale", "8", "--root", "3",
    ]));
    assert!(
        e.contains("--ranks given twice, 2 before the command and 3 after it"),
        "{e}"
    );
    // A command that does not run as ranks says so instead of running twice.
    let e = fails(&run(&["--ranks", "2", "generate", "--scale", "4"]));
    assert!(e.contains("generate runs in one process"), "{e}");
    // Listed under Options, at the top and in a run command's help.
    for help in [
        ok(&run(&["--help"])),
        ok(&run(&["bfs", "--help"])),
        ok(&run(&["graph500", "--help"])),
    ] {
        let options = help.split("Options:").nth(1).expect("an Options section");
        assert!(options.contains("--ranks <N>"), "{help}");
        assert!(options.contains("--transport <KIND>"), "{help}");
    }
}
