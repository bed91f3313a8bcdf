//! Command-line syntax: every subcommand and option, with units and defaults
//! in the help text, and the parsing of values clap does not know (sizes).
//! It uses no other module of this crate, so every module may use it
//! without a circle.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Graph500 SSSP and BFS on the Gossamer delegation runtime.
///
/// Generates the Graph500 Kronecker graph (bit-identical to the reference
/// implementation), runs delta-stepping SSSP and direction-optimizing BFS
/// as delegated kernels, validates every search and reports TEPS.
#[derive(Parser, Debug)]
#[command(
    name = "gossamer-graph",
    version,
    about,
    long_about,
    after_help = "Rack runs: `gossamer-graph --ranks N [--transport shm|tcp] <COMMAND> ...` \
                  runs N processes of the command on this host as one job (docs/rack.md); \
                  mpirun and srun launches are recognised too. Only rank 0 reports.\n\
                  Each command's `--help` says what it prints; the README's \"Reading the output\" \
                  defines TEPS and the report's columns."
)]
pub struct Cli {
    #[command(flatten)]
    pub rack: RackOptions,
    #[command(subcommand)]
    pub command: Command,
}

/// Running a command as several processes (a rack job): given before the
/// command (as documented) or among a run command's options.
#[derive(Args, Debug, Clone, Default)]
pub struct RackOptions {
    /// Run the command as N processes (ranks) on this host, one job; only
    /// rank 0 reports. Each rank's --threads defaults to this host's cores
    /// divided by N (docs/rack.md). For sssp, bfs, graph500, cc, pagerank,
    /// bc, tc and kcore.
    #[arg(long, value_name = "N", value_parser = parse_ranks)]
    pub ranks: Option<usize>,
    /// How the ranks talk: shm (shared memory, the default on one host),
    /// tcp, rdma (a build with the `rdma` feature), or local (one process).
    /// Also read by ranks started by mpirun or srun.
    #[arg(long, value_name = "KIND", value_parser = parse_transport)]
    pub transport: Option<String>,
}

/// Reads a `--ranks` value: a number of processes, at least 1.
fn parse_ranks(text: &str) -> std::result::Result<usize, String> {
    text.parse()
        .ok()
        .filter(|&n| n >= 1)
        .ok_or_else(|| format!("--ranks {text}: expected a number of processes >= 1"))
}

/// Checks a `--transport` value (gossamer reads it from `GOSSAMER_TRANSPORT`).
fn parse_transport(text: &str) -> std::result::Result<String, String> {
    text.parse::<gossamer::rack::TransportKind>()?;
    Ok(text.to_string())
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Generate a graph: the Graph500 Kronecker graph (a graph file and/or
    /// the reference's cross-check files), or a road-like grid (--kind grid).
    #[command(after_long_help = GRID_HELP)]
    Generate(GenerateArgs),
    /// Single-source shortest paths (delta-stepping) from one or more roots.
    #[command(after_long_help = SEARCH_REPORT_HELP)]
    Sssp(SsspArgs),
    /// Breadth-first search from one or more roots.
    #[command(after_long_help = SEARCH_REPORT_HELP)]
    Bfs(BfsArgs),
    /// The Graph500 benchmark: BFS and SSSP over 64 roots, with the reference's statistics block.
    #[command(after_long_help = GRAPH500_REPORT_HELP)]
    Graph500(Graph500Args),
    /// Connected components (Afforest: sampled linking, a graph-kernel Program).
    Cc(CcArgs),
    /// PageRank (GAPBS's formulation: damping 0.85, at most 20 iterations,
    /// tolerance 1e-4; pull, a graph-kernel Program).
    Pagerank(PageRankArgs),
    /// Convert a graph from another tool's format (.el, .wel, .mtx, .gr,
    /// GAPBS .sg/.wsg) into a gossamer-graph file, or (--built) any graph
    /// file into a built graph file that runs map instead of building.
    Convert(ConvertArgs),
    /// Write a built graph file's ready rows for runs of --threads trustees
    /// in all (block partition: one rank of T threads, or ranks whose
    /// threads add up to T): `BUILT.w<T>.ready`, every trustee's rows
    /// as the kernels prepare them (BFS's rows, SSSP's split at the default
    /// delta), which such runs of bfs, sssp, graph500, cc and pagerank
    /// map instead of preparing their rows (time to first answer).
    Ready(ReadyArgs),
    /// Check a built graph file whole (every section's checksum, its rows'
    /// offsets and ids); runs check only the rows they read.
    Verify(VerifyArgs),
    /// Betweenness centrality (Brandes from 4 distinct sources, as GAPBS's
    /// bc: the source's own dependency counts; scores divided by the
    /// largest; a graph-kernel example).
    Bc(BcArgs),
    /// Triangle counting (ordered by degree, as GAPBS's tc; self-loops and
    /// repeated edges ignored; a graph-kernel example).
    Tc(TcArgs),
    /// k-core decomposition (the coreness of every vertex, by peeling, as
    /// Ligra's and GBBS's k-core; undirected graphs; a graph-kernel kernel
    /// beyond GAPBS's suite).
    Kcore(KcoreArgs),
    /// Memory per rank, phase by phase, for a run of the current
    /// implementation, and whether it fits (nothing is allocated).
    Plan(PlanArgs),
}

/// What the report of `sssp` and `bfs` shows (their `--help`).
pub const SEARCH_REPORT_HELP: &str = "\
Reading the report:
  Line 1: the kernel and the graph: `Graph500 SCALE S, edgefactor E` for a
  generated graph (2^S vertices, E x 2^S edge records), or `graph FILE` for
  --graph; then its vertex and edge-record counts, ranks x threads, the
  partition, and the setting that ran (SSSP's delta, given or derived from
  the graph's weights and degree; BFS's mode). Line 2: seconds generating the graph (or
  loading the file) and building the kernels' sharded graph.
  One row per search:
    root       the root (as the input file numbers it)
    time (s)   seconds in the kernel (validation is not timed)
    MTEPS      millions of traversed edges per second: edges / time
    edges      the Graph500 count of traversed input edges: every edge
               record with both ends reached, self-loops left out, repeats
               counted (directed: every arc whose tail is reached); below
               the header's count, which counts every record, when some
               vertices are not reached or some records are self-loops
    reached    vertices reached, the root included
    validated  yes: the answer passed the Graph500 checks against the
               graph's own edges (a tree to the root; every edge consistent
               with the levels or distances; every parent joined by an
               edge); skipped with --skip-validation
  Then: the median time, and the harmonic mean of TEPS over the
  searches (Graph500's statistic) with its standard deviation; what the
  trustees did during the searches (busy, collectives, idle).
  Last line: `wall`, this process's seconds from its start by phase (load,
  runtime start, construction, kernel time, the kernel's untimed set-up and
  gathering of answers, validation, teardown; `other` is what no phase
  covers), and the time to the first answer.
  --json prints the same as one object (`wall_time`: every phase) (TEPS in edges per second, times in
  seconds; `load_time_s` instead of `generation_time_s` for --graph).";

