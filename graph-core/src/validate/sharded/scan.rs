//! What each trustee checks on its own shard: rules 4-6 and the
//! traversed-edge count over its rows ([`scan`]), read from the answer
//! packed 8 bytes per vertex ([`pack`]), its findings in a [`ShardReport`].

use serde::{Deserialize, Serialize};

use crate::csr::{prefetch, Shard};
use crate::validate::problems::{
    arc_split_message, arc_triangle_message, overflow_message, overflows, split_message,
    triangle_message, MAX_LISTED,
};
use crate::validate::tree::NO_PARENT;

/// Which weights the edge rules use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Weights {
    /// The shards' (SSSP).
    Shard,
    /// 1 on every edge (BFS depths).
    Unit,
}

/// High half of a packed answer word of an unreached vertex (a NaN pattern
/// no reached vertex's distance takes: their NaNs are made canonical).
const UNREACHED_HIGH: u32 = u32::MAX;

/// One vertex's answer for the trustees: parent in the low 32 bits (the
/// ids were checked, so they fit), distance bits in the high 32 bits, or
/// `UNREACHED_HIGH` there for an unreached vertex.
pub(super) fn pack(parent: u64, dist: f32) -> u64 {
    if parent == NO_PARENT {
        return u64::from(UNREACHED_HIGH) << 32;
    }
    let d = if dist.is_nan() { f32::NAN } else { dist };
    (u64::from(d.to_bits()) << 32) | (parent & 0xFFFF_FFFF)
}

/// The distance packed in `word` (infinity if unreached).
pub(super) fn distance(word: u64) -> f32 {
    unpack(word).map_or(f32::INFINITY, |(_, d)| d)
}

/// `(parent, distance)` of a reached vertex, `None` if unreached.
fn unpack(word: u64) -> Option<(u64, f32)> {
    let high = (word >> 32) as u32;
    (high != UNREACHED_HIGH).then(|| (word & 0xFFFF_FFFF, f32::from_bits(high)))
}

/// A broken edge rule, as a trustee found it (`u < v`, or the entry's row
/// and target for `Outside`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub(super) enum EdgeProblem {
    /// A shard entry naming a vertex outside the graph (a broken shard).
    Outside { u: u64, v: u64 },
    /// Rule 4: one end reached, the other not.
    Split { u: u64, v: u64, reached: u64 },
    /// Rule 5: the triangle rule fails.
    Triangle {
        u: u64,
        v: u64,
        w: f32,
        du: f32,
        dv: f32,
    },
    /// Directed rule 4: the arc `u -> v` leaves reached `u` for unreached `v`.
    ArcSplit { u: u64, v: u64 },
    /// Rule 4 (or directed rule 4, `arc`) because `d + w` of the reached
    /// end overflows `f32`.
    Overflow {
        u: u64,
        v: u64,
        reached: u64,
        d: f32,
        w: f32,
        arc: bool,
    },
    /// Directed rule 5: `d(v) > d(u) + w` along the arc `u -> v`.
    ArcTriangle {
        u: u64,
        v: u64,
        w: f32,
        du: f32,
        dv: f32,
    },
}

impl EdgeProblem {
    pub(super) fn key(&self) -> (u64, u64, u32) {
        match *self {
            EdgeProblem::Outside { u, v }
            | EdgeProblem::Split { u, v, .. }
            | EdgeProblem::ArcSplit { u, v }
            | EdgeProblem::Overflow { u, v, .. } => (u, v, 0),
            EdgeProblem::Triangle { u, v, w, .. } | EdgeProblem::ArcTriangle { u, v, w, .. } => {
                (u, v, w.to_bits())
            }
        }
    }

    pub(super) fn describe(&self) -> String {
        match *self {
            EdgeProblem::Outside { u, v } => {
                format!("shard entry ({u}, {v}) names a vertex outside the graph")
            }
            EdgeProblem::Split { u, v, reached } => {
                let unreached = if reached == u { v } else { u };
                split_message(u, v, reached, unreached)
            }
            EdgeProblem::Triangle { u, v, w, du, dv } => triangle_message(u, v, w, du, dv),
            EdgeProblem::ArcSplit { u, v } => arc_split_message(u, v),
            EdgeProblem::Overflow {
                u,
                v,
                reached,
                d,
                w,
                arc,
            } => {
                let unreached = if reached == u { v } else { u };
                let kind = if arc { "arc" } else { "edge" };
                overflow_message(kind, u, v, reached, unreached, d, w)
            }
            EdgeProblem::ArcTriangle { u, v, w, du, dv } => arc_triangle_message(u, v, w, du, dv),
        }
    }
}

