//! Running searches: build the kernels' graph inside a Gossamer runtime,
//! search from each root, validate each answer outside the timed region,
//! dump the first root's answer on request (once it passed validation).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use graph_core::construct::ReadyUse;

use graph_core::io::prepared::GraphIdentity;
use graph_core::meta::IdMap;
use graph_core::validate::{
    count_traversed_sharded, count_traversed_sharded_u32, validate_bfs_sharded_u32,
    validate_sssp_sharded, ValidationError, NO_PARENT,
};
use graph_core::PartitionKind;

use crate::args::PreparedOptions;
use crate::engine::Engine;
use crate::error::{CliError, Result};
use crate::files;
use crate::graph::{BuildSource, LoadedGraph, RootPlan};
use crate::progress::{BuildWatch, Progress};
use crate::record::{BalanceReport, Kernel, KernelRun, RootResult};
use crate::runtime;

/// A kernel to run over all roots, and where to dump its first answer.
#[derive(Clone, Debug)]
pub struct KernelSpec {
    /// The kernel.
    pub kernel: Kernel,
    /// Distances (SSSP) or levels (BFS) of the first root go here.
    pub dump: Option<PathBuf>,
}

/// How to run.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Gossamer workers.
    pub threads: usize,
    /// Vertex partition over the workers.
    pub partition: PartitionKind,
    /// Validate every search.
    pub validate: bool,
    /// One untimed search from the first root before the timed ones (as
    /// the reference's benchmark does).
    pub warmup: bool,
    /// Save the built graph, or map a saved one instead of building.
    pub prepared: Option<PreparedRun>,
    /// `--balance between-searches`: move blocks after each search (a
    /// blocks partition; across ranks the rows travel as messages).
    pub balance: bool,
}

/// What the between-searches balancer keeps over a run.
struct Balancing {
    /// The shards keep their weights (8 bytes an entry to copy, else 4).
    weighted: bool,
    /// The trustees span several processes (`--ranks`): moved rows are
    /// shipped as messages.
    ranks: bool,
    /// Edge-list entries and live vertices per block (do not change with
    /// the placement).
    entries: std::cell::OnceCell<(Vec<u64>, Vec<u64>)>,
}

/// The balancer's memory between searches: what its last move cost and
/// promised.
#[derive(Default)]
struct Damping {
    /// Seconds the first search spent outside its clock: the kernel's
    /// set-up (which it does again after a move) and gathering the answer.
    first_outside_s: f64,
    /// The kernel's set-up, as far as measured: the first search's
    /// seconds outside its clock, less the second's.
    setup_s: f64,
    /// The last search's seconds that a move shortens: in its clock, and
    /// (from the second search on, not after a move) gathering its answer,
    /// which each trustee does for its own vertices.
    search_s: f64,
    /// Seconds of the last move and the set-up after it (the next plan's
    /// fixed cost), once one ran.
    last_cost_s: Option<f64>,
    /// (imbalance measured before, imbalance predicted after) of the last
    /// move, until the next search measures what it gave.
    promised: Option<(f64, f64)>,
    /// A move ran after the last search: the next search's set-up is
    /// part of its cost.
    moved_s: Option<f64>,
}

/// `--save-prepared DIR` or `--prepared DIR`, checked (see [`prepared_run`]).
#[derive(Clone, Debug)]
pub enum PreparedRun {
    /// Save every trustee's shard to the directory after the build.
    Save {
        /// Absolute path of the directory (it exists).
        dir: PathBuf,
        /// The graph.
        graph: GraphIdentity,
    },
    /// Map every trustee's shard from the directory instead of building.
    Load {
        /// Absolute path of the directory (it exists).
        dir: PathBuf,
        /// The graph the shards must be of.
        graph: GraphIdentity,
    },
}

