//! Waits traced across threads (issue 43): what a gap on one thread waits
//! for while other threads work (the critical path: the last work on
//! another thread to end in it), the gap split into dispatch, waiting and
//! wake-up, and in a comparison a grown wait attributed to the critical
//! work's per-call change, on the planted pairs (tests/common/planted.rs)
//! and the real Rerun Viewer pair.

mod common;

use common::json_in;
use common::planted::{
    self, AFTER, BEFORE, JOBS_AFTER, JOBS_BEFORE, JOBS_DISPATCH_MS, JOBS_STAGGER_MS, JOBS_WAKE_MS,
    JobsPlan, WAIT_MS,
};
use serde_json::Value;
use std::path::Path;

const MS: f64 = 1e6;

/// `x` within `pct`% of `want` (the plants' jitter is 1% per duration).
fn near(x: f64, want: f64, pct: f64) -> bool {
    (x - want).abs() <= want.abs() * pct / 100.0
}

/// A number of ns: epoch times exactly (as i64), then as f64 (a
/// difference of two epoch times is exact).
fn ns(v: &Value) -> f64 {
    v.as_i64()
        .map_or_else(|| v.as_f64().unwrap_or(f64::NAN), |x| x as f64)
}

/// `b - a` of two epoch-ns numbers, exactly.
fn sub(b: &Value, a: &Value) -> f64 {
    (b.as_i64().unwrap() - a.as_i64().unwrap()) as f64
}

/// The recurring gap of `gaps --json` in `path` of `kind`.
fn recurring<'a>(gaps: &'a Value, path: &str, kind: &str) -> &'a Value {
    gaps["recurring"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["path"] == path && g["kind"] == kind)
        .unwrap_or_else(|| panic!("no {kind} gap in {path}: {gaps:#}"))
}

fn gaps(dir: &Path, file: &str) -> Value {
    let (rc, v) = json_in(dir, &["gaps", file, "--thread", "main", "--json"]);
    assert_eq!(rc, 0);
    v
}

#[test]
fn the_jobs_wait_waits_for_pool_2s_cloth_in_three_parts() {
    let dir = planted::jobs_pair(11, 12);
    for (f, plan) in [("a.puffin", JOBS_BEFORE), ("b.puffin", JOBS_AFTER)] {
        let g = gaps(dir.path(), f);
        let wait = recurring(&g, "main_loop > jobs::run", "leading");
        let w = &wait["waits_for"];
        println!("{f}: {w:#}");
        assert_eq!(w["traced"], plan.frames as u64, "{f}");
        // The critical path: pool-2 starts last, so it finishes last.
        assert_eq!(w["critical"]["thread"], "pool-2", "{f}");
        assert_eq!(w["critical"]["name"], "job::cloth", "{f}");
        assert_eq!(w["critical"]["data"], "cloth 2", "{f}");
        assert_eq!(w["critical"]["occurrences"], plan.frames as u64, "{f}");
        assert_eq!(w["first"]["thread"], "pool-0", "{f}");
        assert!(
            near(
                ns(&w["median_critical_duration_ns"]),
                plan.cloth_ms * MS,
                1.0
            ),
            "{f}"
        );
        // Dispatch and wake-up are planted exactly; the waiting is pool-2's
        // later start plus its job.
        assert_eq!(ns(&w["median_dispatch_ns"]), JOBS_DISPATCH_MS * MS, "{f}");
        assert_eq!(ns(&w["median_wake_ns"]), JOBS_WAKE_MS * MS, "{f}");
        let waiting = 2.0 * JOBS_STAGGER_MS + plan.cloth_ms;
        assert!(
            near(ns(&w["median_waiting_ns"]), waiting * MS, 1.0),
            "{f}: {waiting}"
        );
        assert_eq!(w["median_threads_working"], 3, "{f}");
        // The gaps without other threads working wait for nothing.
        assert!(recurring(&g, "", "top-level")["waits_for"].is_null(), "{f}");
    }
}

