//! Vertex partitions: which trustee owns which vertex.
//!
//! A run has `ranks` processes with `threads_per_rank` trustees each; trustee
//! `t` (global index) lives on rank `t / threads_per_rank` as thread
//! `t % threads_per_rank`. A [`Partition`] maps a global vertex id to its
//! [`Owner`] (rank, trustee, local index within that trustee's shard) and back.
//!
//! * [`PartitionKind::Block`]: contiguous ranges; the first `n % T` trustees
//!   own one vertex more than the rest.
//! * [`PartitionKind::Cyclic`]: vertex `v` goes to trustee `v % T` at local
//!   index `v / T` (spreads Graph500's scrambled hubs and keeps ranges
//!   balanced without a division by a non-constant block size).
//! * [`PartitionKind::Striped`]: stripes of `2^k` consecutive ids dealt
//!   round-robin (stripe `c` to trustee `c % T`), `2^k` at most
//!   [`MAX_STRIPE`] and small enough that each trustee gets at least 4
//!   stripes. Neighbours that are near in id (a grid or road network in
//!   row order) stay on one trustee, as with blocks, but a search that
//!   starts in one corner of the ids reaches every trustee within a few
//!   stripes instead of running on one trustee while the others wait.
//!
//! * [`PartitionKind::Blocks`]: over-decomposition for balancing. The ids
//!   are cut into at most [`MAX_BLOCKS`] contiguous blocks of `2^k` ids
//!   (about [`BLOCKS_PER_TRUSTEE`] per trustee), and a block table says
//!   which trustee owns each block. At first block `b` goes to trustee
//!   `b * T / blocks` (contiguous ranges, as [`PartitionKind::Block`] but
//!   rounded to whole blocks); [`Partition::move_block`] changes the table.
//!   A vertex's owner is a shift and a table read, its local index a second
//!   table read: each trustee numbers its blocks in increasing id order
//!   (slot `s` holds local indices `s * 2^k ..`), so its vertices still
//!   rise with their global ids and the short last block of the graph is
//!   always its owner's last slot. At most [`MAX_BLOCKS_TRUSTEES`]
//!   trustees.
//!
//! More trustees than vertices is allowed: some trustees then own nothing.

use std::fmt;
use std::sync::Mutex;

/// A block table that every [`PartitionKind::Blocks`] partition of this
/// process made from now on starts from instead of contiguous ranges
/// ([`set_start_table`]); a partition whose block count or trustees do not
/// fit it is refused.
static START_TABLE: Mutex<Option<Vec<u32>>> = Mutex::new(None);

/// Makes every [`PartitionKind::Blocks`] partition this process makes from
/// now on start from `table` (block -> trustee), or (`None`) from
/// contiguous ranges again: a placement chosen by
/// [`crate::balance::deal`], given with `--block-table`, or set by the
/// between-searches balancer before it rebuilds the shards. Every rank of a
/// job must set the same table; partitions already made keep theirs.
pub fn set_start_table(table: Option<Vec<u32>>) {
    *START_TABLE.lock().unwrap_or_else(|p| p.into_inner()) = table;
}

/// How vertices are spread over trustees.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum PartitionKind {
    /// Contiguous, balanced ranges (sizes differ by at most one).
    Block,
    /// Round-robin: `v % trustees`.
    Cyclic,
    /// Stripes of consecutive ids, round-robin (see the module docs).
    Striped,
    /// Several contiguous blocks per trustee, placed by a block table that
    /// a balancer may change (see the module docs).
    Blocks,
}

/// Where a vertex lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Owner {
    /// Rank (process) holding the vertex.
    pub rank: u32,
    /// Global trustee index: `rank * threads_per_rank + thread`.
    pub trustee: u32,
    /// Index of the vertex within its trustee's shard (`0..local_count`).
    pub local: u64,
}

/// Why a partition could not be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PartitionError {
    /// `ranks` or `threads_per_rank` was zero.
    NoTrustees,
    /// [`PartitionKind::Blocks`] over more than [`MAX_BLOCKS_TRUSTEES`]
    /// trustees.
    TooManyTrusteesForBlocks {
        /// Requested trustees.
        trustees: u64,
    },
    /// [`Partition::move_block`] of a block or to a trustee that does not
    /// exist, or on a partition of another kind.
    NoSuchBlock {
        /// The block.
        block: u32,
        /// The trustee it was to move to.
        to: u32,
    },
    /// The table of [`set_start_table`] does not fit a blocks partition.
    StartTable {
        /// The partition's blocks.
        blocks: u64,
        /// Its trustees.
        trustees: u64,
        /// Entries in the table.
        len: usize,
    },
    /// `ranks * threads_per_rank` does not fit a `u32`.
    TooManyTrustees {
        /// Requested ranks.
        ranks: u32,
        /// Requested threads per rank.
        threads_per_rank: u32,
    },
}

