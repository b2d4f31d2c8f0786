//! Recordings that are one frame (an app that never ends a puffin frame: a
//! server, a batch job, the Rerun SDK): said so, judged per second of the
//! run, per-frame statistics left out. Planted on the simulated clock
//! (tests/common/planted.rs) and checked on the real Rerun SDK capture.

mod common;

use common::planted::{self, Frame, Rng, Span, T0};
use common::run_in;
use std::path::Path;

const MS: i64 = 1_000_000;
/// The server's run: 5 s in one frame.
const RUN_MS: i64 = 5_000;

/// A server's run as one frame: `main` handles a request every 10 ms
/// (`request` > `parse`, `encode`, `respond`), `writer` flushes every
/// `flush_every_ms`; `parse_ms` per parse; every duration ±1%.
fn server(parse_ms: f64, flush_every_ms: i64, seed: u64) -> Vec<Frame> {
    let mut rng = Rng::new(seed);
    let mut main = Vec::new();
    for k in 0..RUN_MS / 10 {
        let start = T0 + k * 10 * MS;
        let mut t = start;
        let mut leaf = |name: &'static str, ms: f64, t: &mut i64| {
            let s = Span::new(name, *t, *t + rng.ns(ms, 0.01));
            *t = s.end_ns;
            s
        };
        let parse = leaf("parse", parse_ms, &mut t);
        let encode = leaf("encode", 0.3, &mut t);
        let respond = leaf("respond", 0.2, &mut t);
        main.push(
            Span::new("request", start, t + MS / 10)
                .child(parse)
                .child(encode)
                .child(respond),
        );
    }
    let writer: Vec<Span> = (0..RUN_MS / flush_every_ms)
        .map(|k| {
            let s = T0 + k * flush_every_ms * MS + 3 * MS;
            Span::new("flush", s, s + rng.ns(1.0, 0.01))
        })
        .collect();
    vec![vec![
        ("main".to_owned(), main),
        ("writer".to_owned(), writer),
    ]]
}

fn pair(a: Vec<Frame>, b: Vec<Frame>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.puffin"), planted::record(&a)).unwrap();
    std::fs::write(dir.path().join("b.puffin"), planted::record(&b)).unwrap();
    dir
}

use common::json_in as json;

#[test]
fn one_frame_is_said_and_judged_per_second() {
    // B: parse 0.5 → 1.0 ms per call, flush twice as often.
    let d = pair(server(0.5, 100, 1), server(1.0, 50, 2));
    let (status, r) = json(
        d.path(),
        &[
            "report",
            "a.puffin",
            "b.puffin",
            "--format",
            "json",
            "--fail-on-regression",
            "1",
        ],
    );
    let c = &r["comparison"];
    assert_eq!(c["basis"], "second");
    assert_eq!(c["per_frame"], false);
    assert_eq!(c["units"], serde_json::json!([5, 5]));
    for rec in r["recordings"].as_array().unwrap() {
        assert_eq!(rec["summary"]["frames"], 1);
        assert_eq!(rec["unframed"]["frames"], 1);
    }
    let kind = |name: &str| -> String {
        c["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == name)
            .map_or("unchanged".to_owned(), |r| {
                r["change"]["kind"].as_str().unwrap().to_owned()
            })
    };
    assert_eq!(kind("parse"), "slower");
    // Judged over the 5 seconds: 10 → 20 flushes per second.
    assert_eq!(kind("flush"), "more-often");
    let flush = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "flush")
        .unwrap();
    assert_eq!(flush["change"]["calls_per_frame_a"], 10.0);
    assert_eq!(flush["change"]["calls_per_frame_b"], 20.0);
    assert_eq!(flush["change"]["effect"]["verdict"], "changed");
    assert_eq!(flush["change"]["effect"]["per"], "second");
    assert_eq!(kind("encode"), "unchanged");
    assert_eq!(kind("respond"), "unchanged");
    // parse costs +0.5 ms × 100 requests = +50 ms per second.
    let parse = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "parse")
        .unwrap();
    let delta = parse["change"]["delta_per_frame_ns"].as_f64().unwrap();
    assert!((delta - 50e6).abs() < 2e6, "{delta}");
    // Its own time per second too (not summed over the run's 5 s), as its
    // contribution to main's accounting gives it.
    let own = parse["self_delta_per_frame_ns"].as_f64().unwrap();
    assert!((own - 50e6).abs() < 2e6, "{own}");
    let contribution = c["frame"]["contributions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["name"] == "parse")
        .unwrap();
    let told = contribution["self_delta_per_frame_ns"].as_f64().unwrap();
    assert!((own - told).abs() < 1.0, "{own} {told}");
    // The gate's unit is a second: 1% of it is 10 ms.
    assert_eq!(c["gate"]["limit_ns"], 1e7);
    assert_eq!(status, 4);
    // The accounting is main's scope time per second.
    assert_eq!(c["frame"]["basis"], "second");
    assert_eq!(c["frame"]["thread"], "main");
    // Markdown: said at the top, per second, no per-frame sections.
    let out = run_in(d.path(), &["report", "a.puffin", "b.puffin"]);
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(
        md.contains("One frame covers the whole 5.0 s run (the app never ends a puffin frame)"),
        "{md}"
    );
    assert!(md.contains("every figure below is per second"), "{md}");
    assert!(md.contains("| A per second | B per second |"), "{md}");
    assert!(!md.contains("Slowest frames"), "{md}");
    assert!(!md.contains("per frame"), "{md}");
}

