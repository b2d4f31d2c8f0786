#![allow(dead_code)] // Each bench uses some of these.
//! Shared by the benchmarks.

use std::time::{Duration, Instant};

/// Runs `f` `runs` times; the fastest time and the last result.
pub fn best_of<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..runs {
        let t = Instant::now();
        let out = f();
        best = best.min(t.elapsed());
        last = Some(out);
    }
    (best, last.expect("runs > 0"))
}

/// Peak memory (max RSS, KiB) of running `cmd`, by `/usr/bin/time`.
#[allow(dead_code)]
pub fn max_rss_kib_of(cmd: &[&str]) -> Option<u64> {
    let out = std::process::Command::new("/usr/bin/time")
        .arg("-f")
        .arg("%M")
        .args(cmd)
        .stdout(std::process::Stdio::null())
        .output()
        .ok()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    stderr.lines().last()?.trim().parse().ok()
}

/// Milliseconds of `d`.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// `frames` written as an lz4 recording and decoded, as the app holds it.
pub fn loaded(
    name: &str,
    frames: &[puffin_lens::engine::write::puffin::FrameData],
) -> std::sync::Arc<puffin_lens::app::Loaded> {
    use puffin_lens::engine::write::puffin::{Compression, Format, write_recording};
    let bytes = write_recording(frames, Format::Pfd4(Compression::Lz4));
    let decoded = puffin_lens::engine::decode_puffin(&bytes).expect("decodes");
    std::sync::Arc::new(puffin_lens::app::Loaded::new(
        name.to_owned(),
        decoded,
        bytes.len(),
        0.0,
    ))
}
