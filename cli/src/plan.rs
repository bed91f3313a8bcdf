//! `gossamer-graph plan`: what a run needs per rank, phase by phase, for
//! the current implementation (the model of `graph_core::memory`), and
//! whether it fits a given memory per rank.

use gossamer::memory::show_bytes;
use graph_core::memory::{self, MemoryEstimate, Shape, Workload, PHASES};

use crate::args::PlanArgs;
use crate::error::{CliError, Result};
use crate::output;
use crate::runtime;

/// What a run command asks for, as the memory model needs it.
struct Requested {
    /// The command's profile.
    workload: Workload,
    /// The Graph500 graph: generated (`--scale`), or a graph file the
    /// generator wrote; `None` for any other `--graph`.
    graph: Option<graph_core::Graph500Params>,
    /// `--threads`, `--partition`, `--force`.
    threads: Option<usize>,
    partition: graph_core::PartitionKind,
    /// Whether `--partition` gave it (else a default that may fall back).
    explicit: bool,
    force: bool,
}

fn requested(command: &crate::args::Command) -> Option<Requested> {
    use crate::args::Command;
    let (workload, input, gen, run) = match command {
        Command::Sssp(a) => (
            Workload::Sssp,
            &a.single.input,
            &a.single.gen,
            &a.single.run,
        ),
        Command::Bfs(a) => (Workload::Bfs, &a.single.input, &a.single.gen, &a.single.run),
        Command::Graph500(a) => (Workload::Graph500, &a.input, &a.gen, &a.run),
        Command::Cc(a) => (Workload::Cc, &a.whole.input, &a.whole.gen, &a.whole.run),
        Command::Pagerank(a) => (
            Workload::PageRank,
            &a.whole.input,
            &a.whole.gen,
            &a.whole.run,
        ),
        _ => return None,
    };
    let graph = crate::graph::graph500_file_params(input).or_else(|| {
        input.scale.map(|scale| graph_core::Graph500Params {
            scale,
            edgefactor: gen.edgefactor,
            seed1: gen.seed1,
            seed2: gen.seed2,
        })
    });
    Some(Requested {
        workload,
        graph,
        threads: run.threads,
        partition: run.partition_for(workload).kind(),
        explicit: run.partition.is_some(),
        force: run.force,
    })
}

/// The `plan` command line describing `command` run on `ranks` ranks,
/// for the launcher's note on a rank killed by SIGKILL (`None` for a
/// command without a Graph500 graph, generated or in a file the generator
/// wrote).
pub fn hint(command: &crate::args::Command, ranks: usize) -> Option<String> {
    let r = requested(command)?;
    let g = r.graph?;
    // The ranks' own default when the command gives none (`plan` alone
    // would assume every core per rank).
    let threads = r
        .threads
        .unwrap_or_else(|| runtime::default_threads_of_launch(ranks));
    Some(format!(
        "gossamer-graph plan --command {} --scale {} --edgefactor {} --ranks {ranks} --threads {threads}",
        r.workload.name(),
        g.scale,
        g.edgefactor,
    ))
}

