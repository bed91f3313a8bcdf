//! The memory check: this process's place in the job ([`MemoryContext`],
//! set once in `main`), the estimate for it against the available memory,
//! and the refusal (with the ranks that would fit) or `--force`'s warning.

use graph_core::memory;

use crate::error::{CliError, Result};

/// What the memory check needs to know about this process: the command
/// it runs and its place in the job (rank `rank` of `ranks`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryContext {
    /// The command's memory profile.
    pub workload: memory::Workload,
    /// How the command spreads vertices over trustees (ranks' shares of
    /// the edges follow from it): its `--partition`, or its default, which
    /// may still fall back to block on the graph at hand
    /// ([`crate::args::settle_kind`]).
    pub partition: graph_core::PartitionKind,
    /// Whether `--partition` gave it (a given partition never falls back).
    pub explicit: bool,
    /// This process's rank.
    pub rank: u32,
    /// Ranks in the job.
    pub ranks: u32,
}

static MEMORY_CONTEXT: std::sync::OnceLock<MemoryContext> = std::sync::OnceLock::new();

/// Sets the memory check's context (once, in `main`, before any graph).
pub fn set_memory_context(ctx: MemoryContext) {
    let _ = MEMORY_CONTEXT.set(ctx);
}

/// The context set in `main`; unset, the largest profile on one rank.
pub fn memory_context() -> MemoryContext {
    MEMORY_CONTEXT.get().copied().unwrap_or(MemoryContext {
        workload: memory::Workload::Graph500,
        partition: graph_core::PartitionKind::Block,
        explicit: false,
        rank: 0,
        ranks: 1,
    })
}

/// Refuses a run whose memory estimate for this rank (see
/// [`MemoryContext`]), holding `share` of the edges (thousandths of an even
/// split, see [`memory::Shape::share_permille`]), exceeds the available
/// memory, before anything large is allocated; with `force`, says on stderr
/// that it goes ahead anyway. `heaviest` gives the advice's rank count the
/// real shares of a generated graph (otherwise it allows for 25% skew).
pub fn check_memory(
    scale: u32,
    edgefactor: u32,
    threads: usize,
    share: u32,
    heaviest: Option<&dyn Fn(u32) -> u32>,
    force: bool,
) -> Result<()> {
    let ctx = memory_context();
    let shape = memory::Shape {
        share_permille: share,
        ..memory::Shape::even(
            scale,
            edgefactor,
            ctx.ranks,
            u32::try_from(threads).unwrap_or(u32::MAX),
        )
    };
    check_shape(shape, heaviest, force)
}

/// [`check_memory`] for a graph that is not a Graph500 graph (a graph file
/// of another origin, another tool's format): its vertex and edge counts,
/// so that per-vertex state counts however few edges there are.
pub fn check_graph_memory(vertices: u64, edges: u64, threads: usize, force: bool) -> Result<()> {
    let ctx = memory_context();
    let t = u32::try_from(threads).unwrap_or(u32::MAX);
    check_shape(
        memory::Shape::of_graph(vertices, edges, ctx.ranks, t),
        None,
        force,
    )
}

fn check_shape(
    shape: memory::Shape,
    heaviest: Option<&dyn Fn(u32) -> u32>,
    force: bool,
) -> Result<()> {
    let ctx = memory_context();
    let estimate = memory::estimate_rank(ctx.workload, shape, ctx.rank);
    let Some(gossamer::memory::Available {
        bytes: avail,
        source,
    }) = available_memory()
    else {
        return Ok(());
    };
    match memory::check_fits(&estimate, avail) {
        Ok(()) => Ok(()),
        Err(_) if force => {
            // One write, so the ranks of a job sharing a terminal do not
            // interleave their lines.
            let line = format!(
                "warning: --force: running although the estimate ({}) for rank {} of {} exceeds the available memory ({}, {source})\n",
                gossamer::memory::show_bytes(estimate.per_rank_bytes),
                ctx.rank,
                ctx.ranks,
                gossamer::memory::show_bytes(avail)
            );
            let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), line.as_bytes());
            Ok(())
        }
        Err(mut refusal) => {
            refusal.source = source;
            if let Some(h) = heaviest.filter(|_| shape.exact.is_none()) {
                refusal.ranks_needed = memory::ranks_needed_with(
                    estimate.workload,
                    estimate.scale,
                    estimate.edgefactor,
                    estimate.threads_per_rank,
                    avail,
                    h,
                );
            }
            Err(CliError::new(format!(
                "{refusal} Pass --force to try anyway."
            )))
        }
    }
}

/// Available memory: `MemAvailable`, or a tighter limit of this process
/// (`RLIMIT_AS`, `RLIMIT_DATA`, its cgroup's; see
/// [`gossamer::memory::available`]), unless a test build's hook says
/// otherwise ([`crate::hooks::available_bytes`]).
pub fn available_memory() -> Option<gossamer::memory::Available> {
    match crate::hooks::available_bytes() {
        Some(bytes) => Some(gossamer::memory::Available {
            bytes,
            source: "GOSSAMER_GRAPH_AVAILABLE_BYTES, a test hook".into(),
        }),
        None => gossamer::memory::available(),
    }
}
