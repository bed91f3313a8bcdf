//! The Graph500 validation and TEPS edge count from the shards of a
//! [`ShardedGraph`](crate::sharded::ShardedGraph), without the edge list.
//!
//! The caller (a fiber on the rank that holds the gathered answer, indexed
//! by global vertex id) checks the rules on the answer arrays alone, as
//! the list validators do: lengths, rules 1-3, the distances' ranges (SSSP)
//! or the levels (BFS), the root's distance. The edge rules then run on
//! every trustee over its own shard, in parallel:
//!
//! * rules 4 and 5 and the traversed-edge count look at each input edge
//!   once: a shard has two entries per non-loop input edge, `(u -> v)` in
//!   `u`'s row and `(v -> u)` in `v`'s, and only one is checked: the one in
//!   the row of the reached end (one end reached), or of the smaller answer
//!   word (both reached; equal words, the smaller id), so that most entries
//!   need no global id of their neighbour;
//! * rule 6 is per vertex: the owner of `v` looks in `v`'s row for an entry
//!   to `parent(v)` with `d(v) == d(parent) + w`.
//!
//! Each trustee returns its counts and its first problems (at most
//! `MAX_LISTED` of each kind, smallest first), and the caller merges them:
//! the verdict, the exact problem count and the traversed-edge count equal
//! the list validators'. Listed problems come in a deterministic order that
//! does not depend on the order of entries in a row: the caller's own
//! problems, then edge problems by `(u, v, weight)` with `u < v`, then
//! unconfirmed vertices by id. (The list validators list edge problems in
//! input order and name an edge as it was input; here it is named
//! `(smaller id, larger id)`.)
//!
//! On a directed graph (its shards hold each arc once, in its tail's row)
//! the rules are the directed ones of the module docs: each trustee checks
//! rules 4 and 5 and counts the arcs whose tail it owns and has reached;
//! rule 6 is confirmed by the trustee owning the parent (the arc
//! `parent(v) -> v` is in the parent's row), which returns a bitmap of the
//! vertices it confirmed (1 bit per vertex per trustee), and the caller
//! ORs them. Arc problems are listed by `(tail, head, weight)`.
//!
//! The trustees read the answer through a per-process copy
//! (`crate::per_rank`): 8 bytes per vertex (parent as `u32`, distance as
//! `f32` bits; the traversed-edge count needs only a reached bitmap, 1 bit
//! per vertex), sent once to each other process of a rack run and freed
//! when the check ends. On shards whose rows a kernel renamed, each
//! process also re-indexes that copy by renamed id once (8 bytes per
//! vertex more), so a trustee reads one word per entry, not the name and
//! then the word.
//!
//! | file | what |
//! |---|---|
//! | `check.rs` | the validators and the edge count: the caller's checks, the trustees' scans, the merge |
//! | `scan.rs` | one trustee's scan of its shard and its report |
//! | `tests.rs` | the same verdicts as the list validators, on random graphs and broken answers |

mod check;
mod scan;
#[cfg(test)]
mod tests;

pub use check::{
    count_traversed_sharded, count_traversed_sharded_u32, validate_bfs_sharded,
    validate_bfs_sharded_u32, validate_sssp_sharded,
};
