//! `prepare`: the collective step that renumbers a graph once for every
//! kernel (positions exchanged, tables filed once per process), and
//! `shared`, the prepared handle a kernel keeps.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use gossamer::Op;

use graph_core::sharded::{TrusteeCtx, TrusteeState};

use super::flat::Adjacency;
use super::renumber::{degree_ranks, file_positions, take_tables};
use super::rows::RowsFormat;

/// Draws for graph keys: unique within this process.
static NEXT_KEY: AtomicU64 = AtomicU64::new(1);

/// Positions per message while preparing (32 KiB of `u32`: half a 64 KiB slot).
const RANK_PIECE: usize = 8192;

/// Where the prepared adjacency is kept in a trustee's property.
#[derive(Default)]
struct Prepared(Option<Arc<Adjacency>>);

/// While preparing: whether this trustee is the first of its process (the
/// one that files the positions every trustee sends into this process's
/// tables, `renumber.rs`).
#[derive(Default)]
struct Building {
    files: bool,
}

/// Prepares the renumbered adjacency on every trustee of the graph, once:
/// a collective step (every trustee's fiber must call it, e.g. first thing
/// in a trustee fiber of [`run`](crate::run) or [`prepare`](crate::prepare));
/// returns at once when it is already prepared. Costs a barrier, an
/// all-reduce and one exchange of `4 B x vertices` per trustee the first
/// time. The rows are stored in `format` (the first preparation of a
/// graph decides; later calls keep what it chose). True when this call
/// prepared it.
pub(crate) fn prepare(ctx: &mut TrusteeCtx, format: RowsFormat) -> bool {
    if ctx
        .local
        .apply(|s| s.kernel::<Prepared>(|_| Prepared::default()).1 .0.is_some())
    {
        return false;
    }
    let me = ctx.me as usize;
    // The first trustee of each process files everybody's positions.
    let files = (0..me).all(|j| !gossamer::is_local_worker(ctx.peers[j].trustee()));
    let ranks = ctx.local.apply_returning(move |s| {
        s.kernel::<Building>(|_| Building::default()).1.files = files;
        degree_ranks(s.shard())
    });
    // One key for the graph; the all-reduce is also the barrier after
    // which every filing trustee knows its role (in a rack run the fibers
    // of other ranks start later than the local ones).
    let draw = NEXT_KEY.fetch_add(1, Ordering::Relaxed);
    let [key] = ctx.party.all_reduce([draw], [Op::Max]);
    for peer in &ctx.peers {
        let mut at = 0;
        for piece in ranks.chunks(RANK_PIECE) {
            peer.apply_slice_then(
                move |s, r: &[u32]| {
                    if s.kernel::<Building>(|_| Building::default()).1.files {
                        let p = *s.shard().partition();
                        file_positions(key, &p, me, at, r);
                    }
                },
                piece,
                |()| {},
            );
            at += piece.len();
        }
    }
    gossamer::wait_outstanding();
    // Every position is filed in every process before anyone reads.
    ctx.party.barrier();
    ctx.local.apply(move |s| {
        s.drop_kernel::<Building>();
        let tables = take_tables(key, s.shard().partition())
            .expect("graph_kernel::adjacency::prepare: the positions of this graph were not filed in this process");
        let adj = Adjacency::build(s.shard(), tables, key, format);
        // The rows in the shard itself when it allows it (no second copy).
        adj.share_rows(s.shard_mut());
        s.kernel::<Prepared>(|_| Prepared::default()).1 .0 = Some(Arc::new(adj));
    });
    true
}

/// The prepared adjacency of this trustee (`None` before [`prepare`]), as a
/// shared handle a kernel keeps in its state.
pub(crate) fn shared(s: &mut TrusteeState) -> Option<Arc<Adjacency>> {
    s.kernel::<Prepared>(|_| Prepared::default()).1 .0.clone()
}
