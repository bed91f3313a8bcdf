//! [`Local`]: a kernel's view of its own trustee inside a sweep or a
//! [`with`](crate::Kernel::with): its vertices by position, their rows as
//! flat ids, its state, the frontiers, and sending.

use graph_core::Shard;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::addressed::TRUSTEE;
use crate::adjacency::{Adjacency, PackedView, Rows, RowsView};
use crate::frontier::Frontier;
use crate::net::Net;
use crate::program::Program;
use crate::replica::Replica;

/// The own trustee's view for program `P`.
///
/// Vertices are named two ways (see [`Adjacency`]): an own vertex by its
/// *position* `v` (`0..num_own()`, the index of every per-vertex array of
/// the state), any vertex by its *flat id* `f` (what rows hold and what
/// [`send`](Self::send) takes). [`flat`](Self::flat) and
/// [`own`](Self::own) convert; [`global`](Self::global) and
/// [`position_of`](Self::position_of) translate to and from the graph's
/// global ids (roots, reports).
///
/// Rows are the graph's adjacency as a simple graph: sorted, parallel
/// edges merged and self-loops dropped (so [`degree`](Self::degree) counts
/// distinct neighbours other than the vertex itself, which a sequential
/// reference must count the same way). They are plain or compressed
/// ([`RowsFormat`](crate::RowsFormat)): [`row`](Self::row) and
/// [`in_row`](Self::in_row) hand out slices of plain rows only;
/// [`for_each_target`](Self::for_each_target),
/// [`find_target`](Self::find_target) and
/// [`find_in_target`](Self::find_in_target) read both, and
/// [`read_in_row`](Self::read_in_row) hands out an in-row as a slice in
/// either format (a compressed one decoded into a buffer).
pub struct Local<'a, P: Program> {
    shard: &'a Shard,
    adj: &'a Adjacency,
    /// The rows, if built: a kernel that reads only its own rows (SSSP's
    /// weighted split) never builds them.
    rows: Option<&'a Rows>,
    /// The same rows as plain slices, for [`row`](Self::row).
    view: Option<RowsView<'a>>,
    /// The in-rows as plain slices, for [`in_row`](Self::in_row) (the
    /// rows themselves on an undirected graph).
    in_view: Option<RowsView<'a>>,
    /// The rows and in-rows when compressed (then the views are `None`).
    packed: Option<PackedView<'a>>,
    in_packed: Option<PackedView<'a>>,
    prog: &'a mut P,
    net: &'a mut Net<P>,
    cur: &'a Frontier,
    next: &'a mut Frontier,
    /// The words of the frontier bitmap of a pull step, else none. A
    /// slice, not the `&Replica`: its pointer and length then stay in
    /// registers through a row's search (the relaxed loads of the words
    /// keep the compiler from hoisting loads through a reference out of
    /// the loop).
    bits: &'a [AtomicU64],
    supersteps: u32,
}

impl<'a, P: Program> Local<'a, P> {
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn new(
        shard: &'a Shard,
        adj: &'a Adjacency,
        prog: &'a mut P,
        net: &'a mut Net<P>,
        cur: &'a Frontier,
        next: &'a mut Frontier,
        bits: Option<&'a Replica>,
        supersteps: u32,
    ) -> Self {
        let rows = adj.rows_if_built();
        let in_rows = if shard.is_directed() {
            adj.in_rows_if_built()
        } else {
            rows
        };
        Local {
            rows,
            view: rows.and_then(Rows::view),
            in_view: in_rows.and_then(Rows::view),
            packed: rows.and_then(Rows::packed_view),
            in_packed: in_rows.and_then(Rows::packed_view),
            shard,
            adj,
            prog,
            net,
            cur,
            next,
            bits: bits.map_or(&[], Replica::words),
            supersteps,
        }
    }

    /// This trustee's index.
    #[inline]
    pub fn me(&self) -> u32 {
        self.adj.me()
    }

    /// The kernel's state on this trustee.
    #[inline(always)]
    pub fn state(&mut self) -> &mut P {
        self.prog
    }

