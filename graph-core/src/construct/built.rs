//! A built graph file on the trustees: [`ShardedGraph::open_built`] has
//! every trustee take its shard from the file (mapped once per process)
//! instead of building it (the file is [`crate::io::built`]).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};
use std::time::Instant;

use super::exchange::{agree, first_failure};
use super::passes::BuildTimes;
use crate::io::built::{self, BuiltError, BuiltGraph, Weights};
use crate::partition::{Partition, PartitionKind};
use crate::sharded::{in_fiber, KernelError, ShardedGraph, TrusteeCtx};

/// The built files this process has open, so that its trustees share one
/// mapping (and check each chunk once); an entry lives while a trustee
/// (or the caller) holds it.
static OPENED: Mutex<Vec<(PathBuf, Weak<BuiltGraph>)>> = Mutex::new(Vec::new());

/// The file at `path`, opened once per process while anyone holds it.
fn shared(path: &Path) -> Result<Arc<BuiltGraph>, BuiltError> {
    let mut opened = OPENED.lock().unwrap_or_else(|e| e.into_inner());
    opened.retain(|(_, g)| g.strong_count() > 0);
    if let Some(g) = opened
        .iter()
        .filter(|(p, _)| p == path)
        .find_map(|(_, g)| g.upgrade())
    {
        return Ok(g);
    }
    let g = Arc::new(built::open(path)?);
    opened.push((path.to_path_buf(), Arc::downgrade(&g)));
    Ok(g)
}

impl ShardedGraph {
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
        let start = Instant::now();
        let workers = in_fiber("ShardedGraph::open_built")?;
        let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let here = shared(&path).map_err(|e| KernelError::Runtime(e.to_string()))?;
        let h = here.header();
        let partition = Partition::new(kind, h.num_vertices, 1, workers as u32)?;
        let mut g = ShardedGraph::with_placeholders(partition, h.num_edges);
        g.set_directed(h.directed);
        g.set_weighted(weights != Weights::Skip);
        let outcomes = g.on_trustees_with((path, weights), open_on_trustee);
        drop(here);
        first_failure(outcomes)?;
        let total_s = start.elapsed().as_secs_f64();
        Ok((
            g,
            BuildTimes {
                read_s: total_s,
                total_s,
            },
        ))
    }
}

fn open_on_trustee(mut ctx: TrusteeCtx, (path, weights): (PathBuf, Weights)) -> Result<(), String> {
    let taken = shared(&path)
        .and_then(|g| g.shard(&ctx.partition, ctx.me, weights))
        .map_err(|e| e.to_string());
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
