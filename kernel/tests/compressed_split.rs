//! SSSP's split with its targets taken out of the shard and compressed
//! ([`graph_kernel::adjacency::Adjacency::light_heavy_compressed`]): every
//! position's row reads back ([`graph_kernel::LightHeavy::read_row`]) as the plain split
//! in the shard has it (targets and weights, bit for bit, in the same
//! order), and the shard reads every entry back for validation
//! ([`graph_core::Shard::row_ids`], parallel ones included, beside its
//! weights) as the plain split leaves them; for a graph built in memory
//! and one mapped from a built file, 1-3 trustees, block and cyclic.

mod common;

use common::{lcg, BuiltFile, From, Looked};
use graph_core::construct::LocalSource;
use graph_core::io::built::Weights;
use graph_core::{EdgeList, PackedEdge, PartitionKind};
use graph_kernel::{run, Prepare, RowsFormat};

const DELTA: f32 = 0.3;

/// Hubs with long rows, far and near neighbours, parallel edges of equal
/// and different weights, a self-loop.
fn graph() -> EdgeList<'static> {
    let mut edges = Vec::new();
    let mut next = lcg(0x9e37_79b9_7f4a_7c15);
    let weight = |r: u64| [0.125f32, 0.25, 0.3, 0.5, 0.75, 1.0][(r % 6) as usize];
    for i in 0..12_000u32 {
        let x = next();
        let u = if i % 4 == 0 {
            (x >> 61) as u32
        } else {
            ((x >> 33) % 2000) as u32
        };
        let v = ((x >> 13) % 2000) as u32;
        edges.push(PackedEdge::new(u, v, weight(x >> 40)));
        if x.is_multiple_of(7) {
            edges.push(PackedEdge::new(v, u, weight(x >> 45))); // parallel
        }
    }
    edges.push(PackedEdge::new(9, 9, 1.0));
    EdgeList::from_edges(2000, edges).unwrap()
}

/// Per trustee: every position's row (flat id, weight bits), and every
/// local vertex's entries as the shard reads them back (stored id,
/// weight bits).
type Seen = (Vec<Vec<(u32, u32)>>, Vec<Vec<(u32, u32)>>);

fn look(from: From, kind: PartitionKind, threads: usize, rows: RowsFormat) -> Vec<Seen> {
    gossamer::main(threads, move || {
        let g = from.open(kind);
        g.mark_rows_rewritten("this test");
        graph_kernel::prepare(&g, Prepare::Renumbering);
        let init = move |s: &mut graph_kernel::Setup<'_>, _: Option<Looked<Seen>>| {
            let a = s.adjacency().clone();
            let mut lh = a.light_heavy_with(s.shard_mut(), DELTA, true, rows);
            let compressed = rows == RowsFormat::Compressed;
            assert_eq!(lh.compressed(), compressed);
            let shard = s.shard();
            assert_eq!(shard.rows_taken(), compressed);
            let bits = |t: &[u32], w: &[f32]| -> Vec<(u32, u32)> {
                t.iter().zip(w).map(|(&t, w)| (t, w.to_bits())).collect()
            };
            let by_position = (0..a.num_own())
                .map(|v| {
                    let (t, w) = lh.read_row(shard, v);
                    bits(t, w)
                })
                .collect();
            let mut buf = Vec::new();
            let entries = (0..shard.num_local_vertices())
                .map(|l| {
                    let w = &shard.weights()[shard.entry_range(l)];
                    bits(shard.row_ids(l, &mut buf), w)
                })
                .collect();
            Looked(Some((by_position, entries)))
        };
        run(&g, init, |k| {
            k.with_returning(|l| l.state().0.take().expect("set by init"))
        })
    })
}

#[test]
fn compressed_split_reads_back_as_the_plain_split() {
    let list = graph();
    let file = BuiltFile::write("compressed-split", &list);
    let source = LocalSource::publish_list(list);
    for threads in [1, 2, 3] {
        for kind in [PartitionKind::Block, PartitionKind::Cyclic] {
            let mapped = From::File(file.path().into(), Weights::Stored);
            for from in [From::Built(source), mapped] {
                let what = format!(
                    "{threads} trustees, {kind:?}, from a file: {}",
                    from.is_file()
                );
                let plain = look(from.clone(), kind, threads, RowsFormat::Plain);
                let packed = look(from, kind, threads, RowsFormat::Compressed);
                assert_eq!(plain.len(), threads);
                let longest = plain.iter().flat_map(|p| &p.0).map(Vec::len).max();
                assert!(longest > Some(200), "{what}: hubs' rows");
                assert!(plain == packed, "{what}: the rows differ");
            }
        }
    }
}
