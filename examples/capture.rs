//! Helper for the browser benchmark (`web/bench.mjs`):
//!
//! - `capture gen OUT.puffin [lz4|zstd]`: writes the benchmark capture
//!   (200 frames x 4 threads, 2 million scopes, nesting and data strings);
//! - `capture decode FILE`: times the native decode of FILE, single-threaded
//!   and parallel (best of 5), and prints `{"scopes","single_ms","parallel_ms"}`.

use puffin_lens::engine::write::{Compression, Format, synthetic_capture, write_recording};
use puffin_lens::engine::{decode_puffin, decode_puffin_parallel};
use std::time::Instant;

fn best_ms(f: impl Fn() -> usize) -> (f64, usize) {
    let mut best = f64::MAX;
    let mut n = 0;
    for _ in 0..5 {
        let t = Instant::now();
        n = f();
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
    }
    (best, n)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["gen", out, rest @ ..] => {
            let compression = match rest.first().copied() {
                Some("zstd") => Compression::Zstd,
                _ => Compression::Lz4,
            };
            let bytes = write_recording(
                &synthetic_capture(200, 3, 10_000),
                Format::Pfd4(compression),
            );
            std::fs::write(out, &bytes).expect("write the capture");
            eprintln!("wrote {out}: {:.1} MB", bytes.len() as f64 / 1e6);
        }
        ["decode", file] => {
            let bytes = std::fs::read(file).expect("read the capture");
            let (single_ms, scopes) =
                best_ms(|| decode_puffin(&bytes).expect("decodes").trace.scopes.len());
            let (parallel_ms, _) = best_ms(|| {
                decode_puffin_parallel(&bytes)
                    .expect("decodes")
                    .trace
                    .scopes
                    .len()
            });
            println!(
                "{{\"scopes\":{scopes},\"single_ms\":{single_ms:.1},\"parallel_ms\":{parallel_ms:.1}}}"
            );
        }
        _ => {
            eprintln!("usage: capture gen OUT.puffin [lz4|zstd] | capture decode FILE");
            std::process::exit(2);
        }
    }
}