    /// The renumbered adjacency (flat ids, owners, positions).
    #[inline(always)]
    pub fn adjacency(&self) -> &'a Adjacency {
        self.adj
    }

    /// This trustee's shard as built (global ids, weights).
    #[inline]
    pub fn shard(&self) -> &'a Shard {
        self.shard
    }

    /// Number of own vertices (positions `0..num_own()`).
    #[inline(always)]
    pub fn num_own(&self) -> u32 {
        self.adj.num_own()
    }

    /// Supersteps ended so far in this run.
    #[inline(always)]
    pub fn supersteps(&self) -> u32 {
        self.supersteps
    }

    /// Flat id of own position `v`.
    #[inline(always)]
    pub fn flat(&self, v: u32) -> u32 {
        self.adj.flat(v)
    }

    /// The position of flat id `f` if this trustee owns it.
    #[inline(always)]
    pub fn own(&self, f: u32) -> Option<u32> {
        self.adj.own(f)
    }

    /// Global id of flat id `f`.
    #[inline]
    pub fn global(&self, f: u32) -> u32 {
        self.adj.global_of(f)
    }

    /// Flat id of global id `g`.
    #[inline]
    pub fn flat_of(&self, g: u64) -> u32 {
        self.adj.flat_of(g as u32)
    }

    /// The position of global vertex `g` if this trustee owns it (a root).
    pub fn position_of(&self, g: u64) -> Option<u32> {
        self.own(self.flat_of(g))
    }

    /// Own vertex `v`'s neighbours (out-neighbours on a directed graph), as
    /// flat ids, ascending.
    ///
    /// # Panics
    ///
    /// On compressed rows ([`RowsFormat::Compressed`](crate::RowsFormat)):
    /// read those with [`for_each_target`](Self::for_each_target) or
    /// [`find_target`](Self::find_target).
    #[inline(always)]
    pub fn row(&self, v: u32) -> &'a [u32] {
        match &self.view {
            Some(r) => r.row(v),
            None => self.rows().row(v),
        }
    }

    /// Own vertex `v`'s in-neighbours (the row on an undirected graph).
    ///
    /// # Panics
    ///
    /// On compressed rows, as [`row`](Self::row); see
    /// [`find_in_target`](Self::find_in_target).
    #[inline(always)]
    pub fn in_row(&self, v: u32) -> &'a [u32] {
        match &self.in_view {
            Some(r) => r.row(v),
            None => self.in_rows().row(v),
        }
    }

    /// Own vertex `v`'s in-neighbours ([`in_row`](Self::in_row)) as a
    /// slice, plain or compressed rows alike: a plain in-row itself, a
    /// compressed one decoded into `buf` (cleared first). For a kernel
    /// that hands the whole row to a function of slices (PageRank's sum
    /// of contributions), with the same slices whatever the format.
    #[inline(always)]
    pub fn read_in_row<'x>(&self, v: u32, buf: &'x mut Vec<u32>) -> &'x [u32]
    where
        'a: 'x,
    {
        // Plain rows as `in_row` reads them (on a grid's 4-entry rows a
        // match on both views in the loop cost PageRank 10-15%).
        match &self.in_view {
            Some(r) => r.row(v),
            None => self.decode_in_row(v, buf),
        }
    }

    /// [`read_in_row`](Self::read_in_row) of rows that are not plain.
    #[inline(never)]
    fn decode_in_row<'x>(&self, v: u32, buf: &'x mut Vec<u32>) -> &'x [u32]
    where
        'a: 'x,
    {
        match &self.in_packed {
            Some(p) => p.decode(v, buf),
            None => self.in_rows().read(v, buf),
        }
    }

    /// Calls `f(self, f)` for each neighbour `f` of own vertex `v` (as
    /// [`row`](Self::row): flat ids, ascending), plain or compressed rows
    /// alike. `f` may send ([`send_first`](Self::send_first) and the like).
    ///
    /// On plain rows this costs what a loop over [`row`](Self::row)'s
    /// slice costs: `f` is called from one place only, the loop over a
    /// slice that is the plain row itself or a compressed row decoded
    /// first. (Called from a loop per format, a kernel's closure with a
    /// `send_first` in it was compiled out of line and called per entry:
    /// a BFS on a 2048 x 2048 grid then took 6-8% longer on one thread.)
    #[inline(always)]
    pub fn for_each_target(&mut self, v: u32, mut f: impl FnMut(&mut Self, u32)) {
        let plain = match (self.view, self.packed) {
            (Some(r), _) => Some(r),
            (None, Some(_)) => None,
            (None, None) => self.rows().view(),
        };
        // Set only for a compressed row: a plain row's loop writes nothing.
        let mut short: [u32; SHORT_ROW];
        let mut long = Vec::new();
        let row = match plain {
            Some(r) => r.row(v),
            None => {
                short = [0; SHORT_ROW];
                self.decode(v, &mut short, &mut long)
            }
        };
        for &t in row {
            f(self, t);
        }
        if long.capacity() > 0 {
            self.net.scratch = long;
        }
    }

    /// Own vertex `v`'s compressed row, decoded into `short` if it fits,
    /// else into `long`, which takes the scratch vector (a visit inside
    /// `f` then finds it empty and makes its own).
    #[inline(always)]
    fn decode<'s>(
        &mut self,
        v: u32,
        short: &'s mut [u32; SHORT_ROW],
        long: &'s mut Vec<u32>,
    ) -> &'s [u32] {
        let (rows, packed) = (self.rows(), self.packed);
        let n = rows.degree(v) as usize;
        if n <= SHORT_ROW {
            let mut i = 0;
            let mut put = |t| {
                short[i] = t;
                i += 1;
            };
            match packed {
                Some(p) => p.for_each(v, &mut put),
                None => rows.for_each(v, &mut put),
            }
            &short[..n]
        } else {
            *long = std::mem::take(&mut self.net.scratch);
            long.clear();
            long.reserve(n);
            let mut put = |t| long.push(t);
            match packed {
                Some(p) => p.for_each(v, &mut put),
                None => rows.for_each(v, &mut put),
            }
            &long[..]
        }
    }

    /// The first neighbour of own vertex `v` (ascending flat ids, as
    /// [`row`](Self::row)) for which `pred` holds, reading no further;
    /// plain or compressed rows alike.
    #[inline(always)]
    pub fn find_target(&self, v: u32, pred: impl FnMut(u32) -> bool) -> Option<u32> {
        match (&self.view, &self.packed) {
            (Some(r), _) => find_in_slice(r.row(v), pred),
            (None, Some(p)) => p.find(v, pred),
            (None, None) => self.rows().find(v, pred),
        }
    }

    /// [`find_target`](Self::find_target) along the in-row
    /// ([`in_row`](Self::in_row)): the first in-neighbour of `v` for which
    /// `pred` holds (a bottom-up search's parent).
    #[inline(always)]
    pub fn find_in_target(&self, v: u32, pred: impl FnMut(u32) -> bool) -> Option<u32> {
        match (&self.in_view, &self.in_packed) {
            (Some(r), _) => find_in_slice(r.row(v), pred),
            (None, Some(p)) => p.find(v, pred),
            (None, None) => self.in_rows().find(v, pred),
        }
    }

    /// The in-rows of every own vertex: the tails of the arcs into it on a
    /// directed graph (built on first use, see [`Prepare::InRows`](crate::Prepare::InRows)),
    /// the [`rows`](Self::rows) on an undirected one.
    #[inline(always)]
    pub fn in_rows(&self) -> &'a Rows {
        if self.shard.is_directed() {
            self.adj.in_rows(self.shard)
        } else {
            self.rows()
        }
    }

    /// Whether the graph is directed (rows hold out-edges only).
    #[inline]
    pub fn is_directed(&self) -> bool {
        self.shard.is_directed()
    }

    /// `row(v).len()` (the row's targets, in either format).
    #[inline(always)]
    pub fn degree(&self, v: u32) -> u64 {
        match (&self.view, &self.packed) {
            (Some(r), _) => r.degree(v),
            (None, Some(p)) => p.degree(v),
            (None, None) => self.rows().degree(v),
        }
    }

    /// `1 / degree(v)` (0 for a vertex without targets), from a table for
    /// degrees below 64: a multiplication where a division per vertex would
    /// wait for the divider (half of pull-style PageRank's samples on a grid).
    #[inline(always)]
    pub fn inverse_degree(&self, v: u32) -> f64 {
        let d = self.degree(v);
        match INVERSE.get(d as usize) {
            Some(&x) => x,
            None => 1.0 / d as f64,
        }
    }

    /// The rows of every own vertex (built on first use; see
    /// [`prepare`](crate::prepare)).
    #[inline(always)]
    pub fn rows(&self) -> &'a Rows {
        match self.rows {
            Some(r) => r,
            None => self.adj.rows(self.shard),
        }
    }

    /// The work of visiting own vertex `v` in a sweep: 1, plus its row's
    /// length if the rows are built.
    #[inline(always)]
    pub(crate) fn work(&self, v: u32) -> usize {
        1 + match (&self.view, &self.packed) {
            (Some(r), _) => r.degree(v) as usize,
            (None, Some(p)) => p.degree(v) as usize,
            (None, None) => 0,
        }
    }

    /// Asks the cache for what a push sweep will read soon (a hint, no
    /// effect on results), `next(k)` naming the vertex it visits `k` after
    /// the current one: 16 ahead its row's offset and length, 8 ahead the
    /// start of its row, 4 ahead the state of its first 8 targets that are
    /// own ([`Program::prefetch`]). Nothing when the rows are not built.
    #[inline(always)]
    pub(crate) fn prefetch_ahead(&self, next: impl Fn(usize) -> Option<u32>) {
        let Some(rows) = &self.view else {
            if let Some(p) = &self.packed {
                self.prefetch_ahead_packed(p, next);
            }
            return;
        };
        if let Some(v) = next(16) {
            rows.prefetch_span(v);
        }
        if let Some(v) = next(8) {
            rows.prefetch_row(v);
        }
        for &f in next(4).map_or(&[][..], |v| rows.row(v)).iter().take(8) {
            if let Some(u) = self.adj.own(f) {
                self.prog.prefetch(u);
            }
        }
    }

    /// [`prefetch_ahead`](Self::prefetch_ahead) on compressed rows: the
    /// same distances, but only the first target's state (decoding eight
    /// to find theirs, as the plain rows' prefetch reads, made a BFS on
    /// the symmetrized 2048 x 2048 grid 0.23-0.25 s a search against
    /// 0.18-0.21 s for the first alone; no difference at SCALE 20).
    #[inline(always)]
    fn prefetch_ahead_packed(&self, rows: &PackedView<'a>, next: impl Fn(usize) -> Option<u32>) {
        if let Some(v) = next(16) {
            rows.prefetch_span(v);
        }
        if let Some(v) = next(8) {
            rows.prefetch_row(v);
        }
        if let Some(v) = next(4) {
            rows.find(v, |f| {
                if let Some(u) = self.adj.own(f) {
                    self.prog.prefetch(u);
                }
                true
            });
        }
    }

    /// Sends `msg` to the vertex with flat id `f`: applied at once with
    /// [`Program::receive`] when this trustee owns it (and activated if
    /// `receive` says so), queued for its owner otherwise.
    #[inline(always)]
    pub fn send(&mut self, f: u32, msg: P::Msg) {
        match self.adj.own(f) {
            Some(v) => self.receive(v, msg),
            None => self.send_remote(f, msg),
        }
    }

    /// [`send`](Self::send), but at most once per vertex of another trustee
    /// in a run (a sender-side filter for messages where the first one
    /// wins, such as a BFS visit: 1 bit per vertex of the graph on this
    /// trustee). Own vertices always receive.
    #[inline(always)]
    pub fn send_first(&mut self, f: u32, msg: P::Msg) {
        match self.adj.own(f) {
            Some(v) => self.receive(v, msg),
            None if self.net.first_time(f, self.adj.num_flat()) => self.send_remote(f, msg),
            None => {}
        }
    }

    /// Queues `msg` for the owner of flat id `f`, which must not be this
    /// trustee (a kernel that handles own vertices itself, as SSSP does).
    #[inline(always)]
    pub fn send_remote(&mut self, f: u32, msg: P::Msg) {
        let (o, v) = self.adj.locate(f);
        self.net.push(o, v, msg);
    }

    /// The state and a [`Sender`] apart, for a kernel whose inner loop
    /// reads parts of its state (its own rows, bounds) while it sends.
    #[inline(always)]
    pub fn split(&mut self) -> (&mut P, Sender<'_, P>) {
        let out = Sender {
            adj: self.adj,
            shard: self.shard,
            net: self.net,
        };
        (self.prog, out)
    }

    /// Sends `msg` to trustee `t` itself ([`Program::receive_here`]), not
    /// to one of its vertices; to this trustee it is applied at once.
    #[inline]
    pub fn send_to_trustee(&mut self, t: u32, msg: P::Msg) {
        if t == self.me() {
            self.prog.receive_here(msg);
        } else {
            self.net.push(t as usize, TRUSTEE, msg);
        }
    }

    /// Applies `msg` to own vertex `v` now, as an arriving message would be.
    #[inline(always)]
    pub fn receive(&mut self, v: u32, msg: P::Msg) {
        self.net.stats.local += 1;
        if self.prog.receive(v, msg) {
            self.next.insert(v);
        }
    }

    /// Records queued for other trustees since the sweep's step began.
    #[inline(always)]
    pub(crate) fn queued(&self) -> usize {
        self.net.queued
    }

    /// Puts own vertex `v` into the next frontier.
    #[inline(always)]
    pub fn activate(&mut self, v: u32) {
        self.next.insert(v);
    }

    /// Puts every own vertex into the next frontier.
    pub fn activate_all(&mut self) {
        self.next.insert_all();
    }

    /// Whether own vertex `v` is in the current frontier.
    #[inline]
    pub fn is_active(&self, v: u32) -> bool {
        self.cur.contains(v)
    }

    /// The current frontier (positions).
    #[inline]
    pub fn frontier(&self) -> &'a Frontier {
        self.cur
    }

    /// Inside a pull step ([`Kernel::step`](crate::Kernel::step)): whether
    /// flat id `f`, of any trustee, is in the current frontier.
    ///
    /// # Panics
    ///
    /// Outside a pull step (the frontier of other trustees is not here).
    #[inline(always)]
    pub fn was_active(&self, f: u32) -> bool {
        // One bounds check, no Option to test per entry: a pull step's
        // search along a row stays a tight loop (10% of a SCALE 20 BFS).
        match self.bits.get((f >> 6) as usize) {
            Some(w) => w.load(Relaxed) & (1u64 << (f & 63)) != 0,
            None => not_in_a_pull_step(f),
        }
    }
}

