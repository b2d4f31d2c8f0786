//! `window` inside a gap, on the planted job-system pair: each thread's
//! time split into profiled, unprofiled (in a scope, in none of its
//! children) and no scope, and every scope with its start and end.

mod common;

use common::planted::{self, JOBS_DISPATCH_MS, JOBS_STAGGER_MS, JOBS_WAKE_MS};
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

fn ns(v: &Value) -> i64 {
    v.as_i64().unwrap_or_else(|| panic!("an integer: {v}"))
}

/// Every call of `name` on `file`, in time order: (start_ns, end_ns).
fn calls(dir: &Path, file: &str, name: &str) -> Vec<(i64, i64)> {
    let c = json(dir, &["calls", file, name, "--json"]);
    c["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let s = ns(&c["start_ns"]);
            (s, s + ns(&c["duration_ns"]))
        })
        .collect()
}

/// The split row of `thread`.
fn split<'a>(w: &'a Value, thread: &str) -> &'a Value {
    w["split"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["thread"] == thread)
        .unwrap_or_else(|| panic!("no split row for {thread}: {w}"))
}

fn names(scopes: &Value) -> Vec<&str> {
    scopes
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect()
}

#[test]
fn a_window_over_the_new_gap_says_main_is_in_main_loop_unprofiled_and_the_workers_have_no_scope() {
    let dir = planted::jobs_pair(11, 12);
    let d = dir.path();
    // Frame 5 of B: the 1.5 ms after sim::step, before draw::batch.
    let lo = calls(d, "b.puffin", "sim::step")[5].1;
    let hi = calls(d, "b.puffin", "draw::batch")[5].0;
    assert_eq!(hi - lo, 1_500_000, "the planted gap");
    let w = json(d, &["window", "b.puffin", &lo.to_string(), &hi.to_string()]);
    assert_eq!(ns(&w["duration_ns"]), hi - lo);
    let threads: Vec<&str> = w["split"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["thread"].as_str().unwrap())
        .collect();
    assert_eq!(threads, ["main", "pool-0", "pool-1", "pool-2"]);
    let main = split(&w, "main");
    assert_eq!(
        (
            ns(&main["profiled_ns"]),
            ns(&main["unprofiled_ns"]),
            ns(&main["no_scope_ns"])
        ),
        (0, hi - lo, 0)
    );
    assert_eq!(main["unprofiled_in"][0]["name"], "main_loop");
    assert_eq!(ns(&main["unprofiled_in"][0]["unprofiled_ns"]), hi - lo);
    // Only main_loop overlaps (sim::step ends where the window starts,
    // draw::batch starts where it ends), and only partly.
    assert_eq!(names(&main["scopes"]), ["main_loop"]);
    let ml = &main["scopes"][0];
    assert_eq!(ml["partial"], true);
    assert_eq!(ns(&ml["overlap_ns"]), hi - lo);
    assert_eq!(ns(&ml["unprofiled_ns"]), hi - lo);
    assert!(ml["start_in_window_ms"].as_f64().unwrap() < -2.6);
    assert_eq!(names(&main["partial"]), ["main_loop"]);
    for pool in ["pool-0", "pool-1", "pool-2"] {
        let p = split(&w, pool);
        assert_eq!(
            (
                ns(&p["profiled_ns"]),
                ns(&p["unprofiled_ns"]),
                ns(&p["no_scope_ns"])
            ),
            (0, 0, hi - lo),
            "{pool}"
        );
        assert_eq!(p["scopes"], serde_json::json!([]));
        assert_eq!(p["total_scopes"], 0);
    }
    assert_eq!(ns(&w["no_thread_profiled_ns"]), hi - lo);
    // The old figures stay: main_loop covers the window.
    assert_eq!(ns(&w["covered_ns"]), hi - lo);
    assert_eq!(ns(&w["uncovered_ns"]), 0);

    let t = text(d, &["window", "b.puffin", &lo.to_string(), &hi.to_string()]);
    let row = t
        .lines()
        .find(|l| l.starts_with("main "))
        .unwrap_or_else(|| panic!("{t}"));
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        cells,
        ["main", "0.000", "1.500", "0.000", "main_loop", "1.500"],
        "{t}"
    );
    assert!(
        t.lines().any(|l| l.split_whitespace().collect::<Vec<_>>()
            == ["pool-2", "0.000", "0.000", "1.500", "-"]),
        "{t}"
    );
    assert!(
        t.contains("no thread in profiled time: 1.500 ms (100%)"),
        "{t}"
    );
}

