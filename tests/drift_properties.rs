//! The drift's property (issue 42): drift correction never hides a change
//! larger than the spread of the other scopes, and the gate never trips on
//! drift alone.
//!
//! Each case is a pair written with the engine's puffin writer: a `tick`
//! wrapper per frame (its own time a lead before its children) around 6-9
//! busy leaves, each called the same number of times per frame on both
//! sides (so counts never change), with its own base duration (2 µs to 2
//! ms) and per-call jitter (up to ±20%). B is A times a drift factor in
//! [0.7, 1.4], each scope off it by at most [`MAX_DEV`] (the scopes "moved
//! together"); in half the cases one leaf also changes by a factor whose
//! log exceeds the others' spread plus the noise percentage by a margin.
//!
//! B's calls are A's jitter draws in another order (the same calls: what
//! differs between the runs is the drift and the per-scope deviation
//! only), or fresh draws. With fresh draws an unchanged row also differs by
//! sampling noise, which the rank test calls a change at its alpha: only
//! the estimate and the planted change are asserted then.
//!
//! The wrapper's own time stays small (2-50 µs a frame). With it up to 3
//! ms, the property found the gate listing the wrapper as a cause; the
//! gate's own-time rule now also asks for the noise percentage, and the
//! test at the end keeps that case.

use proptest::prelude::*;
use puffin_lens::engine::analyses::gate::{Gate, GateResult};
use puffin_lens::engine::analyses::judge::{DEFAULT_NOISE_MS, DEFAULT_NOISE_PCT, Kind};
use puffin_lens::engine::analyses::{CompareOptions, Noise, compare};
use puffin_lens::engine::report::{Report, ReportOptions};
use puffin_lens::engine::write::puffin::{
    Compression, Format, FrameData, Registration, ScopeNode, ThreadData, write_recording,
};
use puffin_lens::engine::{self, Decoded};

/// How far (in log) a scope's own factor may be off the drift.
const MAX_DEV: f64 = 0.01;
/// Per-call jitter: uniform in ±this (relative).
const MAX_JITTER: f64 = 0.2;
/// The change's margin over the others' spread plus the noise percentage
/// (in log): room for the sampling error of the typical call and for how
/// far it wanders between fifths of a capture at [`MAX_JITTER`].
const MARGIN: f64 = 0.1;
const T0: i64 = 1_800_000_000_000_000_000;
const TICK: u32 = 1;

#[derive(Clone, Debug)]
struct Leaf {
    base_ns: i64,
    calls_per_frame: u32,
    jitter: f64,
    /// Its own factor's log off the drift.
    dev: f64,
}

#[derive(Clone, Debug)]
struct Case {
    frames: usize,
    /// The wrapper's own time per call, its deviation from the drift.
    tick_ns: i64,
    tick_dev: f64,
    leaves: Vec<Leaf>,
    drift: f64,
    /// (leaf, log of its extra factor).
    change: Option<(usize, f64)>,
    /// B's calls draw fresh jitter; otherwise they are A's draws in another
    /// order (the same calls, no sampling noise between the runs).
    fresh: bool,
    seed: u64,
}

/// SplitMix64: the per-call jitter, reproducible from the case's seed.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [-1, 1).
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }

    /// `n` draws of [`Self::unit`].
    fn units(&mut self, n: usize) -> Vec<f64> {
        (0..n).map(|_| self.unit()).collect()
    }

    /// `v` in a random order (Fisher-Yates).
    fn shuffle(&mut self, v: &mut [f64]) {
        for k in (1..v.len()).rev() {
            v.swap(k, (self.next_u64() % (k as u64 + 1)) as usize);
        }
    }
}

fn leaf() -> impl Strategy<Value = Leaf> {
    // Scopes under and over the noise's milliseconds per frame.
    let base_ns = prop_oneof![2_000i64..20_000, 20_000i64..2_000_000];
    (base_ns, 1u32..4, 0.0..MAX_JITTER, -MAX_DEV..MAX_DEV).prop_map(
        |(base_ns, calls_per_frame, jitter, dev)| Leaf {
            base_ns,
            calls_per_frame,
            jitter,
            dev,
        },
    )
}

