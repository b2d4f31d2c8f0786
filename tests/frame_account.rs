//! The frame's account (issue 64), on planted captures whose every duration
//! is exact (puffin's own recorder on a simulated clock, ±1% jitter): the
//! frame is the main thread's period start to start, the time between frames
//! is a part of it judged as measured, a background thread's long scope
//! never stretches it, the parts sum to the change, the drift rests on the
//! names that did not change, and the headline's figure is the estimate its
//! interval is of.

mod common;

use common::planted::{Frame, Rng, Span, record};
use serde_json::Value;

const T0: i64 = 1_793_491_200_000_000_000;
const FRAMES: usize = 120;

/// A free-running loop: `frame` (work of `names`, each `ms` a call with 1%
/// jitter) on main, then `between_ms` outside every scope before the next
/// frame starts.
fn free_loop(names: &[(&'static str, f64)], between_ms: f64, seed: u64) -> Vec<u8> {
    looped(names, between_ms, None, seed)
}

/// [`free_loop`], with `io::flush` on a thread of its own every `io_every`
/// frames, from the frame's start for three whole frames: it outlasts
/// main's frame.
fn looped(
    names: &[(&'static str, f64)],
    between_ms: f64,
    io_every: Option<usize>,
    seed: u64,
) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut t = T0;
    let frames: Vec<Frame> = (0..FRAMES)
        .map(|f| {
            let start = t;
            let mut main = Span::new("frame", start, 0);
            for &(name, ms) in names {
                let s = Span::new(name, t, t + rng.ns(ms, 0.01));
                t = s.end_ns;
                main = main.child(s);
            }
            main.end_ns = t;
            let mut frame = vec![("main".to_owned(), vec![main])];
            if io_every.is_some_and(|k| f % k == 0) {
                let io = Span::new("io::flush", start, start + 3 * (t - start));
                frame.push(("io".to_owned(), vec![io]));
            }
            t += rng.ns(between_ms, 0.01);
            frame
        })
        .collect();
    record(&frames)
}

fn report(a: &[u8], b: &[u8]) -> Value {
    common::cli_report(a, b)["comparison"].clone()
}

/// Six busy names (8.5 ms a frame): enough to measure their run-to-run
/// spread (five vote at least).
const WORK: [(&str, f64); 6] = [
    ("input", 0.5),
    ("physics::step", 2.5),
    ("physics::solve", 1.5),
    ("ui::layout", 1.5),
    ("audio::mix", 0.5),
    ("render::submit", 2.0),
];

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// Half the busy names changed (+10% to +60% a call) on a clock with no
/// drift: the drift rests on the four that did not, is about 0, and no bar
/// is the machine's; the headline's figure is its interval's estimate.
#[test]
fn the_drift_rests_on_the_names_that_did_not_change() {
    let names_a: Vec<(&'static str, f64)> = vec![
        ("a0", 0.5),
        ("a1", 0.7),
        ("a2", 0.9),
        ("a3", 1.1),
        ("c0", 0.5),
        ("c1", 0.6),
        ("c2", 0.8),
        ("c3", 1.0),
    ];
    let ratios = [1.0, 1.0, 1.0, 1.0, 1.1, 1.25, 1.4, 1.6];
    let names_b: Vec<(&'static str, f64)> = names_a
        .iter()
        .zip(ratios)
        .map(|(&(n, ms), r)| (n, ms * r))
        .collect();
    let a = free_loop(&names_a, 2.0, 5);
    let b = free_loop(&names_b, 2.0, 6);
    let c = report(&a, &b);
    let d = &c["drift"];
    assert_eq!(d["scopes_used"], 8, "{d:#}");
    assert_eq!(d["scopes_unchanged"], 4, "{d:#}");
    assert!(f(&d["pct"]).abs() < 1.0, "{d:#}");
    let g = &c["glance"];
    assert!(
        g["bars"]
            .as_array()
            .unwrap()
            .iter()
            .all(|b| b["part"] != "drift"),
        "{g:#}"
    );
    // The two largest changes (+0.32, +0.60 ms a frame) are causes, and
    // only changed names are (+0.05 ms is the band's floor; +0.15 ms is
    // judged against every name's spread, changed names' included, held
    // to the prior: it may stay inconclusive).
    let causes: Vec<&str> = g["bars"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["part"] == "cause")
        .map(|b| b["label"].as_str().unwrap())
        .collect();
    assert!(causes.contains(&"c2") && causes.contains(&"c3"), "{g:#}");
    assert!(causes.iter().all(|n| n.starts_with('c')), "{causes:?}");
    let e = &c["frame"]["effect"];
    let h = g["headline"].as_str().unwrap();
    let want = format!("{:.3} ms", f(&e["delta_ns"]) / 1e6);
    assert!(h.contains(&want), "{h} / {e}");
}

/// B spends 2 ms more between frames (2 → 4 ms): the frame (8.5 → 10.5 ms,
/// 118 → 95 fps) changed, all of it between frames; no scope changed.
#[test]
fn the_time_between_frames_is_the_frames() {
    let a = free_loop(&WORK, 2.0, 1);
    let b = free_loop(&WORK, 4.0, 2);
    let c = report(&a, &b);
    let fr = &c["frame"];
    assert_eq!(fr["thread"], "main", "{fr:#}");
    // Start to start: the work and the time between frames (a run's last
    // frame ends at its end).
    let n = FRAMES as f64;
    let want_a = 8.5e6 + 2.0e6 * (n - 1.0) / n;
    assert!((f(&fr["mean_a_ns"]) / want_a - 1.0).abs() < 0.01, "{fr:#}");
    assert!(
        (f(&fr["rate_a_fps"]) - 1e9 / f(&fr["mean_a_ns"])).abs() < 1e-6,
        "{fr:#}"
    );
    assert_eq!(fr["effect"]["verdict"], "changed", "{fr:#}");
    let bf = &fr["between_frames"];
    let d = f(&bf["mean_b_ns"]) - f(&bf["mean_a_ns"]);
    assert!((d / (2.0e6 * (n - 1.0) / n) - 1.0).abs() < 0.02, "{bf:#}");
    assert_eq!(bf["effect"]["verdict"], "changed", "{bf:#}");
    // The parts sum to the frame's change; between frames holds 99% of it.
    let parts = fr["parts"].as_array().unwrap();
    let sum: f64 = parts.iter().map(|p| f(&p["delta_ns"])).sum();
    assert!((sum - f(&fr["delta_mean_ns"])).abs() < 1.0, "{parts:?}");
    let between = parts
        .iter()
        .find(|p| p["part"] == "between_frames")
        .unwrap();
    assert!(
        f(&between["delta_ns"]) / f(&fr["delta_mean_ns"]) > 0.99,
        "{parts:?}"
    );
    // The loop runs free (its period carries its work, no clock paces
    // it): the time between frames is the frame's own, and the glance
    // draws it as a cost; its headline says the frame rate.
    assert_eq!(bf["paced"], false, "{bf:#}");
    let g = &c["glance"];
    let bars = g["bars"].as_array().unwrap();
    let bar = bars.iter().find(|b| b["part"] == "between_frames");
    assert!(bar.is_some_and(|b| b["cost"] == true), "{g:#}");
    assert!(g["headline"].as_str().unwrap().contains(" fps)"), "{g:#}");
    assert!(bars.iter().all(|b| b["part"] != "cause"), "{g:#}");
}

/// A background thread's scope that outlasts main's frame (every 10th
/// frame in B, three frames long) does not stretch B's frames.
#[test]
fn another_threads_long_scope_does_not_stretch_the_frame() {
    let a = looped(&WORK, 2.0, None, 3);
    let b = looped(&WORK, 2.0, Some(10), 4);
    let c = report(&a, &b);
    let fr = &c["frame"];
    assert!(
        (f(&fr["mean_b_ns"]) / f(&fr["mean_a_ns"]) - 1.0).abs() < 0.01,
        "{fr:#}"
    );
    assert_eq!(fr["effect"]["verdict"], "unchanged", "{fr:#}");
}

/// The headline's first number is the waterfall's, the mean frame's change;
/// when the typical frame held and the slow frames changed (the example
/// pair: every 10th frame of B misses its vsync slot), the number judged
/// follows with its own interval, said to be the slow frames'.
#[test]
fn the_headline_leads_with_the_mean_and_names_what_was_judged() {
    let read =
        |f: &str| std::fs::read(format!("{}/samples/{f}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let c = report(
        &read("example_before.puffin"),
        &read("example_after.puffin"),
    );
    let fr = &c["frame"];
    let g = &c["glance"];
    assert_eq!(fr["judged_by"], "slow_frames", "{fr:#}");
    let h = g["headline"].as_str().unwrap();
    let mean = fr["delta_mean_ns"].as_f64().unwrap();
    // The waterfall runs from A's mean frame to B's: the headline's number.
    let (a, b) = (g["a_ns"].as_f64().unwrap(), g["b_ns"].as_f64().unwrap());
    assert!((b - a - mean).abs() < 1.0);
    assert!(
        h.starts_with(&format!("B's frame is {:.3} ms", mean / 1e6)),
        "{h}"
    );
    let e = &fr["effect"];
    let judged = format!(
        "its slow frames add {:+.3} ms a frame [{:+.3}, {:+.3}] ms",
        e["delta_ns"].as_f64().unwrap() / 1e6,
        e["ci_ns"][0].as_f64().unwrap() / 1e6,
        e["ci_ns"][1].as_f64().unwrap() / 1e6
    );
    assert!(h.contains(&judged), "{h}");
    assert!(h.contains("the typical frame unchanged"), "{h}");
    // B's last frame (the shutdown) is left out, and said to be one.
    assert_eq!(c["transients"][1]["trailing"]["frames"], 1);
    let left_out = g["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["badge"].as_str().unwrap().ends_with("(left out)"))
        .expect("said");
    assert_eq!(left_out["badge"], "shutdown in B (left out)");
    assert_eq!(left_out["place"], "1 frame");
}

/// Each changed row carries its calls' evidence: P90, P99 and the longest
/// call a side, the nearest-rank figures of its calls as recorded (the
/// example pair's `solve_contacts`, slower per call), and the report's
/// sentence says them.
#[test]
fn a_changed_row_carries_its_calls_quantiles() {
    let read =
        |f: &str| std::fs::read(format!("{}/samples/{f}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let (a, b) = (read("example_before.puffin"), read("example_after.puffin"));
    let c = report(&a, &b);
    let row = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "solve_contacts")
        .expect("a row");
    // Of the steady frames the comparison judges (each side's start-up
    // and shutdown frames, `transients`, left out).
    for (k, (bytes, key)) in [(&a, "calls_a_ns"), (&b, "calls_b_ns")]
        .into_iter()
        .enumerate()
    {
        let t = puffin_lens::engine::load(bytes).unwrap().trace;
        let id = t.strings.find("solve_contacts").unwrap();
        let edges = &c["transients"][k];
        let lead = edges["leading"]["frames"].as_u64().unwrap() as usize;
        let trail = edges["trailing"]["frames"].as_u64().unwrap() as usize;
        let n = t.frames.len();
        let mut calls: Vec<i64> = (lead..n - trail)
            .flat_map(|f| {
                t.frames
                    .streams(puffin_lens::engine::model::FrameId(f as u32))
            })
            .flat_map(|st| t.streams.scopes(puffin_lens::engine::model::StreamId(st)))
            .filter(|&i| t.defs.name[t.scopes.def[i as usize].idx()] == id)
            .map(|i| t.scopes.duration_ns[i as usize])
            .collect();
        calls.sort_unstable();
        let rank = |q: f64| calls[((q * calls.len() as f64).ceil() as usize).max(1) - 1];
        let q = &row["change"][key];
        assert_eq!(q["p90"], rank(0.9), "{key}: {q}");
        assert_eq!(q["p99"], rank(0.99), "{key}: {q}");
        assert_eq!(q["max"], *calls.last().unwrap(), "{key}: {q}");
    }
    let details: Vec<&str> = c["glance"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["name"] == "solve_contacts")
        .map(|f| f["details"].as_str().unwrap())
        .collect();
    assert!(
        details.iter().any(|d| d.contains("P90 call ")),
        "{details:?}"
    );
}

/// A scope whose children changed too (a generated pair no table reads:
/// `frame` holds a new 2.6 ms unscoped stretch while `render::sort` and
/// `net::poll` under it changed): its finding is its own time's change,
/// the waterfall's bar, never its whole time's beside it; and a headline
/// judged with the slowest frames cut says so beside the mean and median.
#[test]
fn a_wrapper_s_finding_is_its_own_time_as_its_bar() {
    use common::generator::{bytes, random_pair};
    let pair = random_pair(1316, false);
    let (a, b) = (bytes(&pair.a, 7632), bytes(&pair.b, 7633));
    let c = report(&a, &b);
    let g = &c["glance"];
    let bar = g["bars"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["label"] == "frame")
        .expect("frame's bar");
    let finding = g["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["name"] == "frame")
        .expect("frame's finding");
    assert!(
        (f(&bar["delta_ns"]) - f(&finding["delta_ns"])).abs() < 1.0,
        "{bar} / {finding}"
    );
    assert!(
        finding["details"]
            .as_str()
            .unwrap()
            .contains("its children's changes"),
        "{finding}"
    );
    let fr = &c["frame"];
    if fr["judged_by"] == "typical" {
        let h = g["headline"].as_str().unwrap();
        assert!(
            h.starts_with(&format!(
                "B's frame is {:.3} ms",
                f(&fr["delta_mean_ns"]) / 1e6
            )),
            "{h}"
        );
        assert!(h.contains("cut at each side's far-out fence"), "{h}");
    }
}
