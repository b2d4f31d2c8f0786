//! The shapes of a change through a run (`analyses::shape`), on planted
//! captures with exact answers (`common::shapes`, puffin's simulated clock),
//! each with its counterpart, and on the repo's real twins: `report
//! --format json` run as a user runs it.

mod common;

use common::planted::Rng;
use common::shapes::{Editor, Gc, Lookup, editor_bytes, worker_loop};
use common::{cli_report, json_in, temp_file};
use serde_json::Value;

/// `report --format json` of one recording.
fn report(bytes: &[u8]) -> Value {
    let (dir, path) = temp_file("one.puffin", bytes);
    let (_, v) = json_in(
        dir.path(),
        &["report", path.to_str().unwrap(), "--format", "json"],
    );
    v
}

/// `report a.puffin b.puffin --format json --fail-on-regression PCT` in
/// `dir`: its exit status and JSON. `compare --fail-on-regression PCT`
/// gives the same status and trips on the same names.
fn gated(dir: &std::path::Path, pct: &str) -> (i32, Value) {
    let (status, r) = json_in(
        dir,
        &[
            "report",
            "a.puffin",
            "b.puffin",
            "--format",
            "json",
            "--fail-on-regression",
            pct,
        ],
    );
    let (compare_status, c) = json_in(
        dir,
        &[
            "compare",
            "a.puffin",
            "b.puffin",
            "--json",
            "--fail-on-regression",
            pct,
        ],
    );
    let tripped = |g: &Value| -> Vec<String> {
        g["tripped"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let (rg, cg) = (&r["comparison"]["gate"], &c["gate"]);
    assert_eq!(compare_status, status, "report {rg}\ncompare {cg}");
    assert_eq!(tripped(cg), tripped(rg), "report {rg}\ncompare {cg}");
    assert_eq!(cg["lost_parallelism"], rg["lost_parallelism"]);
    (status, r)
}

/// The shape one recording's report gives `name` (`steady` when it lists
/// none).
fn shape_of<'v>(r: &'v Value, name: &str) -> Option<&'v Value> {
    r["recordings"][0]["over_time"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .map(|s| &s["shape"])
}

fn kind(shape: Option<&Value>) -> &str {
    shape.map_or("steady", |s| s["shape"].as_str().unwrap())
}

#[test]
fn growth_through_the_run_is_a_trend_and_growth_that_levels_off_is_not() {
    for seed in 0..4u64 {
        let mut rng = Rng::new(seed);
        let frames = 60 + (seed as usize * 17) % 60;
        let from = 0.2 + 0.15 * (rng.unit() + 1.0);
        let to = 2.0 + 0.75 * (rng.unit() + 1.0);
        let plan = Editor {
            lookup: Lookup::Linear { from, to },
            jitter: 0.02 + 0.02 * (rng.unit() + 1.0),
            ..Editor::steady(frames)
        };
        let r = report(&editor_bytes(plan, seed));
        let s = shape_of(&r, "cache::lookup");
        assert_eq!(kind(s), "trend", "seed {seed}: {s:?}");
        let slope_ms = s.unwrap()["slope_ns"].as_f64().unwrap() / 1e6;
        let planted = (to - from) / (frames - 1) as f64;
        assert!(
            (slope_ms - planted).abs() < 0.1 * planted,
            "seed {seed}: {slope_ms} against {planted}"
        );
        let words = r["recordings"][0]["over_time"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == "cache::lookup")
            .unwrap()["words"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(words.starts_with("grows "), "{words}");
        assert!(words.ends_with("not levelling off"), "{words}");
        // The same rise, done by a fifth of the run: it levelled off.
        let settles = Editor {
            lookup: Lookup::Settles {
                from,
                to,
                by: frames / 5,
            },
            ..plan
        };
        let r = report(&editor_bytes(settles, seed));
        let s = shape_of(&r, "cache::lookup");
        assert_ne!(kind(s), "trend", "seed {seed}: {s:?}");
        // Nothing else in the loop moves.
        for name in ["text::shape", "physics::step", "render"] {
            assert_eq!(kind(shape_of(&r, name)), "steady", "seed {seed}: {name}");
        }
    }
}

#[test]
fn a_stall_every_nth_frame_is_periodic_and_random_slow_frames_are_not() {
    for seed in 0..4u64 {
        let mut rng = Rng::new(100 + seed);
        let every = 5 + (seed as usize * 3) % 10;
        let phase = (seed as usize * 7) % every;
        let ms = 8.0 + 3.0 * (rng.unit() + 1.0);
        let frames = 60 + (seed as usize * 13) % 50;
        let plan = Editor {
            gc: Gc::Every { every, phase, ms },
            gc_in_update: seed % 2 == 0,
            ..Editor::steady(frames)
        };
        let r = report(&editor_bytes(plan, seed));
        let s = shape_of(&r, "gc::sweep").unwrap_or_else(|| panic!("seed {seed}: {r:#}"));
        assert_eq!(s["shape"], "periodic", "seed {seed}: {s}");
        assert_eq!(s["every"], every as u64, "seed {seed}");
        assert_eq!(s["phase"], phase as u64, "seed {seed}");
        // The frames show it too, and name it.
        let f = &r["recordings"][0]["frame_shape"];
        assert_eq!(f["shape"]["shape"], "periodic", "seed {seed}: {f}");
        assert_eq!(f["shape"]["every"], every as u64, "seed {seed}");
        assert!(
            f["names"]
                .as_array()
                .unwrap()
                .iter()
                .any(|n| n == "gc::sweep"),
            "seed {seed}: {f}"
        );
        let words = f["words"].as_str().unwrap();
        assert!(words.starts_with(&format!("every {every}")), "{words}");
        assert!(words.ends_with("`gc::sweep`"), "{words}");
        // As many stalls, at random.
        let random = Editor {
            gc: Gc::Random {
                p: 1.0 / every as f64,
                ms,
            },
            ..plan
        };
        let r = report(&editor_bytes(random, seed));
        assert_ne!(kind(shape_of(&r, "gc::sweep")), "periodic", "seed {seed}");
        assert_ne!(
            r["recordings"][0]["frame_shape"]["shape"]["shape"], "periodic",
            "seed {seed}"
        );
    }
}

#[test]
fn a_step_is_found_at_its_frame() {
    for seed in 0..4u64 {
        let mut rng = Rng::new(200 + seed);
        let frames = 80;
        let at = 20 + (seed as usize * 11) % 40;
        let after = 1.4 + 0.4 * (rng.unit() + 1.0);
        let plan = Editor {
            render: (1.0, Some((at, after))),
            ..Editor::steady(frames)
        };
        let r = report(&editor_bytes(plan, seed));
        let s = shape_of(&r, "render").unwrap_or_else(|| panic!("seed {seed}"));
        assert_eq!(s["shape"], "step", "seed {seed}: {s}");
        assert_eq!(s["unit"], at as u64, "seed {seed}: {s}");
        // Its counterpart: no step.
        let r = report(&editor_bytes(Editor::steady(frames), seed));
        assert_eq!(kind(shape_of(&r, "render")), "steady", "seed {seed}");
    }
}

#[test]
fn a_comparison_says_b_grows_where_a_was_flat() {
    let a = editor_bytes(Editor::steady(80), 1);
    let b = editor_bytes(
        Editor {
            lookup: Lookup::Linear { from: 0.3, to: 3.0 },
            ..Editor::steady(80)
        },
        2,
    );
    let r = cli_report(&a, &b);
    let rows = r["comparison"]["rows"].as_array().unwrap();
    let row = rows
        .iter()
        .find(|x| x["name"] == "cache::lookup")
        .expect("cache::lookup changed");
    // Judged a change: the trend is B's cost, not noise around its mean
    // (the batches vary around the line, not around the mean).
    assert_eq!(row["change"]["effect"]["verdict"], "changed", "{row}");
    assert_eq!(row["change"]["kind"], "slower", "{row}");
    let t = &row["over_time"];
    assert_eq!(t["b"]["shape"], "trend", "{t}");
    assert_eq!(t["a"]["shape"], "steady", "{t}");
    let words = t["words"].as_str().unwrap();
    assert!(words.contains("through B; steady in A"), "{words}");
    // The unchanged rows say nothing of time.
    for x in rows.iter().filter(|x| x["name"] != "cache::lookup") {
        assert!(
            x["over_time"].is_null() || x["name"] == "update" || x["name"] == "frame",
            "{x}"
        );
    }
    // The Markdown says it on the row.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.puffin"), &a).unwrap();
    std::fs::write(dir.path().join("b.puffin"), &b).unwrap();
    let out = common::run_in(dir.path(), &["report", "a.puffin", "b.puffin"]);
    let md = String::from_utf8_lossy(&out.stdout);
    // (Its judged row: the glance's waterfall has a line of it too.)
    let line = md
        .lines()
        .find(|l| l.starts_with("| `cache::lookup`") && l.contains("over time"))
        .expect("its row");
    assert!(line.contains("over time: grows "), "{line}");
}

#[test]
fn the_real_twins_have_no_trend_no_periodic_stall_no_rename_and_are_one_app() {
    // The Rerun Viewer and SDK twins: what either recording says of its
    // own names over time is no trend and no stall every Nth frame; their
    // comparison lists no shape (nothing changed).
    let real = common::fixtures_dir().join("real");
    for (a, b) in [
        ("rerun_viewer_plots_a", "rerun_viewer_plots_b"),
        ("rerun_sdk_twin_a", "rerun_sdk_twin_b"),
    ] {
        let (_, r) = json_in(
            &real,
            &[
                "report",
                &format!("{a}.puffin"),
                &format!("{b}.puffin"),
                "--format",
                "json",
            ],
        );
        for rec in r["recordings"].as_array().unwrap() {
            for s in rec["over_time"].as_array().unwrap() {
                let k = s["shape"]["shape"].as_str().unwrap();
                assert!(!matches!(k, "trend" | "periodic"), "{a}: {s}");
            }
        }
        for row in r["comparison"]["rows"].as_array().unwrap() {
            assert!(row["over_time"].is_null(), "{a}: {row}");
        }
        assert_eq!(r["comparison"]["renames"], serde_json::json!([]), "{a}");
        // Runs of one app: not flagged as another app's.
        for c in r["comparison"]["conditions"].as_array().unwrap() {
            let c = c.as_str().unwrap();
            assert!(
                !c.contains("different apps") && !c.contains("another app"),
                "{a}: {c}"
            );
        }
    }
}

#[test]
fn a_rename_at_one_place_is_one_row_and_a_move_is_not() {
    for seed in 0..3u64 {
        let a = editor_bytes(Editor::steady(60 + seed as usize * 10), seed);
        let renamed = Editor {
            physics: ("sim::advance", true),
            ..Editor::steady(60 + seed as usize * 10)
        };
        let r = cli_report(&a, &editor_bytes(renamed, seed + 50));
        let c = &r["comparison"];
        let renames = c["renames"].as_array().unwrap();
        assert_eq!(renames.len(), 1, "seed {seed}: {renames:?}");
        assert_eq!(renames[0]["from"], "physics::step");
        assert_eq!(renames[0]["to"], "sim::advance");
        assert_eq!(renames[0]["place"]["parent"], "update");
        // Same cost: not a change, and neither new nor gone, nor a cost in
        // Look at first.
        assert!(
            !renames[0]["change"]["kind"]
                .as_str()
                .unwrap()
                .starts_with("slower"),
            "{}",
            renames[0]
        );
        assert!(c["new"].as_array().unwrap().is_empty(), "{}", c["new"]);
        assert!(c["gone"].as_array().unwrap().is_empty(), "{}", c["gone"]);
        for line in c["look_first"].as_array().unwrap() {
            let line = line.as_str().unwrap();
            assert!(!line.contains("sim::advance"), "{line}");
        }
        let words = renames[0]["words"].as_str().unwrap();
        assert!(
            words.starts_with("`physics::step` renamed `sim::advance` (in `update` on main"),
            "{words}"
        );
        // Moved to the end of the frame under a new name, its old stretch
        // of `update` left unprofiled: not a rename. By what time
        // conserves, `update` held its time (`physics::step`'s 0.8 ms is
        // now its own: restructured, not gone), and `frame` gained
        // `sim::advance`'s 0.8 ms at its end (new, a cost).
        let moved = Editor {
            physics: ("sim::advance", false),
            ..renamed
        };
        let r = cli_report(&a, &editor_bytes(moved, seed + 50));
        let c = &r["comparison"];
        assert!(c["renames"].as_array().unwrap().is_empty(), "seed {seed}");
        assert_eq!(c["new"], serde_json::json!(["sim::advance"]));
        assert_eq!(c["gone"], serde_json::json!([]));
        let places = c["places"].as_array().unwrap();
        let update = places.iter().find(|p| p["parent"] == "update").unwrap();
        assert_eq!(update["restructured"], true, "{update:#}");
        assert_eq!(update["gone"], serde_json::json!(["physics::step"]));
        let frame = places.iter().find(|p| p["parent"] == "frame").unwrap();
        assert_eq!(frame["restructured"], false, "{frame:#}");
        assert_eq!(frame["new"], serde_json::json!(["sim::advance"]));
    }
}

#[test]
fn a_change_at_one_call_site_is_placed_there_and_one_at_every_site_is_not() {
    for seed in 0..3u64 {
        let mut rng = Rng::new(300 + seed);
        let before = 0.4 + 0.2 * (rng.unit() + 1.0);
        let after = before * (3.0 + (rng.unit() + 1.0));
        let frames = 60 + seed as usize * 15;
        let a = Editor {
            shape_ms: (0.4, Some(before)),
            ..Editor::steady(frames)
        };
        let b = Editor {
            shape_ms: (0.4, Some(after)),
            ..a
        };
        let r = cli_report(&editor_bytes(a, seed), &editor_bytes(b, seed + 7));
        let rows = r["comparison"]["rows"].as_array().unwrap();
        let row = rows
            .iter()
            .find(|x| x["name"] == "text::shape")
            .unwrap_or_else(|| panic!("seed {seed}: {rows:?}"));
        let p = &row["place"];
        let at = p["at"]
            .as_u64()
            .unwrap_or_else(|| panic!("seed {seed}: {p}")) as usize;
        let site = &p["sites"][at];
        assert_eq!(site["caller"], "ui::tooltip", "seed {seed}: {p}");
        assert_eq!(site["change"]["kind"], "slower", "seed {seed}: {site}");
        let label = p["sites"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["caller"] == "ui::label")
            .unwrap();
        assert_ne!(label["change"]["effect"]["verdict"], "changed", "{label}");
        let words = row["place_words"].as_str().unwrap();
        assert!(
            words.starts_with("slower per call where `ui::tooltip` calls it on main"),
            "{words}"
        );
        assert!(
            words.contains("`ui::label` (3.00 calls per frame)"),
            "{words}"
        );
        // The same change at every call site: not placed at one.
        let b_all = Editor {
            shape_ms: (0.4 * 2.0, Some(before * 2.0)),
            ..a
        };
        let r = cli_report(&editor_bytes(a, seed), &editor_bytes(b_all, seed + 7));
        let row = r["comparison"]["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["name"] == "text::shape")
            .unwrap()
            .clone();
        assert!(
            row["place"]["at"].is_null(),
            "seed {seed}: {}",
            row["place"]
        );
        assert_eq!(row["place"]["everywhere"], true, "seed {seed}");
        assert_eq!(row["place_words"], "at every call site (2)");
    }
}

#[test]
fn overlapping_frames_are_found_and_the_fix_said() {
    for seed in 0..3u64 {
        let frames = 40 + seed as usize * 10;
        let (dir, path) = temp_file("o.puffin", &worker_loop(frames, true, seed));
        let (_, s) = json_in(dir.path(), &["summary", path.to_str().unwrap(), "--json"]);
        let o = &s["overlapping_frames"];
        assert_eq!(o["thread"], "main", "seed {seed}: {s}");
        assert!(o["frames"].as_u64().unwrap() as usize >= frames - 3, "{o}");
        let sentence = o["sentence"].as_str().unwrap();
        assert!(sentence.contains("new_frame()"), "{sentence}");
        // The report says it too, and its frame times are main's own (about
        // 4 ms), not the frames' ranges (two frames mixed: over 40 ms).
        let out = common::run_in(dir.path(), &["report", path.to_str().unwrap()]);
        let md = String::from_utf8_lossy(&out.stdout);
        assert!(md.contains("frames overlap: "), "{md}");
        let (_, r) = json_in(
            dir.path(),
            &["report", path.to_str().unwrap(), "--format", "json"],
        );
        let median_ms = r["recordings"][0]["median_frame_ns"].as_f64().unwrap() / 1e6;
        assert!(
            median_ms > 3.0 && median_ms < 6.0,
            "seed {seed}: {median_ms}"
        );
        let note = r["recordings"][0]["median_note"].as_str().unwrap();
        assert!(note.starts_with("frames overlap"), "{note}");
        // A comparison of two such runs of the same code reads main's own
        // frame time too, and finds nothing changed in it.
        let c = cli_report(
            &worker_loop(frames, true, seed),
            &worker_loop(frames, true, seed + 10),
        );
        // Its frame is main's period, the loop's 40 ms, which the
        // overlapping ranges (two frames mixed) never double.
        let f = &c["comparison"]["frame"];
        for side in ["median_a_ns", "median_b_ns"] {
            let ms = f[side].as_f64().unwrap() / 1e6;
            assert!((ms - 40.0).abs() < 0.5, "seed {seed}: {side} {ms}");
        }
        assert_ne!(f["kind"], "slower", "seed {seed}: {f}");
        // Its counterpart: frames of their own.
        let (dir, path) = temp_file("n.puffin", &worker_loop(frames, false, seed));
        let (_, s) = json_in(dir.path(), &["summary", path.to_str().unwrap(), "--json"]);
        assert!(s["overlapping_frames"].is_null(), "seed {seed}: {s}");
    }
    // The repo's real recordings: none overlaps. The twins' worker runs
    // jobs apart from the frames, so a job straddles each frame boundary
    // (the frames' durations sum to 1.1x the span): not a late scope.
    for f in [
        "real/rerun_viewer_plots_a",
        "real/rerun_sdk_twin_a",
        "twins/live_demo_quiet",
        "twins/live_demo_hog",
    ] {
        let (_, s) = json_in(
            &common::fixtures_dir(),
            &["summary", &format!("{f}.puffin"), "--json"],
        );
        assert!(s["overlapping_frames"].is_null(), "{f}: {s}");
    }
}

/// Main runs `work`, then in `jobs::run` waits (no scope) for `job::mesh`
/// on worker-a and `job::audio` on worker-b, then merges. The longer job
/// is the critical path.
fn waits_loop(frames: usize, mesh_ms: f64, audio_ms: f64, seed: u64) -> Vec<u8> {
    use common::planted::{Span, record};
    use common::shapes::FRAME_NS;
    let mut rng = Rng::new(seed);
    let base = common::planted::T0;
    let out: Vec<common::planted::Frame> = (0..frames)
        .map(|f| {
            let t0 = base + f as i64 * FRAME_NS;
            let work = Span::new("work", t0, t0 + rng.ns(2.0, 0.02));
            let r0 = work.end_ns;
            let m0 = r0 + 100_000;
            let m1 = m0 + rng.ns(mesh_ms, 0.02);
            let a0 = r0 + 150_000;
            let a1 = a0 + rng.ns(audio_ms, 0.02);
            let end = m1.max(a1) + 30_000;
            let merge = Span::new("jobs::merge", end, end + rng.ns(0.3, 0.02));
            let run = Span::new("jobs::run", r0, merge.end_ns).child(merge);
            let frame = Span::new("frame", t0, run.end_ns + 100_000)
                .child(work)
                .child(run);
            vec![
                ("main".to_owned(), vec![frame]),
                ("worker-a".to_owned(), vec![Span::new("job::mesh", m0, m1)]),
                ("worker-b".to_owned(), vec![Span::new("job::audio", a0, a1)]),
            ]
        })
        .collect();
    record(&out)
}

#[test]
fn work_off_the_critical_path_is_reported_with_its_slack_and_not_gated() {
    for seed in 0..2u64 {
        let frames = 60 + seed as usize * 20;
        let a = waits_loop(frames, 3.0, 1.0, seed);
        // job::audio 60% slower, still done before job::mesh.
        let off = waits_loop(frames, 3.0, 1.6, seed + 9);
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.puffin"), &a).unwrap();
        std::fs::write(dir.path().join("b.puffin"), &off).unwrap();
        let (status, r) = gated(dir.path(), "2");
        let c = &r["comparison"];
        let rows = c["off_critical_path"].as_array().unwrap();
        assert_eq!(rows.len(), 1, "seed {seed}: {rows:?}");
        assert_eq!(rows[0]["name"], "job::audio");
        assert_eq!(rows[0]["critical"], "job::mesh");
        let slack_ms = rows[0]["slack_ns"].as_f64().unwrap() / 1e6;
        assert!((slack_ms - 1.4).abs() < 0.15, "seed {seed}: {slack_ms}");
        assert_eq!(status, 0, "seed {seed}: {}", c["gate"]);
        // On the critical path: job::mesh 60% slower, main waits longer.
        let on = waits_loop(frames, 4.8, 1.0, seed + 9);
        std::fs::write(dir.path().join("b.puffin"), &on).unwrap();
        let (status, r) = gated(dir.path(), "2");
        let c = &r["comparison"];
        assert_eq!(c["off_critical_path"], serde_json::json!([]), "seed {seed}");
        assert_eq!(status, 4, "seed {seed}: {}", c["gate"]);
        let tripped: Vec<&str> = c["gate"]["tripped"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert!(tripped.contains(&"job::mesh"), "seed {seed}: {tripped:?}");
    }
}

#[test]
fn a_new_periodic_stall_counts_in_the_gate() {
    let a = editor_bytes(Editor::steady(60), 3);
    let b = editor_bytes(
        Editor {
            gc: Gc::Every {
                every: 10,
                phase: 2,
                ms: 12.0,
            },
            ..Editor::steady(60)
        },
        4,
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.puffin"), &a).unwrap();
    std::fs::write(dir.path().join("b.puffin"), &b).unwrap();
    let (status, r) = gated(dir.path(), "5");
    assert_eq!(status, 4, "{}", r["comparison"]["gate"]);
    let t = &r["comparison"]["gate"]["tripped"];
    assert_eq!(t[0]["name"], "gc::sweep", "{t}");
    assert_eq!(t[0]["kind"], "new", "{t}");
    // 12 ms in every 10th frame: 1.2 ms per frame.
    let per_frame_ms = t[0]["beyond_drift_ns"].as_f64().unwrap() / 1e6;
    assert!((per_frame_ms - 1.2).abs() < 0.05, "{per_frame_ms}");
    // The loop is paced on 40 ms: the stall fits in its time between
    // frames, which gave it up (the frame's period held, as the loop lives
    // it); the gate counts the stall's cost all the same.
    let f = &r["comparison"]["frame"];
    assert_eq!(
        (f["median_a_ns"].as_i64(), f["median_b_ns"].as_i64()),
        (Some(40_000_000), Some(40_000_000)),
        "{f}"
    );
    let part = |name: &str| common::frame_part(f, name, "delta_ns") / 1e6;
    assert!((part("between_frames") + 1.2).abs() < 0.1, "{f}");
}

/// Main dispatches three 2 ms `job::mesh` jobs in `jobs::run` and waits
/// (no scope): side by side (`serial` false) or one after another.
fn pool_loop(frames: usize, serial: bool, seed: u64) -> Vec<u8> {
    use common::planted::{Span, record};
    use common::shapes::FRAME_NS;
    let mut rng = Rng::new(seed);
    let out: Vec<common::planted::Frame> = (0..frames)
        .map(|f| {
            let t0 = common::planted::T0 + f as i64 * FRAME_NS;
            let work = Span::new("work", t0, t0 + rng.ns(2.0, 0.02));
            let r0 = work.end_ns;
            let mut at = r0 + 100_000;
            let mut end = at;
            let mut threads = Vec::new();
            for w in 0..3 {
                let s0 = if serial {
                    at
                } else {
                    r0 + 100_000 + w * 20_000
                };
                let s1 = s0 + rng.ns(2.0, 0.02);
                at = s1;
                end = end.max(s1);
                threads.push((format!("worker-{w}"), vec![Span::new("job::mesh", s0, s1)]));
            }
            let merge = Span::new(
                "jobs::merge",
                end + 30_000,
                end + 30_000 + rng.ns(0.3, 0.02),
            );
            let run = Span::new("jobs::run", r0, merge.end_ns).child(merge);
            let frame = Span::new("frame", t0, run.end_ns + 100_000)
                .child(work)
                .child(run);
            let mut v = vec![("main".to_owned(), vec![frame])];
            v.extend(threads);
            v
        })
        .collect();
    record(&out)
}

#[test]
fn workers_run_one_after_another_is_lost_parallelism_and_the_gate_cannot_tell() {
    for seed in 0..2u64 {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.puffin"), pool_loop(60, false, seed)).unwrap();
        std::fs::write(dir.path().join("b.puffin"), pool_loop(60, true, seed + 5)).unwrap();
        let (status, r) = gated(dir.path(), "2");
        let c = &r["comparison"];
        let w = &c["waits"][0];
        let lost = w["lost_parallelism"]
            .as_str()
            .unwrap_or_else(|| panic!("{w}"));
        assert!(lost.starts_with("ran less in parallel: "), "{lost}");
        assert!(w["a"]["median_parallelism"].as_f64().unwrap() > 2.5, "{w}");
        assert!(w["b"]["median_parallelism"].as_f64().unwrap() < 1.2, "{w}");
        // The work held: job::mesh is not a change.
        assert!(
            !c["rows"]
                .as_array()
                .unwrap()
                .iter()
                .any(|x| x["name"] == "job::mesh"),
            "{}",
            c["rows"]
        );
        // Neither pass nor fail: inconclusive (exit 5), saying why.
        assert_eq!(status, 5, "seed {seed}: {}", c["gate"]);
        assert!(
            c["gate"]["lost_parallelism"][0]
                .as_str()
                .unwrap()
                .contains("jobs::run"),
            "{}",
            c["gate"]
        );
        let conditions = c["conditions"].to_string();
        assert!(
            conditions.contains("ran less in parallel in B"),
            "{conditions}"
        );
        // The text says so too, never "passed".
        let out = common::run_in(
            dir.path(),
            &[
                "report",
                "a.puffin",
                "b.puffin",
                "--fail-on-regression",
                "2",
            ],
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("regression gate: INCONCLUSIVE"), "{err}");
        let md = String::from_utf8_lossy(&out.stdout);
        assert!(md.contains("**Regression gate: inconclusive.**"), "{md}");
        // Its counterpart: side by side in both, nothing lost.
        std::fs::write(dir.path().join("b.puffin"), pool_loop(60, false, seed + 5)).unwrap();
        let (status, r) = gated(dir.path(), "2");
        assert_eq!(status, 0, "seed {seed}: {}", r["comparison"]["gate"]);
        assert!(
            !r["comparison"]["conditions"]
                .to_string()
                .contains("in parallel")
        );
    }
}

#[test]
fn a_change_is_placed_as_deep_as_one_call_path_holds_it() {
    // `text::shape` under `ui::label` (3x), `ui::draw > ui::tooltip` and
    // `ui::popup > ui::tooltip`; only the popup's tooltip got slower.
    for seed in 0..2u64 {
        let a = Editor {
            shape_ms: (0.4, Some(0.5)),
            popup_ms: Some(0.5),
            ..Editor::steady(60 + seed as usize * 20)
        };
        let b = Editor {
            popup_ms: Some(2.5),
            ..a
        };
        let r = cli_report(&editor_bytes(a, seed), &editor_bytes(b, seed + 3));
        let row = r["comparison"]["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["name"] == "text::shape")
            .cloned()
            .unwrap_or_else(|| panic!("seed {seed}"));
        assert_eq!(
            row["place"]["path"],
            serde_json::json!(["ui::popup", "ui::tooltip"]),
            "seed {seed}: {}",
            row["place"]
        );
        let words = row["place_words"].as_str().unwrap();
        assert!(
            words.starts_with("slower per call where `ui::popup > ui::tooltip` calls it on main"),
            "{words}"
        );
    }
}

/// Main's `assets::load` loads `font`, `icon` and `mesh` (1 ms each, the
/// data of one `asset::read` scope each) every frame; `mesh_ms` and
/// `others_ms` set their costs.
fn assets_loop(frames: usize, mesh_ms: f64, others_ms: f64, seed: u64) -> Vec<u8> {
    use common::planted::{Span, record};
    use common::shapes::FRAME_NS;
    let mut rng = Rng::new(seed);
    let out: Vec<common::planted::Frame> = (0..frames)
        .map(|f| {
            let t0 = common::planted::T0 + f as i64 * FRAME_NS;
            let mut at = t0 + 50_000;
            let mut load = Span::new("assets::load", t0, t0);
            for (data, ms) in [("font", others_ms), ("icon", others_ms), ("mesh", mesh_ms)] {
                let end = at + rng.ns(ms, 0.03);
                load = load.child(Span::new("asset::read", at, end).data(data));
                at = end + 20_000;
            }
            load.end_ns = at;
            let frame = Span::new("frame", t0, at + 100_000).child(load);
            vec![("main".to_owned(), vec![frame])]
        })
        .collect();
    record(&out)
}

#[test]
fn a_change_with_one_data_value_is_placed_by_its_data() {
    for seed in 0..2u64 {
        let frames = 60 + seed as usize * 20;
        let a = assets_loop(frames, 1.0, 1.0, seed);
        let row_of = |r: &Value| {
            r["comparison"]["rows"]
                .as_array()
                .unwrap()
                .iter()
                .find(|x| x["name"] == "asset::read")
                .cloned()
                .unwrap_or_else(|| panic!("seed {seed}: {}", r["comparison"]["rows"]))
        };
        // Only `mesh` got slower.
        let r = cli_report(&a, &assets_loop(frames, 3.0, 1.0, seed + 4));
        let row = row_of(&r);
        let words = row["place_words"].as_str().unwrap_or_default();
        assert!(
            words.starts_with("slower per call only with data `mesh` (1."),
            "seed {seed}: {words}"
        );
        assert!(
            words.ends_with("its other data (2) unchanged or not told apart"),
            "{words}"
        );
        // Its counterpart: every data value slower, so none holds it.
        let r = cli_report(&a, &assets_loop(frames, 3.0, 3.0, seed + 4));
        let row = row_of(&r);
        assert!(row["place_words"].is_null(), "seed {seed}: {row}");
    }
}

#[test]
fn ordinals() {
    use puffin_lens::engine::analyses::shape::ordinal;
    assert_eq!(
        [ordinal(2), ordinal(12), ordinal(21)],
        ["2nd", "12th", "21st"]
    );
}
