//! The shape of a row through a run: its cost in each unit (frame, or
//! second) classed as **steady**, a **step** at a unit, a **trend** (growing
//! or shrinking, not levelling off), **periodic** (every Nth unit), a
//! **burst** (a few neighbouring units) or **scattered** slow units.
//!
//! The trend (Mann–Kendall over batch medians, Theil–Sen slope), the step
//! (the best split's Welch t against the band) and their widening for the
//! units' correlation: see docs/statistics.md, section "Shapes through a
//! run". When both hold, the line wins when it fits the batch medians better
//! and the run's last third still moves a third as fast (not levelling off);
//! else the step. A unit is slow above the median by more than
//! `max(HIT_SDS × robust spread, band)`; slow units are periodic, a burst or
//! scattered (`slow_shape`). Linear in the units but the `B²` Mann–Kendall
//! and Theil–Sen sums (`B ≤ 32`).

use super::basis::Units;
use super::effect::{lag_raw, median, robust_spread, t_cdf};
use crate::engine::model::Trace;
use crate::engine::write::escape::markdown_code;
use serde::Serialize;

/// Shorter series are not classed (steady).
pub const MIN_UNITS: usize = 24;
/// The trend and step tests' two-sided level.
pub const ALPHA: f64 = 0.01;
/// Slow units needed for a periodic, burst or scattered shape.
pub const MIN_HITS: usize = 5;
/// A slow unit exceeds the median by this many robust standard deviations.
pub const HIT_SDS: f64 = 6.0;
const MIN_BATCHES: usize = 8;
/// A trend's rise or a step's height must be this many robust standard
/// deviations of the units around the fit: a change one can see in the
/// series, not only one that is significant.
pub const VISIBLE: f64 = 2.0;
/// Burst or scattered slow units must hold this share of the series'
/// total in their excess over the median (a tail's share, `tail.rs`).
pub const SLOW_MIN_SHARE: f64 = 0.2;
/// Independent units (for lag-1 correlation φ, `n (1 − φ) / (1 + φ)`)
/// needed to class a trend or a step.
const MIN_INDEPENDENT: f64 = 16.0;
const MAX_BATCHES: usize = 32;

/// A row's shape through a run. Costs are per unit (ns); units count from
/// the run's first (0).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "shape", rename_all = "snake_case")]
pub enum Shape {
    Steady,
    /// From `unit` on the cost holds at another level.
    Step {
        unit: u32,
        before_ns: f64,
        after_ns: f64,
    },
    /// Grows (or shrinks) by `slope_ns` a unit, from `first_ns` to
    /// `last_ns` (the fitted line at the run's ends), not levelling off.
    Trend {
        slope_ns: f64,
        first_ns: f64,
        last_ns: f64,
    },
    /// Every `every`th unit (from `phase`) is slow: `hits` of `expected`,
    /// costing `slow_ns` (their median) against `typical_ns` (the series').
    Periodic {
        every: u32,
        phase: u32,
        hits: u32,
        expected: u32,
        slow_ns: f64,
        typical_ns: f64,
    },
    /// Units `first..=last` hold the slow units (`hits`).
    Burst {
        first: u32,
        last: u32,
        hits: u32,
        slow_ns: f64,
        typical_ns: f64,
    },
    /// `hits` slow units at irregular intervals.
    Scattered {
        hits: u32,
        slow_ns: f64,
        typical_ns: f64,
    },
}

impl Shape {
    pub fn is_steady(&self) -> bool {
        matches!(self, Shape::Steady)
    }

