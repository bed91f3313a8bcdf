//! Measurement scaffolding (h35-flat): writes a graph file whose vertex ids
//! are the input's vertices ranked by decreasing degree (ties by id), roots
//! renamed with them. `by_degree IN.ggraph OUT.ggraph [K]`: with K, the
//! ranks are dealt round-robin into K runs of n/K ids (rank r to run r % K,
//! at r / K within it), each run by decreasing degree.
use graph_core::io::file;
use graph_core::{EdgeList, PackedEdge};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let g = file::open(&a[1]).expect("open");
    let n = g.edge_list().num_vertices() as usize;
    let mut deg = vec![0u64; n];
    for e in g.edges() {
        if e.u != e.v {
            deg[e.u as usize] += 1;
            deg[e.v as usize] += 1;
        }
    }
    let mut by: Vec<u32> = (0..n as u32).collect();
    by.sort_by_key(|&v| (std::cmp::Reverse(deg[v as usize]), v));
    let k: usize = a.get(3).map_or(1, |k| k.parse().expect("K"));
    assert!(n.is_multiple_of(k), "K must divide the vertex count");
    let mut rank = vec![0u32; n];
    for (r, &v) in by.iter().enumerate() {
        rank[v as usize] = ((r % k) * (n / k) + r / k) as u32;
    }
    let edges: Vec<PackedEdge> = g
        .edges()
        .iter()
        .map(|e| PackedEdge::new(rank[e.u as usize], rank[e.v as usize], e.w))
        .collect();
    let roots: Vec<u64> = g
        .roots()
        .iter()
        .map(|&r| u64::from(rank[r as usize]))
        .collect();
    let list = EdgeList::from_edges(n as u64, edges).expect("list");
    file::write_with_roots(&a[2], &list, &roots).expect("write");
    // Under a block partition into K trustees, each run is one trustee's
    // vertices by decreasing degree: the kernels' positions are its local
    // order, so flat id = file id wherever the runs start at multiples of 64.
    let mut by_file = vec![0u64; n];
    for (v, &r) in rank.iter().enumerate() {
        by_file[r as usize] = deg[v];
    }
    for run in by_file.chunks(n / k) {
        let p = graph_core::csr::positions(run.len() as u32, |l| run[l as usize]);
        assert!(p.iter().enumerate().all(|(l, &x)| x as usize == l));
    }
    let aligned = (n / k).is_multiple_of(64);
    println!(
        "K={k}: each run's positions are its local order; runs start at multiples of 64: {aligned}"
    );
    let m: u64 = deg.iter().sum();
    // Where an equal-entries cut falls, for T = 2 and 4.
    for t in [2u64, 4] {
        let mut acc = 0u64;
        let mut cuts = Vec::new();
        let mut next = 1;
        for (r, &v) in by.iter().enumerate() {
            acc += deg[v as usize];
            if next < t && acc * t >= m * next {
                cuts.push(r + 1);
                next += 1;
            }
        }
        println!("T={t}: equal-entries cuts at ranks {cuts:?} of {n}");
    }
}
