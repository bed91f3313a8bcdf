//! Blocks moved between the trustees of one process without reading the
//! source again ([`ShardedGraph::move_blocks`]): the shards are taken from
//! their trustees, each new shard is laid out from the old ones' rows (in
//! memory, one thread per trustee), and installed in place of the old.
//!
//! A kernel may have renamed the rows ([`Shard::rewrite_rows`],
//! [`Shard::share_rows`]) or taken them into its own storage
//! ([`Shard::take_rows`]); the moved rows hold global ids again, in the
//! order the old shard gave them, so the kernels prepare the new shards as
//! they would a fresh build's. The new shards are stored as a fresh build
//! stores them: weighted rows by local index, unweighted ones in the
//! kernels' position order ([`crate::csr::positions`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use crate::csr::Shard;
use crate::partition::Partition;
use crate::sharded::{KernelError, ShardedGraph};

/// Shards on their way out of (or into) their trustees' states, by (move
/// id, trustee): a closure sent to a trustee captures only plain values.
static PARKED: Mutex<Vec<(u64, u32, Shard)>> = Mutex::new(Vec::new());

/// Move ids, unique in this process.
pub(super) static NEXT: AtomicU64 = AtomicU64::new(0);

pub(super) fn park(id: u64, t: u32, shard: Shard) {
    PARKED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push((id, t, shard));
}

pub(super) fn unpark(id: u64, t: u32) -> Option<Shard> {
    let mut parked = PARKED.lock().unwrap_or_else(|p| p.into_inner());
    let i = parked.iter().position(|&(m, u, _)| m == id && u == t)?;
    Some(parked.swap_remove(i).2)
}

/// What [`ShardedGraph::move_blocks`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Moved {
    /// Blocks whose owner changed.
    pub blocks: usize,
    /// Bytes of the moved blocks' rows (targets, weights when kept) and
    /// row offsets: what changed trustee.
    pub bytes: u64,
    /// Bytes of every row written (the whole graph's rows and offsets:
    /// blocks that stay are renumbered, and renamed rows named back).
    pub bytes_written: u64,
    /// Bytes of the records sent to trustees of other processes (degrees
    /// and entries, [`ShardedGraph::ship_blocks`]); 0 in one process.
    pub bytes_shipped: u64,
    /// Wall seconds of the whole move (taking, laying out, installing).
    pub seconds: f64,
}

impl ShardedGraph {
    /// Gives the blocks the owners of `next` (a blocks partition of the same
    /// vertices and trustees as this graph's, e.g. this one changed by
    /// [`Partition::move_block`]), copying rows in memory instead of
    /// building the shards again from the source. Every kernel state is
    /// dropped (kernels prepare again on their next run); answers do not
    /// change (the rows hold the same entries, only their owners and local
    /// indices do).
    ///
    /// When a trustee lives in another rank, the rows travel as messages
    /// instead ([`ship_blocks`](Self::ship_blocks)), with the same shards
    /// in the end. Refused (changing nothing) when either partition is not
    /// a blocks one or they do not fit each other. Call from a fiber, not
    /// in delegated context.
    pub fn move_blocks(&mut self, next: Partition) -> Result<Moved, KernelError> {
        let start = Instant::now();
        let old = *self.partition();
        let workers = old.num_trustees();
        super::shipped::check_fit(&old, &next)?;
        if (0..workers).any(|t| !gossamer::is_local_worker(gossamer::WorkerId(t as usize))) {
            return self.ship_blocks(next);
        }
        let (weighted, directed) = (self.is_weighted(), self.is_directed());
        let id = NEXT.fetch_add(1, Ordering::Relaxed);
        // Take every shard out of its trustee (a move of the arrays, no
        // copy); the kernels' states go with the old rows.
        let mut shards = Vec::with_capacity(workers as usize);
        for t in 0..workers {
            self.trustee(t as usize)
                .apply(move |s| park(id, t, s.take_shard()));
            shards.push(unpark(id, t).expect("parked by its trustee just above"));
        }
        let moved: Vec<u32> = (0..old.num_blocks())
            .filter(|&b| old.block_owner(b) != next.block_owner(b))
            .collect();
        let per_entry = if weighted { 8 } else { 4 };
        let bytes = moved
            .iter()
            .map(|&b| {
                let r = old.block_range(b);
                let (t, _) = old.locate(r.start);
                let s = &shards[t as usize];
                let entries: u64 = r.clone().map(|v| s.degree(old.locate(v).1)).sum();
                per_entry * entries + 8 * (r.end - r.start)
            })
            .sum();
        let fresh: Vec<Shard> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|t| {
                    let shards = &shards;
                    scope.spawn(move || lay_out(shards, &old, &next, t, weighted, directed))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("laying out a moved shard panicked"))
                .collect()
        });
        drop(shards);
        let bytes_written = fresh
            .iter()
            .map(|s| per_entry * s.num_entries() + 8 * (s.num_local_vertices() + 1))
            .sum();
        for (t, shard) in fresh.into_iter().enumerate() {
            let t = t as u32;
            park(id, t, shard);
            self.trustee(t as usize).apply(move |s| {
                s.replace_shard(unpark(id, t).expect("parked for this trustee just before"))
            });
        }
        self.set_moved(next);
        Ok(Moved {
            blocks: moved.len(),
            bytes,
            bytes_written,
            bytes_shipped: 0,
            seconds: start.elapsed().as_secs_f64(),
        })
    }
}

