//! `--trace FILE` and the trustee profile of the reports: the file is Chrome
//! trace-event JSON with one track per trustee of every rank and the
//! expected event kinds, each track's intervals in order and disjoint, a
//! full buffer dropping and counting in the file and the report, and the
//! `--json` profile's per-trustee seconds add up. (The runtime's side of a
//! full buffer: gossamer/tests/profile.rs.)

mod common;

use common::*;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

const ACTIVITIES: [&str; 4] = ["delegated", "fiber", "collective", "idle"];

/// The trace file, parsed.
fn read_trace(path: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(path).expect("the trace file was written");
    serde_json::from_str(&text).expect("the trace file is one JSON object")
}

/// A `ts` or `dur` in whole nanoseconds (the file writes microseconds with
/// three decimals).
fn ns(v: &Value) -> u64 {
    (v.as_f64().unwrap() * 1e3).round() as u64
}

/// Per (pid, tid): the track's name and the names of its complete events.
/// Asserts that each track's complete events come in time order without
/// overlapping (a trustee does one thing at a time; a region ends before
/// the next begins).
fn tracks(trace: &Value) -> BTreeMap<(u64, u64), (String, BTreeSet<String>)> {
    let mut out: BTreeMap<(u64, u64), (String, BTreeSet<String>)> = BTreeMap::new();
    let mut ends: BTreeMap<(u64, u64), u64> = BTreeMap::new();
    for e in trace["traceEvents"].as_array().expect("traceEvents") {
        let (Some(pid), Some(tid)) = (e["pid"].as_u64(), e["tid"].as_u64()) else {
            continue;
        };
        let entry = out.entry((pid, tid)).or_default();
        match e["ph"].as_str().unwrap() {
            "M" if e["name"] == "thread_name" => {
                entry.0 = e["args"]["name"].as_str().unwrap().to_string();
            }
            "X" => {
                assert!(e["ts"].as_f64().unwrap() >= 0.0, "{e}");
                assert!(e["dur"].as_f64().unwrap() >= 0.0, "{e}");
                let end = ends.entry((pid, tid)).or_default();
                assert!(
                    ns(&e["ts"]) >= *end,
                    "track ({pid}, {tid}): {e} starts before the previous event ends ({end} ns)"
                );
                *end = ns(&e["ts"]) + ns(&e["dur"]);
                let cat = e["cat"].as_str().unwrap();
                let name = e["name"].as_str().unwrap();
                if cat == "activity" {
                    assert!(ACTIVITIES.contains(&name), "{e}");
                    entry.1.insert(name.to_string());
                } else {
                    assert_eq!(cat, "region", "{e}");
                    entry.1.insert("region".to_string());
                }
            }
            "M" => {}
            "i" => {
                assert_eq!(e["name"], "buffer full", "{e}");
                entry.1.insert("buffer full".to_string());
            }
            other => panic!("unexpected event kind {other}: {e}"),
        }
    }
    out
}

/// The JSON report's profile: per-trustee seconds that add up, and the
/// imbalance as max / mean busy.
fn check_profile(report: &Value, trustees: usize) {
    let p = &report["profile"];
    let t = p["trustees"].as_array().expect("profile.trustees");
    assert_eq!(t.len(), trustees, "{p}");
    let busy: Vec<f64> = t.iter().map(|x| x["busy_s"].as_f64().unwrap()).collect();
    for (i, x) in t.iter().enumerate() {
        assert_eq!(x["worker"], i as u64);
        let f = |k: &str| x[k].as_f64().unwrap_or_else(|| panic!("{k} in {x}"));
        assert!(f("busy_s") > 0.0, "{x}");
        let sum = f("busy_s") + f("idle_s") + f("collective_s");
        assert!(sum <= f("wall_s") * (1.0 + 1e-9), "{x}");
        if x.get("delegated_s").is_some() {
            let split = f("delegated_s") + f("fiber_s");
            assert!((split - f("busy_s")).abs() <= 1e-6 * f("busy_s"), "{x}");
        }
    }
    let mean = busy.iter().sum::<f64>() / busy.len() as f64;
    let max = busy.iter().cloned().fold(0.0, f64::max);
    let imbalance = p["imbalance"].as_f64().unwrap();
    assert!((imbalance - max / mean).abs() < 1e-9, "{p}");
    assert!(imbalance >= 1.0);
}

