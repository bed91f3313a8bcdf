//! One copy per process of an array of words that every trustee of a
//! [`ShardedGraph`] reads (e.g. a search's answer, for validation).
//!
//! [`publish`] is called from a fiber of the process that holds the array
//! (rank 0 in a rack run). The trustees of that process share the caller's
//! array (an `Arc` in this process's registry, no copy). For every other
//! process (rank) that holds trustees of the graph, the array travels once,
//! in bulk: as plain `u64` slices through
//! [`Trust::apply_slice_chunked_then`](gossamer::Trust::apply_slice_chunked_then)
//! to one trustee of that process (pieces sized to fill the request slots,
//! pipelined, applied in order), whose closure appends them to that
//! process's registry. Which trustees share a process is asked, not
//! assumed: one small `spawn_on_with` per process returns which of the
//! graph's trustees are local there.
//!
//! A trustee reads the array with [`get`] by the id of the [`Published`]
//! handle; dropping the handle removes the array from every process's
//! registry (also when validation failed).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use gossamer::{Trust, WorkerId};

use crate::sharded::{ShardedGraph, TrusteeState};

/// An array being received (`words.len() < total`) or complete.
enum Entry {
    Filling { total: usize, words: Vec<u64> },
    Ready(Arc<Vec<u64>>),
}

/// This process's arrays by id.
static REGISTRY: Mutex<Vec<(u64, Entry)>> = Mutex::new(Vec::new());

/// Ids are unique per publishing worker: (worker << 40) | counter.
static NEXT: AtomicU64 = AtomicU64::new(0);

fn registry() -> std::sync::MutexGuard<'static, Vec<(u64, Entry)>> {
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
}

/// The handle of a published array: its id, and one trustee per other
/// process that holds a copy. Dropping it frees every copy.
pub(crate) struct Published {
    id: u64,
    contacts: Vec<Trust<TrusteeState>>,
}

impl Published {
    /// The id trustees pass to [`get`].
    pub(crate) fn id(&self) -> u64 {
        self.id
    }
}

impl Drop for Published {
    fn drop(&mut self) {
        remove(self.id);
        if std::thread::panicking() {
            // The run is ending; the other processes drop theirs at exit.
            return;
        }
        let id = self.id;
        for c in &self.contacts {
            c.apply(move |_| remove(id));
        }
    }
}

/// Makes `words` readable by every trustee of `g` through [`get`], with one
/// copy per process. Call from a fiber (it waits until every copy is in place).
pub(crate) fn publish(g: &ShardedGraph, words: Vec<u64>) -> Published {
    let me = gossamer::current_worker().index() as u64;
    let id = (me << 40) | (NEXT.fetch_add(1, Ordering::Relaxed) & ((1 << 40) - 1));
    let total = words.len();
    let trustees: Vec<WorkerId> = (0..g.num_trustees())
        .map(|t| g.trustee(t).trustee())
        .collect();
    let mut covered: Vec<bool> = trustees
        .iter()
        .map(|&w| gossamer::is_local_worker(w))
        .collect();
    let mut contacts = Vec::new();
    for t in 0..trustees.len() {
        if covered[t] {
            continue;
        }
        // Which of the graph's trustees live in trustee t's process.
        let here: Vec<bool> = gossamer::spawn_on_with(
            trustees[t],
            |workers: Vec<u64>| {
                workers
                    .iter()
                    .map(|&w| gossamer::is_local_worker(WorkerId(w as usize)))
                    .collect::<Vec<bool>>()
            },
            trustees
                .iter()
                .map(|w| w.index() as u64)
                .collect::<Vec<u64>>(),
        )
        .join();
        for (c, h) in covered.iter_mut().zip(here) {
            *c |= h;
        }
        covered[t] = true;
        contacts.push(g.trustee(t).clone());
    }
    for c in &contacts {
        c.apply_slice_chunked_then(
            move |_: &mut TrusteeState, piece: &[u64]| append(id, total, piece),
            &words,
            |()| {},
        );
    }
    registry().push((id, Entry::Ready(Arc::new(words))));
    gossamer::wait_outstanding();
    Published { id, contacts }
}

