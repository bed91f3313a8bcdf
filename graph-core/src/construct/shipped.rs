//! Blocks moved between trustees that may live in different processes
//! ([`ShardedGraph::ship_blocks`], what [`ShardedGraph::move_blocks`] does
//! in a rack run): every trustee sends the rows of its vertices to their
//! owners under the new table as messages, in the build's two passes.
//!
//! 1. each trustee takes its shard out of its state (dropping every
//!    kernel state) and puts an empty shard of the new table in its place;
//! 2. **degrees**: for each of its old rows, the row's new local index and
//!    its degree (and in-degree, directed) to the row's new owner, 8 bytes
//!    a row; owners add them up, then allocate their rows exactly, as a
//!    build does after its pass 1;
//! 3. **entries**: each old row's entries, named back to global ids where
//!    a kernel renamed them, as the build's records (new local row, target,
//!    weight: 12 bytes) to the row's new owner, placed there at a cursor;
//! 4. each owner checks every row was filled and installs its shard.
//!
//! Each step ends with an all-reduce of "did it fail here?" (the build's
//! [`agree`]), so a failure anywhere ends the move on every trustee. A
//! rank that died mid-move is the runtime's business: gossamer's fate
//! sharing fails the whole run, naming the rank, within its heartbeat
//! timeout (docs/rack.md), instead of leaving the others waiting.
//!
//! Every row travels as a message, also the rows that keep their owner
//! (to the trustee itself, inline): each shard is laid out again under
//! the new table, as [`move_blocks`](ShardedGraph::move_blocks) in one
//! process lays it out. The rows of one old owner reach their new owner
//! in the order it sends them, so each row's entries keep their order.
//!
//! **Memory** per trustee at its peak: its old shard (until its entries
//! are sent) and its new one, plus its send buffers (at most 4 MiB in all,
//! [`send_batch`] records per destination); per rank the sum over its
//! trustees. No trustee ever holds another's rows beyond those buffers.

use std::time::Instant;

use gossamer::WorkerId;

use super::exchange::{
    agree, building, first_failure, place_entries, place_in_entries, send, send_batch, Entry,
};
use super::moved::{park, unpark, Moved, NEXT};
use super::passes::{allocate_rows, install_rows, placeholder};
use crate::csr::Shard;
use crate::partition::{Partition, PartitionKind};
use crate::sharded::{KernelError, ShardedGraph, TrusteeCtx, TrusteeState};

gossamer::pod_struct! {
    /// A row's degree on its way to its new owner: the row (its local
    /// index there) and how many entries it holds (added up there, so a
    /// degree above `u32::MAX` travels as several records).
    struct Degree { row: u32, degree: u32 }
}

/// What one trustee sent and wrote in a move.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
struct Sent {
    /// Bytes of the rows that changed trustee (as [`Moved::bytes`]).
    moved: u64,
    /// Bytes of its new shard's rows and offsets.
    written: u64,
    /// Bytes of the records it sent to trustees of other processes.
    shipped: u64,
}

impl ShardedGraph {
    /// [`move_blocks`](Self::move_blocks) through messages: every trustee
    /// sends its rows to their owners under `next` (see the module docs of
    /// `construct/shipped.rs`), so it works whichever processes the
    /// trustees live in; `move_blocks` calls it when a trustee lives in
    /// another rank. The shards after the move are those the in-memory
    /// move makes (rows stored as a fresh build stores them); every kernel
    /// state is dropped. Refused (changing nothing) when either partition
    /// is not a blocks one or they do not fit each other. Call from a
    /// fiber, not in delegated context.
    pub fn ship_blocks(&mut self, next: Partition) -> Result<Moved, KernelError> {
        let start = Instant::now();
        let old = *self.partition();
        check_fit(&old, &next)?;
        let (weighted, directed) = (self.is_weighted(), self.is_directed());
        let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let outcomes = self.on_trustees_with((next, id, weighted, directed), ship_on_trustee);
        let sent = first_failure(outcomes)?;
        let blocks = (0..old.num_blocks())
            .filter(|&b| old.block_owner(b) != next.block_owner(b))
            .count();
        self.set_moved(next);
        Ok(Moved {
            blocks,
            bytes: sent.iter().map(|s| s.moved).sum(),
            bytes_written: sent.iter().map(|s| s.written).sum(),
            bytes_shipped: sent.iter().map(|s| s.shipped).sum(),
            seconds: start.elapsed().as_secs_f64(),
        })
    }
}