impl fmt::Display for PartitionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PartitionError::NoTrustees => write!(
                f,
                "a partition needs at least one rank and one thread per rank"
            ),
            PartitionError::TooManyTrusteesForBlocks { trustees } => write!(
                f,
                "the blocks partition handles at most {MAX_BLOCKS_TRUSTEES} trustees, not {trustees}: use --partition block, cyclic or striped"
            ),
            PartitionError::StartTable { blocks, trustees, len } => write!(
                f,
                "the block table has {len} entries, but this blocks partition has {blocks} blocks over {trustees} trustees (one entry per block, each below {trustees})"
            ),
            PartitionError::NoSuchBlock { block, to } => write!(
                f,
                "cannot move block {block} to trustee {to}: no such block or trustee in a blocks partition"
            ),
            PartitionError::TooManyTrustees { ranks, threads_per_rank } => write!(
                f,
                "{ranks} ranks x {threads_per_rank} threads is more than 2^32 trustees: use fewer ranks or threads"
            ),
        }
    }
}

impl std::error::Error for PartitionError {}

/// A partition of `0..num_vertices` over `ranks * threads_per_rank` trustees.
///
/// ```
/// use graph_core::{Partition, PartitionKind, Owner};
/// let p = Partition::new(PartitionKind::Block, 10, 2, 2).unwrap();
/// // 10 vertices over 4 trustees: sizes 3, 3, 2, 2.
/// assert_eq!(p.owner(7), Owner { rank: 1, trustee: 2, local: 1 });
/// assert_eq!(p.global(2, 1), 7);
/// assert_eq!((0..4).map(|t| p.local_count(t)).collect::<Vec<_>>(), [3, 3, 2, 2]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Partition {
    kind: PartitionKind,
    num_vertices: u64,
    ranks: u32,
    threads_per_rank: u32,
    trustees: u64,
    /// Block: `n / T` (the small block size).
    base: u64,
    /// Block: `n % T` (how many trustees get `base + 1`).
    extra: u64,
    /// log2 of the divisor when `owner` can shift instead of divide:
    /// Cyclic with a power-of-two trustee count, or Block with equal
    /// power-of-two blocks (Graph500: 2^scale vertices, 2^k trustees);
    /// Striped: log2 of the stripe size (always set); Blocks: log2 of the
    /// block size (always set).
    shift: Option<u32>,
    /// Blocks: the block table (empty for the other kinds).
    table: BlockTable,
}

/// The most blocks of a [`PartitionKind::Blocks`] partition.
pub const MAX_BLOCKS: usize = 256;

/// Blocks per trustee a [`PartitionKind::Blocks`] partition aims at (fewer
/// when `trustees * BLOCKS_PER_TRUSTEE` exceeds [`MAX_BLOCKS`], or when the
/// graph has fewer ids).
pub const BLOCKS_PER_TRUSTEE: u64 = 64;

/// The most trustees a [`PartitionKind::Blocks`] partition spreads over
/// (4 blocks each at least).
pub const MAX_BLOCKS_TRUSTEES: u64 = 64;

/// Tables of `MAX_BLOCKS` bytes, stored as rows of 32 so the partition
/// stays `Copy` and serializable.
type Bytes256 = [[u8; 32]; 8];

/// The block table of a [`PartitionKind::Blocks`] partition and what makes
/// its lookups cheap: per block its trustee and its slot among that
/// trustee's blocks; per trustee its blocks in slot order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
struct BlockTable {
    /// Number of blocks (0 for the other kinds).
    blocks: u32,
    /// Block -> trustee.
    owner: Bytes256,
    /// Block -> slot among its trustee's blocks (in increasing block order).
    slot: Bytes256,
    /// The blocks sorted by (trustee, block): trustee `t`'s blocks are
    /// `order[first[t]..first[t + 1]]`.
    order: Bytes256,
    /// Per trustee (and one past the last) its first entry in `order`.
    first: [[u16; 32]; 3],
}

#[inline]
fn get8(a: &Bytes256, i: usize) -> u8 {
    a[i >> 5][i & 31]
}

#[inline]
fn set8(a: &mut Bytes256, i: usize, x: u8) {
    a[i >> 5][i & 31] = x;
}

