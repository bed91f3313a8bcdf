//! [`LightHeavy`]: the weighted rows of an [`Adjacency`] split at a bucket
//! width for delta-stepping, in the shard itself or in a copy.

use std::ops::Range;
use std::sync::Arc;

use std::cell::RefCell;

use graph_core::alloc::{reserve_or_exit, vec_or_exit};
use graph_core::csr::TakenRows;
use graph_core::Shard;

use super::flat::Adjacency;
use super::packed::{self, PAD};
use super::renumber::Tables;
use super::RowsFormat;
use crate::Bounds;

impl Adjacency {
    /// The weighted rows split at `delta` (see [`LightHeavy`]), on this
    /// trustee's `shard`. With `in_place` the shard's own arrays become the
    /// rows ([`Shard::rewrite_rows`]: targets renamed to flat ids, each row
    /// reordered, nothing dropped), which saves the copy's 8 B per entry;
    /// the graph must have been marked first
    /// ([`ShardedGraph::mark_rows_rewritten`](graph_core::sharded::ShardedGraph::mark_rows_rewritten)). A mapped shard (a
    /// built graph file, a prepared-shard file) is first taken into the
    /// shard's memory, giving the mapped pages back behind the copy, so the
    /// split never sits beside them. An unweighted shard gets the copy (its
    /// weights read as 1.0).
    pub fn light_heavy(&self, shard: &mut Shard, delta: f32, in_place: bool) -> LightHeavy {
        let names = self.tables.global_of.clone();
        // A shard taken from a built file's ready rows is split already
        // (at the Δ it says; `resplit` moves it to another): O(vertices).
        if in_place && shard.renamed().is_some_and(|n| Arc::ptr_eq(n, &names)) {
            if let Some((at, packed)) = shard.take_ready_split() {
                if packed.len() == self.n as usize {
                    return LightHeavy {
                        delta: at,
                        spans: Spans {
                            packed,
                            wide: Vec::new(),
                        },
                        copy: None,
                        coded: None,
                        buf: Vec::new(),
                    };
                }
            }
        }
        let mut spans = Spans::default();
        reserve_or_exit(&mut spans.packed, self.n as usize, "light/heavy rows");
        // Read at random by a search: huge pages spare it the page walks.
        graph_core::csr::advise_huge_pages(spans.packed.spare_capacity_mut());
        // Renamed before (by a split of this adjacency) means flat already;
        // another table makes `rewrite_rows` refuse.
        let rename = shard.renamed().is_none();
        if in_place
            && shard.rewrite_rows(names.clone(), |off, t, w| {
                let row = |l: usize| off[l] as usize..off[l + 1] as usize;
                if rename {
                    self.tables.rename_all(self.partition(), t);
                }
                self.split_rows(&row, t, w, delta, &mut spans)
            })
        {
            return LightHeavy {
                delta,
                spans,
                copy: None,
                coded: None,
                buf: Vec::new(),
            };
        }
        let (mut t, mut w) = (Vec::new(), Vec::new());
        reserve_or_exit(&mut t, shard.num_entries() as usize, "weighted adjacency");
        reserve_or_exit(&mut w, shard.num_entries() as usize, "weighted adjacency");
        // A shard another split renamed holds flat ids already.
        let rename = match shard.renamed() {
            None => {
                t.extend_from_slice(shard.targets());
                true
            }
            Some(n) if Arc::ptr_eq(n, &names) => {
                t.extend_from_slice(shard.targets());
                false
            }
            Some(n) => {
                t.extend(shard.targets().iter().map(|&v| n[v as usize]));
                true
            }
        };
        if shard.is_weighted() {
            w.extend_from_slice(shard.weights());
        } else {
            // An unweighted shard's entries weigh 1.0 (`Shard::neighbors`).
            w.resize(t.len(), 1.0);
        }
        if rename {
            self.tables.rename_all(self.partition(), &mut t);
        }
        let row = |l: usize| shard.entry_range(l as u64);
        self.split_rows(&row, &mut t, &mut w, delta, &mut spans);
        LightHeavy {
            delta,
            spans,
            copy: Some((t, w)),
            coded: None,
            buf: Vec::new(),
        }
    }

