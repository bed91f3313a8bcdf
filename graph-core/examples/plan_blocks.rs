//! Prints the block table that [`graph_core::balance::deal`] picks for a
//! blocks partition of a graph file, given each trustee's busy seconds in an
//! earlier run (the `profile.trustees[].busy_s` of its `--json`; they only
//! have to show an imbalance), with each block's cost its count of edge
//! endpoints plus [`graph_core::balance::VERTEX_COST`] per live vertex, and
//! its bytes those of its rows (12 bytes per endpoint: id and weight) and 16
//! bytes of state per vertex.
//!
//! ```text
//! cargo run --release -p graph-core --example plan_blocks -- [--bfs] FILE RANKS THREADS BUSY...
//! ```
//!
//! With `--bfs` each block's cost is BFS's, its live vertices and a
//! quarter per isolated id ([`graph_core::balance::bfs_block_cost`]), and
//! its bytes 4 per endpoint.
//!
//! The table goes to stdout as `gossamer-graph ... --partition blocks
//! --block-table` takes it; the plan (moves, bytes, predicted imbalance) to
//! stderr. The thresholds are the defaults of
//! [`graph_core::balance::BalanceConfig`], with searches of a second and
//! no rebuild to repay.

use graph_core::balance::{apply, bfs_block_cost, block_cost, deal, BalanceConfig};
use graph_core::io::file;
use graph_core::{Partition, PartitionKind};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let bfs = args.first().is_some_and(|a| a == "--bfs");
    if bfs {
        args.remove(0);
    }
    let usage = "usage: plan_blocks [--bfs] FILE RANKS THREADS BUSY...";
    let (path, ranks, threads) = match args.as_slice() {
        [p, r, t, ..] => (p, r.parse::<u32>()?, t.parse::<u32>()?),
        _ => return Err(usage.into()),
    };
    let busy: Vec<f64> = args[3..]
        .iter()
        .map(|b| b.parse())
        .collect::<Result<_, _>>()?;
    let g = file::open(path)?;
    let n = g.header().num_vertices;
    let mut p = Partition::new(PartitionKind::Blocks, n, ranks, threads)?;
    let nb = p.num_blocks() as usize;
    let mut degree = vec![0u32; n as usize];
    for e in g.edges() {
        degree[e.u as usize] += 1;
        degree[e.v as usize] += 1;
    }
    let (mut entries, mut live) = (vec![0u64; nb], vec![0u64; nb]);
    for (v, &d) in degree.iter().enumerate() {
        let b = p.block_of(v as u64) as usize;
        entries[b] += u64::from(d);
        live[b] += u64::from(d > 0);
    }
    let cfg = BalanceConfig::default();
    let cost = if bfs {
        let ids: Vec<u64> = (0..nb as u32)
            .map(|b| p.block_range(b).end - p.block_range(b).start)
            .collect();
        bfs_block_cost(&live, &ids)
    } else {
        block_cost(&entries, &live, cfg.vertex_cost)
    };
    let per_entry = if bfs { 4 } else { 12 };
    let bytes: Vec<u64> = (0..nb as u32)
        .map(|b| {
            let r = p.block_range(b);
            per_entry * entries[b as usize] + 16 * (r.end - r.start)
        })
        .collect();
    // Searches of a second, no rebuild to repay: the table as the
    // between-searches balancer would deal it.
    let moves = deal(&p, &busy, &cost, &bytes, 1.0, &cfg);
    apply(&mut p, &moves)?;
    eprintln!(
        "{} moves, {} bytes (predicted copy {:.4} s), imbalance {:.3} -> {:.3} (predicted)",
        moves.moves.len(),
        moves.bytes,
        moves.copy_s,
        moves.predicted_before,
        moves.predicted_after
    );
    let table: Vec<String> = p.block_table().iter().map(|t| t.to_string()).collect();
    println!("{}", table.join(","));
    Ok(())
}
