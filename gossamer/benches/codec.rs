//! Codec choice for delegation payloads (see `results/runtime/codec.md`).
//!
//! Payloads are what the graph algorithms actually ship through request slots:
//! batches of `(vertex: u32, distance: f32, parent: u32)` records (8, 64 and 1024 per
//! batch) and an opaque 1 MiB `Vec<u8>`. Each codec encodes into a reused `Vec<u8>`
//! (cleared, never shrunk) and decodes back into an owned value. The POD baseline is a
//! plain `memcpy` of a `#[repr(C)]` slice in both directions, i.e. what a fast path for
//! plain-old-data payloads would cost.
//!
//! Every rank runs the same binary, so no codec is asked for portability or versioning;
//! only speed and encoded size (a request slot is 1 KiB) matter.
//!
//! Run: `cargo bench -p gossamer --bench codec`. Encoded sizes are printed to stderr
//! before the timings.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use serde::{Deserialize, Serialize};

/// One relaxation record, laid out like the POD fast path would see it (12 bytes, no
/// padding).
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Serialize,
    Deserialize,
    wincode::SchemaWrite,
    wincode::SchemaRead,
    bitcode::Encode,
    bitcode::Decode,
)]
#[repr(C)]
struct Rec {
    vertex: u32,
    distance: f32,
    parent: u32,
}

const BATCHES: [usize; 3] = [8, 64, 1024];
const BLOB_LEN: usize = 1 << 20;

/// Deterministic records resembling a scale-20 graph: vertex and parent ids below 2^20,
/// distances in [0, 1).
fn records(n: usize) -> Vec<Rec> {
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..n)
        .map(|_| Rec {
            vertex: (next() & 0xF_FFFF) as u32,
            distance: (next() >> 40) as f32 / (1u64 << 24) as f32,
            parent: (next() & 0xF_FFFF) as u32,
        })
        .collect()
}

fn blob() -> Vec<u8> {
    (0..BLOB_LEN).map(|i| (i * 31 + 7) as u8).collect()
}

/// The codecs under test. Each encodes `value` into `out` (appending to a cleared
/// buffer) and decodes a fresh owned value from bytes.
mod codecs {
    use super::Rec;
    use serde::{de::DeserializeOwned, Serialize};

    pub fn bincode_varint_enc<T: Serialize>(value: &T, out: &mut Vec<u8>) {
        out.clear();
        bincode::serde::encode_into_std_write(value, out, bincode::config::standard())
            .expect("bincode encode");
    }
    pub fn bincode_varint_dec<T: DeserializeOwned>(bytes: &[u8]) -> T {
        bincode::serde::decode_from_slice(bytes, bincode::config::standard())
            .expect("bincode decode")
            .0
    }
    pub fn bincode_fixint_enc<T: Serialize>(value: &T, out: &mut Vec<u8>) {
        out.clear();
        bincode::serde::encode_into_std_write(value, out, bincode::config::legacy())
            .expect("bincode encode");
    }
    pub fn bincode_fixint_dec<T: DeserializeOwned>(bytes: &[u8]) -> T {
        bincode::serde::decode_from_slice(bytes, bincode::config::legacy())
            .expect("bincode decode")
            .0
    }
    /// bitcode's serde entry point returns a fresh `Vec`; it has no "encode into" form,
    /// so the copy into the reused buffer is part of its cost (as it would be in a slot).
    pub fn bitcode_serde_enc<T: Serialize>(value: &T, out: &mut Vec<u8>) {
        out.clear();
        out.extend_from_slice(&bitcode::serialize(value).expect("bitcode encode"));
    }
    pub fn bitcode_serde_dec<T: DeserializeOwned>(bytes: &[u8]) -> T {
        bitcode::deserialize(bytes).expect("bitcode decode")
    }
    pub fn postcard_enc<T: Serialize>(value: &T, out: &mut Vec<u8>) {
        out.clear();
        postcard::to_io(value, &mut *out).expect("postcard encode");
    }
    pub fn postcard_dec<T: DeserializeOwned>(bytes: &[u8]) -> T {
        postcard::from_bytes(bytes).expect("postcard decode")
    }
    pub fn wincode_enc<T>(value: &T, out: &mut Vec<u8>)
    where
        T: wincode::SchemaWrite<wincode::config::DefaultConfig, Src = T>,
    {
        out.clear();
        wincode::serialize_into(&mut *out, value).expect("wincode encode");
    }
    pub fn wincode_dec<T>(bytes: &[u8]) -> T
    where
        T: for<'de> wincode::SchemaRead<'de, wincode::config::DefaultConfig, Dst = T>,
    {
        wincode::deserialize(bytes).expect("wincode decode")
    }
    /// Zero-copy baseline: the records' own bytes.
    pub fn pod_enc(value: &[Rec], out: &mut Vec<u8>) {
        out.clear();
        // SAFETY: `Rec` is `#[repr(C)]` with three 4-byte fields and no padding, so every
        // byte of the slice is initialised; the view covers exactly the slice's memory
        // and lives only for this call.
        let bytes = unsafe {
            std::slice::from_raw_parts(value.as_ptr().cast::<u8>(), std::mem::size_of_val(value))
        };
        out.extend_from_slice(bytes);
    }
    /// Zero-copy baseline decode: copy bytes back into a reused record buffer.
    pub fn pod_dec(bytes: &[u8], out: &mut Vec<Rec>) {
        let n = bytes.len() / std::mem::size_of::<Rec>();
        out.clear();
        out.reserve(n);
        // SAFETY: `out` has capacity for `n` records; we copy exactly `n * 12` bytes into
        // its (suitably aligned) buffer, and every bit pattern is a valid `Rec` (u32, f32,
        // u32), so setting the length to `n` afterwards exposes only initialised records.
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                out.as_mut_ptr().cast::<u8>(),
                n * std::mem::size_of::<Rec>(),
            );
            out.set_len(n);
        }
    }
}

