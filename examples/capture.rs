//! Helper for the browser benchmark (`web/bench.mjs`):
//!
//! - `capture gen OUT [lz4|zstd|json] [FRAMES]`: writes the benchmark
//!   capture (FRAMES frames, default 200, x 4 threads, 10,000 scopes a
//!   frame: 2 million scopes, nesting and data strings), or its JSON dump;
//! - `capture huge OUT FRAMES SCOPES`: writes a valid PFD4 zstd recording
//!   of FRAMES frames of SCOPES scopes each (one frame's streams, compressed
//!   once and repeated under each frame's own metadata): megabytes on disk,
//!   hundreds of millions of scopes decoded (the browser test's recording too
//!   large for wasm memory);
//! - `capture worst OUT SEED [FRAMES]`: writes the scale benchmark's worst
//!   case (`write::puffin::worst_case_capture`: FRAMES frames, default 200,
//!   of 10,000 scopes nested at random from 300 names, a unique data string
//!   on most), lz4;
//! - `capture spaced OUT FRAMES`: FRAMES frames of 10 ms, a 9 ms scope
//!   (with two children) in each on the main thread and 1 ms between, and
//!   a worker thread busy once every 100 frames (the browser test's
//!   timeline zoomed out);
//! - `capture example DIR`: writes the app's "Try an example" pair,
//!   `DIR/example_before.puffin` and `DIR/example_after.puffin`: a game
//!   loop on vsync (60 Hz) recorded through puffin on a simulated clock
//!   ([`example_loop`]);
//! - `capture hostile OUT [b]`: writes the hostile recording of the tests
//!   (tests/common/hostile.rs: every string an attack on some output), A or B;
//! - `capture decode FILE`: times the native decode of FILE (a recording or
//!   a JSON dump), single-threaded and parallel (best of 5), and prints
//!   `{"scopes","single_ms","parallel_ms"}`;
//! - `capture runs FILE [RUN_BYTES]`: the browser's worker path on one
//!   thread (best of 5): the work of decoding the runs (what the workers
//!   do, bytes included), and of reading their bytes back and merging them
//!   (what the page's thread does), next to the single-thread decode.

use puffin_lens::engine::read::bytes::{ByteReader, write_varint_i64, write_varint_u64};
use puffin_lens::engine::write::puffin::{
    Compression, Format, FrameData, Registration, ScopeNode, ThreadData, synthetic_capture,
    worst_case_capture, write_frame, write_recording,
};
use puffin_lens::engine::{decode_puffin, export_string, load};
use std::time::Instant;

