//! [`Replica`]: a dense array over flat ids (a bitmap, or one 64-bit word per
//! vertex), held once per rank and shared by the trustees of that rank; each
//! trustee writes its own part and [`Kernel::publish`](crate::Kernel::publish) copies it to the other ranks.
//!
//! What it is for: a step that reads some state of *every* vertex, e.g.
//! bottom-up BFS ("is my neighbour in the frontier?") or pull-style
//! PageRank ("my neighbours' contributions"). Asking the owners edge by
//! edge would cost a message per edge; a replica costs one bulk copy per
//! step.
//!
//! How: the trustees of one process share one array (found through a
//! per-process registry by the graph's [`key`](crate::Adjacency::key) and a
//! name), of `AtomicU64` words read and written with relaxed ordering (a
//! plain load or store on common hardware; the graph's barriers and
//! all-reduces order the writes of one step before the reads of the next).
//! Trustees of the same process need no copy at all; for trustees in other
//! processes of a rack job, [`Kernel::publish`](crate::Kernel::publish) sends the own words as POD slices
//! in slot-sized pieces, applied there by a closure that stores them into
//! that process's array. Trustee `o`'s words are `base(o)..` over flat ids
//! (whole words: the bases are multiples of 64), so no two trustees write
//! the same word.
//!
//! ```
//! use graph_kernel::{run, Program, Replica};
//! use std::sync::Arc;
//! struct Seen(Arc<Replica>);
//! impl Program for Seen { type Msg = u32; fn receive(&mut self, _: u32, _: u32) -> bool { false } }
//! let list = graph_kernel::doc::path(200);
//! let hits = gossamer::main(2, move || {
//!     let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
//!     run(&g, |s, _| Seen(Replica::bitmap(s.adjacency(), "doc.even")), |k| {
//!         // Every trustee marks its even global ids in the shared bitmap...
//!         k.with(|l| {
//!             for v in 0..l.num_own() {
//!                 let f = l.flat(v);
//!                 if l.global(f) % 2 == 0 { l.state().0.set_bit(f) }
//!             }
//!         });
//!         k.publish(|s: &Seen| &*s.0); // to the other processes, if any
//!         k.sync();
//!         // ...and then reads everyone's bits.
//!         k.with(|l| (0..200).filter(|&g| { let f = l.flat_of(g); l.state().0.bit(f) }).count())
//!     })
//! });
//! assert_eq!(hits, [100, 100]);
//! ```

use std::any::Any;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, Weak};

use gossamer::Delegable;
use graph_core::sharded::{TrusteeCtx, TrusteeState};

use crate::adjacency::Adjacency;

/// 64-bit words per message of [`publish`] (32 KiB: half a 64 KiB slot).
const WORDS_PIECE: usize = 4096;

