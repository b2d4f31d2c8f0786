//! Judging the cost, not only the typical call, on planted captures
//! (tests/common/planted.rs: puffin's own writer on a simulated clock):
//! a name that mixes call sizes, a tail that grows while the median holds,
//! and a regression under six nested wrappers (the gate counts causes).

mod common;

use common::planted::{self, Frame, Rng, Span, T0};
use serde_json::Value;

const FRAMES: usize = 60;
const PERIOD_NS: i64 = 200_000_000;

/// What B changes.
#[derive(Clone, Copy)]
struct Plan {
    /// The big `submit` call of each frame, in ms (two small ones of 0.2 ms
    /// come before it).
    big_submit_ms: f64,
    /// The tail of `decode`: one call in 10 takes this long (the others
    /// 1 ms).
    decode_tail_ms: f64,
    /// `leaf` under six nested wrappers, in ms.
    leaf_ms: f64,
}

const A: Plan = Plan {
    big_submit_ms: 80.0,
    decode_tail_ms: 5.0,
    leaf_ms: 2.0,
};

/// 60 frames of `main`: `frame` > fillers (1 ms each: the drift's votes),
/// `submit` ×3, `decode` ×10, `w1` > `w2` > … > `w6` > `leaf`.
fn app(plan: Plan, seed: u64) -> Vec<Frame> {
    let mut rng = Rng::new(seed);
    (0..FRAMES)
        .map(|f| {
            let start = T0 + f as i64 * PERIOD_NS;
            let mut t = start;
            let mut leaf = |name: &'static str, ms: f64, t: &mut i64| {
                let s = Span::new(name, *t, *t + rng.ns(ms, 0.01));
                *t = s.end_ns;
                s
            };
            let mut frame = Span::new("frame", start, 0);
            for name in ["input", "physics", "audio", "layout", "paint"] {
                frame = frame.child(leaf(name, 1.0, &mut t));
            }
            for ms in [0.2, 0.2, plan.big_submit_ms] {
                frame = frame.child(leaf("submit", ms, &mut t));
            }
            for k in 0..10 {
                let ms = if k == 9 { plan.decode_tail_ms } else { 1.0 };
                frame = frame.child(leaf("decode", ms, &mut t));
            }
            // Six wrappers, each 0.01 ms of its own around the next.
            let l = leaf("leaf", plan.leaf_ms, &mut t);
            let mut inner = l;
            for name in ["w6", "w5", "w4", "w3", "w2", "w1"] {
                let s = Span::new(name, inner.start_ns - 10_000, inner.end_ns + 10_000);
                inner = s.child(inner);
            }
            t = inner.end_ns;
            frame = frame.child(inner);
            frame.end_ns = t + 100_000;
            vec![("main".to_owned(), vec![frame])]
        })
        .collect()
}

fn pair(b: Plan) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.puffin"), planted::record(&app(A, 1))).unwrap();
    std::fs::write(dir.path().join("b.puffin"), planted::record(&app(b, 2))).unwrap();
    dir
}

use common::json_in as json;

/// The report's kind of `name` ("unchanged" when not listed).
fn kind(c: &Value, name: &str) -> String {
    c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .map_or("unchanged".to_owned(), |r| {
            r["change"]["kind"].as_str().unwrap().to_owned()
        })
}

/// The differential tree's node `path` (names from the thread's root).
fn node<'v>(diff: &'v Value, path: &[&str]) -> &'v Value {
    let mut nodes = &diff["threads"][0]["roots"];
    let mut found = &Value::Null;
    for name in path {
        found = nodes
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["name"] == *name)
            .unwrap_or_else(|| panic!("{name} in {nodes}"));
        nodes = &found["children"];
    }
    found
}