    /// [`light_heavy`](Self::light_heavy) with the targets in `format`:
    /// [`RowsFormat::Compressed`] with `in_place` takes them out of the
    /// shard ([`light_heavy_compressed`](Self::light_heavy_compressed))
    /// where it can, anything else gives the plain split.
    pub fn light_heavy_with(
        &self,
        shard: &mut Shard,
        delta: f32,
        in_place: bool,
        format: RowsFormat,
    ) -> LightHeavy {
        if in_place && format == RowsFormat::Compressed {
            if let Some(lh) = self.light_heavy_compressed(shard, delta) {
                return lh;
            }
        }
        self.light_heavy(shard, delta, in_place)
    }

    /// The weighted rows split at `delta` as in place
    /// ([`light_heavy`](Self::light_heavy)), the weights in the shard,
    /// but the targets taken out of it ([`Shard::take_weighted_rows`]) and
    /// kept as byte-coded differences: each row's entries in the order of
    /// its weights (light ascending, heavy ascending, the heavier parallel
    /// ones), each a zigzag-coded varint of its difference to the entry
    /// before (the first to the row's own flat id). On Kronecker graphs
    /// that is about 2 B an entry where a plain target is 4. The graph
    /// must have been marked as for `in_place`; validation reads the
    /// targets back through the split. `None`, changing nothing, where the
    /// shard cannot give its targets up (unweighted, another kernel's
    /// rows).
    ///
    /// A compressed split keeps the order it was made with:
    /// [`resplit`](LightHeavy::resplit) to another Δ panics (make a new
    /// graph, or use plain rows, to run at several widths).
    pub fn light_heavy_compressed(&self, shard: &mut Shard, delta: f32) -> Option<LightHeavy> {
        let names = self.tables.global_of.clone();
        let rename = shard.renamed().is_none();
        let (n, lo, me) = (self.n as usize, self.flat(0), shard.trustee() as usize);
        let bits = super::radix::bits_below(self.num_flat());
        let mut bytes = Vec::new();
        // Room for the longest coding of every entry (5 B): address
        // space only, pages are touched as rows are coded (and the
        // shard's targets given back meanwhile).
        reserve_or_exit(
            &mut bytes,
            5 * shard.num_entries() as usize + PAD,
            "compressed rows",
        );
        graph_core::csr::advise_huge_pages(bytes.spare_capacity_mut());
        let spans = Spans {
            packed: vec_or_exit(n, 0u64, "light/heavy rows"),
            wide: Vec::new(),
        };
        let state = RefCell::new((spans, vec_or_exit(n, 0u64, "compressed row offsets"), bytes));
        let mut scratch = Scratch::default();
        let own = self.tables.own(me);
        let kept = shard.take_weighted_rows(
            names,
            |l, start, t, w| {
                if rename {
                    self.tables.rename_all(self.partition(), t);
                }
                let distinct = split_row(t, w, delta, bits, &mut scratch);
                let v = own[l] - lo;
                let (spans, starts, bytes) = &mut *state.borrow_mut();
                spans.set(v, start as u64, distinct as u64);
                starts[v as usize] = bytes.len() as u64;
                let mut prev = lo + v;
                for &f in t.iter() {
                    packed::put(bytes, zigzag(i64::from(f) - i64::from(prev)));
                    prev = f;
                }
            },
            || {
                let (mut spans, start, mut bytes) = state.take();
                spans.wide.sort_unstable_by_key(|w| w.0);
                bytes.resize(bytes.len() + PAD, 0);
                bytes.shrink_to_fit();
                let coded = Arc::new(Coded {
                    start,
                    bytes,
                    lo,
                    tables: self.tables.clone(),
                    me,
                });
                (coded.clone() as Arc<dyn TakenRows>, (spans, coded))
            },
        )?;
        Some(LightHeavy {
            delta,
            spans: kept.0,
            copy: None,
            coded: Some(kept.1),
            buf: Vec::new(),
        })
    }

