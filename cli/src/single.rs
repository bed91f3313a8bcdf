//! The shared body of the single-kernel commands (`sssp`, `bfs`): load the
//! graph, choose roots, run, report.

use std::sync::Arc;

use crate::args::{BalanceArg, BfsModeArg, PartitionArg, SingleArgs};
use crate::error::Result;
use crate::files;
use crate::graph;
use crate::output::{self, GraphReport, RunInfo};
use crate::runtime;
use crate::search::{self, KernelSpec, Plan};

/// What a single-kernel command asked for.
pub struct Request<'a> {
    /// The options `sssp` and `bfs` share.
    pub args: &'a SingleArgs,
    pub spec: KernelSpec,
    /// For the reports: the mode asked for (BFS).
    pub mode: Option<BfsModeArg>,
    /// `--unit-weights` (SSSP on an unweighted graph).
    pub unit_weights: bool,
}

/// Runs the command; output goes to stdout.
pub fn run(req: Request<'_>) -> Result<()> {
    let a = req.args;
    let threads = runtime::threads(a.run.threads)?;
    let partition = a.partition_for(req.spec.kernel.workload());
    check_balance(a, partition)?;
    // Validate the root before the (possibly long) generation when we can.
    if let (Some(r), Some(scale)) = (a.roots.root, a.input.scale) {
        if scale <= graph_core::MAX_SCALE {
            graph::check_root(r, 1u64 << scale)?;
        }
    }
    if let Some(path) = &req.spec.dump {
        files::check_output(path)?;
    }
    let mut loaded = crate::phases::time("load", || {
        if a.prepared.prepared.is_some() {
            graph::load_described(&a.input, &a.gen, threads, a.run.force)
        } else {
            graph::load_streamed(&a.input, &a.gen, threads, a.run.force)
        }
    })?;
    let needs_weights = matches!(req.spec.kernel, crate::record::Kernel::Sssp { .. });
    loaded.check_kernel(req.spec.kernel.name(), needs_weights, req.unit_weights)?;
    if let Some(path) = &req.spec.dump {
        files::check_sidecar(path, &loaded.meta().ids)?;
    }
    let roots = loaded.root_plan(&a.roots)?;
    let partition = crate::args::settle_partition(
        partition,
        a.run.partition.is_some(),
        &loaded,
        crate::memcheck::memory_context().ranks,
        threads,
    );
    let prepared = search::prepared_run(&a.prepared, || loaded.identity(req.unit_weights))?;
    if req.unit_weights {
        loaded = loaded.with_unit_weights();
    }
    let loaded = Arc::new(loaded);
    let plan = Plan {
        threads,
        partition: partition.kind(),
        validate: !a.out.skip_validation,
        warmup: false,
        prepared,
        balance: a.out.balance == BalanceArg::BetweenSearches,
    };
    let outcome = search::run(loaded.clone(), roots, vec![req.spec.clone()], plan)?;
    let mut run = outcome
        .runs
        .into_iter()
        .next()
        .expect("one kernel spec gives one run");
    // Reports speak the input file's ids (converted graphs may be 1-based
    // or renumbered).
    let ids = &loaded.meta().ids;
    if !ids.is_identity() {
        for r in &mut run.results {
            r.root = ids.file_id(r.root);
        }
        if let Some((root, _)) = &mut run.failure {
            *root = ids.file_id(*root);
        }
    }
    if let Some((root, e)) = &run.failure {
        return Err(search::validation_error(run.kernel, *root, e));
    }
    let seconds = outcome.generation_time.unwrap_or(loaded.generation_time);
    let info = RunInfo {
        input: GraphReport::new(&a.input, &loaded, seconds),
        ranks: outcome.ranks,
        threads,
        partition: partition_name(partition),
        construction_time: outcome.construction_time,
    };
    let mode = req.mode.map(crate::record::mode_name);
    if a.out.json {
        let mut report = output::json_report(&info, &run, mode);
        report.wall_time = Some(crate::phases::wall_time());
        output::print_json(&report)?;
    } else {
        let setting = match (run.delta, mode) {
            (Some(d), _) => format!(", {}", d.describe()),
            (_, Some(m)) => format!(", mode {m}"),
            _ => String::new(),
        };
        let human =
            output::human_report(&info, &run, &setting) + &crate::phases::wall_time().line();
        output::print_stdout(&human)?;
    }
    Ok(())
}

/// Refuses `--balance` settings this build does not run, saying why.
fn check_balance(a: &SingleArgs, partition: PartitionArg) -> Result<()> {
    match a.out.balance {
        BalanceArg::Off => Ok(()),
        BalanceArg::Supersteps => Err(crate::error::CliError::new(
            "--balance supersteps is not offered: moving blocks means copying every shard's rows and preparing the kernel again (a tenth of a second and more on SCALE 20), far more than a superstep (milliseconds), so it could never pay; use --balance between-searches (docs/balance.md)",
        )),
        BalanceArg::BetweenSearches if partition != PartitionArg::Blocks => {
            Err(crate::error::CliError::new(
                "--balance between-searches moves blocks of a blocks partition: use --partition blocks (the default with --balance), not another",
            ))
        }
        BalanceArg::BetweenSearches if a.prepared.prepared.is_some() || a.prepared.save_prepared.is_some() => {
            Err(crate::error::CliError::new(
                "--balance between-searches moves blocks to a new block table, which saved prepared shards do not follow: drop --prepared / --save-prepared",
            ))
        }
        BalanceArg::BetweenSearches => Ok(()),
    }
}

/// The partition's name in reports.
pub fn partition_name(p: PartitionArg) -> &'static str {
    match p {
        PartitionArg::Block => "block",
        PartitionArg::Cyclic => "cyclic",
        PartitionArg::Striped => "striped",
        PartitionArg::Blocks => "blocks",
    }
}