/// `Ok` when `next` may follow `old` in a block move.
pub(super) fn check_fit(old: &Partition, next: &Partition) -> Result<(), KernelError> {
    if old.kind() != PartitionKind::Blocks
        || next.kind() != PartitionKind::Blocks
        || next.num_vertices() != old.num_vertices()
        || next.num_blocks() != old.num_blocks()
        || next.num_trustees() != old.num_trustees()
        || next.ranks() != old.ranks()
    {
        return Err(KernelError::Config(
            "blocks move only between two blocks partitions of the same vertices and trustees"
                .into(),
        ));
    }
    Ok(())
}

/// Pass 1 on a new owner: each listed row's degree added.
fn add_degrees(s: &mut TrusteeState, rows: &[Degree]) {
    let n = s.shard().num_local_vertices() as usize;
    let b = building(s);
    if b.offsets.is_empty() {
        b.offsets = crate::alloc::vec_or_exit(n + 1, 0, "CSR offsets");
    }
    for r in rows {
        match b.offsets.get_mut(r.row as usize + 1) {
            Some(d) => *d += u64::from(r.degree),
            None => b.stray += 1,
        }
    }
}

/// Pass 1 on a new owner of a directed graph: each listed row's in-degree
/// added.
fn add_in_degrees(s: &mut TrusteeState, rows: &[Degree]) {
    let n = s.shard().num_local_vertices() as usize;
    let b = building(s);
    if b.in_offsets.is_empty() {
        b.in_offsets = crate::alloc::vec_or_exit(n + 1, 0, "in-edge offsets");
    }
    for r in rows {
        match b.in_offsets.get_mut(r.row as usize + 1) {
            Some(d) => *d += u64::from(r.degree),
            None => b.stray += 1,
        }
    }
}

/// Queues `degree` for `row` (as several records above `u32::MAX`).
fn push_degree(buf: &mut Vec<Degree>, row: u32, mut degree: u64) {
    while degree > 0 {
        let d = degree.min(u64::from(u32::MAX));
        buf.push(Degree {
            row,
            degree: d as u32,
        });
        degree -= d;
    }
}