    /// Orders each own vertex's row (`row(l)`: its entries, by local index) as
    /// [`LightHeavy`] wants it: unique targets light first, then heavy, both
    /// ascending by flat id, then the heavier parallel entries (the
    /// targets are flat ids already). Pushes one span per position.
    fn split_rows(
        &self,
        row_of: &dyn Fn(usize) -> Range<usize>,
        targets: &mut [u32],
        weights: &mut [f32],
        delta: f32,
        spans: &mut Spans,
    ) {
        let bits = super::radix::bits_below(self.num_flat());
        let mut scratch = Scratch::default();
        for &l in &self.order {
            let r = row_of(l as usize);
            let distinct = split_row(
                &mut targets[r.clone()],
                &mut weights[r.clone()],
                delta,
                bits,
                &mut scratch,
            );
            spans.push(r.start as u64, distinct as u64);
        }
    }
}

/// The buffers [`split_row`] reuses from row to row.
#[derive(Default)]
struct Scratch {
    row: Vec<u64>,
    rest: Vec<u64>,
    heavy: Vec<u64>,
    sort: Vec<u64>,
}

/// Orders one row (`t` flat ids, `w` weights) as [`LightHeavy`] wants
/// it (see [`Adjacency::split_rows`]); returns its distinct targets.
fn split_row(t: &mut [u32], w: &mut [f32], delta: f32, bits: u32, s: &mut Scratch) -> usize {
    let Scratch {
        row,
        rest,
        heavy,
        sort,
    } = s;
    // Each entry as one key, the flat id above its weight's order
    // bits: sorting the keys sorts by flat id, then lightest first.
    row.clear();
    rest.clear();
    heavy.clear();
    row.extend(
        t.iter()
            .zip(w.iter())
            .map(|(&f, &x)| (u64::from(f) << 32) | u64::from(order_bits(x))),
    );
    // By flat id, lightest parallel entry first (the one relaxed).
    super::radix::sort_wide(row, sort, bits);
    let mut unique = 0;
    for i in 0..row.len() {
        if unique > 0 && row[unique - 1] >> 32 == row[i] >> 32 {
            rest.push(row[i]);
        } else {
            row[unique] = row[i];
            unique += 1;
        }
    }
    row.truncate(unique);
    // Light first, both parts keeping their order (as `split_one`).
    let mut light = 0;
    for i in 0..row.len() {
        let k = row[i];
        if weight_of(k) > delta {
            heavy.push(k);
        } else {
            row[light] = k;
            light += 1;
        }
    }
    row.truncate(light);
    row.extend_from_slice(heavy);
    let distinct = row.len();
    row.extend_from_slice(rest);
    for (k, &key) in row.iter().enumerate() {
        (t[k], w[k]) = ((key >> 32) as u32, weight_of(key));
    }
    distinct
}

/// `w`'s bits, flipped so that they order as [`f32::total_cmp`] orders
/// the weights (the sign bit set on non-negative weights, every bit
/// flipped on negative ones).
#[inline(always)]
fn order_bits(w: f32) -> u32 {
    let b = w.to_bits();
    if b >> 31 == 1 {
        !b
    } else {
        b | 1 << 31
    }
}

/// The weight in the low half of a key ([`order_bits`] undone, bit for bit).
#[inline(always)]
fn weight_of(key: u64) -> f32 {
    let k = key as u32;
    f32::from_bits(if k >> 31 == 1 { k & !(1 << 31) } else { !k })
}

/// Orders `row` (unique flat ids, ascending) light first for `delta`,
/// both parts ascending.
fn split_one(row: &mut [(u32, f32)], delta: f32) {
    // Stable: both parts keep their ascending order.
    row.sort_by_key(|e| e.1 > delta);
}

/// Whether an entry of weight `w` is light at `delta` (NaN counts as
/// light, as the splits order it).
#[inline(always)]
fn is_light(w: f32, delta: f32) -> bool {
    w <= delta || w.is_nan()
}

