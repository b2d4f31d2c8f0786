//! Run-to-run drift: the common shift in per-call cost between two runs is
//! estimated, named and judged against, on planted captures (the game loop
//! of tests/common/planted.rs with every duration scaled) and on the real
//! Rerun Viewer twin pair (same code, same data, one minute apart).

mod common;

use common::planted::{self, BEFORE, Plan};
use common::run_in;
use serde_json::Value;
use std::path::Path;

/// A and B written to a temp dir as a.puffin and b.puffin.
fn pair(a: (Plan, u64), b: (Plan, u64)) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (file, (plan, seed)) in [("a.puffin", a), ("b.puffin", b)] {
        let bytes = planted::record(&planted::game_loop(plan, seed));
        std::fs::write(dir.path().join(file), bytes).unwrap();
    }
    dir
}

use common::json_in as json;

/// The report's comparison (JSON) of a.puffin against b.puffin with `extra`
/// arguments, and the exit status.
fn report(dir: &Path, extra: &[&str]) -> (i32, Value) {
    let mut args = vec!["report", "a.puffin", "b.puffin", "--format", "json"];
    args.extend_from_slice(extra);
    let (status, r) = json(dir, &args);
    (status, r["comparison"].clone())
}

/// The names the report judged a change, with their kinds.
fn changed(c: &Value) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_owned(),
                r["change"]["kind"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    v.sort();
    v
}

const SLOWER_MACHINE: Plan = Plan {
    scale: 1.2,
    ..BEFORE
};

#[test]
fn a_machine_20_percent_slower_is_drift_not_a_regression() {
    let d = pair((BEFORE, 1), (SLOWER_MACHINE, 2));
    let (status, c) = report(d.path(), &["--fail-on-regression", "2"]);
    assert_eq!(status, 0, "the gate passes: {}", c["gate"]);
    let drift = &c["drift"];
    let pct = drift["pct"].as_f64().unwrap();
    assert!((pct - 20.0).abs() < 1.0, "{drift}");
    assert!(drift["spread_pct"].as_f64().unwrap() < 1.0, "{drift}");
    assert_eq!(drift["named"], true);
    assert_eq!(drift["scopes_used"], drift["moved_together"], "{drift}");
    assert_eq!(
        changed(&c),
        Vec::<(String, String)>::new(),
        "nothing judged"
    );
    // What to look at first: no regression; the drift, last (after B's
    // largest recurring wait, which is not a change).
    let first: Vec<&str> = c["look_first"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert!(
        first
            .last()
            .unwrap()
            .starts_with("run-to-run drift, not a change in the code: B ran 2"),
        "{first:?}"
    );
    assert!(
        first.iter().all(|l| !l.contains("slower per call")),
        "{first:?}"
    );
    // The loop is paced: its period held, the machine's slower work (A's
    // scope time on main × 0.2) taken from the time between frames.
    assert_eq!(c["frame"]["kind"], "unchanged");
    let f = &c["frame"];
    let part = |name: &str| common::frame_part(f, name, "delta_ns");
    assert!(part("drift") > 0.5e6, "{f}");
    assert!(
        (part("between_frames") / part("drift") + 1.0).abs() < 0.05,
        "{f}"
    );
    // Markdown names it at the top of the comparison.
    let out = run_in(d.path(), &["report", "a.puffin", "b.puffin"]);
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(md.contains("B ran 20."), "{md}");
    assert!(md.contains("slower across the board"), "{md}");
    // compare says the same and its gate passes too.
    let (status, c) = json(
        d.path(),
        &[
            "compare",
            "a.puffin",
            "b.puffin",
            "--fail-on-regression",
            "2",
            "--json",
        ],
    );
    assert_eq!(status, 0);
    assert_eq!(c["changed_rows"], 0, "{}", c["rows"]);
    assert!((c["drift"]["pct"].as_f64().unwrap() - 20.0).abs() < 1.0);
    // Without drift, the same pair is a regression everywhere: the
    // judgement above is the drift's doing.
    let (status, c) = report(d.path(), &["--fail-on-regression", "2", "--no-drift"]);
    assert_eq!(status, 4);
    assert!(c["drift"].is_null());
    assert!(changed(&c).iter().any(|(_, k)| k == "slower"));
    // Asked for, the drift itself fails the gate.
    let (status, c) = report(d.path(), &["--fail-on-drift", "10"]);
    assert_eq!(status, 4);
    assert_eq!(c["gate"]["drift_tripped"], true);
    assert_eq!(c["gate"]["tripped"], Value::Array(Vec::new()));
    let (status, _) = report(d.path(), &["--fail-on-drift", "25"]);
    assert_eq!(status, 0);
}

#[test]
fn drift_plus_a_real_regression_judges_only_the_regression() {
    // Every duration ×1.2, and on top of it solve_contacts 2.0 → 3.2 ms
    // per call (×1.6 before the drift: 3.84 ms) and ui::layout twice per
    // frame.
    let b = Plan {
        solve_ms: 3.2,
        layout_calls: 2,
        ..SLOWER_MACHINE
    };
    let d = pair((BEFORE, 3), (b, 4));
    let (status, c) = report(d.path(), &["--fail-on-regression", "2"]);
    assert!((c["drift"]["pct"].as_f64().unwrap() - 20.0).abs() < 1.0);
    let kinds = changed(&c);
    let kind = |n: &str| kinds.iter().find(|(x, _)| x == n).map(|(_, k)| k.as_str());
    assert_eq!(kind("physics::solve_contacts"), Some("slower"));
    assert_eq!(kind("ui::layout"), Some("more-often"));
    // Nothing else but the wrappers whose time holds them (physics::step,
    // frame): a leaf that only drifted is not judged.
    for (name, _) in &kinds {
        assert!(
            [
                "physics::solve_contacts",
                "ui::layout",
                "physics::step",
                "frame"
            ]
            .contains(&name.as_str()),
            "{kinds:?}"
        );
    }
    // solve_contacts' change beyond the drift: 3.84 − 2.0 × 1.2 = 1.44 ms
    // per frame (± the jitter and the drift's error).
    let row = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "physics::solve_contacts")
        .unwrap();
    let ch = &row["change"];
    let beyond = ch["delta_per_frame_ns"].as_f64().unwrap() - ch["drift_part_ns"].as_f64().unwrap();
    assert!((beyond - 1.44e6).abs() < 0.06e6, "{ch}");
    // The gate trips on the regression, counted beyond the drift.
    assert_eq!(status, 4);
    let tripped = c["gate"]["tripped"].as_array().unwrap();
    let solve = tripped
        .iter()
        .find(|t| t["name"] == "physics::solve_contacts")
        .expect("solve_contacts trips the gate");
    assert!((solve["beyond_drift_ns"].as_f64().unwrap() - beyond).abs() < 1.0);
}