fn case() -> impl Strategy<Value = Case> {
    let threshold = (1.0 + DEFAULT_NOISE_PCT / 100.0).ln();
    // Larger than the others' spread (the drift estimate is within MAX_DEV
    // of the drift, each other scope within MAX_DEV of it), the noise
    // percentage and the margin.
    let least = threshold + 2.0 * MAX_DEV + MARGIN;
    (
        60usize..90,
        2_000i64..50_000,
        -MAX_DEV..MAX_DEV,
        prop::collection::vec(leaf(), 6..10),
        0.7f64..1.4,
        prop::option::of((any::<prop::sample::Index>(), least..0.7, any::<bool>())),
        any::<bool>(),
        any::<u64>(),
    )
        .prop_map(
            move |(frames, tick_ns, tick_dev, mut leaves, drift, change, fresh, seed)| {
                let change = change.map(|(k, log, slower)| {
                    (k.index(leaves.len()), if slower { log } else { -log })
                });
                if let Some((k, log)) = change {
                    // The change per frame is also past the noise's
                    // milliseconds, twice over: a change of a few ns per
                    // frame is noise by that rule, not hidden by the drift.
                    let l = &mut leaves[k];
                    let per_call = 0.7 * (-MAX_DEV).exp() * (1.0 - (-log.abs()).exp());
                    let least_ns = 2.0 * DEFAULT_NOISE_MS * 1e6
                        / (per_call * f64::from(l.calls_per_frame) * (1.0 - MAX_JITTER));
                    l.base_ns = l.base_ns.max(least_ns.ceil() as i64);
                }
                Case {
                    frames,
                    tick_ns,
                    tick_dev,
                    change,
                    leaves,
                    drift,
                    fresh,
                    seed,
                }
            },
        )
}

fn leaf_id(k: usize) -> u32 {
    TICK + 1 + k as u32
}

fn leaf_name(k: usize) -> String {
    format!("leaf_{k}")
}

/// A side's recording (B when `b`), and each scope's own time summed with
/// its calls: (tick, leaves).
fn side(c: &Case, b: bool) -> (Decoded, Vec<(u64, f64)>) {
    // Each leaf's jitter draws, one a call: A's, and B's fresh or A's
    // shuffled.
    let draws: Vec<Vec<f64>> = c
        .leaves
        .iter()
        .enumerate()
        .map(|(k, l)| {
            let n = c.frames * l.calls_per_frame as usize;
            let mut a = Rng(c.seed ^ ((k as u64) << 8));
            let mut v = a.units(n);
            if b {
                let mut rb = Rng(c.seed ^ ((k as u64) << 8) ^ 0xB);
                if c.fresh {
                    v = rb.units(n);
                } else {
                    rb.shuffle(&mut v);
                }
            }
            v
        })
        .collect();
    let mut next = vec![0usize; c.leaves.len()];
    let factor = |dev: f64, extra: f64| {
        if b {
            c.drift * (dev + extra).exp()
        } else {
            1.0
        }
    };
    let extra = |k: usize| match c.change {
        Some((j, log)) if j == k => log,
        _ => 0.0,
    };
    let mut own = vec![(0u64, 0.0f64); c.leaves.len() + 1];
    let mut t = T0;
    let mut frames = Vec::with_capacity(c.frames);
    for f in 0..c.frames {
        let lead = (c.tick_ns as f64 * factor(c.tick_dev, 0.0)).round() as i64;
        own[0].0 += 1;
        own[0].1 += lead as f64;
        let mut tick = ScopeNode::new(TICK, t, t);
        let mut at = t + lead;
        for (k, l) in c.leaves.iter().enumerate() {
            for _ in 0..l.calls_per_frame {
                let d = (l.base_ns as f64
                    * factor(l.dev, extra(k))
                    * (1.0 + l.jitter * draws[k][next[k]]))
                    .round()
                    .max(1.0) as i64;
                next[k] += 1;
                own[k + 1].0 += 1;
                own[k + 1].1 += d as f64;
                tick = tick.child(ScopeNode::new(leaf_id(k), at, at + d));
                at += d;
            }
        }
        tick.stop_ns = at;
        frames.push(FrameData {
            frame_index: f as u64,
            threads: vec![ThreadData {
                name: "main".into(),
                start_time_ns: Some(T0),
                scopes: vec![tick],
            }],
            registrations: if f == 0 {
                std::iter::once(Registration::named(
                    TICK,
                    "tick",
                    "app::tick",
                    "src/app.rs",
                    1,
                ))
                .chain((0..c.leaves.len()).map(|k| {
                    Registration::named(
                        leaf_id(k),
                        &leaf_name(k),
                        "app::work",
                        "src/work.rs",
                        10 + k as u32,
                    )
                }))
                .collect()
            } else {
                Vec::new()
            },
        });
        // The next frame after a short pause.
        t = at + 10_000;
    }
    let bytes = write_recording(&frames, Format::Pfd4(Compression::Lz4));
    (engine::load(&bytes).expect("decodes"), own)
}