/// The rows of an [`Adjacency`] with weights, as delta-stepping relaxes
/// them in its two phases: each own position's row holds its distinct
/// targets (flat ids, the lightest of parallel edges), *light* ones
/// (`w <= delta`) first, then *heavy* ones, both parts ascending by flat id;
/// the heavier parallel entries follow, kept only so the rows still hold
/// every input entry. A kernel owns its split (it depends on its Δ) and
/// re-splits when Δ changes.
///
/// The rows live in the trustee's shard itself when it was split in place
/// (`in_place` of [`Adjacency::light_heavy`]: the shard's arrays, renamed
/// and reordered row by row), or in a copy of them otherwise; either way
/// read them through [`arrays`](Self::arrays) with this trustee's shard.
/// Rows stay where the shard has them (by original local index); one word
/// per position (8 B) says where each starts and how many
/// distinct targets it has; where its light part ends is found in the
/// row (a binary search), which only the kernels that relax the two parts
/// apart ask for.
///
/// ```
/// use graph_core::sharded::ShardedGraph;
/// use graph_kernel::{run, LightHeavy, Program};
/// let list = graph_core::EdgeList::from_edges(3, vec![
///     graph_core::PackedEdge::new(0, 1, 0.75),
///     graph_core::PackedEdge::new(0, 2, 0.25),
///     graph_core::PackedEdge::new(0, 2, 0.5), // parallel: the lighter one is relaxed
/// ]).unwrap();
/// struct Split(LightHeavy);
/// impl Program for Split { type Msg = u32; fn receive(&mut self, _: u32, _: u32) -> bool { false } }
/// let rows = gossamer::main(1, move || {
///     let g = ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
///     g.mark_rows_rewritten("this example");
///     graph_kernel::prepare(&g, graph_kernel::Prepare::Rows);
///     run(&g, |s, _| { let a = s.adjacency().clone(); Split(a.light_heavy(s.shard_mut(), 0.5, true)) }, |k| {
///         k.with_returning(|l| {
///             let (a, shard) = (l.adjacency(), l.shard());
///             let lh = &l.state().0;
///             let v = a.position(0);
///             let (_, w) = lh.arrays(shard);
///             let ws = |r: std::ops::Range<usize>| w[r].to_vec();
///             (ws(lh.light(shard, v)), ws(lh.heavy(shard, v)), a.rows(shard).entries_merged(), shard.degree(0))
///         })
///     })
/// });
/// // The parallel edge was merged at both of its ends, and the shard still
/// // holds all three entries of vertex 0.
/// assert_eq!(rows[0], (vec![0.25], vec![0.75], 2, 3));
/// ```
#[derive(Debug)]
pub struct LightHeavy {
    delta: f32,
    /// Row of each position.
    spans: Spans,
    /// The rows, when not in the shard: targets and weights.
    copy: Option<(Vec<u32>, Vec<f32>)>,
    /// The targets, when taken out of the shard and compressed
    /// ([`Adjacency::light_heavy_compressed`]; the weights stay there).
    coded: Option<Arc<Coded>>,
    /// A compressed row decoded ([`read_row`](Self::read_row)).
    buf: Vec<u32>,
}

/// The targets of a compressed split, which the shard reads back too
/// ([`TakenRows`]): see [`Adjacency::light_heavy_compressed`].
#[derive(Debug)]
struct Coded {
    /// Byte offset of each position's row.
    start: Vec<u64>,
    /// The rows, then [`PAD`] zero bytes (a decoder reads 8 at once).
    bytes: Vec<u8>,
    /// Flat id of position 0.
    lo: u32,
    /// The flat ids of trustee `me`'s vertices by local index: the
    /// position of local vertex `l` is `tables.own(me)[l] - lo`.
    tables: Arc<Tables>,
    me: usize,
}

/// Zigzag code of a difference (`2x` for `x >= 0`, `-2x - 1` below).
#[inline(always)]
fn zigzag(d: i64) -> u64 {
    ((d << 1) ^ (d >> 63)) as u64
}

