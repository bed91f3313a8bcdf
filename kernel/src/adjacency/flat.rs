//! [`Adjacency`]: one trustee's handle on the renumbered graph: flat ids
//! and their owners (one comparison per trustee), positions, global ids,
//! and the unweighted [`Rows`] built on first use.

use std::ops::Range;
use std::sync::{Arc, OnceLock};

use graph_core::{Partition, Shard};

use super::packed::Packed;
use super::renumber::{bases, Tables};
use super::rows::{InPlace, Rows, RowsFormat};

/// "No vertex" in an array of flat ids (e.g. the parent of an unreached
/// vertex).
pub const NO_FLAT: u32 = u32::MAX;

/// The renumbered adjacency of one trustee; see the module docs.
#[derive(Debug)]
pub struct Adjacency {
    partition: Partition,
    me: u32,
    /// First flat id of each trustee (multiples of 64), then the total.
    base: Vec<u32>,
    /// Own vertices: flat ids `lo..lo + n`.
    lo: u32,
    pub(super) n: u32,
    /// Every vertex's flat id and the flat-id map (one copy per
    /// process, shared by its trustees).
    pub(super) tables: Arc<Tables>,
    /// `order[v]`: original local index of own position `v`.
    pub(super) order: Vec<u32>,
    /// The unweighted rows, built on first use.
    rows: OnceLock<Rows>,
    /// Directed graphs: the in-edge rows, built on first use.
    in_rows: OnceLock<Rows>,
    /// Own positions with an out-neighbour in another process, built on
    /// first use ([`boundary`](Self::boundary)).
    boundary: OnceLock<Vec<u32>>,
    /// How the rows and in-rows are stored.
    format: RowsFormat,
    key: u64,
}

impl Adjacency {
    /// Builds the rows of `shard` once every trustee's positions (`rank`) are
    /// known.
    pub(super) fn build(shard: &Shard, tables: Arc<Tables>, key: u64, format: RowsFormat) -> Self {
        let p = *shard.partition();
        let me = shard.trustee();
        let (base, _) = bases(&p);
        let n = shard.num_local_vertices() as usize;
        let lo = base[me as usize];
        let mut order = graph_core::alloc::vec_or_exit(n, 0u32, "vertex order by degree");
        for (l, &f) in tables.own(me as usize).iter().enumerate() {
            order[(f - lo) as usize] = l as u32;
        }
        Adjacency {
            partition: p,
            me,
            lo,
            n: n as u32,
            base,
            order,
            tables,
            rows: OnceLock::new(),
            in_rows: OnceLock::new(),
            boundary: OnceLock::new(),
            format,
            key,
        }
    }

    /// How the rows are stored (chosen when the graph was prepared).
    pub fn rows_format(&self) -> RowsFormat {
        self.format
    }

    /// `rows` in this adjacency's format.
    fn in_format(&self, rows: Rows) -> Rows {
        match self.format {
            RowsFormat::Plain => rows,
            RowsFormat::Compressed => rows.compressed(self.lo),
        }
    }

    /// A number that names the graph among those prepared in this process
    /// (the same on every trustee of the graph): what
    /// [`Replica`](crate::Replica)s are found by.
    pub fn key(&self) -> u64 {
        self.key
    }

    /// This trustee's words of a bitmap over flat ids.
    pub fn own_words(&self) -> Range<usize> {
        let first = (self.lo / 64) as usize;
        first..first + self.n.div_ceil(64) as usize
    }

    /// This trustee's words of a per-vertex array over flat ids (one word
    /// per flat id, e.g. [`Replica::per_vertex`](crate::Replica::per_vertex)):
    /// its own flat ids.
    pub fn own_flat(&self) -> Range<usize> {
        self.lo as usize..(self.lo + self.n) as usize
    }

    /// The graph's partition.
    pub fn partition(&self) -> &Partition {
        &self.partition
    }

    /// This trustee's index.
    pub fn me(&self) -> u32 {
        self.me
    }

    /// Number of trustees.
    pub fn num_trustees(&self) -> usize {
        self.base.len() - 1
    }

