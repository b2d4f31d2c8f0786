//! The A/A harness of the model of change (docs/statistics.md): generated
//! pairs of recordings of the same code (or with one planted change), on
//! fixed seeds, judged by the engine's own path (the drift estimated from
//! the rows' sums, every row judged as one family, the gate), and counted.
//! `tests/calibration.rs` asserts the rates; `cargo bench --bench
//! calibration` prints them per setting.

use puffin_lens::engine::analyses::{
    drift,
    effect::Verdict,
    gate::{Gate, Own},
    judge::{Change, Kind, Noise, Sample, judge_rows},
    shape::{self, Shape},
};

/// One setting of the harness.
#[derive(Clone, Copy, Debug)]
pub struct Setting {
    pub name: &'static str,
    /// Rows (scope names) of the app.
    pub rows: usize,
    /// Frames of each run.
    pub frames: usize,
    /// Runs a side.
    pub runs: usize,
    /// Each row's own run-to-run spread: the sd of the log ratio between
    /// one run of A and one of B (each run draws `tau / √2`).
    pub tau: f64,
    /// AR(1) coefficient of each row's cost through a run.
    pub phi: f64,
    /// B's drift (log) and each run's own drift around its side's (sd, log).
    pub drift: f64,
    pub drift_sd: f64,
    /// Calls a frame: `Few` is one call in every 10th frame for half the
    /// rows; `Huge` 500 tiny calls a frame for half the rows.
    pub calls: Calls,
    /// The planted change of row 0 in B (0.10: 10% slower per call); 0 for
    /// an A/A pair.
    pub planted: f64,
    /// How much a row's cost varies from frame to frame (log sd; each call
    /// varies 3% more on its own).
    pub frame_cv: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Calls {
    Normal,
    Few,
    Huge,
}

impl Setting {
    pub const fn aa(name: &'static str) -> Self {
        Self {
            name,
            rows: 30,
            frames: 300,
            runs: 1,
            tau: 0.0,
            phi: 0.0,
            drift: 0.0,
            drift_sd: 0.0,
            calls: Calls::Normal,
            planted: 0.0,
            frame_cv: 0.05,
        }
    }
}

/// What one comparison gave.
#[derive(Clone, Copy, Debug, Default)]
pub struct Outcome {
    /// Rows judged (the planted row apart).
    pub rows: usize,
    /// Of those, judged changed (a false change) or inconclusive.
    pub changed: usize,
    pub inconclusive: usize,
    /// The gate (2% of the frame) failed, or was inconclusive.
    pub gate_failed: bool,
    pub gate_inconclusive: bool,
    /// The planted row was judged changed, slower.
    pub found: bool,
    /// Row-sides classed over time (the A/A rows of both sides), and of
    /// those, claimed a trend, a step, a stall every Nth frame
    /// (`analyses::shape`) the other side of the row lacks: false claims,
    /// the code being the same.
    pub sides: usize,
    pub trend: usize,
    pub step: usize,
    pub periodic: usize,
}

/// A small deterministic generator (splitmix64) with normal draws.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn uniform(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    pub fn normal(&mut self) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

/// One side of the pair: each row's sample over `runs` runs.
fn side(
    s: &Setting,
    rng: &mut Rng,
    per_call_ns: &[f64],
    calls: &[(u32, u32)],
    side_drift: f64,
    planted: f64,
) -> Vec<Sample> {
    let frames = s.frames * s.runs;
    let mut out: Vec<Sample> = (0..s.rows)
        .map(|_| Sample {
            frames,
            run_starts: (1..s.runs).map(|r| (r * s.frames) as u32).collect(),
            ..Default::default()
        })
        .collect();
    for r in 0..s.runs {
        let run_drift = side_drift + s.drift_sd * rng.normal();
        for (i, sample) in out.iter_mut().enumerate() {
            let row_effect = s.tau / std::f64::consts::SQRT_2 * rng.normal();
            let change = if i == 0 { (1.0 + planted).ln() } else { 0.0 };
            let scale = per_call_ns[i] * (run_drift + row_effect + change).exp();
            let (every, n) = calls[i];
            let mut z = rng.normal();
            for f in 0..s.frames {
                z = s.phi * z + (1.0 - s.phi * s.phi).sqrt() * rng.normal();
                if !(f as u32).is_multiple_of(every) {
                    continue;
                }
                let frame = s.frame_cv * z;
                for _ in 0..n {
                    let d = scale * (frame + 0.03 * rng.normal()).exp();
                    sample.durations_ns.push(d.round().max(1.0) as i64);
                }
                sample.calls_in_frames.push(n);
                sample.frame_units.push((r * s.frames + f) as u32);
            }
        }
    }
    out
}

fn sums(s: &Sample) -> drift::Side {
    drift::Side {
        count: s.durations_ns.len() as u64,
        self_ns: s.durations_ns.iter().sum(),
    }
}

/// Generates one pair of `s` from `seed` and judges it.
pub fn run(s: &Setting, seed: u64) -> Outcome {
    let mut rng = Rng::new(seed);
    // Per-call costs from 20 us to 2 ms, log-uniform; 1 to 4 calls a frame.
    let mut per_call_ns: Vec<f64> = Vec::new();
    let mut calls: Vec<(u32, u32)> = Vec::new();
    for i in 0..s.rows {
        let odd = i % 2 == 1;
        let (cost, c) = match s.calls {
            Calls::Few if odd => ((20e3f64.ln() + rng.uniform() * 100f64.ln()).exp(), (10, 1)),
            Calls::Huge if odd => (2e3 + 3e3 * rng.uniform(), (1, 500)),
            _ => (
                (20e3f64.ln() + rng.uniform() * 100f64.ln()).exp(),
                (1, 1 + (rng.next_u64() % 4) as u32),
            ),
        };
        // The row a change is planted in: 1 ms a call, twice a frame (a
        // row whose 5-20% change is past the band's milliseconds).
        let (cost, c) = if i == 0 { (1e6, (1, 2)) } else { (cost, c) };
        per_call_ns.push(cost);
        calls.push(c);
    }
    let a = side(s, &mut rng, &per_call_ns, &calls, 0.0, 0.0);
    let b = side(s, &mut rng, &per_call_ns, &calls, s.drift, s.planted);
    let names: Vec<String> = (0..s.rows).map(|i| format!("row{i}")).collect();
    let estimate = drift::estimate(
        names
            .iter()
            .zip(a.iter().zip(&b))
            .map(|(n, (x, y))| (n.as_str(), sums(x), sums(y))),
        Noise::default().pct,
        Noise::default().alpha,
        Noise::default().tau,
    );
    let mut noise = Noise::default().with_drift(estimate.as_ref());
    let changes: Vec<Change> = judge_rows(&a, &b, &mut noise);
    let mut out = Outcome::default();
    for (i, c) in changes.iter().enumerate() {
        if i == 0 && s.planted != 0.0 {
            out.found = c.effect.verdict == Verdict::Changed && c.effect.delta_ns > 0.0;
            continue;
        }
        out.rows += 1;
        match c.effect.verdict {
            Verdict::Changed => out.changed += 1,
            Verdict::Inconclusive => out.inconclusive += 1,
            Verdict::Unchanged => {}
        }
    }
    // The gate at 2% of A's frame (every row a leaf: its own time is its
    // time), over the A/A rows only.
    let frame_a: f64 = a
        .iter()
        .map(|x| x.durations_ns.iter().sum::<i64>() as f64 / x.frames as f64)
        .sum();
    let gate = Gate {
        pct: 2.0,
        min_ms: 0.0,
        drift_pct: None,
    };
    let skip = usize::from(s.planted != 0.0);
    let result = gate.check(
        frame_a,
        estimate.as_ref(),
        noise.alpha,
        names.iter().zip(&changes).skip(skip).map(|(n, c)| {
            (
                n.as_str(),
                None,
                c,
                Own {
                    beyond_drift_ns: c.beyond_drift_ns(),
                    expected_ns: 0.0,
                    noise_pct: noise.pct,
                },
            )
        }),
    );
    // Each A/A row's series through each side's run, classed as the report
    // classes it. A shape is claimed when one side has it and the other
    // not (a row called every 10th frame in both is periodic in both: true
    // of the code, and no change), counted on the side that has it.
    for (x, y) in a.iter().zip(&b).skip(skip) {
        let class = |s: &Sample| {
            let series = s.cost_series();
            let band = shape::band_ns(&series, noise.pct, noise.ms);
            shape::classify_runs(&series, &s.run_starts, band)
        };
        let (sa, sb) = (class(x), class(y));
        out.sides += 2;
        if sa.as_str() == sb.as_str() {
            continue;
        }
        for s in [sa, sb] {
            match s {
                Shape::Trend { .. } => out.trend += 1,
                Shape::Step { .. } => out.step += 1,
                Shape::Periodic { .. } => out.periodic += 1,
                _ => {}
            }
        }
    }
    out.gate_failed = result.failed();
    out.gate_inconclusive = result.is_inconclusive();
    debug_assert!(changes.iter().all(|c| c.kind != Kind::New));
    out
}

/// A setting's rates over `pairs` seeds from `seed0`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Rates {
    pub pairs: usize,
    pub rows: usize,
    pub false_change: f64,
    pub inconclusive: f64,
    pub gate_false_trip: f64,
    pub gate_inconclusive: f64,
    pub power: f64,
    /// Per row-side: false trend, step and periodic claims.
    pub sides: usize,
    pub false_trend: f64,
    pub false_step: f64,
    pub false_periodic: f64,
}