#[test]
fn the_same_run_on_both_sides_is_nothing() {
    let d = tempfile::tempdir().unwrap();
    let bytes = planted::record(&planted::game_loop(BEFORE, 5));
    std::fs::write(d.path().join("a.puffin"), &bytes).unwrap();
    std::fs::write(d.path().join("b.puffin"), &bytes).unwrap();
    let (status, c) = report(d.path(), &["--fail-on-regression", "0.1"]);
    assert_eq!(status, 0);
    assert_eq!(c["drift"]["factor"], 1.0);
    assert_eq!(c["drift"]["spread_pct"], 0.0);
    assert_eq!(c["drift"]["named"], false);
    assert_eq!(changed(&c), Vec::<(String, String)>::new());
    assert_eq!(c["conditions"], Value::Array(Vec::new()));
}

/// The repository's real captures.
fn real_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real")
}

/// `report A B` as JSON, gated at 2% (what a pull-request check runs).
fn gated_report<'s>(a: &'s str, b: &'s str) -> [&'s str; 7] {
    [
        "report",
        a,
        b,
        "--format",
        "json",
        "--fail-on-regression",
        "2",
    ]
}

#[test]
fn the_real_viewer_twin_is_nothing_beyond_drift() {
    let dir = real_dir();
    let args = gated_report("rerun_viewer_plots_a.puffin", "rerun_viewer_plots_b.puffin");
    let (status, r) = json(&dir, &args);
    let c = &r["comparison"];
    assert_eq!(status, 0, "the gate passes: {}", c["gate"]);
    let drift = &c["drift"];
    assert!(drift["scopes_used"].as_u64().unwrap() >= 20, "{drift}");
    // Same code: at most single spikes, no row slower, faster or run more
    // or less often beyond the drift.
    for (name, kind) in changed(c) {
        assert_eq!(kind, "spike", "{name}");
    }
    // The frame (280 ms, one name waiting 240 ms of it, wandering through
    // each run) is not a change; whether it held within 5% one run a side
    // cannot tell.
    assert!(
        ["unchanged", "inconclusive"].contains(&c["frame"]["kind"].as_str().unwrap()),
        "{}",
        c["frame"]
    );
    // Without the drift (-4%), the names' own run-to-run spread (±12%)
    // still keeps same code from being called faster or slower.
    let mut no_drift = args.to_vec();
    no_drift.push("--no-drift");
    let (status, r) = json(&dir, &no_drift);
    assert_ne!(status, 4);
    for (name, kind) in changed(&r["comparison"]) {
        assert_eq!(kind, "spike", "{name}");
    }
}