/// Each scope's realised ratio of B's own time per call over A's: (tick,
/// leaves).
fn ratios(a: &[(u64, f64)], b: &[(u64, f64)]) -> Vec<f64> {
    a.iter()
        .zip(b)
        .map(|(a, b)| (b.1 / b.0 as f64) / (a.1 / a.0 as f64))
        .collect()
}

/// A strict gate: `--fail-on-regression 0.5`.
const GATE: Gate = Gate {
    pct: 0.5,
    min_ms: 0.0,
    drift_pct: None,
};

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn drift_hides_no_change_and_never_trips_the_gate(c in case()) {
        let ((da, own_a), (db, own_b)) = (side(&c, false), side(&c, true));
        let r = ratios(&own_a, &own_b);
        let changed = c.change.map(|(k, _)| k + 1);
        // The scopes that only drifted, and their realised spread.
        let others: Vec<f64> = r
            .iter()
            .enumerate()
            .filter(|(k, _)| Some(*k) != changed)
            .map(|(_, x)| *x)
            .collect();
        let lo = others.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = others.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let report = Report::new(
            ("a", &da),
            Some(("b", &db)),
            ReportOptions { top: 1_000, gate: Some(GATE), ..Default::default() },
        );
        let rep = report.comparison.as_ref().expect("a comparison");
        let rounding = 1e-3; // the factor has four significant digits
        let tripped = |g: &Option<GateResult>| -> Vec<String> {
            g.as_ref().expect("gated").tripped.iter().map(|t| t.name.clone()).collect()
        };
        let may_trip: Vec<String> = c.change.map(|(k, _)| leaf_name(k)).into_iter().collect();
        // The CLI's thresholds, and the same without the milliseconds
        // floor: the percentage and the test alone hold drift apart.
        for noise in [Noise::default(), Noise { ms: 0.0, ..Noise::default() }] {
            let opts = CompareOptions { top: usize::MAX, noise, ..Default::default() };
            let cmp = compare(&da.trace, &db.trace, &opts, Some(&GATE));

            // Every busy scope voted, and the estimate lies within the
            // realised ratios of the scopes that only drifted (one changed
            // scope cannot pull it out), so within their deviation of the
            // true factor.
            let d = cmp.drift.as_ref().expect("an estimate from busy scopes");
            prop_assert_eq!(rep.drift.as_ref(), Some(d));
            prop_assert_eq!(d.scopes_used, c.leaves.len() + 1, "{:?}", d);
            prop_assert!(
                d.factor >= lo * (1.0 - rounding) && d.factor <= hi * (1.0 + rounding),
                "drift {} outside the others' realised ratios {}..{}", d.factor, lo, hi
            );
            let off = others.iter().map(|x| (x / c.drift).ln().abs()).fold(0.0, f64::max);
            prop_assert!(
                (d.factor / c.drift).ln().abs() <= off + rounding,
                "drift {} vs true {} (others within {:.4} in log)", d.factor, c.drift, off
            );
            // Named only when its interval clears the noise percentage.
            prop_assert!(!d.named || d.pct.abs() > noise.pct, "{:?}", d);

            prop_assert!(!cmp.gate.as_ref().unwrap().drift_tripped);
            // With fresh draws for B (see the module's comment), only the
            // estimate and the planted change are asserted.
            if !c.fresh {
                // The gate trips on the changed leaf at most: never on
                // drift, never on the wrapper whose change is its child's.
                for names in [tripped(&cmp.gate), tripped(&rep.gate)] {
                    prop_assert!(
                        names.iter().all(|n| may_trip.contains(n)),
                        "tripped {:?} ({:?}, {:?})", names, c.change, noise
                    );
                }
                // Rows judged a change: only the changed leaf and its
                // wrapper.
                for row in &cmp.rows {
                    let allowed = c
                        .change
                        .is_some_and(|(k, _)| row.name == leaf_name(k) || row.name == "tick");
                    prop_assert!(
                        !row.change.kind.is_change() || allowed,
                        "{} judged {:?} on drift alone ({:?}): {:?}",
                        row.name, row.change.kind, noise, row.change
                    );
                }
            }
            match c.change {
                None if c.fresh => {}
                None => {
                    prop_assert_eq!(cmp.changed_rows, 0);
                    prop_assert!(rep.changes.is_empty(), "{:?}", rep.changes);
                    prop_assert!(cmp.gate.as_ref().unwrap().tripped.is_empty());
                }
                Some((k, log)) => {
                    // Judged beyond the drift, in the table and in the
                    // report, with the planted sign.
                    let want = if log > 0.0 { Kind::Slower } else { Kind::Faster };
                    let name = leaf_name(k);
                    let row = cmp.rows.iter().find(|x| x.name == name).expect("a row");
                    prop_assert_eq!(row.change.kind, want, "{:?} ({:?})", row, noise);
                    prop_assert!(row.change.beyond_drift_ns().signum() == log.signum(), "{:?}", row.change);
                    let in_report = rep.rows.iter().find(|x| x.name == name).map(|x| x.change.kind);
                    prop_assert_eq!(in_report, Some(want));
                }
            }
        }
    }
}

