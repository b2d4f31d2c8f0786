//! Live capture benchmark: `cargo bench --bench live`.
//!
//! The 2M-scope capture (200 frames, 4 threads) replayed through a local
//! TCP server as puffin_http sends it (`u16` version + one PFD4/lz4 record
//! per frame), read by the live client into a `LiveRecording` (framing,
//! decoding, the model): frames/s, MB/s and scopes/s it sustains. Then what
//! one refresh of the app's views costs on that recording (snapshot of the
//! model, summary, overview), which bounds how often the views update.

mod common;

use common::best_of;
use puffin_lens::app::{Loaded, Recording};
use puffin_lens::engine::read::live::{LiveRecording, Retention};
use puffin_lens::engine::read::live_tcp::{LiveClient, LiveOptions, LiveStatus};
use puffin_lens::engine::write::puffin::{Compression, Format, synthetic_capture, write_frame};
use std::io::Write as _;
use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

const RUNS: usize = 3;

fn unlimited() -> Retention {
    Retention {
        max_frames: usize::MAX,
        max_mb: usize::MAX,
    }
}

/// Serves `wire` once to the first client, then closes.
fn serve_once(wire: Arc<Vec<u8>>) -> (String, std::thread::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr").to_string();
    let t = std::thread::spawn(move || {
        if let Ok((mut s, _)) = listener.accept() {
            let _ = s.write_all(&wire);
        }
    });
    (addr, t)
}

fn main() {
    let capture = synthetic_capture(200, 3, 10_000);
    let mut wire = Vec::new();
    for f in &capture {
        wire.extend_from_slice(&2u16.to_le_bytes());
        write_frame(&mut wire, f, Format::Pfd4(Compression::Lz4));
    }
    let wire = Arc::new(wire);
    let mb = wire.len() as f64 / 1e6;

    let (took, scopes) = best_of(RUNS, || {
        let (addr, server) = serve_once(wire.clone());
        let options = LiveOptions {
            reconnect: false,
            max_frames: None,
            retention: unlimited(),
        };
        let client = LiveClient::start(&addr, options, || {}).expect("client");
        while !client.is_finished() {
            std::thread::sleep(Duration::from_millis(1));
        }
        let _ = server.join();
        let state = client.state();
        assert_eq!(state.status, LiveStatus::Ended(None));
        assert_eq!(state.recording.frames(), 200);
        state.recording.snapshot().trace.scopes.len()
    });
    let s = took.as_secs_f64();
    println!(
        "live client over TCP, {} frames, {scopes} scopes, {mb:.1} MB: {:.0} ms = {:.0} frames/s, {:.0} MB/s, {:.1} M scopes/s",
        200,
        s * 1e3,
        200.0 / s,
        mb / s,
        scopes as f64 / s / 1e6,
    );

    // Without the network: framing and decoding alone.
    let (took, _) = best_of(RUNS, || {
        let mut live = LiveRecording::new(unlimited());
        let mut reader = puffin_lens::engine::read::live::MessageReader::new();
        for chunk in wire.chunks(256 << 10) {
            reader.feed(chunk);
            while let Some(m) = reader.next_message().expect("valid") {
                live.push(&m);
            }
        }
        live.frames()
    });
    let s = took.as_secs_f64();
    println!(
        "ingest alone (frame + decode into the model): {:.0} ms = {:.0} frames/s, {:.0} MB/s",
        s * 1e3,
        200.0 / s,
        mb / s
    );

    // One refresh of the views on the 2M-scope live recording.
    let mut live = LiveRecording::new(unlimited());
    let mut reader = puffin_lens::engine::read::live::MessageReader::new();
    reader.feed(&wire);
    while let Some(m) = reader.next_message().expect("valid") {
        live.push(&m);
    }
    let (snap, _) = best_of(RUNS, || live.snapshot());
    let (refresh, _) = best_of(RUNS, || {
        let decoded = live.snapshot();
        let loaded = Arc::new(Loaded::new("live".into(), decoded, live.kept_bytes(), 0.0));
        Recording::new(loaded, 16.7, Default::default())
    });
    println!(
        "one refresh of the views (2M scopes): snapshot {:.1} ms, snapshot + summary + overview {:.1} ms \
         (the app refreshes at most every max(500 ms, 3 x this))",
        snap.as_secs_f64() * 1e3,
        refresh.as_secs_f64() * 1e3
    );

    // Retention: 2M scopes kept to the newest 100 frames while they arrive.
    let (took, kept) = best_of(RUNS, || {
        let mut live = LiveRecording::new(Retention {
            max_frames: 100,
            max_mb: usize::MAX,
        });
        let mut reader = puffin_lens::engine::read::live::MessageReader::new();
        reader.feed(&wire);
        while let Some(m) = reader.next_message().expect("valid") {
            live.push(&m);
        }
        live.frames()
    });
    println!(
        "ingest with retention of 100 frames (the oldest dropped in place): {:.0} ms, {kept} frames kept",
        took.as_secs_f64() * 1e3
    );
}
