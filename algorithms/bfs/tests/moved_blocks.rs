//! Searches after blocks moved in memory ([`ShardedGraph::move_blocks`])
//! or as messages (the move across ranks, [`ShardedGraph::ship_blocks`],
//! here in one process) answer as before: SSSP distances bit for bit, BFS
//! levels as the Graph500 oracle's, both validated on the moved shards;
//! also after SSSP renamed the rows in place and BFS took them compressed.

use bfs::{bfs, BfsConfig};
use graph_core::construct::{LocalSource, Unweighted};
use graph_core::io::vectors::Vectors;
use graph_core::sharded::ShardedGraph;
use graph_core::validate::{validate_bfs_sharded, validate_sssp_sharded};
use graph_core::{Partition, PartitionKind};
use graph_kernel::RowsFormat;
use sssp::{sssp, SsspConfig};

const SCALE: u32 = 12;

/// The tables moved through: blocks alternating, then all but the last
/// block on trustee 0, then back to contiguous ranges.
fn tables(p0: Partition) -> Vec<Partition> {
    let (mut alt, mut heavy) = (p0, p0);
    for b in 0..p0.num_blocks() {
        alt.move_block(b, b % 2).unwrap();
        heavy
            .move_block(b, u32::from(b + 1 == p0.num_blocks()))
            .unwrap();
    }
    vec![alt, heavy, p0]
}

/// Moves `g`'s blocks to `p`'s owners: in memory, or as messages.
fn move_to(g: &mut ShardedGraph, p: Partition, ship: bool) -> graph_core::construct::Moved {
    if ship {
        g.ship_blocks(p).unwrap()
    } else {
        g.move_blocks(p).unwrap()
    }
}

#[test]
fn searches_after_moves_answer_as_before() {
    check(false);
}

#[test]
fn searches_after_shipped_moves_answer_as_before() {
    check(true);
}

fn check(ship: bool) {
    let v = Vectors::bundled().unwrap_or_else(|e| panic!("{e}"));
    let list = v.edge_list(SCALE).unwrap();
    let n = list.num_vertices();
    let roots = v.roots(SCALE).unwrap()[..4].to_vec();
    let oracles: Vec<Vec<i64>> = roots.iter().map(|&r| v.levels(SCALE, r).unwrap()).collect();
    let source = LocalSource::publish_list(list);
    gossamer::main(2, move || {
        let p0 = Partition::new(PartitionKind::Blocks, n, 1, 2).unwrap();
        // Weighted: SSSP renames the rows in place, BFS reads them.
        let (mut g, _) = ShardedGraph::build_from_placed(source, p0).unwrap();
        let cfg = SsspConfig {
            in_place: true,
            ..SsspConfig::default()
        };
        let first: Vec<Vec<f32>> = roots
            .iter()
            .map(|&r| sssp(&g, r, &cfg).unwrap().dist)
            .collect();
        for p in tables(p0) {
            let moved = move_to(&mut g, p, ship);
            assert!(moved.blocks > 0);
            assert_eq!(g.partition(), &p);
            for (k, &r) in roots.iter().enumerate() {
                let s = sssp(&g, r, &cfg).unwrap();
                let same = s
                    .dist
                    .iter()
                    .zip(&first[k])
                    .all(|(a, b)| a.to_bits() == b.to_bits());
                assert!(same, "root {r}: distances differ after the move");
                validate_sssp_sharded(&g, r, &s.parent, &s.dist).unwrap();
                let b = bfs(&g, r, &BfsConfig::default()).unwrap();
                assert_eq!(b.level, oracles[k], "root {r}: levels after the move");
                validate_bfs_sharded(&g, r, &b.parent, Some(&b.level)).unwrap();
            }
        }
        // Unweighted, BFS's compressed rows taken from the shards.
        let (mut u, _) = ShardedGraph::build_from_placed(Unweighted(source), p0).unwrap();
        let packed = BfsConfig {
            rows: RowsFormat::Compressed,
            ..BfsConfig::default()
        };
        for p in tables(p0) {
            let b = bfs(&u, roots[0], &packed).unwrap();
            assert_eq!(b.level, oracles[0]);
            move_to(&mut u, p, ship);
            for (k, &r) in roots.iter().enumerate() {
                for cfg in [&BfsConfig::default(), &packed] {
                    let b = bfs(&u, r, cfg).unwrap();
                    assert_eq!(b.level, oracles[k], "root {r}: levels after the move");
                    validate_bfs_sharded(&u, r, &b.parent, Some(&b.level)).unwrap();
                }
            }
        }
    });
}
