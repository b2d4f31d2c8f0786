//! Scale benchmark (issue 21): `cargo bench --bench scale`.
//!
//! The worst case a real app's capture makes: 2M scopes nested at random
//! from 300 names, a unique data string on nine in ten
//! (`write::puffin::worst_case_capture`), A and B (another seed). Each
//! command runs end to end, as a user runs it (read, decode, answer, print
//! to /dev/null); its time is quoted against `top` on the same file (decode
//! and a trivial query; for two files, `top` on each) and its peak memory
//! (max RSS) in MB, best of 3.
//! `PUFFIN_LENS_SCALE_20M=1` adds the 20M-scope capture (generated, not
//! committed): `summary` and `tree --depth 4 --json`.

mod common;

use common::max_rss_kib_of;
use puffin_lens::engine::write::puffin::{
    Compression, Format, worst_case_capture, write_recording,
};
use std::time::Instant;

const EXE: &str = env!("CARGO_BIN_EXE_puffin-lens");

/// Best-of-3 seconds and the peak MB of running the CLI with `args`.
fn measure(args: &[&str]) -> (f64, f64) {
    let mut best = f64::MAX;
    for _ in 0..3 {
        let t = Instant::now();
        let out = std::process::Command::new(EXE)
            .args(args)
            .stdout(std::process::Stdio::null())
            .output()
            .expect("runs");
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        best = best.min(t.elapsed().as_secs_f64());
    }
    let mut cmd = vec![EXE];
    cmd.extend_from_slice(args);
    let rss = max_rss_kib_of(&cmd).map_or(f64::NAN, |k| k as f64 / 1024.0);
    (best, rss)
}

fn main() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let write = |name: &str, frames: u64, per_frame: usize, seed: u64| {
        let path = tmp.path().join(name);
        let bytes = write_recording(
            &worst_case_capture(frames, per_frame, 300, seed),
            Format::Pfd4(Compression::Lz4),
        );
        std::fs::write(&path, &bytes).expect("write");
        println!("{name}: {:.1} MB", bytes.len() as f64 / 1e6);
        path.to_str().expect("utf-8").to_owned()
    };
    let a = write("worst_a.puffin", 200, 10_000, 1);
    let b = write("worst_b.puffin", 200, 10_000, 2);
    let out = tmp.path().join("out");
    let out = out.to_str().expect("utf-8");
    let (top, top_mb) = measure(&["top", &a]);
    println!("`top A` (decode and a trivial query): {top:.2} s, {top_mb:.0} MB\n");
    // Two files: decoding both.
    let top2 = top + measure(&["top", &b]).0;
    let runs: [(&str, Vec<&str>, f64); 9] = [
        ("tree A --json", vec!["tree", &a, "--json"], top),
        ("tree A (text)", vec!["tree", &a], top),
        (
            "callers A fn_7 --json",
            vec!["callers", &a, "fn_7", "--json"],
            top,
        ),
        (
            "find A --aggregate --by name-data --json",
            vec!["find", &a, "--aggregate", "--by", "name-data", "--json"],
            top,
        ),
        (
            "compare A B --json",
            vec!["compare", &a, &b, "--json"],
            top2,
        ),
        ("diff A B --json", vec!["diff", &a, &b, "--json"], top2),
        (
            "report A B --format json",
            vec!["report", &a, &b, "--format", "json"],
            top2,
        ),
        (
            "export A --format parquet",
            vec!["export", &a, "-o", out],
            top,
        ),
        ("summary A", vec!["summary", &a], top),
    ];
    println!(
        "{:<44} {:>8} {:>10} {:>8}",
        "run", "seconds", "x baseline", "peak MB"
    );
    for (what, args, base) in runs {
        let (s, mb) = measure(&args);
        println!("{what:<44} {s:>8.2} {:>10.1} {mb:>8.0}", s / base);
    }
    println!("(baseline: `top A`, {top:.2} s; for two files `top A` + `top B`, {top2:.2} s)");
    if std::env::var_os("PUFFIN_LENS_SCALE_20M").is_some() {
        let big = write("worst_20m.puffin", 2_000, 10_000, 3);
        let (sum, sum_mb) = measure(&["summary", &big]);
        let (tree, tree_mb) = measure(&["tree", &big, "--depth", "4", "--json"]);
        println!(
            "20M scopes: summary {sum:.2} s, {sum_mb:.0} MB ({:.0} bytes a scope); \
             tree --depth 4 --json {tree:.2} s ({:.1}x), {tree_mb:.0} MB",
            sum_mb * 1024.0 * 1024.0 / 20e6,
            tree / sum
        );
    }
}