/// Before the built-in launcher starts `ranks` ranks on this host: they
/// share its memory, so the sum of their estimates must fit (each rank
/// alone would see all of `MemAvailable` free when it checks); each rank
/// counts with its own expected share of the edges, as it checks itself.
/// Generated graphs and graph files the generator wrote (whose header says
/// what graph they hold); any other graph file is checked by every rank
/// alone.
pub fn check_colocated(command: &crate::args::Command, ranks: usize) -> Result<()> {
    let Some(Requested {
        workload,
        graph: Some(g),
        threads,
        partition,
        explicit,
        force,
    }) = requested(command)
    else {
        return Ok(());
    };
    let (scale, edgefactor) = (g.scale, g.edgefactor);
    if !(1..=graph_core::MAX_SCALE).contains(&scale) {
        return Ok(()); // every rank refuses it with the full message
    }
    let Ok(kron) = generators::Kronecker::new(generators::Graph500Config {
        scale,
        edgefactor,
        seed1: g.seed1,
        seed2: g.seed2,
    }) else {
        return Ok(()); // every rank refuses it with the full message
    };
    let Some(gossamer::memory::Available {
        bytes: avail,
        source,
    }) = crate::memcheck::available_memory()
    else {
        return Ok(());
    };
    let t = threads.unwrap_or_else(|| runtime::default_threads_of_launch(ranks));
    let ranks32 = u32::try_from(ranks).unwrap_or(u32::MAX);
    let t32 = u32::try_from(t).unwrap_or(u32::MAX);
    let shape = Shape::even(scale, edgefactor, ranks32, t32);
    // A Graph500 graph: a default striped partition runs block.
    let n = kron.num_vertices();
    let partition = crate::args::settle_kind(partition, explicit, n, true, ranks32, t32);
    let shares = crate::shares::rank_shares(&kron, partition, ranks32, t32);
    let per_rank = (0..ranks32).map(|r| {
        let share_permille = shares.get(r as usize).copied().unwrap_or(1000);
        let e = memory::estimate_rank(
            workload,
            Shape {
                share_permille,
                ..shape
            },
            r,
        );
        u128::from(e.per_rank_bytes)
    });
    let (total, largest) = per_rank.fold((0u128, 0u128), |(s, m), b| (s + b, m.max(b)));
    let clamp = |b: u128| u64::try_from(b).unwrap_or(u64::MAX);
    let (total, largest) = (clamp(total), clamp(largest));
    if total <= avail {
        return Ok(());
    }
    let why = if workload.streams() {
        "and each rank adds its own runtime, tables and per-trustee arrays of the whole graph, so more ranks on one host need more memory together, not less"
    } else {
        "and today every rank of this command holds the whole edge list, so more ranks on one host need more memory, not less"
    };
    let what = format!(
        "{ranks} ranks of {} at SCALE {scale} on this host need about {} together (the largest {}), but only {} is available here ({source}): ranks started by --ranks share this host's memory, {why}. Use fewer ranks or a smaller SCALE here, or one rank per host (docs/rack.md); per phase: gossamer-graph plan --command {} --scale {scale} --edgefactor {edgefactor} --ranks {ranks} --threads {t}",
        workload.name(),
        show_bytes(total),
        show_bytes(largest),
        show_bytes(avail),
        workload.name(),
    );
    if force {
        eprintln!("warning: --force: starting anyway although {what}");
        return Ok(());
    }
    Err(CliError::new(format!(
        "{what}. Pass --force to try anyway."
    )))
}

/// Runs `plan`.
pub fn run(args: &PlanArgs) -> Result<()> {
    let threads = runtime::threads(args.threads)?;
    if !(1..=graph_core::MAX_SCALE).contains(&args.scale) {
        return Err(CliError::new(format!(
            "SCALE {} is out of range: use 1..={}",
            args.scale,
            graph_core::MAX_SCALE
        )));
    }
    if args.edgefactor == 0 {
        return Err(CliError::new(
            "--edgefactor 0: give at least 1 edge per vertex",
        ));
    }
    if args.ranks == 0 {
        return Err(CliError::new("--ranks 0: give at least 1 rank"));
    }
    let (memory, source) = match args.memory {
        Some(m) => (m, "given".to_string()),
        None => match crate::memcheck::available_memory() {
            Some(m) => (m.bytes, format!("{} here", m.source)),
            None => {
                return Err(CliError::new(
                    "cannot read this machine's available memory: pass --memory M (e.g. 64GiB)",
                ))
            }
        },
    };
    let t = u32::try_from(threads).unwrap_or(u32::MAX);
    let shape = Shape::even(args.scale, args.edgefactor, args.ranks, t);
    // The ranks' shares of the Graph500 graph (reference seeds) under the
    // command's default partition, as a run would check them.
    let shares = match reference_graph(args.scale, args.edgefactor) {
        Some(k) if args.ranks > 1 => {
            crate::shares::rank_shares(&k, planned_partition(args.command, shape), args.ranks, t)
        }
        _ => Vec::new(),
    };
    output::print_stdout(&render(
        args.command,
        shape,
        &shares,
        memory,
        &source,
        args.bytes,
    ))
}

