//! [`Bounds`]: for a push kernel that sends only improvements (SSSP's
//! relaxations), an upper bound per flat id of the value its owner will
//! end with: the exact value for an own vertex, the best value sent so far
//! for another trustee's.
//!
//! A relaxation `x` that does not beat the target's bound cannot improve
//! anything and is dropped before it is queued: one random read per edge
//! instead of a record. Kept per trustee over every flat id, that is 4 B
//! per vertex of the graph on every trustee; where that would outweigh the
//! graph (several ranks of several trustees), a trustee keeps only its own
//! process's flat ids and the trustees of a process share one
//! [`Filter`] for the rest ([`Bounds::new`] with a name), so they also
//! learn from each other's records.
//!
//! The scan is split in two so that the CPU overlaps the cache misses of a
//! row: [`beaten`](Bounds::beaten) compares up to 64 candidates with their
//! bounds without a branch (independent loads), then the kernel applies
//! the few that won ([`lower`](Bounds::lower)). Both take `SHARED` as a
//! const parameter so that the whole-array case keeps no choice in its
//! inner loop (a branch per entry measured 13-15% slower:
//! `results/kernels/sssp_bounds.md`); [`is_shared`](Bounds::is_shared)
//! tells which copy to call.
//!
//! ```
//! use graph_kernel::{Bounds, Program};
//! // In a program's state, made in `run`'s init from the adjacency:
//! let list = graph_kernel::doc::path(4);
//! let ok = gossamer::main(1, move || {
//!     let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
//!     struct B(Bounds);
//!     impl Program for B { type Msg = u32; fn receive(&mut self, _: u32, _: u32) -> bool { false } }
//!     graph_kernel::run(&g, |s, _| B(Bounds::new(s.adjacency(), None)), |k| k.with(|l| {
//!         let f = l.flat(1);
//!         let b = &mut l.state().0;
//!         let first = b.lower::<false>(f, 2.0);
//!         let worse = b.lower::<false>(f, 3.0);
//!         (first, worse, b.own(1), b.beaten::<false>(&[f, f], &[1.0, 5.0], -1.0))
//!     }))[0]
//! });
//! assert_eq!(ok, (true, false, 2.0, 0b01)); // 1 - 1 beats 2, 5 - 1 does not
//! ```

use std::sync::Arc;

use graph_core::alloc::huge_vec_or_exit;

use crate::adjacency::Adjacency;
use crate::filter::Filter;

/// Per-flat-id upper bounds of one trustee (see the module docs).
#[derive(Debug, Default)]
pub struct Bounds {
    /// Bounds of flat ids `lo..lo + len` (empty while released).
    best: Vec<f32>,
    lo: u32,
    len: usize,
    /// Index in `best` of own position 0.
    own_at: usize,
    filter: Option<Arc<Filter>>,
}

impl Bounds {
    /// Bounds for `adj`'s trustee, all `+inf`: over every flat id, or, with
    /// `shared = Some(name)`, over this process's flat ids, the other
    /// processes' in the process's [`Filter`] `name`.
    pub fn new(adj: &Adjacency, shared: Option<&'static str>) -> Self {
        let filter = shared.map(|name| Filter::shared(adj, name));
        let local = filter.as_ref().map_or(0..adj.num_flat(), |f| f.local());
        Bounds {
            best: huge_vec_or_exit(local.len(), f32::INFINITY, "bounds"),
            lo: local.start,
            len: local.len(),
            own_at: (adj.flat(0) - local.start) as usize,
            filter,
        }
    }

    /// [`new`](Self::new), sharing a filter named `name` exactly where the
    /// memory estimate says whole arrays would outweigh the graph of
    /// `edges` input edges (several ranks of several trustees, more than 4
    /// x edgefactor trustees in all:
    /// [`graph_core::memory::sssp_shares_bounds`]). Every trustee of the
    /// job decides alike.
    pub fn for_graph(adj: &Adjacency, edges: u64, name: &'static str) -> Self {
        let w = adj.num_trustees() as u64;
        let t = (crate::filter::process_trustees(adj.num_trustees()).len() as u64).max(1);
        let vertices = adj.partition().num_vertices();
        let share = graph_core::memory::sssp_shares_bounds(vertices, edges, w / t, t);
        Self::new(adj, share.then_some(name))
    }

    /// Every bound back to `+inf` (this trustee's share of a shared filter
    /// too; a barrier must separate the resets from the next search).
    pub fn reset(&mut self, adj: &Adjacency) {
        self.best.fill(f32::INFINITY);
        if let Some(f) = &self.filter {
            f.reset_share(adj);
        }
    }

    /// Frees this trustee's array (4 B per vertex of the graph, or of its
    /// process with a shared filter; the filter stays) until
    /// [`restore`](Self::restore): for a kernel that keeps its state from
    /// one search to the next, once the answer is read, so that what
    /// follows a search (its validation) does not sit beside them.
    pub fn release(&mut self) {
        self.best = Vec::new();
    }

