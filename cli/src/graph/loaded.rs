//! [`LoadedGraph`]: the input graph of a run as this process holds it
//! (generated, streamed, mapped, described by its header, or parsed), what
//! it is (directed, weighted: what each kernel accepts), and what the
//! kernels' graph is built from ([`BuildSource`]).

use std::sync::Arc;

use generators::Kronecker;
use graph_core::construct::LocalSource;
use graph_core::io::built::BuiltGraph;
use graph_core::io::file;
use graph_core::io::prepared::GraphIdentity;
use graph_core::{EdgeList, Graph500Params, GraphMeta, MappedGraph, PackedEdge};
use graph_kernel::Graph500Source;
use rayon::prelude::*;

use crate::error::{CliError, Result};

/// The input graph and where it came from.
pub struct LoadedGraph {
    pub(super) storage: Storage,
    /// Seconds spent generating the edges (for a graph file: opening and
    /// verifying it, as the reference times reading its edge file; opened
    /// in slices, only opening it: each trustee's check of its slice counts
    /// as construction).
    pub generation_time: f64,
}

pub(super) enum Storage {
    Generated {
        /// Shared with the build's source (published, not copied).
        list: Arc<EdgeList<'static>>,
        kron: Box<Kronecker>,
    },
    /// A generated graph that no process holds whole: every trustee
    /// generates its own slice while the shards are built
    /// ([`load_streamed`](super::load_streamed)).
    Streamed {
        source: Graph500Source,
        kron: Box<Kronecker>,
    },
    /// A graph file, mapped. The search commands open it in slices
    /// ([`file::open_in_slices`]): every trustee checks and reads only its
    /// slice, and there is no edge list.
    Mapped {
        graph: Arc<MappedGraph>,
        /// `--unit-weights` on a file opened in slices: the meta that says
        /// unweighted (the build reads every weight as 1.0).
        unit_meta: Option<GraphMeta>,
    },
    /// A graph file known by its header (and id table) only: the graph
    /// itself comes from prepared shards (`--prepared`).
    Described {
        header: file::GraphHeader,
        meta: GraphMeta,
    },
    /// A built graph file ([`graph_core::io::built`]), mapped: the
    /// trustees take their shards from it instead of building them.
    Built {
        graph: Arc<BuiltGraph>,
        /// The edges read back from the rows, for the commands that check
        /// their answer against a list ([`load`](fn@super::load)).
        list: Option<Arc<EdgeList<'static>>>,
        /// `--unit-weights` on a weighted file: the meta that says
        /// unweighted (the trustees read every weight as 1.0).
        unit_meta: Option<GraphMeta>,
    },
    /// Read from another tool's format (or re-weighted by `--unit-weights`).
    Parsed {
        list: Arc<EdgeList<'static>>,
        meta: GraphMeta,
    },
}

/// Where the kernels' graph is built from (see [`LoadedGraph::build_source`]).
#[derive(Clone, Debug)]
pub enum BuildSource {
    /// Every trustee generates its slice.
    Graph500(Graph500Source),
    /// Every process holds the records (mapped or parsed); each trustee
    /// reads its slice.
    Local(LocalSource),
    /// Every trustee takes its shard from a built graph file.
    Built {
        /// The file (absolute).
        path: std::path::PathBuf,
        /// Every weight 1.0 (`--unit-weights`).
        unit: bool,
        /// Take the shards from the file's ready rows for this layout when
        /// there are some (`gossamer-graph ready`; BFS and SSSP runs).
        ready: bool,
    },
    /// Every trustee maps its shard saved in `dir` (`--prepared`).
    Prepared {
        /// The directory of the shard files.
        dir: std::path::PathBuf,
        /// The graph the shards must be of.
        graph: GraphIdentity,
    },
}

impl BuildSource {
    /// Drops this process's entry in the table of published records (a
    /// no-op for generated graphs).
    pub fn withdraw(&self) {
        if let BuildSource::Local(s) = self {
            s.withdraw();
        }
    }
}

/// Kernels that refuse directed graphs ([`LoadedGraph::check_kernel`]).
const DIRECTED_REFUSED: [&str; 1] = ["tc"];

