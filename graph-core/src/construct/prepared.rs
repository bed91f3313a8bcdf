//! Prepared graphs on the trustees: [`ShardedGraph::save_prepared`] has
//! every trustee write its shard's file ([`crate::io::prepared`]) and
//! commit it once all have written theirs;
//! [`ShardedGraph::open_prepared`] has every trustee map its file instead
//! of building.

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::exchange::{agree, first_failure};
use super::passes::BuildTimes;
use crate::csr::Shard;
use crate::io::file::Staged;
use crate::io::prepared::{commit, file_name, open, stage, Expected, GraphIdentity};
use crate::partition::{Partition, PartitionKind};
use crate::sharded::{in_fiber, KernelError, ShardedGraph, TrusteeCtx};

/// Per-trustee state of a save: the staged file, or why it failed.
#[derive(Default)]
struct Saving {
    staged: Option<Staged>,
    error: Option<String>,
}

impl ShardedGraph {
    /// Every trustee writes its shard to `dir/`[`file_name`]`(t, W)` in
    /// its own process, for `graph`. The files are renamed into place
    /// only once every trustee has written and synced its own; on any
    /// failure no new file is left behind. `dir` must exist (on every
    /// rank: shared, or the same path on each host). Call from a fiber.
    pub fn save_prepared(&self, dir: &Path, graph: &GraphIdentity) -> Result<(), KernelError> {
        in_fiber("ShardedGraph::save_prepared")?;
        // A file holds global ids, in input order.
        self.check_global_ids("saving prepared shards")?;
        if !self.is_weighted() {
            return Err(KernelError::Config(
                "the shards were built without weights, and a prepared-shard file keeps them: build the graph with its weights to save it".into(),
            ));
        }
        if graph.directed != self.is_directed() {
            return Err(KernelError::Config(format!(
                "the graph identity says {}directed, but the shards were built {}directed",
                if graph.directed { "" } else { "un" },
                if self.is_directed() { "" } else { "un" },
            )));
        }
        let outcomes = self.on_trustees_with((dir.to_path_buf(), graph.clone()), save_on_trustee);
        first_failure(outcomes).map(|_| ())
    }