#[test]
fn a_one_off_wait_gives_its_critical_work_and_exact_parts() {
    // One frame: the wait is a one-off gap.
    let plan = JobsPlan {
        frames: 1,
        hitch: None,
        ..JOBS_BEFORE
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("one.puffin"),
        planted::record(&planted::jobs_loop(plan, 5)),
    )
    .unwrap();
    let g = gaps(dir.path(), "one.puffin");
    let gap = g["gaps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["kind"] == "leading" && x["parent"]["name"] == "jobs::run")
        .unwrap_or_else(|| panic!("{g:#}"));
    let w = &gap["waits_for"];
    println!("{w:#}");
    assert_eq!(w["critical"]["thread"], "pool-2");
    assert_eq!(w["critical"]["name"], "job::cloth");
    assert_eq!(w["first"]["thread"], "pool-0");
    assert_eq!(
        sub(&w["first"]["start_ns"], &gap["start_ns"]),
        JOBS_DISPATCH_MS * MS
    );
    assert_eq!(
        sub(&gap["end_ns"], &w["critical"]["end_ns"]),
        JOBS_WAKE_MS * MS
    );
    assert_eq!(ns(&w["critical_ends_before_gap_end_ns"]), JOBS_WAKE_MS * MS);
    assert_eq!(ns(&w["dispatch_ns"]), JOBS_DISPATCH_MS * MS);
    assert_eq!(ns(&w["wake_ns"]), JOBS_WAKE_MS * MS);
    // The three parts are the gap.
    assert_eq!(
        ns(&w["dispatch_ns"]) + ns(&w["waiting_ns"]) + ns(&w["wake_ns"]),
        ns(&gap["duration_ns"])
    );
    assert_eq!(w["threads_working"], 3);
    assert_eq!(w["threads_busy_at_start"], 0);
}

#[test]
fn the_game_loops_wait_splits_exactly() {
    // main waits WAIT_MS in render::prepare; worker-0..2 build meshes from
    // 2% to 98% of it (exactly), the wait's end jittered.
    let dir = tempfile::tempdir().unwrap();
    for (f, plan, seed) in [("a.puffin", BEFORE, 3), ("b.puffin", AFTER, 4)] {
        std::fs::write(
            dir.path().join(f),
            planted::record(&planted::game_loop(plan, seed)),
        )
        .unwrap();
        let g = gaps(dir.path(), f);
        let wait = recurring(&g, "frame > render::prepare", "leading");
        let w = &wait["waits_for"];
        println!("{f}: {w:#}");
        let (b0, b1) = ((WAIT_MS * 0.02 * MS).trunc(), (WAIT_MS * 0.98 * MS).trunc());
        assert_eq!(w["traced"], wait["frames"], "{f}");
        assert_eq!(ns(&w["median_dispatch_ns"]), b0, "{f}");
        assert_eq!(ns(&w["median_waiting_ns"]), b1 - b0, "{f}");
        // The wake-up is the rest of each wait: its median is the wait's.
        assert_eq!(ns(&w["median_wake_ns"]), ns(&wait["median_ns"]) - b1, "{f}");
        // The three end together: the first by name is named.
        assert_eq!(w["critical"]["thread"], "worker-0", "{f}");
        assert_eq!(w["critical"]["name"], "mesh::build", "{f}");
        assert_eq!(w["first"]["thread"], "worker-0", "{f}");
        assert_eq!(w["median_threads_working"], 3, "{f}");
    }
}

#[test]
fn the_grown_wait_is_attributed_to_the_slower_cloth_jobs() {
    let dir = planted::jobs_pair(21, 22);
    let (rc, r) = json_in(
        dir.path(),
        &["report", "a.puffin", "b.puffin", "--format", "json"],
    );
    assert_eq!(rc, 0);
    let c = &r["comparison"];
    let waits = c["waits"].as_array().unwrap();
    let w = waits
        .iter()
        .find(|w| w["path"] == "main_loop > jobs::run" && w["kind"] == "leading")
        .unwrap_or_else(|| panic!("{waits:#?}"));
    println!("{w:#}");
    assert_eq!(w["thread"], "main");
    // The wait grew by the jobs' 1 ms; dispatch and wake-up did not move.
    let grew = ns(&w["delta_median_ns"]);
    assert!(near(grew, 1.0 * MS, 3.0), "{grew}");
    assert_eq!(ns(&w["delta_dispatch_ns"]), 0.0);
    assert_eq!(ns(&w["delta_wake_ns"]), 0.0);
    assert!(near(ns(&w["delta_waiting_ns"]), 1.0 * MS, 3.0));
    assert_eq!(w["a"]["critical"]["thread"], "pool-2");
    assert_eq!(w["b"]["critical"]["thread"], "pool-2");
    // Attributed to job::cloth, within 5% of the growth.
    let cause = &w["causes"][0];
    assert_eq!(cause["name"], "job::cloth");
    assert_eq!(cause["kind"], "slower");
    assert_eq!(cause["critical_thread"], "pool-2");
    assert_eq!(
        cause["threads"],
        serde_json::json!(["pool-0", "pool-1", "pool-2"])
    );
    let attributed = ns(&w["attributed_ns"]);
    assert!(near(attributed, grew, 5.0), "{attributed} of {grew}");
    assert!(near(ns(&w["attributed_pct"]), 100.0, 5.0));

    // Look at first: the cause before the symptom; jobs::run never "slower
    // per call".
    let look: Vec<&str> = c["look_first"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    println!("{look:#?}");
    assert!(
        !look
            .iter()
            .any(|l| l.starts_with("`jobs::run`") && l.contains("slower per call")),
        "{look:#?}"
    );
    let cloth = look
        .iter()
        .position(|l| l.contains("`job::cloth` is 1.0"))
        .unwrap_or_else(|| panic!("{look:#?}"));
    assert!(look[cloth].starts_with("main waits 1.0"), "{}", look[cloth]);
    assert!(look[cloth].contains("pool-0..2, the last to finish (pool-2)"));
    // Told once: not again as B's unprofiled time in jobs::run.
    assert!(
        !look
            .iter()
            .any(|l| l.starts_with("unprofiled time in B: main `main_loop > jobs::run`")),
        "{look:#?}"
    );

    // job::cloth runs on three threads at once: its per-frame change per
    // thread, the sum kept apart (not frame time).
    let row = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["name"] == "job::cloth")
        .unwrap();
    let p = &row["parallel"];
    println!("{p:#}");
    assert_eq!(
        p["threads"],
        serde_json::json!(["pool-0", "pool-1", "pool-2"])
    );
    assert_eq!(p["threads_at_once"], 3);
    assert!(near(ns(&p["per_thread_delta_per_frame_ns"]), 1.0 * MS, 3.0));
    assert!(near(ns(&p["summed_over_threads_ns"]), 3.0 * MS, 3.0));
    assert!(near(ns(&p["per_call_delta_ns"]), 1.0 * MS, 3.0));
    assert!(near(ns(&p["critical_path_delta_ns"]), 1.0 * MS, 3.0));
    assert_eq!(p["critical_thread"], "pool-2");
    // main's scopes run on one thread: no parallel figures.
    let run = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["name"] == "jobs::run")
        .unwrap();
    assert!(run["parallel"].is_null());

    // The Markdown says it the same way: the table's Δ per frame is per
    // thread, the 3-thread sum named as such.
    let out = common::run_in(dir.path(), &["report", "a.puffin", "b.puffin"]);
    let md = String::from_utf8_lossy(&out.stdout);
    let line = md
        .lines()
        .find(|l| l.starts_with("| `job::cloth` |"))
        .unwrap_or_else(|| panic!("{md}"));
    println!("{line}");
    let cells: Vec<&str> = line.split(" | ").collect();
    assert!(
        cells[3].starts_with("+1.0") && cells[3].ends_with("per thread"),
        "{line}"
    );
    assert!(
        line.contains("on 3 threads in parallel (pool-0..2)"),
        "{line}"
    );
    assert!(line.contains("on the critical path (pool-2)"), "{line}");
    assert!(line.contains("summed over threads +3.0"), "{line}");
    assert!(md.contains("### Waits traced across threads"), "{md}");
    assert!(
        md.contains("`jobs::run` +1.0") && md.contains("(a wait for `job::cloth` on pool-2)"),
        "{md}"
    );
}

