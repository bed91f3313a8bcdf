//! graph-core's count over a whole graph's rows (`verify_tc_rows`, what
//! `gossamer-graph tc` runs from a built file) against the list's count and
//! the kernel on the Graph500 SCALE 10 and 12 graphs: the same count, a
//! count one off or a damaged row refused.

use graph_core::io::vectors::Vectors;
use graph_core::sharded::ShardedGraph;
use graph_core::validate::{tc_rows, tc_sequential, verify_tc_rows};
use graph_core::PartitionKind;

#[test]
fn the_rows_count_is_the_lists_on_graph500_graphs() {
    let vectors = Vectors::bundled().unwrap_or_else(|e| panic!("{e}"));
    for scale in [10, 12] {
        let list = vectors.edge_list(scale).unwrap();
        // The records as rows: input order, repeats and self-loops kept.
        let mut rows = vec![Vec::new(); list.num_vertices() as usize];
        for e in list.edges() {
            rows[e.u as usize].push(e.v);
            if e.u != e.v {
                rows[e.v as usize].push(e.u);
            }
        }
        let want = tc_sequential(&list).unwrap();
        assert!(want > 1000, "scale {scale}: {want}");
        assert_eq!(tc_rows(&mut rows), Ok(want), "scale {scale}");
        let l = list.clone();
        let out = gossamer::main(2, move || {
            let g = ShardedGraph::build(&l, PartitionKind::Block).unwrap();
            tc::tc(&g, &Default::default()).unwrap()
        });
        assert_eq!(verify_tc_rows(out.triangles, &mut rows), Ok(want));
        for bad in [want - 1, want + 1] {
            assert!(verify_tc_rows(bad, &mut rows)
                .unwrap_err()
                .contains(&format!("has {want}")));
        }
        // Damaged rows: an edge of a triangle gone (from both its rows)
        // changes the count.
        let mut damaged = rows.clone();
        let (a, b) = list
            .edges()
            .iter()
            .map(|e| (e.u, e.v))
            .find(|&(u, v)| {
                u != v
                    && rows[u as usize]
                        .iter()
                        .any(|w| rows[v as usize].contains(w))
            })
            .unwrap();
        damaged[a as usize].retain(|&x| x != b);
        damaged[b as usize].retain(|&x| x != a);
        assert!(verify_tc_rows(want, &mut damaged).is_err(), "scale {scale}");
    }
}
