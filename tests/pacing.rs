//! `pacing`: the frames' distribution checked against a direct computation
//! on the real recordings of the fixtures, planted pacing changes found with
//! their frames and their culprit, and the tail figures' false changes and
//! coverage on simulated same-code and shifted pairs.

mod common;

use common::planted::{Frame, Rng, Span, T0, record};
use common::{fixtures_dir, json_in};
use puffin_lens::engine::analyses::pacing::{FIGURES, judge_periods, tail_figures_of};
use puffin_lens::engine::model::{StreamId, Trace};
use serde_json::Value;

/// Each frame's period on `thread` computed here from the model alone: the
/// first top-level scope's start on the thread to the next frame's (at
/// least this frame's last end), for frames whose next index follows.
/// `(frame_index, period_ns)`.
fn direct_periods(t: &Trace, thread: &str) -> Vec<(u64, i64)> {
    let bounds: Vec<Option<(i64, i64)>> = t
        .frames
        .ids()
        .map(|f| {
            let mut lo_hi: Option<(i64, i64)> = None;
            for st in t.frames.streams(f) {
                if t.thread_name(t.streams.thread[st as usize]) != thread {
                    continue;
                }
                for i in t.scopes.top_level(t.streams.scopes(StreamId(st))) {
                    let (s, e) = (t.scopes.start_ns[i.idx()], t.scopes.end_ns(i));
                    lo_hi = Some(lo_hi.map_or((s, e), |(lo, hi)| (lo.min(s), hi.max(e))));
                }
            }
            lo_hi
        })
        .collect();
    let idx = &t.frames.frame_index;
    (0..t.frames.len().saturating_sub(1))
        .filter(|&f| idx[f + 1] == idx[f] + 1)
        .map(|f| {
            let (start, end) = bounds[f].unwrap_or(t.frames.range_ns[f]);
            let next = bounds[f + 1].unwrap_or(t.frames.range_ns[f + 1]).0.max(end);
            (idx[f], next - start)
        })
        .collect()
}

fn nearest_rank(sorted: &[i64], q: f64) -> i64 {
    let n = sorted.len();
    sorted[((q * n as f64).ceil() as usize).clamp(1, n) - 1]
}

fn slowest_mean(sorted: &[i64], share: f64) -> f64 {
    let k = ((sorted.len() as f64 * share).ceil() as usize).max(1);
    sorted[sorted.len() - k..].iter().sum::<i64>() as f64 / k as f64
}