    /// `steady`, `step`, `trend`, `periodic`, `burst` or `scattered`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Shape::Steady => "steady",
            Shape::Step { .. } => "step",
            Shape::Trend { .. } => "trend",
            Shape::Periodic { .. } => "periodic",
            Shape::Burst { .. } => "burst",
            Shape::Scattered { .. } => "scattered",
        }
    }

    /// One phrase, `unit` the basis's ("frame" or "second") and `units` how
    /// many the run has: "grows 0.046 ms a frame, 0.300 → 3.000 ms, not
    /// levelling off"; "12.000 ms in every 10th frame (6 of 60), 0.000 ms
    /// otherwise".
    pub fn words(&self, unit: &str, units: usize) -> String {
        use crate::units::ms_f;
        match *self {
            Shape::Steady => "steady".to_owned(),
            Shape::Step {
                unit: at,
                before_ns,
                after_ns,
            } => format!(
                "steps {} at {unit} {at}: {} → {} ms a {unit}",
                if after_ns >= before_ns { "up" } else { "down" },
                ms_f(before_ns),
                ms_f(after_ns)
            ),
            Shape::Trend {
                slope_ns,
                first_ns,
                last_ns,
            } => format!(
                "{} {} ms a {unit}, {} → {} ms, not levelling off",
                if slope_ns >= 0.0 { "grows" } else { "shrinks" },
                ms_f(slope_ns.abs()),
                ms_f(first_ns),
                ms_f(last_ns)
            ),
            Shape::Periodic {
                every,
                hits,
                slow_ns,
                typical_ns,
                ..
            } => format!(
                "{} ms in every {} {unit} ({hits} of {units}), {} ms otherwise",
                ms_f(slow_ns),
                ordinal(every),
                ms_f(typical_ns)
            ),
            Shape::Burst {
                first,
                last,
                hits,
                slow_ns,
                typical_ns,
            } => format!(
                "a burst in {unit}s {first}-{last} ({hits} slow, {} ms against {} ms)",
                ms_f(slow_ns),
                ms_f(typical_ns)
            ),
            Shape::Scattered {
                hits,
                slow_ns,
                typical_ns,
            } => format!(
                "{hits} of {units} {unit}s slow at irregular intervals ({} ms against {} ms)",
                ms_f(slow_ns),
                ms_f(typical_ns)
            ),
        }
    }
}

/// How a row's shape differs between A and B, in words (`None` when both
/// are steady): "grows 0.046 ms a frame, … through B; steady in A". A shape
/// of both sides is said of both ("in both runs"): B's shape is new only
/// when A's series was steady.
pub fn compared_words(a: &Shape, b: &Shape, unit: &str, units: (usize, usize)) -> Option<String> {
    match (a.is_steady(), b.is_steady()) {
        (true, true) => None,
        (true, false) => Some(format!("{} through B; steady in A", b.words(unit, units.1))),
        (false, true) => Some(format!("{} through A; steady in B", a.words(unit, units.0))),
        // The same irregular slow units both ways say nothing of a change.
        (false, false) if a.as_str() == b.as_str() && matches!(a, Shape::Scattered { .. }) => None,
        (false, false) => Some(format!(
            "in both runs: {} through B; {} through A",
            b.words(unit, units.1),
            a.words(unit, units.0)
        )),
    }
}

/// Whether a name's shape `s` falls where the frames' shape `frame` does:
/// the same period and phase, a step within 2 units, a burst that
/// overlaps, a trend the same way.
pub fn same_moment(frame: &Shape, s: &Shape) -> bool {
    match (frame, s) {
        (
            &Shape::Periodic { every, phase, .. },
            &Shape::Periodic {
                every: e, phase: p, ..
            },
        ) => every == e && phase.abs_diff(p) <= (every / 10).max(1),
        (&Shape::Step { unit, .. }, &Shape::Step { unit: u, .. }) => unit.abs_diff(u) <= 2,
        (
            &Shape::Burst { first, last, .. },
            &Shape::Burst {
                first: f, last: l, ..
            },
        ) => first <= l && f <= last,
        (&Shape::Trend { slope_ns, .. }, &Shape::Trend { slope_ns: s, .. }) => {
            slope_ns.signum() == s.signum()
        }
        _ => false,
    }
}