/// The difference of a zigzag code, as a `u32` to add (wrapping).
#[inline(always)]
fn unzig(z: u64) -> u32 {
    (((z >> 1) as i64) ^ -((z & 1) as i64)) as u32
}

impl Coded {
    /// Appends the first `len` entries of position `v`'s row to `out`.
    #[inline(always)]
    fn decode(&self, v: u32, len: usize, out: &mut Vec<u32>) {
        decode(
            &self.bytes,
            self.start[v as usize] as usize,
            self.lo + v,
            len,
            out,
        );
    }
}

/// Appends to `out` the `len` entries coded from byte `at` of `bytes`,
/// each a difference to the one before, the first to `me`.
#[inline(always)]
fn decode(bytes: &[u8], at: usize, me: u32, len: usize, out: &mut Vec<u32>) {
    out.reserve(len);
    let (mut at, mut t, mut left) = (at, me, len);
    // Eight one-byte numbers in a word are taken from one load (the
    // row's remaining numbers hold at least `left` bytes).
    while left >= 8 {
        let w = packed::word(bytes, at);
        if w & 0x8080_8080_8080_8080 == 0 {
            for k in 0..8 {
                t = t.wrapping_add(unzig((w >> (8 * k)) & 0x7f));
                out.push(t);
            }
            (at, left) = (at + 8, left - 8);
        } else {
            t = t.wrapping_add(unzig(packed::number(w, &mut at)));
            out.push(t);
            left -= 1;
        }
    }
    for _ in 0..left {
        t = t.wrapping_add(unzig(packed::read(bytes, &mut at)));
        out.push(t);
    }
}

impl TakenRows for Coded {
    fn read_row(&self, row: usize, entries: usize, out: &mut Vec<u32>) {
        self.decode(self.tables.own(self.me)[row] - self.lo, entries, out);
    }
}

/// Bits of a packed span that hold the row's length.
const LEN_BITS: u32 = 24;
/// The length field's largest value, which means "in [`Spans::wide`]".
const WIDE: u64 = (1 << LEN_BITS) - 1;

/// Where each position's row is (its first entry and its distinct
/// targets), one word per position: the start in the high 40 bits, the
/// length in the low 24. A row of 2^24 - 1 distinct targets or more, or
/// one starting at entry 2^40 or later, has the length field [`WIDE`] and
/// its span in `wide` instead (a few hub vertices of a huge Kronecker
/// graph; none below SCALE 30 or so). Half of a start-and-two-counts
/// struct: at SCALE 26 on one process that is 512 MiB.
#[derive(Debug, Default)]
struct Spans {
    packed: Vec<u64>,
    /// `(position, start, length)` of the rows that do not pack, by
    /// position.
    wide: Vec<(u32, u64, u64)>,
}

impl Spans {
    /// Appends the next position's span.
    fn push(&mut self, start: u64, len: u64) {
        if len < WIDE && start < 1 << (64 - LEN_BITS) {
            self.packed.push(start << LEN_BITS | len);
        } else {
            self.wide.push((self.packed.len() as u32, start, len));
            self.packed.push(WIDE);
        }
    }

    /// The row of position `v`: its entries `start..start + len`.
    #[inline(always)]
    fn get(&self, v: u32) -> Range<usize> {
        let s = self.packed[v as usize];
        let len = s & WIDE;
        if len == WIDE {
            return self.wide(v);
        }
        let start = (s >> LEN_BITS) as usize;
        start..start + len as usize
    }

    #[cold]
    #[inline(never)]
    fn wide(&self, v: u32) -> Range<usize> {
        let i = self
            .wide
            .binary_search_by_key(&v, |w| w.0)
            .expect("a wide span is listed");
        let (_, start, len) = self.wide[i];
        start as usize..(start + len) as usize
    }

    fn len(&self) -> usize {
        self.packed.len()
    }