/// What `graph500` prints (its `--help`).
pub const GRAPH500_REPORT_HELP: &str = "\
Reading the report:
  The reference's statistics block, byte for byte in its layout (keys,
  order, C %g numbers: times in seconds, TEPS in edges per second; nedge is
  the Graph500 count of traversed input edges per search, below the
  graph's edge count when some vertices are not reached), then one
  `bfs  Run i:` / `sssp Run i:` line per search, then the same statistics
  in units a person reads: `bfs  in units:` and `sssp in units:` (harmonic
  mean and range in MTEPS or GTEPS, median time per search) and
  `graph in units:` (generation or load, construction). Every search is
  validated against the graph's own edges (`bfs --help` says what is
  checked). --json prints all of it as one object instead.";

/// Parameters of a generated graph (with --graph they come from the file).
#[derive(Args, Debug, Clone)]
pub struct GenParams {
    /// Edges per vertex: the graph has EDGEFACTOR x 2^SCALE edges.
    #[arg(long, default_value_t = 16, value_name = "E", conflicts_with = "graph")]
    pub edgefactor: u32,
    /// First generator seed (the reference fixes 2).
    #[arg(long, default_value_t = 2, value_name = "A", conflicts_with = "graph")]
    pub seed1: u64,
    /// Second generator seed (the reference fixes 3).
    #[arg(long, default_value_t = 3, value_name = "B", conflicts_with = "graph")]
    pub seed2: u64,
}

/// Where the input graph comes from: generated, or read from a file.
#[derive(Args, Debug, Clone)]
#[group(skip)]
#[command(group(clap::ArgGroup::new("input").args(["scale", "graph"]).required(true).multiple(false)))]
pub struct Input {
    /// Generate the Graph500 graph with 2^SCALE vertices (1..=32).
    #[arg(long, value_name = "S")]
    pub scale: Option<u32>,
    /// Read a graph file written by `gossamer-graph generate -o FILE` or
    /// `convert` (memory-mapped, checksums verified), a built graph file
    /// (`convert --built`: recognised by its header and mapped, no
    /// construction), or a text or GAPBS file directly by its extension
    /// (.el .wel .mtx .gr .sg .wsg; slower than converting it once).
    #[arg(long, value_name = "FILE")]
    pub graph: Option<PathBuf>,
    #[command(flatten)]
    pub text: TextInput,
}

/// How to read a `--graph` file in another tool's format (as `convert` does).
#[derive(Args, Debug, Clone, Default)]
#[group(skip)]
pub struct TextInput {
    /// The --graph file's format, when its extension does not say.
    #[arg(
        long = "format",
        value_enum,
        value_name = "FMT",
        conflicts_with = "scale"
    )]
    pub format: Option<FormatArg>,
    /// Read the --graph text file as undirected (a directed input is
    /// symmetrized: each edge is followed both ways).
    #[arg(long, conflicts_with = "scale")]
    pub undirected: bool,
}

/// The input formats `convert` and `--graph` read.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormatArg {
    /// Text edge list: `src dst` per line, 0-based ids.
    El,
    /// Weighted text edge list: `src dst weight` per line.
    Wel,
    /// Matrix Market coordinate file (1-based).
    Mtx,
    /// DIMACS shortest-path file: `p sp N M`, `a u v w` (1-based).
    Gr,
    /// GAPBS serialized graph.
    Sg,
    /// GAPBS serialized weighted graph.
    Wsg,
}

impl FormatArg {
    pub fn format(self) -> graph_core::io::formats::Format {
        use graph_core::io::formats::Format;
        match self {
            FormatArg::El => Format::El,
            FormatArg::Wel => Format::Wel,
            FormatArg::Mtx => Format::Mtx,
            FormatArg::Gr => Format::Gr,
            FormatArg::Sg => Format::Sg,
            FormatArg::Wsg => Format::Wsg,
        }
    }
}

