//! Engine benchmark: `cargo bench --bench engine`.
//!
//! On a generated capture of at least 2 million scopes (4 threads, nesting,
//! data strings), in lz4 and zstd:
//! - decode + build the model (single thread) against puffin 0.20's own path
//!   (`FrameData::read_next` + `unpacked()` + walking every scope with `Reader`);
//! - JSON export throughput;
//! - bytes per scope instance of the model;
//! - peak memory (max RSS) of `puffin-lens dump` on the capture.
//!
//! Prints a plain report; timings are the best of several runs. Decode is
//! timed four ways: in this process, interleaved with the puffin path (each
//! of our runs faults its model's pages in anew); in this process, each path
//! back to back (warm allocator, as criterion would time it); the parallel
//! decoder back to back; and in fresh processes (cold allocator and pages,
//! as a CLI run sees it).
//!
//! `PUFFIN_LENS_BENCH_ONLY=1` runs only our single-thread decode, 20 times
//! (for `perf record`).

use puffin_lens::engine::model::ScopeTable;
use puffin_lens::engine::write::puffin::{Compression, Format, synthetic_capture, write_recording};
use puffin_lens::engine::{self, decode_puffin};
mod common;

use common::{best_of, max_rss_kib_of};
use std::time::{Duration, Instant};

const RUNS: usize = 5;

/// puffin 0.20's own path: read every frame, unpack it, walk every scope.
fn puffin_walk(bytes: &[u8]) -> (usize, i64) {
    use puffin::{FrameData, Reader};
    let mut cursor = std::io::Cursor::new(&bytes[4..]);
    let mut scopes = 0usize;
    let mut checksum = 0i64;
    fn walk(stream: &puffin::Stream, offset: u64, scopes: &mut usize, checksum: &mut i64) {
        let reader = Reader::with_offset(stream, offset).expect("valid offset");
        for scope in reader {
            let scope = scope.expect("valid stream");
            *scopes += 1;
            *checksum = checksum
                .wrapping_add(scope.record.duration_ns)
                .wrapping_add(scope.record.data.len() as i64)
                .wrapping_add(i64::from(scope.id.0.get()));
            walk(stream, scope.child_begin_position, scopes, checksum);
        }
    }
    while let Some(frame) = FrameData::read_next(&mut cursor).expect("valid recording") {
        let unpacked = frame.unpacked().expect("unpacks");
        for stream_info in unpacked.thread_streams.values() {
            walk(&stream_info.stream, 0, &mut scopes, &mut checksum);
        }
    }
    (scopes, checksum)
}

/// Child-process mode: decode FILE once with one path, print milliseconds.
fn cold_child(path: &str, which: &str) {
    let bytes = std::fs::read(path).expect("read capture");
    let t = Instant::now();
    let scopes = match which {
        "puffin" => puffin_walk(&bytes).0,
        "ours" => decode_puffin(&bytes).expect("decodes").trace.scopes.len(),
        _ => engine::decode_puffin_parallel(&bytes)
            .expect("decodes")
            .trace
            .scopes
            .len(),
    };
    println!("{} {scopes}", t.elapsed().as_secs_f64() * 1e3);
}

