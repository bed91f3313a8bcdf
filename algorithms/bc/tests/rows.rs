//! graph-core's verifier over a whole graph's rows (`verify_bc_rows`, what
//! `gossamer-graph bc` runs from a built file: a sequential Brandes that
//! reads the rows level by level, ascending) against this crate's list
//! reference and the kernel: the same scores within rounding on the
//! Graph500 SCALE 10 and 12 graphs (undirected, and as arcs), on a chain
//! of diamonds whose path counts pass `f64`'s range, and wrong scores or a
//! damaged row refused.

use bc::{bc, bc_sequential_as, verify_bc_as, TOLERANCE};
use graph_core::io::vectors::Vectors;
use graph_core::sharded::ShardedGraph;
use graph_core::validate::{bc_rows, verify_bc_rows};
use graph_core::{EdgeList, PackedEdge, PartitionKind};

/// Each record as the rows hold it, in input order: repeats kept, and
/// self-loops too (the rows' reader must ignore both).
fn raw_rows(list: &EdgeList<'_>, directed: bool) -> Vec<Vec<u32>> {
    let mut rows = vec![Vec::new(); list.num_vertices() as usize];
    for e in list.edges() {
        rows[e.u as usize].push(e.v);
        if !directed && e.u != e.v {
            rows[e.v as usize].push(e.u);
        }
    }
    rows
}

fn close(a: &[f64], b: &[f64], bound: f64, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}");
    for (v, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            (x - y).abs() <= bound,
            "{what}: vertex {v}: {x} against {y}"
        );
    }
}

#[test]
fn the_rows_reference_is_the_lists_on_graph500_graphs() {
    let vectors = Vectors::bundled().unwrap_or_else(|e| panic!("{e}"));
    for scale in [10, 12] {
        let list = vectors.edge_list(scale).unwrap();
        for directed in [false, true] {
            let what = format!("scale {scale}, directed {directed}");
            let mut rows = raw_rows(&list, directed);
            // The first 4 roots with an edge (an out-arc) to another vertex.
            let sources: Vec<u64> = (vectors.roots(scale).unwrap().iter().copied())
                .filter(|&r| rows[r as usize].iter().any(|&x| u64::from(x) != r))
                .take(4)
                .collect();
            assert_eq!(sources.len(), 4, "{what}");
            let want = bc_sequential_as(&list, directed, &sources).unwrap();
            let got = bc_rows(&sources, &mut rows).unwrap();
            close(&got, &want, 1e-12, &what);
            assert!(got.iter().filter(|&&x| x > 0.0 && x < 1.0).count() > 20);
            // The kernel's scores pass both verifiers.
            let (l, s) = (list.clone(), sources.clone());
            let out = gossamer::main(2, move || {
                let g = ShardedGraph::build_with(&l, PartitionKind::Block, directed).unwrap();
                bc(&g, &s, &Default::default()).unwrap()
            });
            let worst = verify_bc_rows(&sources, &out.scores, TOLERANCE, &mut rows)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert!(worst < 1e-12, "{what}: {worst:e}");
            verify_bc_as(&list, directed, &sources, &out.scores).unwrap();
            // One score nudged past the tolerance: refused by both.
            let v = (0..got.len())
                .find(|&v| got[v] > 0.0 && got[v] < 0.5 && !sources.contains(&(v as u64)))
                .unwrap();
            let mut nudged = out.scores.clone();
            nudged[v] += 10.0 * TOLERANCE;
            let e = verify_bc_rows(&sources, &nudged, TOLERANCE, &mut rows).unwrap_err();
            assert!(e.contains(&format!("vertex {v} ")), "{what}: {e}");
            assert!(verify_bc_as(&list, directed, &sources, &nudged).is_err());
            // Damaged rows: v's edges gone (it carried paths; now none).
            let mut damaged = rows.clone();
            damaged[v].clear();
            damaged
                .iter_mut()
                .for_each(|r| r.retain(|&x| x != v as u32));
            let e = verify_bc_rows(&sources, &out.scores, TOLERANCE, &mut damaged);
            assert!(e.is_err(), "{what}: a damaged row passed");
        }
    }
}

#[test]
fn the_rows_reference_counts_paths_past_f64s_range() {
    // A chain of K diamonds: 2^K shortest paths to the last vertex (see
    // deep.rs). The reference scales each level's counts; its scores are
    // the list reference's.
    const K: u32 = 1100;
    let mut edges = Vec::new();
    for i in 0..K {
        let (a, b, c, next) = (3 * i, 3 * i + 1, 3 * i + 2, 3 * i + 3);
        for (u, v) in [(a, b), (a, c), (b, next), (c, next)] {
            edges.push(PackedEdge::new(u, v, 1.0));
        }
    }
    let list = EdgeList::from_edges(u64::from(3 * K + 1), edges).unwrap();
    let mut rows = raw_rows(&list, false);
    let want = bc_sequential_as(&list, false, &[0, 7]).unwrap();
    let got = bc_rows(&[0, 7], &mut rows).unwrap();
    assert!(got.iter().all(|x| x.is_finite()));
    close(&got, &want, 1e-12, "diamonds");
    assert_eq!(
        verify_bc_rows(&[0, 7], &want, TOLERANCE, &mut rows).map(|w| w < 1e-12),
        Ok(true)
    );
}