/// The frames' shape in words, with the names that share it: "every 10th
/// frame is 2.1x the median (12.400 ms against 5.900 ms): `gc::sweep`".
pub fn frame_words(shape: &Shape, frames: usize, names: &[String]) -> String {
    let names: Vec<String> = names.iter().map(|n| markdown_code(n)).collect();
    let what = match *shape {
        Shape::Periodic {
            every,
            hits,
            slow_ns,
            typical_ns,
            ..
        } => format!(
            "every {} frame is {:.1}x the median ({} ms against {} ms; {hits} of {frames})",
            ordinal(every),
            slow_ns / typical_ns.max(1.0),
            crate::units::ms_f(slow_ns),
            crate::units::ms_f(typical_ns)
        ),
        _ => format!("the frame time {}", shape.words("frame", frames)),
    };
    if names.is_empty() {
        what
    } else {
        format!("{what}: {}", names.join(", "))
    }
}

/// "10th", "2nd", "3rd", "11th".
pub fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// Each of `names`' cost in each unit of `units` (the durations of its
/// calls summed by the unit they start in; a call directly inside a call of
/// the same name counts once, in the outer one). A name `t` lacks: all 0.
/// One pass over the scopes.
pub fn series_by_name(t: &Trace, units: &Units, names: &[&str]) -> Vec<Vec<f64>> {
    let mut out = vec![vec![0.0; units.count]; names.len()];
    for (slot, i) in super::super::common::calls_of_names(t, names) {
        let u = units.of_scope(t, i) as usize;
        if let Some(v) = out[slot].get_mut(u) {
            *v += t.scopes.duration_ns[i.idx()] as f64;
        }
    }
    out
}

/// The band a shape's change must clear: `max(pct % of the series' mean,
/// ms)` per unit.
pub fn band_ns(series: &[f64], pct: f64, ms: f64) -> f64 {
    let mean = series.iter().sum::<f64>() / series.len().max(1) as f64;
    super::effect::band_ns(mean, pct, ms)
}

/// The shape of `series` (a cost per unit, in order) against the band
/// `band_ns` (see the module doc).
pub fn classify(series: &[f64], band_ns: f64) -> Shape {
    if series.len() < MIN_UNITS || series.iter().any(|x| !x.is_finite()) {
        return Shape::Steady;
    }
    monotone(series, band_ns).unwrap_or_else(|| slow_shape(series, band_ns))
}

/// `series` with its step or trend taken out (each unit minus the fitted
/// shape, plus the fit's mean: the same mean), when it has one: what is
/// left is how the units vary around the shape, which is what a mean's
/// uncertainty is made of (a trend through B is B's cost, not noise in
/// it). `None` when the series is steady, periodic, a burst or scattered,
/// or its neighbouring units hardly correlate (lag-1 under 0.3: no shape
/// inflates its variance; the check that keeps this cheap).
pub fn detrended(series: &[f64], band_ns: f64) -> Option<Vec<f64>> {
    if series.len() < MIN_UNITS || lag_raw(series, 1) < 0.3 {
        return None;
    }
    fitted(&classify(series, band_ns), series.len()).map(|fit| around(series, &fit))
}

/// `series` minus `fit`, plus the fit's mean (the same mean, the shape
/// taken out).
fn around(series: &[f64], fit: &[f64]) -> Vec<f64> {
    let mean_fit = fit.iter().sum::<f64>() / fit.len().max(1) as f64;
    series
        .iter()
        .zip(fit)
        .map(|(x, f)| x - f + mean_fit)
        .collect()
}

/// The periodic slow units of `series` even when a step or trend is its
/// shape (looked for around the fitted shape): a stall every Nth frame in
/// frames that also grow. `None` when its slow units do not recur.
pub fn periodic(series: &[f64], band_ns: f64) -> Option<Shape> {
    if series.len() < MIN_UNITS || series.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let x = match monotone(series, band_ns) {
        Some(s) => around(series, &fitted(&s, series.len())?),
        None => series.to_vec(),
    };
    Some(slow_shape(&x, band_ns)).filter(|s| matches!(s, Shape::Periodic { .. }))
}