impl BlockTable {
    const EMPTY: BlockTable = BlockTable {
        blocks: 0,
        owner: [[0; 32]; 8],
        slot: [[0; 32]; 8],
        order: [[0; 32]; 8],
        first: [[0; 32]; 3],
    };

    #[inline]
    fn first(&self, t: usize) -> usize {
        usize::from(self.first[t >> 5][t & 31])
    }

    /// Recomputes slots, order and first from the owner column.
    fn index(&mut self, trustees: usize) {
        let mut count = [0u16; MAX_BLOCKS_TRUSTEES as usize + 1];
        for b in 0..self.blocks as usize {
            count[usize::from(get8(&self.owner, b))] += 1;
        }
        let mut at = 0u16;
        for (t, c) in count.iter().enumerate().take(trustees + 1) {
            self.first[t >> 5][t & 31] = at;
            at += c;
        }
        let mut fill = [0u16; MAX_BLOCKS_TRUSTEES as usize];
        for b in 0..self.blocks as usize {
            let t = usize::from(get8(&self.owner, b));
            let k = fill[t];
            fill[t] += 1;
            set8(&mut self.slot, b, k as u8);
            let at = self.first(t) + usize::from(k);
            set8(&mut self.order, at, b as u8);
        }
    }
}

/// The largest stripe of [`PartitionKind::Striped`]: 2^16 ids (32 rows of
/// a grid 2048 wide).
pub const MAX_STRIPE: u64 = 1 << 16;

/// log2 of the stripe size of a striped partition of `n` ids over `t`
/// trustees: [`MAX_STRIPE`], or smaller so that each trustee gets at least
/// 4 stripes (1 for tiny graphs).
fn stripe_shift(n: u64, t: u64) -> u32 {
    let per = n / (4 * t).max(1);
    per.max(1).ilog2().min(MAX_STRIPE.ilog2())
}

/// Whether a striped partition of `n` ids over `ranks * threads_per_rank`
/// trustees deals them about as evenly as a block one: its heaviest
/// trustee owns at most 1/16 more ids than an even share. Stripes come
/// whole, so when the trustees do not divide their count some own one
/// stripe more, which weighs when each owns few (2^20 ids over 3
/// trustees: 6 stripes of 2^16 against 5, 12.5% more; 2^22 over 3: 22
/// against 21, 3%). `false` when no partition can be made.
pub fn striped_is_even(n: u64, ranks: u32, threads_per_rank: u32) -> bool {
    let Ok(p) = Partition::new(PartitionKind::Striped, n, ranks, threads_per_rank) else {
        return false;
    };
    let t = p.trustees;
    let full = n >> p.shift.unwrap_or(0);
    // Trustee 0 owns the most whole stripes, trustee `full % t` the short
    // last one.
    let heaviest = p.local_count(0).max(p.local_count((full % t) as u32));
    heaviest * 16 <= n.div_ceil(t) * 17
}

/// `log2(x)` when `x` is a power of two.
fn log2_exact(x: u64) -> Option<u32> {
    x.is_power_of_two().then(|| x.trailing_zeros())
}

impl Partition {
    /// A partition of `num_vertices` vertices over `ranks` ranks with
    /// `threads_per_rank` trustees each.
    pub fn new(
        kind: PartitionKind,
        num_vertices: u64,
        ranks: u32,
        threads_per_rank: u32,
    ) -> Result<Self, PartitionError> {
        if ranks == 0 || threads_per_rank == 0 {
            return Err(PartitionError::NoTrustees);
        }
        let trustees = u64::from(ranks) * u64::from(threads_per_rank);
        if trustees > u64::from(u32::MAX) {
            return Err(PartitionError::TooManyTrustees {
                ranks,
                threads_per_rank,
            });
        }
        if kind == PartitionKind::Blocks {
            return Self::blocks(num_vertices, ranks, threads_per_rank, trustees);
        }
        Ok(Partition {
            kind,
            num_vertices,
            ranks,
            threads_per_rank,
            trustees,
            base: num_vertices / trustees,
            extra: num_vertices % trustees,
            shift: match kind {
                PartitionKind::Cyclic => log2_exact(trustees),
                PartitionKind::Block if num_vertices.is_multiple_of(trustees) => {
                    log2_exact(num_vertices / trustees)
                }
                PartitionKind::Block => None,
                PartitionKind::Striped => Some(stripe_shift(num_vertices, trustees)),
                PartitionKind::Blocks => None,
            },
            table: BlockTable::EMPTY,
        })
    }

