//! What a search run measured: which kernel ran, one record per root
//! searched, and the records of one kernel over all its roots. The search
//! fills them in; the reports read them.

use graph_core::validate::ValidationError;

use crate::args::{BfsModeArg, RowsArg};

/// Which kernel, with its options.
#[derive(Clone, Copy, Debug)]
pub enum Kernel {
    /// Delta-stepping SSSP; `None` lets the kernel choose delta; its split
    /// rows' targets stored as `rows` says.
    Sssp { delta: Option<f32>, rows: RowsArg },
    /// BFS in the given mode, on rows stored as `rows` says.
    Bfs { mode: BfsModeArg, rows: RowsArg },
}

impl Kernel {
    /// "sssp" or "bfs".
    pub fn name(&self) -> &'static str {
        match self {
            Kernel::Sssp { .. } => "sssp",
            Kernel::Bfs { .. } => "bfs",
        }
    }

    /// The command's memory profile, which also picks its default
    /// partition ([`crate::args::default_partition`]).
    pub fn workload(&self) -> graph_core::memory::Workload {
        match self {
            Kernel::Sssp { .. } => graph_core::memory::Workload::Sssp,
            Kernel::Bfs { .. } => graph_core::memory::Workload::Bfs,
        }
    }
}

/// BFS's mode as the reports name it.
pub fn mode_name(m: BfsModeArg) -> &'static str {
    match m {
        BfsModeArg::Do => "do",
        BfsModeArg::TopDown => "top-down",
    }
}

/// The measurements of one search.
#[derive(Clone, Debug)]
pub struct RootResult {
    /// The root.
    pub root: u64,
    /// Kernel seconds.
    pub time_s: f64,
    /// Input edges inside the root's component (Graph500 TEPS numerator).
    pub traversed_edges: u64,
    /// Vertices reached, the root included.
    pub reached: u64,
    /// Whether the answer was validated (and passed).
    pub validated: bool,
    /// Seconds spent validating (None when skipped).
    pub validate_time_s: Option<f64>,
}

impl RootResult {
    /// Traversed edges per second.
    pub fn teps(&self) -> f64 {
        self.traversed_edges as f64 / self.time_s
    }
}

/// The delta an SSSP run used: given (`--delta`), or derived from the
/// graph's weights and degree ([`::sssp::derived_delta`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DeltaChoice {
    /// The bucket width that ran.
    pub value: f32,
    /// What it was derived from; `None` when it was given.
    pub derived_from: Option<::sssp::WeightProfile>,
}

impl DeltaChoice {
    /// For the report's first line: `delta 100 (given)`, or
    /// `delta 77.16 (derived: max(w_min 1, w_max 1000 / d^2), d = 3.60)`.
    pub fn describe(&self) -> String {
        match &self.derived_from {
            None => format!("delta {} (given)", self.value),
            Some(p) => format!(
                "delta {} (derived: max(w_min {}, w_max {} / d^2), d = {:.2})",
                self.value,
                p.min,
                p.max,
                p.average_degree()
            ),
        }
    }
}

/// All searches of one kernel.
#[derive(Debug)]
pub struct KernelRun {
    /// Which kernel (SSSP with the delta that ran).
    pub kernel: Kernel,
    /// SSSP: the delta that ran, and whether it was derived.
    pub delta: Option<DeltaChoice>,
    /// One entry per root searched and validated, in root order.
    pub results: Vec<RootResult>,
    /// The root whose answer failed validation (searching stopped there).
    pub failure: Option<(u64, ValidationError)>,
    /// What `--balance between-searches` did (`None` when off).
    pub balance: Option<BalanceReport>,
    /// BFS: the bytes of the rows it searched (`None` for SSSP, whose
    /// weighted rows are its own).
    pub rows: Option<graph_kernel::RowsFootprint>,
}

/// What the between-searches balancer did over one kernel's searches.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct BalanceReport {
    /// Times it moved blocks (each a copy of the rows in memory,
    /// [`graph_core::sharded::ShardedGraph::move_blocks`]; the name is the
    /// first version's, which rebuilt the shards from the source).
    pub rebuilds: usize,
    /// Blocks moved, over all moves.
    pub blocks_moved: usize,
    /// Bytes of the moved blocks' rows (ids, and weights when loaded) and
    /// row offsets: what changed trustee.
    pub bytes_moved: u64,
    /// Bytes of every row and offset written by the moves (blocks that
    /// stay are renumbered, and rows a kernel renamed are named back).
    pub bytes_copied: u64,
    /// Bytes of the records the moves sent to other ranks (each row's
    /// degree, 8 B, and entries, 12 B each: `--ranks`,
    /// [`graph_core::sharded::ShardedGraph::ship_blocks`]); 0 in one
    /// process, where rows are copied in memory.
    pub bytes_shipped: u64,
    /// Seconds moving blocks, over all moves; outside the searches' times.
    pub migration_s: f64,
    /// Set-up and gathering seconds of the searches right after a move
    /// (the kernels prepare their adjacency for the new shards there; the
    /// figure includes gathering the answer, as every search's does).
    pub setup_after_rebuild_s: f64,
    /// Imbalance (busiest / mean busy) of the first search.
    pub imbalance_before: f64,
    /// Imbalance of the last search.
    pub imbalance_after: f64,
    /// Imbalance the balancer predicted after its last move.
    pub predicted_after: f64,
    /// True when it stopped moving: a move's next search showed less
    /// than half the imbalance gain it predicted.
    pub stopped: bool,
    /// The block table after the last move (block -> trustee).
    pub table: Vec<u32>,
}
