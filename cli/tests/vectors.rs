//! The command's outputs against the Graph500 reference vectors: generated
//! edges, weights and roots byte for byte; BFS levels byte for byte; SSSP
//! distances within f32 rounding.

mod common;

use common::*;

fn generate_matches(scale: u32) {
    let dir = scratch(&format!("gen{scale}"));
    let (e, w, r) = (dir.join("e"), dir.join("w"), dir.join("r"));
    let s = scale.to_string();
    ok(&run(&[
        "generate",
        "--scale",
        &s,
        "--threads",
        "2",
        "--edges-out",
        arg(&e),
        "--weights-out",
        arg(&w),
        "--roots-out",
        arg(&r),
    ]));
    for (ours, ext) in [(&e, "edges"), (&w, "weights"), (&r, "roots")] {
        let want = std::fs::read(vector(&format!("scale{scale}.{ext}"))).unwrap();
        let got = std::fs::read(ours).unwrap();
        assert_eq!(got.len(), want.len(), "scale {scale} .{ext}: length");
        assert!(got == want, "scale {scale} .{ext}: bytes differ");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn generate_scale_10_matches_the_reference_bytes() {
    generate_matches(10);
}

#[test]
fn generate_scale_12_matches_the_reference_bytes() {
    generate_matches(12);
}

/// The four roots with oracle files at SCALE 12.
const ROOTS_12: [u64; 4] = [1834, 858, 881, 504];

#[test]
fn bfs_levels_equal_the_oracle() {
    let dir = scratch("levels");
    for root in ROOTS_12 {
        let f = dir.join(format!("{root}.level"));
        let r = root.to_string();
        ok(&run(&[
            "bfs",
            "--scale",
            "12",
            "--root",
            &r,
            "--threads",
            "2",
            "--dump-levels",
            arg(&f),
        ]));
        let want = std::fs::read(vector(&format!("scale12.root{root}.level"))).unwrap();
        assert!(
            std::fs::read(&f).unwrap() == want,
            "root {root}: levels differ"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bfs_top_down_levels_equal_the_oracle() {
    let dir = scratch("levels-td");
    let f = dir.join("l");
    ok(&run(&[
        "bfs",
        "--scale",
        "12",
        "--root",
        "858",
        "--mode",
        "top-down",
        "--partition",
        "cyclic",
        "--dump-levels",
        arg(&f),
    ]));
    let want = std::fs::read(vector("scale12.root858.level")).unwrap();
    assert!(std::fs::read(&f).unwrap() == want, "levels differ");
    let _ = std::fs::remove_dir_all(&dir);
}

fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn sssp_distances_equal_the_oracle_within_rounding() {
    let dir = scratch("dist");
    let mut bit_identical = 0;
    for root in ROOTS_12 {
        let f = dir.join(format!("{root}.dist"));
        let r = root.to_string();
        ok(&run(&[
            "sssp",
            "--scale",
            "12",
            "--root",
            &r,
            "--threads",
            "2",
            "--dump-dist",
            arg(&f),
        ]));
        let got_bytes = std::fs::read(&f).unwrap();
        let want_bytes = std::fs::read(vector(&format!("scale12.root{root}.dist"))).unwrap();
        let (got, want) = (f32s(&got_bytes), f32s(&want_bytes));
        assert_eq!(got.len(), 4096, "root {root}: one distance per vertex");
        for (v, (&a, &b)) in got.iter().zip(&want).enumerate() {
            if b.is_infinite() {
                assert!(
                    a.is_infinite() && a > 0.0,
                    "root {root} vertex {v}: {a} should be +inf"
                );
            } else {
                let tol = 1e-6 * b.abs().max(f32::MIN_POSITIVE);
                assert!(
                    (a - b).abs() <= tol,
                    "root {root} vertex {v}: {a} vs oracle {b}"
                );
            }
        }
        if got_bytes == want_bytes {
            bit_identical += 1;
        }
    }
    eprintln!("SSSP distances bit-identical to the oracle for {bit_identical} of 4 roots");
    let _ = std::fs::remove_dir_all(&dir);
}
