//! Graph500 reference vectors (SCALE 10 and 12) through the edge list, the
//! CSR under several partitions, and the graph file.
//!
//! Vectors come from `$GRAPH500_VECTORS` or the bundled `graph-core/vectors`.

use std::collections::HashMap;
use std::path::PathBuf;

use graph_core::io::file;
use graph_core::{
    build_rank, build_whole, EdgeList, Graph500Params, PackedEdge, Partition, PartitionKind,
};

fn vectors_dir() -> PathBuf {
    let dir = match std::env::var_os("GRAPH500_VECTORS") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(graph_core::io::vectors::Vectors::BUNDLED),
    };
    assert!(
        dir.join("scale10.edges").is_file(),
        "Graph500 reference vectors not found in {}: set GRAPH500_VECTORS to the folder holding scale10.edges",
        dir.display()
    );
    dir
}

/// Loads `scaleS.edges` (u64 src, u64 dst) + `scaleS.weights` (f32).
fn load(scale: u32) -> EdgeList<'static> {
    let dir = vectors_dir();
    let edges = std::fs::read(dir.join(format!("scale{scale}.edges"))).unwrap();
    let weights = std::fs::read(dir.join(format!("scale{scale}.weights"))).unwrap();
    assert_eq!(edges.len() % 16, 0);
    assert_eq!(
        edges.len() / 16,
        weights.len() / 4,
        "edges and weights disagree"
    );
    let mut list = EdgeList::zeroed(Graph500Params::reference(scale)).unwrap();
    assert_eq!(list.num_edges() as usize, edges.len() / 16);
    for ((out, e), w) in list
        .edges_mut()
        .iter_mut()
        .zip(edges.chunks_exact(16))
        .zip(weights.chunks_exact(4))
    {
        let u = u64::from_le_bytes(e[0..8].try_into().unwrap());
        let v = u64::from_le_bytes(e[8..16].try_into().unwrap());
        let w = f32::from_le_bytes(w.try_into().unwrap());
        *out = PackedEdge::from_wide(u, v, w);
    }
    list.validate().unwrap();
    list
}

/// The straightforward reference: HashMap vertex -> sorted (neighbour, weight bits).
fn reference_lists(list: &EdgeList<'_>) -> HashMap<u64, Vec<(u32, u32)>> {
    let mut m: HashMap<u64, Vec<(u32, u32)>> = HashMap::new();
    for e in list.edges() {
        if e.u == e.v {
            continue;
        }
        m.entry(e.u.into()).or_default().push((e.v, e.w.to_bits()));
        m.entry(e.v.into()).or_default().push((e.u, e.w.to_bits()));
    }
    for l in m.values_mut() {
        l.sort_unstable();
    }
    m
}

fn check_partitions(scale: u32, self_loops: u64, touched: usize, shapes: &[(u32, u32)]) {
    let list = load(scale);
    let non_loops = list.count_non_loops();
    assert_eq!(list.num_edges() - non_loops, self_loops);
    let reference = reference_lists(&list);
    assert_eq!(reference.len(), touched, "vertices with a non-loop edge");
    for kind in [PartitionKind::Block, PartitionKind::Cyclic] {
        for &(ranks, threads) in shapes {
            let p = Partition::new(kind, list.num_vertices(), ranks, threads).unwrap();
            let mut degree_sum = 0;
            let mut seen = 0u64;
            for rank in 0..ranks {
                let shards = build_rank(&list, &p, rank).unwrap();
                assert_eq!(shards.len(), threads as usize);
                for s in &shards {
                    assert_eq!(p.rank_of_trustee(s.trustee()), rank);
                    degree_sum += s.num_entries();
                    for (local, gid) in s.vertices() {
                        seen += 1;
                        assert_eq!(p.owner(gid).local, local);
                        let mut got: Vec<(u32, u32)> =
                            s.neighbors(local).map(|(v, w)| (v, w.to_bits())).collect();
                        got.sort_unstable();
                        let want = reference.get(&gid).map_or(&[][..], |l| &l[..]);
                        assert_eq!(got, want, "{kind:?} {ranks}x{threads}: vertex {gid}");
                        assert_eq!(s.degree(local), want.len() as u64);
                    }
                }
            }
            assert_eq!(seen, list.num_vertices());
            assert_eq!(degree_sum, 2 * non_loops, "{kind:?} {ranks}x{threads}");
        }
    }
}

#[test]
fn scale10_shards_match_reference_lists() {
    // 1, 2, 3 (one rank), 4 (2 x 2) and 3 (three ranks) trustees.
    check_partitions(10, 144, 899, &[(1, 1), (1, 2), (1, 3), (2, 2), (3, 1)]);
}

#[test]
fn scale12_shards_match_reference_lists() {
    check_partitions(12, 208, 3353, &[(1, 1), (2, 2), (1, 3)]);
}

/// Graph500's TEPS numerator: over every vertex `u` reached from `root`,
/// the whole CSR's entries `v <= u` (duplicates included, no self-loops).
fn teps_edges(list: &EdgeList<'_>, root: u64) -> (u64, u64) {
    let g = build_whole(list).unwrap();
    let mut seen = vec![false; g.num_local_vertices() as usize];
    let mut queue = std::collections::VecDeque::from([root]);
    seen[root as usize] = true;
    let (mut reached, mut nedge) = (0, 0);
    while let Some(u) = queue.pop_front() {
        reached += 1;
        for (v, _) in g.neighbors(u) {
            if u64::from(v) <= u {
                nedge += 1;
            }
            if !seen[v as usize] {
                seen[v as usize] = true;
                queue.push_back(v.into());
            }
        }
    }
    (reached, nedge)
}

#[test]
fn teps_edge_counts_match_the_readme() {
    let l10 = load(10);
    assert_eq!(teps_edges(&l10, 458), (897, 16239));
    assert_eq!(teps_edges(&l10, 966), (897, 16239));
    let l12 = load(12);
    assert_eq!(teps_edges(&l12, 1834), (3351, 65327));
}

#[test]
fn file_round_trip_equals_input() {
    let list = load(12);
    let roots: Vec<u64> = std::fs::read_to_string(vectors_dir().join("scale12.roots"))
        .unwrap()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    assert_eq!(roots.len(), 64);
    let path = std::env::temp_dir().join(format!("gc-vectors-{}.ggraph", std::process::id()));
    file::write_with_roots(&path, &list, &roots).unwrap();
    let meta = std::fs::metadata(&path).unwrap();
    assert_eq!(meta.len(), 1024 + 12 * list.num_edges());
    let g = file::open(&path).unwrap();
    assert_eq!(g.edge_list(), list);
    assert!(
        g.edge_list().is_borrowed(),
        "mapped file must be a zero-copy view"
    );
    assert_eq!(g.roots(), &roots[..]);
    assert_eq!(g.header().params, Some(Graph500Params::reference(12)));
    let whole_a = build_whole(&list).unwrap();
    let whole_b = build_whole(&g.edge_list()).unwrap();
    assert_eq!(whole_a, whole_b);
    drop(g);
    std::fs::remove_file(&path).unwrap();
}
