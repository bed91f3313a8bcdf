//! Fetch-and-add throughput: delegation (`Trust::apply`, `apply_then`) against locking
//! (`std::sync::Mutex`, a test-and-test-and-set spin lock), as in issue 2 item 4.
//!
//! ```text
//! cargo run --release -p gossamer --example fetch_add -- --objects 16 --threads 2 --seconds 2 [--zipf]
//! ```
//!
//! The variants run one after another in this process, each for `--seconds`. Each prints
//! one JSON line: `{"variant":"trust"|"async"|"mutex"|"spin","objects":N,"threads":T,"mops":X}`
//! (millions of increments per second, all threads together).

mod delegation;
mod workload;

use std::process::ExitCode;
use std::time::Duration;

use delegation::Tuning;
use workload::{Budget, Dist};

const USAGE: &str = "\
usage: fetch_add --objects N --threads T --seconds S [--zipf] [--variants LIST]
                 [--fibers K] [--window W]

  --objects N      number of counters, N >= 1 (at most 4294967295)
  --threads T      worker / OS threads, 1 <= T <= gossamer::MAX_THREADS
  --seconds S      run time of each variant in seconds, S > 0 (fractions allowed)
  --zipf           choose counters by Zipf(1) rank instead of uniformly
  --variants LIST  comma-separated subset of trust,async,mutex,spin (default: all)
  --fibers K       client fibers per worker for `trust` (default 8)
  --window W       requests in flight per worker for `async` (default 256)
  --help           print this help

Prints one JSON line per variant:
  {\"variant\":\"trust\",\"objects\":N,\"threads\":T,\"mops\":X}";

/// One way of doing the fetch-and-add.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Variant {
    Trust,
    Async,
    Mutex,
    Spin,
}

impl Variant {
    const ALL: [Variant; 4] = [
        Variant::Trust,
        Variant::Async,
        Variant::Mutex,
        Variant::Spin,
    ];

    fn name(self) -> &'static str {
        match self {
            Variant::Trust => "trust",
            Variant::Async => "async",
            Variant::Mutex => "mutex",
            Variant::Spin => "spin",
        }
    }
}

#[derive(Debug)]
struct Args {
    objects: usize,
    threads: usize,
    seconds: f64,
    dist: Dist,
    variants: Vec<Variant>,
    tuning: Tuning,
}

