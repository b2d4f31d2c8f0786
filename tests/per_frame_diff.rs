//! Issue 43 items 3, 4 and 6e on the planted job-system pair
//! (tests/common/planted.rs `jobs_pair`: A 60 frames with one 35 ms hitch
//! in frame 20, B 90 frames):
//! - the median frame accounted beside the mean, and leading when the
//!   hitch skews A's mean (`compare --json`, its text, the report);
//! - `diff` (text and JSON), the differential flame graph and the app's
//!   diff view per frame: every unchanged scope at 0% although B has 50%
//!   more frames, the changed ones at their planted change;
//! - `calls A B --json` carrying both sides' calls as `calls A --json`
//!   does.

mod common;

use common::planted::{self, JOBS_AFTER, JOBS_BEFORE, JOBS_HITCH_FRAME};
use common::ui::{command, ui_now};
use common::{json_in, run_in};
use egui_kittest::Harness;
use puffin_lens::app::{PuffinLensApp, Settings, Shared, Side, Source, UiCommand};
use serde_json::{Value, json};
use std::path::Path;

const MS: f64 = 1e6;

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("a number: {v}"))
}

/// `x` within `tol_ms` of `want_ms`.
fn near_ms(x: f64, want_ms: f64, tol_ms: f64, what: &str) {
    assert!(
        (x / MS - want_ms).abs() <= tol_ms,
        "{what}: {:.4} ms, planted {want_ms} ms (±{tol_ms})",
        x / MS
    );
}