/// Checks the graph (one the option fits) and then the directory of
/// `--save-prepared` / `--prepared` before any work (on every rank): a directory to save into (created if absent) or
/// to read from (must exist). Refused: a path that exists and is not a
/// directory. Returns what the run does, with the directory made absolute
/// (the trustees of every rank get the same path).
pub fn prepared_run(
    opts: &PreparedOptions,
    graph: impl FnOnce() -> Result<GraphIdentity>,
) -> Result<Option<PreparedRun>> {
    let (flag, dir, save) = match (&opts.save_prepared, &opts.prepared) {
        (Some(d), _) => ("--save-prepared", d, true),
        (None, Some(d)) => ("--prepared", d, false),
        (None, None) => return Ok(None),
    };
    // The graph first: a graph the option does not fit is refused before
    // a directory is made for it.
    let graph = graph()?;
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(m) => {
            let kind = if m.is_file() {
                "regular file"
            } else {
                "special file"
            };
            return Err(CliError::new(format!(
                "{flag} {}: it is a {kind}, not a directory; name a directory (one that does not exist yet is created by --save-prepared)",
                dir.display()
            )));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && save => {
            std::fs::create_dir_all(dir).map_err(|e| {
                CliError::new(format!(
                    "{flag} {}: could not create the directory: {e}",
                    dir.display()
                ))
            })?;
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(CliError::new(format!(
                "--prepared {}: the directory does not exist; save the graph first with --save-prepared {}",
                dir.display(),
                dir.display()
            )));
        }
        Err(e) => return Err(CliError::new(format!("{flag} {}: {e}", dir.display()))),
    }
    let dir = std::fs::canonicalize(dir)
        .map_err(|e| CliError::new(format!("{flag} {}: {e}", dir.display())))?;
    Ok(Some(if save {
        PreparedRun::Save { dir, graph }
    } else {
        PreparedRun::Load { dir, graph }
    }))
}

/// What a run produced.
#[derive(Debug)]
pub struct Outcome {
    /// Processes (Gossamer ranks) the run spanned.
    pub ranks: usize,
    /// Seconds generating the edges, when the slowest trustee generated
    /// its slice during construction (a streamed graph); `None` when the
    /// graph was loaded before.
    pub generation_time: Option<f64>,
    /// Seconds to build the kernels' graph.
    pub construction_time: f64,
    /// One entry per kernel spec, in order.
    pub runs: Vec<KernelRun>,
}

/// Builds the kernels' graph and runs every kernel spec over `roots`,
/// inside a Gossamer runtime of `plan.threads` workers (every rank of a rack
/// job joins; rank 0 runs the searches and reports).
///
/// Every rank calls this: each publishes its copy of the records (for a
/// graph it holds) or nothing (a streamed graph, which every trustee
/// generates its slice of), and every trustee builds its shard from its
/// own slice. Roots picked among the vertices with edges are picked once
/// the shards exist.
pub fn run(
    graph: Arc<LoadedGraph>,
    roots: RootPlan,
    specs: Vec<KernelSpec>,
    plan: Plan,
) -> Result<Outcome> {
    let source = match &plan.prepared {
        Some(PreparedRun::Load { dir, graph }) => BuildSource::Prepared {
            dir: dir.clone(),
            graph: graph.clone(),
        },
        _ => graph.build_source(),
    };
    let inner = source.clone();
    let result = runtime::run(plan.threads, move || {
        run_inside(&graph, inner, roots, &specs, &plan)
    });
    source.withdraw();
    let (ranks, mut outcome) = result?;
    outcome.ranks = ranks;
    Ok(outcome)
}