    /// [`PartitionKind::Blocks`] with [`BLOCKS_PER_TRUSTEE`].
    fn blocks(n: u64, ranks: u32, threads_per_rank: u32, t: u64) -> Result<Self, PartitionError> {
        Self::blocks_with(n, ranks, threads_per_rank, BLOCKS_PER_TRUSTEE).map_err(|e| match e {
            PartitionError::TooManyTrusteesForBlocks { .. } => {
                PartitionError::TooManyTrusteesForBlocks { trustees: t }
            }
            e => e,
        })
    }

    /// A [`PartitionKind::Blocks`] partition aiming at `per_trustee`
    /// blocks per trustee: blocks of `2^k` ids, `k` the smallest with at
    /// most `min(trustees * per_trustee, MAX_BLOCKS)` blocks; block `b` of
    /// `B` to trustee `b * T / B` (or the start table's entry).
    pub fn blocks_with(
        n: u64,
        ranks: u32,
        threads_per_rank: u32,
        per_trustee: u64,
    ) -> Result<Self, PartitionError> {
        if ranks == 0 || threads_per_rank == 0 {
            return Err(PartitionError::NoTrustees);
        }
        let t = u64::from(ranks) * u64::from(threads_per_rank);
        if t > MAX_BLOCKS_TRUSTEES {
            return Err(PartitionError::TooManyTrusteesForBlocks { trustees: t });
        }
        let want = (t * per_trustee.max(1)).min(MAX_BLOCKS as u64);
        let mut k = 0u32;
        while n.div_ceil(1u64 << k) > want {
            k += 1;
        }
        let blocks = n.div_ceil(1u64 << k);
        let mut table = BlockTable {
            blocks: blocks as u32,
            ..BlockTable::EMPTY
        };
        let start = START_TABLE
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        if let Some(s) = &start {
            if s.len() as u64 != blocks || s.iter().any(|&o| u64::from(o) >= t) {
                return Err(PartitionError::StartTable {
                    blocks,
                    trustees: t,
                    len: s.len(),
                });
            }
        }
        for b in 0..blocks {
            let o = start
                .as_ref()
                .map_or(b * t / blocks, |s| u64::from(s[b as usize]));
            set8(&mut table.owner, b as usize, o as u8);
        }
        table.index(t as usize);
        Ok(Partition {
            kind: PartitionKind::Blocks,
            num_vertices: n,
            ranks,
            threads_per_rank,
            trustees: t,
            base: 0,
            extra: 0,
            shift: Some(k),
            table,
        })
    }

    /// Blocks: the number of blocks (0 for the other kinds).
    #[inline]
    pub fn num_blocks(&self) -> u32 {
        self.table.blocks
    }

    /// Blocks: the ids of block `b` (empty for another kind or block).
    pub fn block_range(&self, b: u32) -> std::ops::Range<u64> {
        if b >= self.table.blocks {
            return 0..0;
        }
        let k = self.shift.unwrap_or(0);
        let start = u64::from(b) << k;
        start..(start + (1u64 << k)).min(self.num_vertices)
    }

    /// Blocks: the trustee owning block `b` (`None` for another kind or an
    /// unknown block).
    #[inline]
    pub fn block_owner(&self, b: u32) -> Option<u32> {
        (b < self.table.blocks).then(|| u32::from(get8(&self.table.owner, b as usize)))
    }

    /// Blocks: the block holding vertex `v`.
    #[inline]
    pub fn block_of(&self, v: u64) -> u32 {
        (v >> self.shift.unwrap_or(0)) as u32
    }

    /// Blocks: the block table, block -> trustee.
    pub fn block_table(&self) -> Vec<u32> {
        (0..self.table.blocks)
            .map(|b| u32::from(get8(&self.table.owner, b as usize)))
            .collect()
    }

    /// Blocks: gives block `b` to trustee `to`. Every vertex of the block
    /// changes owner and every trustee's local indices are renumbered
    /// (blocks in increasing id order), so shards and per-vertex state
    /// built for the old table must be rebuilt or moved with it.
    pub fn move_block(&mut self, b: u32, to: u32) -> Result<(), PartitionError> {
        if self.kind != PartitionKind::Blocks
            || b >= self.table.blocks
            || u64::from(to) >= self.trustees
        {
            return Err(PartitionError::NoSuchBlock { block: b, to });
        }
        set8(&mut self.table.owner, b as usize, to as u8);
        self.table.index(self.trustees as usize);
        Ok(())
    }

    /// The whole graph on one trustee (used by validators and sequential
    /// references).
    pub fn single(num_vertices: u64) -> Self {
        Partition {
            kind: PartitionKind::Block,
            num_vertices,
            ranks: 1,
            threads_per_rank: 1,
            trustees: 1,
            base: num_vertices,
            extra: 0,
            shift: None,
            table: BlockTable::EMPTY,
        }
    }

