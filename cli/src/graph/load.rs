//! Loading the input graph: generated (after a memory check), streamed
//! slice by slice, a graph file mapped whole or in slices, described by its
//! header for prepared shards, or parsed from another tool's format.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use generators::{Graph500Config, Kronecker};
use graph_core::io::built;
use graph_core::io::file;
use graph_core::io::formats::{self, Format};
use graph_core::{memory, EdgeList, Graph500Params, MappedGraph, PackedEdge};
use graph_kernel::Graph500Source;

use crate::args::{GenParams, Input, TextInput};
use crate::error::{CliError, Result};
use crate::memcheck::{check_graph_memory, check_memory, memory_context};
use crate::progress::Progress;
use crate::shares::{heaviest_share, rank_shares};

use super::loaded::{LoadedGraph, Storage};

/// The memory check for a graph of the Graph500 generator `kron` (to be
/// generated, or a graph file it wrote): the partition does not split its
/// edges evenly, so each rank is checked with its own expected share, and
/// a refusal's advice counts ranks with the heaviest share. Returns every
/// rank's share ([`rank_shares`]).
fn check_generated_memory(kron: &Kronecker, threads: usize, force: bool) -> Result<Vec<u32>> {
    let ctx = memory_context();
    let t = u32::try_from(threads).unwrap_or(u32::MAX);
    // A Graph500 graph: a default striped partition runs block.
    let n = kron.num_vertices();
    let partition = crate::args::settle_kind(ctx.partition, ctx.explicit, n, true, ctx.ranks, t);
    let shares = rank_shares(kron, partition, ctx.ranks, t);
    let share = shares.get(ctx.rank as usize).copied().unwrap_or(1000);
    let heaviest = heaviest_share(kron, ctx.partition, ctx.explicit, t);
    let (scale, edgefactor) = (kron.config().scale, kron.config().edgefactor);
    check_memory(scale, edgefactor, threads, share, Some(&heaviest), force)?;
    Ok(shares)
}

/// The Graph500 parameters of `--graph` when it names a graph file the
/// generator wrote, from its header; `None` for `--scale`, a text format,
/// or a file that cannot be read (the run itself then says why).
pub fn graph500_file_params(input: &Input) -> Option<Graph500Params> {
    match (&input.scale, &input.graph) {
        (None, Some(path)) if is_built_file(path) => built::open(path).ok()?.header().params,
        (None, Some(path)) if text_format(path, &input.text).is_none() => {
            file::open_header(path).ok()?.0.params
        }
        _ => None,
    }
}

/// The memory check for a graph file: a Graph500 graph's by its
/// generator's shares ([`check_generated_memory`]); any other by its vertex
/// and edge counts ([`check_graph_memory`]).
fn check_file_memory(header: &file::GraphHeader, threads: usize, force: bool) -> Result<()> {
    match header.params {
        Some(p) => {
            let (kron, _) = generator(p.scale, p.edgefactor, p.seed1, p.seed2)?;
            check_generated_memory(&kron, threads, force)?;
        }
        None => check_graph_memory(header.num_vertices, header.num_edges, threads, force)?,
    }
    Ok(())
}

/// Validates the parameters, checks memory, then generates the graph in
/// parallel (rayon's current pool) straight into the packed edge list.
pub fn generate(
    scale: u32,
    edgefactor: u32,
    seed1: u64,
    seed2: u64,
    threads: usize,
    force: bool,
) -> Result<(EdgeList<'static>, Kronecker, f64)> {
    let (kron, params) = generator(scale, edgefactor, seed1, seed2)?;
    check_memory(scale, edgefactor, threads, 1000, None, force)?;
    let start = Instant::now();
    crate::memtrace::start();
    let mut list = EdgeList::zeroed(params)?;
    const STEPS: usize = 64;
    let edges = list.edges_mut();
    let chunk = edges.len().div_ceil(STEPS).max(1 << 16);
    let bar = Progress::new("generating", edges.len().div_ceil(chunk) as u64);
    for (i, part) in edges.chunks_mut(chunk).enumerate() {
        kron.par_map_into((i * chunk) as u64, part, |e| {
            PackedEdge::from_wide(e.u, e.v, e.w)
        });
        bar.tick();
    }
    bar.finish();
    crate::memtrace::end("generation");
    let elapsed = start.elapsed().as_secs_f64();
    Ok((list, kron, elapsed))
}

/// The generator of a graph, or why these parameters make none.
fn generator(
    scale: u32,
    edgefactor: u32,
    seed1: u64,
    seed2: u64,
) -> Result<(Kronecker, Graph500Params)> {
    if !(1..=graph_core::MAX_SCALE).contains(&scale) {
        return Err(CliError::new(format!(
            "SCALE {scale} is out of range: use 1..={} (the graph has 2^SCALE vertices and graph-core stores vertex ids in 32 bits)",
            graph_core::MAX_SCALE
        )));
    }
    let kron = Kronecker::new(Graph500Config {
        scale,
        edgefactor,
        seed1,
        seed2,
    })?;
    let params = Graph500Params {
        scale,
        edgefactor,
        seed1,
        seed2,
    };
    params.num_edges()?; // SCALE <= 32 and a representable edge count
    Ok((kron, params))
}