/// Says on stderr when a built file's ready rows exist but do not serve
/// this run (the kernels then prepare their rows from the built file).
pub(crate) fn ready_note(used: &ReadyUse) {
    match used {
        ReadyUse::NotForThisRun(p, why) => eprintln!(
            "note: the ready rows {} do not serve this run ({why}): the kernels prepare their rows from the built file",
            p.display()
        ),
        ReadyUse::Absent(p) => {
            // Ready rows of another trustee count beside the file?
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
            let (Some(name), Some(dir)) = (name, p.parent()) else {
                return;
            };
            let Some(stem) = name.rfind(".w").map(|i| name[..i + 2].to_string()) else {
                return;
            };
            let others: Vec<String> = std::fs::read_dir(dir)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with(&stem) && n.ends_with(".ready"))
                .collect();
            if !others.is_empty() {
                eprintln!(
                    "note: ready rows exist for other trustee counts ({}), not for this run's (no {}): the kernels prepare their rows from the built file; `gossamer-graph ready FILE --threads T` writes them for T trustees",
                    others.join(", "),
                    p.display()
                );
            }
        }
        ReadyUse::Mapped(_) | ReadyUse::NotAsked => {}
    }
}

fn run_inside(
    graph: &LoadedGraph,
    source: BuildSource,
    roots: RootPlan,
    specs: &[KernelSpec],
    plan: &Plan,
) -> Result<Outcome> {
    let mapping = match source {
        BuildSource::Prepared { .. } => Some("mapping prepared shards"),
        BuildSource::Built { .. } => Some("mapping the built graph"),
        _ => None,
    };
    let loading = mapping.is_some();
    let (spinner, watch) = match mapping {
        Some(what) => (Some(Progress::spinner(what)), None),
        None => (None, Some(BuildWatch::start(graph.is_streamed()))),
    };
    crate::memtrace::start();
    let phase = mapping.unwrap_or("construction");
    // Only SSSP reads weights; saved shards keep them for any later run.
    let weighted = specs
        .iter()
        .any(|s| matches!(s.kernel, Kernel::Sssp { .. }))
        || matches!(plan.prepared, Some(PreparedRun::Save { .. }));
    let mut source = source;
    if let BuildSource::Built { ready, .. } = &mut source {
        *ready = true;
    }
    let started = Instant::now();
    let built = Engine::build_from(source, plan.partition, weighted);
    let build_s = started.elapsed().as_secs_f64();
    crate::memtrace::end("construction");
    if let Some(s) = spinner {
        s.finish();
    }
    if let Some(w) = watch {
        w.finish();
    }
    let (mut engine, times) = built?;
    let last = gossamer::WorkerId(gossamer::num_workers() - 1);
    let balancing = plan.balance.then(|| Balancing {
        weighted,
        ranks: gossamer::process_of(last) > 0,
        entries: std::cell::OnceCell::new(),
    });
    if let Some(PreparedRun::Save { dir, graph }) = &plan.prepared {
        let bar = Progress::spinner("saving prepared shards");
        let start = Instant::now();
        let saved = crate::phases::time("saving prepared shards", || {
            engine.graph().save_prepared(dir, graph)
        });
        bar.finish();
        saved?;
        eprintln!(
            "note: saved the prepared graph ({} shard files) to {} in {:.3} s; later runs with --prepared {} and the same graph, --ranks, --threads and --partition map it instead of building",
            engine.graph().num_trustees(),
            dir.display(),
            start.elapsed().as_secs_f64(),
            dir.display()
        );
    }
    let (generation_time, construction_time) = if graph.is_streamed() && !loading {
        (Some(times.read_s), times.total_s - times.read_s)
    } else {
        (None, times.total_s)
    };
    // The same split as the report's second line: a generated graph's
    // slices are made during construction.
    let generated = generation_time.unwrap_or(0.0).clamp(0.0, build_s);
    if generated > 0.0 {
        crate::phases::add("generation", generated);
    }
    let phase = match engine.ready_use() {
        ReadyUse::Mapped(_) => "mapping the built graph's ready rows",
        _ => phase,
    };
    ready_note(engine.ready_use());
    crate::phases::add(phase, build_s - generated);
    let roots = match roots {
        RootPlan::Fixed(roots) => roots,
        plan => crate::phases::time("choosing roots", || {
            let live = engine.live();
            graph.resolve_roots(plan, |v| {
                live.get((v / 64) as usize)
                    .is_some_and(|w| w >> (v % 64) & 1 == 1)
            })
        })?,
    };
    let mut runs = Vec::with_capacity(specs.len());
    for spec in specs {
        let run = run_kernel(
            &mut engine,
            &roots,
            spec,
            plan,
            &graph.meta().ids,
            balancing.as_ref(),
        )?;
        let failed = run.failure.is_some();
        runs.push(run);
        if failed {
            break;
        }
    }
    Ok(Outcome {
        ranks: 1,
        generation_time,
        construction_time,
        runs,
    })
}