/// Options shared by every command that runs kernels.
#[derive(Args, Debug, Clone)]
pub struct RunOptions {
    /// Worker threads per rank (Gossamer trustees; also used for generation
    /// and validation). Default: the cores this process may use, divided
    /// among the ranks on this host (all cores for one process; with
    /// --ranks N, the cores / N; under mpirun or srun, the CPU set the
    /// launcher bound the rank to, or the cores / ranks on the host).
    #[arg(long, value_name = "T")]
    pub threads: Option<usize>,
    /// How vertices are spread over trustees. Default, per command (measured
    /// in results/kernels/road.md): striped for bfs: on a graph whose ids
    /// follow its geometry (a road network or grid in row order) a search's
    /// frontier is a ring that under block can lie in one trustee's ids for
    /// hundreds of levels while the other waits, and stripes spread it (BFS
    /// 13-18% faster on square grids, up to 3% slower on a 1024 x 4096 one,
    /// whose block boundary every ring crosses early); block for bfs on
    /// Graph500 graphs (scrambled ids: searches alike, but the set-up takes
    /// 0.3-0.7 s longer striped at SCALE 22), from a built graph file (block
    /// maps its rows in place, stripes copy them: up to half again the
    /// memory, a later first answer) and where stripes would not deal the
    /// vertices evenly (the
    /// busiest trustee more than 1/16 above an even share, e.g. 2^20
    /// vertices over 3 trustees). Block for every other command: stripes
    /// cut more streets, which SSSP pays for on the wide grid (4-36% slower,
    /// 7-16% faster on square ones), cc's link passes lose the rows'
    /// locality (37% slower) and pagerank gains nothing. Blocks with
    /// --block-table or --balance between-searches. Every report names the
    /// partition that ran.
    #[arg(long, value_enum, value_name = "KIND")]
    pub partition: Option<PartitionArg>,
    /// With --partition blocks (the default when this is given): start from this block table instead of contiguous ranges, a comma list of one trustee per block (as printed by graph-core's `plan_blocks` example from an earlier run's busy times; docs/balance.md). Every rank reads the same list; a list of the wrong length is refused.
    #[arg(long, value_name = "T,T,...", value_delimiter = ',')]
    pub block_table: Option<Vec<u32>>,
    /// Run even if the memory estimate exceeds the available memory.
    #[arg(long)]
    pub force: bool,
    /// Write every trustee's timeline (delegated work, own fibers, waits in
    /// collectives, idle polling; every rank of a rack job, one clock) to
    /// FILE as Chrome trace-event JSON, for <https://ui.perfetto.dev> or
    /// chrome://tracing. Each trustee keeps its first 1Mi intervals (16 MiB);
    /// later ones are dropped and counted.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    #[command(flatten)]
    pub rack: RackOptions,
}

/// Saving the built graph, or reusing a saved one (sssp, bfs, graph500).
#[derive(Args, Debug, Clone, Default)]
pub struct PreparedOptions {
    /// After building the graph, each trustee saves its shard to
    /// `DIR/shard-T-of-W.gshard` (trustee T of W = ranks x threads; each
    /// rank writes its own trustees' files, so on several hosts DIR must be
    /// shared). DIR is created if needed.
    #[arg(long, value_name = "DIR", conflicts_with = "prepared")]
    pub save_prepared: Option<PathBuf>,
    /// Instead of generating or reading the graph and building it, each
    /// trustee memory-maps its shard saved by --save-prepared DIR. Give the
    /// same graph (--scale and generator flags, or --graph FILE), --ranks,
    /// --threads and --partition as the saving run; files of another run,
    /// damaged ones or missing ones are refused.
    #[arg(long, value_name = "DIR")]
    pub prepared: Option<PathBuf>,
}

/// Default `--seed` for picking roots of graphs that store none (GAPBS's
/// fixed seed, though the pick is not GAPBS's sequence).
pub const DEFAULT_ROOT_SEED: u64 = 27491095;

/// Which roots to search from.
#[derive(Args, Debug, Clone)]
pub struct RootChoice {
    /// Search from this one vertex.
    #[arg(long, value_name = "R", conflicts_with = "roots")]
    pub root: Option<u64>,
    /// Search from N roots: a generated graph's first N Graph500 roots (any
    /// N >= 1); a graph file's first N stored roots (at most as many as it
    /// stores: `generate -o` stores 64); N picked at random (--seed) on a
    /// graph that stores none (converted and text files). Default: 64, or
    /// every root the file stores.
    #[arg(long, value_name = "N")]
    pub roots: Option<usize>,
    /// Seed for picking roots on graphs that store none (converted
    /// graphs): uniform random vertices with at least one edge, as GAPBS
    /// picks its sources (a vertex may come up twice, as in GAPBS).
    #[arg(long, value_name = "S", default_value_t = DEFAULT_ROOT_SEED)]
    pub seed: u64,
}

