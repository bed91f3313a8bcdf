//! A built graph file on the trustees: [`ShardedGraph::open_built`] has
//! every trustee take its shard from the file (mapped once per process)
//! instead of building it (the file is [`crate::io::built`]).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};
use std::time::Instant;

use super::exchange::{agree, first_failure};
use super::passes::BuildTimes;
use crate::io::built::{self, ready_path, BuiltError, BuiltGraph, ReadyError, ReadyRows, Weights};
use crate::partition::{Partition, PartitionKind};
use crate::sharded::{in_fiber, KernelError, ShardedGraph, TrusteeCtx};

/// The built files this process has open, so that its trustees share one
/// mapping (and check each chunk once); an entry lives while a trustee
/// (or the caller) holds it.
static OPENED: Mutex<Vec<(PathBuf, Weak<BuiltGraph>)>> = Mutex::new(Vec::new());

/// The ready-rows files this process has open (as [`OPENED`]).
static READY: Mutex<Vec<(PathBuf, Weak<ReadyRows>)>> = Mutex::new(Vec::new());

/// The file at `path` from `table` if anyone in this process still holds
/// it, else `open`ed and noted there.
fn open_once<T, E>(
    table: &Mutex<Vec<(PathBuf, Weak<T>)>>,
    path: &Path,
    open: impl FnOnce() -> Result<T, E>,
) -> Result<Arc<T>, E> {
    let mut opened = table.lock().unwrap_or_else(|e| e.into_inner());
    opened.retain(|(_, g)| g.strong_count() > 0);
    if let Some(g) = opened
        .iter()
        .filter(|(p, _)| p == path)
        .find_map(|(_, g)| g.upgrade())
    {
        return Ok(g);
    }
    let g = Arc::new(open()?);
    opened.push((path.to_path_buf(), Arc::downgrade(&g)));
    Ok(g)
}

/// The built file at `path`, opened once per process while anyone holds it.
fn shared(path: &Path) -> Result<Arc<BuiltGraph>, BuiltError> {
    open_once(&OPENED, path, || built::open(path))
}

/// The ready rows at `path` for `built`, opened once per process.
fn shared_ready(path: &Path, built: &BuiltGraph) -> Result<Arc<ReadyRows>, ReadyError> {
    open_once(&READY, path, || ReadyRows::open(path, built))
}

/// Whether a run took its shards from a built file's ready rows
/// ([`crate::io::built::ReadyRows`]), and if not, why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadyUse {
    /// Not asked for.
    NotAsked,
    /// Taken from this file.
    Mapped(PathBuf),
    /// No ready rows for this run's trustee count (this file is absent).
    Absent(PathBuf),
    /// The file exists but does not serve this run (why).
    NotForThisRun(PathBuf, &'static str),
}

impl ShardedGraph {
    /// [`open_built`](Self::open_built), taking every trustee's shard from
    /// the built file's ready rows when `ready` and they serve this run
    /// (`FILE.w<trustees>.ready`, [`ready_path`]: a block partition, or one
    /// trustee; an undirected graph; stored weights or none): BFS's rows
    /// (unweighted) or SSSP's split (`Weights::Stored`), views of that
    /// file, so that the kernels' preparation is O(vertices). Otherwise,
    /// or when the file lacks what the run needs, the built file's rows as
    /// [`open_built`](Self::open_built) takes them; the [`ReadyUse`] says
    /// which. A ready-rows file that is there but damaged, truncated, of
    /// another version or written for another built file is refused with
    /// what to do.
    pub fn open_built_ready(
        path: &Path,
        kind: PartitionKind,
        weights: Weights,
        ready: bool,
    ) -> Result<(Self, BuildTimes, ReadyUse), KernelError> {
        let start = Instant::now();
        let workers = in_fiber("ShardedGraph::open_built")?;
        let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let here = shared(&path).map_err(|e| KernelError::Runtime(e.to_string()))?;
        let h = here.header();
        let partition = Partition::new(kind, h.num_vertices, 1, workers as u32)?;
        let side = ready_path(&path, partition.num_trustees());
        let why_not = if !ready {
            Some(ReadyUse::NotAsked)
        } else if !side.exists() {
            Some(ReadyUse::Absent(side.clone()))
        } else if kind != PartitionKind::Block && partition.num_trustees() > 1 {
            Some(ReadyUse::NotForThisRun(
                side.clone(),
                "the partition is not block",
            ))
        } else if h.directed {
            Some(ReadyUse::NotForThisRun(
                side.clone(),
                "the graph is directed",
            ))
        } else if weights == Weights::Unit {
            Some(ReadyUse::NotForThisRun(
                side.clone(),
                "the run asks for unit weights",
            ))
        } else {
            None
        };
        let side_rows = match why_not {
            Some(_) => None,
            None => {
                let r =
                    shared_ready(&side, &here).map_err(|e| KernelError::Runtime(e.to_string()))?;
                (weights == Weights::Skip || r.has_split()).then_some(r)
            }
        };
        let used = match (&why_not, &side_rows) {
            (Some(u), _) => u.clone(),
            (None, Some(_)) => ReadyUse::Mapped(side.clone()),
            (None, None) => ReadyUse::NotForThisRun(side.clone(), "it holds no split for SSSP"),
        };
        let mut g = ShardedGraph::with_placeholders(partition, h.num_edges);
        g.set_directed(h.directed);
        g.set_weighted(weights != Weights::Skip);
        let take = side_rows.as_ref().map(|_| side.clone());
        let outcomes = g.on_trustees_with((path, weights, take), open_on_trustee);
        drop(side_rows);
        drop(here);
        first_failure(outcomes)?;
        let total_s = start.elapsed().as_secs_f64();
        Ok((
            g,
            BuildTimes {
                read_s: total_s,
                total_s,
            },
            used,
        ))
    }

