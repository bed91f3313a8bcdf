//! The reports: the JSON object of `sssp`/`bfs` and the `graph500`
//! statistics block in the reference's layout.

mod common;

use common::*;

#[test]
fn json_report_has_one_entry_per_root() {
    let out = ok(&run(&[
        "sssp",
        "--scale",
        "10",
        "--roots",
        "4",
        "--threads",
        "2",
        "--json",
    ]));
    assert_eq!(out.trim().lines().count(), 1, "one JSON object on one line");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    for key in [
        "kernel",
        "scale",
        "edgefactor",
        "ranks",
        "threads",
        "roots",
        "harmonic_mean_teps",
        "harmonic_stddev_teps",
    ] {
        assert!(v.get(key).is_some(), "missing {key}: {v}");
    }
    assert_eq!(v["kernel"], "sssp");
    assert_eq!(v["scale"], 10);
    assert_eq!(v["ranks"], 1);
    assert_eq!(v["threads"], 2);
    let roots = v["roots"].as_array().unwrap();
    let ids: Vec<u64> = roots.iter().map(|r| r["root"].as_u64().unwrap()).collect();
    assert_eq!(ids, [458, 214, 220, 966], "the reference's first roots");
    for r in roots {
        // The vectors' README: 897 reached, 16239 traversed edges at SCALE 10.
        assert_eq!(r["reached"], 897);
        assert_eq!(r["traversed_edges"], 16239);
        assert_eq!(r["validated"], true);
        assert!(r["teps"].as_f64().unwrap() > 0.0);
    }
    assert!(v["harmonic_mean_teps"].as_f64().unwrap() > 0.0);
}

#[test]
fn skip_validation_still_counts_edges() {
    let out = ok(&run(&[
        "bfs",
        "--scale",
        "10",
        "--root",
        "458",
        "--skip-validation",
        "--json",
    ]));
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["roots"][0]["validated"], false);
    assert_eq!(v["roots"][0]["traversed_edges"], 16239);
    assert_eq!(v["roots"][0]["reached"], 897);
}

#[test]
fn human_report_lists_each_root() {
    let out = ok(&run(&["bfs", "--scale", "10", "--roots", "2"]));
    assert!(
        out.contains("bfs: Graph500 SCALE 10, edgefactor 16 (1024 vertices, 16384 edges)"),
        "{out}"
    );
    assert!(out.contains("\ngeneration "), "{out}");
    assert!(out.contains("458") && out.contains("214"), "{out}");
    // Rates in MTEPS or GTEPS, and a legend of the columns.
    let header = out.lines().nth(2).unwrap();
    assert!(
        header.contains("MTEPS") && !header.contains(" TEPS"),
        "{out}"
    );
    assert!(
        out.contains("harmonic mean") && out.contains("TEPS (harmonic stddev"),
        "{out}"
    );
    assert!(
        out.contains("(MTEPS: millions of input edges traversed per second"),
        "{out}"
    );
    // Each row's MTEPS is its edges over its time.
    for row in out.lines().skip(3).take(2) {
        let f: Vec<f64> = row
            .split_whitespace()
            .take(4)
            .map(|x| x.parse().unwrap())
            .collect();
        // The time is printed rounded to a microsecond: the MTEPS must lie
        // between the rates of its rounding interval (to 4 digits).
        let (time, mteps, edges) = (f[1], f[2], f[3]);
        let (low, high) = (
            edges / (time + 5e-7) / 1e6,
            edges / (time - 5e-7).max(1e-9) / 1e6,
        );
        assert!(
            mteps >= low * 0.999 && mteps <= high * 1.001,
            "{row}: {low}..{high}"
        );
    }
}

