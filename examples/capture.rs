//! Helper for the browser benchmark (`web/bench.mjs`):
//!
//! - `capture gen OUT [lz4|zstd|json]`: writes the benchmark capture
//!   (200 frames x 4 threads, 2 million scopes, nesting and data strings),
//!   or its JSON dump;
//! - `capture decode FILE`: times the native decode of FILE (a recording or
//!   a JSON dump), single-threaded and parallel (best of 5), and prints
//!   `{"scopes","single_ms","parallel_ms"}`.

use puffin_lens::engine::write::{Compression, Format, synthetic_capture, write_recording};
use puffin_lens::engine::{decode_puffin, export_string, json_in, load};
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
            let mut bytes = write_recording(
                &synthetic_capture(200, 3, 10_000),
                Format::Pfd4(compression),
            );
            if rest.first() == Some(&"json") {
                let trace = decode_puffin(&bytes).expect("decodes").trace;
                bytes = export_string(&trace, "capture.puffin", false).into_bytes();
            }
            std::fs::write(out, &bytes).expect("write the capture");
            eprintln!("wrote {out}: {:.1} MB", bytes.len() as f64 / 1e6);
        }
        ["decode", file] => {
            let bytes = std::fs::read(file).expect("read the capture");
            let (single_ms, scopes) = if json_in::looks_like_json(&bytes) {
                best_ms(|| load(&bytes).expect("parses").trace.scopes.len())
            } else {
                best_ms(|| decode_puffin(&bytes).expect("decodes").trace.scopes.len())
            };
            // JSON dumps are parsed on one thread.
            let (parallel_ms, _) = best_ms(|| load(&bytes).expect("loads").trace.scopes.len());
            println!(
                "{{\"scopes\":{scopes},\"single_ms\":{single_ms:.1},\"parallel_ms\":{parallel_ms:.1}}}"
            );
        }
        _ => {
            eprintln!("usage: capture gen OUT [lz4|zstd|json] | capture decode FILE");
            std::process::exit(2);
        }
    }
}