    /// Makes released bounds again, all `+inf` (nothing to do when they
    /// are there): before a search's clock starts, so that its pages are
    /// not first touched inside it.
    pub fn restore(&mut self) {
        if self.best.len() != self.len {
            self.best = huge_vec_or_exit(self.len, f32::INFINITY, "bounds");
        }
    }

    /// Whether the other processes' bounds are in a shared filter.
    pub fn is_shared(&self) -> bool {
        self.filter.is_some()
    }

    /// Own position `v`'s value.
    #[inline(always)]
    pub fn own(&self, v: u32) -> f32 {
        self.best[self.own_at + v as usize]
    }

    /// Own position `v`'s value, to lower it.
    #[inline(always)]
    pub fn own_mut(&mut self, v: u32) -> &mut f32 {
        &mut self.best[self.own_at + v as usize]
    }

    /// Starts loading own position `v`'s value into the cache (a hint; a
    /// position out of range is ignored).
    #[inline(always)]
    pub fn prefetch_own(&self, v: u32) {
        if let Some(b) = self.best.get(self.own_at + v as usize) {
            graph_core::csr::prefetch_line(b);
        }
    }

    /// Starts loading the bound of flat id `f` when it is in this
    /// trustee's array (a hint; a shared filter's bounds are not asked for).
    #[inline(always)]
    pub fn prefetch(&self, f: u32) {
        if let Some(b) = self.best.get(f.wrapping_sub(self.lo) as usize) {
            graph_core::csr::prefetch_line(b);
        }
    }

    /// Bit `k` set when `d + weights[k]` beats the bound of `targets[k]`
    /// (a min-plus relaxation of up to 64 entries of a row), without a
    /// branch on where a target lives.
    #[inline(always)]
    pub fn beaten<const SHARED: bool>(&self, targets: &[u32], weights: &[f32], d: f32) -> u64 {
        let mut mask = 0u64;
        let entries = targets.iter().zip(weights).enumerate();
        match self.filter.as_deref().filter(|_| SHARED) {
            None => {
                for (k, (&f, &w)) in entries {
                    mask |= u64::from(d + w < self.best[f as usize]) << k;
                }
            }
            Some(far) => {
                // Both bounds are loaded (clamped indices) and one is picked.
                let own = &self.best[..];
                for (k, (&f, &w)) in entries {
                    let i = f.wrapping_sub(self.lo) as usize;
                    let near = own[i.min(own.len() - 1)];
                    let b = if i < own.len() {
                        near
                    } else {
                        far.get_clamped(f)
                    };
                    mask |= u64::from(d + w < b) << k;
                }
            }
        }
        mask
    }

    /// [`relax`](Self::relax) with the kind of bounds chosen here: a
    /// branch per group of 64 entries and per win, so that `improved` is
    /// called from one place and the compiler inlines it (two instances of
    /// `relax` left SSSP's callback out of line, a call per improvement).
    #[inline(always)]
    pub fn relax_row(
        &mut self,
        targets: &[u32],
        weights: &[f32],
        d: f32,
        mut improved: impl FnMut(u32, f32),
    ) {
        let shared = self.filter.is_some();
        for (ts, ws) in targets.chunks(64).zip(weights.chunks(64)) {
            let mut mask = if shared {
                self.beaten::<true>(ts, ws, d)
            } else {
                self.beaten::<false>(ts, ws, d)
            };
            while mask != 0 {
                let k = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                let (f, x) = (ts[k], d + ws[k]);
                let won = if shared {
                    self.lower::<true>(f, x)
                } else {
                    self.lower::<false>(f, x)
                };
                if won {
                    improved(f, x);
                }
            }
        }
    }

    /// Relaxes a weighted row at distance `d`: for every entry whose
    /// `d + weight` beats its target's bound, lowers the bound and calls
    /// `improved(target, d + weight)`, in groups of 64 ([`beaten`](Self::beaten)
    /// first, then [`lower`](Self::lower) for the few that won).
    #[inline(always)]
    pub fn relax<const SHARED: bool>(
        &mut self,
        targets: &[u32],
        weights: &[f32],
        d: f32,
        mut improved: impl FnMut(u32, f32),
    ) {
        for (ts, ws) in targets.chunks(64).zip(weights.chunks(64)) {
            let mut mask = self.beaten::<SHARED>(ts, ws, d);
            while mask != 0 {
                let k = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                let (f, x) = (ts[k], d + ws[k]);
                if self.lower::<SHARED>(f, x) {
                    improved(f, x);
                }
            }
        }
    }

    /// Lowers the bound of flat id `f` to `x` when `x` beats it; whether it
    /// did.
    #[inline(always)]
    pub fn lower<const SHARED: bool>(&mut self, f: u32, x: f32) -> bool {
        if !SHARED {
            let b = &mut self.best[f as usize];
            let lower = x < *b;
            if lower {
                *b = x;
            }
            return lower;
        }
        match (
            self.best.get_mut(f.wrapping_sub(self.lo) as usize),
            &self.filter,
        ) {
            (Some(b), _) if x < *b => *b = x,
            (None, Some(far)) if x < far.get(f) => far.lower(f, x),
            _ => return false,
        }
        true
    }
}
