//! `gossamer-graph bfs`: breadth-first search from one or more roots.

use crate::args::BfsArgs;
use crate::error::Result;
use crate::record::Kernel;
use crate::search::KernelSpec;
use crate::single::{self, Request};

/// Runs the `bfs` command.
pub fn run(args: &BfsArgs) -> Result<()> {
    single::run(Request {
        args: &args.single,
        spec: KernelSpec {
            kernel: Kernel::Bfs {
                mode: args.mode,
                rows: args.rows,
            },
            dump: args.dump_levels.clone(),
        },
        mode: Some(args.mode),
        unit_weights: false,
    })
}
