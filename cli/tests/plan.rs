//! `gossamer-graph plan` and the memory check's advice: the rank count a
//! refusal names passes the check.

mod common;

use common::*;

/// The rank count in "... (--ranks N)" of a message.
fn advised_ranks(text: &str) -> u32 {
    text.split("(--ranks ")
        .nth(1)
        .and_then(|t| t.split(')').next())
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("no rank advice in: {text}"))
}

#[test]
fn plan_prints_every_phase_per_rank_and_a_verdict() {
    let out = ok(&run(&[
        "plan",
        "--scale",
        "20",
        "--ranks",
        "3",
        "--threads",
        "2",
        "--memory",
        "24GiB",
    ]));
    assert!(
        out.starts_with("plan: sssp at SCALE 20, edgefactor 16 (1048576 vertices, 16777216 edges) on 3 rank(s) x 2 thread(s), 24.0 GiB per rank (given)"),
        "{out}"
    );
    assert!(out.contains("rank 0    ranks 1-2  fits"), "{out}");
    for phase in [
        "generation",
        "construction",
        "exchange",
        "kernel state",
        "validation",
        "peak",
    ] {
        let line = out
            .lines()
            .find(|l| l.starts_with(phase))
            .unwrap_or_else(|| panic!("no {phase} line: {out}"));
        assert!(line.ends_with("yes"), "{line}");
    }
    assert!(out.contains("verdict: fits"), "{out}");
    // --ranks belongs to plan here: nothing was launched.
    assert!(!out.contains("rank 1 "), "{out}");
}

#[test]
fn plan_says_what_does_not_fit_and_how_many_ranks_would() {
    let out = ok(&run(&[
        "plan",
        "--scale",
        "22",
        "--threads",
        "2",
        "--memory",
        "1GiB",
        "--command",
        "sssp",
    ]));
    assert!(out.contains("verdict: does not fit"), "{out}");
    let kernel = out.lines().find(|l| l.starts_with("kernel state")).unwrap();
    assert!(kernel.ends_with("no"), "{kernel}");
    let r = advised_ranks(&out);
    let again = ok(&run(&[
        "plan",
        "--scale",
        "22",
        "--threads",
        "2",
        "--memory",
        "1GiB",
        "--ranks",
        &r.to_string(),
    ]));
    assert!(again.contains("verdict: fits"), "{again}");
    // The advice uses the ranks' real shares of the generated graph, so
    // it is the fewest.
    let fewer = ok(&run(&[
        "plan",
        "--scale",
        "22",
        "--threads",
        "2",
        "--memory",
        "1GiB",
        "--ranks",
        &(r - 1).to_string(),
    ]));
    assert!(fewer.contains("verdict: does not fit"), "{fewer}");
}

#[test]
fn plan_refuses_bad_sizes() {
    let err = fails(&run(&["plan", "--scale", "20", "--memory", "lots"]));
    assert!(err.contains("unknown unit"), "{err}");
    let err = fails(&run(&["plan", "--scale", "40", "--memory", "1G"]));
    assert!(err.contains("SCALE 40 is out of range"), "{err}");
    let err = fails(&run(&["plan", "--scale", "20", "--command", "dfs"]));
    assert!(err.contains("expected one of"), "{err}");
}

#[test]
fn refusal_names_a_rank_count_that_then_passes() {
    // 1 GiB "available" (test hook): SSSP at SCALE 22 needs more on one
    // rank, but its shards and kernel state spread over ranks.
    let avail = (1u64 << 30).to_string();
    let env = [("GOSSAMER_GRAPH_AVAILABLE_BYTES", avail.as_str())];
    let err = fails(&run_env(&["sssp", "--scale", "22", "--threads", "2"], &env));
    assert!(
        err.contains("sssp at SCALE 22 (edgefactor 16) needs about"),
        "{err}"
    );
    assert!(err.contains("on rank 0 of 1"), "{err}");
    // A search's queues and bounds, freed before validation, are the peak.
    assert!(err.contains("the peak is in kernel state"), "{err}");
    let r = advised_ranks(&err);
    assert!(r >= 2, "{err}");
    assert!(
        err.contains(&format!(
            "gossamer-graph plan --scale 22 --edgefactor 16 --ranks 1 --threads 2 --memory {avail}"
        )),
        "{err}"
    );
    // The advised shape passes the same model on every rank.
    let out = ok(&run(&[
        "plan",
        "--scale",
        "22",
        "--threads",
        "2",
        "--memory",
        &avail,
        "--ranks",
        &r.to_string(),
    ]));
    assert!(out.contains("verdict: fits"), "{out}");
}