fn text_in(dir: &Path, args: &[&str]) -> String {
    let out = run_in(dir, args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The planted frame of `main` without the hitch: input 0.5, stream 0.2,
/// sim::step 2.0, [gap], draw::batch (sort 0.4, [gap], submit 0.8),
/// jobs::run (dispatch 0.10 + stagger 0.10 + job + wake 0.03 + merge 0.3),
/// present 0.5, top-level gap, frame::end 0.2.
fn planted_frame_ms(p: planted::JobsPlan) -> f64 {
    let jobs = planted::JOBS_DISPATCH_MS
        + 2.0 * planted::JOBS_STAGGER_MS
        + p.cloth_ms
        + planted::JOBS_WAKE_MS
        + 0.3;
    0.5 + 0.2 + 2.0 + p.sim_gap_ms + 0.4 + p.draw_gap_ms + 0.8 + jobs + 0.5 + p.top_gap_ms + 0.2
}

/// A plan free-running (each frame 1 ms after the last one's end): its
/// frame, main's period, is the work and that 1 ms, so a hitch stretches its
/// frame's period (a paced loop's schedule would catch up after it).
fn free(plan: planted::JobsPlan) -> planted::JobsPlan {
    planted::JobsPlan {
        between_ms: Some(BETWEEN_MS),
        ..plan
    }
}
const BETWEEN_MS: f64 = 1.0;

#[test]
fn the_median_frame_is_accounted_and_leads_past_a_hitch() {
    let dir = planted::jobs_pair_of((free(JOBS_BEFORE), 51), (free(JOBS_AFTER), 52));
    let (_, c) = json_in(dir.path(), &["compare", "a.puffin", "b.puffin", "--json"]);
    let fr = &c["frame"];
    let (frame_a, frame_b) = (
        planted_frame_ms(JOBS_BEFORE) + BETWEEN_MS,
        planted_frame_ms(JOBS_AFTER) + BETWEEN_MS,
    );
    // +2.7 ms: the new 1.5 ms gap, the top-level gap 0.8 ms longer, the
    // 0.6 ms gap gone, the wait 1.0 ms longer.
    assert!((frame_b - frame_a - 2.7).abs() < 1e-9);
    near_ms(f(&fr["median_a_ns"]), frame_a, 0.05, "A's median frame");
    near_ms(f(&fr["median_b_ns"]), frame_b, 0.05, "B's median frame");
    near_ms(f(&fr["delta_median_ns"]), 2.7, 0.05, "the median's change");
    // A's mean carries the hitch: (35 − 0.2) / 60 = 0.58 ms more.
    let hitch_share = (35.0 - 0.2) / JOBS_BEFORE.frames as f64;
    near_ms(
        f(&fr["delta_mean_ns"]),
        2.7 - hitch_share,
        0.05,
        "the mean's change",
    );

    // The median leads, and says why: A's frame 20.
    assert_eq!(fr["lead"], "median", "{fr}");
    let skew = &fr["skew"];
    assert_eq!(skew["side"], "A");
    assert_eq!(skew["unit"], JOBS_HITCH_FRAME);
    near_ms(
        f(&skew["duration_ns"]),
        frame_a + 35.0 - 0.2,
        0.4,
        "the hitch frame",
    );
    near_ms(
        f(&skew["adds_to_mean_ns"]),
        hitch_share,
        0.01,
        "the hitch's share",
    );
    let reason = fr["lead_reason"].as_str().unwrap();
    let frame_index = skew["frame_index"].as_u64().unwrap();
    assert!(
        reason.starts_with(&format!("A's frame {frame_index} (")),
        "{reason}"
    );
    assert!(reason.contains("skews A's mean by +0.5"), "{reason}");
    assert!(
        reason.contains("so the median (what most frames did) leads"),
        "{reason}"
    );
    // It is the frame `frames` lists as A's slowest, at position 20.
    let (_, frames) = json_in(dir.path(), &["frames", "a.puffin", "--json"]);
    assert_eq!(
        frames[0]["frame_index"].as_u64(),
        Some(frame_index),
        "{frames}"
    );

    // The median's parts: each name's median own time per frame on main.
    let m = &fr["median"];
    let part = |name: &str| -> f64 {
        let x = m["contributions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["name"] == name)
            .unwrap_or_else(|| panic!("{name} in {m}"));
        assert_eq!(
            f(&x["self_delta_median_ns"]),
            f(&x["self_median_b_ns"]) - f(&x["self_median_a_ns"])
        );
        f(&x["self_delta_median_ns"])
    };
    near_ms(part("main_loop"), 1.5, 0.01, "the new gap in main_loop");
    near_ms(part("jobs::run"), 1.0, 0.05, "the longer wait in jobs::run");
    near_ms(
        part("draw::batch"),
        -0.6,
        0.01,
        "the gap gone from draw::batch",
    );
    near_ms(
        f(&m["outside_scopes_ns"]),
        0.8,
        0.01,
        "the grown top-level gap",
    );
    // The hitch moves no median: assets::stream is not a part.
    assert_eq!(m["total_contributions"], 3, "{m}");
    let sum: f64 = ["main_loop", "jobs::run", "draw::batch"]
        .iter()
        .map(|n| part(n))
        .sum::<f64>()
        + f(&m["outside_scopes_ns"]);
    // Every name's median change is accounted, those under the noise too.
    near_ms(
        f(&m["accounted_ns"]) - sum,
        0.0,
        0.01,
        "the names under the noise",
    );
    assert_eq!(
        f(&m["accounted_ns"]) + f(&m["unexplained_ns"]),
        f(&fr["delta_median_ns"]),
        "the parts and the rest add up to the median's change"
    );
    near_ms(f(&m["unexplained_ns"]), 0.0, 0.05, "what the medians leave");

    // The mean's accounting is kept as it was, the hitch in it.
    let mean_part = |name: &str| -> f64 {
        f(&fr["contributions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["name"] == name)
            .unwrap_or_else(|| panic!("{name} in {fr}"))["self_delta_per_frame_ns"])
    };
    near_ms(
        mean_part("assets::stream"),
        -hitch_share,
        0.01,
        "the hitch in the mean",
    );
    near_ms(mean_part("main_loop"), 1.5, 0.01, "the new gap in the mean");

    // compare's text and the report lead with the median too.
    let t = text_in(dir.path(), &["compare", "a.puffin", "b.puffin"]);
    assert!(
        t.contains(&format!("lead: median: A's frame {frame_index} (")),
        "{t}"
    );
    assert!(t.contains("median own time per frame on main (+2.7"), "{t}");
    let r = text_in(dir.path(), &["report", "a.puffin", "b.puffin"]);
    let leads = r
        .find("**The median frame leads**")
        .expect("the lead in the report");
    let median = r
        .find("**Where the median frame's +2.7")
        .unwrap_or_else(|| panic!("the median's parts in {r}"));
    let mean = r
        .find("**Where the mean frame's")
        .expect("the mean's parts");
    assert!(leads < median && median < mean, "the median first: {r}");
}

#[test]
fn without_a_spike_the_mean_leads_and_the_median_is_still_accounted() {
    let dir = tempfile::tempdir().unwrap();
    let steady = planted::JobsPlan {
        hitch: None,
        ..free(JOBS_BEFORE)
    };
    std::fs::write(
        dir.path().join("a.puffin"),
        planted::record(&planted::jobs_loop(steady, 61)),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("b.puffin"),
        planted::record(&planted::jobs_loop(free(JOBS_AFTER), 62)),
    )
    .unwrap();
    let (_, c) = json_in(dir.path(), &["compare", "a.puffin", "b.puffin", "--json"]);
    let fr = &c["frame"];
    assert_eq!(fr["lead"], "mean", "{fr}");
    assert_eq!(fr["skew"], Value::Null);
    assert!(
        fr["lead_reason"].as_str().unwrap().contains("they agree"),
        "{fr}"
    );
    near_ms(f(&fr["delta_mean_ns"]), 2.7, 0.05, "the mean's change");
    near_ms(f(&fr["delta_median_ns"]), 2.7, 0.05, "the median's change");
    near_ms(
        f(&fr["median"]["outside_scopes_ns"]),
        0.8,
        0.01,
        "the grown top-level gap",
    );
    assert_eq!(fr["median"]["total_contributions"], 3);
}

/// The `diff --json` node at `path` (thread first).
fn node<'v>(diff: &'v Value, path: &[&str]) -> &'v Value {
    let thread = diff["threads"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == path[0])
        .unwrap_or_else(|| panic!("thread {}", path[0]));
    let mut nodes = &thread["roots"];
    let mut found = None;
    for name in &path[1..] {
        let n = nodes
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["name"] == *name)
            .unwrap_or_else(|| panic!("{name} of {path:?}"));
        nodes = &n["children"];
        found = Some(n);
    }
    found.expect("a scope")
}

/// The scopes the pair leaves unchanged, by path.
const UNCHANGED: [&[&str]; 7] = [
    &["main", "main_loop", "input"],
    &["main", "main_loop", "sim::step"],
    &["main", "main_loop", "draw::batch", "draw::sort"],
    &["main", "main_loop", "draw::batch", "draw::submit"],
    &["main", "main_loop", "jobs::run", "jobs::merge"],
    &["main", "main_loop", "present"],
    &["main", "frame::end"],
];

/// Each planted change per frame: (path, A ms per frame, B ms per frame).
fn changed() -> Vec<(&'static [&'static str], f64, f64)> {
    let hitch = (59.0 * 0.2 + 35.0) / 60.0;
    vec![
        (&["pool-0", "job::cloth"], 2.0, 3.0),
        (&["pool-2", "job::cloth"], 2.0, 3.0),
        (&["main", "main_loop", "jobs::run"], 2.53, 3.53),
        (&["main", "main_loop", "draw::batch"], 1.8, 1.2),
        (&["main", "main_loop", "assets::stream"], hitch, 0.2),
        (
            &["main", "main_loop"],
            planted_frame_ms(JOBS_BEFORE) - 0.6 + (hitch - 0.2),
            planted_frame_ms(JOBS_AFTER) - 1.4,
        ),
    ]
}