/// A step's or trend's fitted value in each of `n` units.
fn fitted(s: &Shape, n: usize) -> Option<Vec<f64>> {
    match *s {
        Shape::Trend {
            slope_ns, first_ns, ..
        } => Some((0..n).map(|k| first_ns + slope_ns * k as f64).collect()),
        Shape::Step {
            unit,
            before_ns,
            after_ns,
        } => {
            let mut fit = vec![after_ns; n];
            fit[..(unit as usize).min(n)].fill(before_ns);
            Some(fit)
        }
        _ => None,
    }
}

/// The shape of a series cut into runs (`run_starts`: each run's first unit
/// after the first): one run's shape when every run has the same kind of
/// shape (the first run's), steady otherwise (a shape seen in one run of
/// several is that run's, not the code's).
pub fn classify_runs(series: &[f64], run_starts: &[u32], band_ns: f64) -> Shape {
    if run_starts.is_empty() {
        return classify(series, band_ns);
    }
    let shapes: Vec<Shape> = super::effect::run_ranges(series.len(), run_starts)
        .map(|r| classify(&series[r], band_ns))
        .collect();
    match shapes.first() {
        Some(first) if shapes.iter().all(|s| s.as_str() == first.as_str()) => first.clone(),
        _ => Shape::Steady,
    }
}

/// Batch `k` of `b` over `n` units: `[start, end)`.
fn batch(k: usize, b: usize, n: usize) -> (usize, usize) {
    (k * n / b, (k + 1) * n / b)
}

/// The trend or step of `x`, when one is significant and past the band.
fn monotone(x: &[f64], band_ns: f64) -> Option<Shape> {
    let n = x.len();
    let b = (n / 3).clamp(MIN_BATCHES, MAX_BATCHES);
    let (meds, centers): (Vec<f64>, Vec<f64>) = (0..b)
        .map(|k| {
            let (lo, hi) = batch(k, b, n);
            (median(&mut x[lo..hi].to_vec()), (lo + hi - 1) as f64 / 2.0)
        })
        .unzip();
    let (slope, icpt) = theil_sen(&centers, &meds);
    let (s, t, left, right) = best_split(&meds, band_ns)?;
    // Each form is tested against the units' own correlation as its fit
    // leaves it ([`Corr`], from the residuals' first two lags, and the
    // batch residuals' own lag-1 read): the trend against the line's, the
    // step against the two levels'. What a right form leaves is the units'
    // noise; a wander leaves correlated residuals from every form, and too
    // few independent units class nothing.
    let cut = batch(s, b, n).0;
    let m = (n as f64 / b as f64).round().max(1.0) as usize;
    // A form holds when its rise (or height) clears the band and the units'
    // spread around its fit, enough units are independent, and its test
    // (`p` of the variance's widening) is significant: then the batch
    // residuals' absolute sum (how well it fits the batch medians).
    let holds = |unit_fit: &dyn Fn(usize) -> f64,
                 batch_fit: &dyn Fn(usize) -> f64,
                 rise: f64,
                 p: &dyn Fn(f64) -> f64| {
        let unit_resid: Vec<f64> = (0..n).map(|k| x[k] - unit_fit(k)).collect();
        let batch_resid: Vec<f64> = (0..b).map(|k| meds[k] - batch_fit(k)).collect();
        let c = Corr::of(&unit_resid);
        // The batch residuals' lag-1 read directly (`Corr`'s `ρ₁`): what
        // the units' model misses when each unit's own jitter hides a slow
        // wander (the batches average the jitter away).
        let widen = widening(c.batch_correlation(m).max(Corr::of(&batch_resid).rho1));
        let (_, spread) = robust_spread(&unit_resid);
        (rise.abs() > band_ns.max(VISIBLE * spread)
            && c.independent(n) >= MIN_INDEPENDENT
            && p(widen) < ALPHA)
            .then(|| batch_resid.iter().map(|r| r.abs()).sum::<f64>())
    };
    // A series of whole numbers (calls per frame) follows a line as the
    // line rounded: its stairs are the count's, not a wander.
    let whole = x.iter().all(|v| v.fract() == 0.0);
    let on_line = |k: f64| {
        let y = icpt + slope * k;
        if whole { y.round() } else { y }
    };
    // Each form that holds: its batch residuals' absolute sum.
    let trend = holds(
        &|k| on_line(k as f64),
        &|k| on_line(centers[k]),
        slope * (n - 1) as f64,
        &|widen| mann_kendall_p(&meds, widen),
    );
    let level = |k: usize, at: usize| if k < at { left } else { right };
    let step = holds(
        &|k| level(k, cut),
        &|k| level(k, s),
        right - left,
        &|widen| (2.0 * (1.0 - t_cdf(t / widen.sqrt(), (b - 2) as f64)) * (b - 3) as f64).min(1.0),
    );
    let as_step = || Shape::Step {
        unit: refine(x, batch(s - 1, b, n).0, batch(s, b, n).1, left, right) as u32,
        before_ns: left,
        after_ns: right,
    };
    let Some(trend) = trend else {
        return step.map(|_| as_step());
    };
    // The last third of the run still moving?
    let from = b - b / 3;
    let (tail_slope, _) = theil_sen(&centers[from..], &meds[from..]);
    let levels_off = tail_slope * slope.signum() < slope.abs() / 3.0;
    match step {
        Some(step) if levels_off || step <= trend => Some(as_step()),
        None if levels_off => None,
        _ => Some(Shape::Trend {
            slope_ns: slope,
            first_ns: icpt,
            last_ns: icpt + slope * (n - 1) as f64,
        }),
    }
}

