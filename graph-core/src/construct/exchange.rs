//! What the trustees of a build send each other: the adjacency entries,
//! batched per owner and applied there ([`send`] with `count_degrees`,
//! `place_entries` and their in-edge forms), and whether a step failed
//! anywhere ([`agree`]).

use gossamer::{Op, Trust};

use crate::csr::prefetch;
use crate::sharded::{KernelError, TrusteeCtx, TrusteeState};

/// How many records ahead the owner's loops prefetch.
const AHEAD: usize = 16;

/// Most records queued for one destination before they are sent (a few
/// slots' worth: large enough to fill slots, small enough to stay in cache).
const MAX_SEND_BATCH: usize = 1 << 13;

/// Fewest records queued per destination, however many trustees.
const MIN_SEND_BATCH: usize = 1 << 8;

/// What one trustee's send buffers may hold in all: with many trustees
/// each destination gets a smaller batch, so the buffers stay bounded.
const SEND_BUDGET: usize = 4 << 20;

/// Records queued per destination with `trustees` destinations.
pub(super) fn send_batch(trustees: u64) -> usize {
    let per = SEND_BUDGET / (std::mem::size_of::<Entry>() * trustees.max(1) as usize);
    per.clamp(MIN_SEND_BATCH, MAX_SEND_BATCH)
}

gossamer::pod_struct! {
    /// One adjacency entry on its way to its owner: the row (local index
    /// there), the neighbour's global id and the weight.
    pub(super) struct Entry { pub(super) row: u32, pub(super) target: u32, pub(super) weight: f32 }
}

/// A trustee's shard while it is being received.
#[derive(Default)]
pub(super) struct Building {
    /// Pass 1: degrees at `[l + 1]`; then offsets.
    pub(super) offsets: Vec<u64>,
    /// Directed graphs: the in-edge index, built like the rows.
    pub(super) in_offsets: Vec<u64>,
    pub(super) in_cursor: Vec<u64>,
    pub(super) in_sources: Vec<u32>,
    /// Pass 2: where the next entry of each row goes.
    pub(super) cursor: Vec<u64>,
    /// Rows stored in the kernels' position order (an unweighted build,
    /// [`crate::csr::positions`]): each local vertex's
    /// stored row and where it ends; both empty when rows are stored by
    /// local index (then `offsets[l + 1]` is the end).
    pub(super) slots: Vec<u32>,
    pub(super) end: Vec<u64>,
    pub(super) targets: Vec<u32>,
    /// Empty when the build is unweighted ([`EdgeSource::weighted`](super::EdgeSource::weighted)).
    pub(super) weights: Vec<f32>,
    /// An entry named a row this trustee does not have (never with a sound
    /// source; reported instead of trusted).
    pub(super) stray: u64,
}

impl Building {
    /// Where each local vertex's row ends (what its cursor reaches once
    /// filled).
    pub(super) fn row_ends(&self) -> &[u64] {
        if self.end.is_empty() {
            self.offsets.get(1..).unwrap_or(&[])
        } else {
            &self.end
        }
    }
}

pub(super) fn building(s: &mut TrusteeState) -> &mut Building {
    s.kernel::<Building>(|_| Building::default()).1
}

/// The trustees' results, or the message of the first trustee that
/// failed itself (not one that only heard of another's failure).
pub(crate) fn first_failure<T>(outcomes: Vec<Result<T, String>>) -> Result<Vec<T>, KernelError> {
    let mut oks = Vec::with_capacity(outcomes.len());
    let mut echo = None;
    for o in outcomes {
        match o {
            Ok(x) => oks.push(x),
            Err(m) if m.starts_with(ANOTHER) => echo = echo.or(Some(m)),
            Err(m) => return Err(KernelError::Runtime(m)),
        }
    }
    match echo {
        Some(m) => Err(KernelError::Runtime(m)),
        None => Ok(oks),
    }
}

/// How a trustee that did not fail reports a step that failed elsewhere.
pub(crate) const ANOTHER: &str = "another trustee";

/// An all-reduce of "did this step fail here?": every trustee learns
/// whether any failed; the first to fail keeps its own message.
pub(crate) fn agree(
    ctx: &mut TrusteeCtx,
    failed: Option<String>,
    step: &str,
) -> Result<(), String> {
    let [any] = ctx
        .party
        .all_reduce([u64::from(failed.is_some())], [Op::Or]);
    match (failed, any) {
        (Some(m), _) => Err(m),
        (None, 0) => Ok(()),
        (None, _) => Err(format!("{ANOTHER} could not {step}")),
    }
}