/// Opens a graph file, then checks memory for a run on it: verified whole
/// (`in_slices: false`), or checked only as far as it can be without
/// reading the records, which the build then checks slice by slice
/// ([`file::open_in_slices`]).
fn open(path: &Path, threads: usize, force: bool, in_slices: bool) -> Result<MappedGraph> {
    let g = if in_slices {
        file::open_in_slices(path)
    } else {
        let bar = Progress::spinner("reading");
        let g = file::open(path);
        bar.finish();
        g
    };
    let g = g.map_err(|e| match e {
        graph_core::GraphFileError::NotAGraphFile => CliError::new(format!(
            "{}: {e}; for another tool's format give the file its extension (.el .wel .mtx .gr .sg .wsg) or pass --format",
            path.display()
        )),
        e => e.into(),
    })?;
    check_file_memory(g.header(), threads, force)?;
    Ok(g)
}

/// A graph file as the input of a run ([`open`], timed).
fn load_file(path: &Path, threads: usize, force: bool, in_slices: bool) -> Result<LoadedGraph> {
    let start = Instant::now();
    let mapped = open(path, threads, force, in_slices)?;
    Ok(LoadedGraph {
        storage: Storage::Mapped {
            graph: Arc::new(mapped),
            unit_meta: None,
        },
        generation_time: start.elapsed().as_secs_f64(),
    })
}

/// Whether `path` names a built graph file (`convert --built`), by its
/// first bytes; false for anything that is not a regular file.
pub fn is_built_file(path: &Path) -> bool {
    let mut magic = [0u8; 8];
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
        && std::fs::File::open(path)
            .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic))
            .is_ok()
        && built::is_built(&magic)
}

/// A built graph file as the input of a run: mapped, its header, digests
/// and ids checked (each trustee checks the rows it takes). With `list`
/// the edges are also read back from the rows (the whole file checked
/// first), for the commands that check their answer against a list.
fn load_built(path: &Path, threads: usize, force: bool, list: bool) -> Result<LoadedGraph> {
    let start = Instant::now();
    let g = built::open(path).map_err(|e| CliError::new(e.to_string()))?;
    let h = g.header();
    match h.params {
        Some(p) => {
            let (kron, _) = generator(p.scale, p.edgefactor, p.seed1, p.seed2)?;
            check_generated_memory(&kron, threads, force)?;
        }
        None => check_graph_memory(h.num_vertices, h.num_edges, threads, force)?,
    }
    let list = if list {
        let bar = Progress::spinner("reading");
        let l = g.edge_list();
        bar.finish();
        Some(Arc::new(l.map_err(|e| CliError::new(e.to_string()))?))
    } else {
        None
    };
    Ok(LoadedGraph {
        storage: Storage::Built {
            graph: Arc::new(g),
            list,
            unit_meta: None,
        },
        generation_time: start.elapsed().as_secs_f64(),
    })
}

/// The format of a `--graph` file that is not a gossamer-graph file: from
/// `--format`, else from its extension (a `.ggraph` or unknown extension
/// is read as a graph file).
fn text_format(path: &Path, text: &TextInput) -> Option<Format> {
    text.format
        .map(|f| f.format())
        .or_else(|| Format::from_path(path))
}

/// Reads an input in another tool's format, with a progress bar in bytes
/// and the reader's notes on stderr.
pub fn read_foreign(
    path: &Path,
    format: Format,
    opts: &formats::ReadOptions,
) -> Result<formats::Converted> {
    let total = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let bar = Progress::bytes("reading", total);
    let read = formats::read(path, format, opts, &|done| bar.set(done));
    bar.finish();
    let read = read.map_err(|e| match e {
        formats::FormatError::Line { .. } | formats::FormatError::Invalid { .. } => {
            CliError::new(format!("{} (read as .{format}): {e}", path.display()))
        }
        e => CliError::new(e.to_string()),
    })?;
    for note in &read.notes {
        eprintln!("note: {note}");
    }
    Ok(read)
}