#[path = "../tests/common/hostile.rs"]
mod hostile;
#[path = "../tests/common/planted.rs"]
mod planted;

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
            let frames: usize = rest
                .get(1)
                .map_or(200, |f| f.parse().expect("FRAMES is a number"));
            let mut bytes = write_recording(
                &synthetic_capture(frames, 3, 10_000),
                Format::Pfd4(compression),
            );
            if rest.first() == Some(&"json") {
                let trace = decode_puffin(&bytes).expect("decodes").trace;
                bytes = export_string(&trace, "capture.puffin", false).into_bytes();
            }
            std::fs::write(out, &bytes).expect("write the capture");
            eprintln!("wrote {out}: {:.1} MB", bytes.len() as f64 / 1e6);
        }
        ["huge", out, frames, scopes] => {
            let frames: u64 = frames.parse().expect("FRAMES is a number");
            let scopes: usize = scopes.parse().expect("SCOPES is a number");
            let bytes = huge_recording(frames, scopes);
            std::fs::write(out, &bytes).expect("write the recording");
            eprintln!(
                "wrote {out}: {:.1} MB, {} scopes",
                bytes.len() as f64 / 1e6,
                frames * scopes as u64
            );
        }
        ["worst", out, seed, rest @ ..] => {
            let seed: u64 = seed.parse().expect("SEED is a number");
            let frames: u64 = rest
                .first()
                .map_or(200, |f| f.parse().expect("FRAMES is a number"));
            let bytes = write_recording(
                &worst_case_capture(frames, 10_000, 300, seed),
                Format::Pfd4(Compression::Lz4),
            );
            std::fs::write(out, &bytes).expect("write the recording");
            eprintln!("wrote {out}: {:.1} MB", bytes.len() as f64 / 1e6);
        }
        ["spaced", out, frames] => {
            let frames: u64 = frames.parse().expect("FRAMES is a number");
            let bytes = write_recording(&spaced_capture(frames), Format::Pfd4(Compression::Lz4));
            std::fs::write(out, &bytes).expect("write the recording");
            eprintln!("wrote {out}: {:.1} MB", bytes.len() as f64 / 1e6);
        }
        ["example", dir] => {
            for (after, name) in [
                (false, "example_before.puffin"),
                (true, "example_after.puffin"),
            ] {
                let bytes = planted::record(&example_loop(after));
                let path = std::path::Path::new(dir).join(name);
                std::fs::write(&path, &bytes).expect("write the recording");
                eprintln!("wrote {}: {} bytes", path.display(), bytes.len());
            }
        }
        ["hostile", out, rest @ ..] => {
            let frames = hostile::hostile_capture(rest.first() == Some(&"b"));
            let bytes = write_recording(&frames, Format::Pfd4(Compression::Lz4));
            std::fs::write(out, &bytes).expect("write the recording");
        }
        ["decode", file] => {
            let bytes = std::fs::read(file).expect("read the capture");
            let (single_ms, scopes) = if puffin_lens::engine::read::looks_like_json(&bytes) {
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
        ["runs", file, rest @ ..] => {
            use puffin_lens::engine::PuffinDecoder;
            use puffin_lens::engine::read::fragment::{Fragment, decode_run};
            let bytes = std::fs::read(file).expect("read the capture");
            let run_bytes: usize = rest
                .first()
                .map_or(1 << 20, |s| s.parse().expect("RUN_BYTES"));
            let (single_ms, scopes) =
                best_ms(|| decode_puffin(&bytes).expect("decodes").trace.scopes.len());
            let (mut workers_ms, mut page_ms, mut largest_merge_ms) = (f64::MAX, f64::MAX, 0.0f64);
            let mut runs = 0;
            let mut first_page_ms = 0.0;
            for round in 0..5 {
                let mut decoder = PuffinDecoder::new(&bytes[..]).expect("decodes");
                let mut located = Vec::new();
                while let Some(run) = decoder.next_run(run_bytes) {
                    located.push(run);
                }
                runs = located.len();
                let t = Instant::now();
                let fragments: Vec<Vec<u8>> = located
                    .iter()
                    .map(|run| {
                        decode_run(&bytes[run.bytes.clone()], run.bytes.start, run.first_record)
                            .to_bytes()
                    })
                    .collect();
                workers_ms = workers_ms.min(t.elapsed().as_secs_f64() * 1e3);
                let t = Instant::now();
                let mut largest = 0.0f64;
                for f in &fragments {
                    let t = Instant::now();
                    Fragment::from_bytes(f)
                        .expect("reads back")
                        .merge_into(&mut decoder)
                        .expect("merges");
                    largest = largest.max(t.elapsed().as_secs_f64() * 1e3);
                }
                let merged = decoder.finish().trace.scopes.len();
                assert_eq!(merged, scopes);
                page_ms = page_ms.min(t.elapsed().as_secs_f64() * 1e3);
                if round == 0 {
                    first_page_ms = t.elapsed().as_secs_f64() * 1e3;
                }
                largest_merge_ms = largest;
            }
            println!(
                "{{\"scopes\":{scopes},\"runs\":{runs},\"single_ms\":{single_ms:.1},\"workers_ms\":{workers_ms:.1},\"page_ms\":{page_ms:.1},\"first_page_ms\":{first_page_ms:.1},\"largest_merge_ms\":{largest_merge_ms:.1}}}"
            );
        }
        _ => {
            eprintln!(
                "usage: capture gen OUT [lz4|zstd|json] [FRAMES] | capture huge OUT FRAMES SCOPES | \
                 capture worst OUT SEED [FRAMES] | capture spaced OUT FRAMES | \
                 capture example DIR | capture hostile OUT [b] | capture decode FILE | capture runs FILE [RUN_BYTES]"
            );
            std::process::exit(2);
        }
    }
}

/// `capture spaced`: FRAMES frames of 10 ms; on the main thread a 9 ms
/// scope with two children in each, on a worker one scope every 100 frames.
fn spaced_capture(frames: u64) -> Vec<FrameData> {
    const MS: i64 = 1_000_000;
    let t0 = 1_700_000_000_000_000_000i64;
    (0..frames)
        .map(|f| {
            let t = t0 + f as i64 * 10 * MS;
            let mut root = ScopeNode::new(1, t, t + 9 * MS);
            root.children = vec![
                ScopeNode::new(2, t + MS, t + 4 * MS),
                ScopeNode::new(2, t + 5 * MS, t + 8 * MS),
            ];
            // A worker that runs once every 100 frames: a mostly empty lane.
            let worker = ThreadData {
                name: "worker".to_owned(),
                start_time_ns: Some(t0),
                scopes: if f % 100 == 0 {
                    vec![ScopeNode::new(2, t + 2 * MS, t + 4 * MS)]
                } else {
                    Vec::new()
                },
            };
            FrameData {
                frame_index: f,
                threads: vec![
                    ThreadData {
                        name: "main".to_owned(),
                        start_time_ns: Some(t0),
                        scopes: vec![root],
                    },
                    worker,
                ],
                // Scope details go out once, with the first frame.
                registrations: if f == 0 {
                    vec![
                        Registration::function(1, "app::frame", "src/main.rs", 1),
                        Registration::function(2, "app::work", "src/main.rs", 2),
                    ]
                } else {
                    Vec::new()
                },
            }
        })
        .collect()
}