/// What one trustee found on its shard.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct ShardReport {
    /// Input edges (`u < v` entries) with both ends reached.
    pub(super) traversed: u64,
    /// Broken edge rules, all of them.
    pub(super) edge_problems: u64,
    /// Of them, those where a distance overflows `f32`.
    pub(super) overflows: u64,
    /// The smallest of them by key, at most `MAX_LISTED`, sorted.
    pub(super) edges_listed: Vec<EdgeProblem>,
    /// Reached vertices that no entry confirms (rule 6), all of them.
    pub(super) unconfirmed: u64,
    /// The smallest of them, at most `MAX_LISTED`, ascending.
    pub(super) unconfirmed_listed: Vec<u64>,
    /// Directed graphs: the vertices confirmed (rule 6) by an arc from
    /// their parent in this shard, as a bitmap over global ids (empty
    /// otherwise).
    pub(super) confirmed: Vec<u64>,
}

impl ShardReport {
    fn edge(&mut self, p: EdgeProblem) {
        self.edge_problems += 1;
        if matches!(p, EdgeProblem::Overflow { .. }) {
            self.overflows += 1;
        }
        self.edges_listed.push(p);
        if self.edges_listed.len() >= 4 * MAX_LISTED {
            self.trim();
        }
    }

    fn trim(&mut self) {
        self.edges_listed.sort_unstable_by_key(EdgeProblem::key);
        self.edges_listed.truncate(MAX_LISTED);
        self.unconfirmed_listed.sort_unstable();
        self.unconfirmed_listed.truncate(MAX_LISTED);
    }
}

/// How a trustee reads the answer along its rows: `words` indexed by the
/// ids its rows store (global ids, or the ids a kernel renamed them to),
/// and the global id of a stored one.
pub(super) struct Ids<'a> {
    /// The answer word of every stored id.
    pub(super) words: &'a [u64],
    /// Global id of each renamed id (`None`: stored ids are global).
    pub(super) names: Option<&'a [u32]>,
    /// `words` is indexed by global id though the ids are renamed: each
    /// entry's word is read through `names` (one random read more per
    /// entry, and no re-indexed copy of the answer in memory).
    pub(super) by_global: bool,
}

impl Ids<'_> {
    /// Number of ids the rows may store.
    #[inline]
    fn len(&self) -> u64 {
        match (self.by_global, self.names) {
            (true, Some(n)) => n.len() as u64,
            _ => self.words.len() as u64,
        }
    }

    /// The answer word of stored id `t` (below [`len`](Self::len)).
    #[inline]
    fn word(&self, t: u64) -> u64 {
        match (self.by_global, self.names) {
            (true, Some(n)) => self.words[n[t as usize] as usize],
            _ => self.words[t as usize],
        }
    }

    /// Asks the cache for the word of stored id `t` (a hint).
    #[inline]
    fn prefetch(&self, t: u32) {
        let at = match (self.by_global, self.names) {
            (true, Some(n)) => n.get(t as usize).map(|&g| g as usize),
            _ => Some(t as usize),
        };
        if let Some(w) = at.and_then(|a| self.words.get(a)) {
            prefetch::line(w);
        }
    }

    /// Global id of stored id `t` (a random read of the names when
    /// renamed: only where a rule needs it, not per entry).
    #[inline]
    fn global(&self, t: u64) -> u64 {
        self.names.map_or(t, |n| u64::from(n[t as usize]))
    }
}

/// The answer re-indexed by renamed id (`names[t]` is the global id of
/// renamed id `t`), so that a scan reads one word per entry instead of
/// the name and then the word.
pub(super) fn by_names(words: &[u64], names: &[u32]) -> Vec<u64> {
    names.iter().map(|&g| words[g as usize]).collect()
}

/// Entries ahead whose answer word [`entries`] asks the cache for.
const PREFETCH: usize = 8;

/// Calls `f(rep, t, w)` for each entry of local vertex `l` (global id `u`)
/// whose stored id `t` is in `ids`, `w` being the weight as `weights`
/// reads it; an id outside is reported in `rep` and skipped. `buf` holds
/// the row when the shard's rows were taken by a kernel
/// ([`Shard::row_ids`]).
fn entries(
    shard: &Shard,
    (l, u): (u64, u64),
    ids: &Ids<'_>,
    weights: Weights,
    rep: &mut ShardReport,
    buf: &mut Vec<u32>,
    mut f: impl FnMut(&mut ShardReport, u64, f32),
) {
    // Rows a kernel took are read back through it (weights, if any, stay
    // in the shard, in the order of the ids it reads back).
    let (targets, ws) = if shard.rows_taken() {
        let ws = shard.weights().get(shard.entry_range(l)).unwrap_or(&[]);
        (shard.row_ids(l, buf), ws)
    } else {
        shard.adjacency(l)
    };
    let n = ids.len();
    for (i, &t) in targets.iter().enumerate() {
        // The words are read at random: ask for the ones a few entries on.
        if let Some(&a) = targets.get(i + PREFETCH) {
            ids.prefetch(a);
        }
        let t = u64::from(t);
        let w = match weights {
            Weights::Shard => ws.get(i).copied().unwrap_or(1.0),
            Weights::Unit => 1.0,
        };
        if t >= n {
            rep.edge(EdgeProblem::Outside { u, v: t });
        } else {
            f(rep, t, w);
        }
    }
}