/// The input of a search command (`sssp`, `bfs`, `graph500`): like
/// [`load`], except that a generated graph is *streamed*: nothing is
/// generated here; every trustee generates its own slice of the edge
/// stream while the shards are built, so no process ever holds the whole
/// edge list. Likewise a graph file is opened in slices: every trustee
/// checks (ids, weights, its part of the data checksum) and reads only its
/// own slice, so no process reads the whole file.
pub fn load_streamed(
    input: &Input,
    gen: &GenParams,
    threads: usize,
    force: bool,
) -> Result<LoadedGraph> {
    let (Some(scale), None) = (input.scale, &input.graph) else {
        return match (&input.scale, &input.graph) {
            // A built file: every trustee takes its rows from it.
            (None, Some(path)) if is_built_file(path) => load_built(path, threads, force, false),
            // A graph file: every trustee checks and reads its own slice.
            (None, Some(path)) if text_format(path, &input.text).is_none() => {
                load_file(path, threads, force, true)
            }
            _ => load(input, gen, threads, force),
        };
    };
    let (kron, _) = generator(scale, gen.edgefactor, gen.seed1, gen.seed2)?;
    let ctx = memory_context();
    let t = u32::try_from(threads).unwrap_or(u32::MAX);
    let shares = check_generated_memory(&kron, threads, force)?;
    let share_of = |rank: u32| shares.get(rank as usize).copied().unwrap_or(1000);
    // The source travels from rank 0 to every trustee, so it carries the
    // part of the slices rank 0 keeps and the part the others keep (made
    // for the heaviest): as much as stays under the rank's later peak.
    let shape = memory::Shape::even(scale, gen.edgefactor, ctx.ranks, t);
    let heaviest_other = (1..ctx.ranks).map(share_of).max().unwrap_or(1000);
    let kept = |rank: u32, share: u32| {
        memory::estimate_rank(
            ctx.workload,
            memory::Shape {
                share_permille: share,
                ..shape
            },
            rank,
        )
        .kept_permille
    };
    let source = Graph500Source::new(scale, gen.edgefactor, gen.seed1, gen.seed2)
        .map_err(|e| CliError::new(e.to_string()))?
        .keeping(kept(0, share_of(0)), kept(1, heaviest_other));
    Ok(LoadedGraph {
        storage: Storage::Streamed {
            source,
            kron: Box::new(kron),
        },
        generation_time: 0.0,
    })
}

/// The input of a search command run on prepared shards (`--prepared`):
/// what the run needs to know of the graph without its edges. A generated
/// graph is described by its parameters (nothing is generated), a graph
/// file by its header and id table (its records are not read); a text
/// file cannot be described without parsing it, and is refused.
pub fn load_described(
    input: &Input,
    gen: &GenParams,
    threads: usize,
    force: bool,
) -> Result<LoadedGraph> {
    let path = match (&input.scale, &input.graph) {
        (None, Some(path)) => path,
        _ => return load_streamed(input, gen, threads, force),
    };
    if is_built_file(path) {
        // Refused with what to do by the run's identity.
        return load_built(path, threads, force, false);
    }
    if text_format(path, &input.text).is_some() {
        return Err(CliError::new(format!(
            "--prepared needs a generated graph (--scale) or a graph file, not the text file {}: convert it once with `gossamer-graph convert`, then save and reuse the prepared graph of --graph GRAPH.ggraph",
            path.display()
        )));
    }
    let start = Instant::now();
    let (header, meta) = file::open_header(path)?;
    check_file_memory(&header, threads, force)?;
    Ok(LoadedGraph {
        storage: Storage::Described { header, meta },
        generation_time: start.elapsed().as_secs_f64(),
    })
}

/// The input graph of a run: generated (`--scale`) or from `--graph`.
pub fn load(input: &Input, gen: &GenParams, threads: usize, force: bool) -> Result<LoadedGraph> {
    if let (None, Some(path)) = (&input.scale, &input.graph) {
        if let Some(format) = text_format(path, &input.text) {
            eprintln!(
                "note: reading {} as a .{format} file on every run; `gossamer-graph convert {}{} -o GRAPH.ggraph` once, then `--graph GRAPH.ggraph`, is faster",
                path.display(),
                path.display(),
                if input.text.undirected { " --undirected" } else { "" }
            );
            let start = Instant::now();
            let opts = formats::ReadOptions {
                directed: input.text.undirected.then_some(false),
                ignore_weights: false,
            };
            let read = read_foreign(path, format, &opts)?;
            check_graph_memory(
                read.edges.num_vertices(),
                read.edges.num_edges(),
                threads,
                force,
            )?;
            return Ok(LoadedGraph {
                storage: Storage::Parsed {
                    list: Arc::new(read.edges),
                    meta: read.meta,
                },
                generation_time: start.elapsed().as_secs_f64(),
            });
        }
    }
    match (&input.scale, &input.graph) {
        (Some(scale), None) => {
            let (list, kron, generation_time) =
                generate(*scale, gen.edgefactor, gen.seed1, gen.seed2, threads, force)?;
            Ok(LoadedGraph {
                storage: Storage::Generated {
                    list: Arc::new(list),
                    kron: Box::new(kron),
                },
                generation_time,
            })
        }
        (None, Some(path)) if is_built_file(path) => load_built(path, threads, force, true),
        (None, Some(path)) => load_file(path, threads, force, false),
        // clap's argument group makes these unreachable; keep a clear message anyway.
        _ => Err(CliError::new(
            "give exactly one of --scale S (generate the graph) or --graph FILE (read it)",
        )),
    }
}