#[test]
fn ranks_on_one_host_are_checked_together() {
    // 40 MB "available": SSSP at SCALE 16 fits one rank (about 33 MB) and
    // each of 2 ranks alone (23 and 22 MB), but not both on this host.
    let env = [("GOSSAMER_GRAPH_AVAILABLE_BYTES", "40000000")];
    let err = fails(&run_env(
        &[
            "--ranks",
            "2",
            "sssp",
            "--scale",
            "16",
            "--threads",
            "1",
            "--roots",
            "1",
        ],
        &env,
    ));
    assert!(
        err.contains("2 ranks of sssp at SCALE 16 on this host need about"),
        "{err}"
    );
    assert!(err.contains("share this host's memory"), "{err}");
    assert!(err.contains("--force"), "{err}");
    let out = ok(&run_env(
        &["sssp", "--scale", "16", "--threads", "1", "--roots", "1"],
        &env,
    ));
    assert!(out.contains("1 searches"), "{out}");
}

#[test]
fn a_graph500_file_is_checked_like_the_graph_it_holds() {
    let dir = scratch("plan-file");
    let g = dir.join("g16.ggraph");
    ok(&run(&["generate", "--scale", "16", "-o", arg(&g)]));
    // Each rank's own estimate, with its share of the generator's edges
    // (block ids are uneven): `--force` runs anyway and prints it.
    let estimates = |input: &[&str]| {
        let mut args = vec!["--ranks", "4", "sssp"];
        args.extend(input);
        args.extend(["--threads", "1", "--roots", "1", "--force"]);
        let out = run_env(&args, &[("GOSSAMER_GRAPH_AVAILABLE_BYTES", "1000")]);
        ok(&out);
        // "... the estimate (SIZE) for rank R of 4 ...", by rank.
        let mut e: Vec<(String, String)> = stderr(&out)
            .lines()
            .filter_map(|l| {
                l.split_once("running although the estimate (")?
                    .1
                    .split_once(')')
            })
            .map(|(size, rest)| {
                let rank = rest
                    .trim_start_matches(" for rank ")
                    .split(' ')
                    .next()
                    .unwrap();
                (rank.to_owned(), size.to_owned())
            })
            .collect();
        e.sort();
        // The launcher's check of the ranks together counts each rank as
        // the rank counts itself: its largest is the largest rank's.
        let largest = stderr(&out)
            .split_once("(the largest ")
            .map(|(_, rest)| rest.split(')').next().unwrap().to_owned());
        let mib = |s: &str| s.trim_end_matches(" MiB").parse::<f64>().unwrap();
        let max = e.iter().map(|(_, size)| mib(size)).fold(0.0, f64::max);
        assert_eq!(largest.as_deref().map(mib), Some(max), "{e:?}");
        e
    };
    let generated = estimates(&["--scale", "16"]);
    let ranks: Vec<&str> = generated.iter().map(|(r, _)| r.as_str()).collect();
    assert_eq!(ranks, ["0", "1", "2", "3"], "{generated:?}");
    assert_ne!(
        generated[1].1, generated[3].1,
        "shares are uneven: {generated:?}"
    );
    assert_eq!(estimates(&["--graph", arg(&g)]), generated);
    // Ranks on one host, together.
    let env = [("GOSSAMER_GRAPH_AVAILABLE_BYTES", "40000000")];
    let err = fails(&run_env(
        &["--ranks", "2", "sssp", "--graph", arg(&g), "--threads", "1"],
        &env,
    ));
    assert!(
        err.contains("2 ranks of sssp at SCALE 16 on this host need about"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_plans_in_the_rack_guide_are_what_plan_prints() {
    let guide = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/rack.md"))
        .expect("docs/rack.md");
    let mut checked = 0;
    for block in guide.split("$ gossamer-graph plan ").skip(1) {
        let (args, rest) = block.split_once('\n').unwrap();
        let shown = rest
            .split("\n\n")
            .next()
            .unwrap()
            .split("\n```")
            .next()
            .unwrap();
        let mut argv = vec!["plan"];
        argv.extend(args.split_whitespace());
        let out = ok(&run(&argv));
        assert_eq!(out.trim_end(), shown, "docs/rack.md: plan {args}");
        checked += 1;
    }
    assert_eq!(checked, 4, "the guide shows four plans");
}