#[test]
fn the_real_sdk_capture_is_one_frame_per_second() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real");
    let f = "rerun_sdk_points.puffin";
    let (status, r) = json(&dir, &["report", f, f, "--format", "json"]);
    assert_eq!(status, 0);
    let c = &r["comparison"];
    assert_eq!(c["basis"], "second");
    let span_ns = r["recordings"][0]["unframed"]["span_ns"].as_i64().unwrap();
    let seconds = (span_ns as f64 / 1e9).ceil() as u64;
    assert_eq!(c["units"][0], seconds);
    assert_eq!(c["changed_rows"], 0);
    let out = run_in(&dir, &["report", f]);
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(md.contains("One frame covers the whole"), "{md}");
    assert!(!md.contains("Slowest frames"), "{md}");
}

/// The Rerun SDK logging 500 and then 5,000 points a batch (a real
/// before/after pair of one frame each, `sdk_points.py`): its busiest
/// scopes cost 4x to 8x more per call while the light ones hold. The
/// names' median held: no drift worth naming, and their wide spread is
/// carried in every row's interval; the names that moved 4-8x are still
/// changes.
#[test]
fn the_real_sdk_pair_is_judged_as_measured() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real");
    let (a, b) = (
        "rerun_sdk_points_500.puffin",
        "rerun_sdk_points_5000.puffin",
    );
    let (_, v) = json(&dir, &["compare", a, b, "--json"]);
    assert_eq!(v["basis"], "second");
    let d = &v["drift"];
    assert_eq!(d["named"], false, "{d:#}");
    assert!(d["spread_pct"].as_f64().unwrap() > 10.0, "{d:#}");
    let rows = v["rows"].as_array().unwrap();
    let append = rows
        .iter()
        .find(|r| r["name"] == "Encoder<_>::append" && r["data"] == "")
        .unwrap();
    assert!(
        ["slower", "costlier"].contains(&append["change"]["kind"].as_str().unwrap()),
        "{append:#}"
    );
    // The text says the drift is not named, and never "across the board".
    let out = run_in(&dir, &["compare", a, b]);
    let text = String::from_utf8(out.stdout).unwrap();
    let first = text.lines().next().unwrap();
    let pct = d["pct"].as_f64().unwrap();
    assert!(first.starts_with(&format!("drift: {pct:+.1}%")), "{first}");
    assert!(first.contains("not called machine drift"), "{first}");
    assert!(!text.contains("across the board"));
}
