//! The adapter between the command and the kernels: build the sharded
//! graph, run one SSSP or BFS, hand back plain arrays. Everything here runs
//! inside a Gossamer runtime (`Runtime::run`).

use std::time::Instant;

use bfs::{BfsConfig, BfsMode};
use graph_core::construct::{BuildTimes, ReadyUse, Unweighted};
use graph_core::io::built::Weights;
use graph_core::sharded::ShardedGraph;
use graph_core::{EdgeList, PartitionKind};
use sssp::{SsspConfig, WeightProfile};
use std::sync::OnceLock;

use crate::args::{BfsModeArg, RowsArg};
use crate::error::Result;
use crate::graph::BuildSource;
use crate::record::DeltaChoice;

/// Builds the kernels' sharded graph and drops it: the construction step
/// alone, for measurements. Returns the seconds the build took.
pub fn construct_only(list: &EdgeList<'_>, kind: PartitionKind) -> Result<f64> {
    let start = Instant::now();
    let graph = ShardedGraph::build(list, kind)?;
    let seconds = start.elapsed().as_secs_f64();
    drop(graph);
    Ok(seconds)
}

/// The graph as the kernels see it: one shard per Gossamer worker.
pub struct Engine {
    graph: ShardedGraph,
    /// SSSP's weight profile, computed on the first SSSP without `--delta`.
    profile: OnceLock<WeightProfile>,
    /// Whether the shards came from a built file's ready rows.
    ready_use: ReadyUse,
}

/// One SSSP answer.
pub struct SsspRun {
    /// Distance per vertex, `+inf` where unreached.
    pub dist: Vec<f32>,
    /// Parent per vertex, `NO_PARENT` where unreached.
    pub parent: Vec<u64>,
    /// Seconds in the kernel (as the kernel measures it).
    pub time_s: f64,
}

/// One BFS answer, in 4 bytes a vertex each (the gathering rank's peak).
pub struct BfsRun {
    /// Parent per vertex, `u32::MAX` where unreached.
    pub parent: Vec<u32>,
    /// Level per vertex, `-1` where unreached.
    pub level: Vec<i32>,
    /// Seconds in the kernel (as the kernel measures it).
    pub time_s: f64,
}

impl Engine {
    /// Builds the shards from `source` on every trustee at once (each
    /// reads its own slice; see [`graph_core::construct`]), without their
    /// weights unless `weighted` (only SSSP reads them, and a prepared-shard
    /// file keeps them), or has every trustee map its saved shard
    /// ([`graph_core::io::prepared`]), or take its shard from a built graph
    /// file ([`graph_core::io::built`]: the weight section untouched
    /// unless `weighted`).
    pub fn build_from(
        source: BuildSource,
        kind: PartitionKind,
        weighted: bool,
    ) -> Result<(Engine, BuildTimes)> {
        let mut ready_use = ReadyUse::NotAsked;
        let (graph, times) = match source {
            BuildSource::Graph500(s) if weighted => ShardedGraph::build_from(s, kind)?,
            BuildSource::Graph500(s) => ShardedGraph::build_from(Unweighted(s), kind)?,
            BuildSource::Local(s) if weighted => ShardedGraph::build_from(s, kind)?,
            BuildSource::Local(s) => ShardedGraph::build_from(Unweighted(s), kind)?,
            BuildSource::Built { path, unit, ready } => {
                let weights = match (weighted, unit) {
                    (false, _) => Weights::Skip,
                    (true, false) => Weights::Stored,
                    (true, true) => Weights::Unit,
                };
                let (g, times, used) = ShardedGraph::open_built_ready(&path, kind, weights, ready)?;
                ready_use = used;
                (g, times)
            }
            BuildSource::Prepared { dir, graph } => {
                ShardedGraph::open_prepared(&dir, &graph, kind)?
            }
        };
        Ok((
            Engine {
                graph,
                profile: OnceLock::new(),
                ready_use,
            },
            times,
        ))
    }

    /// Whether the shards came from a built file's ready rows, and if not
    /// why ([`ShardedGraph::open_built_ready`]).
    pub fn ready_use(&self) -> &ReadyUse {
        &self.ready_use
    }

    /// Gives the blocks the owners of `next` in memory
    /// ([`ShardedGraph::move_blocks`]); the kernels prepare again on their
    /// next search. SSSP's weight profile does not depend on the owners
    /// and stays.
    pub fn move_blocks(
        &mut self,
        next: graph_core::Partition,
    ) -> Result<graph_core::construct::Moved> {
        Ok(self.graph.move_blocks(next)?)
    }

    /// The kernels' graph.
    pub fn graph(&self) -> &ShardedGraph {
        &self.graph
    }

    /// Which vertices have an edge to another vertex, as a bitmap by
    /// global id (bit `v % 64` of word `v / 64`): what roots are picked
    /// among.
    pub fn live(&self) -> Vec<u64> {
        graph_core::sharded::non_isolated_sharded(&self.graph)
    }