/// The per-process arrays of this process (replicas, [`Filter`](crate::Filter)s):
/// (graph key, name, array).
type Registry = Vec<(u64, &'static str, Weak<dyn Any + Send + Sync>)>;
static REGISTRY: Mutex<Registry> = Mutex::new(Vec::new());

/// This process's array `name` of the graph with key `key`, made by `make`
/// when none is live: every trustee of the process that asks with the same
/// key and name gets the same array while any of them holds it.
///
/// # Panics
///
/// When a live array of that name has another type.
pub(crate) fn per_process<T: Any + Send + Sync>(
    key: u64,
    name: &'static str,
    make: impl FnOnce() -> T,
) -> Arc<T> {
    let mut reg = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    reg.retain(|(_, _, w)| w.strong_count() > 0);
    if let Some(any) = reg
        .iter()
        .find(|(k, n, _)| *k == key && *n == name)
        .and_then(|(_, _, w)| w.upgrade())
    {
        return any.downcast::<T>().unwrap_or_else(|_| {
            panic!("graph-kernel: per-process array `{name}` already exists with another type")
        });
    }
    let t = Arc::new(make());
    let weak: Weak<dyn Any + Send + Sync> = Arc::downgrade(&t) as Weak<dyn Any + Send + Sync>;
    reg.push((key, name, weak));
    t
}

/// A dense array of 64-bit words shared by this process's trustees; see the
/// module docs.
#[derive(Debug, Default)]
pub struct Replica {
    words: Box<[AtomicU64]>,
}

impl Replica {
    /// This process's replica `name` of the graph `adj` belongs to, with
    /// `len` words (all zero when new). Every trustee of the process that
    /// asks with the same graph and name gets the same array while any of
    /// them holds it.
    ///
    /// # Panics
    ///
    /// When a live replica of that name has another length (two kernels
    /// using one name for different arrays).
    pub fn shared(adj: &Adjacency, name: &'static str, len: usize) -> Arc<Replica> {
        let r = per_process(adj.key(), name, || Replica {
            words: (0..len).map(|_| AtomicU64::new(0)).collect(),
        });
        assert_eq!(
            r.words.len(),
            len,
            "graph-kernel: replica `{name}` already exists with another length"
        );
        r
    }

    /// A bitmap over the graph's flat ids (one bit per vertex).
    pub fn bitmap(adj: &Adjacency, name: &'static str) -> Arc<Replica> {
        Self::shared(adj, name, adj.num_flat() as usize / 64)
    }

    /// One word per flat id (e.g. an `f64`'s bits per vertex).
    pub fn per_vertex(adj: &Adjacency, name: &'static str) -> Arc<Replica> {
        Self::shared(adj, name, adj.num_flat() as usize)
    }

    /// The words themselves (a [`Local`](crate::Local) in a pull step
    /// reads the frontier bitmap through them).
    #[inline(always)]
    pub(crate) fn words(&self) -> &[AtomicU64] {
        &self.words
    }

    /// Number of words.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// True when there are no words.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Word `i`.
    #[inline(always)]
    pub fn get(&self, i: usize) -> u64 {
        self.words[i].load(Relaxed)
    }

    /// The sum of the words at `idx` read as `f64`, added in `idx`'s order
    /// (the same bits as a loop). A row of 1 to 4 entries (a road grid's
    /// hold 2 to 4 at random) is summed without a branch on its length,
    /// which a loop's exit would mispredict every few rows: 4 reads, those
    /// past its end of its first entry, counted as 0. (Pull-style PageRank
    /// gained a quarter of its time on grids from this.)
    #[inline(always)]
    pub fn sum_f64(&self, idx: &[u32]) -> f64 {
        let n = idx.len();
        if !(1..=4).contains(&n) {
            return idx
                .iter()
                .map(|&f| f64::from_bits(self.get(f as usize)))
                .sum();
        }
        let mut sum = 0.0;
        for k in 0..4 {
            let x = self.get(idx[if k < n { k } else { 0 }] as usize);
            sum += f64::from_bits(if k < n { x } else { 0 });
        }
        sum
    }

    /// Sets word `i` (only the trustee that owns it, see the module docs).
    #[inline(always)]
    pub fn set(&self, i: usize, x: u64) {
        self.words[i].store(x, Relaxed)
    }

    /// Bit `f` of a bitmap.
    #[inline(always)]
    pub fn bit(&self, f: u32) -> bool {
        self.get((f >> 6) as usize) & (1u64 << (f & 63)) != 0
    }

    /// Sets bit `f` of a bitmap (only its owner; not atomic with other
    /// writers of the same word, which the ownership rule excludes).
    #[inline(always)]
    pub fn set_bit(&self, f: u32) {
        let i = (f >> 6) as usize;
        self.set(i, self.get(i) | (1u64 << (f & 63)));
    }

    /// Sets bit `f` of a bitmap atomically: for a bitmap that several
    /// trustees of a process set bits of at once (each in the other's
    /// words). A bit already set costs a load, not a read-modify-write of
    /// a line the other trustees read (a run only sets bits).
    #[inline]
    pub fn set_bit_shared(&self, f: u32) {
        let (word, bit) = (&self.words[(f >> 6) as usize], 1u64 << (f & 63));
        if word.load(Relaxed) & bit == 0 {
            word.fetch_or(bit, Relaxed);
        }
    }

    /// Zeroes words `range`.
    pub fn clear(&self, range: Range<usize>) {
        for w in &self.words[range] {
            w.store(0, Relaxed);
        }
    }

    /// Copies `src` into the words from `at` on.
    pub fn store(&self, at: usize, src: &[u64]) {
        for (w, &x) in self.words[at..at + src.len()].iter().zip(src) {
            w.store(x, Relaxed);
        }
    }

    /// A copy of words `range`.
    pub fn load(&self, range: Range<usize>) -> Vec<u64> {
        self.words[range].iter().map(|w| w.load(Relaxed)).collect()
    }

    /// `(index, word)` pairs of the words at `at`, flattened.
    pub(crate) fn load_pairs(&self, at: impl ExactSizeIterator<Item = usize>) -> Vec<u64> {
        let mut pairs = Vec::with_capacity(2 * at.len());
        for i in at {
            pairs.extend([i as u64, self.words[i].load(Relaxed)]);
        }
        pairs
    }

    /// Stores flattened `(index, word)` pairs, as [`load_pairs`](Self::load_pairs)
    /// made them.
    pub(crate) fn store_pairs(&self, pairs: &[u64]) {
        for p in pairs.chunks_exact(2) {
            self.words[p[0] as usize].store(p[1], Relaxed);
        }
    }
}

/// What a trustee publishes of a replica: a run of its words from an
/// index, or flattened `(index, word)` pairs.
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) enum Words {
    Run(usize, Vec<u64>),
    Pairs(Vec<u64>),
}