/// One search's answer, in the shapes the validator and the dumps take.
enum Answer {
    Sssp(crate::engine::SsspRun),
    Bfs(crate::engine::BfsRun),
}

impl Answer {
    fn search(engine: &Engine, kernel: Kernel, root: u64) -> Result<Answer> {
        Ok(match kernel {
            Kernel::Sssp { delta, rows } => Answer::Sssp(engine.sssp(root, delta, rows)?),
            Kernel::Bfs { mode, rows } => Answer::Bfs(engine.bfs(root, mode, rows)?),
        })
    }

    fn time_s(&self) -> f64 {
        match self {
            Answer::Sssp(a) => a.time_s,
            Answer::Bfs(a) => a.time_s,
        }
    }

    /// `(reached, traversed)` without validating
    /// ([`count_traversed_sharded`]).
    fn count_traversed(&self, engine: &Engine) -> (u64, u64) {
        match self {
            Answer::Sssp(a) => count_traversed_sharded(engine.graph(), &a.parent),
            Answer::Bfs(a) => count_traversed_sharded_u32(engine.graph(), &a.parent),
        }
    }

    /// The Graph500 checks, run by every trustee on its own shard (the
    /// answer goes once to each rank); no edge list needed.
    fn validate(
        &self,
        engine: &Engine,
        root: u64,
    ) -> std::result::Result<graph_core::validate::Validated, ValidationError> {
        let g = engine.graph();
        match self {
            Answer::Sssp(a) => validate_sssp_sharded(g, root, &a.parent, &a.dist),
            Answer::Bfs(a) => validate_bfs_sharded_u32(g, root, &a.parent, Some(&a.level)),
        }
    }

    /// Spoils the answer at one reached vertex (the test hook
    /// [`crate::hooks::corrupt_answers`]).
    fn corrupt(&mut self, root: u64) {
        let other = |v: usize| v as u64 != root;
        let victim = match self {
            Answer::Sssp(a) => (0..a.parent.len()).find(|&v| a.parent[v] != NO_PARENT && other(v)),
            Answer::Bfs(a) => (0..a.parent.len()).find(|&v| a.parent[v] != u32::MAX && other(v)),
        };
        if let Some(v) = victim {
            match self {
                Answer::Sssp(a) => a.dist[v] *= 0.5,
                Answer::Bfs(a) => a.level[v] += 1,
            }
        }
    }

    /// Writes the distances (SSSP) or levels (BFS), and the ids sidecar
    /// when `ids` are not the dense ones.
    fn dump(&self, path: &std::path::Path, ids: &IdMap) -> Result<()> {
        match self {
            Answer::Sssp(a) => files::write_dump(path, &a.dist, ids),
            // Levels are dumped as `i64`, as always.
            Answer::Bfs(a) => {
                let level: Vec<i64> = a.level.iter().map(|&l| i64::from(l)).collect();
                files::write_dump(path, &level, ids)
            }
        }
    }
}

