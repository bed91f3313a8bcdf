//! `gossamer-graph sssp`: delta-stepping shortest paths from one or more roots.

use crate::args::SsspArgs;
use crate::error::{CliError, Result};
use crate::record::Kernel;
use crate::search::KernelSpec;
use crate::single::{self, Request};

/// Runs the `sssp` command.
pub fn run(args: &SsspArgs) -> Result<()> {
    if let Some(d) = args.delta {
        if !(d.is_finite() && d > 0.0) {
            return Err(CliError::new(format!(
                "--delta {d}: the bucket width must be a positive number (weights are in [0, 1]; try 0.1)"
            )));
        }
    }
    single::run(Request {
        input: &args.input,
        gen: &args.gen,
        roots: &args.roots,
        run: &args.run,
        out: &args.out,
        spec: KernelSpec {
            kernel: Kernel::Sssp { delta: args.delta },
            dump: args.dump_dist.clone(),
        },
        delta: args.delta,
        mode: None,
    })
}
