//! The `gossamer-graph` command: generate Graph500 graphs, run SSSP and BFS
//! on the Gossamer delegation runtime, validate, and report TEPS.
//!
//! Modules, one line each (they use each other one way, without circles:
//! the subcommands on top, `args`, `error` and the helpers at the bottom):
//! - [`args`]: the command line's syntax and help (it uses no other module).
//! - [`generate`]: the `generate` subcommand (the Graph500 graph).
//! - [`grid`]: `generate --kind grid` (a road-like grid, also as DIMACS).
//! - [`sssp`]: the `sssp` subcommand.
//! - [`bfs`]: the `bfs` subcommand.
//! - [`single`]: the shared body of `sssp` and `bfs`.
//! - [`graph500`]: the `graph500` subcommand (BFS and SSSP, reference output).
//! - [`whole`]: the `cc`, `pagerank`, `bc` and `tc` subcommands (graph-kernel kernels), one path.
//! - [`convert`]: the `convert` subcommand (other tools' formats in).
//! - [`plan`]: the `plan` subcommand (memory per rank and phase).
//! - [`graph`]: the input graph: as held (`loaded`), getting it (`load`), its roots (`roots`).
//! - [`memcheck`]: the memory check before anything large is allocated.
//! - [`shares`]: each rank's share of a generated graph's edges.
//! - [`runtime`]: worker threads, slot size, starting the Gossamer runtime.
//! - [`search`]: running and validating searches from roots.
//! - [`engine`]: the adapter to the SSSP and BFS kernels.
//! - [`record`]: what a search run measured, per root and per kernel.
//! - [`output`]: text on stdout, the JSON and human-readable reports.
//! - [`files`]: files written: directory checks, binary arrays.
//! - [`stats`]: Graph500 statistics (quartiles, harmonic means).
//! - [`cfmt`]: numbers formatted like C's `%g`.
//! - [`progress`]: progress bars on stderr.
//! - [`memtrace`]: per-phase peak memory on stderr (measurement hook).
//! - [`phases`]: where the run's wall time went, phase by phase, for the reports.
//! - [`trace`]: `--trace FILE`, the trustees' timelines as Chrome trace-event JSON.
//! - [`hooks`]: test hooks, compiled into test builds only.
//! - [`error`]: the one error type, a message for the user.

mod args;
mod bfs;
mod cfmt;
mod convert;
mod engine;
mod error;
mod files;
mod generate;
mod graph;
mod graph500;
mod grid;
mod hooks;
mod memcheck;
mod memtrace;
mod output;
mod phases;
mod plan;
mod progress;
mod ready;
mod record;
mod runtime;
mod search;
mod shares;
mod single;
mod sssp;
mod stats;
mod trace;
mod whole;

use clap::Parser;

use args::{Cli, Command};

/// The command line without the rack flags (`--ranks N`, `--transport K`,
/// or their `--flag=value` forms, wherever they stand): what the ranks the
/// built-in launcher starts are given, so that none of them launches again.
fn without_rack_flags(argv: &[std::ffi::OsString]) -> Vec<std::ffi::OsString> {
    let mut rest = Vec::with_capacity(argv.len());
    let mut it = argv.iter();
    while let Some(a) = it.next() {
        let flag = a.to_string_lossy();
        if flag == "--ranks" || flag == "--transport" {
            it.next();
        } else if !(flag.starts_with("--ranks=") || flag.starts_with("--transport=")) {
            rest.push(a.clone());
        }
    }
    rest
}

