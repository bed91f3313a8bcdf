//! Payloads and results at and beyond the slot size; POD slices.
use gossamer::{entrust_on, wait_outstanding, Runtime, WorkerId};

gossamer::pod_struct! {
    #[derive(Debug, PartialEq)]
    pub struct Relax { pub v: u32, pub dist: f32, pub parent: u32 }
}

fn rt(threads: usize) -> gossamer::Builder {
    Runtime::builder().threads(threads).pin_threads(false)
}

#[test]
fn one_mib_vec_through_apply_with_and_back_with_apply_returning() {
    rt(2)
        .run(|| {
            let t = entrust_on(WorkerId(1), Vec::<u8>::new());
            let big: Vec<u8> = (0..1 << 20).map(|i: u32| (i * 31 % 251) as u8).collect();
            let sum: u64 = big.iter().map(|&b| b as u64).sum();
            let got = t.apply_with(
                |v, data: Vec<u8>| {
                    *v = data;
                    v.iter().map(|&b| b as u64).sum::<u64>()
                },
                big.clone(),
            );
            assert_eq!(got, sum);
            let back: Vec<u8> = t.apply_returning(|v| v.clone());
            assert_eq!(back, big);
        })
        .unwrap();
}

#[test]
fn payload_sizes_around_the_slot_size() {
    rt(2)
        .slot_size(256)
        .run(|| {
            let t = entrust_on(WorkerId(1), 0usize);
            for n in [
                0usize, 1, 100, 150, 160, 170, 192, 200, 255, 256, 257, 511, 1000, 5000,
            ] {
                let s = "x".repeat(n);
                assert_eq!(t.apply_with(|_, s: String| s.len(), s.clone()), n);
                let back: String = t.apply_returning(move |_| "y".repeat(n));
                assert_eq!(back.len(), n);
                // many in flight, mixed with small ones: order and values hold
                let sizes = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
                for k in 0..5 {
                    let s2 = sizes.clone();
                    t.apply_with_then(
                        move |acc, s: String| {
                            *acc += 1;
                            s.len() + k
                        },
                        "z".repeat(n),
                        move |l| s2.borrow_mut().push(l),
                    );
                    let s3 = sizes.clone();
                    t.apply_then(move |_| 7usize, move |l| s3.borrow_mut().push(l));
                }
                wait_outstanding();
                let want: Vec<usize> = (0..5).flat_map(|k| [n + k, 7]).collect();
                assert_eq!(*sizes.borrow(), want);
            }
        })
        .unwrap();
}

#[test]
fn apply_slice_with_many_pod_records() {
    rt(2)
        .run(|| {
            let t = entrust_on(WorkerId(1), (0u64, 0f64, 0usize));
            let recs: Vec<Relax> = (0..100_000u32)
                .map(|i| Relax {
                    v: i,
                    dist: (i % 10) as f32,
                    parent: i / 2,
                })
                .collect();
            let mut sent = 0;
            for chunk in recs.chunks(60) {
                sent += chunk.len();
                t.apply_slice_then(
                    |acc, rs: &[Relax]| {
                        for r in rs {
                            acc.0 += r.v as u64 + r.parent as u64;
                            acc.1 += r.dist as f64;
                        }
                        acc.2 += rs.len();
                        rs.len()
                    },
                    chunk,
                    |_| {},
                );
            }
            // one slice bigger than a slot, blocking
            let n = t.apply_slice(
                |acc, rs: &[Relax]| {
                    acc.2 += 0;
                    rs.iter().filter(|r| r.dist == 3.0).count()
                },
                &recs,
            );
            assert_eq!(n, 10_000);
            wait_outstanding();
            let (s, d, c) = t.apply(|a| *a);
            assert_eq!(c, sent);
            let want: u64 = recs.iter().map(|r| r.v as u64 + r.parent as u64).sum();
            assert_eq!(s, want);
            assert_eq!(d, recs.iter().map(|r| r.dist as f64).sum::<f64>());
        })
        .unwrap();
}

#[test]
fn local_trustee_shortcut_handles_all_forms() {
    rt(1)
        .run(|| {
            let t = gossamer::entrust(vec![1u32, 2, 3]);
            assert_eq!(t.apply(|v| v.len()), 3);
            assert_eq!(
                t.apply_with(
                    |v, x: Vec<u32>| {
                        v.extend(x);
                        v.len()
                    },
                    vec![4, 5]
                ),
                5
            );
            assert_eq!(
                t.apply_slice(
                    |v, r: &[u32]| {
                        v.extend_from_slice(r);
                        v.len()
                    },
                    &[6, 7]
                ),
                7
            );
            let all: Vec<u32> = t.apply_returning(|v| v.clone());
            assert_eq!(all, vec![1, 2, 3, 4, 5, 6, 7]);
            assert_eq!(
                gossamer::stats()[0].requests,
                0,
                "local applies do not use slots"
            );
        })
        .unwrap();
}

#[test]
fn apply_slice_chunked_then_fills_slots_and_keeps_order() {
    rt(2)
        .slot_size(512)
        .run(|| {
            let t = entrust_on(WorkerId(1), Vec::<u32>::new());
            let recs: Vec<Relax> = (0..50_000u32)
                .map(|i| Relax {
                    v: i,
                    dist: 0.0,
                    parent: 0,
                })
                .collect();
            let got = std::rc::Rc::new(std::cell::Cell::new(0usize));
            let g = got.clone();
            let pieces = t.apply_slice_chunked_then(
                |v, rs: &[Relax]| {
                    v.extend(rs.iter().map(|r| r.v));
                    rs.len()
                },
                &recs,
                move |n| g.set(g.get() + n),
            );
            // A 512-byte slot has 448 record bytes; a piece costs 24 bytes of header
            // (ZST closure), so it carries at most (448 - 24) / 12 = 35 records.
            assert!(
                (50_000 / 35..=50_000 / 35 + 2).contains(&pieces),
                "{pieces}"
            );
            wait_outstanding();
            assert_eq!(got.get(), 50_000);
            let all: Vec<u32> = t.apply_returning(std::mem::take);
            assert_eq!(all, (0..50_000).collect::<Vec<_>>());
            // Every piece fit one slot: one request each, plus entrust_on and the
            // apply_returning.
            let s = gossamer::trustee_stats(WorkerId(1));
            assert_eq!(s.requests, pieces as u64 + 2);
        })
        .unwrap();
}