    /// Block, cyclic, striped or blocks.
    #[inline]
    pub fn kind(&self) -> PartitionKind {
        self.kind
    }

    /// Vertex count of the partitioned graph.
    #[inline]
    pub fn num_vertices(&self) -> u64 {
        self.num_vertices
    }

    /// Number of ranks.
    #[inline]
    pub fn ranks(&self) -> u32 {
        self.ranks
    }

    /// Trustees per rank.
    #[inline]
    pub fn threads_per_rank(&self) -> u32 {
        self.threads_per_rank
    }

    /// Total trustees, `ranks * threads_per_rank`.
    #[inline]
    pub fn num_trustees(&self) -> u32 {
        self.trustees as u32
    }

    /// Rank of a global trustee index.
    #[inline]
    pub fn rank_of_trustee(&self, trustee: u32) -> u32 {
        trustee / self.threads_per_rank
    }

    /// Global trustee indices of one rank.
    #[inline]
    pub fn trustees_of_rank(&self, rank: u32) -> std::ops::Range<u32> {
        let first = rank.saturating_mul(self.threads_per_rank);
        first..first.saturating_add(self.threads_per_rank)
    }

    /// Global trustee index owning vertex `v` (`v < num_vertices`).
    #[inline]
    pub fn trustee_of(&self, v: u64) -> u32 {
        self.locate(v).0 as u32
    }

    /// Owner of vertex `v`. For `v >= num_vertices` the result is
    /// meaningless (no panic); callers check ids first.
    #[inline]
    pub fn owner(&self, v: u64) -> Owner {
        let (trustee, local) = self.locate(v);
        let trustee = trustee as u32;
        Owner {
            rank: trustee / self.threads_per_rank,
            trustee,
            local,
        }
    }

    /// (trustee, local index) of `v`: shifts where `shift` allows, else
    /// divisions.
    #[inline]
    pub(crate) fn locate(&self, v: u64) -> (u64, u64) {
        match (self.kind, self.shift) {
            (PartitionKind::Cyclic, Some(k)) => (v & (self.trustees - 1), v >> k),
            (PartitionKind::Block, Some(k)) => (v >> k, v & ((1u64 << k) - 1)),
            (PartitionKind::Cyclic, None) => (v % self.trustees, v / self.trustees),
            (PartitionKind::Blocks, k) => {
                let k = k.unwrap_or(0);
                let b = (v >> k) as usize;
                if b >= self.table.blocks as usize {
                    // v >= n (invalid id): any answer.
                    return (0, 0);
                }
                let t = get8(&self.table.owner, b);
                let s = u64::from(get8(&self.table.slot, b));
                (u64::from(t), (s << k) | (v & ((1u64 << k) - 1)))
            }
            (PartitionKind::Striped, k) => {
                let k = k.unwrap_or(0);
                let c = v >> k;
                let mine = (c / self.trustees) << k;
                (c % self.trustees, mine | (v & ((1u64 << k) - 1)))
            }
            (PartitionKind::Block, None) => {
                let big = self.base + 1;
                let split = self.extra * big;
                if v < split {
                    (v / big, v % big)
                } else {
                    // base == 0 only when v >= n (invalid id): any answer.
                    let w = v - split;
                    match w.checked_div(self.base) {
                        Some(q) => (self.extra + q, w % self.base),
                        None => (self.trustees - 1, 0),
                    }
                }
            }
        }
    }

    /// Global id of local vertex `local` of `trustee` (inverse of
    /// [`Partition::owner`] for valid inputs).
    #[inline]
    pub fn global(&self, trustee: u32, local: u64) -> u64 {
        let t = u64::from(trustee);
        match self.kind {
            PartitionKind::Cyclic => local * self.trustees + t,
            PartitionKind::Block => self.first_of_block(t) + local,
            PartitionKind::Striped => {
                let k = self.shift.unwrap_or(0);
                let c = (local >> k) * self.trustees + t;
                (c << k) | (local & ((1u64 << k) - 1))
            }
            PartitionKind::Blocks => {
                let k = self.shift.unwrap_or(0);
                let i = self.table.first(trustee as usize) + (local >> k) as usize;
                let b = u64::from(get8(&self.table.order, i));
                (b << k) | (local & ((1u64 << k) - 1))
            }
        }
    }

    #[inline]
    fn first_of_block(&self, t: u64) -> u64 {
        t * self.base + t.min(self.extra)
    }

