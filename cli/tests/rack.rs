//! Rack mode end to end: `gossamer-graph --ranks 4 --transport shm|tcp` runs SSSP
//! and BFS as 4 processes on this host and must give the reference vectors' answers
//! (distances within f32 rounding, levels byte for byte).

mod common;

use common::*;

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn sssp_and_bfs_across_4_ranks_equal_the_oracle_over_shm_and_tcp() {
    let dir = scratch("rack");
    let root = "1834";
    for transport in ["shm", "tcp"] {
        let d = dir.join(format!("{transport}.dist"));
        let l = dir.join(format!("{transport}.level"));
        ok(&run(&[
            "--ranks",
            "4",
            "--transport",
            transport,
            "sssp",
            "--scale",
            "12",
            "--root",
            root,
            "--threads",
            "1",
            "--dump-dist",
            arg(&d),
        ]));
        ok(&run(&[
            "--ranks",
            "4",
            "--transport",
            transport,
            "bfs",
            "--scale",
            "12",
            "--root",
            root,
            "--threads",
            "1",
            "--dump-levels",
            arg(&l),
        ]));
        let got = f32s(&std::fs::read(&d).unwrap());
        let want = f32s(&std::fs::read(vector(&format!("scale12.root{root}.dist"))).unwrap());
        assert_eq!(got.len(), 4096, "{transport}: one distance per vertex");
        for (v, (&a, &b)) in got.iter().zip(&want).enumerate() {
            if b.is_infinite() {
                assert!(
                    a.is_infinite() && a > 0.0,
                    "{transport} vertex {v}: {a} should be +inf"
                );
            } else {
                let tol = 1e-6 * b.abs().max(f32::MIN_POSITIVE);
                assert!(
                    (a - b).abs() <= tol,
                    "{transport} vertex {v}: {a} vs oracle {b}"
                );
            }
        }
        let levels = std::fs::read(&l).unwrap();
        let want = std::fs::read(vector(&format!("scale12.root{root}.level"))).unwrap();
        assert!(
            levels == want,
            "{transport}: BFS levels differ from the oracle"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_rank_count_is_a_clear_error() {
    let e = fails(&run(&[
        "--ranks", "0", "sssp", "--scale", "4", "--root", "0",
    ]));
    assert!(e.contains("--ranks 0"), "{e}");
    let e = fails(&run(&[
        "--transport",
        "carrier-pigeon",
        "sssp",
        "--scale",
        "4",
        "--root",
        "0",
    ]));
    assert!(e.contains("unknown transport"), "{e}");
}
