//! Every analysis subcommand on generated recordings whose answers are known
//! by construction, in text and JSON, from `.puffin` and from a JSON dump.

mod common;

use common::{code, run_in, stderr};
use puffin_lens::engine::write::puffin::{
    Compression, Format, FrameData, Registration, write_recording,
};
use serde_json::{Value, json};
use std::path::Path;

use common::scenario::*;

/// A recording and its JSON dump side by side in a temp dir.
struct Files {
    dir: tempfile::TempDir,
}

impl Files {
    fn new(recordings: &[(&str, Vec<FrameData>)]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        for (name, frames) in recordings {
            let path = dir.path().join(format!("{name}.puffin"));
            std::fs::write(
                &path,
                write_recording(frames, Format::Pfd4(Compression::Lz4)),
            )
            .unwrap();
            let out = run_in(
                dir.path(),
                &[
                    "dump",
                    &format!("{name}.puffin"),
                    "-o",
                    &format!("{name}.json"),
                ],
            );
            assert_eq!(code(&out), 0);
        }
        Self { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `--json` answer for `args` with `{}` standing for the recording, from
    /// the .puffin and from the JSON dump: both must agree.
    fn json(&self, args: &[&str]) -> Value {
        let mut answers = Vec::new();
        for ext in ["puffin", "json"] {
            let args: Vec<String> = args
                .iter()
                .map(|a| a.replace("{}", ext))
                .chain(["--json".to_owned()])
                .collect();
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let out = run_in(self.path(), &args);
            assert_eq!(code(&out), 0, "{args:?}: {}", stderr(&out));
            answers.push(serde_json::from_slice::<Value>(&out.stdout).expect("JSON output"));
        }
        assert_eq!(
            answers[0], answers[1],
            "{args:?}: .puffin and JSON dump disagree"
        );
        answers.remove(0)
    }

    fn text(&self, args: &[&str]) -> String {
        let args: Vec<String> = args.iter().map(|a| a.replace("{}", "puffin")).collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run_in(self.path(), &args);
        assert_eq!(code(&out), 0, "{args:?}: {}", stderr(&out));
        String::from_utf8(out.stdout).unwrap()
    }
}

fn files() -> Files {
    Files::new(&[("s", scenario())])
}

#[test]
fn frames_slowest_first() {
    let f = files();
    assert_eq!(
        f.json(&["frames", "s.{}"]),
        json!([
            {"frame_index": 12, "start_ns": t(50.0), "start_rel_ms": 50.0, "duration_ns": ns(31.0), "num_scopes": 2},
            {"frame_index": 10, "start_ns": t(0.0), "start_rel_ms": 0.0, "duration_ns": ns(20.0), "num_scopes": 8},
            {"frame_index": 11, "start_ns": t(30.0), "start_rel_ms": 30.0, "duration_ns": ns(8.0), "num_scopes": 4},
        ])
    );
    assert_eq!(
        f.json(&["frames", "s.{}", "--top", "1"])
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let text = f.text(&["frames", "s.{}"]);
    assert_eq!(
        text.lines().next().unwrap(),
        "frame      ms  scopes   at ms"
    );
    assert!(text.contains("   12  31.000       2  50.000"), "{text}");
}

#[test]
fn threads_of_the_slowest_or_a_chosen_frame() {
    let f = files();
    let slowest = f.json(&["threads", "s.{}"]);
    assert_eq!(slowest.as_array().unwrap().len(), 1);
    assert_eq!(slowest[0]["span_ns"], ns(31.0));
    assert_eq!(
        f.json(&["threads", "s.{}", "--frame", "10"]),
        json!([
            {"name": "main", "num_scopes": 4, "depth": 3, "range_ns": [t(0.0), t(20.0)], "range_rel_ms": [0.0, 20.0], "span_ns": ns(20.0)},
            {"name": "rayon-1", "num_scopes": 2, "depth": 1, "range_ns": [t(5.2), t(9.5)], "range_rel_ms": [5.2, 9.5], "span_ns": ns(4.3)},
            {"name": "rayon-2", "num_scopes": 2, "depth": 1, "range_ns": [t(5.0), t(12.0)], "range_rel_ms": [5.0, 12.0], "span_ns": ns(7.0)},
        ])
    );
    assert!(
        f.text(&["threads", "s.{}", "--frame", "10"])
            .contains("rayon-2")
    );
    let out = run_in(f.path(), &["threads", "s.puffin", "--frame", "99"]);
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains("no frame with frame_index 99"));
}

#[test]
fn top_slowest_instances() {
    let f = files();
    let rows = f.json(&["top", "s.{}", "--top", "3"]);
    assert_eq!(
        rows,
        json!([
            {"name": "frame", "data": "frame 2", "duration_ns": ns(31.0), "start_ns": t(50.0), "start_rel_ms": 50.0, "thread": "main", "frame_index": 12, "id": FRAME},
            {"name": "load", "data": "mesh.glb", "duration_ns": ns(30.0), "start_ns": t(50.5), "start_rel_ms": 50.5, "thread": "main", "frame_index": 12, "id": LOAD},
            {"name": "frame", "data": "frame 0", "duration_ns": ns(20.0), "start_ns": t(0.0), "start_rel_ms": 0.0, "thread": "main", "frame_index": 10, "id": FRAME},
        ])
    );
    // Ties by earlier start: the two 2 ms jobs a (5.2) and b (7.5).
    let all = f.json(&["top", "s.{}", "--top", "100"]);
    let names: Vec<&str> = all
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["data"].as_str().unwrap())
        .collect();
    let a = names.iter().position(|d| *d == "a").unwrap();
    assert_eq!(names[a + 1], "b");
    assert_eq!(all.as_array().unwrap().len(), 14);
    let text = f.text(&["top", "s.{}", "--top", "3"]);
    assert!(text.contains("31.000  frame  frame 2   main"), "{text}");
}

#[test]
fn find_by_prefix_field_thread_and_frame() {
    let f = files();
    let loads = f.json(&["find", "s.{}", "lo"]);
    let got: Vec<(i64, u64)> = loads
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["duration_ns"].as_i64().unwrap(),
                r["frame_index"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, vec![(ns(30.0), 12), (ns(1.0), 10), (ns(1.0), 11)]);
    // Data prefix only.
    let tex = f.json(&["find", "s.{}", "tex", "--field", "data"]);
    assert_eq!(tex.as_array().unwrap().len(), 2);
    assert_eq!(
        f.json(&["find", "s.{}", "tex", "--field", "name"]),
        json!([])
    );
    // Thread and frame filters.
    let jobs = f.json(&["find", "s.{}", "", "--thread", "rayon-2"]);
    assert_eq!(jobs.as_array().unwrap().len(), 2);
    assert_eq!(jobs[0]["data"], "d");
    let f11 = f.json(&["find", "s.{}", "--frame", "11"]);
    assert_eq!(f11.as_array().unwrap().len(), 4);
    // A thread the recording does not have is a usage error, not `[]`.
    let out = run_in(f.path(), &["find", "s.puffin", "--thread", "nope"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("no thread \"nope\""),
        "{}",
        stderr(&out)
    );
}

#[test]
fn find_aggregate_by_name_data_and_by_name() {
    let f = files();
    let rows = f.json(&["find", "s.{}", "--aggregate", "--top", "3"]);
    assert_eq!(
        rows,
        json!([
            {"name": "frame", "data": "frame 2", "count": 1, "total_ns": ns(31.0), "self_ns": ns(1.0), "min_ns": ns(31.0), "max_ns": ns(31.0), "mean_ns": ns(31.0) as f64},
            {"name": "load", "data": "mesh.glb", "count": 1, "total_ns": ns(30.0), "self_ns": ns(30.0), "min_ns": ns(30.0), "max_ns": ns(30.0), "mean_ns": ns(30.0) as f64},
            {"name": "frame", "data": "frame 0", "count": 1, "total_ns": ns(20.0), "self_ns": ns(7.5), "min_ns": ns(20.0), "max_ns": ns(20.0), "mean_ns": ns(20.0) as f64},
        ])
    );
    let by_name = f.json(&["find", "s.{}", "--aggregate", "--by", "name"]);
    let load = by_name
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "load")
        .unwrap();
    assert_eq!(
        *load,
        json!({"name": "load", "count": 3, "total_ns": ns(32.0), "self_ns": ns(32.0), "min_ns": ns(1.0), "max_ns": ns(30.0), "mean_ns": ns(32.0) as f64 / 3.0})
    );
    // Ties by name: job 4 x ... totals differ; app::render and app::update order by total.
    let names: Vec<&str> = by_name
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        vec!["frame", "load", "app::render", "job", "app::update"]
    );
    let text = f.text(&["find", "s.{}", "--aggregate", "--by", "name"]);
    assert!(text.starts_with("name         count  total ms"), "{text}");
}

