//! [`Filter`]: a sender-side filter for push kernels, one per rank: for
//! every vertex of the *other* ranks an upper bound of the value its owner
//! will end with, shared by the trustees of this rank.
//!
//! What it is for: a push kernel (SSSP's relaxations) sends a record to the
//! owner of a target whenever it finds a better value for it. Most such
//! records would not improve anything: another edge already sent a better
//! one. Remembering, per target, the best value already sent ("the owner
//! will end with at most this") lets a sender drop a record that cannot
//! win. Kept per *trustee* over the whole graph, that is 4 B per vertex on
//! every trustee (16 GiB per rank at SCALE 27 with 32 threads). A kernel
//! keeps, per trustee, only the entries of its own process's vertices (its
//! own exact values and what it sent to its siblings: 4 B x n / R), and
//! shares this filter for the rest (4 B x n x (R - 1) / R once per rank,
//! nothing in a one-process run); its trustees then also learn from each
//! other's records.
//!
//! How: `f32` bounds over the flat ids outside this process's range
//! ([`Filter::local`]), as `AtomicU32` bits read and written with relaxed
//! ordering (plain loads and stores on common hardware: no
//! read-modify-write, no lock). Any trustee of the process lowers any entry
//! ([`Filter::lower`]), so the entries are hints, and the rule that keeps
//! them sound is: **an entry only ever holds `+inf` or a value that has
//! been sent to the vertex's owner during the current search**. Racing
//! writers may overwrite a smaller value with a larger one that was also
//! sent; the bound then filters less, never wrongly. A value from an
//! earlier search would be unsound, so the entries are reset to `+inf`
//! before each search ([`Filter::reset_share`], the other processes'
//! trustees' entries split between the trustees of this one), with a join
//! or barrier before the search starts.
//!
//! ```
//! use graph_kernel::{run, Filter, Program};
//! use std::sync::Arc;
//! // A kernel keeps its filter in its state: it lives while a trustee
//! // of the process holds it.
//! struct Held(Arc<Filter>);
//! impl Program for Held { type Msg = u32; fn receive(&mut self, _: u32, _: u32) -> bool { false } }
//! let list = graph_kernel::doc::path(100);
//! let (local, len) = gossamer::main(2, move || {
//!     let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
//!     let init = |s: &mut graph_kernel::Setup<'_>, _: Option<Held>| {
//!         let f = Filter::shared(s.adjacency(), "doc.bounds");
//!         f.reset_share(s.adjacency());
//!         Held(f)
//!     };
//!     run(&g, init, |k| k.with(|l| {
//!         let f = Arc::clone(&l.state().0);
//!         (f.local().contains(&l.flat_of(99)), f.len())
//!     }))[0]
//! });
//! // One process: every vertex is local, and the filter is empty.
//! assert!(local);
//! assert_eq!(len, 0);
//! ```

use std::ops::Range;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::Arc;

use gossamer::WorkerId;

use crate::adjacency::Adjacency;
use crate::replica::per_process;

/// Per-vertex upper bounds over the other processes' vertices, shared by
/// the trustees of one process; see the module docs.
#[derive(Debug)]
pub struct Filter {
    /// Entries of flat ids `0..local.start`, then of `local.end..`.
    bounds: Box<[AtomicU32]>,
    /// The flat ids of this process's trustees (no entries).
    local: Range<u32>,
    /// This process's trustees.
    trustees: Range<usize>,
}

impl Filter {
    /// This process's filter `name` over the flat ids of `adj`'s graph
    /// outside this process (all `+inf` when new). Every trustee of the
    /// process that asks with the same graph and name gets the same array
    /// while any of them holds it.
    pub fn shared(adj: &Adjacency, name: &'static str) -> Arc<Filter> {
        // gossamer places a process's workers at consecutive ids.
        let trustees = process_trustees(adj.num_trustees());
        let local = adj.base(trustees.start)..adj.base(trustees.end);
        let len = (adj.num_flat() - local.len() as u32) as usize;
        let f = per_process(adj.key(), name, || Filter {
            bounds: (0..len)
                .map(|_| AtomicU32::new(f32::INFINITY.to_bits()))
                .collect(),
            local: local.clone(),
            trustees,
        });
        assert_eq!(
            (f.bounds.len(), &f.local),
            (len, &local),
            "graph-kernel: filter `{name}` already exists with another shape"
        );
        f
    }

    /// The flat ids of this process's trustees: the filter has no entry
    /// for them (the kernel keeps those values itself).
    pub fn local(&self) -> Range<u32> {
        self.local.clone()
    }

    /// Index of flat id `f` (not [local](Self::local)).
    #[inline(always)]
    fn index(&self, f: u32) -> usize {
        let span = self.local.end - self.local.start;
        (f - span * u32::from(f >= self.local.end)) as usize
    }