    /// Sets position `v`'s span (`packed` has a word for it; `wide` is
    /// sorted by position afterwards).
    fn set(&mut self, v: u32, start: u64, len: u64) {
        if len < WIDE && start < 1 << (64 - LEN_BITS) {
            self.packed[v as usize] = start << LEN_BITS | len;
        } else {
            self.wide.push((v, start, len));
            self.packed[v as usize] = WIDE;
        }
    }
}

impl LightHeavy {
    /// Why `delta` cannot be a bucket width (a phrase to put after the
    /// value), or `Ok`: it must be a positive, finite, normal `f32`, so
    /// that `1/Δ` is finite. Every such width works, however small.
    ///
    /// ```
    /// use graph_kernel::LightHeavy;
    /// assert!(LightHeavy::check_width(0.001).is_ok() && LightHeavy::check_width(1e-30).is_ok());
    /// for bad in [0.0, -1.0, f32::NAN, f32::INFINITY, 1e-40] {
    ///     assert!(LightHeavy::check_width(bad).is_err());
    /// }
    /// ```
    pub fn check_width(delta: f32) -> Result<(), String> {
        Err(if delta.is_nan() {
            "not a number; give a positive bucket width in weight units".to_string()
        } else if delta <= 0.0 {
            "the bucket width must be positive".to_string()
        } else if delta.is_infinite() {
            "the bucket width must be finite (any width at or above the largest weight already makes every edge light)".to_string()
        } else if !delta.is_normal() || !(1.0 / delta).is_finite() {
            format!(
                "too small: a width below {:e} (the smallest normal f32) has no finite reciprocal",
                f32::MIN_POSITIVE
            )
        } else {
            return Ok(());
        })
    }

    /// The split as SSSP keeps it, one word per position (a row's start
    /// in the high 40 bits, its distinct targets in the low 24), when it
    /// lives in the shard and every span packs: what a built file's ready
    /// rows keep beside the shard's arrays.
    pub fn stored_spans(&self) -> Option<&[u64]> {
        (self.copy.is_none() && self.coded.is_none() && self.spans.wide.is_empty())
            .then_some(&self.spans.packed[..])
    }

    /// The Δ of the split.
    pub fn delta(&self) -> f32 {
        self.delta
    }

    /// Whether the rows live in the shard (split in place).
    pub fn in_shard(&self) -> bool {
        self.copy.is_none()
    }

    /// Orders every row light first for bucket width `delta` (both parts
    /// ascending by flat id); nothing to do at the width it has. `shard`
    /// is this trustee's, the one the split was made on.
    ///
    /// # Panics
    ///
    /// On a compressed split ([`Adjacency::light_heavy_compressed`]) and
    /// another width.
    pub fn resplit(&mut self, shard: &mut Shard, delta: f32) {
        if delta == self.delta {
            return;
        }
        assert!(
            self.coded.is_none(),
            "graph-kernel: compressed light/heavy rows were split at delta {} and cannot be split again at {delta}: use plain rows to run at several widths on one graph",
            self.delta
        );
        let spans = &self.spans;
        let mut row: Vec<(u32, f32)> = Vec::new();
        // The rows keep their starts and distinct targets: only the order
        // within each changes.
        let mut again = |t: &mut [u32], w: &mut [f32]| {
            for v in 0..spans.len() as u32 {
                let r = spans.get(v);
                row.clear();
                row.extend(
                    t[r.clone()]
                        .iter()
                        .copied()
                        .zip(w[r.clone()].iter().copied()),
                );
                row.sort_unstable_by_key(|e| e.0);
                split_one(&mut row, delta);
                for (k, &(v, x)) in row.iter().enumerate() {
                    (t[r.start + k], w[r.start + k]) = (v, x);
                }
            }
        };
        match &mut self.copy {
            Some((t, w)) => again(t, w),
            None => {
                let names = shard.renamed().expect("split in place").clone();
                let done = shard.rewrite_rows(names, |_, t, w| again(t, w));
                debug_assert!(done, "a shard split in place can be rewritten again");
            }
        }
        self.delta = delta;
    }