/// The case the property found with the wrapper's own time up to 3 ms:
/// `tick` owns 1.45 ms a frame, 0.93% off the drift (within the noise
/// percentage), around a leaf 18% slower beyond it. The gate lists `tick`
/// as a cause with the leaf: its total moved past the limit (its child's
/// change) and so did its own time in ns (0.93% of 2 ms, 19 µs against the
/// strict gate's 13 µs), though its own time moved with the drift. The
/// gate's own-time rule now also asks for the noise percentage of the
/// wrapper's own time (it failed before it did).
#[test]
fn a_wrapper_whose_own_time_only_drifted_is_not_a_cause() {
    let small = Leaf {
        base_ns: 2_000,
        calls_per_frame: 1,
        jitter: 0.0,
        dev: 0.0,
    };
    let mut leaves = vec![small; 6];
    leaves[0] = Leaf {
        base_ns: 1_161_301,
        calls_per_frame: 1,
        jitter: 0.054,
        dev: 0.0,
    };
    let c = Case {
        frames: 60,
        tick_ns: 1_445_135,
        tick_dev: 0.0093,
        leaves,
        drift: 1.3918,
        change: Some((0, 0.1688)),
        fresh: false,
        seed: 0,
    };
    let ((da, _), (db, _)) = (side(&c, false), side(&c, true));
    let opts = CompareOptions {
        top: usize::MAX,
        ..Default::default()
    };
    let cmp = compare(&da.trace, &db.trace, &opts, Some(&GATE));
    let tripped: Vec<&str> = cmp
        .gate
        .as_ref()
        .unwrap()
        .tripped
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(tripped, ["leaf_0"], "{:#?}", cmp.gate);
}