    /// The bound of flat id `f`, a vertex of another process (`+inf`:
    /// nothing sent yet).
    #[inline(always)]
    pub fn get(&self, f: u32) -> f32 {
        f32::from_bits(self.bounds[self.index(f)].load(Relaxed))
    }

    /// [`get`](Self::get) for any flat id `f`, local or not, without a
    /// branch: for a local `f`, some entry's bound, meaningless (a caller
    /// that picks between this and its own value loads both). Not on an
    /// empty filter.
    #[inline(always)]
    pub fn get_clamped(&self, f: u32) -> f32 {
        let i = self.index(f).min(self.bounds.len() - 1);
        f32::from_bits(self.bounds[i].load(Relaxed))
    }

    /// Records that `x` was sent to the owner of flat id `f`, a vertex of
    /// another process: the bound becomes `x` when that is lower. The load
    /// and the store are not one atomic step; a racing trustee may leave
    /// its own (sent, so sound) value instead.
    #[inline(always)]
    pub fn lower(&self, f: u32, x: f32) {
        let e = &self.bounds[self.index(f)];
        if x < f32::from_bits(e.load(Relaxed)) {
            e.store(x.to_bits(), Relaxed);
        }
    }

    /// Resets to `+inf` this trustee's share of the entries: each other
    /// process's trustee's entries go to one trustee of this process, in
    /// turn. Every trustee of the process calls it before a search, and the
    /// search starts only after all have (a join or barrier between).
    pub fn reset_share(&self, adj: &Adjacency) {
        let me = adj.me() as usize;
        let inf = f32::INFINITY.to_bits();
        for o in 0..adj.num_trustees() {
            if !resets(&self.trustees, me, o) {
                continue;
            }
            let (lo, hi) = (adj.base(o), adj.base(o + 1));
            if hi > lo {
                for e in &self.bounds[self.index(lo)..=self.index(hi - 1)] {
                    e.store(inf, Relaxed);
                }
            }
        }
    }

    /// Number of entries (the other processes' flat ids).
    pub fn len(&self) -> usize {
        self.bounds.len()
    }

    /// True in a one-process run.
    pub fn is_empty(&self) -> bool {
        self.bounds.is_empty()
    }
}

/// Whether trustee `me` of this process (its trustees: `local`) resets the
/// entries of trustee `o`: each other process's trustee goes to one of
/// them, in turn.
fn resets(local: &Range<usize>, me: usize, o: usize) -> bool {
    !local.contains(&o) && local.start + o % local.len().max(1) == me
}

/// The trustees of this process among `trustees`: consecutive worker ids
/// (gossamer's placement), checked.
pub fn process_trustees(trustees: usize) -> Range<usize> {
    let is_local = |t: usize| gossamer::is_local_worker(WorkerId(t));
    let first = (0..trustees).find(|&t| is_local(t)).unwrap_or(0);
    let end = (first..trustees)
        .find(|&t| !is_local(t))
        .unwrap_or(trustees);
    assert!(
        (end..trustees).all(|t| !is_local(t)),
        "graph-kernel: this process's workers are not consecutive"
    );
    first..end
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A filter of this shape without a runtime: `local` flat ids of
    /// `0..n`.
    fn filter(n: u32, local: Range<u32>) -> Filter {
        Filter {
            bounds: (0..n - local.len() as u32)
                .map(|_| AtomicU32::new(f32::INFINITY.to_bits()))
                .collect(),
            local,
            trustees: 0..1,
        }
    }

    #[test]
    fn entries_skip_the_local_range_and_only_go_down() {
        let f = filter(256, 64..128);
        assert_eq!(f.len(), 192);
        // Every non-local flat id has its own entry.
        for (k, x) in (0..64).chain(128..256).enumerate() {
            assert_eq!(f.index(x), k);
            f.lower(x, x as f32);
        }
        for x in (0..64).chain(128..256) {
            f.lower(x, 1000.0);
            assert_eq!(f.get(x), x as f32, "{x}");
        }
        f.lower(200, 3.5);
        assert_eq!(f.get(200), 3.5);
        // Clamped reads name an entry for every flat id, local or not.
        for x in 0..300 {
            let b = f.get_clamped(x);
            if !(64..128).contains(&x) && x < 256 {
                assert_eq!(b, f.get(x));
            }
        }
    }

    #[test]
    fn every_other_trustee_is_reset_by_exactly_one_local_trustee() {
        // 3 processes of 4 trustees; this one holds trustees 4..8.
        let local = 4..8;
        for o in 0..12 {
            let by: Vec<usize> = local.clone().filter(|&me| resets(&local, me, o)).collect();
            if local.contains(&o) {
                assert!(by.is_empty(), "trustee {o} resets its own entries");
            } else {
                assert_eq!(by.len(), 1, "trustee {o}: {by:?}");
            }
        }
        // And the work is spread: each local trustee takes two of the eight.
        for me in local.clone() {
            assert_eq!((0..12).filter(|&o| resets(&local, me, o)).count(), 2);
        }
    }
}