    /// Position `v`'s whole row (as [`row`](Self::row)): its targets and
    /// their weights, slices of the rows, or the targets decoded into a
    /// buffer of the split when they are compressed. `shard` as for
    /// [`arrays`](Self::arrays).
    #[inline(always)]
    pub fn read_row<'a>(&'a mut self, shard: &'a Shard, v: u32) -> (&'a [u32], &'a [f32]) {
        let span = self.spans.get(v);
        match &self.coded {
            None => {
                let (t, w) = match &self.copy {
                    Some((t, w)) => (&t[..], &w[..]),
                    None => (shard.targets(), shard.weights()),
                };
                (&t[span.clone()], &w[span])
            }
            Some(c) => {
                self.buf.clear();
                c.decode(v, span.len(), &mut self.buf);
                (&self.buf[..], &shard.weights()[span])
            }
        }
    }

    /// Whether the targets are compressed
    /// ([`Adjacency::light_heavy_compressed`]; then
    /// [`arrays`](Self::arrays) has no targets: read rows with
    /// [`read_row`](Self::read_row)).
    pub fn compressed(&self) -> bool {
        self.coded.is_some()
    }

    /// Every row's targets (flat ids) and weights: index them with
    /// [`light`](Self::light) and [`heavy`](Self::heavy). `shard` is this
    /// trustee's, the one the split was made on.
    #[inline(always)]
    pub fn arrays<'a>(&'a self, shard: &'a Shard) -> (&'a [u32], &'a [f32]) {
        match &self.copy {
            Some((t, w)) => (t, w),
            None => (shard.targets(), shard.weights()),
        }
    }

    /// Where position `v`'s light entries end and its heavy ones start
    /// (a binary search of its row's weights; `shard` as for
    /// [`arrays`](Self::arrays)).
    fn light_end(&self, shard: &Shard, v: u32) -> usize {
        let r = self.row(v);
        let (_, w) = self.arrays(shard);
        let delta = self.delta;
        r.start + w[r].partition_point(|&x| is_light(x, delta))
    }

    /// Light entries of position `v` (`shard` as for [`arrays`](Self::arrays)).
    pub fn light(&self, shard: &Shard, v: u32) -> Range<usize> {
        self.row(v).start..self.light_end(shard, v)
    }

    /// Heavy entries of position `v` (`shard` as for [`arrays`](Self::arrays)).
    pub fn heavy(&self, shard: &Shard, v: u32) -> Range<usize> {
        self.light_end(shard, v)..self.row(v).end
    }

    /// The whole row of position `v`: its light entries, then its heavy
    /// ones (for a kernel that relaxes both at once).
    #[inline(always)]
    pub fn row(&self, v: u32) -> Range<usize> {
        self.spans.get(v)
    }

    /// Asks the cache for what a kernel relaxing rows in a known order
    /// will read soon (a hint: no effect on results), `next(k)` naming the
    /// position it relaxes `k` rows from now: 16 rows ahead that
    /// position's span and its bound in `bounds`, 8 ahead the start of
    /// its row (targets and weights), 4 ahead the bounds of its first 8
    /// targets, each of which `target` also gets (for the kernel's own
    /// per-target state). A search's rows are scattered (a bucket of a
    /// road grid is a ring around the root), and one thread otherwise
    /// waits on each of these loads in turn: SSSP on a 2048 x 2048 grid,
    /// one thread, took 0.33 s a search with this instead of 0.59 s.
    #[inline(always)]
    pub fn prefetch_ahead(
        &self,
        shard: &Shard,
        bounds: &Bounds,
        next: impl Fn(usize) -> Option<u32>,
        mut target: impl FnMut(u32),
    ) {
        use graph_core::csr::prefetch_line;
        let (targets, weights) = self.arrays(shard);
        if let Some(v) = next(16) {
            self.spans.packed.get(v as usize).map(prefetch_line);
            bounds.prefetch_own(v);
        }
        if let Some(v) = next(8) {
            let a = self.row(v).start;
            targets.get(a).map(prefetch_line);
            weights.get(a).map(prefetch_line);
            if let Some(c) = &self.coded {
                let at = c.start.get(v as usize).map_or(usize::MAX, |&b| b as usize);
                c.bytes.get(at).map(prefetch_line);
            }
        }
        for &f in next(4)
            .map_or(&[][..], |v| targets.get(self.row(v)).unwrap_or(&[]))
            .iter()
            .take(8)
        {
            bounds.prefetch(f);
            target(f);
        }
    }

    /// Heap bytes of the split (the spans, and the copy when there is one).
    pub fn heap_bytes(&self) -> u64 {
        let copy = self
            .copy
            .as_ref()
            .map_or(0, |(t, w)| 4 * (t.capacity() + w.capacity()));
        let coded = self
            .coded
            .as_ref()
            .map_or(0, |c| c.bytes.capacity() + 8 * c.start.capacity());
        let spans = coded
            + 8 * self.spans.packed.capacity()
            + self.spans.wide.capacity() * std::mem::size_of::<(u32, u64, u64)>();
        (spans + copy) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spans that do not pack (a row of 2^24 - 1 distinct targets or
    /// more, or starting at entry 2^40 or later) come back whole, among
    /// packed ones.
    #[test]
    fn wide_spans_come_back_beside_packed_ones() {
        let mut s = Spans::default();
        let rows = [
            (0u64, 3u64),
            (3, WIDE),
            (u64::from(u32::MAX) * 7, WIDE - 1),
            (1 << 40, 1),
            ((1 << 40) - 1, 0),
            (5, WIDE + 100),
            (9, 0),
        ];
        for &(start, len) in &rows {
            s.push(start, len);
        }
        assert_eq!(s.len(), rows.len());
        assert_eq!(s.wide.len(), 3, "{:?}", s.wide);
        for (v, &(start, len)) in rows.iter().enumerate() {
            let want = start as usize..(start + len) as usize;
            assert_eq!(s.get(v as u32), want, "position {v}");
        }
    }

    /// A compressed row comes back as coded: rising and falling ids, far
    /// jumps both ways, runs of one-byte differences (the eight-at-once
    /// path) around longer ones, rows of 0-20 entries.
    #[test]
    fn coded_rows_decode_to_their_entries() {
        let me = 1_000u32;
        let long: Vec<u32> = (0..40)
            .map(|i| match i % 13 {
                5 => u32::MAX - i,
                9 => 0,
                _ => me + 3 * i + (i % 4),
            })
            .collect();
        for len in [0, 1, 7, 8, 9, 16, 20, 40] {
            let row = &long[..len];
            let mut bytes = vec![0xffu8; 3]; // the row starts mid-array
            let mut prev = me;
            for &f in row {
                packed::put(&mut bytes, zigzag(i64::from(f) - i64::from(prev)));
                prev = f;
            }
            bytes.resize(bytes.len() + PAD, 0);
            let mut out = vec![7];
            decode(&bytes, 3, me, len, &mut out);
            assert_eq!(out[0], 7, "appends");
            assert_eq!(&out[1..], row, "{len} entries");
        }
    }

    /// The keys' order is `total_cmp`'s, and the weight comes back bit for bit.
    #[test]
    fn order_bits_order_as_total_cmp() {
        let ws = [
            f32::NEG_INFINITY,
            -3.5,
            -f32::MIN_POSITIVE,
            -0.0,
            0.0,
            1e-45,
            f32::MIN_POSITIVE,
            0.25,
            0.5,
            1.0,
            f32::MAX,
            f32::INFINITY,
            f32::NAN,
            -f32::NAN,
        ];
        for &a in &ws {
            assert_eq!(weight_of(u64::from(order_bits(a))).to_bits(), a.to_bits());
            for &b in &ws {
                assert_eq!(
                    order_bits(a).cmp(&order_bits(b)),
                    a.total_cmp(&b),
                    "{a} {b}"
                );
            }
        }
    }
}