/// Theil–Sen: the median of the pairwise slopes, and the median of
/// `y − slope·x` (a line through the bulk, robust to outliers).
fn theil_sen(x: &[f64], y: &[f64]) -> (f64, f64) {
    let n = x.len();
    let mut slopes = Vec::with_capacity(n * n.saturating_sub(1) / 2);
    for i in 0..n {
        for j in i + 1..n {
            let dx = x[j] - x[i];
            if dx != 0.0 {
                slopes.push((y[j] - y[i]) / dx);
            }
        }
    }
    if slopes.is_empty() {
        return (0.0, 0.0);
    }
    let slope = median(&mut slopes);
    let mut icpts: Vec<f64> = (0..n).map(|k| y[k] - slope * x[k]).collect();
    (slope, median(&mut icpts))
}

/// The units' correlation as a fit leaves it: `ρ(k) = ρ₁ φ^(k−1)`, an
/// AR(1) series (`ρ₁ = φ`) or one seen through independent noise (each
/// call's own jitter over a slowly wandering cost: `ρ₁ < φ`), read from
/// the residuals' first two lags (`φ = ρ₂ / ρ₁` when `ρ₁ ≥ 0.2`), with
/// Kendall's bias correction of `ρ₁`.
#[derive(Clone, Copy, Debug, Default)]
struct Corr {
    rho1: f64,
    phi: f64,
}

impl Corr {
    fn of(r: &[f64]) -> Corr {
        let n = r.len().max(1) as f64;
        let (r1, r2) = (lag_raw(r, 1), lag_raw(r, 2));
        if r1 <= 0.0 {
            return Corr::default();
        }
        let rho1 = (r1 + (1.0 + 4.0 * r1) / n).min(0.99);
        let phi = if rho1 >= 0.2 && r2 > 0.0 {
            (r2 / r1).clamp(rho1, 0.99)
        } else {
            rho1
        };
        Corr { rho1, phi }
    }