#[test]
fn a_name_of_mixed_call_sizes_is_judged_by_its_big_call() {
    // Two 0.2 ms submits and one 80 ms per frame; the big one grows 10%.
    let d = pair(Plan {
        big_submit_ms: 88.0,
        ..A
    });
    let (_, r) = json(
        d.path(),
        &["report", "a.puffin", "b.puffin", "--format", "json"],
    );
    let c = &r["comparison"];
    assert_eq!(kind(c, "submit"), "slower", "{}", c["rows"]);
    let row = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "submit")
        .unwrap();
    // Its median is a small call and holds; its typical (time-weighted)
    // call is the big one, 10% slower.
    let ch = &row["change"];
    let (ma, mb) = (
        ch["median_a_ns"].as_f64().unwrap(),
        ch["median_b_ns"].as_f64().unwrap(),
    );
    assert!((mb / ma - 1.0).abs() < 0.03, "{ch}");
    let (ta, tb) = (
        ch["typical_a_ns"].as_f64().unwrap(),
        ch["typical_b_ns"].as_f64().unwrap(),
    );
    assert!((tb / ta - 1.1).abs() < 0.03, "{ch}");
    // The tree agrees: its `submit` node is slower.
    let (_, diff) = json(d.path(), &["diff", "a.puffin", "b.puffin", "--json"]);
    let n = node(&diff, &["frame", "submit"]);
    assert_eq!(n["kind"], "slower", "{n}");
    // And the frame is explained by it.
    assert_eq!(kind(c, "decode"), "unchanged");
}

#[test]
fn a_tail_that_grows_under_a_steady_median_is_a_change_in_cost() {
    // decode: 9 calls of 1 ms and one of 5 ms per frame (its p95); the
    // tail grows 30% (6.5 ms): +1.5 ms a frame on 14 ms, +10.7%.
    let d = pair(Plan {
        decode_tail_ms: 6.5,
        ..A
    });
    let (status, r) = json(
        d.path(),
        &[
            "report",
            "a.puffin",
            "b.puffin",
            "--format",
            "json",
            "--fail-on-regression",
            "0.5",
        ],
    );
    let c = &r["comparison"];
    assert_eq!(kind(c, "decode"), "costlier", "{}", c["rows"]);
    let row = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "decode")
        .unwrap();
    let ch = &row["change"];
    // The median holds (1 ms), the tail (its p95) grew.
    assert!(
        (ch["median_a_ns"].as_f64().unwrap() / 1e6 - 1.0).abs() < 0.02,
        "{ch}"
    );
    assert!(
        (ch["median_b_ns"].as_f64().unwrap() / 1e6 - 1.0).abs() < 0.02,
        "{ch}"
    );
    // Its whole interval clears the band.
    assert_eq!(ch["effect"]["verdict"], "changed", "{ch}");
    assert!(
        ch["effect"]["ci_ns"][0].as_f64().unwrap() > ch["effect"]["band_ns"].as_f64().unwrap(),
        "{ch}"
    );
    let delta = ch["delta_per_frame_ns"].as_f64().unwrap();
    assert!((delta - 1.5e6).abs() < 0.1e6, "{ch}");
    // A change in cost is a regression the gate counts (1.5 ms > 0.5% of
    // ~190 ms).
    assert_eq!(status, 4);
    let tripped: Vec<&str> = c["gate"]["tripped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(tripped, ["decode"]);
    assert_eq!(kind(c, "submit"), "unchanged");
}

#[test]
fn six_wrappers_above_one_slower_leaf_are_one_cause() {
    let d = pair(Plan { leaf_ms: 3.0, ..A });
    let (status, r) = json(
        d.path(),
        &[
            "report",
            "a.puffin",
            "b.puffin",
            "--format",
            "json",
            "--fail-on-regression",
            "0.2",
        ],
    );
    let c = &r["comparison"];
    // Every wrapper is slower per call (its total holds the leaf)...
    for w in ["w1", "w2", "w3", "w4", "w5", "w6", "leaf"] {
        assert_eq!(kind(c, w), "slower", "{w}: {}", c["rows"]);
    }
    // ...but the gate lists one cause.
    assert_eq!(status, 4);
    let tripped: Vec<&str> = c["gate"]["tripped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(tripped, ["leaf"]);
    let own = c["gate"]["tripped"][0]["own_beyond_drift_ns"]
        .as_f64()
        .unwrap();
    assert!((own - 1.0e6).abs() < 0.06e6, "{own}");
}
