//! The `gossamer-graph` command: generate Graph500 graphs, run SSSP and BFS
//! on the Gossamer delegation runtime, validate, and report TEPS.
//!
//! Modules, one line each (they use each other one way, without circles:
//! the subcommands on top, `args`, `error` and the helpers at the bottom):
//! - [`args`]: the command line's syntax and help (it uses no other module).
//! - [`generate`]: the `generate` subcommand.
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
mod hooks;
mod memcheck;
mod memtrace;
mod output;
mod plan;
mod progress;
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

/// Takes the rack flags out of the command line: `--ranks N` (start N processes of
/// this command on this host) and `--transport local|shm|tcp|rdma` (how ranks talk,
/// passed to gossamer as `GOSSAMER_TRANSPORT`). See docs/rack.md.
/// The rack flags found, and the command line without them.
type RackFlags = (Option<usize>, Option<String>, Vec<std::ffi::OsString>);

fn take_rack_flags(argv: Vec<std::ffi::OsString>) -> std::result::Result<RackFlags, String> {
    let mut ranks = None;
    let mut transport = None;
    let mut rest = Vec::with_capacity(argv.len());
    let mut it = argv.into_iter();
    while let Some(a) = it.next() {
        let flag = a.to_string_lossy().into_owned();
        let (name, inline) = match flag.split_once('=') {
            Some((n, v)) => (n.to_string(), Some(v.to_string())),
            None => (flag.clone(), None),
        };
        if name != "--ranks" && name != "--transport" {
            rest.push(a);
            continue;
        }
        let value = match inline {
            Some(v) => v,
            None => it
                .next()
                .map(|v| v.to_string_lossy().into_owned())
                .ok_or_else(|| format!("{name} needs a value"))?,
        };
        if name == "--ranks" {
            let n: usize =
                value.parse().ok().filter(|&n| n >= 1).ok_or_else(|| {
                    format!("--ranks {value}: expected a number of processes >= 1")
                })?;
            ranks = Some(n);
        } else {
            value.parse::<gossamer::rack::TransportKind>()?;
            // Set before any other thread exists (first thing in main).
            std::env::set_var("GOSSAMER_TRANSPORT", &value);
            transport = Some(value);
        }
    }
    Ok((ranks, transport, rest))
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
        Command::Generate(_) | Command::Convert(_) | Command::Plan(_) => None,
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
        Command::Convert(_) => Workload::Generate,
        Command::Bc(_) => Workload::Bc,
        Command::Tc(_) => Workload::Tc,
        Command::Plan(a) => a.command,
    }
}

/// The vertex partition a command runs with (block where it has none).
fn partition(command: &Command) -> graph_core::PartitionKind {
    run_options(command).map_or(graph_core::PartitionKind::Block, |r| r.partition.kind())
}

fn main() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // `plan --ranks N` describes a run; it starts nothing.
    let planning = args.get(1).is_some_and(|a| a == "plan");
    let (ranks, transport, argv) = if planning {
        (None, None, args)
    } else {
        take_rack_flags(args).unwrap_or_else(|e| {
            eprintln!("error: {e}");
            std::process::exit(2);
        })
    };
    if let Some(t) = transport {
        if ranks.unwrap_or(1) <= 1 && !launched_as_a_rank() {
            eprintln!(
                "note: --transport {t} has no effect without --ranks N (this run is one process)"
            );
        }
    }
    if let Some(n) = ranks.filter(|&n| n > 1) {
        // Bad flags are reported once here, not by every rank, and a job
        // that cannot fit is refused before any rank starts.
        let cli = Cli::parse_from(argv.clone());
        if let Err(e) = runtime::check_job(n, kernel_threads(&cli.command)) {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
        if let Err(e) = plan::check_colocated(&cli.command, n) {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
        let hint = plan::hint(&cli.command, n);
        match gossamer::rack::launch_local_with_hint(n, &argv[1..], hint.as_deref()) {
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
    let cli = Cli::parse_from(argv);
    memcheck::set_memory_context(memcheck::MemoryContext {
        workload: workload(&cli.command),
        partition: partition(&cli.command),
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
    let result = match &cli.command {
        Command::Generate(a) => generate::run(a),
        Command::Sssp(a) => sssp::run(a),
        Command::Bfs(a) => bfs::run(a),
        Command::Graph500(a) => graph500::run(a),
        Command::Cc(a) => whole::run_cc(a),
        Command::Pagerank(a) => whole::run_pagerank(a),
        Command::Convert(a) => convert::run(a),
        Command::Bc(a) => whole::run_bc(a),
        Command::Tc(a) => whole::run_tc(a),
        Command::Plan(a) => plan::run(a),
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