/// Options of the single-kernel commands.
#[derive(Args, Debug, Clone)]
pub struct SearchOptions {
    /// Do not validate the searches (validation runs by default after every
    /// search, over the input edge list, outside the timed region).
    #[arg(long)]
    pub skip_validation: bool,
    /// Print one JSON object on stdout instead of the human-readable report.
    #[arg(long)]
    pub json: bool,
    /// Move blocks of vertices between trustees (docs/balance.md): off, or between-searches (needs the blocks partition, which it makes the default: after a search whose busy times are uneven, the blocks are dealt again by what the kernel pays for them, one per trustee in each stretch of ids: SSSP by edge entries and live vertices, BFS by live vertices; the moved rows are copied between the trustees in memory, or with --ranks sent to their new owners as messages, when the predicted gain in search seconds over the searches left pays for the copy and the kernel's set-up again; it pays on ids sorted by degree, not against a core shared with another process). `supersteps` is refused: a move costs more than a superstep.
    #[arg(long, value_enum, default_value_t = BalanceArg::Off)]
    pub balance: BalanceArg,
}

/// When to balance (`--balance`).
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum BalanceArg {
    /// Never move blocks.
    Off,
    /// Between searches, by what each trustee owns, when the last search's busy times are uneven.
    BetweenSearches,
    /// Between supersteps (not offered; see docs/balance.md).
    Supersteps,
}

/// Which graph `generate` makes.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum GraphKind {
    /// The Graph500 Kronecker graph (--scale, --edgefactor, --seed1, --seed2).
    Kronecker,
    /// A road-like grid (--rows, --cols, --removed, --weights, --seed, --directed).
    Grid,
}

/// The defaults of `generate --kind grid` (issue 25's road graph).
pub const GRID_REMOVED: f64 = 0.1;
/// Default street lengths of `generate --kind grid`.
pub const GRID_WEIGHTS: (u32, u32) = (1, 1000);
/// Default seed of `generate --kind grid`.
pub const GRID_SEED: u64 = 1;

/// What `generate --kind grid` makes (its `--help`).
pub const GRID_HELP: &str = "\
The grid (--kind grid):
  ROWS x COLS crossings, vertex (r, c) numbered r * COLS + c, each joined
  by a street to its right and lower neighbours; each street is removed
  independently with probability --removed, and a kept one gets a length
  drawn uniformly from the integers LO..=HI. The same --seed and size give
  the same graph whatever --threads. The graph file stores 64 search roots
  drawn from the grid's largest connected piece.
  Undirected (the default): one record per street, an undirected graph;
  --dimacs-out lists each street once as `a u v w`, so read that file as
  undirected (`--graph FILE.gr --undirected`; GAPBS: `converter -s`).
  --directed: each street is two arcs, u -> v and v -> u with the same
  length, as DIMACS road files list two-way streets; the graph file is a
  directed graph, and the .gr file is read as directed by default (by
  --graph FILE.gr, and by GAPBS's converter and kernels without -s).
  Issue 25's road graph: --rows 2048 --cols 2048 --directed (4.2 million
  vertices, about 15.1 million arcs).";

#[derive(Args, Debug)]
pub struct GenerateArgs {
    /// Which graph: the Graph500 Kronecker graph, or a road-like grid.
    #[arg(long, value_enum, default_value_t = GraphKind::Kronecker)]
    pub kind: GraphKind,
    /// Kronecker: the graph has 2^SCALE vertices (1..=32). Required for it.
    #[arg(long, value_name = "S")]
    pub scale: Option<u32>,
    /// Kronecker: edges per vertex: the graph has EDGEFACTOR x 2^SCALE edges.
    #[arg(long, default_value_t = 16, value_name = "E")]
    pub edgefactor: u32,
    /// Kronecker: first generator seed (the reference fixes 2).
    #[arg(long, default_value_t = 2, value_name = "A")]
    pub seed1: u64,
    /// Kronecker: second generator seed (the reference fixes 3).
    #[arg(long, default_value_t = 3, value_name = "B")]
    pub seed2: u64,
    /// Grid: rows of crossings (>= 1; rows x cols at most 2^32). Required for it.
    #[arg(long, value_name = "R")]
    pub rows: Option<u32>,
    /// Grid: crossings per row (>= 1). Required for it.
    #[arg(long, value_name = "C")]
    pub cols: Option<u32>,
    /// Grid: the probability that a street is removed, in [0, 1). Default: 0.1.
    #[arg(long, value_name = "F")]
    pub removed: Option<f64>,
    /// Grid: street lengths, uniform integers in LO..=HI (1 <= LO <= HI <=
    /// 2^24; a single N is N..=N, e.g. 1 for unit weights). Default: 1..1000.
    #[arg(long, value_name = "LO..HI", value_parser = parse_weights)]
    pub weights: Option<(u32, u32)>,
    /// Grid: the seed of the removals, lengths and roots. Default: 1.
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// Grid: each street is two arcs (a directed graph), not one undirected
    /// edge (see below).
    #[arg(long)]
    pub directed: bool,
    /// Write the graph (with its 64 search roots) to this gossamer-graph file.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Write -o FILE as a built graph file: the graph's rows as the kernels
    /// hold them, which every later run (any --ranks, --threads,
    /// --partition) maps instead of building (see `convert --help`).
    #[arg(long, requires = "output")]
    pub built: bool,
    /// Grid: write the graph as a DIMACS shortest-path file (`p sp N M`,
    /// `a u v w`, 1-based ids), as GAPBS and `--graph FILE.gr` read it.
    #[arg(long, value_name = "FILE")]
    pub dimacs_out: Option<PathBuf>,
    /// Kronecker: write the edges as the reference vectors do: per edge u64 src, u64 dst, little-endian.
    #[arg(long, value_name = "FILE")]
    pub edges_out: Option<PathBuf>,
    /// Kronecker: write the weights as the reference vectors do: one f32 per edge, little-endian.
    #[arg(long, value_name = "FILE")]
    pub weights_out: Option<PathBuf>,
    /// Write the 64 search roots as text, one decimal id per line (0-based).
    #[arg(long, value_name = "FILE")]
    pub roots_out: Option<PathBuf>,
    /// Generator threads. Default: all cores.
    #[arg(long, value_name = "T")]
    pub threads: Option<usize>,
    /// Generate even if the memory estimate exceeds the available memory.
    #[arg(long)]
    pub force: bool,
    /// Measurement hook: also build the kernels' graph (block partition,
    /// --threads workers) and report the construction time on stderr.
    #[arg(long, hide = true)]
    pub construct: bool,
}

