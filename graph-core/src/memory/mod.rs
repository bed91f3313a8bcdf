//! Memory estimates for a run, per rank, and the refusal text when it will
//! not fit (the fallible allocation of the large arrays is
//! [`crate::alloc`]).
//!
//! The model follows what the code does today, phase by phase, for rank `r`
//! of `R` ranks with `T` trustees each (`W = R x T`), `n = 2^SCALE`
//! vertices and `m = edgefactor x n` edge records. Adjacency counts are
//! upper bounds (`2m` entries: self-loops and duplicates are not
//! subtracted); per-vertex sizes are the arrays the kernels allocate, with
//! the queues' share calibrated against measured peaks
//! (results/memory/estimate.md). A process also holds [`BASE_BYTES`].
//!
//! 1. *generation*: every command but `generate` and `bc` generates
//!    nothing up front ([`Workload::streams`]); those two hold
//!    the whole edge list on every rank, `12 B x m` ([`edge_list_bytes`]).
//! 2. *construction*: streamed, every rank builds only its own shards
//!    while its trustees generate their slices
//!    ([`streamed_construction_bytes`]: `8 B` per adjacency entry, or
//!    `4 B` for the commands whose kernels never read weights
//!    ([`Workload::weighted`]: the shards are built without them), `8 B`
//!    per vertex of offsets (unweighted: 4 B more for the rows' slots); as
//!    scratch 16 B per vertex (unweighted 24), the send buffers
//!    and as much of its share of the generated edges, 12 B per edge, kept
//!    between the two passes instead of generated twice, as stays under
//!    the rank's later peak ([`MemoryEstimate::kept_permille`])); `bc`
//!    builds the same way from the list it holds. (The in-memory build
//!    that no command uses any more, rank 0 building every shard from the
//!    list, is [`construction_bytes`].)
//! 3. *exchange*: nothing any more (every rank builds its own shards).
//! 4. *kernel state*: per command (see [`Workload`]): SSSP splits its rows
//!    inside the shards (no copy), the unweighted kernels' rows are the
//!    unweighted shards' own (4 B per vertex for their lengths; a copy, 4 B
//!    per entry, beside `graph500`'s weighted shards); the renumbering tables (8 B per vertex of the whole graph)
//!    once per rank; SSSP's distance bounds (4 B per vertex of the whole
//!    graph) on every trustee, or shared per rank for the other ranks'
//!    vertices ([`sssp_shares_bounds`]); rank 0 gathers the answer (O(n)).
//! 5. *validation*: `sssp`, `bfs`, `graph500`: on every trustee over its
//!    own shard, with one packed copy of the answer per rank (8 B per
//!    vertex) and the tree checks on rank 0; the whole-graph commands: on
//!    rank 0 over the edge list (read again, or held by `bc`), after
//!    dropping the shards, with the checkers' own copies of the graph.
//!
//! A rank's need is the largest resident size over the phases.
//!
//! | file | what |
//! |---|---|
//! | `run.rs` | what is estimated: the command ([`Workload`]), the run's [`Shape`], and the answer ([`MemoryEstimate`], its [`Phase`]s) |
//! | `phases.rs` | the model above, phase by phase ([`estimate_rank`], [`estimate`]) |
//! | `ranks.rs` | the searches: the largest SCALE that fits, the fewest ranks ([`ranks_needed`]) |
//! | `refusal.rs` | a run that does not fit: [`check_fits`] and the [`MemoryRefusal`] text |

mod phases;
mod ranks;
mod refusal;
mod run;

pub use phases::{
    construction_bytes, edge_list_bytes, estimate, estimate_rank, slot_bytes, sssp_shares_bounds,
    streamed_construction_bytes, BASE_BYTES, ENTRY_BYTES, RECORD_BYTES, UNWEIGHTED_ENTRY_BYTES,
};
pub use ranks::{
    largest_fitting_scale, ranks_needed, ranks_needed_for, ranks_needed_with,
    why_no_rank_count_fits, ADVICE_SHARE_PERMILLE, MAX_RANKS, MAX_SHARE_QUERIES,
};
pub use refusal::{check_fits, check_fits_here, MemoryRefusal};
pub use run::{share_permille, MemoryEstimate, Phase, Shape, Workload, PHASES};