/// Runs `spec` from every root; the first root's answer is dumped (with
/// the sidecar of `ids`) once it passed validation, never before.
fn run_kernel(
    engine: &mut Engine,
    roots: &[u64],
    spec: &KernelSpec,
    plan: &Plan,
    ids: &IdMap,
    balancing: Option<&Balancing>,
) -> Result<KernelRun> {
    let mut balance = balancing.map(|_| BalanceReport::default());
    let mut damping = Damping::default();
    // SSSP's delta: given, or derived from the graph once.
    let delta = match spec.kernel {
        Kernel::Sssp { delta, .. } => Some(engine.sssp_delta(delta)),
        Kernel::Bfs { .. } => None,
    };
    let kernel = match (delta, spec.kernel) {
        (Some(d), Kernel::Sssp { rows, .. }) => Kernel::Sssp {
            delta: Some(d.value),
            rows,
        },
        _ => spec.kernel,
    };
    if plan.warmup {
        if let Some(&first) = roots.first() {
            crate::phases::time("warm-up search", || Answer::search(engine, kernel, first))?;
        }
    }
    let bar = Progress::new(spec.kernel.name(), roots.len() as u64);
    let mut results = Vec::with_capacity(roots.len());
    let mut failure = None;
    for (i, &root) in roots.iter().enumerate() {
        crate::memtrace::start();
        let name = spec.kernel.name();
        let called = Instant::now();
        let mut answer = runtime::kernel_window(
            name,
            || format!("{name} search {} (root {root})", i + 1),
            || Answer::search(engine, kernel, root),
        )?;
        // The kernel's clock, and the rest of the call: its set-up (the
        // adjacency and state, made once per graph before the clock) and
        // gathering the answer.
        let call = called.elapsed().as_secs_f64();
        crate::phases::add("kernel time", answer.time_s());
        crate::phases::add(
            "kernel set-up and gathering",
            (call - answer.time_s()).max(0.0),
        );
        if let Some(b) = balance.as_mut() {
            let imbalance = graph_core::balance::imbalance(&runtime::last_window_busy());
            let outside = (call - answer.time_s()).max(0.0);
            b.imbalance_after = imbalance;
            damping.search_s = answer.time_s();
            if i == 0 {
                b.imbalance_before = imbalance;
                b.predicted_after = imbalance;
                damping.first_outside_s = outside;
                damping.setup_s = outside;
            } else if let Some(moved_s) = damping.moved_s.take() {
                b.setup_after_rebuild_s += outside;
                damping.last_cost_s = Some(moved_s + outside);
            } else {
                damping.setup_s = (damping.first_outside_s - outside).max(0.0);
                damping.search_s += outside;
            }
        }
        crate::phases::first_answer();
        crate::memtrace::end(&format!("{} kernel", spec.kernel.name()));
        crate::memtrace::start();
        if crate::hooks::corrupt_answers() {
            answer.corrupt(root);
        }
        let checked = Instant::now();
        let (reached, traversed_edges, validate_time_s) = if plan.validate {
            let start = Instant::now();
            match answer.validate(engine, root) {
                Ok(v) => (
                    v.reached,
                    v.traversed_edges,
                    Some(start.elapsed().as_secs_f64()),
                ),
                Err(e) => {
                    failure = Some((root, e));
                    break;
                }
            }
        } else {
            let (reached, traversed) = answer.count_traversed(engine);
            (reached, traversed, None)
        };
        let phase = if plan.validate {
            "validation"
        } else {
            "counting edges"
        };
        crate::phases::add(phase, checked.elapsed().as_secs_f64());
        crate::memtrace::end(&format!("{} validation", spec.kernel.name()));
        if i == crate::hooks::dump_search().unwrap_or(0) {
            if let Some(path) = &spec.dump {
                crate::phases::time("writing the dump", || answer.dump(path, ids))?;
            }
        }
        results.push(RootResult {
            root,
            time_s: answer.time_s(),
            traversed_edges,
            reached,
            validated: plan.validate,
            validate_time_s,
        });
        drop(answer);
        if let (Some(bl), Some(b)) = (balancing, balance.as_mut()) {
            if i + 1 < roots.len() {
                let search_s = crate::hooks::pretend_search_s().unwrap_or(damping.search_s);
                let left = roots.len() - i - 1;
                balance_step(engine, bl, kernel, search_s, left, b, &mut damping)?;
            }
        }
        bar.tick();
    }
    bar.finish();
    let rows = match kernel {
        Kernel::Bfs { .. } => graph_kernel::rows_footprint(engine.graph()),
        Kernel::Sssp { .. } => None,
    };
    Ok(KernelRun {
        kernel,
        delta,
        results,
        failure,
        balance,
        rows,
    })
}