/// The Graph500 generator's graphs: undirected, weighted, ids as they are.
static GENERATED_META: std::sync::LazyLock<GraphMeta> =
    std::sync::LazyLock::new(GraphMeta::default);

impl LoadedGraph {
    /// The edge list (borrowed, zero-copy).
    ///
    /// # Panics
    ///
    /// On a streamed graph or a graph file opened in slices
    /// ([`load_streamed`](super::load_streamed)), which no process holds (or has checked)
    /// whole; the commands that load one never ask.
    pub fn edge_list(&self) -> EdgeList<'_> {
        match &self.storage {
            Storage::Generated { list, .. } => list.clone_view(),
            Storage::Streamed { .. } => {
                panic!("a streamed graph has no edge list: load it with graph::load")
            }
            Storage::Mapped { graph, .. } => graph.edge_list(),
            Storage::Described { .. } => {
                panic!("a graph run from prepared shards has no edge list")
            }
            Storage::Parsed { list, .. } => list.clone_view(),
            Storage::Built { list: Some(l), .. } => l.clone_view(),
            Storage::Built { list: None, .. } => {
                panic!("a built graph file mapped for its shards has no edge list: load it with graph::load")
            }
        }
    }

    /// Whether [`edge_list`](Self::edge_list) can be called: a generated,
    /// parsed or wholly mapped (and checked) list, not one streamed or
    /// opened in slices.
    pub fn holds_edge_list(&self) -> bool {
        match &self.storage {
            Storage::Generated { .. } | Storage::Parsed { .. } => true,
            Storage::Mapped { graph, .. } => graph.is_verified(),
            Storage::Built { list, .. } => list.is_some(),
            Storage::Streamed { .. } | Storage::Described { .. } => false,
        }
    }

    /// The built graph file, when the graph is one: its rows serve the
    /// checks that can read rows instead of a list
    /// ([`BuiltGraph::for_each_row`]).
    pub fn built_file(&self) -> Option<&BuiltGraph> {
        match &self.storage {
            Storage::Built { graph, .. } => Some(graph),
            _ => None,
        }
    }

    /// Whether the graph is a built graph file, whose rows each trustee of
    /// a block partition maps in place (other partitions copy them).
    pub fn is_built(&self) -> bool {
        matches!(self.storage, Storage::Built { .. })
    }

    /// What the kernels' graph is built from, slice by slice on every
    /// trustee. For records this process holds, this publishes them in the
    /// process's table (call it once per run on every rank, in the same
    /// order; [`BuildSource::withdraw`] after the run).
    pub fn build_source(&self) -> BuildSource {
        match &self.storage {
            Storage::Streamed { source, .. } => BuildSource::Graph500(*source),
            Storage::Generated { list, .. } => {
                // `bc` choosing its sources (the search commands stream
                // generated graphs): the table shares the list.
                BuildSource::Local(LocalSource::publish(list.clone()))
            }
            Storage::Mapped { graph, unit_meta } => {
                let source = LocalSource::publish(graph.clone());
                BuildSource::Local(match unit_meta {
                    Some(_) => source.with_unit_weights(),
                    None => source,
                })
            }
            Storage::Described { .. } => {
                panic!("a graph known by its header only is built from prepared shards")
            }
            Storage::Parsed { list, meta } => {
                BuildSource::Local(LocalSource::publish(list.clone()).with_direction(meta.directed))
            }
            Storage::Built {
                graph, unit_meta, ..
            } => BuildSource::Built {
                path: std::path::absolute(graph.path()).unwrap_or_else(|_| graph.path().into()),
                unit: unit_meta.is_some(),
                ready: false,
            },
        }
    }

    /// Directed or not, weighted or not, the input file's ids.
    pub fn meta(&self) -> &GraphMeta {
        match &self.storage {
            Storage::Generated { .. } | Storage::Streamed { .. } => &GENERATED_META,
            Storage::Mapped { graph, unit_meta } => unit_meta.as_ref().unwrap_or(graph.meta()),
            Storage::Described { meta, .. } => meta,
            Storage::Parsed { meta, .. } => meta,
            Storage::Built {
                graph, unit_meta, ..
            } => unit_meta.as_ref().unwrap_or(graph.meta()),
        }
    }

    /// Refuses what `kernel` cannot run on: directed graphs for `tc` (the
    /// others follow arcs: BFS, SSSP and BC out-arcs, CC weak components,
    /// PageRank in-arcs), and unweighted graphs when it needs
    /// weights (SSSP) unless `--unit-weights` was given (then call
    /// [`LoadedGraph::with_unit_weights`]).
    pub fn check_kernel(
        &self,
        kernel: &str,
        needs_weights: bool,
        unit_weights: bool,
    ) -> Result<()> {
        let meta = self.meta();
        if meta.directed && DIRECTED_REFUSED.contains(&kernel) {
            return Err(CliError::new(format!(
                "{kernel} does not run on directed graphs: triangles are counted on undirected graphs (as GAPBS's tc); convert with --undirected to symmetrize (or pass --undirected with a text --graph file)"
            )));
        }
        if needs_weights && !meta.weighted && !unit_weights {
            return Err(CliError::new(format!(
                "the graph is unweighted, and {kernel} needs edge weights: pass --unit-weights to give every edge weight 1.0"
            )));
        }
        Ok(())
    }

    /// The graph with every weight 1.0 (`--unit-weights`): unchanged when
    /// it is unweighted (its records already carry 1.0), else a copy.
    /// Choose the roots first: the copy no longer knows a generated
    /// graph's Graph500 roots.
    pub fn with_unit_weights(self) -> LoadedGraph {
        if let Storage::Streamed { source, kron } = self.storage {
            return LoadedGraph {
                storage: Storage::Streamed {
                    source: source.with_unit_weights(),
                    kron,
                },
                generation_time: self.generation_time,
            };
        }
        if !self.meta().weighted {
            return self;
        }
        if let Storage::Built { graph, list, .. } = self.storage {
            // The trustees read every weight as 1.0; a list read back for
            // the checks carries 1.0 too.
            let list = list.map(|l| {
                let edges = l
                    .edges()
                    .par_iter()
                    .map(|e| PackedEdge::new(e.u, e.v, 1.0))
                    .collect();
                Arc::new(EdgeList::from_edges(l.num_vertices(), edges).expect("the same counts"))
            });
            let unit_meta = Some(GraphMeta {
                weighted: false,
                ..graph.meta().clone()
            });
            return LoadedGraph {
                storage: Storage::Built {
                    graph,
                    list,
                    unit_meta,
                },
                generation_time: self.generation_time,
            };
        }
        if let Storage::Mapped {
            graph,
            unit_meta: None,
        } = &self.storage
        {
            if !graph.is_verified() {
                // Opened in slices: the build reads every weight as 1.0.
                let unit_meta = Some(GraphMeta {
                    weighted: false,
                    ..graph.meta().clone()
                });
                return LoadedGraph {
                    storage: Storage::Mapped {
                        graph: graph.clone(),
                        unit_meta,
                    },
                    generation_time: self.generation_time,
                };
            }
        }
        if let Storage::Described { header, meta } = self.storage {
            // The prepared shards carry the weights (the identity says unit).
            return LoadedGraph {
                storage: Storage::Described {
                    header,
                    meta: GraphMeta {
                        weighted: false,
                        ..meta
                    },
                },
                generation_time: self.generation_time,
            };
        }
        let n = self.num_vertices();
        let edges: Vec<PackedEdge> = self
            .edge_list()
            .edges()
            .par_iter()
            .map(|e| PackedEdge::new(e.u, e.v, 1.0))
            .collect();
        let meta = GraphMeta {
            weighted: false,
            ..self.meta().clone()
        };
        let list = match self.params() {
            Some(p) => EdgeList::from_graph500(p, edges),
            None => EdgeList::from_edges(n, edges),
        }
        .expect("the counts were valid for the same records");
        LoadedGraph {
            storage: Storage::Parsed {
                list: Arc::new(list),
                meta,
            },
            generation_time: self.generation_time,
        }
    }

    /// Number of vertices.
    pub fn num_vertices(&self) -> u64 {
        match &self.storage {
            Storage::Generated { list, .. } => list.num_vertices(),
            Storage::Streamed { kron, .. } => kron.num_vertices(),
            Storage::Mapped { graph: m, .. } => m.header().num_vertices,
            Storage::Described { header, .. } => header.num_vertices,
            Storage::Parsed { list, .. } => list.num_vertices(),
            Storage::Built { graph, .. } => graph.header().num_vertices,
        }
    }

    /// Number of edge records.
    pub fn num_edges(&self) -> u64 {
        match &self.storage {
            Storage::Generated { list, .. } => list.num_edges(),
            Storage::Streamed { kron, .. } => kron.num_edges(),
            Storage::Mapped { graph: m, .. } => m.header().num_edges,
            Storage::Described { header, .. } => header.num_edges,
            Storage::Parsed { list, .. } => list.num_edges(),
            Storage::Built { graph, .. } => graph.header().num_edges,
        }
    }

    /// Graph500 parameters, if known.
    pub fn params(&self) -> Option<Graph500Params> {
        match &self.storage {
            Storage::Generated { list, .. } => list.params(),
            Storage::Streamed { source, .. } => {
                let c = source.config();
                Some(Graph500Params {
                    scale: c.scale,
                    edgefactor: c.edgefactor,
                    seed1: c.seed1,
                    seed2: c.seed2,
                })
            }
            Storage::Mapped { graph: m, .. } => m.header().params,
            Storage::Described { header, .. } => header.params,
            Storage::Parsed { list, .. } => list.params(),
            Storage::Built { graph, .. } => graph.header().params,
        }
    }

    /// SCALE: from the parameters, or log2 of a power-of-two vertex count.
    pub fn scale(&self) -> Option<u32> {
        self.params().map(|p| p.scale).or_else(|| {
            let n = self.num_vertices();
            n.is_power_of_two().then(|| n.trailing_zeros())
        })
    }

    /// Edgefactor: from the parameters, or edges / vertices.
    pub fn edgefactor(&self) -> Option<u32> {
        self.params().map(|p| p.edgefactor).or_else(|| {
            let n = self.num_vertices();
            (n > 0)
                .then(|| self.num_edges() / n)
                .and_then(|e| u32::try_from(e).ok())
        })
    }
}

