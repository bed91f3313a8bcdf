//! `--partition blocks` and `--balance between-searches` (issue 29): told
//! by test hooks that trustee 0 was 3x as busy, the balancer deals the
//! blocks of a graph whose work sits in its first ids and moves nothing on
//! a generated graph (whose ids spread the work); every search after the
//! moves validates, and a dealt block table gives SSSP distances
//! bit-identical to the unmoved partition's. Across 2 ranks the blocks
//! move between the processes with the same answers, and a move to a rank
//! that died fails, naming it.

mod common;

use common::*;

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out.trim()).expect("one JSON object")
}

/// Trustee 0 "was 3x as busy", and each search "took a second" (so that
/// a move on these tiny graphs pays): the balancer's inputs from the
/// test hooks.
const HOOKS: [(&str, &str); 2] = [
    ("GOSSAMER_GRAPH_TEST_BUSY", "3,1"),
    ("GOSSAMER_GRAPH_TEST_SEARCH_S", "1"),
];

/// A graph whose work sits in its first ids, as when ids are sorted by
/// degree: a complete graph on vertices 0..512, a path through 511..2560,
/// ids 2560..4094 isolated and one last edge 4094-4095, converted to a
/// `.ggraph` in `dir`. On 2 trustees (128 blocks of 32 ids) the core is
/// blocks 0..16 and the live vertices blocks 0..80 and 127, trustee 0's
/// blocks 0..64 at first.
fn core_graph(dir: &std::path::Path) -> std::path::PathBuf {
    let mut text = String::new();
    for u in 0..512u32 {
        for v in u + 1..512 {
            text += &format!("{u} {v} {}\n", 1 + (u * 7 + v) % 13);
        }
    }
    for u in 511..2559u32 {
        text += &format!("{u} {} {}\n", u + 1, 1 + u % 5);
    }
    text += "4094 4095 1\n";
    let wel = dir.join("core.wel");
    std::fs::write(&wel, text).unwrap();
    let out = dir.join("core.ggraph");
    ok(&run(&[
        "convert",
        arg(&wel),
        "-o",
        arg(&out),
        "--undirected",
    ]));
    out
}

fn balanced(graph: &str, kernel: &str, roots: &str) -> serde_json::Value {
    json(&ok(&run_env(
        &[
            kernel,
            "--graph",
            graph,
            "--roots",
            roots,
            "--threads",
            "2",
            "--partition",
            "blocks",
            "--balance",
            "between-searches",
            "--json",
        ],
        &HOOKS,
    )))
}

fn table(b: &serde_json::Value) -> Vec<u64> {
    b["table"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_u64().unwrap())
        .collect()
}

#[test]
fn between_searches_deals_the_costly_blocks_and_answers_stay_valid() {
    let dir = scratch("cli_balance_core");
    let g = core_graph(&dir);
    for kernel in ["sssp", "bfs"] {
        let out = balanced(arg(&g), kernel, "4");
        let b = &out["balance"];
        assert_eq!(b["rebuilds"].as_u64().unwrap(), 1, "{kernel}: {b}");
        assert!(b["blocks_moved"].as_u64().unwrap() >= 8, "{kernel}: {b}");
        assert!(b["bytes_moved"].as_u64().unwrap() > 0, "{kernel}: {b}");
        assert!(
            b["bytes_copied"].as_u64().unwrap() >= b["bytes_moved"].as_u64().unwrap(),
            "{kernel}: {b}"
        );
        assert!(b["migration_s"].as_f64().unwrap() > 0.0, "{kernel}: {b}");
        assert!(
            b["predicted_after"].as_f64().unwrap() < 1.1,
            "{kernel}: {b}"
        );
        // The core's blocks are split pair by pair between the trustees
        // (SSSP: by entries and vertices; BFS: by live vertices, so every
        // pair of live blocks).
        let t = table(b);
        assert_eq!(t.len(), 128);
        for pair in t[..16].chunks(2) {
            assert_ne!(pair[0], pair[1], "{kernel}: {t:?}");
        }
        let roots = out["roots"].as_array().unwrap();
        assert_eq!(roots.len(), 4);
        assert!(roots.iter().all(|r| r["validated"] == true), "{out}");
    }
    // Off (the default) reports no balance.
    let off = json(&ok(&run(&[
        "sssp",
        "--graph",
        arg(&g),
        "--roots",
        "2",
        "--threads",
        "2",
        "--partition",
        "blocks",
        "--json",
    ])));
    assert!(off.get("balance").is_none(), "{off}");
}

#[test]
fn between_searches_moves_nothing_where_ownership_is_even() {
    // A generated graph's scrambled ids spread the work evenly: trustee 0
    // "being 3x as busy" is not work a move could take off it.
    for kernel in ["sssp", "bfs"] {
        let out = json(&ok(&run_env(
            &[
                kernel,
                "--scale",
                "12",
                "--roots",
                "4",
                "--threads",
                "2",
                "--partition",
                "blocks",
                "--balance",
                "between-searches",
                "--json",
            ],
            &HOOKS,
        )));
        let b = &out["balance"];
        assert_eq!(b["rebuilds"].as_u64().unwrap(), 0, "{kernel}: {b}");
        assert_eq!(b["blocks_moved"].as_u64().unwrap(), 0, "{kernel}: {b}");
    }
}