    /// Number of vertices trustee `trustee` owns (0 for an unknown trustee).
    #[inline]
    pub fn local_count(&self, trustee: u32) -> u64 {
        let t = u64::from(trustee);
        if t >= self.trustees {
            return 0;
        }
        if self.kind == PartitionKind::Striped {
            let k = self.shift.unwrap_or(0);
            let (full, rest) = (
                self.num_vertices >> k,
                self.num_vertices & ((1u64 << k) - 1),
            );
            let mine = full / self.trustees + u64::from(t < full % self.trustees);
            return (mine << k) + if full % self.trustees == t { rest } else { 0 };
        }
        if self.kind == PartitionKind::Blocks {
            let k = self.shift.unwrap_or(0);
            let tab = &self.table;
            let owned = (tab.first(t as usize + 1) - tab.first(t as usize)) as u64;
            let last = tab.blocks.saturating_sub(1) as usize;
            let short = (1u64 << k) * u64::from(tab.blocks) - self.num_vertices;
            let mine_last = tab.blocks > 0 && u64::from(get8(&tab.owner, last)) == t;
            return (owned << k) - if mine_last { short } else { 0 };
        }
        self.base + u64::from(t < self.extra)
    }

    /// Number of vertices owned by all trustees of `rank`.
    pub fn rank_count(&self, rank: u32) -> u64 {
        self.trustees_of_rank(rank)
            .map(|t| self.local_count(t))
            .sum()
    }

    /// Global ids owned by `trustee`, in local-index order.
    pub fn vertices_of(&self, trustee: u32) -> impl Iterator<Item = u64> + '_ {
        (0..self.local_count(trustee)).map(move |l| self.global(trustee, l))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_partition(p: &Partition) {
        let n = p.num_vertices();
        let t = p.num_trustees();
        let mut seen = vec![0u32; n as usize];
        let mut total = 0;
        for tr in 0..t {
            let count = p.local_count(tr);
            total += count;
            for (l, v) in p.vertices_of(tr).enumerate() {
                assert!(v < n, "{p:?}: trustee {tr} local {l} -> {v} out of range");
                seen[v as usize] += 1;
                let o = p.owner(v);
                assert_eq!(o.trustee, tr, "{p:?} v={v}");
                assert_eq!(o.local, l as u64, "{p:?} v={v}");
                assert_eq!(o.rank, tr / p.threads_per_rank());
            }
        }
        assert_eq!(total, n, "{p:?}: counts must sum to n");
        assert!(
            seen.iter().all(|&c| c == 1),
            "{p:?}: every vertex owned once"
        );
        for v in 0..n {
            let o = p.owner(v);
            assert_eq!(p.global(o.trustee, o.local), v, "{p:?}: round trip of {v}");
            assert!(o.local < p.local_count(o.trustee));
        }
        // Balance: sizes differ by at most one (striped: one stripe).
        let sizes: Vec<u64> = (0..t).map(|tr| p.local_count(tr)).collect();
        let (lo, hi) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
        let slack = match p.kind() {
            PartitionKind::Striped => 1 << p.shift.unwrap(),
            PartitionKind::Blocks => 2 << p.shift.unwrap(),
            _ => 1,
        };
        assert!(hi - lo <= slack, "{p:?}: unbalanced {sizes:?}");
    }

    /// Every vertex's owner and local index round-trip, each trustee's
    /// vertices rise with their ids, and the owners are the block table's.
    fn check_blocks(p: &Partition) {
        let n = p.num_vertices();
        let table = p.block_table();
        let mut total = 0;
        for tr in 0..p.num_trustees() {
            let vs: Vec<u64> = p.vertices_of(tr).collect();
            assert!(
                vs.windows(2).all(|w| w[0] < w[1]),
                "{p:?}: trustee {tr} not rising"
            );
            for (l, &v) in vs.iter().enumerate() {
                let o = p.owner(v);
                assert_eq!((o.trustee, o.local), (tr, l as u64), "{p:?} v={v}");
                assert_eq!(table[p.block_of(v) as usize], tr);
                assert!(p.block_range(p.block_of(v)).contains(&v));
            }
            total += vs.len() as u64;
        }
        assert_eq!(total, n);
        for v in 0..n {
            let o = p.owner(v);
            assert_eq!(p.global(o.trustee, o.local), v, "{p:?}: round trip of {v}");
        }
    }

    #[test]
    fn all_small_partitions_round_trip() {
        for kind in [
            PartitionKind::Block,
            PartitionKind::Cyclic,
            PartitionKind::Striped,
            PartitionKind::Blocks,
        ] {
            for n in 0..=40u64 {
                for ranks in 1..=4 {
                    for threads in 1..=3 {
                        check_partition(&Partition::new(kind, n, ranks, threads).unwrap());
                    }
                }
            }
        }
    }

