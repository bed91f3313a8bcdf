//! The `gossamer-graph` command: generate Graph500 graphs, run SSSP and BFS
//! on the Gossamer delegation runtime, validate, and report TEPS.
//!
//! Modules: [`args`] (syntax and help), one module per subcommand
//! ([`generate`], [`sssp`], [`bfs`], [`graph500`]), and the shared parts:
//! [`graph`] (input graph, memory check, roots), [`search`] (running and
//! validating searches), [`engine`] (adapter to the kernels), [`output`]
//! (files and reports), [`stats`] and [`cfmt`] (Graph500 statistics and
//! C `%g` numbers), [`progress`] and [`error`].

mod args;
mod bfs;
mod cfmt;
mod engine;
mod error;
mod generate;
mod graph;
mod graph500;
mod output;
mod progress;
mod search;
mod single;
mod sssp;
mod stats;

use clap::Parser;

use args::{Cli, Command};

fn main() {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Generate(a) => generate::run(a),
        Command::Sssp(a) => sssp::run(a),
        Command::Bfs(a) => bfs::run(a),
        Command::Graph500(a) => graph500::run(a),
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