    /// Number of own vertices (positions `0..num_own()`).
    #[inline]
    pub fn num_own(&self) -> u32 {
        self.n
    }

    /// Number of flat ids (all trustees, with the padding to 64): the length
    /// of an array indexed by flat id.
    #[inline]
    pub fn num_flat(&self) -> u32 {
        self.base[self.base.len() - 1]
    }

    /// First flat id of trustee `o` (a multiple of 64).
    #[inline(always)]
    pub fn base(&self, o: usize) -> u32 {
        self.base[o]
    }

    /// Flat id of own position `v`.
    #[inline(always)]
    pub fn flat(&self, v: u32) -> u32 {
        self.lo + v
    }

    /// The own position of flat id `f`, when this trustee owns it.
    #[inline(always)]
    pub fn own(&self, f: u32) -> Option<u32> {
        let v = f.wrapping_sub(self.lo);
        (v < self.n).then_some(v)
    }

    /// Owner trustee of flat id `f` (branch-free over the trustees: one
    /// comparison each).
    #[inline(always)]
    pub fn owner_of(&self, f: u32) -> usize {
        let n = self.base.len() - 1;
        self.base[1..n].iter().map(|&b| (f >= b) as usize).sum()
    }

    /// Owner of flat id `f` and its position there.
    #[inline(always)]
    pub fn locate(&self, f: u32) -> (usize, u32) {
        let o = self.owner_of(f);
        (o, f - self.base[o])
    }

    /// Position of own local vertex `l` (original local index).
    #[inline]
    pub fn position(&self, l: u32) -> u32 {
        self.tables.own(self.me as usize)[l as usize] - self.lo
    }

    /// Original local index of own position `v`.
    #[inline]
    pub fn local(&self, v: u32) -> u32 {
        self.order[v as usize]
    }

    /// Flat id of global vertex `g`.
    #[inline(always)]
    pub fn flat_of(&self, g: u32) -> u32 {
        self.tables.flat_of(&self.partition, g)
    }

    /// Global id of flat id `f`.
    #[inline]
    pub fn global_of(&self, f: u32) -> u32 {
        self.tables.global_of[f as usize]
    }

    /// The unweighted rows (see [`Rows`]), built from `shard` (this
    /// trustee's) the first time any kernel asks. On a directed graph
    /// ([`Shard::is_directed`]) these are the out-edges.
    pub fn rows(&self, shard: &Shard) -> &Rows {
        self.rows
            .get_or_init(|| self.in_format(self.copy_rows(shard)))
    }

    /// The rows copied out of `shard` (see [`rows`](Self::rows)).
    fn copy_rows(&self, shard: &Shard) -> Rows {
        match shard.renamed() {
            None => Rows::build(
                &self.order,
                |l| shard.adjacency(l).0,
                |v| self.flat_of(v),
                self.num_flat(),
            ),
            // Split in place by this adjacency: flat ids already.
            Some(n) if Arc::ptr_eq(n, &self.tables.global_of) => Rows::build(
                &self.order,
                |l| shard.adjacency(l).0,
                |f| f,
                self.num_flat(),
            ),
            Some(n) => Rows::build(
                &self.order,
                |l| shard.adjacency(l).0,
                |v| self.flat_of(n[v as usize]),
                self.num_flat(),
            ),
        }
    }