#[test]
fn reports_of_a_graph_file_name_the_file_its_load_and_the_mode_that_ran() {
    let dir = scratch("reports-file");
    let g = dir.join("s8.ggraph");
    ok(&run(&["generate", "--scale", "8", "-o", arg(&g)]));
    // A file `generate` wrote: its name, counts and Graph500 parameters,
    // its load time (not a generation time).
    let human = ok(&run(&["bfs", "--graph", arg(&g), "--roots", "2"]));
    assert!(
        human.contains(&format!(
            "bfs: graph {} (256 vertices, 4096 edges; Graph500 SCALE 8, edgefactor 16)",
            g.display()
        )),
        "{human}"
    );
    assert!(
        human.contains("\nload ") && !human.contains("generation"),
        "{human}"
    );
    let v: serde_json::Value = serde_json::from_str(
        ok(&run(&[
            "sssp",
            "--graph",
            arg(&g),
            "--roots",
            "2",
            "--json",
        ]))
        .trim(),
    )
    .unwrap();
    assert_eq!(v["graph"], arg(&g));
    assert_eq!(
        (v["scale"].clone(), v["edgefactor"].clone()),
        (8.into(), 16.into())
    );
    assert!(v["load_time_s"].as_f64().is_some(), "{v}");
    assert!(v.get("generation_time_s").is_none(), "{v}");
    // A converted directed edge list: no SCALE made up, and BFS runs the
    // mode asked for (bottom-up steps read the in-edges).
    let el = dir.join("arcs.el");
    std::fs::write(&el, "0 1\n1 2\n2 0\n3 4\n4 5\n").unwrap();
    let conv = dir.join("arcs.ggraph");
    ok(&run(&["convert", arg(&el), "-o", arg(&conv)]));
    let human = ok(&run(&["bfs", "--graph", arg(&conv), "--root", "0"]));
    assert!(
        human.contains(&format!(
            "bfs: graph {} (6 vertices, 5 edges, directed);",
            conv.display()
        )),
        "{human}"
    );
    assert!(!human.contains("SCALE"), "{human}");
    assert!(human.contains(", mode do\n"), "{human}");
    let v: serde_json::Value = serde_json::from_str(
        ok(&run(&[
            "bfs",
            "--graph",
            arg(&conv),
            "--root",
            "0",
            "--json",
        ]))
        .trim(),
    )
    .unwrap();
    assert_eq!(v["scale"], serde_json::Value::Null, "{v}");
    assert_eq!(v["directed"], true, "{v}");
    assert_eq!(v["mode"].as_str(), Some("do"), "{v}");
    assert!(v.get("mode_requested").is_none(), "{v}");
    // Asked top-down: top-down.
    let v: serde_json::Value = serde_json::from_str(
        ok(&run(&[
            "bfs",
            "--graph",
            arg(&conv),
            "--root",
            "0",
            "--mode",
            "top-down",
            "--json",
        ]))
        .trim(),
    )
    .unwrap();
    assert_eq!(v["mode"].as_str(), Some("top-down"), "{v}");
    // The whole-graph commands say the same of the file.
    let cc = ok(&run(&["cc", "--graph", arg(&conv)]));
    assert!(
        cc.contains(&format!("cc: graph {} (6 vertices", conv.display())),
        "{cc}"
    );
    assert!(cc.contains("\nload "), "{cc}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn graph500_prints_json_and_units_a_person_reads() {
    let v: serde_json::Value = serde_json::from_str(
        ok(&run(&[
            "graph500",
            "--scale",
            "10",
            "--threads",
            "2",
            "--json",
        ]))
        .trim(),
    )
    .unwrap();
    assert_eq!(v["kernel"], "graph500");
    assert_eq!(v["scale"], 10);
    assert_eq!(v["nbfs"], 64);
    assert!(v["generation_time_s"].as_f64().is_some(), "{v}");
    for k in ["bfs", "sssp"] {
        let roots = v[k]["roots"].as_array().unwrap();
        assert_eq!(roots.len(), 64, "{k}");
        assert_eq!(roots[0]["root"], 458, "{k}");
        assert!(roots.iter().all(|r| r["traversed_edges"] == 16239), "{k}");
        assert!(roots
            .iter()
            .all(|r| r["validate_time_s"].as_f64().unwrap() >= 0.0));
        assert_eq!(v[k]["nedge"]["min"], 16239.0, "{k}");
        let hm = v[k]["teps"]["harmonic_mean"].as_f64().unwrap();
        assert!(hm > 0.0, "{k}");
        assert!(v[k]["teps"]["min"].as_f64().unwrap() <= hm, "{k}");
        // Each kernel's own profile: both trustees worked in its searches.
        let p = &v[k]["profile"];
        let t = p["trustees"].as_array().expect("profile.trustees");
        assert_eq!(t.len(), 2, "{k}: {p}");
        for x in t {
            assert!(x["busy_s"].as_f64().unwrap() > 0.0, "{k}: {x}");
            assert!(x["idle_s"].as_f64().is_some() && x["collective_s"].as_f64().is_some());
        }
        assert!(p["imbalance"].as_f64().unwrap() >= 1.0, "{k}: {p}");
    }
    // The human block ends with its numbers in units.
    let out = ok(&run(&["graph500", "--scale", "10", "--threads", "2"]));
    for prefix in ["bfs  in units:", "sssp in units:"] {
        let line = out.lines().find(|l| l.starts_with(prefix)).expect(prefix);
        assert!(
            line.contains("harmonic mean") && line.contains("TEPS"),
            "{line}"
        );
        assert!(line.contains("per search"), "{line}");
    }
    let graph = out
        .lines()
        .find(|l| l.starts_with("graph in units:"))
        .expect("graph line");
    assert!(
        graph.contains("16239 of its 16384 edge records traversed"),
        "{graph}"
    );
}

/// The keys of the reference's statistics block, in its order.
const REFERENCE_KEYS: &[&str] = &[
    "SCALE",
    "edgefactor",
    "NBFS",
    "graph_generation",
    "num_mpi_processes",
    "construction_time",
    "bfs  min_time",
    "bfs  firstquartile_time",
    "bfs  median_time",
    "bfs  thirdquartile_time",
    "bfs  max_time",
    "bfs  mean_time",
    "bfs  stddev_time",
    "sssp min_time",
    "sssp firstquartile_time",
    "sssp median_time",
    "sssp thirdquartile_time",
    "sssp max_time",
    "sssp mean_time",
    "sssp stddev_time",
    "min_nedge",
    "firstquartile_nedge",
    "median_nedge",
    "thirdquartile_nedge",
    "max_nedge",
    "mean_nedge",
    "stddev_nedge",
    "bfs  min_TEPS",
    "bfs  firstquartile_TEPS",
    "bfs  median_TEPS",
    "bfs  thirdquartile_TEPS",
    "bfs  max_TEPS",
    "bfs  harmonic_mean_TEPS",
    "bfs  harmonic_stddev_TEPS",
    "sssp min_TEPS",
    "sssp firstquartile_TEPS",
    "sssp median_TEPS",
    "sssp thirdquartile_TEPS",
    "sssp max_TEPS",
    "sssp harmonic_mean_TEPS",
    "sssp harmonic_stddev_TEPS",
    "bfs  min_validate",
    "bfs  firstquartile_validate",
    "bfs  median_validate",
    "bfs  thirdquartile_validate",
    "bfs  max_validate",
    "bfs  mean_validate",
    "bfs  stddev_validate",
    "sssp min_validate",
    "sssp firstquartile_validate",
    "sssp median_validate",
    "sssp thirdquartile_validate",
    "sssp max_validate",
    "sssp mean_validate",
    "sssp stddev_validate",
];

#[test]
fn graph500_block_has_the_reference_layout() {
    let out = ok(&run(&["graph500", "--scale", "10", "--threads", "2"]));
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines.len() >= REFERENCE_KEYS.len() + 128, "{out}");
    for (line, key) in lines.iter().zip(REFERENCE_KEYS) {
        let (k, value) = line
            .split_once(':')
            .unwrap_or_else(|| panic!("no colon: {line}"));
        assert_eq!(k, *key, "{out}");
        // Values start at column 32 (the reference's padding).
        assert_eq!(line.as_bytes()[31], b' ', "{line}");
        assert_ne!(line.as_bytes()[32], b' ', "{line}");
        let value = value.trim().trim_start_matches('!').trim();
        assert!(value.parse::<f64>().is_ok(), "not a number: {line}");
    }
    let get = |key: &str| -> String {
        let line = lines
            .iter()
            .find(|l| l.starts_with(&format!("{key}:")))
            .unwrap();
        line[32..].trim().to_string()
    };
    assert_eq!(get("SCALE"), "10");
    assert_eq!(get("NBFS"), "64");
    assert_eq!(get("num_mpi_processes"), "1");
    for kernel in ["bfs  ", "sssp "] {
        let marked = format!("{kernel}harmonic_mean_TEPS:     !  ");
        let line = lines
            .iter()
            .find(|l| l.starts_with(&marked))
            .expect("the ! line");
        assert!(line[marked.len()..].parse::<f64>().unwrap() > 0.0, "{line}");
    }
    // The same component from every root at SCALE 10: 16239 edges each.
    assert_eq!(get("min_nedge"), "16239");
    assert_eq!(get("stddev_nedge"), "0");
    assert!(
        lines.iter().any(|l| l.starts_with("sssp Run  64:")),
        "{out}"
    );
}