/// Why the command line was not understood (`Help` is not an error but stops the run).
#[derive(Debug, PartialEq)]
enum ArgError {
    Help,
    Bad(String),
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Args, ArgError> {
    let bad = |m: String| ArgError::Bad(m);
    let (mut objects, mut threads, mut seconds) = (None, None, None);
    let mut dist = Dist::Uniform;
    let mut variants = Variant::ALL.to_vec();
    let mut tuning = Tuning::default();
    while let Some(flag) = args.next() {
        let mut value = |name: &str| {
            args.next()
                .ok_or_else(|| bad(format!("{name} needs a value")))
        };
        match flag.as_str() {
            "--help" | "-h" => return Err(ArgError::Help),
            "--zipf" => dist = Dist::Zipf,
            "--objects" => {
                let v = value("--objects")?;
                let n: u64 = v
                    .parse()
                    .map_err(|_| bad(format!("--objects must be a positive integer, got {v:?}")))?;
                if n == 0 || n > u32::MAX as u64 {
                    return Err(bad(format!(
                        "--objects must be between 1 and {}, got {n}",
                        u32::MAX
                    )));
                }
                objects = Some(n as usize);
            }
            "--threads" => {
                let v = value("--threads")?;
                let n: usize = v
                    .parse()
                    .map_err(|_| bad(format!("--threads must be a positive integer, got {v:?}")))?;
                if n == 0 || n > gossamer::MAX_THREADS {
                    return Err(bad(format!(
                        "--threads must be between 1 and {} (gossamer::MAX_THREADS), got {n}",
                        gossamer::MAX_THREADS
                    )));
                }
                threads = Some(n);
            }
            "--seconds" => {
                let v = value("--seconds")?;
                let s: f64 = v
                    .parse()
                    .map_err(|_| bad(format!("--seconds must be a number, got {v:?}")))?;
                if !(s > 0.0 && s <= 86_400.0) {
                    return Err(bad(format!(
                        "--seconds must be > 0 and at most 86400, got {v}"
                    )));
                }
                seconds = Some(s);
            }
            "--fibers" | "--window" => {
                let v = value(&flag)?;
                let n: u64 = v
                    .parse()
                    .ok()
                    .filter(|&n| (1..=1 << 20).contains(&n))
                    .ok_or_else(|| {
                        bad(format!(
                            "{flag} must be an integer from 1 to 1048576, got {v:?}"
                        ))
                    })?;
                if flag == "--fibers" {
                    tuning.fibers = n as usize;
                } else {
                    tuning.window = n;
                }
            }
            "--variants" => {
                let v = value("--variants")?;
                variants = v
                    .split(',')
                    .map(|name| {
                        Variant::ALL
                            .into_iter()
                            .find(|x| x.name() == name.trim())
                            .ok_or_else(|| {
                                bad(format!(
                                    "unknown variant {name:?} in --variants (known: trust,async,mutex,spin)"
                                ))
                            })
                    })
                    .collect::<Result<_, _>>()?;
            }
            other => return Err(bad(format!("unknown argument {other:?}"))),
        }
    }
    let missing = |name: &str| bad(format!("{name} is required"));
    Ok(Args {
        objects: objects.ok_or_else(|| missing("--objects"))?,
        threads: threads.ok_or_else(|| missing("--threads"))?,
        seconds: seconds.ok_or_else(|| missing("--seconds"))?,
        dist,
        variants,
        tuning,
    })
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(ArgError::Help) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(ArgError::Bad(msg)) => {
            eprintln!("fetch_add: {msg}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let budget = Budget::Time(Duration::from_secs_f64(args.seconds));
    let streams = workload::streams(args.objects, args.dist, args.threads, 0x5EED);
    let mut failed = false;
    for variant in &args.variants {
        let result = match variant {
            Variant::Mutex => Ok(workload::run_mutex(args.objects, &streams, budget)),
            Variant::Spin => Ok(workload::run_spin(args.objects, &streams, budget)),
            Variant::Trust | Variant::Async => {
                delegation::run(*variant == Variant::Async, args.objects, &streams, budget, args.tuning).map(|out| {
                    for st in &out.stats {
                        let busy = st.busy_ns as f64 / (st.busy_ns + st.idle_ns).max(1) as f64;
                        eprintln!(
                            "fetch_add: {} trustee {}: {} requests in {} batches (avg {:.1}/batch), busy (serving or running fibers) {:.0}% of loop time",
                            variant.name(),
                            st.worker.0,
                            st.requests,
                            st.batches,
                            st.avg_batch(),
                            100.0 * busy
                        );
                    }
                    let delegated: u64 = out.stats.iter().map(|st| st.requests).sum();
                    eprintln!(
                        "fetch_add: {}: {} increments, {} delegated to another worker, {} by the local-trustee shortcut",
                        variant.name(),
                        out.ops,
                        delegated,
                        out.ops.saturating_sub(delegated)
                    );
                    (out.ops, out.elapsed)
                })
            }
        };
        match result {
            Ok((ops, elapsed)) => println!(
                "{{\"variant\":\"{}\",\"objects\":{},\"threads\":{},\"mops\":{:.3}}}",
                variant.name(),
                args.objects,
                args.threads,
                ops as f64 / elapsed.as_secs_f64() / 1e6
            ),
            Err(msg) => {
                eprintln!("fetch_add: variant {} failed: {msg}", variant.name());
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Args, ArgError> {
        parse_args(s.split_whitespace().map(String::from))
    }

    #[test]
    fn parses_a_full_command_line() {
        let a =
            parse("--objects 16 --threads 2 --seconds 0.5 --zipf --variants spin,mutex").unwrap();
        assert_eq!((a.objects, a.threads, a.seconds), (16, 2, 0.5));
        assert_eq!(a.dist, Dist::Zipf);
        assert_eq!(a.variants, vec![Variant::Spin, Variant::Mutex]);
    }

    #[test]
    fn rejects_bad_input_with_a_message() {
        for (line, needle) in [
            (
                "--objects 0 --threads 2 --seconds 1",
                "--objects must be between",
            ),
            ("--objects x --threads 2 --seconds 1", "positive integer"),
            (
                "--objects 4 --threads 0 --seconds 1",
                "--threads must be between 1",
            ),
            (
                "--objects 4 --threads 2 --seconds -1",
                "--seconds must be > 0",
            ),
            (
                "--objects 4 --threads 2 --seconds nan",
                "--seconds must be > 0",
            ),
            ("--objects 4 --threads 2", "--seconds is required"),
            (
                "--objects 4 --threads 2 --seconds 1 --fast",
                "unknown argument",
            ),
            ("--objects", "--objects needs a value"),
            (
                "--objects 4 --threads 2 --seconds 1 --window 0",
                "--window must be an integer",
            ),
            (
                "--objects 4 --threads 2 --seconds 1 --variants lock",
                "unknown variant",
            ),
        ] {
            match parse(line) {
                Err(ArgError::Bad(msg)) => assert!(msg.contains(needle), "{line}: {msg}"),
                other => panic!("{line}: expected an error, got {other:?}"),
            }
        }
    }

    #[test]
    fn zipf_favours_low_ranks_and_stays_in_range() {
        let s = workload::streams(1000, Dist::Zipf, 1, 7);
        let hits0 = s[0].iter().filter(|&&o| o == 0).count();
        let hits999 = s[0].iter().filter(|&&o| o == 999).count();
        assert!(s[0].iter().all(|&o| o < 1000));
        // P(rank 0) = 1/H_1000 ~ 0.134; P(rank 999) ~ 0.000134.
        assert!(
            hits0 > STREAM_FRACTION_LOW && hits0 > 50 * hits999.max(1),
            "{hits0} {hits999}"
        );
    }
    const STREAM_FRACTION_LOW: usize = workload::STREAM_LEN / 10;

    #[test]
    fn delegation_variants_count_every_increment() {
        // `run` itself checks that the counters sum to the number of increments.
        let s = workload::streams(5, Dist::Zipf, 2, 3);
        for asynchronous in [false, true] {
            let out = delegation::run(
                asynchronous,
                5,
                &s,
                Budget::Ops(3001),
                Tuning {
                    fibers: 3,
                    window: 7,
                },
            )
            .unwrap();
            assert_eq!(out.ops, 6002);
            assert_eq!(out.stats.len(), 2);
        }
    }

    #[test]
    fn lock_variants_count_every_increment() {
        let s = workload::streams(3, Dist::Uniform, 2, 1);
        assert_eq!(workload::run_mutex(3, &s, Budget::Ops(5000)).0, 10_000);
        assert_eq!(workload::run_spin(3, &s, Budget::Ops(5000)).0, 10_000);
    }
}