#[test]
fn children_slowest_first_and_in_time_order_with_gaps() {
    let f = files();
    let ordered = f.json(&["children", "s.{}", "frame 0", "--ordered"]);
    assert_eq!(
        ordered,
        json!({
            "parent": {"name": "frame", "data": "frame 0", "start_ns": t(0.0), "start_rel_ms": 0.0, "duration_ns": ns(20.0), "thread": "main", "frame_index": 10},
            "children": [
                {"name": "app::update", "data": "", "start_ns": t(0.5), "start_rel_ms": 0.5, "duration_ns": ns(4.5), "gap_before_ns": ns(0.5)},
                {"name": "app::render", "data": "", "start_ns": t(10.0), "start_rel_ms": 10.0, "duration_ns": ns(8.0), "gap_before_ns": ns(5.0)},
            ],
            "trailing_gap_ns": ns(2.0),
        })
    );
    let slowest_first = f.json(&["children", "s.{}", "frame 0"]);
    assert_eq!(slowest_first["children"][0]["name"], "app::render");
    assert_eq!(slowest_first["children"][0]["gap_before_ns"], ns(5.0));
    // By name: the slowest "frame" instance (frame 12).
    let by_name = f.json(&["children", "s.{}", "frame"]);
    assert_eq!(by_name["parent"]["frame_index"], 12);
    assert_eq!(by_name["children"][0]["data"], "mesh.glb");
    let text = f.text(&["children", "s.{}", "frame 0", "--ordered"]);
    assert!(text.contains("5.000"), "{text}");
    assert!(text.contains("(7.500 unprofiled)"), "{text}");
    let out = run_in(f.path(), &["children", "s.puffin", "nothing"]);
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains("no scope named \"nothing\""));
}

