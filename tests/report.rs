//! `puffin-lens report` on recordings with answers known by construction.

mod common;

use common::{code, run, stderr, temp_file};
use puffin_lens::engine::write::puffin::{
    Compression, Format, FrameData, Registration, ScopeNode, ThreadData, write_recording,
};
use serde_json::Value;

const MS: i64 = 1_000_000;
const T0: i64 = 1_700_000_000_000_000_000;

fn regs() -> Vec<Registration> {
    vec![
        Registration::named(1, "frame_body", "game::run", "src/game.rs", 10),
        Registration::named(2, "update", "game::update", "src/game.rs", 20),
        Registration::named(3, "render", "game::render", "src/render.rs", 30),
        Registration::named(4, "job", "game::worker", "src/worker.rs", 40),
        Registration::named(5, "load", "game::load", "src/load.rs", 50),
        Registration::named(6, "physics", "game::physics", "src/physics.rs", 60),
        Registration::named(7, "ai", "game::ai", "src/ai.rs", 70),
    ]
}

/// Five frames of 20 ms. Main: `frame_body` > `update` 2 ms, a 5 ms gap,
/// `render` 2 ms, `load` (1 ms; 6 ms in frame 3: 60% of its 10 ms total).
/// Worker: `job` covering the gap.
fn capture(registered: bool) -> Vec<FrameData> {
    (0..5)
        .map(|f| {
            let t = T0 + f * 20 * MS;
            let load_ms = if f == 3 { 6 } else { 1 };
            let body = ScopeNode::new(1, t, t + 18 * MS)
                .child(ScopeNode::new(2, t, t + 2 * MS))
                .child(ScopeNode::new(3, t + 7 * MS, t + 9 * MS))
                .child(ScopeNode::new(5, t + 9 * MS, t + (9 + load_ms) * MS));
            FrameData {
                frame_index: f as u64,
                threads: vec![
                    ThreadData {
                        name: "main".into(),
                        start_time_ns: None,
                        scopes: vec![body],
                    },
                    ThreadData {
                        name: "worker".into(),
                        start_time_ns: None,
                        scopes: vec![ScopeNode::new(4, t + 2 * MS, t + 7 * MS)],
                    },
                ],
                registrations: if registered && f == 0 {
                    regs()
                } else {
                    Vec::new()
                },
            }
        })
        .collect()
}

/// Ten frames: `physics` 2 ms (4 ms in B, every frame), `ai` 1 ms (in B
/// 10 ms in frame 6 only), `render` 1 ms in both.
fn game(b: bool) -> Vec<FrameData> {
    (0..10)
        .map(|f| {
            let t = T0 + f * 20 * MS;
            let physics = if b { 4 } else { 2 };
            let ai = if b && f == 6 { 10 } else { 1 };
            let body = ScopeNode::new(1, t, t + (physics + ai + 1) * MS)
                .child(ScopeNode::new(6, t, t + physics * MS))
                .child(ScopeNode::new(7, t + physics * MS, t + (physics + ai) * MS))
                .child(ScopeNode::new(
                    3,
                    t + (physics + ai) * MS,
                    t + (physics + ai + 1) * MS,
                ));
            FrameData {
                frame_index: f as u64,
                threads: vec![ThreadData {
                    name: "main".into(),
                    start_time_ns: None,
                    scopes: vec![body],
                }],
                registrations: if f == 0 { regs() } else { Vec::new() },
            }
        })
        .collect()
}

fn report_json(args: &[&str]) -> Value {
    let mut all = vec!["report"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    let out = run(&all);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).expect("JSON")
}

