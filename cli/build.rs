//! Tells the test suite whether Open MPI is here.
//!
//! The MPI cross-check (`tests/mpi_crosscheck.rs`) needs `mpicc` and
//! `mpirun`. Without them its tests are marked ignored with the reason (so
//! `cargo test` names what it skipped and what to install) and this script
//! prints one warning. Under CI (`CI` set) nothing is ignored: a missing
//! install step must fail, not hide.

use std::path::{Path, PathBuf};

fn find(tool: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(tool))
        .find(|p| p.is_file())
}

fn main() {
    println!("cargo::rustc-check-cfg=cfg(gg_skip_mpi)");
    println!("cargo::rerun-if-env-changed=CI");
    println!("cargo::rerun-if-env-changed=PATH");
    let tools = ["mpicc", "mpirun"].map(|t| (t, find(t)));
    for (tool, found) in &tools {
        match found {
            Some(p) => println!("cargo::rerun-if-changed={}", p.display()),
            // A path that does not exist makes Cargo re-run this script on
            // every build, so installing Open MPI later is noticed.
            None => println!(
                "cargo::rerun-if-changed={}",
                Path::new("/usr/bin").join(tool).display()
            ),
        }
    }
    let missing: Vec<&str> = tools
        .iter()
        .filter(|(_, p)| p.is_none())
        .map(|(t, _)| *t)
        .collect();
    if !missing.is_empty() && std::env::var_os("CI").is_none() {
        println!("cargo::rustc-cfg=gg_skip_mpi");
        println!(
            "cargo::warning=Open MPI not found ({} missing): the MPI cross-check tests are \
             ignored; install openmpi-bin libopenmpi-dev to run them (.ci/run does)",
            missing.join(", ")
        );
    }
}