/// Prints encoded bytes per record for every codec and batch, and checks round trips.
fn report_sizes() {
    let mut out = Vec::new();
    for n in BATCHES {
        let recs = records(n);
        let mut sizes = Vec::new();
        codecs::bincode_varint_enc(&recs, &mut out);
        assert_eq!(codecs::bincode_varint_dec::<Vec<Rec>>(&out), recs);
        sizes.push(("bincode2-varint", out.len()));
        codecs::bincode_fixint_enc(&recs, &mut out);
        assert_eq!(codecs::bincode_fixint_dec::<Vec<Rec>>(&out), recs);
        sizes.push(("bincode2-fixint", out.len()));
        codecs::bitcode_serde_enc(&recs, &mut out);
        assert_eq!(codecs::bitcode_serde_dec::<Vec<Rec>>(&out), recs);
        sizes.push(("bitcode-serde", out.len()));
        let mut buf = bitcode::Buffer::new();
        let len = buf.encode(&recs).len();
        sizes.push(("bitcode-native", len));
        codecs::postcard_enc(&recs, &mut out);
        assert_eq!(codecs::postcard_dec::<Vec<Rec>>(&out), recs);
        sizes.push(("postcard", out.len()));
        codecs::wincode_enc(&recs, &mut out);
        assert_eq!(codecs::wincode_dec::<Vec<Rec>>(&out), recs);
        sizes.push(("wincode", out.len()));
        codecs::pod_enc(&recs, &mut out);
        let mut back = Vec::new();
        codecs::pod_dec(&out, &mut back);
        assert_eq!(back, recs);
        sizes.push(("pod-memcpy", out.len()));
        for (name, bytes) in sizes {
            eprintln!(
                "size {name} batch={n} bytes={bytes} bytes_per_record={:.3}",
                bytes as f64 / n as f64
            );
        }
    }
}

