//! Relabels a graph file so that vertex ids are sorted by degree, highest
//! first: a block partition then puts every hub on the first trustee (the
//! worst case of issue 29's balancing study, `results/balance/`).
//!
//! ```text
//! cargo run --release -p graph-core --example relabel_by_degree -- IN.ggraph OUT.ggraph
//! ```
//!
//! The records keep their order and weights; only their endpoint ids
//! change (vertex `v` of rank `r` in the degree order becomes `r`, ties by
//! the old id). The stored search roots are renumbered the same way, so a
//! search from the i-th stored root of either file reaches the same
//! vertices over the same edges. The output is read as a converted graph
//! (no Graph500 parameters), with the input's directed/weighted flags; a
//! file id map is not carried over (the new ids are the file's ids).

use graph_core::io::file;
use graph_core::{EdgeList, GraphMeta, PackedEdge};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, output] = args.as_slice() else {
        return Err("usage: relabel_by_degree IN.ggraph OUT.ggraph".into());
    };
    let g = file::open(input)?;
    let n = g.header().num_vertices as usize;
    let edges = g.edges();
    let mut degree = vec![0u64; n];
    for e in edges {
        degree[e.u as usize] += 1;
        degree[e.v as usize] += 1;
    }
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_by_key(|&v| (std::cmp::Reverse(degree[v as usize]), v));
    let mut new_id = vec![0u32; n];
    for (rank, &v) in order.iter().enumerate() {
        new_id[v as usize] = rank as u32;
    }
    let relabelled: Vec<PackedEdge> = edges
        .iter()
        .map(|e| PackedEdge::new(new_id[e.u as usize], new_id[e.v as usize], e.w))
        .collect();
    let roots: Vec<u64> = g
        .roots()
        .iter()
        .map(|&r| u64::from(new_id[r as usize]))
        .collect();
    let meta = GraphMeta {
        directed: g.meta().directed,
        weighted: g.meta().weighted,
        ..GraphMeta::default()
    };
    let list = EdgeList::from_edges(n as u64, relabelled)?;
    file::write_graph(output, &list, &roots, &meta)?;
    let top: u64 = order[..n / 16].iter().map(|&v| degree[v as usize]).sum();
    let all: u64 = degree.iter().sum();
    eprintln!(
        "{output}: {n} vertices, {} records, {} roots; the first 1/16 of the ids hold {:.1}% of the endpoints",
        list.num_edges(),
        roots.len(),
        100.0 * top as f64 / all.max(1) as f64
    );
    Ok(())
}
