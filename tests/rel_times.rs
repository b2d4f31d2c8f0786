//! Every point in time an answer gives comes with its milliseconds since
//! the recording's start: `x_rel_ms == (x_ns - recording_start_ns) / 1e6`
//! exactly, in JSON; the text shows the relative time.

mod common;

use common::planted;
use serde_json::Value;
use std::path::Path;

/// `puffin-lens ARGS --json` (the flag added when missing).
fn json(dir: &Path, args: &[&str]) -> Value {
    let mut args = args.to_vec();
    if !args.contains(&"--json") {
        args.push("--json");
    }
    common::json_in(dir, &args).1
}

fn text(dir: &Path, args: &[&str]) -> String {
    let out = common::run_in(dir, args);
    assert_eq!(common::code(&out), 0, "{args:?}: {}", common::stderr(&out));
    String::from_utf8(out.stdout).unwrap()
}

fn start_of(dir: &Path, file: &str) -> i64 {
    json(dir, &["summary", file, "--json"])["recording_start_ns"]
        .as_i64()
        .unwrap()
}

fn rel(ns: i64, start: i64) -> f64 {
    (ns - start) as f64 / 1e6
}

/// Checks every `K_ns` time of `v` that has a `K_rel_ms` beside it against
/// `start` (an object's `recording_start_ns` counts for what it holds);
/// returns how many it checked. Fails on a time key without its relative.
fn check(v: &Value, start: i64) -> usize {
    match v {
        Value::Array(items) => items.iter().map(|x| check(x, start)).sum(),
        Value::Object(o) => {
            let start = o
                .get("recording_start_ns")
                .and_then(Value::as_i64)
                .unwrap_or(start);
            let mut n = 0;
            for (k, x) in o {
                let is_time = matches!(
                    k.as_str(),
                    "start_ns" | "end_ns" | "lo_ns" | "hi_ns" | "range_ns" | "longest_start_ns"
                ) || (k.ends_with("_at_ns"));
                if is_time {
                    let r = &o[&format!("{}_rel_ms", &k[..k.len() - 3])];
                    match (x, r) {
                        (Value::Number(ns), Value::Number(ms)) => {
                            assert_eq!(
                                ms.as_f64().unwrap(),
                                rel(ns.as_i64().unwrap(), start),
                                "{k}"
                            );
                        }
                        (Value::Array(ns), Value::Array(ms)) => {
                            for (a, b) in ns.iter().zip(ms) {
                                assert_eq!(b.as_f64().unwrap(), rel(a.as_i64().unwrap(), start));
                            }
                        }
                        (Value::Null, Value::Null) => {}
                        other => panic!("{k}: {other:?}"),
                    }
                    n += 1;
                }
                n += check(x, start);
            }
            n
        }
        _ => 0,
    }
}

#[test]
fn the_planted_pairs_answers_give_every_time_relative_to_the_recordings_start() {
    let dir = planted::jobs_pair(41, 42);
    let d = dir.path();
    let start = start_of(d, "b.puffin");
    // The first frame's main_loop starts 1 ms after T0 (a frame starts at
    // least 1 ms after the previous one's end, T0 before the first): the
    // recording's start.
    assert_eq!(start, planted::T0 + 1_000_000);
    let gaps = json(d, &["gaps", "b.puffin", "--min-ms", "0.5", "--json"]);
    assert!(check(&gaps, start) >= 4, "{gaps}");
    let g = &gaps["recurring"][0];
    assert_eq!(
        g["longest_start_rel_ms"].as_f64().unwrap(),
        rel(g["longest_start_ns"].as_i64().unwrap(), start)
    );
    let calls = json(d, &["calls", "b.puffin", "job::cloth", "--json"]);
    assert_eq!(check(&calls, start), 270);
    // The third frame's first job: two periods and 0.1 ms in.
    let c = &calls["calls"][6];
    let at = c["start_rel_ms"].as_f64().unwrap();
    assert_eq!(at, rel(c["start_ns"].as_i64().unwrap(), start));
    assert!(at > 2.0 * 16.666 && at < 3.0 * 16.667, "{at}");
    let find = json(d, &["find", "b.puffin", "sim::", "--json"]);
    assert_eq!(check(&find, start), 20);
    let threads = json(d, &["threads", "b.puffin", "--json"]);
    assert_eq!(check(&threads, start), 4);
    let summary = json(d, &["summary", "b.puffin", "--json"]);
    assert_eq!(summary["start_rel_ms"].as_f64(), Some(0.0));
    assert_eq!(check(&summary, start), 2);
    let (lo, hi) = (start + 20_000_000, start + 22_000_000);
    let w = json(d, &["window", "b.puffin", &lo.to_string(), &hi.to_string()]);
    assert_eq!(w["lo_rel_ms"].as_f64(), Some(20.0));
    assert_eq!(w["hi_rel_ms"].as_f64(), Some(22.0));
    assert!(check(&w, start) > 4);
    // The same window asked in ms since the recording's start.
    assert_eq!(json(d, &["window", "b.puffin", "20ms", "22ms"]), w);

    // The text gives the relative time, as the JSON's rel_ms.
    let t = text(d, &["calls", "b.puffin", "job::cloth"]);
    let want = format!("{at:.3}");
    assert!(t.contains("at ms"), "{t}");
    assert!(
        t.lines().any(|l| l.ends_with(&format!(" {want}"))),
        "a row at {want}: {t}"
    );
    assert!(!t.contains(&c["start_ns"].to_string()), "{t}");
}