/// Copies words `range` of the replica `home` finds in a trustee's state
/// to one trustee of every other process (where the same `home` finds
/// that process's replica, which all its trustees share), in POD slices
/// of slot-sized pieces; returns the requests sent. Within a process the
/// trustees share the replica already.
pub(crate) fn publish_by<H>(ctx: &TrusteeCtx, range: Range<usize>, home: H) -> u64
where
    H: Fn(&mut TrusteeState) -> &Replica + Delegable,
{
    let (a, b) = (range.start, range.end);
    publish_words(ctx, move |s| Words::Run(a, home(s).load(a..b)), home)
}

/// [`publish_by`] of the words `load` picks (called only when there is
/// another process to send them to).
pub(crate) fn publish_words<L, H>(ctx: &TrusteeCtx, load: L, home: H) -> u64
where
    L: FnOnce(&mut TrusteeState) -> Words + Delegable,
    H: Fn(&mut TrusteeState) -> &Replica + Delegable,
{
    // One trustee of every other process (its trustees share one replica),
    // the one at this trustee's place among its own process's, so that the
    // stores spread over the receiving process's workers.
    let me = ctx.local.trustee();
    // The peers come by worker, and workers rank by rank: one pass groups
    // them (were they not in order, a process would only get two copies).
    let mut by_process: Vec<(usize, Vec<&gossamer::Trust<TrusteeState>>)> = Vec::new();
    for p in &ctx.peers {
        let process = gossamer::process_of(p.trustee());
        match by_process.last_mut() {
            Some((q, ps)) if *q == process => ps.push(p),
            _ => by_process.push((process, vec![p])),
        }
    }
    let here = gossamer::process_of(me);
    let place = by_process
        .iter()
        .find(|(q, _)| *q == here)
        .and_then(|(_, ps)| ps.iter().position(|p| p.trustee() == me))
        .unwrap_or(0);
    let others = by_process.iter().filter(|(q, _)| *q != here);
    let contacts: Vec<_> = others.clone().map(|(_, ps)| ps[place % ps.len()]).collect();
    let shared = others.clone().any(|(_, ps)| ps.len() > 1);
    if contacts.is_empty() {
        return 0;
    }
    let words = ctx.local.apply_returning(load);
    let mut sent = 0;
    for peer in contacts {
        match &words {
            Words::Run(start, words) => {
                for (i, piece) in words.chunks(WORDS_PIECE).enumerate() {
                    let at = start + i * WORDS_PIECE;
                    peer.apply_slice_then(move |s, w: &[u64]| home(s).store(at, w), piece, |()| {});
                    sent += 1;
                }
            }
            Words::Pairs(pairs) => {
                for piece in pairs.chunks(WORDS_PIECE) {
                    peer.apply_slice_then(
                        move |s, w: &[u64]| home(s).store_pairs(w),
                        piece,
                        |()| {},
                    );
                    sent += 1;
                }
            }
        }
    }
    // The contact's stores are read by every trustee of its process after
    // the next collective round, but only the contact's requests from here
    // are ordered before that round's messages from here: where a process
    // has other trustees, wait until they are applied (one round trip per
    // publish, not per piece).
    if shared && sent > 0 {
        gossamer::wait_outstanding();
    }
    sent
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sum_f64_adds_the_words_named_in_order_whatever_the_rows_length() {
        let r = Replica {
            words: (0..8)
                .map(|i| AtomicU64::new((i as f64 * 0.5).to_bits()))
                .collect(),
        };
        for row in [
            &[][..],
            &[3],
            &[1, 7],
            &[2, 2, 5],
            &[0, 6, 4, 1],
            &[1, 2, 3, 4, 5, 6],
        ] {
            let want: f64 = row.iter().map(|&f| f as f64 * 0.5).sum();
            assert_eq!(r.sum_f64(row).to_bits(), want.to_bits(), "row {row:?}");
        }
    }
}