    /// Makes the unweighted rows the shard's own array where the shard
    /// allows it ([`Shard::share_rows`]: unweighted, not renamed): its
    /// targets renamed to flat ids, each row ordered and the rows stored
    /// by position (in place when the shard was built that way; otherwise
    /// copied row by row out of a mapped built file or another order,
    /// which the shard then drops), so the process keeps one copy of every
    /// entry; the table the entries are renamed by is prefetched a few
    /// dozen entries ahead ([`Shard::share_rows_ahead`]). Compressed rows
    /// instead take the shard's targets ([`Shard::take_rows`]), coding each
    /// row (its parallel entries after its targets) as the shard gives it
    /// up, so the plain and the compressed arrays are never held whole
    /// together. Otherwise (or
    /// when the rows exist already) nothing:
    /// the rows are copied on first use ([`rows`](Self::rows)).
    pub(super) fn share_rows(&self, shard: &mut Shard) {
        if self.rows.get().is_some() {
            return;
        }
        let names = self.tables.global_of.clone();
        let lo = self.lo;
        let slots: Vec<u32> = self
            .tables
            .own(self.me as usize)
            .iter()
            .map(|&f| f - lo)
            .collect();
        // A shard taken from a built file's ready rows holds them as this
        // preparation would leave them: lent as they are, O(vertices).
        if shard.adopt_names(&names) {
            if let Some(lent) = shard.lend_ready_rows(&names, &slots) {
                let _ = self.rows.set(self.in_format(Rows::ready(lent)));
            }
            return;
        }
        if self.format == RowsFormat::Compressed {
            // The shard gives its targets up as they are coded.
            let taker = Taker {
                adj: self,
                ordered: InPlace::counting(self.num_flat()),
                measuring: InPlace::counting(self.num_flat()),
                builder: Packed::builder(self.n, lo, shard.num_entries()),
            };
            let taken = shard.take_rows(
                names,
                &slots,
                |ids| self.tables.prefetch(&self.partition, ids),
                taker,
            );
            if let Some(rows) = taken {
                let _ = self.rows.set(rows);
            }
            return;
        }
        let mut ordered = InPlace::new(self.n as usize, self.num_flat());
        let shared = shard.share_rows_ahead(
            names,
            &slots,
            |ids| self.tables.prefetch(&self.partition, ids),
            |v, row| {
                ordered.order(v, row, |x| self.flat_of(x));
            },
        );
        if let Some(arrays) = shared {
            let _ = self.rows.set(self.in_format(Rows::shared(arrays, ordered)));
        }
    }

    /// The unweighted rows if a kernel built them already (see
    /// [`rows`](Self::rows)).
    #[inline]
    pub fn rows_if_built(&self) -> Option<&Rows> {
        self.rows.get()
    }

    /// The in-edge rows of a directed graph if built (`None` on an
    /// undirected graph: its in-rows are the [`rows`](Self::rows)).
    pub fn in_rows_if_built(&self) -> Option<&Rows> {
        self.in_rows.get()
    }

    /// Own positions (ascending) whose row (out-edges on a directed graph)
    /// names a vertex of another process: the own entries of a per-vertex
    /// array that a pull along in-rows on another process reads. Built the
    /// first time it is asked for (one pass over the rows, each row left
    /// at its first such entry). All of them on a scrambled Kronecker graph
    /// split over processes; on a grid cut into blocks, the vertices next
    /// to a block's edge. [`prepare`](crate::prepare) with
    /// [`Prepare::Boundary`](crate::Prepare::Boundary) makes it before a
    /// kernel's clock.
    pub fn boundary(&self, shard: &Shard) -> &[u32] {
        self.boundary
            .get_or_init(|| self.next_to_away(&[self.rows(shard)]))
    }

    /// Own positions (ascending) with an entry in another process in their
    /// row or, on a directed graph, their in-row: the own vertices another
    /// process finds in its rows or in-rows (the boundary in both
    /// directions). Empty in one process. One pass over the rows, not kept.
    pub fn boundary_both_ways(&self, shard: &Shard) -> Vec<u32> {
        if shard.is_directed() {
            self.next_to_away(&[self.rows(shard), self.in_rows(shard)])
        } else {
            self.boundary(shard).to_vec()
        }
    }

    /// The flat ids of this process's trustees (trustee t runs on worker
    /// t), as merged ranges: one where they are consecutive.
    fn here(&self) -> Vec<(u32, u32)> {
        let process = |t: usize| gossamer::process_of(gossamer::WorkerId(t));
        let mut here: Vec<(u32, u32)> = Vec::new();
        for t in (0..self.num_trustees()).filter(|&t| process(t) == process(self.me as usize)) {
            match here.last_mut() {
                Some(r) if r.1 == self.base[t] => r.1 = self.base[t + 1],
                _ => here.push((self.base[t], self.base[t + 1])),
            }
        }
        here
    }