/// FRAMES frames of SCOPES scopes each (a `frame` scope and its `tick`
/// children on one thread), one frame's record written once and repeated
/// with each frame's own index and time range in its metadata.
fn huge_recording(frames: u64, scopes: usize) -> Vec<u8> {
    const FRAME_NS: i64 = 16_000_000;
    let ticks = (0..scopes.saturating_sub(1)).map(|_| ScopeNode::new(2, 0, 1).data("tick"));
    let mut root = ScopeNode::new(1, 0, FRAME_NS);
    root.children = ticks.collect();
    let frame = FrameData {
        frame_index: 0,
        threads: vec![ThreadData {
            name: "main".to_owned(),
            start_time_ns: None,
            scopes: vec![root],
        }],
        registrations: vec![
            Registration::named(1, "frame", "huge::main", "src/main.rs", 1),
            Registration::named(2, "tick", "huge::main", "src/main.rs", 2),
        ],
    };
    let mut record = Vec::new();
    write_frame(&mut record, &frame, Format::Pfd4(Compression::Zstd));
    // "PFD4" u32 meta_len meta(frame_index, range, num_bytes, num_scopes) rest
    let mut r = ByteReader::new(&record[4..]);
    let meta_len = r.u32_le("meta length").expect("written above") as usize;
    let mut meta = ByteReader::new(&record[8..8 + meta_len]);
    meta.varint_u64("frame index").expect("written above");
    let range = (
        meta.varint_i64("start").expect("written above"),
        meta.varint_i64("end").expect("written above"),
    );
    let num_bytes = meta.varint_u64("bytes").expect("written above");
    let num_scopes = meta.varint_u64("scopes").expect("written above");
    let rest = &record[8 + meta_len..];
    let mut out = b"PUF0".to_vec();
    for i in 0..frames {
        let shift = i as i64 * FRAME_NS;
        let mut meta = Vec::new();
        write_varint_u64(&mut meta, i);
        write_varint_i64(&mut meta, range.0 + shift);
        write_varint_i64(&mut meta, range.1 + shift);
        write_varint_u64(&mut meta, num_bytes);
        write_varint_u64(&mut meta, num_scopes);
        out.extend_from_slice(b"PFD4");
        out.extend_from_slice(&(meta.len() as u32).to_le_bytes());
        out.extend_from_slice(&meta);
        out.extend_from_slice(rest);
    }
    out
}

/// The "Try an example" game loop, 300 frames on vsync (60 Hz: a frame
/// starts at the first tick after the last one ended), 3% jitter: `main`
/// runs `frame` > `input::poll`, `physics::step` (> `solve_contacts`,
/// `integrate`), `ai::think`, `render::prepare` (waiting, without a scope,
/// while `worker-0..2` build meshes, then `upload`), `render::submit`.
/// After (`after`): `solve_contacts` 2.0 → 2.6 ms a call, and a new 9 ms
/// `save::autosave` every 10th frame, which then misses its vsync: the
/// pair's findings and its frame pacing both have something to say.
fn example_loop(after: bool) -> Vec<planted::Frame> {
    use planted::{Rng, Span, T0};
    const TICK: i64 = 16_666_667;
    let mut rng = Rng::new(if after { 2 } else { 1 });
    let mut prev_end = T0;
    (0..300usize)
        .map(|f| {
            let start = T0 + (prev_end - T0 + TICK - 1) / TICK * TICK;
            let mut t = start + rng.ns(0.05, 0.03);
            let leaf = |name: &'static str, ms: f64, t: &mut i64, rng: &mut Rng| {
                let s = Span::new(name, *t, *t + rng.ns(ms, 0.03));
                *t = s.end_ns;
                s
            };
            let mut main = Span::new("frame", start, 0);
            main = main.child(leaf("input::poll", 0.4, &mut t, &mut rng));
            let p0 = t;
            let solve = leaf(
                "solve_contacts",
                if after { 2.6 } else { 2.0 },
                &mut t,
                &mut rng,
            );
            let integrate = leaf("integrate", 0.5, &mut t, &mut rng);
            main = main.child(
                Span::new("physics::step", p0, t)
                    .child(solve)
                    .child(integrate),
            );
            main = main.child(leaf("ai::think", 1.2, &mut t, &mut rng));
            if after && f % 10 == 9 {
                main = main.child(leaf("save::autosave", 9.0, &mut t, &mut rng));
            }
            let r0 = t;
            let wait_end = r0 + rng.ns(3.0, 0.03);
            let mut u = wait_end;
            let upload = leaf("upload", 0.6, &mut u, &mut rng);
            main = main.child(Span::new("render::prepare", r0, u).child(upload));
            t = u;
            main = main.child(leaf("render::submit", 2.0, &mut t, &mut rng));
            main.end_ns = t + rng.ns(0.1, 0.03);
            prev_end = main.end_ns;
            let mut frame = vec![("main".to_owned(), vec![main])];
            for w in 0..3 {
                let b0 = r0 + rng.ns(0.05, 0.03);
                let b1 = wait_end - rng.ns(0.1 + 0.3 * w as f64, 0.03);
                frame.push((
                    format!("worker-{w}"),
                    vec![Span::new("mesh::build", b0, b1).data(format!("chunk {w}"))],
                ));
            }
            frame
        })
        .collect()
}