/// One trustee's part of a move (see the module docs).
fn ship_on_trustee(
    mut ctx: TrusteeCtx,
    (next, id, weighted, directed): (Partition, u64, bool, bool),
) -> Result<Sent, String> {
    let me = ctx.me;
    let old = ctx.partition;
    let w = old.num_trustees() as usize;
    // 1. The old shard out (in this process: the fiber runs on the
    // trustee's worker), an empty one of the new table in.
    ctx.local.apply(move |s| {
        park(id, me, s.take_shard());
        s.replace_shard(placeholder(next, me));
    });
    let shard: Shard = unpark(id, me).expect("parked by this trustee just above");
    agree(&mut ctx, None, "take out its shard")?;
    let remote: Vec<bool> = (0..w)
        .map(|t| gossamer::process_of(WorkerId(t)) != gossamer::process_of(WorkerId(me as usize)))
        .collect();
    let n = shard.num_local_vertices();
    // Each old row's new owner and local index.
    let dest = |l: u64| {
        let (t, nl) = next.locate(old.global(me, l));
        (t as usize, nl as u32)
    };
    let mut sent = Sent::default();
    let per_entry = if weighted { 8 } else { 4 };
    let batch = send_batch(w as u64);

    // 2. Degrees.
    let mut out: Vec<Vec<Degree>> = vec![Vec::new(); w];
    let mut out_in: Vec<Vec<Degree>> = vec![Vec::new(); if directed { w } else { 0 }];
    let mut records = vec![0u64; w];
    for l in 0..n {
        let (t, nl) = dest(l);
        let d = shard.degree(l);
        if t != me as usize {
            sent.moved += per_entry * d + 8;
        }
        let buf = &mut out[t];
        let before = buf.len();
        push_degree(buf, nl, d);
        records[t] += (buf.len() - before) as u64 * 8;
        if buf.len() >= batch {
            send(&ctx.peers[t], buf, add_degrees);
        }
        if directed {
            let buf = &mut out_in[t];
            let before = buf.len();
            push_degree(buf, nl, shard.in_degree(l));
            records[t] += (buf.len() - before) as u64 * 8;
            if buf.len() >= batch {
                send(&ctx.peers[t], buf, add_in_degrees);
            }
        }
    }
    for (t, buf) in out.iter_mut().enumerate() {
        send(&ctx.peers[t], buf, add_degrees);
    }
    for (t, buf) in out_in.iter_mut().enumerate() {
        send(&ctx.peers[t], buf, add_in_degrees);
    }
    drop((out, out_in));
    gossamer::wait_outstanding();
    agree(&mut ctx, None, "send the degrees")?;
    let allocated = ctx
        .local
        .apply_returning(move |s| allocate_rows(s, weighted, directed));
    agree(&mut ctx, allocated.err(), "allocate the moved shard")?;

    // 3. Entries, named back to global ids.
    let mut out: Vec<Vec<Entry>> = vec![Vec::new(); w];
    let mut row = Vec::new();
    let names = shard.renamed().cloned();
    for l in 0..n {
        let (t, nl) = dest(l);
        let ids = shard.row_ids(l, &mut row);
        let ws = if weighted {
            shard.adjacency(l).1
        } else {
            &[][..]
        };
        for (k, &x) in ids.iter().enumerate() {
            out[t].push(Entry {
                row: nl,
                target: names.as_ref().map_or(x, |m| m[x as usize]),
                weight: ws.get(k).copied().unwrap_or(1.0),
            });
            if out[t].len() >= batch {
                records[t] += 12 * out[t].len() as u64;
                send(&ctx.peers[t], &mut out[t], place_entries);
            }
        }
    }
    for (t, buf) in out.iter_mut().enumerate() {
        records[t] += 12 * buf.len() as u64;
        send(&ctx.peers[t], buf, place_entries);
    }
    if directed {
        for l in 0..n {
            let (t, nl) = dest(l);
            for &x in shard.in_neighbors(l) {
                out[t].push(Entry {
                    row: nl,
                    target: x,
                    weight: 0.0,
                });
                if out[t].len() >= batch {
                    records[t] += 12 * out[t].len() as u64;
                    send(&ctx.peers[t], &mut out[t], place_in_entries);
                }
            }
        }
        for (t, buf) in out.iter_mut().enumerate() {
            records[t] += 12 * buf.len() as u64;
            send(&ctx.peers[t], buf, place_in_entries);
        }
    }
    drop(out);
    gossamer::wait_outstanding();
    drop(shard);
    agree(&mut ctx, None, "send the moved rows")?;

    // 4. The new shard installed.
    let installed = ctx.local.apply_returning(move |s| {
        install_rows(s, weighted, directed)?;
        let sh = s.shard();
        Ok::<u64, String>(per_entry * sh.num_entries() + 8 * (sh.num_local_vertices() + 1))
    });
    agree(
        &mut ctx,
        installed.as_ref().err().cloned(),
        "install the moved shard",
    )?;
    sent.written = installed.expect("checked by agree");
    sent.shipped = (0..w).filter(|&t| remote[t]).map(|t| records[t]).sum();
    Ok(sent)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::construct::LocalSource;

    use super::super::skewed::list;

    /// Rows as sorted (target, weight bits) lists and sorted in-edges, by
    /// global vertex, with each trustee's offsets and slots.
    type Rows = (
        Vec<Vec<(u32, u32)>>,
        Vec<Vec<u32>>,
        Vec<(Vec<u64>, Vec<u32>)>,
    );

    fn rows(g: &ShardedGraph) -> Rows {
        let n = g.num_vertices() as usize;
        let (mut out, mut inn, mut layout) = (vec![Vec::new(); n], vec![Vec::new(); n], vec![]);
        for t in 0..g.num_trustees() {
            let sh = g.trustee(t).apply_returning(|s| s.shard().clone());
            assert_eq!(sh.partition(), g.partition());
            for l in 0..sh.num_local_vertices() {
                let v = sh.global_id(l) as usize;
                out[v] = sh.neighbors(l).map(|(x, w)| (x, w.to_bits())).collect();
                out[v].sort_unstable();
                inn[v] = sh.in_neighbors(l).to_vec();
                inn[v].sort_unstable();
            }
            layout.push((sh.offsets().to_vec(), sh.row_slots().to_vec()));
        }
        (out, inn, layout)
    }

    /// Moved by messages, the shards are those the in-memory move (and a
    /// fresh build) gives for the same table: weighted, unweighted,
    /// directed, and after a kernel renamed the rows.
    #[test]
    fn shipped_blocks_give_the_shards_of_the_in_memory_move() {
        for (weighted, directed) in [(true, false), (false, false), (true, true)] {
            let l = list(
                1000,
                9000,
                5 + u64::from(weighted) + 2 * u64::from(directed),
            );
            let source = LocalSource::publish_list(l).with_direction(directed);
            gossamer::main(3, move || {
                let p0 = Partition::new(PartitionKind::Blocks, 1000, 1, 3).unwrap();
                let build = |p: Partition| super::super::skewed::build(source, weighted, p);
                let (mut shipped, mut copied) = (build(p0), build(p0));
                let mut a = p0;
                for b in (0..p0.num_blocks()).step_by(3) {
                    a.move_block(b, (b / 3) % 3).unwrap();
                }
                let mut c = a;
                for b in 0..p0.num_blocks() {
                    c.move_block(b, (b * 7 + 1) % 3).unwrap();
                }
                for p in [a, c] {
                    let s = shipped.ship_blocks(p).unwrap();
                    let m = copied.move_blocks(p).unwrap();
                    assert_eq!(
                        (s.blocks, s.bytes, s.bytes_written),
                        (m.blocks, m.bytes, m.bytes_written)
                    );
                    // One process: nothing crosses a process.
                    assert_eq!(s.bytes_shipped, 0);
                    assert_eq!(shipped.partition(), &p);
                    let (got, want) = (rows(&shipped), rows(&copied));
                    assert_eq!(got, want, "weighted {weighted}, directed {directed}");
                    assert_eq!(got, rows(&build(p)));
                }
            });
            source.withdraw();
        }
    }

    #[test]
    fn other_partitions_are_refused_by_the_shipping_move() {
        let source = LocalSource::publish_list(list(100, 300, 3));
        gossamer::main(2, move || {
            let q = Partition::new(PartitionKind::Blocks, 100, 1, 2).unwrap();
            let (mut h, _) = ShardedGraph::build_from_placed(source, q).unwrap();
            let other = Partition::new(PartitionKind::Blocks, 99, 1, 2).unwrap();
            assert!(h.ship_blocks(other).is_err());
            let block = Partition::new(PartitionKind::Block, 100, 1, 2).unwrap();
            assert!(h.ship_blocks(block).is_err());
            assert_eq!(h.partition(), &q);
        });
        source.withdraw();
    }
}
