//! Prints the block table that [`graph_core::balance::plan`] picks for a
//! blocks partition of a graph file, from each trustee's busy seconds in an
//! earlier run (the `profile.trustees[].busy_s` of its `--json`), with each
//! block's cost its count of edge endpoints and its bytes those of its rows
//! (12 bytes per endpoint: id and weight) and 16 bytes of state per vertex.
//!
//! ```text
//! cargo run --release -p graph-core --example plan_blocks -- FILE RANKS THREADS BUSY...
//! ```
//!
//! The table goes to stdout as `gossamer-graph ... --partition blocks
//! --block-table` takes it; the plan (moves, bytes, predicted imbalance) to
//! stderr. The copy rate and searches ahead are the defaults of
//! [`graph_core::balance::BalanceConfig`].

use graph_core::balance::{apply, plan, BalanceConfig};
use graph_core::io::file;
use graph_core::{Partition, PartitionKind};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: plan_blocks FILE RANKS THREADS BUSY...";
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
    let mut cost = vec![0.0f64; nb];
    for e in g.edges() {
        cost[p.block_of(u64::from(e.u)) as usize] += 1.0;
        cost[p.block_of(u64::from(e.v)) as usize] += 1.0;
    }
    let bytes: Vec<u64> = (0..nb as u32)
        .map(|b| {
            let r = p.block_range(b);
            12 * cost[b as usize] as u64 + 16 * (r.end - r.start)
        })
        .collect();
    let moves = plan(&p, &busy, &cost, &bytes, &BalanceConfig::default());
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