/// The rack options of the command line, given before the command or
/// among a run command's options (not both with different values); `None`
/// in the error for a command that does not run as ranks.
fn rack_options(cli: &Cli) -> std::result::Result<args::RackOptions, String> {
    let top = &cli.rack;
    let Some(run) = run_options(&cli.command) else {
        if top.ranks.is_some() {
            return Err(format!(
                "--ranks runs sssp, bfs, graph500, cc, pagerank, bc, tc and kcore as several processes; {} runs in one process (for `plan`, put --ranks after the command: it plans a run of N ranks)",
                command_name(&cli.command)
            ));
        }
        return Ok(top.clone());
    };
    let sub = &run.rack;
    let merge = |name: &str, a: Option<String>, b: Option<String>| match (a, b) {
        (Some(a), Some(b)) if a != b => Err(format!(
            "{name} given twice, {a} before the command and {b} after it: give it once"
        )),
        (a, b) => Ok(a.or(b)),
    };
    let ranks = merge(
        "--ranks",
        top.ranks.map(|n| n.to_string()),
        sub.ranks.map(|n| n.to_string()),
    )?;
    Ok(args::RackOptions {
        ranks: ranks.map(|n| n.parse().expect("a number clap parsed")),
        transport: merge("--transport", top.transport.clone(), sub.transport.clone())?,
    })
}

/// The subcommand's name, for messages.
fn command_name(command: &Command) -> &'static str {
    match command {
        Command::Generate(_) => "generate",
        Command::Convert(_) => "convert",
        Command::Verify(_) => "verify",
        Command::Ready(_) => "ready",
        Command::Plan(_) => "plan",
        Command::Sssp(_) => "sssp",
        Command::Bfs(_) => "bfs",
        Command::Graph500(_) => "graph500",
        Command::Cc(_) => "cc",
        Command::Pagerank(_) => "pagerank",
        Command::Bc(_) => "bc",
        Command::Tc(_) => "tc",
        Command::Kcore(_) => "kcore",
    }
}

/// True when a launcher (ours, mpirun, srun) started this process as one rank
/// of a job of several (then `--transport` matters without `--ranks`).
fn launched_as_a_rank() -> bool {
    [
        "GOSSAMER_SIZE",
        "OMPI_COMM_WORLD_SIZE",
        "PMI_SIZE",
        "SLURM_NTASKS",
    ]
    .iter()
    .filter_map(|k| std::env::var(k).ok())
    .any(|v| v.trim().parse::<usize>().is_ok_and(|n| n > 1))
}

/// The run options of a command that starts the kernels' runtime.
fn run_options(command: &Command) -> Option<&args::RunOptions> {
    match command {
        Command::Sssp(a) => Some(&a.single.run),
        Command::Bfs(a) => Some(&a.single.run),
        Command::Graph500(a) => Some(&a.run),
        Command::Cc(a) => Some(&a.whole.run),
        Command::Pagerank(a) => Some(&a.whole.run),
        Command::Bc(a) => Some(&a.whole.run),
        Command::Tc(a) => Some(&a.whole.run),
        Command::Kcore(a) => Some(&a.whole.run),
        Command::Generate(_)
        | Command::Convert(_)
        | Command::Verify(_)
        | Command::Ready(_)
        | Command::Plan(_) => None,
    }
}

/// The worker threads a command asks for, if it starts the kernels' runtime.
fn kernel_threads(command: &Command) -> Option<usize> {
    run_options(command).and_then(|r| r.threads)
}

/// The memory profile of a command (see `graph_core::memory`).
fn workload(command: &Command) -> graph_core::memory::Workload {
    use graph_core::memory::Workload;
    match command {
        Command::Generate(_) => Workload::Generate,
        Command::Sssp(_) => Workload::Sssp,
        Command::Bfs(_) => Workload::Bfs,
        Command::Graph500(_) => Workload::Graph500,
        Command::Cc(_) => Workload::Cc,
        Command::Pagerank(_) => Workload::PageRank,
        // Converting holds what generating does.
        Command::Convert(_) | Command::Verify(_) => Workload::Generate,
        Command::Ready(_) => Workload::Sssp,
        Command::Bc(_) => Workload::Bc,
        Command::Tc(_) => Workload::Tc,
        Command::Kcore(_) => Workload::Kcore,
        Command::Plan(a) => a.command,
    }
}

/// The vertex partition a command runs with (`--partition` or the
/// command's default; block where it has none), as the memory check counts
/// ranks' shares with it. BFS's striped default may still fall back to
/// block once the graph is known (`args::settle_partition`); the memory
/// check settles it the same way on the Graph500 graph it counts
/// (`args::settle_kind`).
fn partition(command: &Command) -> graph_core::PartitionKind {
    let w = workload(command);
    match command {
        Command::Sssp(a) => a.single.partition_for(w).kind(),
        Command::Bfs(a) => a.single.partition_for(w).kind(),
        _ => run_options(command).map_or(graph_core::PartitionKind::Block, |r| {
            r.partition_for(w).kind()
        }),
    }
}