    /// The graph of the built file at `path` ([`crate::io::built`]), on
    /// every trustee of this runtime with `kind`'s partition: each
    /// trustee takes its shard from the file, mapped once per process,
    /// instead of building it ([`BuiltGraph::shard`]: views of the mapping
    /// under a block partition, its rows copied under a cyclic one), with
    /// `weights`. Every rank must be able to open `path` (a shared
    /// filesystem, or the same file on each host). Call from a fiber.
    pub fn open_built(
        path: &Path,
        kind: PartitionKind,
        weights: Weights,
    ) -> Result<(Self, BuildTimes), KernelError> {
        let (g, times, _) = Self::open_built_ready(path, kind, weights, false)?;
        Ok((g, times))
    }
}

fn open_on_trustee(
    mut ctx: TrusteeCtx,
    (path, weights, ready): (PathBuf, Weights, Option<PathBuf>),
) -> Result<(), String> {
    let taken = shared(&path)
        .map_err(|e| e.to_string())
        .and_then(|g| match &ready {
            Some(side) => shared_ready(side, &g)
                .and_then(|r| r.shard(&g, &ctx.partition, ctx.me, weights != Weights::Skip))
                .map_err(|e| e.to_string()),
            None => g
                .shard(&ctx.partition, ctx.me, weights)
                .map_err(|e| e.to_string()),
        });
    agree(
        &mut ctx,
        taken.as_ref().err().cloned(),
        "take its rows of the built graph",
    )?;
    let shard = taken.expect("checked by agree");
    ctx.local
        .apply_with(|s, shard: crate::csr::Shard| s.replace_shard(shard), shard);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr::{build_rank_with, Shard};
    use crate::io::built::tests::{graph, scratch};
    use crate::meta::{GraphMeta, IdMap};

    #[test]
    fn every_trustee_takes_its_shard_in_a_runtime() {
        let d = scratch("runtime");
        for directed in [false, true] {
            let list = graph(300, 5000, 7, true);
            let path = d.join(format!("g-{directed}"));
            let meta = GraphMeta {
                directed,
                weighted: true,
                ids: IdMap::Offset(0),
            };
            built::write(&path, &list, &meta, &[], None).unwrap();
            for threads in [1, 3] {
                for kind in [PartitionKind::Block, PartitionKind::Cyclic] {
                    let p = Partition::new(kind, 300, 1, threads as u32).unwrap();
                    let want = build_rank_with(&list, &p, 0, directed).unwrap();
                    let path = path.clone();
                    let (got, unweighted) = gossamer::main(threads, move || {
                        let shards = |g: &ShardedGraph| {
                            g.on_trustees(|ctx| ctx.local.apply_returning(|s| s.shard().clone()))
                        };
                        let (g, _) =
                            ShardedGraph::open_built(&path, kind, Weights::Stored).unwrap();
                        assert_eq!(g.is_directed(), directed);
                        assert!(g.is_weighted());
                        assert_eq!(g.num_edges_input(), 5000);
                        let (u, _) = ShardedGraph::open_built(&path, kind, Weights::Skip).unwrap();
                        assert!(!u.is_weighted());
                        (shards(&g), shards(&u))
                    });
                    let what = format!("{kind:?}, {threads} threads, directed {directed}");
                    assert_eq!(got, want, "{what}");
                    let bare: Vec<Shard> = want.into_iter().map(Shard::without_weights).collect();
                    assert_eq!(unweighted, bare, "{what}");
                }
            }
        }
        // A damaged file fails the open everywhere, with the file's error.
        let path = d.join("g-false");
        let mut bytes = std::fs::read(&path).unwrap();
        let at = bytes.len() - 8 * 2 - 4096;
        bytes[at] ^= 1;
        let bad = d.join("bad");
        std::fs::write(&bad, &bytes).unwrap();
        let e = gossamer::main(2, move || {
            ShardedGraph::open_built(&bad, PartitionKind::Block, Weights::Stored).unwrap_err()
        });
        assert!(e.to_string().contains("do not match their checksum"), "{e}");
        let _ = std::fs::remove_dir_all(&d);
    }
}