/// An empty vector with room for `len` values, in huge pages where the
/// system allows (as a build's rows are: the kernels read them at random).
fn huge_with_capacity<T>(len: usize, what: &'static str) -> Vec<T> {
    let mut v = Vec::new();
    crate::alloc::reserve_or_exit(&mut v, len, what);
    crate::csr::advise_huge_pages(v.spare_capacity_mut());
    v
}

/// Trustee `t`'s shard under `next`, from the shards of `old` (rows with
/// global ids, stored as a fresh build stores them).
fn lay_out(
    shards: &[Shard],
    old: &Partition,
    next: &Partition,
    t: u32,
    weighted: bool,
    directed: bool,
) -> Shard {
    let n = next.local_count(t) as usize;
    // Where each new local vertex's row is now.
    let from: Vec<(u32, u64)> = (0..n as u64)
        .map(|l| {
            let (ot, ol) = old.locate(next.global(t, l));
            (ot as u32, ol)
        })
        .collect();
    let degree = |l: usize| {
        let (ot, ol) = from[l];
        shards[ot as usize].degree(ol)
    };
    // Weighted rows by local index, unweighted ones by position.
    let slots = (!weighted).then(|| crate::csr::positions(n as u32, |l| degree(l as usize)));
    let slot = |l: usize| slots.as_ref().map_or(l, |s| s[l] as usize);
    let mut offsets = crate::alloc::huge_vec_or_exit(n + 1, 0u64, "moved row offsets");
    for l in 0..n {
        offsets[slot(l) + 1] = degree(l);
    }
    for k in 0..n {
        offsets[k + 1] += offsets[k];
    }
    let entries = offsets[n] as usize;
    // The rows written in stored order, each array's pages touched first
    // by the copy itself (no zeroing pass).
    let mut targets = huge_with_capacity::<u32>(entries, "moved adjacency rows");
    let mut weights =
        huge_with_capacity::<f32>(if weighted { entries } else { 0 }, "moved weights");
    let mut stored = crate::alloc::vec_or_exit(n, 0u32, "moved row order");
    for l in 0..n {
        stored[slot(l)] = l as u32;
    }
    let mut buf = Vec::new();
    for &l in &stored {
        let (ot, ol) = from[l as usize];
        let s = &shards[ot as usize];
        let ids = s.row_ids(ol, &mut buf);
        match s.renamed() {
            Some(names) => targets.extend(ids.iter().map(|&id| names[id as usize])),
            None => targets.extend_from_slice(ids),
        }
        if weighted {
            weights.extend_from_slice(s.adjacency(ol).1);
        }
    }
    debug_assert_eq!(targets.len(), entries);
    let shard = match slots {
        Some(slots) => Shard::unweighted_from_arrays(*next, t, offsets.into(), targets.into())
            .with_row_slots(slots),
        None => Shard::from_parts(*next, t, offsets, targets, weights),
    };
    if !directed {
        return shard;
    }
    let mut in_offsets = crate::alloc::vec_or_exit(n + 1, 0u64, "moved in-edge offsets");
    for (l, &(ot, ol)) in from.iter().enumerate() {
        in_offsets[l + 1] = in_offsets[l] + shards[ot as usize].in_degree(ol);
    }
    let mut in_sources = Vec::new();
    crate::alloc::reserve_or_exit(&mut in_sources, in_offsets[n] as usize, "moved in-edges");
    for &(ot, ol) in &from {
        in_sources.extend_from_slice(shards[ot as usize].in_neighbors(ol));
    }
    shard.with_in_edges(in_offsets, in_sources)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::construct::LocalSource;
    use crate::partition::PartitionKind;

    use super::super::skewed::list;

    fn shards(g: &ShardedGraph) -> Vec<Shard> {
        (0..g.num_trustees())
            .map(|t| g.trustee(t).apply_returning(|s| s.shard().clone()))
            .collect()
    }

    /// Tables to move through: some blocks to other trustees, then most.
    fn tables(p: &Partition) -> Vec<Partition> {
        let t = p.num_trustees();
        let mut a = *p;
        for b in (0..p.num_blocks()).step_by(3) {
            a.move_block(b, (b / 3) % t).unwrap();
        }
        let mut c = a;
        for b in 0..p.num_blocks() {
            c.move_block(b, (b * 7 + 1) % t).unwrap();
        }
        vec![a, c]
    }

    fn check(weighted: bool, directed: bool) {
        let l = list(
            1000,
            9000,
            7 + u64::from(weighted) + 2 * u64::from(directed),
        );
        let source = LocalSource::publish_list(l).with_direction(directed);
        gossamer::main(3, move || {
            let p0 = Partition::new(PartitionKind::Blocks, 1000, 1, 3).unwrap();
            let build = |p: Partition| super::super::skewed::build(source, weighted, p);
            let mut g = build(p0);
            let mut before = p0;
            for p in tables(&p0) {
                let moved = g.move_blocks(p).unwrap();
                let changed = (0..p.num_blocks())
                    .filter(|&b| before.block_owner(b) != p.block_owner(b))
                    .count();
                assert_eq!(moved.blocks, changed);
                assert!(moved.bytes > 0 && moved.bytes <= moved.bytes_written);
                before = p;
                assert_eq!(g.partition(), &p);
                let fresh = build(p);
                let (got, want) = (shards(&g), shards(&fresh));
                for (t, (a, b)) in got.iter().zip(&want).enumerate() {
                    assert_eq!(a.partition(), b.partition(), "trustee {t}");
                    assert_eq!(a.trustee(), b.trustee());
                    assert_eq!(a.offsets(), b.offsets(), "trustee {t}: offsets");
                    assert_eq!(a.row_slots(), b.row_slots(), "trustee {t}: slots");
                    assert_eq!(a.is_weighted(), b.is_weighted());
                    assert_eq!(a.is_directed(), b.is_directed());
                    for l in 0..a.num_local_vertices() {
                        assert_eq!(a.global_id(l), b.global_id(l));
                        // Entries in the order the build received them.
                        let mut x: Vec<(u32, u32)> =
                            a.neighbors(l).map(|(v, w)| (v, w.to_bits())).collect();
                        let mut y: Vec<(u32, u32)> =
                            b.neighbors(l).map(|(v, w)| (v, w.to_bits())).collect();
                        x.sort_unstable();
                        y.sort_unstable();
                        assert_eq!(x, y, "trustee {t} local {l}: row");
                        let (mut i, mut j) =
                            (a.in_neighbors(l).to_vec(), b.in_neighbors(l).to_vec());
                        i.sort_unstable();
                        j.sort_unstable();
                        assert_eq!(i, j, "trustee {t} local {l}: in-edges");
                    }
                }
            }
        });
    }

    #[test]
    fn moved_shards_are_those_built_for_the_final_table() {
        check(true, false);
        check(false, false);
        check(true, true);
    }

    #[test]
    fn moves_of_other_partitions_are_refused() {
        let source = LocalSource::publish_list(list(100, 300, 3));
        gossamer::main(2, move || {
            let (mut g, _) = ShardedGraph::build_from(source, PartitionKind::Block).unwrap();
            let p = Partition::new(PartitionKind::Blocks, 100, 1, 2).unwrap();
            assert!(g.move_blocks(p).is_err());
            let q = Partition::new(PartitionKind::Blocks, 100, 1, 2).unwrap();
            let (mut h, _) = ShardedGraph::build_from_placed(source, q).unwrap();
            let other = Partition::new(PartitionKind::Blocks, 99, 1, 2).unwrap();
            assert!(h.move_blocks(other).is_err());
            assert_eq!(h.partition(), &q);
        });
    }
}