/// The Graph500 graph a plan describes (the reference's seeds), when the
/// generator accepts `scale` and `edgefactor`.
fn reference_graph(scale: u32, edgefactor: u32) -> Option<generators::Kronecker> {
    let cfg = generators::Graph500Config {
        edgefactor,
        ..generators::Graph500Config::with_scale(scale)
    };
    generators::Kronecker::new(cfg).ok()
}

/// The partition a planned run of `workload` takes on the Graph500 graph
/// of `shape`: its command's default, settled for that graph and shape
/// ([`crate::args::settle_kind`]).
fn planned_partition(workload: Workload, shape: Shape) -> graph_core::PartitionKind {
    crate::args::settle_kind(
        crate::args::default_partition(workload).kind(),
        false,
        1u64 << shape.scale.min(63),
        true,
        shape.ranks,
        shape.threads_per_rank,
    )
}

/// A partition kind as `--partition` names it.
fn kind_name(k: graph_core::PartitionKind) -> &'static str {
    use graph_core::PartitionKind;
    match k {
        PartitionKind::Block => "block",
        PartitionKind::Cyclic => "cyclic",
        PartitionKind::Striped => "striped",
        PartitionKind::Blocks => "blocks",
    }
}

/// The report (separate for tests). `shares` are the ranks' shares of the
/// edges ([`Shape::share_permille`]; empty: even): rank 0's column uses its
/// own, the other ranks' column the heaviest of theirs.
pub fn render(
    workload: Workload,
    shape: Shape,
    shares: &[u32],
    memory: u64,
    source: &str,
    bytes: bool,
) -> String {
    let size = |b: u64| if bytes { b.to_string() } else { show_bytes(b) };
    let zero_share = shares.first().copied().unwrap_or(1000);
    let other_share = shares.iter().skip(1).copied().max().unwrap_or(1000);
    let with = |share: u32| Shape {
        share_permille: share,
        ..shape
    };
    let zero = memory::estimate_rank(workload, with(zero_share), 0);
    let other = (shape.ranks > 1).then(|| memory::estimate_rank(workload, with(other_share), 1));
    let n = 1u64 << shape.scale;
    let mut out = format!(
        "plan: {} at SCALE {}, edgefactor {} ({} vertices, {} edges) on {} rank(s) x {} thread(s), {} per rank ({}), current implementation\n",
        workload.name(),
        shape.scale,
        shape.edgefactor,
        n,
        n.saturating_mul(u64::from(shape.edgefactor)),
        shape.ranks,
        shape.threads_per_rank,
        show_bytes(memory),
        source,
    );
    let others = if shape.ranks == 2 {
        "rank 1".to_string()
    } else {
        format!("ranks 1-{}", shape.ranks.saturating_sub(1))
    };
    out.push_str(&format!(
        "{:<14} {:>12} {:>12}{} {:>5}\n",
        "phase",
        "allocates",
        "rank 0",
        if other.is_some() {
            format!(" {others:>12}")
        } else {
            String::new()
        },
        "fits"
    ));
    for (i, name) in PHASES.iter().enumerate() {
        let p0 = zero.phases[i];
        let worst = other.map_or(p0.peak, |o| o.phases[i].peak.max(p0.peak));
        out.push_str(&format!(
            "{:<14} {:>12} {:>12}{} {:>5}\n",
            name,
            size(p0.allocates),
            size(p0.peak),
            other.map_or(String::new(), |o| format!(
                " {:>12}",
                size(o.phases[i].peak)
            )),
            if worst <= memory { "yes" } else { "no" }
        ));
    }
    let worst = other.map_or(zero.per_rank_bytes, |o| {
        o.per_rank_bytes.max(zero.per_rank_bytes)
    });
    out.push_str(&format!(
        "{:<14} {:>12} {:>12}{} {:>5}\n",
        "peak",
        "",
        size(zero.per_rank_bytes),
        other.map_or(String::new(), |o| format!(
            " {:>12}",
            size(o.per_rank_bytes)
        )),
        if worst <= memory { "yes" } else { "no" }
    ));
    out.push_str("(\"allocates\": what the phase adds on rank 0; the rank columns: resident at the phase's peak)\n");
    if shares.len() > 1 {
        let heaviest = zero_share.max(other_share);
        out.push_str(&format!(
            "(the {} partition does not split a Graph500 graph's edges evenly: the heaviest rank holds {}.{}% more than an even share; rank 0 counts with its own share, {others} with the heaviest of theirs)\n",
            kind_name(planned_partition(workload, shape)),
            (heaviest - 1000) / 10,
            (heaviest - 1000) % 10,
        ));
    }
    if workload.streams() {
        match other {
            Some(o) if o.kept_permille != zero.kept_permille => out.push_str(&format!(
                "(rank 0: {}; {others}: {})\n",
                slice_note(zero.kept_permille),
                slice_note(o.kept_permille)
            )),
            _ => out.push_str(&format!("({})\n", slice_note(zero.kept_permille))),
        }
    }
    out.push_str(&verdict(workload, shape, memory, &zero, worst));
    out
}

