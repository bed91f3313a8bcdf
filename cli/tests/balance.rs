//! `--partition blocks` and `--balance between-searches` (issue 29): the
//! balancer moves blocks (told by a test hook that trustee 0 was 3x as
//! busy), every search after the moves validates, and a moved block table
//! gives SSSP distances bit-identical to the unmoved partition's.

mod common;

use common::*;

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out.trim()).expect("one JSON object")
}

const BUSY: (&str, &str) = ("GOSSAMER_GRAPH_TEST_BUSY", "3,1");

#[test]
fn between_searches_moves_blocks_and_answers_stay_valid() {
    for kernel in ["sssp", "bfs"] {
        let out = json(&ok(&run_env(
            &[
                kernel,
                "--scale",
                "10",
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
            &[BUSY],
        )));
        let b = &out["balance"];
        assert!(b["rebuilds"].as_u64().unwrap() >= 1, "{kernel}: {b}");
        assert!(b["blocks_moved"].as_u64().unwrap() >= 1, "{kernel}: {b}");
        assert!(b["bytes_moved"].as_u64().unwrap() > 0, "{kernel}: {b}");
        assert!(b["migration_s"].as_f64().unwrap() > 0.0, "{kernel}: {b}");
        // Trustee 0 "was busier": its blocks went to trustee 1.
        let table: Vec<u64> = b["table"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_u64().unwrap())
            .collect();
        assert_eq!(table.len(), 128);
        assert!(table.iter().filter(|&&t| t == 1).count() > 64, "{table:?}");
        let roots = out["roots"].as_array().unwrap();
        assert_eq!(roots.len(), 4);
        assert!(roots.iter().all(|r| r["validated"] == true), "{out}");
    }
    // Off (the default) reports no balance.
    let off = json(&ok(&run(&[
        "sssp",
        "--scale",
        "10",
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
fn a_moved_block_table_gives_the_same_distances() {
    let dir = scratch("cli_balance_dist");
    // The table the balancer picks from the hook's busy times.
    let moved = json(&ok(&run_env(
        &[
            "sssp",
            "--scale",
            "10",
            "--roots",
            "2",
            "--threads",
            "2",
            "--partition",
            "blocks",
            "--balance",
            "between-searches",
            "--json",
            "--skip-validation",
        ],
        &[BUSY],
    )));
    let table: Vec<String> = moved["balance"]["table"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.to_string())
        .collect();
    let table = table.join(",");
    let mut dumps = Vec::new();
    for (name, extra) in [
        ("block", vec!["--partition", "block"]),
        ("blocks", vec!["--partition", "blocks"]),
        (
            "moved",
            vec!["--partition", "blocks", "--block-table", table.as_str()],
        ),
    ] {
        let dump = dir.join(name);
        let mut args = vec![
            "sssp",
            "--scale",
            "10",
            "--root",
            "458",
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
    let e = with(&["--balance", "between-searches"]);
    assert!(e.contains("add --partition blocks"), "{e}");
    let e = with(&["--block-table", "0,1"]);
    assert!(e.contains("--block-table needs --partition blocks"), "{e}");
    let e = with(&["--partition", "blocks", "--block-table", "0,1"]);
    assert!(e.contains("the block table has 2 entries"), "{e}");
    // A rack job (its graph's partition counts one rank: the runtime says).
    let mut a = vec!["--ranks", "2"];
    a.extend(base);
    a.extend(["--partition", "blocks", "--balance", "between-searches"]);
    let e = fails(&run(&a));
    assert!(e.contains("runs in one process in this version"), "{e}");
}