#[test]
fn diff_is_per_frame_when_the_frame_counts_differ() {
    let dir = planted::jobs_pair(71, 72);
    let (_, d) = json_in(dir.path(), &["diff", "a.puffin", "b.puffin", "--json"]);
    assert_eq!(d["basis"], "frame");
    assert_eq!(d["units"], json!([60, 90]));
    assert_eq!(
        (d["frames_a"].clone(), d["frames_b"].clone()),
        (json!(60), json!(90))
    );
    for path in UNCHANGED {
        let n = node(&d, path);
        let pct = f(&n["delta_pct"]);
        assert!(pct.abs() < 1.0, "{path:?}: {pct:+.2}% per frame: {n}");
        // The sums as recorded: half as much again in B.
        let sums = f(&n["b"]["total_ns"]) / f(&n["a"]["total_ns"]);
        assert!(
            (sums - 1.5).abs() < 0.02,
            "{path:?}: B/A of the sums {sums}"
        );
        let close = |x: f64, y: f64| (x - y).abs() < 1e-3;
        assert!(
            close(f(&n["a_total_per_frame_ns"]), f(&n["a"]["total_ns"]) / 60.0),
            "{path:?}"
        );
        assert!(close(
            f(&n["delta_total_per_frame_ns"]),
            f(&n["b_total_per_frame_ns"]) - f(&n["a_total_per_frame_ns"])
        ));
        assert_eq!(n["kind"], "unchanged", "{path:?}");
    }
    for (path, a_ms, b_ms) in changed() {
        let n = node(&d, path);
        near_ms(
            f(&n["a_total_per_frame_ns"]),
            a_ms,
            a_ms * 0.01,
            &format!("{path:?} A"),
        );
        near_ms(
            f(&n["b_total_per_frame_ns"]),
            b_ms,
            b_ms * 0.01,
            &format!("{path:?} B"),
        );
        let pct = 100.0 * (b_ms - a_ms) / a_ms;
        assert!(
            (f(&n["delta_pct"]) - pct).abs() < 2.0,
            "{path:?}: {} against {pct:+.1}%",
            n["delta_pct"]
        );
    }
    assert_eq!(node(&d, &["pool-1", "job::cloth"])["kind"], "slower");
    // Ordered by the change per frame: the wait, the gone gap, the hitch.
    let kids: Vec<&str> = node(&d, &["main", "main_loop"])["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["name"].as_str().unwrap())
        .collect();
    assert_eq!(kids[..3], ["jobs::run", "draw::batch", "assets::stream"]);

    // The text: per frame, the unchanged at 0%, job::cloth at +50%.
    let t = text_in(dir.path(), &["diff", "a.puffin", "b.puffin"]);
    assert!(
        t.starts_with("per frame: each side's totals divided by its frames (A 60, B 90)\n"),
        "{t}"
    );
    assert!(t.contains("A ms/frame"), "{t}");
    let pct_of = |name: &str| -> Vec<f64> {
        t.lines()
            .filter(|l| l.trim_start().starts_with(&format!("{name} ")))
            .map(|l| {
                let cell = l.split_whitespace().nth(4).unwrap();
                cell.trim_end_matches('%').parse::<f64>().unwrap()
            })
            .collect()
    };
    for name in [
        "input",
        "sim::step",
        "draw::sort",
        "draw::submit",
        "jobs::merge",
        "present",
        "frame::end",
    ] {
        let got = pct_of(name);
        assert_eq!(got.len(), 1, "{name} in {t}");
        assert!(got[0].abs() < 1.0, "{name}: {got:?}%");
    }
    let cloth = pct_of("job::cloth");
    assert_eq!(cloth.len(), 3);
    assert!(cloth.iter().all(|p| (p - 50.0).abs() < 2.0), "{cloth:?}");
}

#[test]
fn the_differential_flame_graph_is_per_frame() {
    let dir = planted::jobs_pair(81, 82);
    let folded = text_in(
        dir.path(),
        &["flamegraph", "a.puffin", "--diff", "b.puffin", "--folded"],
    );
    let counts = |stack: &str| -> (f64, f64) {
        let line = folded
            .lines()
            .find(|l| l.rsplitn(3, ' ').nth(2) == Some(stack))
            .unwrap_or_else(|| panic!("{stack} in {folded}"));
        let mut it = line.rsplitn(3, ' ');
        let b: f64 = it.next().unwrap().parse().unwrap();
        let a: f64 = it.next().unwrap().parse().unwrap();
        (a, b)
    };
    for stack in [
        "main;main_loop;input",
        "main;main_loop;sim::step",
        "main;main_loop;draw::batch;draw::sort",
        "main;main_loop;draw::batch;draw::submit",
        "main;main_loop;jobs::run;jobs::merge",
        "main;main_loop;present",
        "main;frame::end",
    ] {
        let (a, b) = counts(stack);
        assert!(
            (b / a - 1.0).abs() < 0.01,
            "{stack}: {a} → {b} ns per frame"
        );
    }
    near_ms(
        counts("main;main_loop;input").0,
        0.5,
        0.005,
        "input per frame",
    );
    for w in 0..3 {
        let (a, b) = counts(&format!("pool-{w};job::cloth"));
        near_ms(a, 2.0, 0.02, "job::cloth in A");
        near_ms(b, 3.0, 0.03, "job::cloth in B");
    }
    // main_loop's own time: +1.5 ms (the new gap) per frame.
    let (a, b) = counts("main;main_loop");
    near_ms(b - a, 1.5, 0.01, "main_loop's own time");

    // The SVG's colours: an unchanged stack all but white, job::cloth red.
    let svg = text_in(
        dir.path(),
        &["flamegraph", "a.puffin", "--diff", "b.puffin"],
    );
    let fill = |name: &str| -> Vec<(u8, u8, u8)> {
        svg.split("<g><title>")
            .skip(1)
            .filter(|g| g.starts_with(&format!("{name} (")))
            .map(|g| {
                let rgb = g.split("fill=\"rgb(").nth(1).unwrap();
                let rgb = &rgb[..rgb.find(')').unwrap()];
                let v: Vec<u8> = rgb.split(',').map(|x| x.parse().unwrap()).collect();
                (v[0], v[1], v[2])
            })
            .collect()
    };
    for name in ["input", "sim::step", "draw::sort", "present", "frame::end"] {
        let got = fill(name);
        assert!(!got.is_empty(), "{name} drawn");
        for (r, g, b) in got {
            assert!(
                r >= 240 && g >= 240 && b >= 240,
                "{name}: rgb({r},{g},{b}) is coloured"
            );
        }
    }
    let cloth = fill("job::cloth");
    assert_eq!(cloth.len(), 3);
    assert!(
        cloth
            .iter()
            .all(|&(r, g, b)| r == 255 && g < 200 && b < 200),
        "{cloth:?}"
    );
}

/// The app with the pair open, A and B.
fn open_pair(dir: &Path) -> Harness<'static, PuffinLensApp> {
    let mut h = Harness::builder()
        .with_size(egui::vec2(1400.0, 900.0))
        .build_eframe(|cc| {
            PuffinLensApp::with_context(&cc.egui_ctx, Shared::default(), Settings::default())
                .with_threaded_loading(false)
        });
    for (name, side) in [("a.puffin", Side::A), ("b.puffin", Side::B)] {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        h.state().open(name, Source::Bytes(bytes), Some(side));
    }
    for _ in 0..100 {
        h.step();
        if h.state().recording(Side::B).is_some() && h.state().recording(Side::A).is_some() {
            break;
        }
    }
    h.run_steps(2);
    h
}