    /// True when every trustee of the graph is in this process.
    pub fn is_alone(&self) -> bool {
        self.here() == [(0, self.num_flat())]
    }

    /// The flat ids whose entries of a per-process array (a
    /// [`Replica`](crate::Replica)) this trustee fills before a run, so that
    /// each is filled by one trustee of every process: its own, and its
    /// share of the other processes' trustees' (every trustee there whose
    /// index is this trustee's place among its process's, modulo their
    /// number).
    pub fn fill_share(&self) -> Vec<Range<usize>> {
        let process = |t: usize| gossamer::process_of(gossamer::WorkerId(t));
        let mine = process(self.me as usize);
        let local: Vec<usize> = (0..self.num_trustees())
            .filter(|&t| process(t) == mine)
            .collect();
        let place = local
            .iter()
            .position(|&t| t == self.me as usize)
            .unwrap_or(0);
        let range = |t: usize| self.base[t] as usize..self.base[t + 1] as usize;
        let away = (0..self.num_trustees()).filter(|&t| process(t) != mine);
        std::iter::once(self.own_flat())
            .chain(away.filter(|&t| t % local.len() == place).map(range))
            .collect()
    }

    /// Own positions with an entry in any of `rows` outside this process.
    fn next_to_away(&self, rows: &[&Rows]) -> Vec<u32> {
        let here = self.here();
        if here == [(0, self.num_flat())] {
            return Vec::new(); // one process: nothing is away
        }
        let away = |f: &u32| !here.iter().any(|&(a, b)| a <= *f && *f < b);
        (0..self.n)
            .filter(|&v| rows.iter().any(|r| r.find(v, |f| away(&f)).is_some()))
            .collect()
    }

    /// The in-edge rows: for each own position, the flat ids of the tails
    /// of the arcs into it (ascending, parallel arcs merged), from the
    /// shard's in-edge index, built the first time a kernel asks. On an
    /// undirected graph every edge goes both ways: these are [`rows`](Self::rows).
    pub fn in_rows(&self, shard: &Shard) -> &Rows {
        if !shard.is_directed() {
            return self.rows(shard);
        }
        self.in_rows.get_or_init(|| {
            self.in_format(Rows::build(
                &self.order,
                |l| shard.in_neighbors(l),
                |v| self.flat_of(v),
                self.num_flat(),
            ))
        })
    }

    /// One value per own vertex by original local index, from a function of
    /// its position: the order [`ShardedGraph::gather`](graph_core::sharded::ShardedGraph::gather)
    /// expects.
    pub fn by_local<T>(&self, at: impl Fn(u32) -> T) -> Vec<T> {
        self.tables
            .own(self.me as usize)
            .iter()
            .map(|&f| at(f - self.lo))
            .collect()
    }
}

/// Codes a shard's rows as it gives them up ([`Shard::take_rows`]).
struct Taker<'a> {
    adj: &'a Adjacency,
    /// Orders the rows taken (and counts them for [`Rows::taken`]).
    ordered: InPlace,
    /// Orders the rows measured (not counted).
    measuring: InPlace,
    builder: super::packed::Builder,
}

impl graph_core::csr::TakeRows for Taker<'_> {
    type Kept = Rows;

    fn measure(&mut self, v: usize, row: &mut [u32]) {
        let d = self.measuring.order(v, row, |x| self.adj.flat_of(x));
        self.builder.measure(v as u32, &row[..d], &row[d..]);
    }

    fn take(&mut self, v: usize, row: &mut [u32]) {
        let d = self.ordered.order(v, row, |x| self.adj.flat_of(x));
        self.builder.push(v as u32, &row[..d], &row[d..]);
    }

    fn finish(self) -> (Arc<dyn graph_core::csr::TakenRows>, Rows) {
        let packed = Arc::new(self.builder.finish());
        (packed.clone(), Rows::taken(packed, &self.ordered))
    }
}