/// The first entry of `row` for which `pred` holds.
#[inline(always)]
fn find_in_slice(row: &[u32], mut pred: impl FnMut(u32) -> bool) -> Option<u32> {
    row.iter().copied().find(|&t| pred(t))
}

#[cold]
#[inline(never)]
fn not_in_a_pull_step(f: u32) -> ! {
    panic!("graph-kernel: Local::was_active({f}) outside a pull step (Kernel::step), or {f} is no flat id")
}

/// Sending to other trustees' vertices beside a borrowed state (see
/// [`Local::split`]).
pub struct Sender<'l, P: Program> {
    adj: &'l Adjacency,
    shard: &'l Shard,
    net: &'l mut Net<P>,
}

impl<'l, P: Program> Sender<'l, P> {
    /// The adjacency whose flat ids it sends to.
    #[inline(always)]
    pub fn adjacency(&self) -> &'l Adjacency {
        self.adj
    }

    /// This trustee's shard as built ([`Local::shard`]): its weights, or
    /// rows a kernel rewrote in place.
    #[inline(always)]
    pub fn shard(&self) -> &'l Shard {
        self.shard
    }

    /// [`Local::send_remote`]: queues `msg` for the owner of flat id `f`,
    /// which is not this trustee.
    #[inline(always)]
    pub fn send_remote(&mut self, f: u32, msg: P::Msg) {
        let (o, v) = self.adj.locate(f);
        self.net.push(o, v, msg);
    }

    /// [`Local::send_to_trustee`] to another trustee `t` (not this one:
    /// the state is borrowed apart, so a kernel applies its own records to
    /// it directly).
    #[inline(always)]
    pub fn send_to_trustee(&mut self, t: u32, msg: P::Msg) {
        debug_assert_ne!(t, self.adj.me(), "Sender::send_to_trustee to this trustee");
        self.net.push(t as usize, TRUSTEE, msg);
    }
}

/// Compressed rows up to this long are decoded on the stack
/// ([`Local::for_each_target`]).
const SHORT_ROW: usize = 16;

/// `1 / k` for `k` below 64, 0 for 0 ([`Local::inverse_degree`]).
const INVERSE: [f64; 64] = {
    let mut t = [0.0; 64];
    let mut k = 1;
    while k < 64 {
        t[k] = 1.0 / k as f64;
        k += 1;
    }
    t
};