/// An allocation that fails anywhere ends the command with a message and
/// status 1, not an abort (see [`graph_core::alloc::ExitOnOom`]).
#[global_allocator]
static ALLOC: graph_core::alloc::ExitOnOom = graph_core::alloc::ExitOnOom;

fn main() {
    phases::start();
    // The command's own variables (gossamer checks its GOSSAMER_* ones when
    // a rank joins its job).
    if let Err(e) = memtrace::check_env().and_then(|()| hooks::check_env()) {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // Bad flags are reported here, once, not by every rank.
    let cli = Cli::parse_from(argv.clone());
    let rack = rack_options(&cli).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2);
    });
    let ranks = rack.ranks;
    if let Some(t) = &rack.transport {
        // Set before any other thread exists (nothing has started one yet).
        std::env::set_var("GOSSAMER_TRANSPORT", t);
        if ranks.unwrap_or(1) <= 1 && !launched_as_a_rank() {
            eprintln!(
                "note: --transport {t} has no effect without --ranks N (this run is one process)"
            );
        }
    }
    if let Some(n) = ranks.filter(|&n| n > 1) {
        // A job that cannot fit is refused before any rank starts.
        if let Err(e) = runtime::check_job(n, kernel_threads(&cli.command)) {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
        if let Err(e) = plan::check_colocated(&cli.command, n) {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
        let hint = plan::hint(&cli.command, n);
        let ranks_argv = without_rack_flags(&argv);
        match gossamer::rack::launch_local_with_hint(n, &ranks_argv[1..], hint.as_deref()) {
            Ok(code) => std::process::exit(code),
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(1);
            }
        }
    }
    // A rank of a rack job re-executes itself here with ASLR off (once).
    let (rank, ranks) = match gossamer::Builder::from_env() {
        Ok(b) => (b.rank(), b.ranks()),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let in_job = ranks > 1;
    memcheck::set_memory_context(memcheck::MemoryContext {
        workload: workload(&cli.command),
        partition: partition(&cli.command),
        explicit: run_options(&cli.command).is_some_and(|r| r.partition.is_some()),
        rank: u32::try_from(rank).unwrap_or(u32::MAX),
        ranks: u32::try_from(ranks).unwrap_or(u32::MAX),
    });
    // A rack job was checked by whoever launched it (or spans hosts).
    if !in_job {
        if let Err(e) = runtime::check_job(1, kernel_threads(&cli.command)) {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
    let trace = run_options(&cli.command).and_then(|r| r.trace.clone());
    if let Some(Err(e)) = trace.as_deref().map(files::check_writable) {
        eprintln!("error: --trace: {e}");
        std::process::exit(1);
    }
    trace::set(trace);
    if let Some(table) = run_options(&cli.command).and_then(|r| r.block_table.clone()) {
        if partition(&cli.command) != graph_core::PartitionKind::Blocks {
            eprintln!("error: --block-table needs --partition blocks");
            std::process::exit(2);
        }
        graph_core::partition::set_start_table(Some(table));
    }
    let result = match &cli.command {
        Command::Generate(a) => generate::run(a),
        Command::Sssp(a) => sssp::run(a),
        Command::Bfs(a) => bfs::run(a),
        Command::Graph500(a) => graph500::run(a),
        Command::Cc(a) => whole::run_cc(a),
        Command::Pagerank(a) => whole::run_pagerank(a),
        Command::Convert(a) => convert::run(a),
        Command::Verify(a) => convert::verify(a),
        Command::Ready(a) => ready::run_ready(a),
        Command::Bc(a) => whole::run_bc(a),
        Command::Tc(a) => whole::run_tc(a),
        Command::Kcore(a) => whole::run_kcore(a),
        Command::Plan(a) => plan::run(a),
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