/// Sends `buf` to `peer` (pipelined, slot-sized pieces) and empties it.
/// `deliver` is a function item (zero-sized), never a function pointer: a
/// pointer would not mean the same code in another process.
pub(super) fn send<R: gossamer::Pod, F>(peer: &Trust<TrusteeState>, buf: &mut Vec<R>, deliver: F)
where
    F: FnOnce(&mut TrusteeState, &[R]) + gossamer::Delegable,
{
    const { assert!(std::mem::size_of::<F>() == 0) };
    if !buf.is_empty() {
        peer.apply_slice_chunked_then(deliver, buf, |()| {});
        buf.clear();
    }
}

/// Pass 1 on the owner: one more entry for each listed row.
pub(super) fn count_degrees(s: &mut TrusteeState, rows: &[u32]) {
    let n = s.shard().num_local_vertices() as usize;
    let b = building(s);
    if b.offsets.is_empty() {
        b.offsets = crate::alloc::vec_or_exit(n + 1, 0, "CSR offsets");
    }
    for (i, &l) in rows.iter().enumerate() {
        if let Some(ahead) = rows
            .get(i + AHEAD)
            .and_then(|&a| b.offsets.get(a as usize + 1))
        {
            prefetch::line(ahead);
        }
        match b.offsets.get_mut(l as usize + 1) {
            Some(d) => *d += 1,
            None => b.stray += 1,
        }
    }
}

/// Pass 1 on the owner of a directed graph: one more in-edge for each
/// listed vertex.
pub(super) fn count_in_degrees(s: &mut TrusteeState, rows: &[u32]) {
    let n = s.shard().num_local_vertices() as usize;
    let b = building(s);
    if b.in_offsets.is_empty() {
        b.in_offsets = crate::alloc::vec_or_exit(n + 1, 0, "in-edge offsets");
    }
    for &l in rows {
        match b.in_offsets.get_mut(l as usize + 1) {
            Some(d) => *d += 1,
            None => b.stray += 1,
        }
    }
}

/// Pass 2 on the owner of a directed graph: each in-edge (the entry's
/// target is the arc's tail; its weight is not kept) at its cursor.
pub(super) fn place_in_entries(s: &mut TrusteeState, entries: &[Entry]) {
    let b = building(s);
    for e in entries {
        let row = e.row as usize;
        match b.in_cursor.get(row) {
            Some(&c) if c < b.in_offsets[row + 1] => {
                b.in_sources[c as usize] = e.target;
                b.in_cursor[row] = c + 1;
            }
            _ => b.stray += 1,
        }
    }
}

/// Pass 2 on the owner: each entry at its row's cursor.
pub(super) fn place_entries(s: &mut TrusteeState, entries: &[Entry]) {
    let b = building(s);
    // An unweighted build allocated no weights (the weight travels anyway).
    let weighted = !b.weights.is_empty();
    let end: &[u64] = if b.end.is_empty() {
        b.offsets.get(1..).unwrap_or(&[])
    } else {
        &b.end
    };
    for (i, e) in entries.iter().enumerate() {
        // Two-stage prefetch: the cursor of an entry far ahead, then the
        // target and weight lines of a nearer one (its cursor is in cache).
        if let Some(c) = entries
            .get(i + 2 * AHEAD)
            .and_then(|f| b.cursor.get(f.row as usize))
        {
            prefetch::line(c);
        }
        if let Some(&c) = entries
            .get(i + AHEAD)
            .and_then(|f| b.cursor.get(f.row as usize))
        {
            if let Some(t) = b.targets.get(c as usize) {
                prefetch::line(t);
            }
            if let Some(w) = b.weights.get(c as usize) {
                prefetch::line(w);
            }
        }
        let row = e.row as usize;
        match b.cursor.get(row) {
            Some(&c) if c < end[row] => {
                b.targets[c as usize] = e.target;
                if weighted {
                    b.weights[c as usize] = e.weight;
                }
                b.cursor[row] = c + 1;
            }
            _ => b.stray += 1,
        }
    }
}