    /// The graph of the shards saved in `dir` by [`save_prepared`](Self::save_prepared):
    /// every trustee maps and verifies its own file (see [`open`]).
    /// Refused when a file is missing, damaged or belongs to another run
    /// (trustee count, `kind`, `graph`). Call from a fiber.
    pub fn open_prepared(
        dir: &Path,
        graph: &GraphIdentity,
        kind: PartitionKind,
    ) -> Result<(Self, BuildTimes), KernelError> {
        let start = Instant::now();
        let workers = in_fiber("ShardedGraph::open_prepared")?;
        let n = graph.num_vertices;
        if n > u64::from(u32::MAX) + 1 {
            return Err(KernelError::Config(format!(
                "the graph has {n} vertices; vertex ids are 32-bit, so at most 2^32"
            )));
        }
        let partition = Partition::new(kind, n, 1, workers as u32)?;
        let mut g = ShardedGraph::with_placeholders(partition, graph.num_edges);
        g.set_directed(graph.directed);
        let outcomes = g.on_trustees_with((dir.to_path_buf(), graph.clone()), open_on_trustee);
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

fn save_on_trustee(
    mut ctx: TrusteeCtx,
    (dir, graph): (PathBuf, GraphIdentity),
) -> Result<(), String> {
    let path = dir.join(file_name(ctx.me, ctx.partition.num_trustees()));
    let written = ctx.local.apply_with(
        |s, (path, graph): (PathBuf, GraphIdentity)| {
            let staged = stage(&path, s.shard(), &graph);
            let st = s.kernel::<Saving>(|_| Saving::default()).1;
            match staged {
                Ok(x) => st.staged = Some(x),
                Err(e) => st.error = Some(e.to_string()),
            }
            st.error.is_none()
        },
        (path.clone(), graph),
    );
    let failed = (!written).then(|| {
        ctx.local
            .apply_returning(|s| s.kernel::<Saving>(|_| Saving::default()).1.error.take())
            .unwrap_or_default()
    });
    let all_written = agree(&mut ctx, failed, "write its prepared shard");
    let go = all_written.is_ok();
    // Commit, or drop the staged file (which removes it).
    let committed = ctx.local.apply_with(
        move |s, path: PathBuf| {
            let staged = std::mem::take(s.kernel::<Saving>(|_| Saving::default()).1).staged;
            s.drop_kernel::<Saving>();
            match staged {
                Some(x) if go => commit(x, &path).is_ok(),
                _ => true,
            }
        },
        path.clone(),
    );
    all_written?;
    if !committed {
        return Err(format!(
            "could not rename prepared shard {} into place",
            path.display()
        ));
    }
    Ok(())
}

fn open_on_trustee(
    mut ctx: TrusteeCtx,
    (dir, graph): (PathBuf, GraphIdentity),
) -> Result<(), String> {
    let w = ctx.partition.num_trustees();
    let path = dir.join(file_name(ctx.me, w));
    let want = Expected {
        kind: ctx.partition.kind(),
        trustees: w,
        trustee: ctx.me,
        graph,
    };
    let opened = open(&path, &want, &ctx.partition).map_err(|e| e.to_string());
    agree(
        &mut ctx,
        opened.as_ref().err().cloned(),
        "open its prepared shard",
    )?;
    let shard = opened.expect("checked by agree");
    ctx.local
        .apply_with(|s, shard: Shard| s.replace_shard(shard), shard);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::construct::LocalSource;
    use crate::io::prepared::testing::{directed_identity, identity, list, scratch};

    #[test]
    fn directed_shards_reopen_in_a_runtime() {
        let d = scratch("directed-runtime");
        let source = LocalSource::publish_list(list()).with_direction(true);
        let dir = d.clone();
        let (built, mapped, directed) = gossamer::main(2, move || {
            let (g, _) = ShardedGraph::build_from(source, PartitionKind::Block).unwrap();
            assert!(g.is_directed());
            // The identity must say what the shards are.
            assert!(g.save_prepared(&dir, &identity()).is_err());
            g.save_prepared(&dir, &directed_identity()).unwrap();
            let built = g.on_trustees(|ctx| ctx.local.apply_returning(|s| s.shard().clone()));
            let (m, _) =
                ShardedGraph::open_prepared(&dir, &directed_identity(), PartitionKind::Block)
                    .unwrap();
            let mapped = m.on_trustees(|ctx| ctx.local.apply_returning(|s| s.shard().clone()));
            (built, mapped, m.is_directed())
        });
        source.withdraw();
        assert!(directed);
        assert_eq!(built, mapped);
        assert!(mapped.iter().all(|s| s.is_mapped() && s.is_directed()));
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn saved_shards_reopen_in_a_runtime() {
        let d = scratch("runtime");
        for kind in [PartitionKind::Block, PartitionKind::Cyclic] {
            let source = LocalSource::publish_list(list());
            let dir = d.clone();
            let (built, mapped) = gossamer::main(2, move || {
                let (g, _) = ShardedGraph::build_from(source, kind).unwrap();
                g.save_prepared(&dir, &identity()).unwrap();
                let built = g.on_trustees(|ctx| ctx.local.apply_returning(|s| s.shard().clone()));
                let (m, _) = ShardedGraph::open_prepared(&dir, &identity(), kind).unwrap();
                assert_eq!(m.num_edges_input(), 500);
                let mapped = m.on_trustees(|ctx| {
                    ctx.local
                        .apply_returning(|s| (s.shard().is_mapped(), s.shard().clone()))
                });
                // Another trustee count finds no files of its own.
                (built, mapped)
            });
            source.withdraw();
            assert!(mapped.iter().all(|(m, _)| *m));
            let mapped: Vec<Shard> = mapped.into_iter().map(|(_, s)| s).collect();
            assert_eq!(built, mapped, "{kind:?}");
        }
        let dir = d.clone();
        let e = gossamer::main(3, move || {
            ShardedGraph::open_prepared(&dir, &identity(), PartitionKind::Block).unwrap_err()
        });
        assert!(
            e.to_string().contains(
                "holds the shards of a run with 2 trustees (ranks x threads), this run has 3"
            ),
            "{e}"
        );
        let names: Vec<_> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 2, "no temporary files left: {names:?}");
        let _ = std::fs::remove_dir_all(&d);
    }
}
