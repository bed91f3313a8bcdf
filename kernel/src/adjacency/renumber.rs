//! Renumbering by degree: each trustee's positions (vertices by
//! decreasing degree when degrees are skewed), the flat-id bases (cumulative counts rounded up to
//! 64), and the tables every trustee of a process shares, filed while
//! [`prepare`](super::prepare) runs.

use std::sync::{Arc, Mutex};

use graph_core::alloc::{reserve_or_exit, vec_or_exit};
use graph_core::{Partition, Shard};

/// The tables that are the same on every trustee of a graph (every
/// trustee's positions and the flat-id map: 8 B per vertex of the whole
/// graph), held once per process instead of once per trustee: at 32
/// trustees per rank that is 31 copies fewer.
#[derive(Debug)]
pub(super) struct Tables {
    /// `rank[o][l]`: position of trustee `o`'s local vertex `l`.
    pub(super) rank: Vec<Vec<u32>>,
    /// Global id of every flat id (0 in the padding); an `Arc` of its own
    /// because a shard split in place keeps it as its names.
    pub(super) global_of: Arc<[u32]>,
}

/// This process's tables by graph key: positions being filed while the
/// graph is prepared, then a weak handle (the adjacencies hold the tables;
/// the last one dropped frees them).
enum Filed {
    Filling(Vec<Vec<u32>>),
    Ready(std::sync::Weak<Tables>),
}

static TABLES: Mutex<Vec<(u64, Filed)>> = Mutex::new(Vec::new());

fn tables() -> std::sync::MutexGuard<'static, Vec<(u64, Filed)>> {
    TABLES.lock().unwrap_or_else(|e| e.into_inner())
}

/// Files trustee `o`'s positions `r`, from `at` on (of `len` in all), for
/// graph `key` of `trustees` trustees (on the first trustee of this process).
pub(super) fn file_positions(
    key: u64,
    trustees: usize,
    o: usize,
    len: usize,
    at: usize,
    r: &[u32],
) {
    let mut all = tables();
    let i = match all.iter().position(|(k, _)| *k == key) {
        Some(i) => i,
        None => {
            all.push((key, Filed::Filling(vec![Vec::new(); trustees])));
            all.len() - 1
        }
    };
    if let Filed::Filling(rank) = &mut all[i].1 {
        let own = &mut rank[o];
        if own.is_empty() {
            reserve_or_exit(own, len, "vertex positions");
        }
        own.resize(own.len().max(at + r.len()), 0);
        own[at..at + r.len()].copy_from_slice(r);
    }
}

/// The tables of graph `key` once every position is filed: the first
/// trustee of the process to ask builds the flat-id map, the others share
/// it. `None` if nothing was filed (a bug: the caller says so).
pub(super) fn take_tables(key: u64, p: &Partition) -> Option<Arc<Tables>> {
    let mut all = tables();
    all.retain(|(_, f)| !matches!(f, Filed::Ready(w) if w.strong_count() == 0));
    let i = all.iter().position(|(k, _)| *k == key)?;
    if let Filed::Ready(w) = &all[i].1 {
        return w.upgrade();
    }
    let Filed::Filling(rank) =
        std::mem::replace(&mut all[i].1, Filed::Ready(std::sync::Weak::new()))
    else {
        unreachable!("matched above");
    };
    let (base, total) = bases(p);
    let mut global_of = vec_or_exit(total as usize, 0u32, "flat-id map");
    for (o, ranks) in rank.iter().enumerate() {
        for (l, &r) in ranks.iter().enumerate() {
            global_of[(base[o] + r) as usize] = p.global(o as u32, l as u64) as u32;
        }
    }
    let t = Arc::new(Tables {
        rank,
        global_of: global_of.into(),
    });
    all[i].1 = Filed::Ready(Arc::downgrade(&t));
    Some(t)
}

/// First flat id of each trustee (cumulative vertex counts rounded up to
/// multiples of 64), and the total.
pub(super) fn bases(p: &Partition) -> (Vec<u32>, u32) {
    let mut base = Vec::with_capacity(p.num_trustees() as usize + 1);
    let mut acc = 0u32;
    for o in 0..p.num_trustees() {
        base.push(acc);
        acc += (p.local_count(o) as u32).div_ceil(64) * 64;
    }
    base.push(acc);
    (base, acc)
}

/// Positions of `shard`'s vertices: by decreasing degree when the
/// degrees are skewed, local order otherwise ([`graph_core::csr::positions`]):
/// `rank[l]` is local vertex `l`'s position.
pub(super) fn degree_ranks(shard: &Shard) -> Vec<u32> {
    let n = shard.num_local_vertices() as u32;
    graph_core::csr::positions(n, |l| shard.degree(u64::from(l)))
}