impl LoadedGraph {
    /// Whether the graph is generated slice by slice during construction
    /// (its generation time is then measured there).
    pub fn is_streamed(&self) -> bool {
        matches!(self.storage, Storage::Streamed { .. })
    }

    /// Which graph this is, as prepared shards record it: the generator's
    /// parameters, or the graph file's data checksum; `unit_weights` as
    /// the run asks (it changes nothing on an unweighted graph). Call
    /// before [`Self::with_unit_weights`]. Graphs read from another
    /// tool's format have no identity short of parsing them: refused.
    pub fn identity(&self, unit_weights: bool) -> Result<GraphIdentity> {
        let file_checksum = match &self.storage {
            Storage::Mapped { graph: m, .. } => Some(m.header().data_checksum),
            Storage::Described { header, .. } => Some(header.data_checksum),
            Storage::Generated { .. } | Storage::Streamed { .. } => None,
            Storage::Built { .. } => {
                return Err(CliError::new(
                    "--save-prepared and --prepared are for graph files and generated graphs: a built graph file is mapped by every run, whatever its --ranks, --threads and --partition, so drop the option",
                ))
            }
            Storage::Parsed { .. } => {
                return Err(CliError::new(
                    "--save-prepared and --prepared need a generated graph (--scale) or a graph file: convert the text file once with `gossamer-graph convert`, then pass --graph GRAPH.ggraph",
                ))
            }
        };
        Ok(GraphIdentity {
            num_vertices: self.num_vertices(),
            num_edges: self.num_edges(),
            params: self.params(),
            file_checksum,
            unit_weights: unit_weights && self.meta().weighted,
            directed: self.meta().directed,
        })
    }
}

trait CloneView {
    fn clone_view(&self) -> EdgeList<'_>;
}

impl CloneView for EdgeList<'static> {
    /// A borrowed view of an owned list (no copy).
    fn clone_view(&self) -> EdgeList<'_> {
        match self.params() {
            Some(p) => EdgeList::from_graph500(p, self.edges())
                .expect("an owned Graph500 list re-borrows with the same counts"),
            None => EdgeList::borrowed(self.num_vertices(), self.edges())
                .expect("an owned list re-borrows with the same vertex count"),
        }
    }
}