    #[test]
    fn block_is_contiguous_and_cyclic_round_robin() {
        let b = Partition::new(PartitionKind::Block, 11, 1, 3).unwrap();
        let owners: Vec<u32> = (0..11).map(|v| b.trustee_of(v)).collect();
        assert_eq!(owners, [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2]);
        let c = Partition::new(PartitionKind::Cyclic, 11, 1, 3).unwrap();
        let owners: Vec<u32> = (0..11).map(|v| c.trustee_of(v)).collect();
        assert_eq!(owners, [0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1]);
        assert_eq!(
            c.owner(10),
            Owner {
                rank: 0,
                trustee: 1,
                local: 3
            }
        );
    }

    #[test]
    fn more_trustees_than_vertices() {
        for kind in [
            PartitionKind::Block,
            PartitionKind::Cyclic,
            PartitionKind::Striped,
        ] {
            let p = Partition::new(kind, 3, 2, 4).unwrap();
            let counts: Vec<u64> = (0..8).map(|t| p.local_count(t)).collect();
            assert_eq!(counts, [1, 1, 1, 0, 0, 0, 0, 0]);
            assert_eq!(p.rank_count(0), 3);
            assert_eq!(p.rank_count(1), 0);
            check_partition(&p);
        }
    }

    #[test]
    fn striped_is_even_when_every_trustee_owns_about_as_many_stripes() {
        // Powers of two over powers of two: exactly even.
        assert!(striped_is_even(1 << 20, 1, 2));
        assert!(striped_is_even(1 << 22, 2, 1));
        assert!(striped_is_even(1 << 27, 16, 32));
        // 16 stripes over 3 trustees: 6, 5, 5 (12.5% above 16/3).
        assert!(!striped_is_even(1 << 20, 3, 1));
        // 64 over 3: 22, 21, 21 (3%).
        assert!(striped_is_even(1 << 22, 3, 1));
        // SCALE 27 over 12 x 32: 2048 stripes, 6 or 5 each.
        assert!(!striped_is_even(1 << 27, 12, 32));
        // A short last stripe: 10^6 ids over 2, 8 stripes of 2^16 against
        // 7 and 16960 ids (4.9%).
        assert!(striped_is_even(1_000_000, 1, 2));
        // Exactly what local_count says, for many shapes.
        for n in [1u64, 5, 100, 1000, 65_537, 1 << 20, 3_000_001] {
            for t in 1..=7u32 {
                let p = Partition::new(PartitionKind::Striped, n, 1, t).unwrap();
                let heaviest = (0..t).map(|i| p.local_count(i)).max().unwrap();
                let even = n.div_ceil(u64::from(t));
                assert_eq!(
                    striped_is_even(n, 1, t),
                    heaviest * 16 <= even * 17,
                    "{n} over {t}"
                );
            }
        }
        assert!(!striped_is_even(10, 0, 1));
    }

    #[test]
    fn striped_deals_stripes_round_robin() {
        // 2^22 ids (a 2048 x 2048 grid) over 2 trustees: stripes of 2^16.
        let p = Partition::new(PartitionKind::Striped, 1 << 22, 1, 2).unwrap();
        assert_eq!(p.shift, Some(16));
        let owners: Vec<u32> = (0..6).map(|c| p.trustee_of(c << 16)).collect();
        assert_eq!(owners, [0, 1, 0, 1, 0, 1]);
        assert_eq!(p.owner((3 << 16) + 5).local, (1 << 16) + 5);
        assert_eq!([p.local_count(0), p.local_count(1)], [1 << 21, 1 << 21]);
        // Small graphs get small stripes: 4 per trustee at least.
        let q = Partition::new(PartitionKind::Striped, 100, 1, 3).unwrap();
        assert_eq!(q.shift, Some(3));
        for (n, ranks, threads) in [(1000, 1, 2), (12_345, 2, 3), (70_000, 1, 2)] {
            check_partition(&Partition::new(PartitionKind::Striped, n, ranks, threads).unwrap());
        }
    }