#[test]
fn the_viewer_pairs_waits_are_traced_sanely() {
    let dir = common::fixtures_dir().join("real");
    let mut found = 0;
    for f in ["rerun_viewer_plots_a.puffin", "rerun_viewer_plots_b.puffin"] {
        let (rc, g) = json_in(&dir, &["gaps", f, "--json"]);
        assert_eq!(rc, 0);
        for gap in g["gaps"].as_array().unwrap() {
            let w = &gap["waits_for"];
            if w.is_null() {
                continue;
            }
            found += 1;
            // The parts are the gap; the critical work ends in it, on
            // another thread, the first starts no later than it ends.
            let (start, end) = (gap["start_ns"].as_i64(), gap["end_ns"].as_i64());
            let parts = ns(&w["dispatch_ns"]) + ns(&w["waiting_ns"]) + ns(&w["wake_ns"]);
            assert_eq!(parts, ns(&gap["duration_ns"]), "{f}: {gap:#}");
            let crit_end = w["critical"]["end_ns"].as_i64();
            assert!(crit_end > start && crit_end <= end, "{f}: {gap:#}");
            assert_ne!(w["critical"]["thread"], gap["thread"], "{f}");
            assert!(w["first"]["start_ns"].as_i64() <= crit_end, "{f}");
            assert!(w["threads_working"].as_u64().unwrap() >= 1, "{f}");
        }
        for r in g["recurring"].as_array().unwrap() {
            let w = &r["waits_for"];
            if w.is_null() {
                continue;
            }
            found += 1;
            assert!(w["traced"].as_u64() <= r["frames"].as_u64(), "{f}");
            assert!(w["critical"]["occurrences"].as_u64() <= w["traced"].as_u64());
            assert!(ns(&w["median_dispatch_ns"]) <= ns(&r["max_ns"]), "{f}");
            println!(
                "{f}: {} {} {}: median {:.3} ms, waits for {} {} ({} of {}): dispatch {:.3}, waiting {:.3}, wake-up {:.3} ms",
                r["thread"],
                r["path"].as_str().unwrap().rsplit(" > ").next().unwrap(),
                r["kind"],
                ns(&r["median_ns"]) / MS,
                w["critical"]["thread"],
                w["critical"]["name"],
                w["traced"],
                r["frames"],
                ns(&w["median_dispatch_ns"]) / MS,
                ns(&w["median_waiting_ns"]) / MS,
                ns(&w["median_wake_ns"]) / MS,
            );
        }
        // The Viewer's rayon wait in `[WAIT] execute_systems` waits for
        // the views' systems on rayon-0 in every frame.
        let exec = g["recurring"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| {
                r["path"]
                    .as_str()
                    .unwrap()
                    .ends_with("[WAIT] execute_systems")
                    && r["kind"] == "trailing"
            })
            .unwrap_or_else(|| panic!("{f}"));
        let w = &exec["waits_for"];
        assert_eq!(w["traced"], exec["frames"], "{f}");
        assert_eq!(w["critical"]["thread"], "rayon-0", "{f}");
        assert_eq!(
            w["critical"]["name"], "system_execution::execute_systems_for_view",
            "{f}"
        );
    }
    assert!(found > 0);
    // The report's comparison of the pair: every wait change's parts and
    // attribution are numbers, its gap matched on both sides.
    let (rc, r) = json_in(
        &dir,
        &[
            "report",
            "rerun_viewer_plots_a.puffin",
            "rerun_viewer_plots_b.puffin",
            "--format",
            "json",
        ],
    );
    assert_eq!(rc, 0);
    for w in r["comparison"]["waits"].as_array().unwrap() {
        println!("viewer wait change: {w:#}");
        assert_eq!(
            ns(&w["delta_median_ns"]),
            ns(&w["median_b_ns"]) - ns(&w["median_a_ns"])
        );
        assert!(ns(&w["attributed_pct"]).is_finite());
    }
}