fn bench_records(c: &mut Criterion) {
    report_sizes();
    for n in BATCHES {
        let recs = records(n);
        let mut group = c.benchmark_group(format!("records{n}"));
        group.throughput(Throughput::Elements(n as u64));
        let mut out: Vec<u8> = Vec::with_capacity(64 * n);

        macro_rules! serde_like {
            ($name:literal, $enc:path, $dec:path) => {
                group.bench_function(BenchmarkId::new("encode", $name), |b| {
                    b.iter(|| $enc(black_box(&recs), &mut out))
                });
                $enc(&recs, &mut out);
                let bytes = out.clone();
                group.bench_function(BenchmarkId::new("decode", $name), |b| {
                    b.iter(|| -> Vec<Rec> { $dec(black_box(&bytes)) })
                });
            };
        }
        serde_like!(
            "bincode2-varint",
            codecs::bincode_varint_enc,
            codecs::bincode_varint_dec
        );
        serde_like!(
            "bincode2-fixint",
            codecs::bincode_fixint_enc,
            codecs::bincode_fixint_dec
        );
        serde_like!(
            "bitcode-serde",
            codecs::bitcode_serde_enc,
            codecs::bitcode_serde_dec
        );
        serde_like!("postcard", codecs::postcard_enc, codecs::postcard_dec);
        serde_like!("wincode", codecs::wincode_enc, codecs::wincode_dec);

        // bitcode's own derive with a reused `Buffer` (its allocation-free path).
        let mut buf = bitcode::Buffer::new();
        group.bench_function(BenchmarkId::new("encode", "bitcode-native"), |b| {
            b.iter(|| {
                out.clear();
                out.extend_from_slice(buf.encode(black_box(&recs)));
            })
        });
        let bytes = buf.encode(&recs).to_vec();
        let mut dbuf = bitcode::Buffer::new();
        group.bench_function(BenchmarkId::new("decode", "bitcode-native"), |b| {
            b.iter(|| -> Vec<Rec> { dbuf.decode(black_box(&bytes)).expect("bitcode decode") })
        });

        group.bench_function(BenchmarkId::new("encode", "pod-memcpy"), |b| {
            b.iter(|| codecs::pod_enc(black_box(&recs), &mut out))
        });
        codecs::pod_enc(&recs, &mut out);
        let bytes = out.clone();
        let mut back = Vec::with_capacity(n);
        group.bench_function(BenchmarkId::new("decode", "pod-memcpy"), |b| {
            b.iter(|| codecs::pod_dec(black_box(&bytes), &mut back))
        });
        group.finish();
    }
}

fn bench_blob(c: &mut Criterion) {
    let data = blob();
    let mut group = c.benchmark_group("blob1MiB");
    group.throughput(Throughput::Bytes(BLOB_LEN as u64));
    let mut out: Vec<u8> = Vec::with_capacity(2 * BLOB_LEN);

    macro_rules! serde_like {
        ($name:literal, $enc:path, $dec:path) => {
            group.bench_function(BenchmarkId::new("encode", $name), |b| {
                b.iter(|| $enc(black_box(&data), &mut out))
            });
            $enc(&data, &mut out);
            eprintln!(
                "size {} blob bytes={} bytes_per_byte={:.6}",
                $name,
                out.len(),
                out.len() as f64 / BLOB_LEN as f64
            );
            let bytes = out.clone();
            group.bench_function(BenchmarkId::new("decode", $name), |b| {
                b.iter(|| -> Vec<u8> { $dec(black_box(&bytes)) })
            });
        };
    }
    serde_like!(
        "bincode2-varint",
        codecs::bincode_varint_enc,
        codecs::bincode_varint_dec
    );
    serde_like!(
        "bincode2-fixint",
        codecs::bincode_fixint_enc,
        codecs::bincode_fixint_dec
    );
    serde_like!(
        "bitcode-serde",
        codecs::bitcode_serde_enc,
        codecs::bitcode_serde_dec
    );
    serde_like!("postcard", codecs::postcard_enc, codecs::postcard_dec);
    serde_like!("wincode", codecs::wincode_enc, codecs::wincode_dec);

    let mut buf = bitcode::Buffer::new();
    group.bench_function(BenchmarkId::new("encode", "bitcode-native"), |b| {
        b.iter(|| {
            out.clear();
            out.extend_from_slice(buf.encode(black_box(&data)));
        })
    });
    let bytes = buf.encode(&data).to_vec();
    let mut dbuf = bitcode::Buffer::new();
    group.bench_function(BenchmarkId::new("decode", "bitcode-native"), |b| {
        b.iter(|| -> Vec<u8> { dbuf.decode(black_box(&bytes)).expect("bitcode decode") })
    });

    group.bench_function(BenchmarkId::new("encode", "pod-memcpy"), |b| {
        b.iter(|| {
            out.clear();
            out.extend_from_slice(black_box(&data));
        })
    });
    let mut back: Vec<u8> = Vec::with_capacity(BLOB_LEN);
    group.bench_function(BenchmarkId::new("decode", "pod-memcpy"), |b| {
        b.iter(|| {
            back.clear();
            back.extend_from_slice(black_box(&data));
        })
    });
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(1500))
        .without_plots()
}

criterion_group! {
    name = benches;
    config = config();
    targets = bench_records, bench_blob
}
criterion_main!(benches);
