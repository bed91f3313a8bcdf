//! `gossamer-graph cc` and `gossamer-graph pagerank` on the SCALE 10 reference
//! vectors' graph (generated, byte-identical to them): the reported numbers
//! match the library's sequential references, dumps have the documented
//! format, and bad settings are refused.

mod common;

use common::*;

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out.trim()).expect("one JSON object")
}

fn vectors_list() -> graph_core::EdgeList<'static> {
    let edges = std::fs::read(vector("scale10.edges")).unwrap();
    let mut list = graph_core::EdgeList::zeroed(graph_core::Graph500Params::reference(10)).unwrap();
    for (out, e) in list.edges_mut().iter_mut().zip(edges.chunks_exact(16)) {
        let u = u64::from_le_bytes(e[0..8].try_into().unwrap());
        let v = u64::from_le_bytes(e[8..16].try_into().unwrap());
        *out = graph_core::PackedEdge::from_wide(u, v, 1.0);
    }
    list
}

#[test]
fn cc_matches_union_find_and_dumps_labels() {
    let dir = scratch("cli_cc");
    let dump = dir.join("labels");
    let out = json(&ok(&run(&[
        "cc",
        "--scale",
        "10",
        "--threads",
        "2",
        "--json",
        "--dump-labels",
        arg(&dump),
    ])));
    let want = components::cc_sequential(&vectors_list());
    let components = want
        .iter()
        .enumerate()
        .filter(|&(v, &l)| l == v as u64)
        .count();
    assert_eq!(out["kernel"], "cc");
    assert_eq!(out["components"], components as u64);
    assert_eq!(out["validated"], true);
    let bytes = std::fs::read(&dump).unwrap();
    let labels: Vec<u64> = bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(labels, want);
    let human = ok(&run(&["cc", "--scale", "10", "--threads", "2"]));
    assert!(
        human.contains(&format!("{components} components")),
        "{human}"
    );
}

#[test]
fn pagerank_matches_the_sequential_reference() {
    let out = json(&ok(&run(&[
        "pagerank",
        "--scale",
        "10",
        "--threads",
        "2",
        "--json",
    ])));
    let seq = pagerank::pagerank_sequential(&vectors_list(), &Default::default()).unwrap();
    assert_eq!(out["kernel"], "pagerank");
    assert_eq!(out["iterations"], seq.iterations);
    assert_eq!(out["validated"], true);
    let best = (0..seq.scores.len())
        .max_by(|&a, &b| seq.scores[a].total_cmp(&seq.scores[b]))
        .unwrap();
    assert_eq!(out["top"][0][0], best as u64);
    let fixed = json(&ok(&run(&[
        "pagerank",
        "--scale",
        "10",
        "--threads",
        "2",
        "--json",
        "--tolerance",
        "0",
        "--max-iterations",
        "3",
    ])));
    assert_eq!(fixed["iterations"], 3);
}

#[test]
fn pagerank_refuses_bad_settings_before_generating() {
    let err = fails(&run(&["pagerank", "--scale", "10", "--damping", "1.5"]));
    assert!(err.contains("damping = 1.5"), "{err}");
    let err = fails(&run(&[
        "pagerank",
        "--scale",
        "10",
        "--max-iterations",
        "0",
    ]));
    assert!(err.contains("max_iterations = 0"), "{err}");
}

#[test]
fn both_kernels_run_across_two_ranks_unchanged() {
    // Two processes (shared-memory transport): the trustees of the other rank
    // are reached through the same trusts; the answers are verified in-process.
    let want = components::cc_sequential(&vectors_list());
    let components = want
        .iter()
        .enumerate()
        .filter(|&(v, &l)| l == v as u64)
        .count();
    let out = json(&ok(&run(&[
        "--ranks",
        "2",
        "cc",
        "--scale",
        "10",
        "--threads",
        "2",
        "--json",
    ])));
    assert_eq!(
        (out["ranks"].clone(), out["validated"].clone()),
        (2.into(), true.into())
    );
    assert_eq!(out["components"], components as u64);
    let seq = pagerank::pagerank_sequential(&vectors_list(), &Default::default()).unwrap();
    let out = json(&ok(&run(&[
        "--ranks",
        "2",
        "pagerank",
        "--scale",
        "10",
        "--threads",
        "2",
        "--json",
    ])));
    assert_eq!(
        (out["ranks"].clone(), out["validated"].clone()),
        (2.into(), true.into())
    );
    assert_eq!(out["iterations"], seq.iterations);
}