/// The Rerun SDK's twin runs (`sdk_points.py 2000 12`, the same script run
/// twice, 18 s apart: one frame each, judged per second). Its busy names'
/// ratios B/A spread ±14% around +9.4%, 4 of 18 together: an estimate
/// whose interval reaches inside the noise percentage is not called
/// machine drift, and, either way round, the only rows judged a change are
/// single spikes and start-up scopes one run has; the gate at 2% passes.
#[test]
fn the_real_sdk_twin_is_no_drift_and_nothing_beyond_noise() {
    let dir = real_dir();
    for (a, b) in [
        ("rerun_sdk_twin_a.puffin", "rerun_sdk_twin_b.puffin"),
        ("rerun_sdk_twin_b.puffin", "rerun_sdk_twin_a.puffin"),
    ] {
        let (status, r) = json(&dir, &gated_report(a, b));
        let c = &r["comparison"];
        assert_eq!(status, 0, "the gate passes: {}", c["gate"]);
        assert_eq!(c["basis"], "second");
        let d = &c["drift"];
        let (pct, se) = (
            d["pct"].as_f64().unwrap(),
            d["stderr_pct"].as_f64().unwrap(),
        );
        assert!(pct.abs() > 5.0, "past the noise %, {d}");
        // Its interval reaches inside the noise percentage (5%).
        assert!(
            (1.0 + pct / 100.0).ln().abs() - 3.1 * (1.0 + se / 100.0).ln() < 1.05f64.ln(),
            "its interval reaches inside the noise percentage: {d}"
        );
        assert_eq!(d["named"], false, "{d}");
        for row in c["rows"].as_array().unwrap() {
            let ch = &row["change"];
            let kind = ch["kind"].as_str().unwrap();
            assert!(
                ["spike", "new", "gone"].contains(&kind),
                "{} judged {kind} on the same code: {row}",
                row["name"]
            );
        }
        let md = run_in(&dir, &["report", a, b]);
        let md = String::from_utf8(md.stdout).unwrap();
        assert!(!md.contains("across the board"), "{md}");
        assert!(md.contains("not called machine drift"), "{md}");
        assert!(!md.contains("the run-to-run drift accounts for"), "{md}");
    }
}

/// The same code recorded on a quiet machine and beside two CPU hogs
/// (tests/fixtures/twins): the machine slowed the busy names by 20-30%,
/// unevenly. No name is judged a change either way round, and the gate at
/// 2% may not tell (exit 5) but never fails.
#[test]
fn the_same_code_beside_a_cpu_hog_is_no_change_and_never_fails_the_gate() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/twins");
    for (a, b) in [
        ("live_demo_quiet.puffin", "live_demo_hog.puffin"),
        ("live_demo_hog.puffin", "live_demo_quiet.puffin"),
    ] {
        let (status, r) = json(&dir, &gated_report(a, b));
        assert_ne!(status, 4, "{a} -> {b}: {}", r["comparison"]["gate"]);
        assert!(matches!(status, 0 | 5), "{status}");
        let c = &r["comparison"];
        for (name, kind) in changed(c) {
            assert!(
                ["spike", "new", "gone"].contains(&kind.as_str()),
                "{a} -> {b}: {name} judged {kind}"
            );
        }
        assert_eq!(c["gate"]["tripped"], Value::Array(Vec::new()));
    }
}