#[test]
fn reports_count_the_ranks_of_a_rack_job() {
    let out = ok(&run(&[
        "--ranks",
        "2",
        "bfs",
        "--scale",
        "10",
        "--root",
        "458",
        "--threads",
        "1",
        "--json",
    ]));
    // Only rank 0 reports.
    assert_eq!(out.trim().lines().count(), 1, "{out}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["ranks"], 2);
    assert_eq!(v["roots"][0]["traversed_edges"], 16239);
}

/// The phases of a report's `wall_time` cover the process's wall time: they
/// add up to `total_s` (the last, `other`, is what no phase covers), and the
/// phases a run goes through are named.
fn assert_wall_time_accounts(v: &serde_json::Value, must: &[&str]) {
    let w = &v["wall_time"];
    let total = w["total_s"].as_f64().unwrap_or_else(|| panic!("{v}"));
    let phases = w["phases"].as_array().unwrap();
    let names: Vec<&str> = phases.iter().map(|p| p["name"].as_str().unwrap()).collect();
    for m in must {
        assert!(names.contains(m), "no phase {m} in {names:?}");
    }
    assert_eq!(names.last(), Some(&"other"), "{names:?}");
    let sum: f64 = phases.iter().map(|p| p["seconds"].as_f64().unwrap()).sum();
    assert!(phases.iter().all(|p| p["seconds"].as_f64().unwrap() >= 0.0));
    assert!(
        (sum - total).abs() < 1e-6 * total.max(1.0),
        "{sum} vs {total}: {w}"
    );
    let first = w["first_answer_s"].as_f64().unwrap();
    assert!(0.0 < first && first <= total, "{w}");
}

#[test]
fn reports_account_for_the_wall_time() {
    let bfs = ok(&run(&["bfs", "--scale", "10", "--roots", "2", "--json"]));
    let v: serde_json::Value = serde_json::from_str(bfs.trim()).unwrap();
    assert_wall_time_accounts(
        &v,
        &[
            "load",
            "runtime start",
            "construction",
            "kernel time",
            "kernel set-up and gathering",
            "validation",
            "runtime teardown",
        ],
    );
    let cc = ok(&run(&["cc", "--scale", "10", "--json"]));
    let v: serde_json::Value = serde_json::from_str(cc.trim()).unwrap();
    assert_wall_time_accounts(&v, &["load", "construction", "kernel time", "validation"]);
    // The text reports end with the same accounting on one line.
    let human = ok(&run(&["sssp", "--scale", "10", "--roots", "2"]));
    let last = human.lines().last().unwrap();
    assert!(
        last.starts_with("wall ") && last.contains("first answer after"),
        "{human}"
    );
}