    fn rho(self, k: usize) -> f64 {
        if k == 0 {
            1.0
        } else {
            self.rho1 * libm::pow(self.phi, (k - 1) as f64)
        }
    }

    /// Independent units among `n`: `n / (1 + 2 Σ ρ(k))`.
    fn independent(self, n: usize) -> f64 {
        n as f64 / (1.0 + 2.0 * self.rho1 / (1.0 - self.phi).max(0.01))
    }

    /// The correlation of neighbouring means of `m` units.
    fn batch_correlation(self, m: usize) -> f64 {
        if self.rho1 <= 0.0 {
            return 0.0;
        }
        let var: f64 = m as f64 + 2.0 * (1..m).map(|k| (m - k) as f64 * self.rho(k)).sum::<f64>();
        let cov: f64 = (1..2 * m)
            .map(|d| d.min(2 * m - d) as f64 * self.rho(d))
            .sum();
        if var <= 0.0 {
            return 0.99;
        }
        (cov / var).clamp(0.0, 0.99)
    }
}

/// The widening of a variance for lag-1 correlation `r1`.
fn widening(r1: f64) -> f64 {
    (1.0 + r1) / (1.0 - r1)
}

/// Mann–Kendall's two-sided p-value for a monotone trend in `y`, with the
/// ties' correction and the variance widened by `widen`.
fn mann_kendall_p(y: &[f64], widen: f64) -> f64 {
    let n = y.len();
    let s: i64 = (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| y[j].total_cmp(&y[i]) as i64))
        .sum();
    let nf = n as f64;
    let mut var = nf * (nf - 1.0) * (2.0 * nf + 5.0) / 18.0;
    let mut sorted = y.to_vec();
    sorted.sort_by(f64::total_cmp);
    for ties in sorted.chunk_by(|a, b| a == b) {
        let t = ties.len() as f64;
        var -= t * (t - 1.0) * (2.0 * t + 5.0) / 18.0;
    }
    if var <= 0.0 || s == 0 {
        return 1.0;
    }
    let z = (s.unsigned_abs() as f64 - 1.0).max(0.0) / (var * widen).sqrt();
    libm::erfc(z / std::f64::consts::SQRT_2)
}

/// The split of `meds` (at least 2 batches a side) with the largest Welch
/// t: `(split, t, left median, right median)`, `t` that of the two sides
/// differing by more than `band_ns` (the interval clears the band, as a
/// row's change must).
fn best_split(meds: &[f64], band_ns: f64) -> Option<(usize, f64, f64, f64)> {
    let b = meds.len();
    if b < 4 {
        return None;
    }
    let (s, _) = (2..=b - 2)
        .map(|s| (s, welch_t(&meds[..s], &meds[s..], 0.0)))
        .reduce(|best, x| if x.1 > best.1 { x } else { best })?;
    let (l, r) = meds.split_at(s);
    let (left, right) = (median(&mut l.to_vec()), median(&mut r.to_vec()));
    Some((s, welch_t(l, r, band_ns), left, right))
}

/// Welch's t of how far the means of `r` and `l` differ beyond `band_ns`
/// (either way; 0 when neither varies and they are within it, large when
/// they differ past it without varying).
fn welch_t(l: &[f64], r: &[f64], band_ns: f64) -> f64 {
    let mv = |v: &[f64]| {
        let m = v.iter().sum::<f64>() / v.len() as f64;
        let var = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() - 1).max(1) as f64;
        (m, var / v.len() as f64)
    };
    let ((ml, vl), (mr, vr)) = (mv(l), mv(r));
    let se = (vl + vr).sqrt();
    let d = ((mr - ml).abs() - band_ns).max(0.0);
    if se > 0.0 {
        d / se
    } else if d == 0.0 {
        0.0
    } else {
        1e6
    }
}