/// Rules 4-6 and the traversed-edge count on one shard: `own` is the
/// answer by global id (for the shard's own vertices), `ids` along the
/// rows.
///
/// Each edge is in two rows; its rules run in one of them: where its
/// reached end is (one end reached), or where the smaller answer word is
/// (both reached; equal words, the smaller global id), so most entries
/// need no global id at all.
pub(super) fn scan(
    shard: &Shard,
    own: &[u64],
    ids: &Ids<'_>,
    root: u64,
    weights: Weights,
) -> ShardReport {
    if shard.is_directed() {
        return scan_arcs(shard, own, ids, weights);
    }
    let (mut rep, mut buf) = (ShardReport::default(), Vec::new());
    for (l, u) in shard.vertices() {
        let wu = own[u as usize];
        let mine = unpack(wu);
        let mut confirmed = mine.is_none() || u == root;
        entries(
            shard,
            (l, u),
            ids,
            weights,
            &mut rep,
            &mut buf,
            |rep, t, w| {
                let wv = ids.word(t);
                let other = unpack(wv);
                let (Some((pu, du)), Some((_, dv))) = (mine, other) else {
                    if let (Some((_, d)), None) = (mine, other) {
                        // Rule 4, from the reached end.
                        let v = ids.global(t);
                        let (a, b) = (u.min(v), u.max(v));
                        rep.edge(if overflows(d, w) {
                            EdgeProblem::Overflow {
                                u: a,
                                v: b,
                                reached: u,
                                d,
                                w,
                                arc: false,
                            }
                        } else {
                            EdgeProblem::Split {
                                u: a,
                                v: b,
                                reached: u,
                            }
                        });
                    }
                    return;
                };
                // Rule 6 for u, on any entry (both directions of an edge are here).
                if !confirmed && du == dv + w {
                    let v = ids.global(t);
                    confirmed = pu == v && v != u;
                }
                let here = match wu.cmp(&wv) {
                    std::cmp::Ordering::Less => true,
                    std::cmp::Ordering::Greater => false,
                    std::cmp::Ordering::Equal => {
                        let v = ids.global(t);
                        v != u && u < v
                    }
                };
                if here {
                    rep.traversed += 1;
                    if dv > du + w || du > dv + w {
                        let v = ids.global(t);
                        rep.edge(if u < v {
                            EdgeProblem::Triangle { u, v, w, du, dv }
                        } else {
                            EdgeProblem::Triangle {
                                u: v,
                                v: u,
                                w,
                                du: dv,
                                dv: du,
                            }
                        });
                    }
                }
            },
        );
        if !confirmed {
            rep.unconfirmed += 1;
            if rep.unconfirmed_listed.len() < MAX_LISTED {
                rep.unconfirmed_listed.push(u);
            }
        }
    }
    rep.trim();
    rep
}

/// [`scan`] on a directed shard: rules 4 and 5 along the arcs of its rows,
/// the arcs of reached tails counted, and rule 6's confirmations returned
/// as a bitmap (the caller finds the unconfirmed vertices).
fn scan_arcs(shard: &Shard, own: &[u64], ids: &Ids<'_>, weights: Weights) -> ShardReport {
    let mut rep = ShardReport {
        confirmed: vec![0; (own.len() as u64).div_ceil(64) as usize],
        ..ShardReport::default()
    };
    let mut buf = Vec::new();
    for (l, u) in shard.vertices() {
        let Some((_, du)) = unpack(own[u as usize]) else {
            continue;
        };
        entries(
            shard,
            (l, u),
            ids,
            weights,
            &mut rep,
            &mut buf,
            |rep, t, w| {
                let other = unpack(ids.word(t));
                // Most arcs: the head reached, no rule broken and not the
                // parent's arc, so no global id is needed (no shard holds a
                // self-loop: the CSR drops them).
                if let Some((pv, dv)) = other {
                    if dv <= du + w && (pv != u || dv != du + w) {
                        rep.traversed += 1;
                        return;
                    }
                }
                let v = ids.global(t);
                if v == u {
                    return;
                }
                rep.traversed += 1;
                match other {
                    None if overflows(du, w) => rep.edge(EdgeProblem::Overflow {
                        u,
                        v,
                        reached: u,
                        d: du,
                        w,
                        arc: true,
                    }),
                    None => rep.edge(EdgeProblem::ArcSplit { u, v }),
                    Some((pv, dv)) => {
                        if dv > du + w {
                            rep.edge(EdgeProblem::ArcTriangle { u, v, w, du, dv });
                        }
                        if pv == u && dv == du + w {
                            rep.confirmed[(v / 64) as usize] |= 1 << (v % 64);
                        }
                    }
                }
            },
        );
    }
    rep.trim();
    rep
}
