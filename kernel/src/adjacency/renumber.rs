//! Renumbering by degree: each trustee's positions (vertices by
//! decreasing degree when degrees are skewed), the flat-id bases (cumulative counts rounded up to
//! 64), and the tables every trustee of a process shares, filed while
//! [`prepare`](super::prepare) runs.

use std::sync::{Arc, Mutex};

use graph_core::alloc::vec_or_exit;
use graph_core::{Partition, PartitionKind, Shard};

/// The tables that are the same on every trustee of a graph (every
/// vertex's flat id and the flat-id map: 8 B per vertex of the whole
/// graph), held once per process instead of once per trustee: at 32
/// trustees per rank that is 31 copies fewer.
#[derive(Debug)]
pub(super) struct Tables {
    /// Every vertex's flat id, trustee by trustee in local order: trustee
    /// `o`'s local vertex `l` at `start[o] + l`. For a block partition
    /// (trustees own consecutive ids, in trustee order) that index is the
    /// global id itself, so renaming an adjacency entry is one load from a
    /// table in huge pages (no owner lookup); 4 B per vertex, as the
    /// positions it replaces.
    pub(super) flat: Vec<u32>,
    /// Where each trustee's vertices start in `flat`, then the vertex count.
    pub(super) start: Vec<usize>,
    /// The partition is block (or has one trustee): `flat` is by global id.
    pub(super) by_global: bool,
    /// Global id of every flat id (0 in the padding); an `Arc` of its own
    /// because a shard split in place keeps it as its names.
    pub(super) global_of: Arc<[u32]>,
}

impl Tables {
    /// Flat id of global vertex `g` (`p`: the graph's partition).
    #[inline(always)]
    pub(super) fn flat_of(&self, p: &Partition, g: u32) -> u32 {
        self.flat[self.index(p, g)]
    }

    /// Where global vertex `g`'s flat id is in `flat`.
    #[inline(always)]
    fn index(&self, p: &Partition, g: u32) -> usize {
        if self.by_global {
            g as usize
        } else {
            let o = p.owner(u64::from(g));
            self.start[o.trustee as usize] + o.local as usize
        }
    }

    /// Starts loading the flat ids of global vertices `ids` (a hint for
    /// a rename that reads them soon; ids that are not vertices are
    /// skipped).
    #[inline]
    pub(super) fn prefetch(&self, p: &Partition, ids: &[u32]) {
        for &g in ids {
            if let Some(f) = self.flat.get(self.index(p, g)) {
                graph_core::csr::prefetch_line(f);
            }
        }
    }

    /// Renames every global id in `targets` to its flat id, in one pass
    /// that prefetches the table [`AHEAD`](graph_core::csr::AHEAD) entries
    /// ahead (the reads land at random in a table of 4 B per vertex).
    pub(super) fn rename_all(&self, p: &Partition, targets: &mut [u32]) {
        let ahead = graph_core::csr::AHEAD;
        self.prefetch(p, &targets[..ahead.min(targets.len())]);
        for i in 0..targets.len() {
            if let Some(&g) = targets.get(i + ahead) {
                self.prefetch(p, &[g]);
            }
            targets[i] = self.flat_of(p, targets[i]);
        }
    }

    /// Trustee `o`'s vertices' flat ids, by local index.
    #[inline]
    pub(super) fn own(&self, o: usize) -> &[u32] {
        &self.flat[self.start[o]..self.start[o + 1]]
    }
}

/// Where each trustee's vertices start in [`Tables::flat`] (cumulative
/// counts), then the vertex count.
fn starts(p: &Partition) -> Vec<usize> {
    let mut start = Vec::with_capacity(p.num_trustees() as usize + 1);
    let mut acc = 0usize;
    for o in 0..p.num_trustees() {
        start.push(acc);
        acc += p.local_count(o) as usize;
    }
    start.push(acc);
    start
}

/// A table of `len` `u32` in huge pages where the system allows (read at
/// random once per adjacency entry: with 4 KiB pages nearly every read
/// also walks the page table).
fn huge_table(len: usize, what: &'static str) -> Vec<u32> {
    let mut v = vec_or_exit(len, 0u32, what);
    graph_core::csr::advise_huge_pages(&mut v);
    v
}

/// This process's tables by graph key: flat ids being filed while the
/// graph is prepared (with the trustees' starts and flat-id bases), then a
/// weak handle (the adjacencies hold the tables; the last one dropped
/// frees them).
enum Filed {
    Filling {
        flat: Vec<u32>,
        start: Vec<usize>,
        base: Vec<u32>,
    },
    Ready(std::sync::Weak<Tables>),
}

static TABLES: Mutex<Vec<(u64, Filed)>> = Mutex::new(Vec::new());

fn tables() -> std::sync::MutexGuard<'static, Vec<(u64, Filed)>> {
    TABLES.lock().unwrap_or_else(|e| e.into_inner())
}

/// Files trustee `o`'s positions `r`, from its local vertex `at` on, for
/// graph `key` of partition `p` (on the first trustee of this process), as
/// flat ids.
pub(super) fn file_positions(key: u64, p: &Partition, o: usize, at: usize, r: &[u32]) {
    let mut all = tables();
    let i = match all.iter().position(|(k, _)| *k == key) {
        Some(i) => i,
        None => {
            let start = starts(p);
            let flat = huge_table(start[start.len() - 1], "vertex flat ids");
            all.push((
                key,
                Filed::Filling {
                    flat,
                    start,
                    base: bases(p).0,
                },
            ));
            all.len() - 1
        }
    };
    if let Filed::Filling { flat, start, base } = &mut all[i].1 {
        let to = start[o] + at;
        for (f, &x) in flat[to..to + r.len()].iter_mut().zip(r) {
            *f = base[o] + x;
        }
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
    let Filed::Filling { flat, start, .. } =
        std::mem::replace(&mut all[i].1, Filed::Ready(std::sync::Weak::new()))
    else {
        unreachable!("matched above");
    };
    let (_, total) = bases(p);
    let mut global_of = huge_table(total as usize, "flat-id map");
    for o in 0..p.num_trustees() {
        let own = &flat[start[o as usize]..start[o as usize + 1]];
        for (l, &f) in own.iter().enumerate() {
            global_of[f as usize] = p.global(o, l as u64) as u32;
        }
    }
    let t = Arc::new(Tables {
        flat,
        start,
        by_global: p.kind() == PartitionKind::Block || p.num_trustees() == 1,
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