#[test]
fn one_recording_gaps_outliers_and_sections() {
    let bytes = write_recording(&capture(true), Format::Pfd4(Compression::Lz4));
    let (_d, path) = temp_file("game.puffin", &bytes);
    let p = path.to_str().unwrap();
    let r = report_json(&[p]);
    let rec = &r["recordings"][0];
    assert_eq!(rec["registration"]["has_registration"], true);
    assert_eq!(rec["registration"]["warning"], "");
    // Each section is its query's --json.
    let cli = |args: &[&str]| -> Value { serde_json::from_slice(&run(args).stdout).expect("JSON") };
    assert_eq!(
        rec["slowest_frames"],
        cli(&["frames", p, "--top", "10", "--json"])
    );
    assert_eq!(
        rec["gaps"],
        cli(&["gaps", p, "--min-ms", "1", "--top", "10", "--json"])
    );
    // The slowest call of each name: not frame_body (a thread's frame
    // scope), the worker's top-level job kept.
    let slowest: Vec<(&str, i64)> = rec["slowest_scopes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["name"].as_str().unwrap(),
                x["duration_ns"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        slowest,
        [
            ("load", 6 * MS),
            ("job", 5 * MS),
            ("update", 2 * MS),
            ("render", 2 * MS)
        ]
    );
    assert_eq!(rec["total_slowest_scopes"], 4);
    // The 5 ms gap on main recurs in every frame, the worker busy through
    // it; the 8 ms trailing gap after load (3 ms in frame 3) is larger.
    let recurring = rec["gaps"]["recurring"].as_array().unwrap();
    let shape: Vec<(&str, &str, i64, i64, i64)> = recurring
        .iter()
        .map(|g| {
            (
                g["kind"].as_str().unwrap(),
                g["path"].as_str().unwrap(),
                g["frames"].as_i64().unwrap(),
                g["median_ns"].as_i64().unwrap(),
                g["total_ns"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        shape,
        [
            ("trailing", "frame_body", 5, 8 * MS, 35 * MS),
            ("between", "frame_body", 5, 5 * MS, 25 * MS),
            ("between-frames", "", 4, 2 * MS, 8 * MS),
        ]
    );
    let gap = &recurring[1];
    assert_eq!(
        (gap["after"].as_str(), gap["before"].as_str()),
        (Some("update"), Some("render"))
    );
    let busy = &gap["other_threads"][0];
    assert_eq!(busy["thread"], "worker");
    assert_eq!(busy["busy_ns"], 25 * MS);
    assert_eq!(busy["scopes"][0]["name"], "job");
    // Every gap is a usual occurrence of a recurring one: no one-off gap.
    assert_eq!(rec["gaps"]["gaps"], serde_json::json!([]));
    // `load`: one call of 6 ms is 60% of its 10 ms, in frame 3.
    let outliers = rec["outliers"].as_array().unwrap();
    assert_eq!(outliers.len(), 1, "{outliers:?}");
    assert_eq!(outliers[0]["name"], "load");
    assert_eq!(outliers[0]["kind"], "call");
    assert_eq!(outliers[0]["frame_index"], 3);
    assert_eq!(outliers[0]["max_share"], 0.6);
    assert_eq!(outliers[0]["thread"], "main");
    // Totals per name with p95; the hot path follows the largest child.
    let load = rec["totals"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "load")
        .unwrap();
    assert_eq!(
        (load["count"].as_i64(), load["total_ns"].as_i64()),
        (Some(5), Some(10 * MS))
    );
    assert_eq!(load["p95_ns"], 6 * MS);
    let main_path = rec["hot_paths"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["thread"] == "main")
        .unwrap();
    let steps: Vec<&str> = main_path["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    // frame_body's own 60 ms (its gaps) outweigh its largest child (10 ms):
    // the path stops there and says why.
    assert_eq!(steps, ["frame_body"]);
    assert!(
        main_path["stop"]
            .as_str()
            .unwrap()
            .starts_with("frame_body: 60.000 ms self, 67% of the thread's time"),
        "{main_path}"
    );

    // Markdown: the same, for people.
    let md = run(&["report", p]);
    assert_eq!(code(&md), 0);
    let md = String::from_utf8(md.stdout).unwrap();
    for needle in [
        "# puffin-lens report: game.puffin",
        "Scope registration: present (7 scopes registered)",
        "| main: `frame_body` | between | `update` → `render` | 5 | 5.000 ms | 25.000 ms | 27.8% | worker 25.000 ms (`job`) |",
        "| between frames (no thread runs) | between-frames | — → — | 4 | 2.000 ms | 8.000 ms | — | none (idle) |",
        "| load | one call | 5 | 10.000 ms | 6.000 ms | 1 (6.000 ms) | 60% | 3 | main |",
        "- **main**: `frame_body` 90.000 ms. Stops at frame_body: 60.000 ms self",
        "| load |  | 6.000 ms | main | 3 |",
    ] {
        assert!(md.contains(needle), "{needle:?} in\n{md}");
    }
}

#[test]
fn a_recording_without_registration_gets_the_loud_warning() {
    let bytes = write_recording(&capture(false), Format::Pfd4(Compression::Lz4));
    let (_d, path) = temp_file("noreg.puffin", &bytes);
    let r = report_json(&[path.to_str().unwrap()]);
    let reg = &r["recordings"][0]["registration"];
    assert_eq!(reg["has_registration"], false);
    assert_eq!(reg["unregistered_ids"], serde_json::json!([1, 2, 3, 4, 5]));
    assert!(
        reg["warning"]
            .as_str()
            .unwrap()
            .starts_with("NO SCOPE REGISTRATION")
    );
    let md = String::from_utf8(run(&["report", path.to_str().unwrap()]).stdout).unwrap();
    assert!(md.contains("> [!WARNING]\n> NO SCOPE REGISTRATION"), "{md}");
}

#[test]
fn two_recordings_a_change_and_a_spike_told_apart() {
    let (_da, a) = temp_file(
        "a.puffin",
        &write_recording(&game(false), Format::Pfd4(Compression::Lz4)),
    );
    let (_db, b) = temp_file(
        "b.puffin",
        &write_recording(&game(true), Format::Pfd4(Compression::Lz4)),
    );
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let r = report_json(&[a, b]);
    assert_eq!(r["recordings"].as_array().unwrap().len(), 2);
    assert_eq!(r["recordings"][0]["label"], "A");
    let c = &r["comparison"];
    assert_eq!(c["frames_a"], 10);
    assert_eq!(c["frames_b"], 10);
    assert_eq!(c["per_frame"], true);
    // physics doubled in every frame: slower per call; ai grew by one call:
    // a spike; render: not told apart from noise (four names), not listed;
    // frame_body (their wrapper) holds that spike's frame too, set apart as
    // its tail: its typical frames are slower (a one-off hitch never makes
    // a steady change inconclusive).
    let judged: Vec<(&str, &str)> = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap(),
                r["change"]["kind"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        judged,
        [
            ("frame_body", "slower"),
            ("physics", "slower"),
            ("ai", "spike")
        ]
    );
    // Its other calls hold, but four names measure no run-to-run spread:
    // not called unchanged within 5% from one run a side.
    assert_eq!(c["rows"][2]["change"]["rest"], "inconclusive");
    assert_eq!(
        (c["total_rows"].as_u64(), c["changed_rows"].as_u64()),
        (Some(4), Some(3))
    );
    assert_eq!(c["inconclusive"]["names"], serde_json::json!(["render"]));
    assert_eq!(c["changes"], serde_json::json!(["frame_body", "physics"]));
    assert_eq!(c["spikes"], serde_json::json!(["ai"]));
    // The frame is main's period, 20 ms start to start (the last frame to
    // its end: 4 ms in A, 6 in B, so the mean moved 0.2 ms). Its work grew
    // 2.9 ms per frame: physics +2.0 (slower), ai +0.9 (the spike's 9 ms
    // over 10 frames), all explained, taken from the time between frames.
    let f = &c["frame"];
    assert_eq!(
        (f["median_a_ns"].as_i64(), f["median_b_ns"].as_i64()),
        (Some(20 * MS), Some(20 * MS))
    );
    assert!(
        (f["delta_mean_ns"].as_f64().unwrap() - 0.2e6).abs() < 1.0,
        "{f}"
    );
    let parts: Vec<(&str, f64)> = f["contributions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["name"].as_str().unwrap(),
                x["self_delta_per_frame_ns"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(parts, [("physics", 2e6), ("ai", 0.9e6)]);
    let part = |name: &str| common::frame_part(f, name, "delta_ns");
    assert!((part("causes") - 2.9e6).abs() < 1.0, "{f}");
    assert!((part("between_frames") + 2.7e6).abs() < 1.0, "{f}");
    assert!(part("unaccounted").abs() < 1.0, "{f}");
    // Every name a list gives is a row of the table.
    let rows: Vec<&Value> = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["name"])
        .collect();
    for list in ["spikes", "changes", "new", "gone"] {
        for name in c[list].as_array().unwrap() {
            assert!(rows.contains(&name), "{list}: {name}");
        }
    }
    // Where it changed: frame_body, then physics (+20 ms against ai's +9 ms).
    let path: Vec<&str> = c["change_paths"][0]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(path, ["frame_body", "physics"]);
    let md = String::from_utf8(run(&["report", a, b]).stdout).unwrap();
    // One notation: an interval's level is the JSON's, not the words'.
    assert!(!md.contains("(99") && !md.contains("family-wise"), "{md}");
    for needle in [
        "| `ai` | 1.000 ms | 1.900 ms | +0.900 ms | 1.00 → 1.00 | 1.000 ms → 1.000 ms | **one spike** (the other calls: inconclusive (not told apart from noise)): frame 6 of B |",
        "| `physics` | 2.000 ms | 4.000 ms | +2.000 ms | 1.00 → 1.00 | 2.000 ms → 4.000 ms | **slower per call, +2.000 ms per frame [+",
        "], mean call 2.000 ms → 4.000 ms (+100%), P90 call 2.000 → 4.000 ms, P99 2.000 → 4.000 ms, longest 2.000 → 4.000 ms** |",
        "`physics` +2.000 ms (slower per call), `ai` +0.900 ms (one spike). **In parts**, each counted once and summing to it: the changes judged +2.900 ms (52%), between frames -2.700 ms (48%)",
        "**The frame is main's period**, one frame's start to the next's (54.3 → 53.8 frames per second); between frames",
        "1. `physics`: slower per call",
        "2. `ai`: one spike of 10.000 ms in B, frame 6 on main; the other calls: inconclusive",
        "- **Real changes** (per call or how often; not one spike): `physics`\n",
        "- **Inconclusive (not told apart from noise)**: `render` (1 name)",
        "- **Through their children only** (their own time did not change, or went to new scopes under them: not a second cause): `frame_body`",
        "| `frame_body` | 4.000 ms | 6.900 ms | +2.900 ms | 1.00 → 1.00 | 4.000 ms → 6.000 ms | **slower per call, +2.090 ms per frame [+",
        "(its typical calls; set apart: 1 call of B past 6.900 ms (A: none), +0.810 ms per frame)",
        "Unchanged and inconclusive names are not listed.",
    ] {
        assert!(md.contains(needle), "{needle:?} in\n{md}");
    }
    assert!(!md.contains("| `render` |"), "{md}");
    // The gate: physics costs 2 ms of A's 4 ms frame (50%).
    let gated = run(&[
        "report",
        a,
        b,
        "--fail-on-regression",
        "10",
        "--format",
        "json",
    ]);
    assert_eq!(code(&gated), 4, "{}", stderr(&gated));
    assert!(
        stderr(&gated).contains("physics: slower per call, +2.000 ms per frame ["),
        "{}",
        stderr(&gated)
    );
    let g: Value = serde_json::from_slice(&gated.stdout).unwrap();
    let gate = &g["comparison"]["gate"];
    let tripped: Vec<&str> = gate["tripped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    // frame_body grew too, but its own time did not change: physics is the
    // cause, counted once. Its interval lies above the limit (0.4 ms).
    assert_eq!(tripped, ["physics"]);
    assert!(
        gate["tripped"][0]["ci_ns"][0].as_f64().unwrap() > 0.4e6,
        "{gate}"
    );
    // 80% of the frame (3.2 ms): physics' interval lies below it, and ai's
    // one 10 ms call is its tail, set apart: the gate reads its typical
    // calls, which a one-off call cannot make a regression (the tail is
    // said, not gated): passed.
    let at80 = run(&["report", a, b, "--fail-on-regression", "80"]);
    assert_eq!(code(&at80), 0, "{}", stderr(&at80));
    // Past what any cause's interval reaches: passed.
    assert_eq!(
        code(&run(&[
            "report",
            a,
            b,
            "--fail-on-regression",
            "10",
            "--min-ms",
            "40"
        ])),
        0
    );
    // Usage errors: the gate needs B; thresholds in range.
    assert_eq!(code(&run(&["report", a, "--fail-on-regression", "5"])), 2);
    assert_eq!(code(&run(&["report", a, b, "--noise-pct", "-1"])), 2);
    assert_eq!(code(&run(&["report", a, b, "--alpha", "1"])), 2);
    assert_eq!(code(&run(&["report", a, b, "--min-ms", "1"])), 2);
}

#[test]
fn html_is_one_page_with_charts_and_formats_follow_the_extension() {
    let bytes = write_recording(&capture(true), Format::Pfd4(Compression::Lz4));
    let (dir, path) = temp_file("game.puffin", &bytes);
    let p = path.to_str().unwrap();
    let html = dir.path().join("r.html");
    let out = run(&["report", p, "-o", html.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.contains("class=\"chart frames\""));
    assert!(page.contains("class=\"chart gaps\""));
    assert!(page.contains("class=\"chart calls\""));
    assert!(page.contains("<table>"));
    // Self-contained: nothing to fetch.
    for external in ["src=", "href=", "@import", "url("] {
        assert!(!page.contains(external), "{external} in the page");
    }
    let json = dir.path().join("r.json");
    run(&["report", p, "-o", json.to_str().unwrap()]);
    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert!(v["recordings"].is_array());
    // Usage and input errors.
    assert_eq!(code(&run(&["report", p, "--top", "0"])), 2);
    assert_eq!(code(&run(&["report", p, "--gap-ms", "-1"])), 2);
    assert_eq!(code(&run(&["report", "missing.puffin"])), 1);
}

#[test]
fn a_burst_of_calls_in_one_frame_is_an_outlier() {
    // `layout` (id 3) once per frame, 0.5 ms; in frame 2, 20 times: 10 of
    // its 12 ms in one frame, no call more than 0.5 ms.
    let frames: Vec<FrameData> = (0..5)
        .map(|f| {
            let t = T0 + f * 40 * MS;
            let calls = if f == 2 { 20 } else { 1 };
            let mut body = ScopeNode::new(1, t, t + 30 * MS);
            for k in 0..calls {
                let s = t + k * MS;
                body = body.child(ScopeNode::new(3, s, s + MS / 2));
            }
            FrameData {
                frame_index: f as u64,
                threads: vec![ThreadData {
                    name: "main".into(),
                    start_time_ns: None,
                    scopes: vec![body],
                }],
                registrations: if f == 0 { regs() } else { Vec::new() },
            }
        })
        .collect();
    let (_d, path) = temp_file(
        "burst.puffin",
        &write_recording(&frames, Format::Pfd4(Compression::Lz4)),
    );
    let r = report_json(&[path.to_str().unwrap()]);
    let outliers = r["recordings"][0]["outliers"].as_array().unwrap();
    assert_eq!(outliers.len(), 1, "{outliers:?}");
    let o = &outliers[0];
    assert_eq!(o["name"], "render");
    assert_eq!(o["kind"], "burst");
    assert_eq!(o["frame_index"], 2);
    assert_eq!(o["calls_in_frame"], 20);
    assert_eq!(o["frame_total_ns"], 10 * MS);
    assert_eq!(o["count"], 24);
    assert_eq!(o["max_share"], 10.0 / 12.0);
    let md = String::from_utf8(run(&["report", path.to_str().unwrap()]).stdout).unwrap();
    assert!(
        md.contains("| render | one frame's burst | 24 | 12.000 ms | 0.500 ms | 20 (10.000 ms) | 83% | 2 | main |"),
        "{md}"
    );
}
