//! Distributed construction end to end: with every rank generating (or
//! reading) only its own slice of the edges, a rack run answers exactly as
//! one process does: the same roots, the same traversed-edge counts, the
//! same distances and levels bit for bit, for 1 to 4 ranks over shm and
//! tcp, with both partitions, and for 2 ranks on two simulated hosts
//! (network namespaces joined by a veth pair).

mod common;

use std::path::Path;
use std::process::Output;

use common::netns::TwoHosts;
use common::*;

/// `kernel` (sssp or bfs) on the generated SCALE 10 graph, validated,
/// first answer dumped, with this partition.
fn search(prefix: &[&str], kernel: &str, threads: &str, partition: &str, dump: &Path) -> Output {
    search_scale10(prefix, kernel, threads, dump, &["--partition", partition])
}

#[test]
fn every_rank_count_transport_and_partition_answers_as_one_process() {
    let dir = scratch("distributed");
    for kernel in ["sssp", "bfs"] {
        let d = dir.join(format!("{kernel}.one"));
        let want = answers(&search(&[], kernel, "2", "block", &d), &d);
        assert_eq!(want.roots.len(), 3);
        assert!(want.roots.iter().all(|r| r.1 > 0 && r.2 > 1), "{want:?}");
        for ranks in ["1", "2", "3", "4"] {
            for transport in ["shm", "tcp"] {
                for partition in ["block", "cyclic"] {
                    if ranks == "1" && transport == "tcp" {
                        continue; // one rank has no transport
                    }
                    let d = dir.join(format!("{kernel}.{ranks}.{transport}.{partition}"));
                    let prefix = ["--ranks", ranks, "--transport", transport];
                    let got = answers(&search(&prefix, kernel, "1", partition, &d), &d);
                    assert_eq!(got.ranks.to_string(), ranks);
                    assert_eq!(
                        got, want,
                        "{kernel} on {ranks} ranks over {transport}, {partition} partition"
                    );
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sssp_with_bounds_shared_per_rank_answers_as_one_process() {
    // Edgefactor 1: with more than 4 trustees in all, of several ranks of
    // several trustees each, SSSP's trustees keep bounds for their own
    // rank's vertices and share a filter per rank for the others'
    // (graph_core::memory::sssp_shares_bounds); 3 roots, so a filter left
    // over from the previous search would show.
    let dir = scratch("shared-bounds");
    let ef = ["--edgefactor", "1"];
    let d = dir.join("one");
    let want = answers(&search_scale10(&[], "sssp", "2", &d, &ef), &d);
    assert!(want.roots.iter().all(|r| r.1 > 0 && r.2 > 1), "{want:?}");
    for (ranks, threads) in [("3", "2"), ("2", "3")] {
        for transport in ["shm", "tcp"] {
            let d = dir.join(format!("{ranks}x{threads}.{transport}"));
            let prefix = ["--ranks", ranks, "--transport", transport];
            let got = answers(&search_scale10(&prefix, "sssp", threads, &d, &ef), &d);
            assert_eq!(
                got, want,
                "{ranks} ranks x {threads} threads over {transport}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_graph_file_is_read_by_every_rank_for_its_own_slice() {
    let dir = scratch("distributed-file");
    let g = dir.join("g.ggraph");
    ok(&run(&["generate", "--scale", "9", "-o", arg(&g)]));
    let d1 = dir.join("one");
    let one = answers(
        &run(&[
            "sssp",
            "--graph",
            arg(&g),
            "--roots",
            "2",
            "--json",
            "--dump-dist",
            arg(&d1),
        ]),
        &d1,
    );
    let d3 = dir.join("three");
    let three = answers(
        &run(&[
            "--ranks",
            "3",
            "--transport",
            "tcp",
            "sssp",
            "--graph",
            arg(&g),
            "--roots",
            "2",
            "--threads",
            "1",
            "--partition",
            "cyclic",
            "--json",
            "--dump-dist",
            arg(&d3),
        ]),
        &d3,
    );
    assert_eq!(one, three);

    // `--unit-weights`: every rank's build reads its slice's weights as 1.0.
    let unit = |prefix: &[&str], dump: &Path| {
        let mut args = prefix.to_vec();
        args.extend([
            "sssp",
            "--graph",
            arg(&g),
            "--unit-weights",
            "--roots",
            "2",
            "--threads",
            "1",
            "--json",
            "--dump-dist",
            arg(dump),
        ]);
        answers(&run(&args), dump)
    };
    let (u1, u2) = (dir.join("unit1"), dir.join("unit2"));
    let unit_one = unit(&[], &u1);
    assert_eq!(unit(&["--ranks", "2"], &u2), unit_one);
    // The same roots reach the same vertices over the same edges, at
    // other distances.
    assert_eq!(unit_one.roots, one.roots);
    assert_ne!(unit_one.dump, one.dump);

    // A corrupt file: no rank reads it whole; each checks its own slice,
    // and rank 0 folds the slices' checksum digests. A flipped bit in the
    // first record or the last is found either way.
    let bytes = std::fs::read(&g).unwrap();
    for at in [1024 + 1, bytes.len() - 2] {
        let mut bad = bytes.clone();
        bad[at] ^= 0x08;
        let path = dir.join("bad.ggraph");
        std::fs::write(&path, &bad).unwrap();
        for transport in ["shm", "tcp"] {
            let err = fails(&run(&[
                "--ranks",
                "2",
                "--transport",
                transport,
                "sssp",
                "--graph",
                arg(&path),
                "--threads",
                "1",
            ]));
            assert!(
                err.contains("the graph file's edge data is corrupt"),
                "byte {at} over {transport}: {err}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn two_ranks_on_two_simulated_hosts_answer_as_one_process() {
    let hosts = match TwoHosts::new() {
        Ok(h) => h,
        Err(why) => {
            // Not a failure where the machine does not allow it (but under CI).
            return common::netns::cannot(
                "two simulated hosts",
                &format!("{why} (needs root and iproute2)"),
            );
        }
    };
    let dir = scratch("distributed-netns");
    let d1 = dir.join("one");
    let want = answers(&search(&[], "sssp", "2", "block", &d1), &d1);
    let token = format!(
        "{:032x}",
        std::process::id() as u128 * 0x9e37_79b9_7f4a_7c15
    );
    let port = 20000 + (std::process::id() % 20000) as u16;
    // The same command line on both ranks (they check); only rank 0 writes.
    let dump = dir.join("dist");
    let children: Vec<_> = (0..2)
        .map(|r| {
            let args = [
                "--transport",
                "tcp",
                "sssp",
                "--scale",
                "10",
                "--roots",
                "3",
                "--threads",
                "1",
                "--json",
                "--dump-dist",
                arg(&dump),
            ];
            hosts
                .rank(r, port, &token, &args)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("start a rank")
        })
        .collect();
    let outs: Vec<Output> = children
        .into_iter()
        .map(|c| c.wait_with_output().expect("a rank's output"))
        .collect();
    for (r, o) in outs.iter().enumerate() {
        assert!(
            o.status.success(),
            "rank {r}: {:?}\n{}",
            o.status,
            String::from_utf8_lossy(&o.stderr)
        );
    }
    // Rank 0 reports and dumps; the other rank prints nothing.
    let got = answers(&outs[0], &dump);
    assert_eq!(got.ranks, 2);
    assert_eq!(got, want);
    assert!(stdout(&outs[1]).is_empty(), "{}", stdout(&outs[1]));
    drop(hosts);
    let _ = std::fs::remove_dir_all(&dir);
}