/// What a streamed build's trustees do with `permille` thousandths of
/// their generated slices kept between the construction passes.
fn slice_note(permille: u32) -> String {
    match permille {
        1000 => "each trustee keeps its generated slice between the two construction \
                 passes (12 B per edge; one generation instead of two)"
            .to_string(),
        0 => "each trustee generates its slice twice during construction: keeping any \
              of it (12 B per edge) would raise the peak"
            .to_string(),
        p => format!(
            "each trustee keeps {}.{}% of its generated slice between the two construction \
             passes (12 B per edge), as much as stays under the later peak, and generates \
             the rest twice",
            p / 10,
            p % 10
        ),
    }
}

fn verdict(
    workload: Workload,
    shape: Shape,
    memory: u64,
    zero: &MemoryEstimate,
    worst: u64,
) -> String {
    if worst <= memory {
        return format!(
            "verdict: fits; the largest rank peaks at {} in {} ({:.0}% of {})\n",
            show_bytes(worst),
            zero.peak_phase().name,
            100.0 * worst as f64 / memory as f64,
            show_bytes(memory)
        );
    }
    let mut text = format!(
        "verdict: does not fit; the largest rank needs {} ({} over)",
        show_bytes(worst),
        show_bytes(worst - memory)
    );
    // The ranks' real shares of the generated graph for each count.
    let needed = match reference_graph(shape.scale, shape.edgefactor) {
        Some(k) => memory::ranks_needed_with(
            workload,
            shape.scale,
            shape.edgefactor,
            shape.threads_per_rank,
            memory,
            &crate::shares::heaviest_share(
                &k,
                crate::args::default_partition(workload).kind(),
                false,
                shape.threads_per_rank,
            ),
        ),
        None => memory::ranks_needed(
            workload,
            shape.scale,
            shape.edgefactor,
            shape.threads_per_rank,
            memory,
        ),
    };
    match needed {
        Some(r) => text.push_str(&format!(
            "; it fits on {r} ranks of {} each (--ranks {r})",
            show_bytes(memory)
        )),
        None => text.push_str(&format!(
            "; no number of ranks of {} fits it today: {}",
            show_bytes(memory),
            memory::why_no_rank_count_fits(workload, shape)
        )),
    }
    if let Some(s) = memory::largest_fitting_scale(
        workload,
        shape.edgefactor,
        shape.ranks,
        shape.threads_per_rank,
        memory,
    ) {
        text.push_str(&format!("; the largest SCALE that fits this shape is {s}"));
    }
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_launcher_hint_is_a_plan_command_line() {
        use clap::Parser;
        let cli = crate::args::Cli::parse_from([
            "gossamer-graph",
            "sssp",
            "--scale",
            "25",
            "--threads",
            "1",
            "--edgefactor",
            "32",
        ]);
        assert_eq!(
            hint(&cli.command, 2).as_deref(),
            Some("gossamer-graph plan --command sssp --scale 25 --edgefactor 32 --ranks 2 --threads 1")
        );
        let cli = crate::args::Cli::parse_from(["gossamer-graph", "bfs", "--graph", "g.ggraph"]);
        assert_eq!(hint(&cli.command, 2), None);
    }

    fn shape(scale: u32, edgefactor: u32, ranks: u32, threads: u32) -> Shape {
        Shape::even(scale, edgefactor, ranks, threads)
    }

    #[test]
    fn report_has_every_phase_and_a_verdict() {
        let text = render(
            Workload::Sssp,
            shape(20, 16, 1, 2),
            &[],
            24 << 30,
            "given",
            false,
        );
        for p in PHASES {
            assert!(text.lines().any(|l| l.starts_with(p)), "{p}: {text}");
        }
        assert!(text.contains("sssp at SCALE 20, edgefactor 16 (1048576 vertices, 16777216 edges) on 1 rank(s) x 2 thread(s), 24.0 GiB per rank"), "{text}");
        assert!(text.contains("verdict: fits"), "{text}");
        assert!(!text.contains("ranks 1-"), "{text}");
        // Part of the slices is kept, whatever the memory: as much as
        // stays under the later peak, which the plan still names.
        let kept = memory::estimate_rank(Workload::Sssp, shape(20, 16, 1, 2), 0).kept_permille;
        let line = format!(
            "each trustee keeps {}.{}% of its generated slice",
            kept / 10,
            kept % 10
        );
        assert!(text.contains(&line), "{text}");
        assert!(
            text.contains("in validation") || text.contains("in kernel state"),
            "{text}"
        );
        let tight = render(
            Workload::Sssp,
            shape(20, 16, 1, 2),
            &[],
            1 << 20,
            "given",
            false,
        );
        assert!(tight.contains(&line), "{tight}");
    }

    #[test]
    fn a_run_that_does_not_fit_names_ranks_that_do() {
        // SSSP at SCALE 22 on 1 GiB ranks: more ranks spread the shards
        // and the kernel state.
        let avail = 1 << 30;
        let text = render(
            Workload::Sssp,
            shape(22, 16, 1, 2),
            &[],
            avail,
            "given",
            false,
        );
        assert!(text.contains("verdict: does not fit"), "{text}");
        let r: u32 = text
            .split("(--ranks ")
            .nth(1)
            .and_then(|t| t.split(')').next())
            .and_then(|t| t.parse().ok())
            .unwrap_or_else(|| panic!("no rank advice: {text}"));
        let again = render(
            Workload::Sssp,
            shape(22, 16, r, 2),
            &[],
            avail,
            "given",
            false,
        );
        assert!(again.contains("verdict: fits"), "{again}");
        assert!(
            again.contains(&format!("ranks 1-{}", r - 1)) || r == 2,
            "{again}"
        );
    }

    #[test]
    fn the_dissertation_shape_and_a_smaller_rack() {
        let text = render(
            Workload::Sssp,
            shape(27, 32, 12, 32),
            &[],
            188 << 30,
            "",
            false,
        );
        assert!(text.contains("ranks 1-11"), "{text}");
        assert!(text.contains("verdict: fits"), "{text}");
        // Four 64 GiB machines fit both edge factors, four 24 GiB ones
        // edge factor 16 (the trustees share their bounds of the other
        // ranks' vertices: the whole arrays, 16 GiB per rank, would not
        // leave room); four 16 GiB ones do not, and more ranks of the same
        // size do.
        let four = |ef: u32, memory: u64| {
            render(Workload::Sssp, shape(27, ef, 4, 32), &[], memory, "", false)
        };
        for ef in [16, 32] {
            let text = four(ef, 64 << 30);
            assert!(text.contains("verdict: fits"), "{text}");
        }
        let text = four(16, 24 << 30);
        assert!(text.contains("verdict: fits"), "{text}");
        let text = four(16, 16 << 30);
        assert!(text.contains("ranks 1-3"), "{text}");
        assert!(text.contains("verdict: does not fit"), "{text}");
        assert!(text.contains("(--ranks 5)"), "{text}");
        assert!(!text.contains("rank 0 builds every shard"), "{text}");
    }
}