#[test]
fn one_process_of_two_threads_traces_both_trustees() {
    let dir = scratch("trace-local");
    let file = dir.join("sssp.json");
    let out = ok(&run(&[
        "sssp",
        "--scale",
        "10",
        "--roots",
        "2",
        "--threads",
        "2",
        "--json",
        "--trace",
        arg(&file),
    ]));
    let report: Value = serde_json::from_str(out.trim()).unwrap();
    check_profile(&report, 2);
    assert_eq!(report["profile"]["trace"]["dropped"], 0);
    let trace = read_trace(&file);
    assert_eq!(trace["otherData"]["ranks"], 1);
    assert_eq!(trace["otherData"]["dropped"], 0);
    assert_eq!(
        trace["otherData"]["intervals"],
        report["profile"]["trace"]["intervals"]
    );
    let t = tracks(&trace);
    for w in 0..2u64 {
        let (name, kinds) = &t[&(0, w)];
        assert_eq!(name, &format!("trustee {w}"));
        // Both trustees serve the other's requests, run their fibers and
        // meet in the kernel's collective rounds.
        for k in ["delegated", "fiber", "collective"] {
            assert!(
                kinds.contains(k),
                "trustee {w} has no {k} events: {kinds:?}"
            );
        }
    }
    // The searches, labelled, on a track of their own.
    let (name, kinds) = &t[&(0, 2)];
    assert_eq!(name, "regions of trustee 0");
    assert!(kinds.contains("region"));
    let regions: Vec<&str> = trace["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["cat"] == "region")
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(regions.len(), 2, "{regions:?}");
    assert!(
        regions[0].starts_with("sssp search 1 (root "),
        "{regions:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn two_ranks_trace_into_one_file_on_one_clock() {
    let dir = scratch("trace-rack");
    let file = dir.join("bfs.json");
    let out = ok(&run(&[
        "--ranks",
        "2",
        "bfs",
        "--scale",
        "10",
        "--roots",
        "2",
        "--threads",
        "1",
        "--json",
        "--trace",
        arg(&file),
    ]));
    let report: Value = serde_json::from_str(out.trim()).unwrap();
    check_profile(&report, 2);
    let trace = read_trace(&file);
    assert_eq!(trace["otherData"]["ranks"], 2);
    let clocks = trace["otherData"]["clocks"].as_array().unwrap();
    assert_eq!(clocks.len(), 2);
    assert_eq!(clocks[0]["error_ns"], 0);
    assert!(clocks[1]["error_ns"].as_u64().unwrap() > 0, "{clocks:?}");
    let names: BTreeSet<(u64, String)> = trace["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["name"] == "process_name")
        .map(|e| {
            let n = e["args"]["name"].as_str().unwrap().to_string();
            (e["pid"].as_u64().unwrap(), n)
        })
        .collect();
    assert_eq!(
        names,
        [(0, "rank 0".to_string()), (1, "rank 1".to_string())].into()
    );
    let t = tracks(&trace);
    // Trustee 1 lives in rank 1's process: its events came from there.
    for (pid, w) in [(0u64, 0u64), (1, 1)] {
        let (name, kinds) = &t[&(pid, w)];
        assert_eq!(name, &format!("trustee {w}"));
        for k in ["delegated", "fiber", "collective"] {
            assert!(
                kinds.contains(k),
                "trustee {w} has no {k} events: {kinds:?}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn text_reports_end_with_the_imbalance_and_the_wall_time_and_whole_graph_kernels_profile_too() {
    // The imbalance line, then only the wall-time accounting.
    let out = ok(&run(&[
        "bfs",
        "--scale",
        "10",
        "--roots",
        "2",
        "--threads",
        "2",
    ]));
    let lines: Vec<&str> = out.lines().collect();
    let [.., imbalance, wall] = lines[..] else {
        panic!("{out}")
    };
    assert!(
        imbalance.starts_with("trustee imbalance ") && imbalance.contains("% busy"),
        "{out}"
    );
    assert!(wall.starts_with("wall "), "{out}");
    let out = ok(&run(&["cc", "--scale", "10", "--threads", "2"]));
    assert!(out.contains("trustee imbalance "), "{out}");
    let out = ok(&run(&["cc", "--scale", "10", "--threads", "2", "--json"]));
    let report: Value = serde_json::from_str(out.trim()).unwrap();
    check_profile(&report, 2);
    // Without --trace busy is not split, and no trace is reported.
    let t0 = &report["profile"]["trustees"][0];
    assert!(t0.get("delegated_s").is_none(), "{t0}");
    assert!(report["profile"].get("trace").is_none());
}

#[test]
fn a_trace_file_in_a_missing_directory_is_refused_before_any_work() {
    let err = fails(&run(&[
        "tc",
        "--scale",
        "10",
        "--trace",
        "/nonexistent-dir-for-gossamer/t.json",
    ]));
    assert!(err.contains("--trace"), "{err}");
    assert!(err.contains("does not exist"), "{err}");
}

#[test]
fn a_full_trace_buffer_drops_and_says_so_in_the_file_and_the_report() {
    let dir = scratch("trace-full");
    let file = dir.join("sssp.json");
    let cap = 64;
    let o = run_env(
        &[
            "sssp",
            "--scale",
            "10",
            "--roots",
            "2",
            "--threads",
            "2",
            "--json",
            "--trace",
            arg(&file),
        ],
        &[("GOSSAMER_GRAPH_TRACE_EVENTS", &cap.to_string())],
    );
    let out = ok(&o);
    let report: Value = serde_json::from_str(out.trim()).unwrap();
    let summary = &report["profile"]["trace"];
    assert_eq!(summary["buffer_intervals"], cap);
    assert_eq!(summary["intervals"], 2 * cap, "{summary}");
    let dropped = summary["dropped"].as_u64().unwrap();
    assert!(dropped > 0, "{summary}");
    // The counters do not depend on the buffer: the profile is whole.
    check_profile(&report, 2);
    let trace = read_trace(&file);
    assert_eq!(trace["otherData"]["dropped"], dropped);
    assert_eq!(trace["otherData"]["buffer_intervals_per_trustee"], cap);
    let events = trace["traceEvents"].as_array().unwrap();
    let mut marked = 0;
    for w in 0..2u64 {
        let on = |e: &&Value| e["pid"] == 0 && e["tid"] == w;
        let kept = events
            .iter()
            .filter(on)
            .filter(|e| e["cat"] == "activity")
            .count();
        assert_eq!(kept, cap, "trustee {w}");
        let full: Vec<&Value> = events
            .iter()
            .filter(on)
            .filter(|e| e["ph"] == "i")
            .collect();
        assert_eq!(full.len(), 1, "trustee {w}: {full:?}");
        marked += full[0]["args"]["dropped"].as_u64().unwrap();
    }
    assert_eq!(marked, dropped);
    let t = tracks(&trace);
    assert!(t[&(0, 0)].1.contains("buffer full"));
    let err = stderr(&o);
    assert!(
        err.contains(&format!("{dropped} dropped")),
        "the run says what it dropped: {err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
