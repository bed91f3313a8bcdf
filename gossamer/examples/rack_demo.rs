//! A rack run in a few lines: `cargo run --example rack_demo -- --ranks 4 [shm|tcp]`
//! starts 4 processes on this host; each worker of each rank adds to a counter that
//! lives on rank 1.

use gossamer::rack::TransportKind;
use gossamer::{entrust_with, num_workers, on_every_worker_with, Builder, Trust, WorkerId};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--ranks") {
        let n: usize = args[i + 1].parse().expect("--ranks N");
        let rest: Vec<std::ffi::OsString> = args[1..]
            .iter()
            .enumerate()
            .filter(|&(j, _)| j + 1 != i && j + 1 != i + 1)
            .map(|(_, a)| a.into())
            .collect();
        let code = gossamer::rack::launch_local(n, &rest).unwrap_or_else(|e| {
            eprintln!("{e}");
            2
        });
        std::process::exit(code);
    }
    let transport: TransportKind = args
        .get(1)
        .map(|s| s.parse().expect("transport"))
        .unwrap_or(TransportKind::Shm);
    let b = Builder::from_env()
        .unwrap_or_else(|e| panic!("{e}"))
        .threads(2)
        .transport(transport);
    let ranks = b.ranks();
    let r = b.run(move || {
        let n = num_workers();
        let c: Trust<u64> =
            entrust_with(WorkerId(n / ranks.max(2) * (ranks > 1) as usize), || 0u64);
        eprintln!("entrusted on {:?}", c.trustee());
        let got = on_every_worker_with(
            |c: Trust<u64>| {
                let me = gossamer::current_worker().index() as u64;
                for i in 0..500u64 {
                    c.apply_then(move |x| *x += me + i, |()| {});
                }
                gossamer::wait_outstanding();
                me
            },
            c.clone(),
        );
        eprintln!("workers answered: {got:?}");
        c.apply(|x| *x)
    });
    match r {
        Ok(v) => println!("counter = {v}"),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