#[test]
fn the_figures_are_the_field_s_definitions_on_real_recordings() {
    let dir = fixtures_dir();
    let files = [
        "real/rerun_viewer_plots_a.puffin",
        "real/rerun_viewer_plots_b.puffin",
        "capture_PFD1.puffin",
        "capture_PFD4.puffin",
        "twins/live_demo_quiet.puffin",
        "twins/live_demo_hog.puffin",
    ];
    for file in files {
        let (code, v) = json_in(&dir, &["pacing", file, "--json"]);
        assert_eq!(code, 0, "{file}");
        let bytes = std::fs::read(dir.join(file)).unwrap();
        let trace = puffin_lens::engine::load(&bytes).unwrap().trace;
        let thread = v["thread"].as_str().unwrap();
        let periods = direct_periods(&trace, thread);
        let a = &v["a"];
        let n = periods.len();
        assert!(n >= 20, "{file}: {n} periods");
        assert_eq!(a["frames"], n, "{file}");
        assert_eq!(a["censored"], trace.frames.len() - n, "{file}");
        let mut sorted: Vec<i64> = periods.iter().map(|p| p.1).collect();
        sorted.sort_unstable();
        let mean = sorted.iter().sum::<i64>() as f64 / n as f64;
        assert!(
            (a["mean_ns"].as_f64().unwrap() - mean).abs() <= 0.5,
            "{file}"
        );
        assert_eq!(a["median_ns"], sorted[(n - 1) / 2], "{file}");
        for (key, q) in [("p90_ns", 0.9), ("p95_ns", 0.95), ("p99_ns", 0.99)] {
            assert_eq!(a[key], nearest_rank(&sorted, q), "{file} {key}");
        }
        for (key, share) in [("low_1pct_ns", 0.01), ("low_01pct_ns", 0.001)] {
            let want = slowest_mean(&sorted, share);
            assert!(
                (a[key].as_f64().unwrap() - want).abs() <= 0.5,
                "{file} {key}"
            );
        }
        let fps = a["fps"]["low_1pct"].as_f64().unwrap();
        let want = 1e9 / slowest_mean(&sorted, 0.01);
        assert!(
            (fps - want).abs() / want < 1e-3,
            "{file}: {fps} fps, {want}"
        );
        let worst = periods
            .iter()
            .max_by_key(|p| (p.1, std::cmp::Reverse(p.0)))
            .unwrap();
        assert_eq!(a["worst"]["duration_ns"], worst.1, "{file}");
        assert_eq!(a["worst"]["frame_index"], worst.0, "{file}");
        if v["budget_source"] == "60 Hz" {
            let over = sorted.iter().filter(|&&p| p as f64 > 1e9 / 60.0).count();
            assert_eq!(a["over_budget"], over, "{file}");
        }
        // Stutter: more than 2.5x the median of up to 10 neighbours a side.
        let stutters = (0..n)
            .filter(|&i| {
                let mut around: Vec<i64> = (i.saturating_sub(10)..(i + 11).min(n))
                    .filter(|&j| j != i)
                    .map(|j| periods[j].1)
                    .collect();
                around.sort_unstable();
                around.len() >= 4
                    && periods[i].1 as f64 > 2.5 * around[(around.len() - 1) / 2] as f64
            })
            .count();
        assert_eq!(a["stutters"], stutters, "{file}");
        let mut d: Vec<i64> = periods
            .windows(2)
            .map(|w| (w[1].1 - w[0].1).abs())
            .collect();
        d.sort_unstable();
        let f2f = d[(d.len() - 1) / 2] as f64;
        assert!(
            (a["frame_to_frame_ns"].as_f64().unwrap() - f2f).abs() <= 0.5,
            "{file}"
        );
        // The slow frames' parts sum to their excess over the others.
        let s = &a["slow_frames"];
        let excess = s["excess_ns"].as_f64().unwrap();
        assert!(s["frames"].as_u64().unwrap() >= 1, "{file}");
        assert!(
            (s["mean_ns"].as_f64().unwrap() - s["typical_mean_ns"].as_f64().unwrap() - excess)
                .abs()
                <= 1.0,
            "{file}"
        );
    }
}