/// The unit in `lo..=hi` from which `x` best matches `right` rather than
/// `left` (the least absolute error; the first on ties).
fn refine(x: &[f64], lo: usize, hi: usize, left: f64, right: f64) -> usize {
    let hi = hi.min(x.len());
    // Error with the step at `lo`: everything in lo..hi is `right`.
    let mut err: f64 = x[lo..hi].iter().map(|v| (v - right).abs()).sum();
    let (mut best, mut best_err) = (lo, err);
    for (k, v) in x.iter().enumerate().take(hi).skip(lo) {
        err += (v - left).abs() - (v - right).abs();
        if err < best_err {
            best = k + 1;
            best_err = err;
        }
    }
    best
}

/// The slow units of `x`: above its median by more than
/// `max(HIT_SDS × 1.4826 MAD, band_ns)`, in order (empty for an empty
/// series).
pub fn slow_units(x: &[f64], band_ns: f64) -> Vec<usize> {
    if x.is_empty() || x.iter().any(|v| !v.is_finite()) {
        return Vec::new();
    }
    let (typical, sd) = robust_spread(x);
    let over = (HIT_SDS * sd).max(band_ns);
    (0..x.len()).filter(|&k| x[k] - typical > over).collect()
}

/// Periodic, burst or scattered slow units, else steady.
fn slow_shape(x: &[f64], band_ns: f64) -> Shape {
    let n = x.len();
    let typical = median(&mut x.to_vec());
    let hits = slow_units(x, band_ns);
    if hits.len() < MIN_HITS.min(3) || hits.len() > n / 2 {
        return Shape::Steady;
    }
    let slow_ns = median(&mut hits.iter().map(|&k| x[k]).collect::<Vec<_>>());
    let count = hits.len() as u32;
    if hits.len() >= MIN_HITS {
        let gaps: Vec<usize> = hits.windows(2).map(|w| w[1] - w[0]).collect();
        let period =
            median(&mut gaps.iter().map(|&g| g as f64).collect::<Vec<_>>()).round() as usize;
        if period >= 2 {
            let slack = (period / 10).max(1);
            let regular = gaps
                .iter()
                .filter(|&&g| g.abs_diff(period) <= slack)
                .count();
            let phase = hits[0] % period;
            let expected: Vec<usize> = (phase..n).step_by(period).collect();
            let seen = expected
                .iter()
                .filter(|&&e| {
                    // A hit within the slack of `e` (`hits` ascending).
                    let k = hits.partition_point(|&h| h + slack < e);
                    hits.get(k).is_some_and(|&h| h <= e + slack)
                })
                .count();
            if regular * 5 >= gaps.len() * 4 && seen * 5 >= expected.len() * 4 {
                return Shape::Periodic {
                    every: period as u32,
                    phase: phase as u32,
                    hits: count,
                    expected: expected.len() as u32,
                    slow_ns,
                    typical_ns: typical,
                };
            }
        }
    }
    let total: f64 = x.iter().sum();
    let excess: f64 = hits.iter().map(|&k| x[k] - typical).sum();
    if excess < SLOW_MIN_SHARE * total {
        return Shape::Steady;
    }
    let (first, last) = (hits[0], hits[hits.len() - 1]);
    if (last - first + 1) * 10 <= n.max(10) {
        return Shape::Burst {
            first: first as u32,
            last: last as u32,
            hits: count,
            slow_ns,
            typical_ns: typical,
        };
    }
    if hits.len() >= 3 {
        return Shape::Scattered {
            hits: count,
            slow_ns,
            typical_ns: typical,
        };
    }
    Shape::Steady
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic jitter in [-1, 1] (SplitMix64).
    fn jitter(seed: u64, n: usize) -> Vec<f64> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let mut z = s;
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                z ^= z >> 31;
                (z >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
            })
            .collect()
    }

    fn noisy(n: usize, level: f64, rel: f64, seed: u64) -> Vec<f64> {
        jitter(seed, n)
            .into_iter()
            .map(|j| level * (1.0 + rel * j))
            .collect()
    }

    #[test]
    fn steady_noise_is_rarely_shaped() {
        // Each test's level is 1%: over 400 series at most 10 shapes
        // (P(X ≥ 11) < 0.5% for Binomial(400, 0.01)).
        let shaped: Vec<(u64, Shape)> = (0..400)
            .filter_map(|seed| {
                let x = noisy(40 + seed as usize % 100, 1e6, 0.1, seed);
                let s = classify(&x, band_ns(&x, 5.0, 0.05));
                (!s.is_steady()).then_some((seed, s))
            })
            .collect();
        assert!(shaped.len() <= 10, "{shaped:?}");
    }

    #[test]
    fn correlated_noise_is_rarely_shaped() {
        // AR(1) frames, from independent to a slow wander (φ 0.99, the
        // model of change's harness), 5% of the level: a wander is no
        // trend. 400 series a setting, at most 10 shaped (level 1%).
        let mut rng = 12345u64;
        let mut unit = move || {
            rng = rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = rng;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            (z >> 11) as f64 / (1u64 << 53) as f64
        };
        for (phi, n, white) in [
            (0.0, 60usize, 0.0),
            (0.5, 300, 0.0),
            (0.9, 300, 0.0),
            (0.99, 600, 0.0),
            (0.99, 60, 0.0),
            // A wander seen through each unit's own jitter.
            (0.99, 600, 0.03),
            (0.9, 300, 0.03),
        ] {
            let mut shaped = Vec::new();
            for _ in 0..400 {
                let mut e = 0.0f64;
                let x: Vec<f64> = (0..n)
                    .map(|_| {
                        let (u1, u2) = (unit().max(1e-300), unit());
                        let g = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                        e = phi * e + (1.0f64 - phi * phi).sqrt() * g;
                        let w = if white > 0.0 {
                            let (u3, u4) = (unit().max(1e-300), unit());
                            (-2.0 * u3.ln()).sqrt() * (std::f64::consts::TAU * u4).cos()
                        } else {
                            0.0
                        };
                        1e6 * (1.0 + 0.05 * e + white * w)
                    })
                    .collect();
                let s = classify(&x, band_ns(&x, 5.0, 0.05));
                if !s.is_steady() {
                    shaped.push(s);
                }
            }
            assert!(shaped.len() <= 10, "φ {phi}, {n} units: {shaped:?}");
        }
    }

    #[test]
    fn a_burst_is_a_few_neighbouring_units() {
        let mut x = noisy(100, 1e6, 0.05, 7);
        for v in &mut x[40..45] {
            *v += 20e6;
        }
        assert_eq!(
            classify(&x, band_ns(&x, 5.0, 0.05)).as_str(),
            "burst",
            "{:?}",
            classify(&x, 0.0)
        );
    }

    #[test]
    fn words() {
        let t = Shape::Trend {
            slope_ns: 46_000.0,
            first_ns: 0.3e6,
            last_ns: 3.0e6,
        };
        assert_eq!(
            t.words("frame", 60),
            "grows 0.046 ms a frame, 0.300 → 3.000 ms, not levelling off"
        );
        let p = Shape::Periodic {
            every: 10,
            phase: 3,
            hits: 6,
            expected: 6,
            slow_ns: 12e6,
            typical_ns: 0.0,
        };
        assert_eq!(
            p.words("frame", 60),
            "12.000 ms in every 10th frame (6 of 60), 0.000 ms otherwise"
        );
    }

    #[test]
    fn short_or_broken_series_are_steady() {
        assert_eq!(classify(&[1.0; 10], 0.0), Shape::Steady);
        assert_eq!(classify(&[], 0.0), Shape::Steady);
        let mut x = vec![1.0; 50];
        x[3] = f64::NAN;
        assert_eq!(classify(&x, 0.0), Shape::Steady);
        assert_eq!(classify(&[0.0; 50], 0.0), Shape::Steady);
    }
}