pub fn rates(s: &Setting, seed0: u64, pairs: usize) -> Rates {
    let mut r = Rates {
        pairs,
        ..Default::default()
    };
    let (mut changed, mut inconclusive, mut trips, mut gate5, mut found) = (0, 0, 0, 0, 0);
    let (mut trend, mut step, mut periodic) = (0, 0, 0);
    for k in 0..pairs as u64 {
        let o = run(s, seed0.wrapping_mul(1_000_003).wrapping_add(k));
        r.rows += o.rows;
        changed += o.changed;
        inconclusive += o.inconclusive;
        trips += usize::from(o.gate_failed);
        gate5 += usize::from(o.gate_inconclusive);
        found += usize::from(o.found);
        r.sides += o.sides;
        trend += o.trend;
        step += o.step;
        periodic += o.periodic;
    }
    let per = |x: usize, n: usize| x as f64 / n.max(1) as f64;
    r.false_change = per(changed, r.rows);
    r.inconclusive = per(inconclusive, r.rows);
    r.gate_false_trip = per(trips, pairs);
    r.gate_inconclusive = per(gate5, pairs);
    r.power = per(found, pairs);
    r.false_trend = per(trend, r.sides);
    r.false_step = per(step, r.sides);
    r.false_periodic = per(periodic, r.sides);
    r
}