/// A free-running loop on main: each frame's top-level `frame` scope holds
/// `work(i)`'s children (name, ms) one after another, then 1 ms outside
/// every scope before the next frame. ±2% jitter on every duration.
fn free_loop(n: usize, seed: u64, work: impl Fn(usize) -> Vec<(&'static str, f64)>) -> Vec<Frame> {
    let mut rng = Rng::new(seed);
    let mut t = T0;
    (0..n)
        .map(|i| {
            let start = t;
            let mut frame = Span::new("frame", start, start);
            let mut at = start + rng.ns(0.2, 0.02);
            for (name, ms) in work(i) {
                let d = rng.ns(ms, 0.02);
                frame = frame.child(Span::new(name, at, at + d));
                at += d;
            }
            frame.end_ns = at + rng.ns(0.2, 0.02);
            t = frame.end_ns + rng.ns(1.0, 0.02);
            vec![("main".to_owned(), vec![frame])]
        })
        .collect()
}

fn pacing_pair(a: &[Frame], b: &[Frame]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.puffin"), record(a)).unwrap();
    std::fs::write(dir.path().join("b.puffin"), record(b)).unwrap();
    let (code, v) = json_in(dir.path(), &["pacing", "a.puffin", "b.puffin", "--json"]);
    assert_eq!(code, 0, "{v}");
    v
}

fn verdict(v: &Value, figure: &str) -> String {
    v["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["figure"] == figure)
        .unwrap()["effect"]["verdict"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn work_batched_into_every_second_frame_is_found_with_its_frames_and_culprit() {
    // A: `physics::step` 4 ms every frame (15.4 ms frames, under 60 Hz);
    // B: 8 ms every second frame: the same mean, frames of 11.4 and 19.4 ms.
    let base = |i: usize, physics: f64| {
        let mut w = vec![("update", 5.0), ("render", 5.0)];
        if physics > 0.0 {
            w.insert(1, ("physics::step", physics));
        }
        let _ = i;
        w
    };
    let a = free_loop(600, 1, |i| base(i, 4.0));
    let b = free_loop(600, 2, |i| base(i, if i % 2 == 1 { 8.0 } else { 0.0 }));
    let v = pacing_pair(&a, &b);
    for figure in ["p95", "p99", "low_1pct", "over_budget", "frame_to_frame"] {
        assert_eq!(verdict(&v, figure), "changed", "{figure}: {v:#}");
    }
    let pb = &v["b"];
    assert_eq!(v["a"]["over_budget"], 0);
    // Every second frame of B (the last one has no next start).
    assert!(
        (298..=300).contains(&pb["over_budget"].as_u64().unwrap()),
        "{pb:#}"
    );
    assert!(
        pb["pattern"].as_str().unwrap().contains("every 2nd frame"),
        "{}",
        pb["pattern"]
    );
    let slow = &pb["slow_frames"];
    assert_eq!(slow["rule"], "over the budget");
    let culprit = &slow["culprits"][0];
    assert_eq!(culprit["part"], "physics::step", "{slow:#}");
    assert_eq!(culprit["in_slow"], slow["frames"]);
    assert_eq!(culprit["in_typical"], 0);
    // The headline says the slow frames got worse, and names the culprit.
    let h = v["headline"].as_str().unwrap();
    assert!(h.starts_with("B's slow frames got worse"), "{h}");
    assert!(h.contains("`physics::step`"), "{h}");
}

#[test]
fn a_periodic_stall_is_traced_to_its_scope_and_a_same_code_pair_changes_nothing() {
    let work = |i: usize, stall: bool| {
        let mut w = vec![("update", 6.0), ("render", 7.0)];
        if stall && i % 4 == 3 {
            w.push(("save::flush", 3.5));
        }
        w
    };
    let a = free_loop(800, 3, |i| work(i, false));
    let b = free_loop(800, 4, |i| work(i, true));
    let v = pacing_pair(&a, &b);
    let slow = &v["b"]["slow_frames"];
    // 14.4 ms frames, every 4th 17.9 ms: over the 60 Hz budget.
    assert_eq!(slow["rule"], "over the budget", "{slow:#}");
    assert!(
        (199..=200).contains(&slow["frames"].as_u64().unwrap()),
        "{slow:#}"
    );
    let c = &slow["culprits"][0];
    assert_eq!(c["part"], "save::flush");
    assert_eq!(c["in_slow"], slow["frames"]);
    assert_eq!(c["in_typical"], 0);
    assert!(
        (c["excess_ns"].as_f64().unwrap() - 3.5e6).abs() < 0.2e6,
        "{c}"
    );
    assert!(
        v["b"]["pattern"]
            .as_str()
            .unwrap()
            .contains("every 4th frame"),
        "{}",
        v["b"]["pattern"]
    );
    assert_eq!(verdict(&v, "p95"), "changed");
    assert_eq!(verdict(&v, "over_budget"), "changed");

    // The same code twice (other jitter): no tail figure changed.
    let a2 = free_loop(800, 5, |i| work(i, true));
    let same = pacing_pair(&b, &a2);
    for figure in FIGURES {
        assert_ne!(verdict(&same, figure), "changed", "{figure}: {same:#}");
    }
    let h = same["headline"].as_str().unwrap();
    assert!(
        h.starts_with("The slow frames did not change") || h.starts_with("No tail figure"),
        "{h}"
    );
}

/// A simulated side: `n` periods of a loop at about 16 ms whose frame
/// times wander (log-AR(1), φ = 0.5, σ = 0.06) with a hitch (×2-4) in
/// `hitch` of the frames.
fn simulated(rng: &mut Rng, n: usize, hitch: f64) -> Vec<i64> {
    let mut x = 0.0;
    (0..n)
        .map(|_| {
            // A standard normal from twelve uniforms (Irwin-Hall).
            let z: f64 = (0..12).map(|_| (rng.unit() + 1.0) / 2.0).sum::<f64>() - 6.0;
            x = 0.5 * x + 0.06 * (1.0 - 0.25f64).sqrt() * z;
            let u = (rng.unit() + 1.0) / 2.0;
            let k = if u < hitch {
                2.0 + 2.0 * (rng.unit() + 1.0) / 2.0
            } else {
                1.0
            };
            (14e6 * x.exp() * k) as i64
        })
        .collect()
}

/// Same-code pairs (one run or three a side, 300 to 3,000 frames) judge a
/// tail figure changed in at most 1% of the figures; on pairs whose hitches
/// doubled, the intervals of P99 and the 1% low cover the true change at
/// about their level (printed; `PACING_PAIRS=400` for the calibration's
/// numbers, in release).
#[test]
fn tail_figures_rarely_change_on_the_same_code_and_cover_a_real_change() {
    let pairs: usize = std::env::var("PACING_PAIRS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(24);
    let mut rng = Rng::new(42);
    let over_ns = 1e9 / 60.0;
    let (alpha, pct, ms) = (0.01, 5.0, 0.05);
    let (mut judged, mut changed) = (0usize, vec![0usize; FIGURES.len()]);
    let mut pairs_changed = 0;
    for k in 0..pairs {
        let n = [300, 600, 1200, 3000][k % 4];
        let runs = if k % 3 == 2 { 3 } else { 1 };
        let side = |rng: &mut Rng| -> Vec<Vec<i64>> {
            (0..runs).map(|_| simulated(rng, n / runs, 0.02)).collect()
        };
        let (a, b) = (side(&mut rng), side(&mut rng));
        let mut any = false;
        for (f, c) in judge_periods(&a, &b, over_ns, pct, ms, alpha)
            .iter()
            .enumerate()
        {
            judged += 1;
            let yes = c.effect.verdict.as_str() == "changed";
            changed[f] += usize::from(yes);
            any |= yes;
            if yes {
                eprintln!(
                    "false change: pair {k} ({n} frames, {runs} runs): {}",
                    c.words
                );
            }
        }
        pairs_changed += usize::from(any);
    }
    let total: usize = changed.iter().sum();
    eprintln!(
        "same code: {pairs_changed} of {pairs} pairs with a tail figure changed; {total} of \
         {judged} figures ({:.2}%); by figure {:?}",
        100.0 * total as f64 / judged as f64,
        FIGURES.iter().zip(&changed).collect::<Vec<_>>()
    );
    assert!(
        pairs_changed as f64 <= 0.01 * pairs as f64 + 1.0,
        "{pairs_changed} of {pairs} pairs: {changed:?}"
    );

    // Coverage: B's hitches 2% → 4%. The truth: each figure on 2M frames.
    let mut truth_rng = Rng::new(7);
    let big =
        |rng: &mut Rng, hitch: f64| tail_figures_of(&[simulated(rng, 2_000_000, hitch)], over_ns);
    let (ta, tb) = (big(&mut truth_rng, 0.02), big(&mut truth_rng, 0.04));
    let mut covered = [0usize; 2];
    let cover_pairs = pairs.max(8);
    for k in 0..cover_pairs {
        let n = [1200, 3000][k % 2];
        let a = vec![simulated(&mut rng, n, 0.02)];
        let b = vec![simulated(&mut rng, n, 0.04)];
        let changes = judge_periods(&a, &b, over_ns, pct, ms, alpha);
        for (slot, figure) in ["p99", "low_1pct"].iter().enumerate() {
            let f = FIGURES.iter().position(|x| x == figure).unwrap();
            let c = &changes[f];
            let truth = tb[f] - ta[f];
            // The interval printed is at its stated level (1 − α when changed
            // or inconclusive).
            if c.effect.ci_ns[0] <= truth && truth <= c.effect.ci_ns[1] {
                covered[slot] += 1;
            }
        }
    }
    eprintln!(
        "coverage over {cover_pairs} shifted pairs: P99 {:.1}%, 1% low {:.1}% (stated 98-99%)",
        100.0 * covered[0] as f64 / cover_pairs as f64,
        100.0 * covered[1] as f64 / cover_pairs as f64
    );
    for c in covered {
        assert!(
            c as f64 >= 0.85 * cover_pairs as f64,
            "{covered:?} of {cover_pairs}"
        );
    }
}

#[test]
fn pacing_takes_one_recording_two_or_runs_and_names_bad_arguments() {
    let dir = fixtures_dir();
    let a = "real/rerun_viewer_plots_a.puffin";
    let b = "real/rerun_viewer_plots_b.puffin";
    let (code, v) = json_in(&dir, &["pacing", a, "--vs", b, "--json"]);
    assert_eq!(code, 0);
    assert!(v["b"].is_object() && v["changes"].as_array().unwrap().len() == FIGURES.len());
    let out = common::run_in(&dir, &["pacing", a, a, a]);
    assert_eq!(common::code(&out), 2, "{}", common::stderr(&out));
    assert!(common::stderr(&out).contains("pacing FILE, pacing A B"));
    let out = common::run_in(&dir, &["pacing", a, "--budget", "0"]);
    assert_eq!(common::code(&out), 2);
    assert!(
        common::stderr(&out).contains("frame budget"),
        "{}",
        common::stderr(&out)
    );
    // The budget given is the one counted against.
    let (_, v) = json_in(&dir, &["pacing", a, "--budget", "300", "--json"]);
    assert_eq!(v["budget_source"], "given");
    assert_eq!(v["budget_ns"], 300e6);
    // One frame has no period: said, exit 1.
    let out = common::run_in(&dir, &["pacing", "real/rerun_sdk_twin_a.puffin"]);
    assert_eq!(common::code(&out), 1, "{}", common::stderr(&out));
    assert!(
        common::stderr(&out).contains("no frame period"),
        "{}",
        common::stderr(&out)
    );
    let text = String::from_utf8(common::run_in(&dir, &["pacing", a, b]).stdout).unwrap();
    assert!(
        text.contains("P99 ms") && text.contains("slow frames"),
        "{text}"
    );
}

/// One 40 ms frame in A does not make a change of every other frame
/// inconclusive: the report judges the typical frame and the tail apart.
/// (4 ms frames, +4 ms in every other one of B: +2 ms a frame, 50%, which
/// one run a side can tell past the documented run-to-run prior.)
#[test]
fn one_slow_frame_in_a_does_not_hide_a_change_of_every_other_frame() {
    let verdict_with = |outlier: bool| {
        let a = free_loop(600, 11, |i| {
            let mut w = vec![("update", 1.4), ("render", 1.4)];
            if outlier && i == 300 {
                w.push(("assets::load", 36.0));
            }
            w
        });
        let b = free_loop(600, 12, |i| {
            let mut w = vec![("update", 1.4), ("render", 1.4)];
            if i % 2 == 1 {
                w.push(("physics::step", 4.0));
            }
            w
        });
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.puffin"), record(&a)).unwrap();
        std::fs::write(dir.path().join("b.puffin"), record(&b)).unwrap();
        let (code, v) = json_in(
            dir.path(),
            &["report", "a.puffin", "b.puffin", "--format", "json"],
        );
        assert_eq!(code, 0);
        v
    };
    let (with, without) = (verdict_with(true), verdict_with(false));
    for v in [&with, &without] {
        let frame = &v["comparison"]["frame"];
        assert_eq!(frame["effect"]["verdict"], "changed", "{frame:#}");
        // B's slow frames are its odd ones, `physics::step` in each.
        let p = &v["comparison"]["pacing"];
        assert_eq!(
            p["b"]["slow_frames"]["culprits"][0]["part"],
            "physics::step"
        );
    }
    // A's worst frame is the 40 ms one.
    let a = &with["comparison"]["pacing"]["a"];
    assert!(
        a["worst"]["duration_ns"].as_i64().unwrap() > 38_000_000,
        "{a:#}"
    );
}

/// The tail gate on a planted pair: B's every 4th frame holds a 3.5 ms
/// `save::flush` (P99 14.4 → 17.9 ms, +24%). `pacing`, `compare` and
/// `report` exit 4 past a 10% limit, 0 under a 50% one, and the same code
/// twice passes; one recording is a usage error.
#[test]
fn the_tail_gate_fails_on_a_grown_p99_and_passes_the_same_code() {
    let work = |i: usize, stall: bool| {
        let mut w = vec![("update", 6.0), ("render", 7.0)];
        if stall && i % 4 == 3 {
            w.push(("save::flush", 3.5));
        }
        w
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("a.puffin"),
        record(&free_loop(800, 3, |i| work(i, false))),
    )
    .unwrap();
    std::fs::write(
        d.join("b.puffin"),
        record(&free_loop(800, 4, |i| work(i, true))),
    )
    .unwrap();
    std::fs::write(
        d.join("b2.puffin"),
        record(&free_loop(800, 5, |i| work(i, true))),
    )
    .unwrap();

    let (code, v) = json_in(
        d,
        &[
            "pacing",
            "a.puffin",
            "b.puffin",
            "--fail-on-p99",
            "10",
            "--json",
        ],
    );
    assert_eq!(code, 4, "{v:#}");
    let check = &v["gate"]["checks"][0];
    assert_eq!(check["figure"], "p99");
    assert_eq!(check["outcome"], "failed");
    // The limit is 10% of A's P99, and the whole interval is above it.
    let a_p99 = v["a"]["p99_ns"].as_f64().unwrap();
    assert!(
        (check["limit_ns"].as_f64().unwrap() - 0.1 * a_p99).abs() <= 1.0,
        "{check}"
    );
    assert!(check["ci_ns"][0].as_f64().unwrap() > check["limit_ns"].as_f64().unwrap());
    // The 1% low checked with it: both share alpha.
    let (code, v) = json_in(
        d,
        &[
            "pacing",
            "a.puffin",
            "b.puffin",
            "--fail-on-p99",
            "50",
            "--fail-on-low",
            "50",
            "--json",
        ],
    );
    assert_eq!(code, 0, "{v:#}");
    let checks = v["gate"]["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 2);
    assert!(
        checks.iter().all(|c| c["outcome"] == "passed"),
        "{checks:#?}"
    );
    assert!(checks.iter().all(|c| c["level"] == 0.995), "{checks:#?}");

    // compare and report read the same gate; the mean's gate is not asked.
    let out = common::run_in(
        d,
        &["compare", "a.puffin", "b.puffin", "--fail-on-p99", "10"],
    );
    assert_eq!(common::code(&out), 4, "{}", common::stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("tail gate: FAILED: P99"), "{text}");
    let out = common::run_in(
        d,
        &[
            "report",
            "a.puffin",
            "b.puffin",
            "--fail-on-p99",
            "10",
            "--format",
            "md",
        ],
    );
    assert_eq!(common::code(&out), 4, "{}", common::stderr(&out));
    assert!(common::stderr(&out).contains("tail gate: FAILED: P99"));
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains("**Tail gate: failed.**")
    );

    // The same code twice: passed.
    let out = common::run_in(
        d,
        &["compare", "b.puffin", "b2.puffin", "--fail-on-p99", "10"],
    );
    assert_eq!(
        common::code(&out),
        0,
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // One recording: nothing to gate against.
    let out = common::run_in(d, &["report", "a.puffin", "--fail-on-low", "10"]);
    assert_eq!(common::code(&out), 2);
    assert!(
        common::stderr(&out).contains("give B too"),
        "{}",
        common::stderr(&out)
    );
    let out = common::run_in(d, &["pacing", "a.puffin", "--fail-on-p99", "10"]);
    assert_eq!(common::code(&out), 2, "{}", common::stderr(&out));
}

/// A recording's headline leads with the frame period `pacing` counts (its
/// median and slowest frame), on every framed recording of the fixtures,
/// alone and as a side of a comparison.
#[test]
fn the_recording_headline_reads_the_period_pacing_counts() {
    let dir = fixtures_dir();
    let files = [
        "real/rerun_viewer_plots_a.puffin",
        "capture_PFD4.puffin",
        "twins/live_demo_hog.puffin",
    ];
    for file in files {
        let (_, p) = json_in(&dir, &["pacing", file, "--json"]);
        let (_, r) = json_in(&dir, &["report", file, "--format", "json"]);
        let (_, c) = json_in(&dir, &["report", file, file, "--format", "json"]);
        for rec in [&r["recordings"][0], &c["recordings"][1]] {
            let period = &rec["period"];
            assert_eq!(period["median_ns"], p["a"]["median_ns"], "{file}");
            assert_eq!(period["worst"], p["a"]["worst"], "{file}");
            assert_eq!(period["frames"], p["a"]["frames"], "{file}");
            let h = rec["headline"].as_str().unwrap();
            let median = format!(
                "median period {:.3} ms",
                p["a"]["median_ns"].as_f64().unwrap() / 1e6
            );
            assert!(h.contains(&median), "{file}: {h}");
            let worst = format!(
                "the slowest period {:.3} ms (frame {},",
                p["a"]["worst"]["duration_ns"].as_f64().unwrap() / 1e6,
                p["a"]["worst"]["frame_index"]
            );
            assert!(h.contains(&worst), "{file}: {h}");
        }
    }
}

/// With several runs a side each run's figures are given, each the figures
/// `pacing` gives of that run's file alone (one budget for all; the two
/// runs of the Rerun Viewer, whose frame thread is `main` alone and
/// together).
#[test]
fn each_run_has_its_own_figures_the_same_as_alone() {
    let dir = fixtures_dir();
    let runs = [
        "real/rerun_viewer_plots_a.puffin",
        "real/rerun_viewer_plots_b.puffin",
    ];
    let b = "capture_PFD4.puffin";
    let (code, v) = json_in(
        &dir,
        &[
            "pacing", runs[0], runs[1], "--vs", b, "--budget", "20", "--json",
        ],
    );
    assert_eq!(code, 0);
    let per_run = v["a"]["per_run"].as_array().unwrap();
    assert_eq!(per_run.len(), 2);
    assert!(
        v["b"].get("per_run").is_none(),
        "one run: the side's figures"
    );
    for (k, (run, file)) in per_run.iter().zip(runs).enumerate() {
        let (_, alone) = json_in(&dir, &["pacing", file, "--budget", "20", "--json"]);
        let a = &alone["a"];
        assert_eq!(run["run"], k + 1);
        for key in [
            "frames",
            "median_ns",
            "p95_ns",
            "p99_ns",
            "low_1pct_ns",
            "over_budget_share",
            "stutter_share",
            "worst",
        ] {
            assert_eq!(run[key], a[key], "{file}: {key}");
        }
    }
    let text =
        String::from_utf8(common::run_in(&dir, &["pacing", runs[0], runs[1], "--vs", b]).stdout)
            .unwrap();
    assert!(text.contains("A's runs, each on its own:"), "{text}");
}

/// A wait is a culprit of its own, named by the work it waits for: main's
/// `frame` dispatches `physics::solve` to a worker and waits for it; in B
/// every 5th solve takes 9 ms instead of 3, and those frames are slow by
/// the wait, not by `frame`'s own code.
#[test]
fn a_wait_is_traced_to_the_work_it_waits_for() {
    let looped = |n: usize, seed: u64, solve: &dyn Fn(usize) -> f64| -> Vec<Frame> {
        let mut rng = Rng::new(seed);
        let mut t = T0;
        (0..n)
            .map(|i| {
                let start = t;
                let update_end = start + rng.ns(4.0, 0.02);
                let mut frame =
                    Span::new("frame", start, start).child(Span::new("update", start, update_end));
                let go = update_end + rng.ns(0.05, 0.02);
                let done = go + rng.ns(solve(i), 0.02);
                let render = done + rng.ns(0.1, 0.02);
                let render_end = render + rng.ns(4.0, 0.02);
                frame = frame.child(Span::new("render", render, render_end));
                frame.end_ns = render_end;
                t = render_end + rng.ns(1.0, 0.02);
                vec![
                    ("main".to_owned(), vec![frame]),
                    (
                        "worker".to_owned(),
                        vec![Span::new("physics::solve", go, done)],
                    ),
                ]
            })
            .collect()
    };
    let a = looped(500, 11, &|_| 3.0);
    let b = looped(500, 12, &|i| if i % 5 == 2 { 9.0 } else { 3.0 });
    let v = pacing_pair(&a, &b);
    let slow = &v["b"]["slow_frames"];
    assert!(
        (99..=100).contains(&slow["frames"].as_u64().unwrap()),
        "{slow:#}"
    );
    let c = &slow["culprits"][0];
    assert_eq!(c["part"], "(waiting for physics::solve)", "{slow:#}");
    assert_eq!(c["kind"], "wait");
    assert_eq!(c["in_slow"], slow["frames"]);
    assert_eq!(c["in_typical"], 0);
    assert!(
        (c["excess_ns"].as_f64().unwrap() - 6e6).abs() < 0.3e6,
        "{c}"
    );
    // The frame's own code did not make them slow.
    assert!(
        slow["culprits"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["part"] != "frame" || c["excess_ns"].as_f64().unwrap() < 0.2e6),
        "{slow:#}"
    );
}