/// On a contact trustee: appends one piece of array `id` (pieces arrive in order).
fn append(id: u64, total: usize, piece: &[u64]) {
    let mut reg = registry();
    let i = match reg.iter().position(|(k, _)| *k == id) {
        Some(i) => i,
        None => {
            reg.push((
                id,
                Entry::Filling {
                    total,
                    words: Vec::with_capacity(total),
                },
            ));
            reg.len() - 1
        }
    };
    let done = match &mut reg[i].1 {
        Entry::Filling { total, words } => {
            words.extend_from_slice(piece);
            assert!(
                words.len() <= *total,
                "graph-core: per-rank array {id} got more words than its {total}"
            );
            words.len() == *total
        }
        Entry::Ready(_) => {
            panic!("graph-core: per-rank array {id} got a piece after it was complete")
        }
    };
    if done {
        if let Entry::Filling { words, .. } =
            std::mem::replace(&mut reg[i].1, Entry::Ready(Arc::default()))
        {
            reg[i].1 = Entry::Ready(Arc::new(words));
        }
    }
}

/// This process's copy of published array `id`.
///
/// # Panics
///
/// When this process has no complete copy (not published, or already freed).
pub(crate) fn get(id: u64) -> Arc<Vec<u64>> {
    let reg = registry();
    match reg.iter().find(|(k, _)| *k == id) {
        Some((_, Entry::Ready(a))) => a.clone(),
        Some((_, Entry::Filling { total, words })) => panic!(
            "graph-core: per-rank array {id} is incomplete here ({} of {total} words)",
            words.len()
        ),
        None => panic!("graph-core: per-rank array {id} is not in this process"),
    }
}

/// A cell of [`derived`]: published array id, key, the array once made.
type Derived = (u64, usize, Arc<OnceLock<Arc<Vec<u64>>>>);

/// This process's arrays made from published ones, freed with them.
static DERIVED: Mutex<Vec<Derived>> = Mutex::new(Vec::new());

fn derived_cells() -> std::sync::MutexGuard<'static, Vec<Derived>> {
    DERIVED.lock().unwrap_or_else(|e| e.into_inner())
}

/// An array made from this process's copy of published array `id` by
/// `make`, once per process and `key` (the first trustee to ask makes
/// it, the others of the process wait for it and share it); freed with
/// the published array. E.g. the answer re-indexed by the ids a kernel
/// renamed the shards' targets to, keyed by the address of the names.
pub(crate) fn derived(id: u64, key: usize, make: impl FnOnce(&[u64]) -> Vec<u64>) -> Arc<Vec<u64>> {
    let cell = {
        let mut cells = derived_cells();
        match cells.iter().find(|(i, k, _)| *i == id && *k == key) {
            Some((_, _, c)) => c.clone(),
            None => {
                let c = Arc::new(OnceLock::new());
                cells.push((id, key, c.clone()));
                c
            }
        }
    };
    cell.get_or_init(|| Arc::new(make(&get(id)))).clone()
}

fn remove(id: u64) {
    registry().retain(|(k, _)| *k != id);
    derived_cells().retain(|(i, _, _)| *i != id);
}

/// Whether this process holds array `id` (for tests: freed after use).
#[cfg(test)]
pub(crate) fn holds(id: u64) -> bool {
    registry().iter().any(|(k, _)| *k == id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{EdgeList, PackedEdge, PartitionKind};

    #[test]
    fn every_trustee_reads_the_array_and_it_is_freed_on_drop() {
        static MADE: AtomicU64 = AtomicU64::new(0);
        let (sums, doubled, held, gone) = gossamer::main(3, || {
            let list = EdgeList::from_edges(5, vec![PackedEdge::new(0, 1, 1.0)]).unwrap();
            let g = ShardedGraph::build(&list, PartitionKind::Cyclic).unwrap();
            // More words than one request slot carries.
            let words: Vec<u64> = (0..10_000).collect();
            let p = publish(&g, words);
            let id = p.id();
            let sums = g.on_trustees(move |_| get(id).iter().sum::<u64>());
            // A derived array is made once per process and key, by
            // whichever trustee asks first, and shared.
            let doubled = g.on_trustees(move |_| {
                let d = derived(id, 7, |w| {
                    MADE.fetch_add(1, Ordering::Relaxed);
                    w.iter().map(|x| 2 * x).collect()
                });
                d.iter().sum::<u64>()
            });
            let derived_held = |id| derived_cells().iter().any(|(i, _, _)| *i == id);
            let held = holds(id) && derived_held(id);
            drop(p);
            (sums, doubled, held, !holds(id) && !derived_held(id))
        });
        assert_eq!(sums, vec![49_995_000; 3]);
        assert_eq!(doubled, vec![99_990_000; 3]);
        assert_eq!(MADE.load(Ordering::Relaxed), 1);
        assert!(held && gone);
    }
}