    /// SSSP's delta: `given`, or derived from the graph's weight range and
    /// average degree ([`sssp::derived_delta`]; the profile is computed
    /// once per graph, each trustee over its shard).
    pub fn sssp_delta(&self, given: Option<f32>) -> DeltaChoice {
        match given {
            Some(value) => DeltaChoice {
                value,
                derived_from: None,
            },
            None => {
                let p = *self.profile.get_or_init(|| self.graph.weight_profile());
                DeltaChoice {
                    value: sssp::derived_delta(&p),
                    derived_from: Some(p),
                }
            }
        }
    }

    /// Delta-stepping shortest paths from `root`; `None` derives delta from
    /// the graph ([`Engine::sssp_delta`]); the split rows' targets stored
    /// as `rows` says (when this is the graph's first search).
    pub fn sssp(&self, root: u64, delta: Option<f32>, rows: RowsArg) -> Result<SsspRun> {
        // In place: the commands that run SSSP run only SSSP and BFS on the
        // graph afterwards, and the copy would be a third of the peak.
        let cfg = SsspConfig {
            in_place: true,
            delta: self.sssp_delta(delta).value,
            rows: rows.format(),
            ..SsspConfig::default()
        };
        let out = sssp::sssp(&self.graph, root, &cfg)?;
        Ok(SsspRun {
            dist: out.dist,
            parent: out.parent,
            time_s: out.kernel_time.as_secs_f64(),
        })
    }

    /// Breadth-first search from `root`, on rows stored as `rows` says
    /// (when this is the graph's first search; see
    /// [`graph_kernel::prepare_with`]).
    pub fn bfs(&self, root: u64, mode: BfsModeArg, rows: RowsArg) -> Result<BfsRun> {
        let cfg = BfsConfig {
            mode: match mode {
                BfsModeArg::Do => BfsMode::DirectionOptimizing,
                BfsModeArg::TopDown => BfsMode::TopDown,
            },
            rows: rows.format(),
            ..BfsConfig::default()
        };
        let out = bfs::bfs_u32(&self.graph, root, &cfg)?;
        Ok(BfsRun {
            parent: out.parent,
            level: out.level,
            time_s: out.kernel_time.as_secs_f64(),
        })
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    fn long_help(sub: &str) -> String {
        let mut cmd = crate::args::Cli::command();
        let help = cmd
            .find_subcommand_mut(sub)
            .unwrap()
            .render_long_help()
            .to_string();
        help.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn help_text_states_the_default_delta() {
        // `sssp` derives delta from the graph: its help states the rule
        // and what it gives on Graph500 weights (the kernel's constant).
        let sssp = long_help("sssp");
        for want in [
            "Default: derived from the graph, max(w_min, w_max / d^2)",
            &format!("about {} on Graph500 graphs", sssp::DEFAULT_DELTA),
        ] {
            assert!(
                sssp.contains(want),
                "sssp --help does not say {want:?}:\n{sssp}"
            );
        }
        let delta_help =
            &sssp[sssp.find("--delta <D>").unwrap()..sssp.find("--unit-weights").unwrap()];
        assert!(!delta_help.contains("[default: "), "{delta_help}");
        // The rule on a Graph500 profile (SCALE 20: 2^20 vertices, about
        // 32 entries each, weights in (0, 1]) is that constant, give or
        // take a few percent.
        let g500 = sssp::WeightProfile {
            min: 1e-7,
            max: 1.0,
            entries: 33_000_000,
            vertices: 1 << 20,
        };
        let d = sssp::derived_delta(&g500);
        assert!((d / sssp::DEFAULT_DELTA - 1.0).abs() < 0.1, "{d}");
        // `graph500` keeps the constant as its default.
        let want = format!("[default: {}]", sssp::DEFAULT_DELTA);
        let g = long_help("graph500");
        assert!(
            g.contains(&want),
            "graph500 --help does not say {want:?}:\n{g}"
        );
    }

    #[test]
    fn readme_and_error_hint_quote_the_kernel_default_delta() {
        // The README's example (on a Graph500 graph) and the error hint
        // must not drift from the constant either (they once said 0.1).
        let readme = include_str!("../../README.md");
        let shown: Vec<&str> = readme
            .split("--delta ")
            .skip(1)
            .filter_map(|rest| rest.split_whitespace().next())
            .collect();
        assert!(!shown.is_empty(), "the README shows no --delta example");
        for v in shown {
            assert_eq!(
                v.parse::<f32>().ok(),
                Some(sssp::DEFAULT_DELTA),
                "the README shows --delta {v}"
            );
        }
        let hint = crate::sssp::check_delta_arg(-1.0).unwrap_err().to_string();
        assert!(
            hint.contains(&format!(
                "e.g. {} (the default for Graph500 weights)",
                sssp::DEFAULT_DELTA
            )),
            "{hint}"
        );
    }
}