    #[test]
    fn large_ids_do_not_overflow() {
        let n = 1u64 << 32;
        for kind in [
            PartitionKind::Block,
            PartitionKind::Cyclic,
            PartitionKind::Striped,
            PartitionKind::Blocks,
        ] {
            // 21 trustees (divisions) and 8 (the shift fast path).
            for (ranks, threads) in [(7, 3), (4, 2)] {
                let p = Partition::new(kind, n, ranks, threads).unwrap();
                let t = ranks * threads;
                let striped = matches!(kind, PartitionKind::Striped | PartitionKind::Blocks);
                assert_eq!(p.shift.is_some(), t == 8 || striped);
                for v in [0, 1, n / 2, n / 2 + 12345, n - 2, n - 1] {
                    let o = p.owner(v);
                    assert_eq!(p.global(o.trustee, o.local), v);
                    assert!(o.trustee < t);
                    assert!(o.local < p.local_count(o.trustee));
                }
                let total: u64 = (0..t).map(|t| p.local_count(t)).sum();
                assert_eq!(total, n);
            }
        }
    }

    #[test]
    fn blocks_start_contiguous_and_follow_the_table_after_moves() {
        // 1000 ids over 2 x 2 trustees: 32 blocks of 32 (the last one 8).
        let mut p = Partition::blocks_with(1000, 2, 2, 8).unwrap();
        assert_eq!((p.num_blocks(), p.shift), (32, Some(5)));
        let table = p.block_table();
        assert_eq!(&table[..9], [0, 0, 0, 0, 0, 0, 0, 0, 1]);
        assert!(table.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(p.block_range(31), 992..1000);
        check_partition(&p);
        check_blocks(&p);
        // The hubs' block to trustee 3, the last (short) block to trustee 0,
        // a middle one to trustee 2: owners, local indices and counts follow.
        p.move_block(0, 3).unwrap();
        p.move_block(31, 0).unwrap();
        p.move_block(12, 2).unwrap();
        let t = p.block_table();
        assert_eq!((t[0], t[31], t[12]), (3, 0, 2));
        assert_eq!(
            p.owner(5),
            Owner {
                rank: 1,
                trustee: 3,
                local: 5
            }
        );
        // Trustee 0 now holds blocks 1..8 and 31: block 31 is its last slot.
        assert_eq!(p.owner(995).local, 7 * 32 + 3);
        assert_eq!(p.local_count(0), 7 * 32 + 8);
        assert_eq!(p.local_count(3), 8 * 32);
        check_blocks(&p);
        // A pseudo-random walk of moves keeps every invariant.
        let mut x = 12345u64;
        for _ in 0..200 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let (b, to) = ((x >> 33) as u32 % 32, (x >> 20) as u32 % 4);
            p.move_block(b, to).unwrap();
            assert_eq!(p.block_owner(b), Some(to));
            check_blocks(&p);
        }
        // Moves that name nothing are refused; other kinds have no blocks.
        assert!(p.move_block(32, 0).is_err());
        assert!(p.move_block(0, 4).is_err());
        let mut q = Partition::new(PartitionKind::Block, 1000, 2, 2).unwrap();
        assert_eq!(q.num_blocks(), 0);
        assert!(q.move_block(0, 1).is_err());
    }

    #[test]
    fn blocks_sizes_and_limits() {
        // 2^20 ids over 2 trustees: 128 blocks of 2^13.
        let p = Partition::new(PartitionKind::Blocks, 1 << 20, 1, 2).unwrap();
        assert_eq!((p.num_blocks(), p.shift), (128, Some(13)));
        assert_eq!([p.local_count(0), p.local_count(1)], [1 << 19, 1 << 19]);
        // 64 trustees: 256 blocks, 4 each; 65 are refused.
        let p = Partition::new(PartitionKind::Blocks, 1 << 20, 8, 8).unwrap();
        assert_eq!(p.num_blocks(), 256);
        assert!((0..64).all(|t| p.local_count(t) == 1 << 14));
        assert_eq!(
            Partition::new(PartitionKind::Blocks, 1 << 20, 5, 13),
            Err(PartitionError::TooManyTrusteesForBlocks { trustees: 65 })
        );
        // Fewer ids than trustees: blocks of one id, some trustees empty.
        let p = Partition::new(PartitionKind::Blocks, 3, 2, 4).unwrap();
        assert_eq!(p.block_table(), [0, 2, 5]);
        check_blocks(&p);
    }

    #[test]
    fn bad_shapes_are_refused() {
        assert_eq!(
            Partition::new(PartitionKind::Block, 10, 0, 1),
            Err(PartitionError::NoTrustees)
        );
        assert!(matches!(
            Partition::new(PartitionKind::Block, 10, u32::MAX, 2),
            Err(PartitionError::TooManyTrustees { .. })
        ));
        assert_eq!(Partition::single(5).local_count(0), 5);
        assert_eq!(Partition::single(5).local_count(1), 0);
    }
}