/// After a search that took `search_s`: plans moves
/// ([`graph_core::balance::deal`]: each block's cost what the kernel pays
/// for it, SSSP its edge-list entries plus
/// [`graph_core::balance::VERTEX_COST`] per live vertex, BFS its live
/// vertices ([`graph_core::balance::bfs_block_cost`]); the trustees' loads
/// what they own, the search's busy times only a check that there is an
/// imbalance to win), and when the predicted gain in search seconds over
/// the `searches_left` repays the move, moves the blocks in memory
/// ([`ShardedGraph::move_blocks`](graph_core::sharded::ShardedGraph::move_blocks);
/// across ranks the rows travel as messages, and each moved block's
/// records are priced at [`SHIP_BYTES_PER_S`]).
/// The gain is counted in the search's seconds that an even load
/// shortens: its clock's and, from the second search on, gathering the
/// answer (each trustee gathers its own vertices: on the degree-sorted
/// SCALE 20 graph BFS's gathering took 13 ms a search before a move and
/// 5.5 ms after, its clock 6 ms and 5.5 ms). A move's cost is the last
/// one's seconds and the kernel's set-up after it, or before any, the copy
/// of every row at
/// [`BalanceConfig::copy_bytes_per_s`](graph_core::balance::BalanceConfig)
/// and the kernel's set-up (the first search's seconds outside its clock,
/// less the second's). Stops for the rest of the run once a
/// move's next search shows less than half the imbalance gain it
/// predicted.
fn balance_step(
    engine: &mut Engine,
    bl: &Balancing,
    kernel: Kernel,
    search_s: f64,
    searches_left: usize,
    report: &mut BalanceReport,
    damping: &mut Damping,
) -> Result<()> {
    use graph_core::balance;
    if report.stopped {
        return Ok(());
    }
    let busy = crate::hooks::pretend_busy().unwrap_or_else(runtime::last_window_busy);
    // A move that gave less than half the imbalance it promised means the
    // model does not fit this run (the searches differ, or the cost of a
    // block is not what the model says): no more moves in it.
    if let Some((before, predicted)) = damping.promised.take() {
        if graph_core::balance::imbalance(&busy) > before - 0.5 * (before - predicted) {
            report.stopped = true;
            return Ok(());
        }
    }
    // Nothing measured to win: no planning, not even the block costs.
    if balance::imbalance(&busy) < 1.0 + balance::BalanceConfig::default().min_gain {
        return Ok(());
    }
    let p = *engine.graph().partition();
    let (entries, live) = bl
        .entries
        .get_or_init(|| graph_core::sharded::block_entries_and_live(engine.graph()));
    let per_entry = if bl.weighted { 8 } else { 4 };
    let bytes: Vec<u64> = (0..p.num_blocks())
        .map(|b| {
            let r = p.block_range(b);
            per_entry * entries[b as usize] + 8 * (r.end - r.start)
        })
        .collect();
    let defaults = balance::BalanceConfig::default();
    // Every row is written again (blocks that stay are renumbered), so
    // the copy is part of the fixed cost, not counted per moved block.
    let whole_copy_s = bytes.iter().sum::<u64>() as f64 / defaults.copy_bytes_per_s;
    // Across ranks a moved block's rows are also shipped: its records
    // (8 B per id, 12 B per entry) at SHIP_BYTES_PER_S, per block moved.
    let (shipped, ship_rate) = if bl.ranks {
        let b = (0..p.num_blocks())
            .map(|b| {
                let r = p.block_range(b);
                12 * entries[b as usize] + 8 * (r.end - r.start)
            })
            .collect();
        (b, SHIP_BYTES_PER_S)
    } else {
        (Vec::new(), f64::INFINITY)
    };
    let cfg = balance::BalanceConfig {
        searches_ahead: searches_left as f64,
        fixed_cost_s: damping
            .last_cost_s
            .unwrap_or(whole_copy_s + damping.setup_s),
        copy_bytes_per_s: ship_rate,
        ..defaults
    };
    let cost = match kernel {
        Kernel::Bfs { .. } => {
            let ids: Vec<u64> = (0..p.num_blocks())
                .map(|b| p.block_range(b).end - p.block_range(b).start)
                .collect();
            balance::bfs_block_cost(live, &ids)
        }
        Kernel::Sssp { .. } => balance::block_cost(entries, live, cfg.vertex_cost),
    };
    let per_block = if bl.ranks { &shipped } else { &bytes };
    let plan = balance::deal(&p, &busy, &cost, per_block, search_s, &cfg);
    if plan.moves.is_empty() {
        return Ok(());
    }
    let mut next = p;
    balance::apply(&mut next, &plan)?;
    if let Some(rank) = crate::hooks::kill_rank_before_move() {
        kill_rank(rank);
    }
    let moved = crate::phases::time("balancing (moving blocks)", || engine.move_blocks(next))?;
    damping.moved_s = Some(moved.seconds);
    damping.last_cost_s = Some(moved.seconds + damping.setup_s);
    damping.promised = Some((plan.predicted_before, plan.predicted_after));
    report.rebuilds += 1;
    report.blocks_moved += moved.blocks;
    report.bytes_moved += moved.bytes;
    report.bytes_copied += moved.bytes_written;
    report.bytes_shipped += moved.bytes_shipped;
    report.migration_s += moved.seconds;
    report.predicted_after = plan.predicted_after;
    report.table = next.block_table();
    Ok(())
}

