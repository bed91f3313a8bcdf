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
//! More trustees than vertices is allowed: some trustees then own nothing.

use std::fmt;

/// How vertices are spread over trustees.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum PartitionKind {
    /// Contiguous, balanced ranges (sizes differ by at most one).
    Block,
    /// Round-robin: `v % trustees`.
    Cyclic,
    /// Stripes of consecutive ids, round-robin (see the module docs).
    Striped,
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
    /// Striped: log2 of the stripe size (always set).
    shift: Option<u32>,
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
            },
        })
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
        }
    }

    /// Block, cyclic or striped.
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
            _ => 1,
        };
        assert!(hi - lo <= slack, "{p:?}: unbalanced {sizes:?}");
    }

    #[test]
    fn all_small_partitions_round_trip() {
        for kind in [
            PartitionKind::Block,
            PartitionKind::Cyclic,
            PartitionKind::Striped,
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
        ] {
            // 21 trustees (divisions) and 8 (the shift fast path).
            for (ranks, threads) in [(7, 3), (4, 2)] {
                let p = Partition::new(kind, n, ranks, threads).unwrap();
                let t = ranks * threads;
                let striped = kind == PartitionKind::Striped;
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