/// Reads a `--weights` range: `LO..HI` (both included) or one number.
fn parse_weights(text: &str) -> std::result::Result<(u32, u32), String> {
    let num = |t: &str| {
        t.trim().parse::<u32>().map_err(|_| {
            format!("{text:?}: expected LO..HI (integers, e.g. 1..1000) or one integer")
        })
    };
    match text.split_once("..") {
        Some((lo, hi)) => Ok((num(lo)?, num(hi.strip_prefix('=').unwrap_or(hi))?)),
        None => num(text).map(|w| (w, w)),
    }
}

/// What the single-kernel commands (`sssp`, `bfs`) share: the graph,
/// saving or reusing it prepared, the roots, how to run, what to print.
#[derive(Args, Debug)]
pub struct SingleArgs {
    #[command(flatten)]
    pub input: Input,
    #[command(flatten)]
    pub gen: GenParams,
    #[command(flatten)]
    pub prepared: PreparedOptions,
    #[command(flatten)]
    pub roots: RootChoice,
    #[command(flatten)]
    pub run: RunOptions,
    #[command(flatten)]
    pub out: SearchOptions,
}

#[derive(Args, Debug)]
pub struct SsspArgs {
    #[command(flatten)]
    pub single: SingleArgs,
    /// Delta-stepping bucket width, in weight units. Default: derived from
    /// the graph, max(w_min, w_max / d^2), with w_min and w_max its smallest
    /// and largest edge weight and d its adjacency entries per vertex (about
    /// 0.001 on Graph500 graphs, 77 on a road grid with lengths 1..1000 and
    /// d = 3.6, 1 with unit weights); the report says which delta ran and
    /// whether it was derived or given. Any positive number works; smaller
    /// widths take more rounds.
    #[arg(long, value_name = "D", allow_negative_numbers = true)]
    pub delta: Option<f32>,
    /// Give every edge weight 1.0 (needed to run SSSP on an unweighted graph).
    #[arg(long)]
    pub unit_weights: bool,
    /// How SSSP's split rows keep their targets: plain (4-byte ids) or
    /// compressed (byte-coded differences beside the shard's weights, about
    /// 2 B an entry on Graph500 graphs: the lower peak memory, the same
    /// answers; results/memory/unweighted.md). Compressed rows are split at
    /// one delta per run and refuse to be rebuilt at another.
    #[arg(long, value_enum, default_value_t = RowsArg::Plain)]
    pub rows: RowsArg,
    /// Write the distances from the first root: N x f32 little-endian, +inf
    /// for unreached vertices (the reference vectors' .dist format).
    #[arg(long, value_name = "FILE")]
    pub dump_dist: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct BfsArgs {
    #[command(flatten)]
    pub single: SingleArgs,
    /// Direction-optimizing (top-down/bottom-up switching) or top-down only.
    #[arg(long, value_enum, default_value_t = BfsModeArg::Do)]
    pub mode: BfsModeArg,
    /// How the search's rows are stored (see the values). Compressed rows
    /// hold each row's sorted neighbour ids as byte-coded differences: on a
    /// Graph500 graph 1.6-1.7 B per entry instead of plain rows' 4, plus
    /// 12 B per vertex, and they replace the graph's plain array (coded
    /// as it is given up; validation reads the entries back through
    /// them): the memory-lean choice, a process's peak 12-36% lower
    /// (SCALE 22 from a built file, 1 x 2, validated: 550 000 KiB
    /// against 858 000).
    /// They cost decoding each entry as it is read (measured: 0.8-0.9x
    /// the TEPS), a slower validation, and from a built file a second
    /// pass over the rows while preparing them
    /// (results/memory/compressed.md).
    #[arg(long, value_enum, default_value_t = RowsArg::Plain)]
    pub rows: RowsArg,
    /// Write the BFS levels from the first root: N x i64 little-endian, -1
    /// for unreached vertices (the reference vectors' .level format).
    #[arg(long, value_name = "FILE")]
    pub dump_levels: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct Graph500Args {
    #[command(flatten)]
    pub input: Input,
    #[command(flatten)]
    pub gen: GenParams,
    #[command(flatten)]
    pub prepared: PreparedOptions,
    #[command(flatten)]
    pub run: RunOptions,
    /// Delta-stepping bucket width for SSSP, in weight units (Graph500
    /// weights are in [0, 1]); the default is the kernel's measured best.
    #[arg(long, value_name = "D", default_value_t = ::sssp::DEFAULT_DELTA, allow_negative_numbers = true)]
    pub delta: f32,
    /// Give every edge weight 1.0 (needed for SSSP on an unweighted graph).
    #[arg(long)]
    pub unit_weights: bool,
    /// Seed for picking the 64 roots of a graph that stores none.
    #[arg(long, value_name = "S", default_value_t = DEFAULT_ROOT_SEED)]
    pub seed: u64,
    /// Print one JSON object on stdout instead of the statistics block.
    #[arg(long)]
    pub json: bool,
}

/// What the whole-graph commands (`cc`, `pagerank`, `bc`, `tc`) share: the
/// graph, how to run, what to print.
#[derive(Args, Debug)]
pub struct WholeArgs {
    #[command(flatten)]
    pub input: Input,
    #[command(flatten)]
    pub gen: GenParams,
    #[command(flatten)]
    pub run: RunOptions,
    #[command(flatten)]
    pub out: SearchOptions,
}

#[derive(Args, Debug)]
pub struct CcArgs {
    #[command(flatten)]
    pub whole: WholeArgs,
    /// How the rows are stored (as `bfs --rows`). Compressed rows take the
    /// place of the graph's plain array, coded as it is given up: the
    /// memory-lean choice (results/memory/unweighted.md). The labels are
    /// the same.
    #[arg(long, value_enum, default_value_t = RowsArg::Plain)]
    pub rows: RowsArg,
    /// Write every vertex's component label (the smallest vertex id of its
    /// component): N x u64 little-endian.
    #[arg(long, value_name = "FILE")]
    pub dump_labels: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct PageRankArgs {
    #[command(flatten)]
    pub whole: WholeArgs,
    /// Damping factor, in [0, 1).
    #[arg(long, default_value_t = 0.85, value_name = "D")]
    pub damping: f64,
    /// Most iterations (at least 1).
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub max_iterations: u32,
    /// Stop once an iteration changes the scores by less than this in total
    /// (sum of |change| over all vertices); 0 runs every iteration.
    #[arg(long, default_value_t = 1e-4, value_name = "E")]
    pub tolerance: f64,
    /// Every iteration reads only the previous one's scores (Jacobi: the
    /// same answer for any ranks and threads, up to rounding). Default:
    /// Jacobi while each iteration at least halves the residual (Graph500
    /// graphs: throughout), then Gauss-Seidel, in place, as GAPBS's pr (a
    /// road grid: 11 iterations instead of 20 that do not reach 1e-4).
    #[arg(long)]
    pub jacobi: bool,
    /// How the rows are stored (as `bfs --rows`). Compressed rows take the
    /// place of the graph's plain array, coded as it is given up: the
    /// memory-lean choice (results/memory/unweighted.md); each in-row is
    /// decoded before its sum, so the scores are the same bit for bit.
    #[arg(long, value_enum, default_value_t = RowsArg::Plain)]
    pub rows: RowsArg,
    /// Write every vertex's score: N x f64 little-endian.
    #[arg(long, value_name = "FILE")]
    pub dump_scores: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct ConvertArgs {
    /// The input file (.el .wel .mtx .gr .sg .wsg, or any name with --format).
    #[arg(value_name = "IN")]
    pub input: PathBuf,
    /// The gossamer-graph file to write (replaced only when the whole input
    /// was read without error).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: PathBuf,
    /// The input's format. Default: from its extension.
    #[arg(long, value_enum, value_name = "FMT")]
    pub format: Option<FormatArg>,
    /// The edges are arcs (the default for .el, .wel, .gr and general .mtx;
    /// a symmetric .mtx or undirected .sg stays undirected, as its header says).
    #[arg(long, conflicts_with = "undirected")]
    pub directed: bool,
    /// The edges are undirected: a directed input is symmetrized (each edge
    /// is followed both ways). Every kernel runs on directed graphs too
    /// (along the arcs) except tc, which needs this.
    #[arg(long)]
    pub undirected: bool,
    /// Drop the input's weights: the graph is unweighted (for inputs whose
    /// values are negative or are not distances).
    #[arg(long)]
    pub ignore_weights: bool,
    /// Write a built graph file: the whole graph's rows as the kernels hold
    /// them (each vertex's neighbours, weights in a section of their own),
    /// checksummed by chunk. Every later run with --graph OUT, whatever
    /// its --ranks, --threads and --partition, maps it instead of building
    /// the graph (a block partition's trustees read their rows in place,
    /// a cyclic one's copy theirs); unweighted kernels never read the
    /// weights. IN may also be a gossamer-graph file (.ggraph, its roots
    /// kept). `gossamer-graph verify OUT` checks the whole file.
    #[arg(long)]
    pub built: bool,
    /// Parser threads. Default: all cores.
    #[arg(long, value_name = "T")]
    pub threads: Option<usize>,
}

#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// The built graph file (`convert --built`, `generate --built`).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

#[derive(Args, Debug)]
pub struct ReadyArgs {
    /// The built graph file (`convert --built`, `generate --built`).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// The trustees (worker threads, over all ranks) of the runs it serves.
    /// Default: a one-process run's default, all cores.
    #[arg(long, value_name = "T")]
    pub threads: Option<usize>,
}

#[derive(Args, Debug)]
pub struct BcArgs {
    #[command(flatten)]
    pub whole: WholeArgs,
    /// Number of sources, 1..=64, all distinct: a generated graph's first N
    /// Graph500 search roots; a graph file's first N stored roots; N
    /// vertices with edges picked at random (--seed) on a graph that stores
    /// none. Fewer when fewer vertices have edges (the report says so).
    #[arg(long, default_value_t = 4, value_name = "N", conflicts_with = "source")]
    pub roots: usize,
    /// These sources instead (input file ids): repeat the option or give a
    /// comma-separated list, e.g. `--source 0,17 --source 42`; each at most
    /// once, 1..=64 of them.
    #[arg(long, value_name = "V", value_delimiter = ',', num_args = 1)]
    pub source: Vec<u64>,
    /// Seed for picking the sources on graphs that store no roots
    /// (converted and text files).
    #[arg(long, value_name = "S", default_value_t = DEFAULT_ROOT_SEED)]
    pub seed: u64,
    /// How the rows are stored (as `cc --rows`). Compressed rows take the
    /// place of the graph's plain array, coded as it is given up: the
    /// memory-lean choice (results/memory/unweighted.md), each row decoded
    /// as it is read. The scores are the same.
    #[arg(long, value_enum, default_value_t = RowsArg::Plain)]
    pub rows: RowsArg,
    /// Write every vertex's normalised score: N x f64 little-endian.
    #[arg(long, value_name = "FILE")]
    pub dump_scores: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct TcArgs {
    #[command(flatten)]
    pub whole: WholeArgs,
    /// How the rows are stored (as `bfs --rows`). Compressed rows take the
    /// place of the graph's plain array, coded as it is given up: the
    /// memory-lean choice (results/memory/unweighted.md); tc reads each row
    /// only while it makes its out-lists. The count is the same.
    #[arg(long, value_enum, default_value_t = RowsArg::Plain)]
    pub rows: RowsArg,
}

#[derive(Args, Debug)]
pub struct KcoreArgs {
    #[command(flatten)]
    pub whole: WholeArgs,
    /// Write every vertex's coreness: N x u32 little-endian.
    #[arg(long, value_name = "FILE")]
    pub dump_cores: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct PlanArgs {
    /// The graph has 2^SCALE vertices (1..=32).
    #[arg(long, value_name = "S")]
    pub scale: u32,
    /// Edges per vertex: the graph has EDGEFACTOR x 2^SCALE edges.
    #[arg(long, default_value_t = 16, value_name = "E")]
    pub edgefactor: u32,
    /// Ranks (processes, usually one per machine) of the planned run.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub ranks: u32,
    /// Worker threads (trustees) per rank. Default: all cores of this machine.
    #[arg(long, value_name = "T")]
    pub threads: Option<usize>,
    /// Memory per rank, e.g. 188GiB, 64GiB, 24G (K/M/G/T and KiB/MiB/GiB/TiB:
    /// powers of 1024; kB/MB/GB/TB: powers of 1000). Default: this machine's
    /// available memory.
    #[arg(long, value_name = "M", value_parser = parse_size)]
    pub memory: Option<u64>,
    /// The command to plan: generate, sssp, bfs, graph500, cc, pagerank, bc, tc or kcore.
    #[arg(long, default_value = "sssp", value_name = "CMD")]
    pub command: graph_core::memory::Workload,
    /// Print sizes in bytes instead of MiB/GiB (for scripts).
    #[arg(long)]
    pub bytes: bool,
}

/// Vertex partition over trustees.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartitionArg {
    /// Contiguous ranges of vertex ids per trustee.
    Block,
    /// Vertex v goes to trustee v mod T.
    Cyclic,
    /// Stripes of up to 65536 consecutive ids, dealt round-robin (at least 4 per trustee): near ids stay together, as in blocks, and a search from any vertex reaches every trustee soon.
    Striped,
    /// Contiguous blocks of a power-of-two size, about 64 per trustee (at most 256 blocks, 64 trustees), placed by a block table that a balancer may change (docs/balance.md); at first each trustee's blocks are one range, as with block.
    Blocks,
}

/// How a search's rows are stored (graph_kernel::RowsFormat).
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowsArg {
    /// 4-byte neighbour ids, read as slices (the shard's own array).
    Plain,
    /// Byte-coded differences of the sorted ids (1-5 B each), decoded as
    /// read, in place of the shard's array.
    Compressed,
}

impl RowsArg {
    pub fn format(self) -> graph_kernel::RowsFormat {
        match self {
            RowsArg::Plain => graph_kernel::RowsFormat::Plain,
            RowsArg::Compressed => graph_kernel::RowsFormat::Compressed,
        }
    }
}

/// BFS strategy.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum BfsModeArg {
    /// Direction-optimizing: switches to bottom-up on large frontiers.
    Do,
    /// Top-down only.
    TopDown,
}

/// The partition a command runs with when it gives no `--partition` (and no
/// `--block-table` or `--balance`): see `--partition`'s help for why.
pub fn default_partition(w: graph_core::memory::Workload) -> PartitionArg {
    use graph_core::memory::Workload;
    match w {
        Workload::Bfs => PartitionArg::Striped,
        Workload::Sssp
        | Workload::Graph500
        | Workload::Generate
        | Workload::Cc
        | Workload::PageRank
        | Workload::Bc
        | Workload::Tc
        | Workload::Kcore => PartitionArg::Block,
    }
}

/// The partition that runs on `graph` over `ranks` x `threads` trustees:
/// `chosen` ([`RunOptions::partition_for`]), but block in place of a
/// default striped one on a Graph500 graph (scrambled ids: stripes keep no
/// locality, and BFS's set-up takes longer under them), on a built graph
/// file (whose rows block maps in place, while stripes copy them: more
/// memory and a later first answer) and where stripes would not deal the
/// vertices evenly ([`graph_core::partition::striped_is_even`]). A
/// partition given with `--partition` (`explicit`) always runs.
pub fn settle_partition(
    chosen: PartitionArg,
    explicit: bool,
    graph: &crate::graph::LoadedGraph,
    ranks: u32,
    threads: usize,
) -> PartitionArg {
    let t = u32::try_from(threads).unwrap_or(u32::MAX);
    let n = graph.num_vertices();
    let block_pays = graph.is_built() || graph.params().is_some();
    if settle_kind(chosen.kind(), explicit, n, block_pays, ranks, t) == chosen.kind() {
        chosen
    } else {
        PartitionArg::Block
    }
}

/// [`settle_partition`]'s rule on partition kinds, for a graph of `n`
/// vertices (`block_pays`: a Graph500 graph or a built graph file): also
/// what the memory check and `plan` count ranks' shares with.
pub fn settle_kind(
    chosen: graph_core::PartitionKind,
    explicit: bool,
    n: u64,
    block_pays: bool,
    ranks: u32,
    threads: u32,
) -> graph_core::PartitionKind {
    use graph_core::PartitionKind;
    if chosen == PartitionKind::Striped
        && !explicit
        && (block_pays || !graph_core::partition::striped_is_even(n, ranks, threads))
    {
        PartitionKind::Block
    } else {
        chosen
    }
}

impl RunOptions {
    /// The partition of a command of workload `w`: `--partition`, else
    /// blocks with `--block-table` (which needs them), else `w`'s default.
    pub fn partition_for(&self, w: graph_core::memory::Workload) -> PartitionArg {
        match (self.partition, &self.block_table) {
            (Some(p), _) => p,
            (None, Some(_)) => PartitionArg::Blocks,
            (None, None) => default_partition(w),
        }
    }
}

impl SingleArgs {
    /// The partition of `sssp` or `bfs` (workload `w`): as
    /// [`RunOptions::partition_for`], and blocks with `--balance
    /// between-searches` (which moves them) when `--partition` is not given.
    pub fn partition_for(&self, w: graph_core::memory::Workload) -> PartitionArg {
        match (self.run.partition, self.out.balance) {
            (None, BalanceArg::BetweenSearches) => PartitionArg::Blocks,
            _ => self.run.partition_for(w),
        }
    }
}

impl PartitionArg {
    pub fn kind(self) -> graph_core::PartitionKind {
        match self {
            PartitionArg::Block => graph_core::PartitionKind::Block,
            PartitionArg::Cyclic => graph_core::PartitionKind::Cyclic,
            PartitionArg::Striped => graph_core::PartitionKind::Striped,
            PartitionArg::Blocks => graph_core::PartitionKind::Blocks,
        }
    }
}

/// Parses a memory size: a number with an optional unit. `K`, `M`, `G`,
/// `T` and `KiB`, `MiB`, `GiB`, `TiB` are powers of 1024; `kB`, `KB`, `MB`,
/// `GB`, `TB` powers of 1000; `B` or nothing is bytes.
pub fn parse_size(text: &str) -> std::result::Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let unit = unit.trim();
    let scale: f64 = match unit {
        "" | "B" => 1.0,
        "K" | "KiB" | "k" => 1024.0,
        "M" | "MiB" => 1024f64.powi(2),
        "G" | "GiB" => 1024f64.powi(3),
        "T" | "TiB" => 1024f64.powi(4),
        "kB" | "KB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "TB" => 1e12,
        _ => {
            return Err(format!(
                "{text:?}: unknown unit {unit:?}; use a number with B, KiB, MiB, GiB, TiB (or K, M, G, T: powers of 1024) or kB, MB, GB, TB (powers of 1000), e.g. 188GiB"
            ))
        }
    };
    let x: f64 = num
        .parse()
        .map_err(|_| format!("{text:?}: expected a size such as 64GiB, 188GB or 24G"))?;
    let bytes = x * scale;
    if !(bytes.is_finite() && bytes >= 1.0 && bytes < u64::MAX as f64) {
        return Err(format!(
            "{text:?}: the size must be at least 1 byte and below 16 EiB"
        ));
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn weight_ranges_parse() {
        assert_eq!(parse_weights("1..1000"), Ok((1, 1000)));
        assert_eq!(parse_weights("5..=7"), Ok((5, 7)));
        assert_eq!(parse_weights("1"), Ok((1, 1)));
        assert!(parse_weights("1..").is_err());
        assert!(parse_weights("-1..4").is_err());
        assert!(parse_weights("a..b").unwrap_err().contains("LO..HI"));
    }

    #[test]
    fn sizes_parse_with_units() {
        assert_eq!(parse_size("188GiB"), Ok(188 << 30));
        assert_eq!(parse_size("64GiB"), Ok(64 << 30));
        assert_eq!(parse_size("24G"), Ok(24 << 30));
        assert_eq!(parse_size("188GB"), Ok(188_000_000_000));
        assert_eq!(parse_size("1.5 TiB"), Ok(3 << 39));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("512MiB"), Ok(512 << 20));
        assert!(parse_size("lots").unwrap_err().contains("unknown unit"));
        assert!(parse_size("G").unwrap_err().contains("expected a size"));
        assert!(parse_size("5 parsecs")
            .unwrap_err()
            .contains("unknown unit"));
        assert!(parse_size("0").is_err());
    }
}