#[test]
fn a_window_over_the_jobs_wait_lists_the_workers_jobs_with_their_starts_and_ends() {
    let dir = planted::jobs_pair(21, 22);
    let d = dir.path();
    let run = calls(d, "b.puffin", "jobs::run")[7];
    let merge = calls(d, "b.puffin", "jobs::merge")[7];
    let (lo, hi) = (run.0, merge.0);
    let w = json(d, &["window", "b.puffin", &lo.to_string(), &hi.to_string()]);
    let mut ends = Vec::new();
    for (k, pool) in ["pool-0", "pool-1", "pool-2"].iter().enumerate() {
        let p = split(&w, pool);
        assert_eq!(names(&p["scopes"]), ["job::cloth"], "{pool}");
        let job = &p["scopes"][0];
        assert_eq!(job["data"], format!("cloth {k}"));
        assert_eq!(job["partial"], false);
        let (start, end) = (ns(&job["start_ns"]), ns(&job["end_ns"]));
        // Relative to the window, exactly the absolute times' difference.
        assert_eq!(
            job["start_in_window_ms"].as_f64().unwrap(),
            (start - lo) as f64 / 1e6
        );
        assert_eq!(
            job["end_in_window_ms"].as_f64().unwrap(),
            (end - lo) as f64 / 1e6
        );
        let planted_start = ((JOBS_DISPATCH_MS + JOBS_STAGGER_MS * k as f64) * 1e6) as i64;
        assert_eq!(start - lo, planted_start, "{pool}");
        let ms = (end - start) as f64 / 1e6;
        assert!((ms - 3.0).abs() <= 0.03, "{pool}: {ms} ms");
        assert_eq!(ns(&job["overlap_ns"]), end - start);
        assert_eq!(ns(&p["profiled_ns"]), end - start);
        assert_eq!(ns(&p["no_scope_ns"]), (hi - lo) - (end - start));
        ends.push(end);
    }
    // pool-2 ends last, and merge starts 0.03 ms after it.
    assert!(ends[2] > ends[0] && ends[2] > ends[1], "{ends:?}");
    assert_eq!(hi - ends[2], (JOBS_WAKE_MS * 1e6) as i64);
    // Main waits: in jobs::run, in none of its children.
    let main = split(&w, "main");
    assert_eq!(ns(&main["unprofiled_ns"]), hi - lo);
    assert_eq!(ns(&main["profiled_ns"]), 0);
    assert_eq!(main["unprofiled_in"][0]["name"], "jobs::run");
    assert_eq!(names(&main["partial"]), ["main_loop", "jobs::run"]);
    let jr = &main["partial"][1];
    assert_eq!(ns(&jr["start_ns"]), lo);
    assert_eq!(jr["start_in_window_ms"].as_f64(), Some(0.0));
    assert_eq!(ns(&jr["overlap_ns"]), hi - lo);
    // Nothing profiled on any thread: the dispatch before the first job
    // starts and the wake-up after the last one ends.
    let dispatch = (JOBS_DISPATCH_MS * 1e6) as i64;
    assert_eq!(ns(&w["no_thread_profiled_ns"]), dispatch + (hi - ends[2]));

    let t = text(d, &["window", "b.puffin", &lo.to_string(), &hi.to_string()]);
    // The rows of the time-ordered table, after its heading.
    let timeline = t.split_once("scopes in time order").unwrap().1;
    let job_row = |pool: &str| -> Vec<String> {
        let row = timeline
            .lines()
            .find(|l| l.starts_with(pool) && l.contains("job::cloth"))
            .unwrap_or_else(|| panic!("{pool}: {t}"));
        row.split_whitespace().map(str::to_owned).collect()
    };
    let row = job_row("pool-2");
    assert_eq!(row[1], "0.200", "{t}");
    assert_eq!(row[2], format!("{:.3}", (ends[2] - lo) as f64 / 1e6), "{t}");
    assert_eq!(job_row("pool-0")[1], "0.100");
    assert!(t.contains("partly"), "{t}");
}

#[test]
fn window_scopes_are_cut_by_scopes_and_say_how_many() {
    let dir = planted::jobs_pair(31, 32);
    let d = dir.path();
    let frames = calls(d, "a.puffin", "main_loop");
    // Three whole frames: main has 11 scopes a frame (main_loop, input,
    // assets::stream, sim::step, draw::batch, draw::sort, draw::submit,
    // jobs::run, jobs::merge, present, frame::end).
    let (lo, hi) = (frames[2].0, frames[5].0);
    let w = json(
        d,
        &[
            "window",
            "a.puffin",
            &lo.to_string(),
            &hi.to_string(),
            "--scopes",
            "4",
        ],
    );
    let main = split(&w, "main");
    assert_eq!(main["scopes"].as_array().unwrap().len(), 4);
    assert_eq!(main["total_scopes"], 33);
    assert_eq!(
        names(&main["scopes"]),
        ["main_loop", "input", "assets::stream", "sim::step"]
    );
    let t = text(
        d,
        &[
            "window",
            "a.puffin",
            &lo.to_string(),
            &hi.to_string(),
            "--scopes",
            "4",
        ],
    );
    assert!(t.contains("… main: 29 more, --scopes 33 shows them"), "{t}");
}