fn show_diff(h: &mut Harness<'static, PuffinLensApp>, options: Value) -> Value {
    command(
        h,
        UiCommand::Show {
            view: "diff".into(),
            options,
        },
    )
    .unwrap_or_else(|e| panic!("show diff: {e}"))
}

#[test]
fn the_app_diff_view_is_per_frame_in_every_mode() {
    let dir = planted::jobs_pair(91, 92);
    let mut h = open_pair(dir.path());
    let ui = show_diff(&mut h, json!({"mode": "table"}));
    assert_eq!(ui["normalize"], "per-frame", "60 against 90 frames");
    assert_eq!(ui["basis"], "frame");
    assert_eq!(ui["units"], json!([60, 90]));
    let rows = ui["rows"].as_array().unwrap();
    let row = |name: &str| -> &Value {
        rows.iter()
            .find(|r| r["name"] == name)
            .unwrap_or_else(|| panic!("{name} in {ui}"))
    };
    for name in [
        "input",
        "sim::step",
        "draw::sort",
        "draw::submit",
        "jobs::merge",
        "present",
        "frame::end",
    ] {
        let pct = f(&row(name)["delta_pct"]);
        assert!(pct.abs() < 1.0, "table {name}: {pct:+.2}%");
    }
    let cloth: Vec<&Value> = rows.iter().filter(|r| r["name"] == "job::cloth").collect();
    assert_eq!(cloth.len(), 3, "one row per (name, data)");
    for r in cloth {
        assert!((f(&r["delta_pct"]) - 50.0).abs() < 2.0, "{r}");
    }

    // The tree, every node open: in the shown normalization (per frame)
    // and per frame whatever it is.
    show_diff(&mut h, json!({"mode": "tree"}));
    h.state_mut().diff_view().unwrap().expand_all(true);
    h.run_steps(2);
    let ui = ui_now(&h);
    let tree = ui["rows"].as_array().unwrap();
    let tnode = |name: &str| -> Vec<&Value> { tree.iter().filter(|r| r["name"] == name).collect() };
    for name in [
        "input",
        "sim::step",
        "draw::sort",
        "jobs::merge",
        "frame::end",
    ] {
        let n = tnode(name);
        assert_eq!(n.len(), 1, "{name}");
        assert!(f(&n[0]["delta_pct"]).abs() < 1.0, "tree {name}: {}", n[0]);
        let shown = f(&n[0]["delta_total_ns"]) / f(&n[0]["a_total_ns"]);
        assert!(shown.abs() < 0.01, "tree {name} as shown: {}", n[0]);
    }
    for n in tnode("job::cloth") {
        assert!((f(&n["delta_pct"]) - 50.0).abs() < 2.0, "{n}");
    }

    // The flame graph: unchanged cells grey, job::cloth red.
    let ui = show_diff(&mut h, json!({"mode": "flame"}));
    let nodes = ui["nodes"].as_array().unwrap();
    let cell = |name: &str| -> Vec<&Value> {
        nodes
            .iter()
            .filter(|n| n["path"].as_array().unwrap().last() == Some(&json!(name)))
            .collect()
    };
    let grey = format!(
        "#{:02x}{:02x}{:02x}",
        egui::Color32::GRAY.r(),
        egui::Color32::GRAY.g(),
        egui::Color32::GRAY.b()
    );
    for name in ["input", "sim::step", "draw::sort", "present", "frame::end"] {
        let c = cell(name);
        assert_eq!(c.len(), 1, "{name} drawn once");
        assert_eq!(c[0]["color"], grey.as_str(), "{name}: {}", c[0]);
        assert!(f(&c[0]["delta_pct"]).abs() < 1.0);
    }
    let cloth = cell("job::cloth");
    assert_eq!(cloth.len(), 3);
    for c in cloth {
        let hex = c["color"].as_str().unwrap();
        let (r, g) = (
            u8::from_str_radix(&hex[1..3], 16).unwrap(),
            u8::from_str_radix(&hex[3..5], 16).unwrap(),
        );
        assert!(r > g + 40, "job::cloth is red: {hex}");
    }
    // As recorded on request: the sums, +50% for an unchanged scope.
    show_diff(&mut h, json!({"mode": "tree", "normalize": "total"}));
    h.state_mut().diff_view().unwrap().expand_all(true);
    h.run_steps(2);
    let ui = ui_now(&h);
    let input = ui["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "input")
        .cloned()
        .unwrap();
    let sums = f(&input["b_total_ns"]) / f(&input["a_total_ns"]);
    assert!((sums - 1.5).abs() < 0.02, "{input}");
    assert!(
        f(&input["delta_pct"]).abs() < 1.0,
        "per frame still: {input}"
    );
}

#[test]
fn calls_of_a_and_b_carry_both_sides_calls() {
    let dir = planted::jobs_pair(101, 102);
    let d = dir.path();
    let (_, one_a) = json_in(d, &["calls", "a.puffin", "job::cloth", "--json"]);
    let (_, one_b) = json_in(d, &["calls", "b.puffin", "job::cloth", "--json"]);
    let (_, both) = json_in(
        d,
        &["calls", "a.puffin", "b.puffin", "job::cloth", "--json"],
    );
    // The existing keys stay.
    for k in ["name", "a", "b", "change"] {
        assert!(both.get(k).is_some(), "{k} in {both}");
    }
    // Each side's calls as `calls FILE --json` lists them, every one.
    assert_eq!(both["calls_a"], one_a["calls"]);
    assert_eq!(both["calls_b"], one_b["calls"]);
    assert_eq!(both["calls_a"].as_array().unwrap().len(), 3 * 60);
    assert_eq!(both["calls_b"].as_array().unwrap().len(), 3 * 90);
    assert_eq!(both["a"]["count"], 180);
    assert_eq!(both["b"]["count"], 270);
    assert_eq!(one_a["summary"]["count"], 180);
    let first = &both["calls_b"][0];
    assert_eq!(first["thread"], "pool-0", "time order: pool-0 starts first");
    assert_eq!(first["data"], "cloth 0");
    near_ms(f(&first["duration_ns"]), 3.0, 0.03, "a call of B");

    // Several runs a side: each side's runs' calls, in the same shape.
    let (_, runs) = json_in(
        d,
        &[
            "calls",
            "a.puffin",
            "a.puffin",
            "--vs",
            "b.puffin",
            "job::cloth",
            "--json",
        ],
    );
    assert_eq!(runs["calls_a"].as_array().unwrap().len(), 2 * 180);
    assert_eq!(runs["calls_b"], one_b["calls"]);
    assert_eq!(runs["a"]["count"], 360);
}