#[test]
fn calls_summary_and_spike() {
    let f = files();
    let report = f.json(&["calls", "s.{}", "load"]);
    assert_eq!(
        report["summary"],
        json!({"count": 3, "total_ns": ns(32.0), "min_ns": ns(1.0), "median_ns": ns(1.0),
               "mean_ns": ns(32.0) as f64 / 3.0, "p95_ns": ns(30.0), "max_ns": ns(30.0),
               "max_share": 30.0 / 32.0})
    );
    let starts: Vec<i64> = report["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["start_ns"].as_i64().unwrap())
        .collect();
    assert_eq!(starts, vec![t(10.0), t(33.0), t(50.5)]);
    assert_eq!(
        report["calls"][2],
        json!({"frame_index": 12, "thread": "main", "start_ns": t(50.5), "start_rel_ms": 50.5, "duration_ns": ns(30.0), "data": "mesh.glb"})
    );
    let text = f.text(&["calls", "s.{}", "load"]);
    assert!(text.contains("spike: 1 call is 94% of the total"), "{text}");
    // By data string; a single call is no spike.
    let mesh = f.json(&["calls", "s.{}", "mesh.glb"]);
    assert_eq!(mesh["summary"]["count"], 1);
    assert!(!f.text(&["calls", "s.{}", "mesh.glb"]).contains("spike"));
}

#[test]
fn window_per_thread() {
    let f = files();
    let lo = t(5.0).to_string();
    let hi = t(10.0).to_string();
    let w = f.json(&["window", "s.{}", &lo, &hi]);
    assert_eq!(
        w["threads"],
        json!([
            {"thread": "rayon-1", "count": 2, "top": [
                {"name": "job", "data": "a", "duration_ns": ns(2.0)},
                {"name": "job", "data": "b", "duration_ns": ns(2.0)}]},
            {"thread": "rayon-2", "count": 1, "top": [{"name": "job", "data": "c", "duration_ns": ns(3.0)}]},
        ])
    );
    // Busy per thread, d (8.5..12 ms) counted by its 1.5 ms inside; main's
    // `frame` covers the whole window (unprofiled inside it, not idle).
    let busy: Vec<(&str, i64)> = w["busy"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["thread"].as_str().unwrap(),
                b["busy_ns"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        busy,
        [
            ("main", ns(5.0)),
            ("rayon-2", ns(4.5)),
            ("rayon-1", ns(4.0))
        ]
    );
    assert_eq!(
        (w["covered_ns"].as_i64(), w["uncovered_ns"].as_i64()),
        (Some(ns(5.0)), Some(0))
    );
    assert_eq!(w["threads_recorded"], 3);
    // Between frames 10 and 11 (20..30 ms): nothing ran, all of it uncovered.
    let idle = f.json(&["window", "s.{}", &t(20.0).to_string(), &t(30.0).to_string()]);
    assert_eq!(
        (idle["covered_ns"].as_i64(), idle["uncovered_ns"].as_i64()),
        (Some(0), Some(ns(10.0)))
    );
    assert_eq!(idle["threads"], json!([]));
    // Half of frame 11's end and the idle after it: 1 ms covered of 2.
    let half = f.json(&["window", "s.{}", &t(37.0).to_string(), &t(39.0).to_string()]);
    assert_eq!(
        (half["covered_ns"].as_i64(), half["uncovered_ns"].as_i64()),
        (Some(ns(1.0)), Some(ns(1.0)))
    );
    assert!(
        f.text(&["window", "s.{}", &t(20.0).to_string(), &t(30.0).to_string()])
            .contains("no thread's scope covered 10.000 ms (100%)")
    );
    assert_eq!(
        f.json(&["window", "s.{}", &lo, &hi, "--top", "1"])["threads"][0]["top"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert!(
        f.text(&["window", "s.{}", &lo, &hi])
            .contains("rayon-1       2  job   a")
    );
}

#[test]
fn gaps_with_what_other_threads_did() {
    let f = files();
    // Frame 10 of the scenario: main waits 5 ms between update and render
    // while rayon-1 runs a, b (2 ms each) and rayon-2 c (3 ms) and d (1.5
    // ms of its 3.5 inside the gap: counted by its overlap).
    let between = json!({
        "thread": "main", "frame_index": 10, "kind": "between",
        "parent": {"name": "frame", "data": "frame 0"}, "path": "frame",
        "after": {"name": "app::update", "data": ""},
        "before": {"name": "app::render", "data": ""},
        "start_ns": t(5.0), "start_rel_ms": 5.0, "end_ns": t(10.0), "end_rel_ms": 10.0, "duration_ns": ns(5.0),
        "other_threads": [
            {"thread": "rayon-2", "busy_ns": ns(4.5), "scopes": [{"name": "job", "busy_ns": ns(4.5)}]},
            {"thread": "rayon-1", "busy_ns": ns(4.0), "scopes": [{"name": "job", "busy_ns": ns(4.0)}]},
        ],
        // What it waits for: the last job to end in it, rayon-1's b (7.5 to
        // 9.5 ms; rayon-2's d ends after the gap); rayon-2's c starts with
        // the gap (no dispatch), then 4.5 ms waiting, 0.5 ms wake-up.
        "waits_for": {
            "critical": {"thread": "rayon-1", "name": "job", "data": "b",
                "start_ns": t(7.5), "start_rel_ms": 7.5, "end_ns": t(9.5), "end_rel_ms": 9.5,
                "duration_ns": ns(2.0)},
            "critical_ends_before_gap_end_ns": ns(0.5),
            "first": {"thread": "rayon-2", "name": "job", "data": "c",
                "start_ns": t(5.0), "start_rel_ms": 5.0, "end_ns": t(8.0), "end_rel_ms": 8.0,
                "duration_ns": ns(3.0)},
            "dispatch_ns": 0, "waiting_ns": ns(4.5), "wake_ns": ns(0.5),
            "threads_busy_at_start": 0, "threads_working": 2,
        },
    });
    let main = f.json(&["gaps", "s.{}", "--thread", "main"]);
    let gaps = main["gaps"].as_array().unwrap();
    // Every kind: render's trailing 7 ms (after load, 1 ms of rayon-2's d
    // still running), the 5 ms between, frame 11's render trailing 3 ms is
    // the usual occurrence of a recurring gap with frame 10's (listed
    // there), frame's own trailing 2 ms in frame 10.
    let summary: Vec<(i64, &str, &str, u64)> = gaps
        .iter()
        .map(|g| {
            (
                g["duration_ns"].as_i64().unwrap(),
                g["kind"].as_str().unwrap(),
                g["path"].as_str().unwrap(),
                g["frame_index"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            (ns(7.0), "trailing", "frame > app::render", 10),
            (ns(5.0), "between", "frame", 10),
        ]
    );
    assert_eq!(gaps[1], between);
    assert_eq!(gaps[0]["other_threads"][0]["busy_ns"], ns(1.0));
    // Recurring: render's trailing gap in frames 10 and 11 (7 + 3 ms),
    // frame's trailing gap after render (2 + 1 ms).
    let recurring: Vec<(i64, &str, &str, u64, i64)> = main["recurring"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["total_ns"].as_i64().unwrap(),
                g["kind"].as_str().unwrap(),
                g["path"].as_str().unwrap(),
                g["frames"].as_u64().unwrap(),
                g["median_ns"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        recurring,
        vec![
            (ns(10.0), "trailing", "frame > app::render", 2, ns(3.0)),
            (ns(3.0), "trailing", "frame", 2, ns(1.0)),
            (ns(1.0), "leading", "frame", 2, ns(0.5)),
        ]
    );
    assert_eq!(main["other_threads_recorded"], true);
    // All threads: the time between frames 10, 11 and 12 too (no thread
    // ran then), 10 and 12 ms.
    let all = f.json(&["gaps", "s.{}"]);
    let between_frames: Vec<(i64, u64)> = all["gaps"]
        .as_array()
        .unwrap()
        .iter()
        .chain(all["recurring"].as_array().unwrap())
        .filter(|g| g["kind"] == "between-frames")
        .map(|g| {
            (
                g["total_ns"].as_i64().unwrap_or(0),
                g["frames"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(between_frames, vec![(ns(22.0), 2)]);
    assert_eq!(
        f.json(&["gaps", "s.{}", "--min-ms", "23"])["recurring"],
        json!([])
    );
    assert_eq!(
        f.json(&["gaps", "s.{}", "--min-ms", "23"])["gaps"],
        json!([])
    );
    assert_eq!(
        f.json(&["gaps", "s.{}", "--thread", "rayon-1", "--min-ms", "0.5"])["gaps"],
        json!([])
    );
    let text = f.text(&["gaps", "s.{}"]);
    assert!(
        text.contains("rayon-2 4.500 (job), rayon-1 4.000 (job)"),
        "{text}"
    );
    assert!(text.contains("leading"), "{text}");
    // --top cuts each list and says so.
    let one = f.json(&["gaps", "s.{}", "--top", "1"]);
    assert_eq!(one["recurring"].as_array().unwrap().len(), 1);
    assert!(one["total_recurring"].as_u64().unwrap() > 1);
    assert!(
        f.text(&["gaps", "s.{}", "--top", "1"])
            .contains("more, --top")
    );
}

#[test]
fn scope_registration_lookup() {
    let f = files();
    assert_eq!(
        f.json(&["scope", "s.{}", "4"]),
        json!({"id": 4, "name": "load", "function": "app::assets", "file": "src/assets.rs", "line": 42, "kind": "named"})
    );
    assert!(f.text(&["scope", "s.{}", "2"]).contains("at src/app.rs:20"));
    let out = run_in(f.path(), &["scope", "s.puffin", "99"]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("scope id 99 is not registered"),
        "{}",
        stderr(&out)
    );
}

/// One main thread; `calls` are (id, data, duration ms) laid end to end.
fn flat(calls: &[(u32, &str, f64)], regs: Vec<Registration>) -> Vec<FrameData> {
    let mut at = 0.0;
    let mut scopes = Vec::new();
    for &(id, data, ms) in calls {
        scopes.push(scope(id, at, at + ms, data));
        at += ms + 0.1;
    }
    vec![FrameData {
        frame_index: 0,
        threads: vec![thread("main", 0, scopes)],
        registrations: regs,
    }]
}

fn compare_regs() -> Vec<Registration> {
    vec![
        Registration::function(1, "physics", "p.rs", 1),
        Registration::function(2, "io", "io.rs", 1),
        Registration::function(3, "old_thing", "o.rs", 1),
        Registration::function(4, "new_thing", "n.rs", 1),
    ]
}

#[test]
fn compare_before_and_after() {
    // physics: per-call time doubles (4 x 2 ms -> 4 x 4 ms); io: a single
    // 30 ms spike in A; old_thing gone; new_thing new.
    let a = flat(
        &[
            (1, "", 2.0),
            (1, "", 2.0),
            (1, "", 2.0),
            (1, "", 2.0),
            (2, "", 1.0),
            (2, "", 1.0),
            (2, "", 30.0),
            (3, "", 3.0),
        ],
        compare_regs(),
    );
    let b = flat(
        &[
            (1, "", 4.0),
            (1, "", 4.0),
            (1, "", 4.0),
            (1, "", 4.0),
            (2, "", 1.0),
            (2, "", 1.0),
            (2, "", 1.0),
            (4, "", 5.0),
        ],
        compare_regs(),
    );
    let mut bare = b.clone();
    bare[0].registrations.clear();
    let f = Files::new(&[("a", a), ("b", b), ("bare", bare)]);
    let report = f.json(&["compare", "a.{}", "b.{}"]);
    assert_eq!(report["warnings"], json!([]));
    let stats = |count: u64, total: f64, max: f64| json!({"count": count, "total_ns": ns(total), "per_call_ns": ns(total) as f64 / count as f64, "max_ns": ns(max)});
    // The judgement: one frame a side, so no row in both can be judged
    // (inconclusive, with the reason): io one spike (the other calls
    // inconclusive too), physics inconclusive; new and gone exact.
    let kinds: Vec<(&str, &str, Option<&str>, &str)> = report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let c = &r["change"];
            (
                r["name"].as_str().unwrap(),
                c["kind"].as_str().unwrap(),
                c["rest"].as_str(),
                c["effect"]["verdict"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("io", "spike", Some("inconclusive"), "inconclusive"),
            ("physics", "inconclusive", None, "inconclusive"),
            ("new_thing", "new", None, "changed"),
            ("old_thing", "gone", None, "changed"),
        ]
    );
    assert!(
        report["rows"][1]["change"]["effect"]["settle"]
            .as_str()
            .unwrap()
            .starts_with("too few frames to judge (1 in A, 1 in B)"),
        "{}",
        report["rows"][1]
    );
    assert_eq!(
        report["rows"][1]["change"]["delta_per_frame_ns"],
        ns(8.0) as f64
    );
    assert_eq!(
        (
            report["frames_a"].clone(),
            report["total_rows"].clone(),
            report["changed_rows"].clone()
        ),
        // io's one spike; old_thing → new_thing is one rename, told as
        // structure (as the report counts it), not two changed names.
        (json!(1), json!(4), json!(1))
    );
    let mut report = report;
    for r in report["rows"].as_array_mut().unwrap() {
        r.as_object_mut().unwrap().remove("change");
    }
    assert_eq!(
        report["rows"],
        json!([
            {"name": "io", "data": "", "a": stats(3, 32.0, 30.0), "b": stats(3, 3.0, 1.0),
             "delta_total_ns": -ns(29.0), "delta_per_call_ns": (ns(3.0) as f64 - ns(32.0) as f64) / 3.0,
             "status": "both", "spike": true},
            {"name": "physics", "data": "", "a": stats(4, 8.0, 2.0), "b": stats(4, 16.0, 4.0),
             "delta_total_ns": ns(8.0), "delta_per_call_ns": ns(2.0) as f64, "status": "both", "spike": false},
            {"name": "new_thing", "data": "", "a": null, "b": stats(1, 5.0, 5.0),
             "delta_total_ns": ns(5.0), "delta_per_call_ns": null, "status": "new", "spike": false,
             // One scope at one place under another name: the report's
             // rename, told as it tells it.
             "structure": "renamed: old_thing → new_thing"},
            {"name": "old_thing", "data": "", "a": stats(1, 3.0, 3.0), "b": null,
             "delta_total_ns": -ns(3.0), "delta_per_call_ns": null, "status": "gone", "spike": false,
             "structure": "renamed: old_thing → new_thing"},
        ])
    );
    let names = |v: &Value| -> Vec<String> {
        v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        names(&f.json(&["compare", "a.{}", "b.{}", "--filter", "phy"])),
        vec!["physics"]
    );
    assert_eq!(
        names(&f.json(&["compare", "a.{}", "b.{}", "--hide-below", "6"])),
        vec!["io", "physics"]
    );
    assert_eq!(
        names(&f.json(&["compare", "a.{}", "b.{}", "--sort", "name"])),
        vec!["io", "new_thing", "old_thing", "physics"]
    );
    assert_eq!(
        names(&f.json(&["compare", "a.{}", "b.{}", "--sort", "per-call"])),
        vec!["io", "physics", "new_thing", "old_thing"]
    );
    assert_eq!(
        names(&f.json(&["compare", "a.{}", "b.{}", "--top", "1"])),
        vec!["io"]
    );
    // |Δ| (the default, also `delta`) against signed Δ: slower first, faster last.
    let default = f.json(&["compare", "a.{}", "b.{}"]);
    assert_eq!(
        f.json(&["compare", "a.{}", "b.{}", "--sort", "abs-delta"]),
        default
    );
    assert_eq!(
        f.json(&["compare", "a.{}", "b.{}", "--sort", "delta"]),
        default
    );
    let signed = f.json(&["compare", "a.{}", "b.{}", "--sort", "signed-delta"]);
    let deltas = |v: &Value| -> Vec<i64> {
        v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["delta_total_ns"].as_i64().unwrap())
            .collect()
    };
    let mut by_signed = deltas(&default);
    by_signed.sort_by(|x, y| y.cmp(x));
    assert_eq!(deltas(&signed), by_signed);
    let mut by_size = deltas(&default);
    by_size.sort_by_key(|d| std::cmp::Reverse(d.unsigned_abs()));
    assert_eq!(deltas(&default), by_size);
    assert_ne!(
        names(&signed),
        names(&default),
        "the scenario tells the two apart"
    );
    let text = f.text(&["compare", "a.{}", "b.{}"]);
    assert!(
        text.contains("spike") && text.contains("new") && text.contains("gone"),
        "{text}"
    );
    assert!(text.contains("+8.000"), "{text}");

    let mismatch = f.json(&["compare", "a.{}", "bare.{}"]);
    assert!(
        mismatch["warnings"][0]
            .as_str()
            .unwrap()
            .contains("registration mismatch")
    );
    assert!(
        f.text(&["compare", "a.{}", "bare.{}"])
            .starts_with("warning: registration mismatch")
    );
}

#[test]
fn analyses_of_a_damaged_recording_exit_3_and_answer_from_intact_frames() {
    let mut frames = scenario();
    frames[1].threads[0].scopes[0].children[0].stop_ns = 0; // stop before start
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("d.puffin"),
        write_recording(&frames, Format::Pfd4(Compression::Zstd)),
    )
    .unwrap();
    let out = run_in(dir.path(), &["frames", "d.puffin", "--json"]);
    assert_eq!(code(&out), 3);
    let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 2);
    assert!(stderr(&out).contains("frame #1 (frame_index 11)"));
    let out = run_in(dir.path(), &["top", "missing.puffin"]);
    assert_eq!(code(&out), 1);
}

#[test]
fn every_subcommand_has_an_example_in_its_help() {
    for sub in [
        "frames", "threads", "top", "find", "tree", "children", "callers", "calls", "window",
        "gaps", "compare", "diff", "pacing", "scope", "dump",
    ] {
        let out = common::run(&[sub, "--help"]);
        assert_eq!(code(&out), 0);
        let help = String::from_utf8(out.stdout).unwrap();
        assert!(
            help.contains(&format!("puffin-lens {sub} ")),
            "{sub}: {help}"
        );
    }
}

fn node(name: &str, count: u64, total: f64, self_ms: f64, max: f64, children: Vec<Value>) -> Value {
    json!({"name": name, "count": count, "total_ns": ns(total), "self_ns": ns(self_ms),
        "max_ns": ns(max), "children": children})
}

#[test]
fn tree_merges_every_frame_by_name_path() {
    let f = files();
    let load_under_render = node("load", 2, 2.0, 2.0, 1.0, vec![]);
    let main_roots = vec![node(
        "frame",
        3,
        59.0,
        // 20 - 4.5 - 8, 8 - 2.5 - 4, 31 - 30
        7.5 + 1.5 + 1.0,
        31.0,
        vec![
            // Children by total, slowest first: the 30 ms load of frame 12
            // (directly under frame) is its own node.
            node("load", 1, 30.0, 30.0, 30.0, vec![]),
            node("app::render", 2, 12.0, 10.0, 8.0, vec![load_under_render]),
            node("app::update", 2, 7.0, 7.0, 4.5, vec![]),
        ],
    )];
    let expected = json!({
        "frames": 3,
        "threads": [
            {"name": "main", "total_ns": ns(59.0), "roots": main_roots},
            {"name": "rayon-1", "total_ns": ns(4.0), "roots": [node("job", 2, 4.0, 4.0, 2.0, vec![])]},
            {"name": "rayon-2", "total_ns": ns(6.5), "roots": [node("job", 2, 6.5, 6.5, 3.5, vec![])]},
        ]
    });
    assert_eq!(f.json(&["tree", "s.{}"]), expected);

    // --depth 1: the roots only, counts and times unchanged.
    let shallow = f.json(&["tree", "s.{}", "--depth", "1"]);
    assert_eq!(
        shallow["threads"][0]["roots"][0],
        node("frame", 3, 59.0, 10.0, 31.0, vec![])
    );
    // --depth 2 lists frame's children, not render's.
    let two = f.json(&["tree", "s.{}", "--depth", "2"]);
    assert_eq!(
        two["threads"][0]["roots"][0]["children"][1],
        node("app::render", 2, 12.0, 10.0, 8.0, vec![])
    );

    // One frame, one thread.
    assert_eq!(
        f.json(&["tree", "s.{}", "--frame", "12", "--thread", "main"]),
        json!({"frames": 1, "threads": [{"name": "main", "total_ns": ns(31.0), "roots": [
            node("frame", 1, 31.0, 1.0, 31.0, vec![node("load", 1, 30.0, 30.0, 30.0, vec![])])
        ]}]})
    );
    let out = run_in(f.path(), &["tree", "s.json", "--thread", "nobody"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("no thread \"nobody\" (threads: \"main\", \"rayon-1\", \"rayon-2\")"),
        "{}",
        stderr(&out)
    );

    let text = f.text(&["tree", "s.{}"]);
    assert!(text.starts_with("3 frame(s) merged\n"), "{text}");
    assert!(
        text.contains("\n    app::render "),
        "indented by depth: {text}"
    );

    let out = run_in(f.path(), &["tree", "s.puffin", "--frame", "99"]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stderr(&out).trim(),
        "puffin-lens: s.puffin: no frame with frame_index 99"
    );
}

#[test]
fn callers_and_callees_of_a_name() {
    let f = files();
    assert_eq!(
        f.json(&["callers", "s.{}", "load"]),
        json!({"name": "load", "count": 3, "total_ns": ns(32.0), "self_ns": ns(32.0),
            "callers": [
                {"name": "frame", "count": 1, "total_ns": ns(30.0)},
                {"name": "app::render", "count": 2, "total_ns": ns(2.0)},
            ],
            "callees": []})
    );
    assert_eq!(
        f.json(&["callers", "s.{}", "frame"]),
        json!({"name": "frame", "count": 3, "total_ns": ns(59.0), "self_ns": ns(10.0),
        "callers": [{"name": null, "count": 3, "total_ns": ns(59.0)}],
        "callees": [
            {"name": "load", "count": 1, "total_ns": ns(30.0)},
            {"name": "app::render", "count": 2, "total_ns": ns(12.0)},
            {"name": "app::update", "count": 2, "total_ns": ns(7.0)},
        ]})
    );
    let text = f.text(&["callers", "s.{}", "frame"]);
    assert!(text.contains("(top level)"), "{text}");
    // Data strings are not names.
    let out = run_in(f.path(), &["callers", "s.puffin", "tex.png"]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stderr(&out).trim(),
        "puffin-lens: s.puffin: no scope named \"tex.png\""
    );
}

/// The scenario's diff pair (see `common::scenario::diff_b`) as files.
fn diff_pair(b_registered: bool) -> Files {
    Files::new(&[("a", diff_a()), ("b", diff_b(b_registered))])
}

fn side(count: u64, total: f64, self_ms: f64) -> Value {
    json!({"count": count, "total_ns": ns(total), "self_ns": ns(self_ms)})
}

/// One frame a side: the per-frame totals are the totals.
fn dnode(name: &str, a: Value, b: Value, delta: f64, children: Vec<Value>) -> Value {
    let total = |s: &Value| s["total_ns"].as_i64().unwrap_or(0) as f64;
    let (ta, tb) = (total(&a), total(&b));
    json!({"name": name, "a": a, "b": b, "delta_total_ns": ns(delta),
        "a_total_per_frame_ns": ta, "b_total_per_frame_ns": tb,
        "delta_total_per_frame_ns": tb - ta,
        "delta_pct": if ta > 0.0 { json!(100.0 * (tb - ta) / ta) } else { Value::Null },
        "children": children})
}

/// A thread of the diff, one frame a side.
fn dthread(name: &str, a_ms: f64, b_ms: f64, roots: Vec<Value>) -> Value {
    let (ta, tb) = (ns(a_ms), ns(b_ms));
    json!({"name": name, "a_total_ns": ta, "b_total_ns": tb,
        "a_total_per_frame_ns": ta as f64, "b_total_per_frame_ns": tb as f64,
        "delta_pct": if ta > 0 { json!(100.0 * (tb - ta) as f64 / ta as f64) } else { Value::Null },
        "roots": roots})
}

/// [`dnode`] with the noise model's judgement.
fn judged(kind: &str, mut node: Value) -> Value {
    node["kind"] = json!(kind);
    node
}

#[test]
fn diff_joins_the_trees_and_orders_by_the_size_of_the_change() {
    // One frame a side: every node in both is inconclusive (nothing to
    // judge a change from), new and gone are what they are.
    let f = diff_pair(true);
    let null = Value::Null;
    let expected = json!({
        "warnings": [],
        "basis": "frame",
        "units": [1, 1],
        "frames_a": 1,
        "frames_b": 1,
        "threads": [
            dthread("audio", 0.0, 3.0, vec![
                judged("new", dnode("mix", null.clone(), side(1, 3.0, 3.0), 3.0, vec![]))]),
            dthread("main", 20.0, 20.0, vec![
                judged("inconclusive", dnode("frame", side(1, 20.0, 7.5), side(1, 20.0, 8.0), 0.0, vec![
                    judged("gone", dnode("app::update", side(1, 4.5, 4.5), null.clone(), -4.5, vec![])),
                    judged("new", dnode("physics", null.clone(), side(1, 4.0, 4.0), 4.0, vec![])),
                    judged("inconclusive", dnode("app::render", side(1, 8.0, 7.0), side(1, 8.0, 6.0), 0.0, vec![
                        // One call a side: by the thresholds alone.
                        judged("inconclusive", dnode("load", side(1, 1.0, 1.0), side(1, 2.0, 2.0), 1.0, vec![])),
                    ])),
                ]))]),
            // Two 2 ms jobs, then one: the same cost per call, less often.
            dthread("rayon-1", 4.0, 2.0, vec![
                judged("inconclusive", dnode("job", side(2, 4.0, 4.0), side(1, 2.0, 2.0), -2.0, vec![]))]),
            dthread("rayon-2", 6.5, 0.0, vec![
                judged("gone", dnode("job", side(2, 6.5, 6.5), null.clone(), -6.5, vec![]))]),
        ]
    });
    assert_eq!(f.json(&["diff", "a.{}", "b.{}"]), expected);
    // --depth 1 and --thread.
    let one = f.json(&["diff", "a.{}", "b.{}", "--thread", "main", "--depth", "1"]);
    assert_eq!(one["threads"].as_array().unwrap().len(), 1);
    assert_eq!(one["threads"][0]["roots"][0]["children"], json!([]));
    assert_eq!(one["threads"][0]["roots"][0]["b"], side(1, 20.0, 8.0));

    let text = f.text(&["diff", "a.{}", "b.{}"]);
    let line = |name: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("{name} in {text}"))
            .split_whitespace()
            .collect::<Vec<_>>()
    };
    assert_eq!(
        line("load"),
        [
            "load",
            "1.000",
            "2.000",
            "+1.000",
            "+100.0%",
            "inconclusive",
            "(not",
            "told",
            "apart",
            "from",
            "noise)"
        ]
    );
    assert_eq!(
        line("physics"),
        ["physics", "-", "4.000", "+4.000", "new", "new", "in", "B"]
    );
    assert_eq!(
        line("app::update"),
        [
            "app::update",
            "4.500",
            "-",
            "-4.500",
            "gone",
            "gone",
            "in",
            "B"
        ]
    );
    // Unchanged nodes say nothing; inconclusive ones say so.
    assert_eq!(line("app::render").len(), 11);

    // B without registration: its names are scope#<id>, and the answer says so.
    let f = diff_pair(false);
    let warned = f.json(&["diff", "a.{}", "b.{}"]);
    assert!(
        warned["warnings"][0]
            .as_str()
            .unwrap()
            .starts_with("registration mismatch: A has scope registration and B has none"),
        "{warned}"
    );
    assert_eq!(warned["threads"][1]["roots"][0]["name"], "frame");
    assert_eq!(warned["threads"][1]["roots"][1]["name"], "scope#1");
}

#[test]
fn lists_say_what_they_left_out() {
    let f = files();
    // 14 instances in the scenario; `top --top 2` says the other 12.
    let text = f.text(&["top", "s.{}", "--top", "2"]);
    assert!(text.contains("… 12 more, --top 14 shows them"), "{text}");
    assert!(!f.text(&["top", "s.{}", "--top", "14"]).contains("more"));
    let text = f.text(&["find", "s.{}", "job", "--top", "1"]);
    assert!(text.contains("… 3 more, --top 4 shows them"), "{text}");
    let text = f.text(&["find", "s.{}", "--aggregate", "--by", "name", "--top", "2"]);
    assert!(text.contains("… 3 more, --top 5 shows them"), "{text}");
    let text = f.text(&["frames", "s.{}", "--top", "1"]);
    assert!(text.contains("… 2 more, --top 3 shows them"), "{text}");
    // The JSON stays the rows (the count is the text's).
    assert_eq!(
        f.json(&["top", "s.{}", "--top", "2"])
            .as_array()
            .unwrap()
            .len(),
        2
    );
}