/// Bytes per second the moved blocks' records travel to another rank at,
/// for the balancer's cost of a move across ranks (on top of laying out
/// every row at the in-memory rate); after the first move its measured
/// seconds take the place of this estimate. Measured (docs/balance.md):
/// SCALE 20 sorted ids, SSSP, 2 ranks x 1 thread over shm, a move of
/// 141 MB shipped and 277 MB written took 0.70 s, 0.28 s of it the
/// in-memory rate's share: 0.3 GB/s.
const SHIP_BYTES_PER_S: f64 = 0.3e9;

/// The test hook's dead rank: rank `rank`'s process ends (aborts) before
/// the move reaches it, so the tests see how a move to a rank that died
/// fails. Does not wait for it: its fibers run in order, so the abort
/// runs there before the move's fiber does.
fn kill_rank(rank: usize) {
    let Some(w) =
        (0..gossamer::num_workers()).find(|&w| gossamer::process_of(gossamer::WorkerId(w)) == rank)
    else {
        return;
    };
    drop(gossamer::spawn_on_with(
        gossamer::WorkerId(w),
        abort_here,
        (),
    ));
}

/// Ends this process at once (what [`kill_rank`] runs on the rank).
fn abort_here(_: ()) {
    std::process::abort()
}

/// The error for a failed validation: the root and the problems found;
/// first, when distances overflowed `f32`, that the weights are to blame
/// (see [`ValidationError::overflow`]). Nothing is dumped of such an answer.
pub fn validation_error(kernel: Kernel, root: u64, e: &ValidationError) -> CliError {
    if e.overflow {
        return CliError::new(format!(
            "{} from root {root}: shortest-path distances overflow f32 (at most {:e}): the graph's weights are too large for SSSP's 32-bit distances, so the answer is incomplete (nothing was dumped); scale the weights down so that every shortest path stays below that bound. {e}",
            kernel.name(),
            f32::MAX
        ));
    }
    CliError::new(format!(
        "{} from root {root} failed validation: {e}",
        kernel.name()
    ))
}