#[test]
fn a_moved_block_table_gives_the_same_distances() {
    let dir = scratch("cli_balance_dist");
    let g = core_graph(&dir);
    // The table the balancer deals.
    let moved = balanced(arg(&g), "sssp", "2");
    let t: Vec<String> = table(&moved["balance"])
        .iter()
        .map(|t| t.to_string())
        .collect();
    let t = t.join(",");
    assert!(t.contains('1'), "{t}");
    let mut dumps = Vec::new();
    for (name, extra) in [
        ("block", vec!["--partition", "block"]),
        ("blocks", vec!["--partition", "blocks"]),
        (
            "moved",
            vec!["--partition", "blocks", "--block-table", t.as_str()],
        ),
    ] {
        let dump = dir.join(name);
        let mut args = vec![
            "sssp",
            "--graph",
            arg(&g),
            "--root",
            "600",
            "--threads",
            "2",
            "--dump-dist",
            arg(&dump),
        ];
        args.extend(extra);
        ok(&run(&args));
        dumps.push(std::fs::read(&dump).unwrap());
    }
    assert_eq!(dumps[0], dumps[1], "blocks vs block");
    assert_eq!(dumps[0], dumps[2], "moved blocks vs block");
}

#[test]
fn balance_settings_that_cannot_run_are_refused() {
    let base = ["sssp", "--scale", "8", "--roots", "2", "--threads", "2"];
    let with = |extra: &[&str]| {
        let mut a = base.to_vec();
        a.extend(extra);
        fails(&run(&a))
    };
    let e = with(&["--partition", "blocks", "--balance", "supersteps"]);
    assert!(e.contains("--balance supersteps is not offered"), "{e}");
    let e = with(&["--partition", "block", "--balance", "between-searches"]);
    assert!(e.contains("use --partition blocks"), "{e}");
    let e = with(&["--partition", "striped", "--block-table", "0,1"]);
    assert!(e.contains("--block-table needs --partition blocks"), "{e}");
    let e = with(&["--partition", "blocks", "--block-table", "0,1"]);
    assert!(e.contains("the block table has 2 entries"), "{e}");
}

/// `--balance between-searches` across 2 ranks (shm and tcp): the blocks
/// move between the processes after the first search (the rows shipped
/// as messages), every search validates, and the fourth search's answer
/// (after the move) is byte for byte an unbalanced run's from the same
/// root: SSSP distances and BFS levels.
#[test]
fn blocks_move_across_ranks_and_answers_stay_those_of_an_unbalanced_run() {
    let dir = scratch("cli_balance_ranks");
    let g = core_graph(&dir);
    for transport in ["shm", "tcp"] {
        for (kernel, dump_flag) in [("sssp", "--dump-dist"), ("bfs", "--dump-levels")] {
            let moved = dir.join(format!("{transport}-{kernel}.moved"));
            let mut env = HOOKS.to_vec();
            env.push(("GOSSAMER_GRAPH_TEST_DUMP_SEARCH", "3"));
            let out = json(&ok(&run_env(
                &[
                    "--ranks",
                    "2",
                    "--transport",
                    transport,
                    kernel,
                    "--graph",
                    arg(&g),
                    "--roots",
                    "4",
                    "--threads",
                    "1",
                    "--partition",
                    "blocks",
                    "--balance",
                    "between-searches",
                    dump_flag,
                    arg(&moved),
                    "--json",
                ],
                &env,
            )));
            let b = &out["balance"];
            let what = format!("{transport} {kernel}: {b}");
            assert_eq!(b["rebuilds"].as_u64().unwrap(), 1, "{what}");
            assert!(b["blocks_moved"].as_u64().unwrap() >= 8, "{what}");
            // 2 ranks x 1 thread: every moved block changed process.
            let shipped = b["bytes_shipped"].as_u64().unwrap();
            assert!(shipped >= b["bytes_moved"].as_u64().unwrap(), "{what}");
            let t = table(b);
            for pair in t[..16].chunks(2) {
                assert_ne!(pair[0], pair[1], "{what}");
            }
            let roots = out["roots"].as_array().unwrap();
            assert!(roots.iter().all(|r| r["validated"] == true), "{out}");
            let root = roots[3]["root"].as_u64().unwrap().to_string();
            let plain = dir.join(format!("{transport}-{kernel}.plain"));
            ok(&run(&[
                kernel,
                "--graph",
                arg(&g),
                "--root",
                &root,
                "--threads",
                "2",
                "--partition",
                "block",
                dump_flag,
                arg(&plain),
            ]));
            assert!(
                std::fs::read(&moved).unwrap() == std::fs::read(&plain).unwrap(),
                "{what}: the answer after the move differs from the unbalanced run's"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A move to a rank that died fails the run with an error naming that
/// rank, within seconds, instead of waiting for it.
#[test]
fn a_move_to_a_rank_that_died_fails_with_a_clear_error() {
    use std::process::{Command, Stdio};
    let dir = scratch("cli_balance_dead");
    let g = core_graph(&dir);
    let mut child = Command::new(env!("CARGO_BIN_EXE_gossamer-graph"))
        .args([
            "--ranks",
            "2",
            "--transport",
            "shm",
            "sssp",
            "--graph",
            arg(&g),
            "--roots",
            "4",
            "--threads",
            "1",
            "--partition",
            "blocks",
            "--balance",
            "between-searches",
        ])
        .envs(HOOKS)
        .env("GOSSAMER_GRAPH_TEST_KILL_RANK_BEFORE_MOVE", "1")
        .env("RUST_BACKTRACE", "0")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A hang guard far above the heartbeat timeout (10 s) and watchdog (5 s).
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > std::time::Duration::from_secs(60) {
            let _ = child.kill();
            panic!("hang: the move to a dead rank did not fail within 60 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let out = child.wait_with_output().unwrap();
    assert!(!out.status.success());
    let e = stderr(&out);
    assert!(e.contains("rank 1"), "{e}");
    assert!(e.contains("SIGABRT") || e.contains("failed"), "{e}");
    // No report: the run did not finish.
    assert!(
        !stdout(&out).contains("balance between searches"),
        "{}",
        stdout(&out)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