#[test]
fn the_reports_recordings_count_from_their_own_starts() {
    let dir = planted::jobs_pair(43, 44);
    let d = dir.path();
    let out = common::run_in(d, &["report", "a.puffin", "b.puffin", "-o", "r.json"]);
    assert!(
        matches!(common::code(&out), 0 | 4),
        "{}",
        common::stderr(&out)
    );
    let r: Value = serde_json::from_slice(&std::fs::read(d.join("r.json")).unwrap()).unwrap();
    let (sa, sb) = (start_of(d, "a.puffin"), start_of(d, "b.puffin"));
    for (i, s) in [sa, sb].into_iter().enumerate() {
        let rec = &r["recordings"][i];
        assert_eq!(rec["recording_start_ns"].as_i64(), Some(s));
        assert!(check(rec, s) > 10, "{i}");
        let scope = &rec["slowest_scopes"][0];
        assert_eq!(
            scope["start_rel_ms"].as_f64().unwrap(),
            rel(scope["start_ns"].as_i64().unwrap(), s)
        );
        // The slowest frames say when they started.
        let frame = &rec["slowest_frames"][0];
        assert_eq!(
            frame["start_rel_ms"].as_f64().unwrap(),
            rel(frame["start_ns"].as_i64().unwrap(), s)
        );
    }
    // A's hitch (assets::stream, 35 ms in frame 20) is an outlier: its call's
    // start, and the Markdown says when.
    let hitch = r["recordings"][0]["outliers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["name"] == "assets::stream")
        .expect("the hitch is an outlier");
    let calls = json(d, &["calls", "a.puffin", "assets::stream"]);
    let call = &calls["calls"][planted::JOBS_HITCH_FRAME];
    assert!(call["duration_ns"].as_i64().unwrap() > 34_000_000);
    assert_eq!(hitch["start_ns"], call["start_ns"]);
    let at = hitch["start_rel_ms"].as_f64().unwrap();
    assert_eq!(at, rel(call["start_ns"].as_i64().unwrap(), sa));
    let out = common::run_in(d, &["report", "a.puffin", "-o", "r.md"]);
    assert!(
        matches!(common::code(&out), 0 | 4),
        "{}",
        common::stderr(&out)
    );
    let md = std::fs::read_to_string(d.join("r.md")).unwrap();
    let row = md
        .lines()
        .find(|l| l.starts_with("| assets::stream | one call"))
        .unwrap_or_else(|| panic!("{md}"));
    assert!(row.ends_with(&format!("| {at:.3} |")), "{row}");
}

#[test]
fn a_real_captures_times_count_from_its_start() {
    let d = common::fixtures_dir().join("real");
    let start = start_of(&d, "rerun_viewer_plots_a.puffin");
    let top = json(&d, &["top", "rerun_viewer_plots_a.puffin", "--json"]);
    assert_eq!(check(&top, start), 10);
    for row in top.as_array().unwrap() {
        let at = row["start_rel_ms"].as_f64().unwrap();
        assert!(at >= 0.0, "{row}");
    }
    let gaps = json(&d, &["gaps", "rerun_viewer_plots_a.puffin", "--json"]);
    assert!(check(&gaps, start) > 10);
    let sdk = common::fixtures_dir().join("real");
    let s = start_of(&sdk, "rerun_sdk_points.puffin");
    let g = json(&sdk, &["gaps", "rerun_sdk_points.puffin", "--json"]);
    assert!(check(&g, s) > 0);
}