/// Best time of `which` over fresh processes (cold allocator and pages, as a CLI run).
fn cold_ms(path: &std::path::Path, which: &str) -> f64 {
    (0..RUNS)
        .map(|_| {
            let out = std::process::Command::new(std::env::current_exe().expect("exe"))
                .env("PUFFIN_LENS_BENCH_COLD", path)
                .env("PUFFIN_LENS_BENCH_WHICH", which)
                .output()
                .expect("spawn child");
            let text = String::from_utf8_lossy(&out.stdout);
            text.split_whitespace()
                .next()
                .and_then(|ms| ms.parse::<f64>().ok())
                .expect("child prints its time")
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    if let (Ok(path), Ok(which)) = (
        std::env::var("PUFFIN_LENS_BENCH_COLD"),
        std::env::var("PUFFIN_LENS_BENCH_WHICH"),
    ) {
        cold_child(&path, &which);
        return;
    }
    // `cargo bench` passes `--bench`; ignore arguments.
    let frames = 200;
    let workers = 3;
    let per_frame = 10_000;
    let t = Instant::now();
    let capture = synthetic_capture(frames, workers, per_frame);
    println!(
        "generated {frames} frames x {} threads in {:.1?}",
        workers + 1,
        t.elapsed()
    );

    if std::env::var("PUFFIN_LENS_BENCH_ONLY").is_ok() {
        let bytes = write_recording(&capture, Format::Pfd4(Compression::Lz4));
        let (t, _) = best_of(20, || decode_puffin(&bytes).expect("decodes"));
        println!("ours: {:.1} ms", t.as_secs_f64() * 1e3);
        return;
    }
    let dir = std::env::temp_dir().join("puffin-lens-bench");
    std::fs::create_dir_all(&dir).expect("temp dir");

    for (label, compression) in [("lz4", Compression::Lz4), ("zstd", Compression::Zstd)] {
        let bytes = write_recording(&capture, Format::Pfd4(compression));
        let decoded = decode_puffin(&bytes).expect("decodes");
        let n = decoded.trace.scopes.len();
        println!(
            "\n== PFD4 {label}: {:.1} MB file, {n} scope instances, {} frames",
            bytes.len() as f64 / 1e6,
            decoded.trace.frames.len()
        );
        assert!(n >= 2_000_000, "capture must hold at least 2M scopes");
        assert!(!decoded.is_damaged());

        // Interleaved, best of each, so both see the same machine state.
        let mut puffin_time = Duration::MAX;
        let mut ours_time = Duration::MAX;
        let mut ours = decoded;
        for _ in 0..RUNS {
            let (t, (puffin_scopes, _)) = best_of(1, || puffin_walk(&bytes));
            assert_eq!(puffin_scopes, n, "both paths see every scope");
            puffin_time = puffin_time.min(t);
            drop(ours);
            let (t, decoded) = best_of(1, || decode_puffin(&bytes).expect("decodes"));
            ours_time = ours_time.min(t);
            ours = decoded;
        }
        assert_eq!(ours.trace.scopes.len(), n);
        println!(
            "decode, single thread:  puffin 0.20 path {:>8.1} ms | puffin-lens (full model) {:>8.1} ms | speed-up {:.2}x",
            puffin_time.as_secs_f64() * 1e3,
            ours_time.as_secs_f64() * 1e3,
            puffin_time.as_secs_f64() / ours_time.as_secs_f64()
        );
        println!(
            "  throughput: {:.1} M scopes/s, {:.0} MB/s of file",
            n as f64 / ours_time.as_secs_f64() / 1e6,
            bytes.len() as f64 / ours_time.as_secs_f64() / 1e6
        );
        drop(ours);
        // Back to back, as criterion times a routine: the allocator hands the
        // previous run's freed model memory back, so no page is faulted in anew.
        let (puffin_warm, _) = best_of(2 * RUNS, || puffin_walk(&bytes));
        let (ours_warm, ours) = best_of(2 * RUNS, || decode_puffin(&bytes).expect("decodes"));
        assert_eq!(ours.trace.scopes.len(), n);
        drop(ours);
        println!(
            "decode, single thread, back to back: puffin 0.20 path {:>8.1} ms | puffin-lens {:>8.1} ms | speed-up {:.2}x",
            puffin_warm.as_secs_f64() * 1e3,
            ours_warm.as_secs_f64() * 1e3,
            puffin_warm.as_secs_f64() / ours_warm.as_secs_f64()
        );
        let (par_time, par) = best_of(RUNS, || {
            engine::decode_puffin_parallel(&bytes).expect("decodes")
        });
        assert_eq!(par.trace.scopes.len(), n);
        println!(
            "decode, parallel decompression ({} threads): {:>8.1} ms | speed-up vs puffin {:.2}x",
            rayon::current_num_threads(),
            par_time.as_secs_f64() * 1e3,
            puffin_time.as_secs_f64() / par_time.as_secs_f64()
        );
        let ours = par;
        let path = dir.join(format!("bench_{label}.puffin"));
        std::fs::write(&path, &bytes).expect("write capture");
        let (cold_puffin, cold_ours, cold_par) = (
            cold_ms(&path, "puffin"),
            cold_ms(&path, "ours"),
            cold_ms(&path, "parallel"),
        );
        println!(
            "decode in a fresh process (as a CLI run): puffin 0.20 path {cold_puffin:.1} ms | puffin-lens single thread {cold_ours:.1} ms ({:.2}x) | parallel {cold_par:.1} ms ({:.2}x)",
            cold_puffin / cold_ours,
            cold_puffin / cold_par
        );

        if compression == Compression::Lz4 {
            let trace = &ours.trace;
            let mut buf = Vec::with_capacity(512 << 20);
            let (export_time, len) = best_of(RUNS, || {
                buf.clear();
                let out = engine::write_export(trace, "bench.puffin", &mut buf, false)
                    .expect("writes to memory");
                out.len()
            });
            println!(
                "export JSON: {:.1} MB in {:.1} ms = {:.0} MB/s",
                len as f64 / 1e6,
                export_time.as_secs_f64() * 1e3,
                len as f64 / export_time.as_secs_f64() / 1e6
            );
            println!(
                "model: {} bytes per scope instance (columns), {:.1} bytes measured incl. capacity; strings {:.1} MB for {} unique",
                ScopeTable::BYTES_PER_INSTANCE,
                trace.scope_table_bytes() as f64 / n as f64,
                trace.strings.heap_bytes() as f64 / 1e6,
                trace.strings.len()
            );

            let exe = env!("CARGO_BIN_EXE_puffin-lens");
            match max_rss_kib_of(&[exe, "dump", path.to_str().unwrap_or_default()]) {
                Some(kib) => println!(
                    "peak memory of `puffin-lens dump` (max RSS): {:.0} MB",
                    kib as f64 / 1024.0
                ),
                None => println!("peak memory: /usr/bin/time not available"),
            }
        }
    }
}
