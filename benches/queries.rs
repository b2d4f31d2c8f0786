//! Query benchmark: `cargo bench --bench queries`.
//!
//! On a generated capture of 2 million scopes: each analysis on the built
//! model (best of several runs), then a whole CLI run of `top` (decode +
//! query + print, fresh process) against dumping to JSON and running the
//! classic jq recipe on the same capture.

use puffin_lens::engine::analyses::{self, CompareOptions, FindFilter, GroupBy};
use puffin_lens::engine::decode_puffin;
use puffin_lens::engine::write::puffin::{Compression, Format, synthetic_capture, write_recording};
use std::process::{Command, Stdio};
mod common;

use common::best_of;
use std::time::{Duration, Instant};

const RUNS: usize = 5;
const JQ_TOP10: &str = r#"[.. | objects | select(has("duration_ns") and has("name"))] | sort_by(-.duration_ns) | .[0:10]"#;

fn best<T>(f: impl FnMut() -> T) -> (Duration, T) {
    best_of(RUNS, f)
}

fn report(name: &str, time: Duration, rows: usize) {
    println!(
        "{name:<34} {:>8.2} ms  ({rows} rows)",
        time.as_secs_f64() * 1e3
    );
}

fn main() {
    let capture = synthetic_capture(200, 3, 10_000);
    let bytes = write_recording(&capture, Format::Pfd4(Compression::Lz4));
    let trace = decode_puffin(&bytes).expect("decodes").trace;
    let n = trace.scopes.len();
    println!(
        "capture: {n} scopes, {} frames, {:.1} MB (PFD4 lz4)\n",
        trace.frames.len(),
        bytes.len() as f64 / 1e6
    );
    assert!(n >= 2_000_000);

    let (t, r) = best(|| analyses::frames(&trace, None));
    report("frames", t, r.len());
    let slowest = analyses::slowest_frame(&trace).expect("frames");
    let (t, r) = best(|| analyses::threads(&trace, slowest));
    report("threads (slowest frame)", t, r.len());
    let (t, r) = best(|| analyses::top(&trace, 10));
    report("top 10", t, r.len());
    let filter = FindFilter {
        prefix: "load".into(),
        ..Default::default()
    };
    let (t, r) = best(|| analyses::find(&trace, &filter, 20));
    report("find load --top 20", t, r.len());
    let mesh = FindFilter {
        prefix: "mesh_1".into(),
        thread: Some("worker-2".into()),
        ..Default::default()
    };
    let (t, r) = best(|| analyses::find(&trace, &mesh, 20));
    report("find mesh_1 --thread worker-2", t, r.len());
    let all = FindFilter::default();
    let (t, r) = best(|| analyses::aggregate(&trace, &all, GroupBy::NameData, 20));
    report("find --aggregate (name, data)", t, r.len());
    let (t, r) = best(|| analyses::aggregate(&trace, &all, GroupBy::Name, 20));
    report("find --aggregate --by name", t, r.len());
    let (t, r) = best(|| analyses::children(&trace, "frame", true));
    report(
        "children frame --ordered",
        t,
        r.map_or(0, |r| r.children.len()),
    );
    let (t, r) = best(|| analyses::calls(&trace, "load_mesh"));
    report("calls load_mesh", t, r.map_or(0, |r| r.calls.len()));
    let lo = trace.frames.range_ns[10].0;
    let (t, r) = best(|| analyses::window(&trace, lo, lo + 2_000_000, 5));
    report("window 2 ms", t, r.len());
    let (t, r) = best(|| analyses::gaps(&trace, None, 1_000_000, 20));
    report("gaps --min-ms 1", t, r.total_gaps);
    let (t, r) = best(|| analyses::gaps(&trace, Some("main"), 1_000, 20));
    report("gaps --thread main --min-ms 0.001", t, r.total_gaps);
    let (t, r) = best(|| analyses::gaps(&trace, Some("main"), 250, 20));
    report("gaps --thread main --min-ms 0.00025", t, r.total_gaps);
    let opts = CompareOptions {
        top: 50,
        ..Default::default()
    };
    let (t, r) = best(|| analyses::compare(&trace, &trace, &opts, None));
    report("compare (trace with itself)", t, r.rows.len());
    let (t, r) = best(|| analyses::gaps(&trace, None, 1_000_000, 20));
    report("gaps (recurring)", t, r.total_recurring);
    // Pacing (issue 65: under 50 ms after decode on 2M scopes): one
    // recording, then A against B (the bootstrap's resamples).
    use analyses::pacing::pacing;
    let (t, r) = best(|| pacing(&trace, None, None, 5.0, 0.05, 0.01, Default::default()));
    report("pacing", t, r.a.frames);
    let (t, r) = best(|| {
        pacing(
            &trace,
            Some(&trace),
            None,
            5.0,
            0.05,
            0.01,
            Default::default(),
        )
    });
    report("pacing A B (trace with itself)", t, r.changes.len());
    // The same 2M scopes in 100,000 frames of 20: the per-frame work.
    let many = decode_puffin(&write_recording(
        &synthetic_capture(100_000, 1, 20),
        Format::Pfd4(Compression::Lz4),
    ))
    .expect("decodes")
    .trace;
    let (t, r) = best(|| pacing(&many, None, None, 5.0, 0.05, 0.01, Default::default()));
    report(
        &format!("pacing, {} frames", many.frames.len()),
        t,
        r.a.frames,
    );
    let (t, r) = best(|| {
        pacing(
            &many,
            Some(&many),
            None,
            5.0,
            0.05,
            0.01,
            Default::default(),
        )
    });
    report("pacing A B, same", t, r.changes.len());
    // The model of change on one scope of a million calls a side (issue
    // 33: sub-quadratic, under a second).
    let sample = |shift: i64| analyses::judge::Sample {
        durations_ns: (0..1_000_000i64)
            .map(|k| 1_000_000 + shift + (k * 7919) % 100_000)
            .collect(),
        calls_in_frames: vec![1_000; 1_000],
        frame_units: (0..1_000).collect(),
        frames: 1_000,
        ..Default::default()
    };
    let (sa, sb) = (sample(0), sample(60_000));
    let (t, c) = best(|| analyses::judge::judge(Some(&sa), Some(&sb), &Default::default()));
    report(
        "judge 1M calls against 1M",
        t,
        usize::from(c.kind.is_change()),
    );

    // Whole CLI runs on the same capture, as files.
    let dir = std::env::temp_dir().join("puffin-lens-bench");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("queries.puffin");
    std::fs::write(&path, &bytes).expect("write capture");
    let exe = env!("CARGO_BIN_EXE_puffin-lens");
    let (cli_time, _) = best(|| {
        let out = Command::new(exe)
            .args(["top", path.to_str().expect("utf-8 path"), "--json"])
            .output()
            .expect("runs");
        assert!(out.status.success());
    });
    println!(
        "\nCLI `puffin-lens top FILE --json` (decode + query + print): {:.1} ms",
        cli_time.as_secs_f64() * 1e3
    );
    if Command::new("jq").arg("--version").output().is_err() {
        println!("jq not installed: skipping the dump + jq comparison");
        return;
    }
    let t = Instant::now();
    let json_path = dir.join("queries.json");
    let dump = Command::new(exe)
        .args([
            "dump",
            path.to_str().expect("utf-8 path"),
            "-o",
            json_path.to_str().expect("utf-8 path"),
        ])
        .status()
        .expect("dump runs");
    assert!(dump.success());
    let dump_time = t.elapsed();
    let t = Instant::now();
    let jq = Command::new("jq")
        .args(["-c", JQ_TOP10])
        .arg(&json_path)
        .stdout(Stdio::null())
        .status()
        .expect("jq runs");
    assert!(jq.success());
    let jq_time = t.elapsed();
    let total = dump_time + jq_time;
    println!(
        "dump to JSON ({:.0} MB) {:.1} ms + jq recipe {:.1} ms = {:.1} ms",
        std::fs::metadata(&json_path).map_or(0, |m| m.len()) as f64 / 1e6,
        dump_time.as_secs_f64() * 1e3,
        jq_time.as_secs_f64() * 1e3,
        total.as_secs_f64() * 1e3
    );
    println!(
        "CLI top is {:.0}x faster than dump + jq",
        total.as_secs_f64() / cli_time.as_secs_f64()
    );
}
