//! One model of change: every judged row is an **effect with an interval**,
//! judged against a band. `compare`, `calls A B`, the report, the tree's
//! diff, the gaps, the frame and the gate all read it from here.
//!
//! ## The effect
//!
//! A row's cost per basis unit (a frame, or a second on the `second` basis)
//! is its time in that unit, 0 in a unit without it. Its **effect** is
//!
//! ```text
//! Δ = mean_B − f · mean_A        (ns per unit)
//! ```
//!
//! where `f` is the run-to-run drift ([`super::drift`]: B's per-call cost
//! over A's that the busy names share; 1 without an estimate). The drift
//! scales profiled work only (scopes' time, gaps inside scopes), never the
//! frame itself, which holds idle time and waits for vsync.
//!
//! ## Its uncertainty
//!
//! Δ's variance has three parts:
//!
//! - **Sampling**, from within each run. With one run a side: **batch
//!   means** over contiguous batches of units (`⌊√n⌋`, at most
//!   [`MAX_BATCHES`]; each unit its own batch under 16), the batches doubled in size while their lag-1
//!   autocorrelation is significant (`r > 2/√b`), and the rest of it
//!   corrected as AR(1) (`× (1+r)/(1−r)`, and `b (1−r)/(1+r)` effective
//!   batches). Frames are not independent: a row that wanders through the
//!   run gets a wide interval, and with a significant correlation leaving
//!   fewer than [`MIN_EFFECTIVE_BATCHES`] effective batches it is
//!   inconclusive. With several runs a side the **runs are the units**:
//!   each run's mean, their spread relative to the side's mean pooled over
//!   A and B, moderated towards the spread every row shares (`(d₀ s₀² + d
//!   s²) / (d₀ + d)`, limma's moderated variance: `s₀²` and `d₀` fitted to
//!   the rows' variances by [`fit_prior`]), so that 2-3 runs a side still
//!   give an interval.
//! - **The row's own run-to-run term**, `τ`: two runs of the same code
//!   differ name by name (caches, layout, the other tenants), beyond the
//!   drift they share. `τ` is the robust spread (1.4826 MAD) of the busy
//!   names' log ratios around the drift; with fewer than
//!   [`MIN_SCOPES`] busy names it is [`DEFAULT_TAU`]. One run
//!   a side cannot see it within the run, so `(τ · c)²` is added (`c` the
//!   row's cost per unit, the mean of both sides). Several runs a side see
//!   it in their spread.
//! - **The drift's own error**: `(se_d · f · mean_A)²`, `se_d` the standard
//!   error of the drift's median (1.2533 τ / √n), or [`DEFAULT_DRIFT_SE`]
//!   without an estimate (the machine may have drifted; nothing measured
//!   it).
//!
//! Degrees of freedom: Welch–Satterthwaite over the sampling parts (the
//! others counted as known).
//!
//! ## The verdict
//!
//! Changed, unchanged (the `1 − 2α` interval inside the band: two one-sided
//! tests at the nominal α) or inconclusive, the printed interval the one the
//! verdict rests on. See docs/statistics.md, section "The verdict" (the
//! family's level, the prefilter).
//!
//! Everything here is `f64` arithmetic plus `libm`'s `exp`, `log` and
//! `lgamma`, the same on native and wasm: both print the same figures and
//! verdicts.

use serde::Serialize;
use std::ops::Range;

/// The most batches of one run's units.
pub const MAX_BATCHES: usize = 32;
/// Fewer effective batches than this on a side: the row is inconclusive.
pub const MIN_EFFECTIVE_BATCHES: f64 = 3.0;
/// The most weight (degrees of freedom) of the moderated variance's prior.
pub const MAX_PRIOR_DF: f64 = 1000.0;
/// A row's run-to-run spread (log) when too few busy names measure it
/// (docs/statistics.md's table of constants says why 0.12).
pub const DEFAULT_TAU: f64 = 0.12;
/// The drift's standard error (log) when it was not estimated.
pub const DEFAULT_DRIFT_SE: f64 = 0.03;

/// What the interval says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Changed,
    Unchanged,
    #[default]
    Inconclusive,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Changed => "changed",
            Verdict::Unchanged => "unchanged",
            Verdict::Inconclusive => "inconclusive",
        }
    }
}

/// A row's effect as every judged row prints it (`effect` in `--json`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Effect {
    /// What the figures are per: `frame` or `second`.
    pub per: &'static str,
    /// B's cost per unit minus A's times the drift factor.
    pub delta_ns: f64,
    /// The interval the verdict used, at `level`.
    pub ci_ns: [f64; 2],
    /// Half the width of the band around 0 a change must clear.
    pub band_ns: f64,
    /// The interval's confidence level (0.99 for a row judged alone at
    /// alpha 0.01; lower as the family's selection allows).
    pub level: f64,
    pub verdict: Verdict,
    /// For an inconclusive row: what would settle it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub settle: Option<String>,
}

impl Effect {
    /// In words: "+1.980 ms per frame [+1.930, +2.030]", with the band
    /// when the verdict is not a change ("within ±0.050"). The interval's
    /// level is not in the words (it is `level` in the JSON, and
    /// docs/statistics.md says how it is set): one notation everywhere.
    pub fn text(&self) -> String {
        let num = |ns: f64| {
            let ns = if ns.abs() < 0.5 { 0.0 } else { ns };
            format!("{:+.3}", ns / 1e6)
        };
        let band = match self.verdict {
            Verdict::Changed => String::new(),
            Verdict::Unchanged => format!(" within ±{:.3}", self.band_ns / 1e6),
            Verdict::Inconclusive => format!(" against ±{:.3}", self.band_ns / 1e6),
        };
        let (delta, per) = (num(self.delta_ns), self.per);
        // A row one side lacks is as recorded: no sampling interval.
        if self.ci_ns[0] == self.ci_ns[1] && self.ci_ns[0] == self.delta_ns {
            return format!("{delta} ms per {per} (as recorded){band}");
        }
        let [lo, hi] = self.ci_ns.map(num);
        format!("{delta} ms per {per} [{lo}, {hi}]{band}")
    }
}

/// The common terms of a comparison every row's interval carries.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Terms {
    /// The drift factor (1 without one).
    pub factor: f64,
    /// The drift's standard error, log scale.
    pub drift_se: f64,
    /// A row's own run-to-run spread, log scale ([`DEFAULT_TAU`] without an
    /// estimate).
    pub tau: f64,
    /// With several runs a side: the relative between-run variance every
    /// row shares (the moderated variance's prior; 0: none yet).
    pub run_var: f64,
    /// Its weight in the moderated variance (degrees of freedom).
    pub run_df: f64,
    /// The runs were recorded alternately (`ab`): run `k` of A and run `k`
    /// of B are a pair, judged by their difference.
    pub paired: bool,
}

impl Default for Terms {
    fn default() -> Self {
        Self {
            drift_se: DEFAULT_DRIFT_SE,
            tau: DEFAULT_TAU,
            ..Self::none()
        }
    }
}

impl Terms {
    /// No drift and no run-to-run term: B against A as measured (the frame,
    /// `--no-drift`'s factor, and the tests of the model's sampling part).
    pub fn none() -> Self {
        Self {
            factor: 1.0,
            drift_se: 0.0,
            tau: 0.0,
            run_var: 0.0,
            run_df: 0.0,
            paired: false,
        }
    }
}

/// One side of a row: its cost in each unit, in order, and the first unit
/// of each run after the first (empty: one run).
#[derive(Clone, Copy, Debug)]
pub struct Series<'s> {
    pub per_unit: &'s [f64],
    pub run_starts: &'s [u32],
}

impl<'s> Series<'s> {
    pub fn new(per_unit: &'s [f64], run_starts: &'s [u32]) -> Self {
        Self {
            per_unit,
            run_starts,
        }
    }
}

/// Why a row cannot be judged whatever its figures.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Limit {
    #[default]
    None,
    /// A side has fewer than [`MIN_EFFECTIVE_BATCHES`] units (or, with
    /// several runs, nothing to pool).
    TooFewUnits,
    /// A side's units are too correlated: its effective batches.
    TooFewBatches(f64),
}

/// A row's effect before its family's level is known.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Estimate {
    pub delta_ns: f64,
    pub se_ns: f64,
    pub df: f64,
    pub band_ns: f64,
    /// Units of A and B, and their runs.
    pub units: (usize, usize),
    pub runs: (usize, usize),
    pub limit: Limit,
    /// Known without error (the prefilter's bound): the interval is this.
    pub exact: Option<[f64; 2]>,
    /// With one run a side: the parts of its variance, to set the row term
    /// again once the family measured it ([`Self::with_tau`]).
    pub single: Option<SingleRun>,
    /// The comparison's nominal alpha: "unchanged" is two one-sided tests
    /// at it (the `1 − 2α` interval inside the band), whatever the
    /// family's level for "changed" (0: the level given).
    pub eq_alpha: f64,
}

/// A one-run-a-side estimate's variance in parts.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SingleRun {
    /// Both sides' batch-means variance (A's times `f²`).
    pub sampling_var: f64,
    /// Welch–Satterthwaite's denominator of the sampling parts.
    pub welch_den: f64,
    /// The row's cost per unit (the mean of both sides).
    pub scale_ns: f64,
    /// The drift's error's part.
    pub drift_var: f64,
    /// `ln(B / (f·A))` (`None` when a side is 0).
    pub log_ratio: Option<f64>,
}

/// The band around 0: `noise_pct` of `expected_ns` (A's cost times the
/// factor), at least `noise_ms`.
pub fn band_ns(expected_ns: f64, noise_pct: f64, noise_ms: f64) -> f64 {
    (noise_pct / 100.0 * expected_ns.abs()).max(noise_ms * 1e6)
}

/// The one rule of every verdict (a row's, a frame part's, a pacing
/// figure's): **changed** when the interval at the test's level lies beyond
/// the band `±band_ns`, **unchanged** when the equivalence interval lies
/// inside it, **inconclusive** otherwise.
pub fn verdict_of(ci: [f64; 2], equivalence_ci: [f64; 2], band_ns: f64) -> Verdict {
    if ci[0] > band_ns || ci[1] < -band_ns {
        Verdict::Changed
    } else if equivalence_ci[0] >= -band_ns && equivalence_ci[1] <= band_ns {
        Verdict::Unchanged
    } else {
        Verdict::Inconclusive
    }
}

/// A side's sampling: the variance of its mean per unit, its degrees of
/// freedom and its effective batches.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Sampling {
    var: f64,
    df: f64,
    effective: f64,
}

fn mean(x: &[f64]) -> f64 {
    if x.is_empty() {
        0.0
    } else {
        x.iter().sum::<f64>() / x.len() as f64
    }
}

/// Batch means of one run's units (see the module doc).
fn batch_means(x: &[f64]) -> Sampling {
    let n = x.len();
    if n < 2 {
        return Sampling {
            effective: n as f64,
            ..Default::default()
        };
    }
    // √n batches; under 16 units, each unit its own batch.
    let mut b = if n < 16 {
        n
    } else {
        ((n as f64).sqrt() as usize).clamp(4, MAX_BATCHES)
    };
    loop {
        let means: Vec<f64> = (0..b)
            .map(|k| mean(&x[k * n / b..(k + 1) * n / b]))
            .collect();
        let c = mean(&means);
        let ss: f64 = means.iter().map(|v| (v - c) * (v - c)).sum();
        let r = if ss > 0.0 && b >= 4 {
            lag_raw(&means, 1)
        } else {
            0.0
        };
        // Batches too small for the correlation: twice as large.
        if b >= 8 && r > 2.0 / (b as f64).sqrt() {
            b /= 2;
            continue;
        }
        // The correlation left widens the interval (as AR(1)); it makes
        // the row inconclusive only when it is significant (a lag-1
        // correlation of a few batches is mostly noise).
        let inflation = if r > 0.0 {
            (1.0 + r) / (1.0 - r.min(0.9))
        } else {
            1.0
        };
        let effective = if r > 2.0 / (b as f64).sqrt() {
            b as f64 / inflation
        } else {
            b as f64
        };
        return Sampling {
            var: ss / (b - 1) as f64 / b as f64 * inflation,
            df: (effective - 1.0).max(1.0),
            effective,
        };
    }
}

/// The lag-`k` autocorrelation of `r` (0 for fewer than `k + 2` values or
/// none varying).
pub(super) fn lag_raw(r: &[f64], k: usize) -> f64 {
    let n = r.len();
    if n < k + 2 {
        return 0.0;
    }
    let mean = r.iter().sum::<f64>() / n as f64;
    let var: f64 = r.iter().map(|v| (v - mean) * (v - mean)).sum();
    if var <= 0.0 {
        return 0.0;
    }
    let cov: f64 = (k..n).map(|j| (r[j] - mean) * (r[j - k] - mean)).sum();
    cov / var
}

/// The units of each run of `n` units cut at `run_starts` (each run's
/// first unit after the first), runs without units left out.
pub(super) fn run_ranges(n: usize, run_starts: &[u32]) -> impl Iterator<Item = Range<usize>> {
    let mut cuts = vec![0];
    cuts.extend(run_starts.iter().map(|&u| (u as usize).min(n)));
    cuts.push(n);
    (1..cuts.len())
        .map(move |k| cuts[k - 1]..cuts[k])
        .filter(|r| !r.is_empty())
}

/// Each run's mean per unit.
fn run_means(s: &Series) -> Vec<f64> {
    run_ranges(s.per_unit.len(), s.run_starts)
        .map(|r| mean(&s.per_unit[r]))
        .collect()
}

/// A row's relative between-run variance and its degrees of freedom
/// (`None` with one run a side). Unpaired, pooled over both sides, each
/// side's runs taken relative to that side's mean (rows of any size pool
/// together). Paired (`terms.paired`, as many runs a side): the variance of
/// the pairs' relative differences ([`paired_differences`]).
pub fn run_variance(a: &Series, b: &Series, terms: &Terms) -> Option<(f64, f64)> {
    let (ya, yb) = (run_means(a), run_means(b));
    if ya.len() < 2 && yb.len() < 2 {
        return None;
    }
    if let Some(d) = paired_differences(&ya, &yb, terms) {
        let m = mean(&d);
        let df = (d.len() - 1) as f64;
        return Some((d.iter().map(|v| (v - m).powi(2)).sum::<f64>() / df, df));
    }
    let (mut ss, mut df) = (0.0, 0.0);
    for y in [&ya, &yb] {
        let m = mean(y);
        if y.len() >= 2 && m > 0.0 {
            ss += y.iter().map(|v| (v / m - 1.0).powi(2)).sum::<f64>();
            df += (y.len() - 1) as f64;
        }
    }
    Some((if df > 0.0 { ss / df } else { 0.0 }, df))
}

/// Paired runs' relative differences (`None` unpaired, or with fewer than
/// two pairs: the sides' run counts differ only when a run was cut). The
/// machine of a pair scales both its runs alike, so each pair's log ratio
/// `ln(B_k / (f·A_k))` holds the code's change without it; a row absent
/// from a run has no ratio, and its pairs' differences `B_k − f·A_k` are
/// taken relative to its mean cost.
fn paired_differences(ya: &[f64], yb: &[f64], terms: &Terms) -> Option<Vec<f64>> {
    if !(terms.paired && ya.len() == yb.len() && ya.len() >= 2) {
        return None;
    }
    let f = terms.factor;
    let pairs = ya.iter().zip(yb);
    if ya.iter().chain(yb).all(|&v| v > 0.0) {
        return Some(pairs.map(|(a, b)| libm::log(b / (f * a))).collect());
    }
    let scale = (mean(yb) + f * mean(ya)) / 2.0;
    Some(if scale > 0.0 {
        pairs.map(|(a, b)| (b - f * a) / scale).collect()
    } else {
        vec![0.0; ya.len()]
    })
}

/// The prior of the rows' variances `(s², d)` (relative, with their
/// degrees of freedom), as limma's `fitFDist` fits it by moments: `s₀²` and
/// `d₀` such that the rows' `s²` look like `s₀²` times a scaled F. Rows
/// whose variances spread no more than sampling alone would get
/// [`MAX_PRIOR_DF`]; `(0, 0)` without rows.
pub fn fit_prior(vars: &[(f64, f64)]) -> (f64, f64) {
    let n = vars.len();
    if n == 0 {
        return (0.0, 0.0);
    }
    let e: Vec<f64> = vars
        .iter()
        .map(|&(v, d)| libm::log(v) - digamma(d / 2.0) + libm::log(d / 2.0))
        .collect();
    let mean = e.iter().sum::<f64>() / n as f64;
    let spread = if n > 1 {
        e.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64
    } else {
        0.0
    };
    let excess = spread - vars.iter().map(|&(_, d)| trigamma(d / 2.0)).sum::<f64>() / n as f64;
    if n < 3 || excess <= 0.0 {
        // Homogeneous (or too few to tell): the prior is as good as known.
        let d0 = if n < 3 { 0.0 } else { MAX_PRIOR_DF };
        return (libm::exp(mean), d0);
    }
    let d0 = (2.0 * trigamma_inverse(excess)).min(MAX_PRIOR_DF);
    let v0 = libm::exp(mean + digamma(d0 / 2.0) - libm::log(d0 / 2.0));
    (v0, d0)
}

/// The digamma function (recurrence to x ≥ 6, then its asymptotic series).
fn digamma(mut x: f64) -> f64 {
    let mut r = 0.0;
    while x < 6.0 {
        r -= 1.0 / x;
        x += 1.0;
    }
    let f = 1.0 / (x * x);
    r + libm::log(x)
        - 0.5 / x
        - f * (1.0 / 12.0 - f * (1.0 / 120.0 - f * (1.0 / 252.0 - f * (1.0 / 240.0 - f / 132.0))))
}

/// The trigamma function (recurrence to x ≥ 6, then its asymptotic series).
fn trigamma(mut x: f64) -> f64 {
    let mut r = 0.0;
    while x < 6.0 {
        r += 1.0 / (x * x);
        x += 1.0;
    }
    let f = 1.0 / (x * x);
    r + 1.0 / x + f / 2.0 + f / x * (1.0 / 6.0 - f * (1.0 / 30.0 - f * (1.0 / 42.0 - f / 30.0)))
}

/// The inverse of [`trigamma`] (Newton's method from limma's start).
fn trigamma_inverse(y: f64) -> f64 {
    if y > 1e7 {
        return 1.0 / y.sqrt();
    }
    if y < 1e-6 {
        return 1.0 / y;
    }
    let mut x = 0.5 + 1.0 / y;
    for _ in 0..50 {
        let t = trigamma(x);
        // The derivative of trigamma: tetragamma, by a central difference.
        let h = 1e-5 * x;
        let dt = (trigamma(x + h) - trigamma(x - h)) / (2.0 * h);
        let step = t * (1.0 - t / y) / dt;
        x += step;
        if -step / x < 1e-8 {
            break;
        }
    }
    x
}

/// Estimates a row's effect: A's series, B's, the comparison's terms and
/// its noise thresholds.
pub fn estimate(a: &Series, b: &Series, terms: &Terms, noise_pct: f64, noise_ms: f64) -> Estimate {
    let f = terms.factor;
    let (ma, mb) = (mean(a.per_unit), mean(b.per_unit));
    let mut e = Estimate {
        delta_ns: mb - f * ma,
        band_ns: band_ns(f * ma, noise_pct, noise_ms),
        units: (a.per_unit.len(), b.per_unit.len()),
        runs: (a.run_starts.len() + 1, b.run_starts.len() + 1),
        ..Default::default()
    };
    let fewest = MIN_EFFECTIVE_BATCHES as usize;
    if e.units.0 < fewest || e.units.1 < fewest {
        e.limit = Limit::TooFewUnits;
        return e;
    }
    let drift = (terms.drift_se * f * ma).powi(2);
    if e.runs.0 > 1 || e.runs.1 > 1 {
        // The runs are the units.
        let (ya, yb) = (run_means(a), run_means(b));
        let (na, nb) = (ya.len().max(1) as f64, yb.len().max(1) as f64);
        let (v, d) = run_variance(a, b, terms).unwrap_or((0.0, 0.0));
        let d0 = if terms.run_var > 0.0 {
            terms.run_df
        } else {
            0.0
        };
        if d + d0 <= 0.0 {
            e.limit = Limit::TooFewUnits;
            return e;
        }
        let moderated = (d0 * terms.run_var + d * v) / (d0 + d);
        e.se_ns = match paired_differences(&ya, &yb, terms) {
            // The pairs' mean difference: the machine each pair shared
            // cancels in it.
            Some(diffs) => {
                let scale = (mb + f * ma) / 2.0;
                (moderated * scale * scale / diffs.len() as f64 + drift).sqrt()
            }
            None => (moderated * (mb * mb / nb + f * f * ma * ma / na) + drift).sqrt(),
        };
        e.df = d + d0;
        return e;
    }
    let (sa, sb) = (batch_means(a.per_unit), batch_means(b.per_unit));
    let fewest = sa.effective.min(sb.effective);
    if fewest < MIN_EFFECTIVE_BATCHES {
        e.limit = Limit::TooFewBatches(fewest);
    }
    let (va, vb) = (f * f * sa.var, sb.var);
    e.single = Some(SingleRun {
        sampling_var: va + vb,
        welch_den: va * va / sa.df.max(1.0) + vb * vb / sb.df.max(1.0),
        scale_ns: (mb + f * ma) / 2.0,
        drift_var: drift,
        log_ratio: (ma > 0.0 && mb > 0.0).then(|| libm::log(mb / (f * ma))),
    });
    e.with_tau(terms.tau);
    e
}

/// The rows' own run-to-run spread `τ` measured on a family of rows with
/// one run a side (`None` with fewer than [`MIN_SCOPES`]
/// rows in both): each row's log ratio `ln(B / (f·A))` of its cost per
/// unit, their robust spread (1.4826 MAD around their median), less the
/// sampling the rows' batches already carry (the median of their relative
/// sampling variances): τ is what runs add beyond sampling.
pub fn shared_tau(rows: &[&Estimate]) -> Option<f64> {
    let (logs, mut sampling): (Vec<f64>, Vec<f64>) = rows
        .iter()
        .filter_map(|e| {
            let s = e.single?;
            let l = s.log_ratio.filter(|l| l.is_finite())?;
            (e.limit == Limit::None && s.scale_ns > 0.0)
                .then(|| (l, s.sampling_var / (s.scale_ns * s.scale_ns)))
        })
        .unzip();
    if logs.len() < MIN_SCOPES {
        return None;
    }
    let (_, spread) = robust_spread(&logs);
    let sampled = median(&mut sampling);
    Some((spread * spread - sampled).max(0.0).sqrt())
}

/// The median of a non-empty slice, which it reorders (the mean of the two
/// middle values for an even count). Linear: a selection, not a sort.
pub(super) fn median(v: &mut [f64]) -> f64 {
    let n = v.len();
    let (lower, &mut mid, _) = v.select_nth_unstable_by(n / 2, f64::total_cmp);
    if n % 2 == 1 {
        mid
    } else {
        let below = lower.iter().copied().max_by(f64::total_cmp).unwrap_or(mid);
        (below + mid) / 2.0
    }
}

/// The median of `v` ([`median`]'s) and the robust spread around it,
/// 1.4826 × the median absolute deviation; `(0, 0)` when empty.
pub(super) fn robust_spread(v: &[f64]) -> (f64, f64) {
    if v.is_empty() {
        return (0.0, 0.0);
    }
    let centre = median(&mut v.to_vec());
    let mut dev: Vec<f64> = v.iter().map(|x| (x - centre).abs()).collect();
    (centre, 1.4826 * median(&mut dev))
}

/// A row whose larger side costs less than the band per unit: unchanged by
/// construction, its interval `[−f·mean_A, mean_B]` (the prefilter).
pub fn bounded(expected_a_ns: f64, b_ns: f64, noise_pct: f64, noise_ms: f64) -> Option<Estimate> {
    let band = band_ns(expected_a_ns, noise_pct, noise_ms);
    (expected_a_ns.max(b_ns) < band).then(|| Estimate {
        delta_ns: b_ns - expected_a_ns,
        band_ns: band,
        exact: Some([-expected_a_ns, b_ns]),
        ..Default::default()
    })
}

impl Estimate {
    /// With one run a side: its interval with the row term `τ` (see
    /// [`shared_tau`]); with several runs, the runs' spread holds it.
    pub fn with_tau(&mut self, tau: f64) {
        let Some(s) = self.single else { return };
        let var = s.sampling_var + (tau * s.scale_ns).powi(2) + s.drift_var;
        self.se_ns = var.sqrt();
        self.df = if s.welch_den > 0.0 {
            (var * var / s.welch_den).min(1e6)
        } else {
            1e6
        };
    }

    /// The two-sided p-value of "the effect lies outside the band" (1 for a
    /// row that cannot be judged).
    pub fn p(&self) -> f64 {
        if let Some([lo, hi]) = self.exact {
            return if lo > self.band_ns || hi < -self.band_ns {
                0.0
            } else {
                1.0
            };
        }
        if self.limit != Limit::None {
            return 1.0;
        }
        let excess = self.delta_ns.abs() - self.band_ns;
        if self.se_ns <= 0.0 {
            return if excess > 0.0 { 0.0 } else { 1.0 };
        }
        (2.0 * (1.0 - t_cdf(excess / self.se_ns, self.df))).clamp(0.0, 1.0)
    }

    /// The interval at two-sided level `1 − alpha`.
    pub fn interval(&self, alpha: f64) -> [f64; 2] {
        if let Some(i) = self.exact {
            return i;
        }
        let half = if self.se_ns > 0.0 {
            t_quantile(1.0 - alpha / 2.0, self.df) * self.se_ns
        } else {
            0.0
        };
        [self.delta_ns - half, self.delta_ns + half]
    }

    /// The verdict, "changed" at two-sided level `1 − alpha` (the
    /// family's), "unchanged" by the equivalence test, and the alpha of
    /// the interval it rests on.
    pub fn decision(&self, alpha: f64) -> (Verdict, f64) {
        if self.limit != Limit::None && self.exact.is_none() {
            return (Verdict::Inconclusive, alpha);
        }
        // The alpha of the equivalence test's interval (`1 − 2α`: two
        // one-sided tests at α).
        let eq = if self.eq_alpha > 0.0 {
            (2.0 * self.eq_alpha).min(0.5)
        } else {
            alpha
        };
        match verdict_of(self.interval(alpha), self.interval(eq), self.band_ns) {
            Verdict::Unchanged => (Verdict::Unchanged, eq),
            v => (v, alpha),
        }
    }

    /// The verdict (see [`Self::decision`]).
    pub fn verdict(&self, alpha: f64) -> Verdict {
        self.decision(alpha).0
    }

    /// The effect as printed, "changed" judged at two-sided level `1 −
    /// alpha`, per `per`: its interval is the one the verdict used.
    pub fn effect(&self, alpha: f64, per: &'static str) -> Effect {
        let (verdict, used) = self.decision(alpha);
        Effect {
            per,
            delta_ns: round_ns(self.delta_ns),
            ci_ns: self.interval(used).map(round_ns),
            band_ns: round_ns(self.band_ns),
            level: four_digits(1.0 - used),
            verdict,
            settle: (verdict == Verdict::Inconclusive).then(|| self.settle(alpha, per)),
        }
    }

    /// What would settle an inconclusive row.
    fn settle(&self, alpha: f64, per: &str) -> String {
        let several = self.runs.0 > 1 || self.runs.1 > 1;
        match self.limit {
            Limit::TooFewUnits if several => {
                return "record 3 or more runs a side (alternating A and B on one machine)"
                    .to_owned();
            }
            Limit::TooFewUnits => {
                return format!(
                    "too few {per}s to judge ({} in A, {} in B): record at least 10 a side",
                    self.units.0, self.units.1
                );
            }
            Limit::TooFewBatches(eff) => {
                return format!(
                    "the row wanders through the run ({eff:.1} effective batches of its {per}s, \
                     at least {MIN_EFFECTIVE_BATCHES} needed): record a longer run, or several \
                     runs a side"
                );
            }
            Limit::None => {}
        }
        let q = t_quantile(1.0 - alpha / 2.0, self.df);
        let room = (self.delta_ns.abs() - self.band_ns).abs();
        // The standard error that would put the interval on one side of
        // the band's edge, and how many more units (or runs) give it: the
        // sampling part shrinks as 1/n.
        let needed = room / q;
        let factor = if needed > 0.0 {
            (self.se_ns / needed).powi(2)
        } else {
            f64::INFINITY
        };
        if !(factor.is_finite() && factor <= 50.0) {
            return format!(
                "the effect is about the band's size ({} ms per {per} against ±{} ms): no \
                 practical amount of data tells it apart; judge with another --noise-pct or \
                 --noise-ms",
                crate::units::ms_f(self.delta_ns),
                crate::units::ms_f(self.band_ns)
            );
        }
        if several {
            let runs = (self.runs.0.max(self.runs.1) as f64 * factor).ceil() as usize;
            format!("about {runs} runs a side (alternating A and B on one machine) would settle it")
        } else {
            let n = (self.units.0.max(self.units.1) as f64 * factor).ceil() as usize;
            format!(
                "about {n} {per}{} a side would settle it (or 3 or more runs a side: one run \
                 cannot show how much a row varies between runs)",
                if n == 1 { "" } else { "s" }
            )
        }
    }
}

/// Nanoseconds to one decimal (the same printed on every target).
fn round_ns(x: f64) -> f64 {
    // `+ 0.0`: no "-0" printed.
    (x * 10.0).round() / 10.0 + 0.0
}

/// To 4 significant digits: `ln`/`exp` may differ in their last bit between
/// platforms; the rounded value does not.
pub fn four_digits(x: f64) -> f64 {
    format!("{x:.3e}").parse().unwrap_or(x)
}

/// Benjamini–Hochberg at false-discovery rate `alpha` over the p-values of
/// a family: the two-sided level `α' = R α / m` at which each row's
/// interval is printed and judged (R selected of m; `α / m` when none is).
/// An empty family: `alpha`.
pub fn fdr_alpha(ps: &[f64], alpha: f64) -> f64 {
    let m = ps.len();
    if m == 0 {
        return alpha;
    }
    let mut sorted: Vec<f64> = ps.to_vec();
    sorted.sort_by(f64::total_cmp);
    let selected = (1..=m)
        .rev()
        .find(|&k| sorted[k - 1] <= k as f64 * alpha / m as f64)
        .unwrap_or(0);
    selected.max(1) as f64 * alpha / m as f64
}

/// Holm's step-down at family-wise level `alpha`: for each p-value (in the
/// given order), whether it is rejected.
pub fn holm(ps: &[f64], alpha: f64) -> Vec<bool> {
    let m = ps.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&x, &y| ps[x].total_cmp(&ps[y]).then(x.cmp(&y)));
    let mut out = vec![false; m];
    for (k, &i) in order.iter().enumerate() {
        if ps[i] <= alpha / (m - k) as f64 {
            out[i] = true;
        } else {
            break;
        }
    }
    out
}

/// The regularized incomplete beta function `I_x(a, b)` (continued
/// fraction, modified Lentz).
fn incomplete_beta(x: f64, a: f64, b: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = libm::lgamma(a + b) - libm::lgamma(a) - libm::lgamma(b)
        + a * libm::log(x)
        + b * libm::log(1.0 - x);
    // The continued fraction converges fast for x < (a+1)/(a+b+2).
    if x > (a + 1.0) / (a + b + 2.0) {
        return 1.0 - incomplete_beta(1.0 - x, b, a);
    }
    // Away from 0: the fraction's terms are divided by.
    let tiny = |v: f64| if v.abs() < 1e-300 { 1e-300 } else { v };
    let mut c = 1.0;
    let mut d = 1.0 / tiny(1.0 - (a + b) * x / (a + 1.0));
    let mut h = d;
    for m in 1..300 {
        let m = f64::from(m);
        let m2 = 2.0 * m;
        // The even step, then the odd one.
        for aa in [
            m * (b - m) * x / ((a + m2 - 1.0) * (a + m2)),
            -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0)),
        ] {
            d = 1.0 / tiny(1.0 + aa * d);
            c = tiny(1.0 + aa / c);
            h *= d * c;
        }
        if (d * c - 1.0).abs() < 1e-15 {
            break;
        }
    }
    libm::exp(ln_front) * h / a
}

/// Student's t distribution function with `df` degrees of freedom.
pub fn t_cdf(t: f64, df: f64) -> f64 {
    if t.is_nan() {
        return 0.5;
    }
    if t.is_infinite() {
        return if t > 0.0 { 1.0 } else { 0.0 };
    }
    let df = df.max(1e-3);
    let tail = 0.5 * incomplete_beta(df / (df + t * t), df / 2.0, 0.5);
    if t >= 0.0 { 1.0 - tail } else { tail }
}

/// The `p` quantile of Student's t with `df` degrees of freedom: Newton's
/// steps on [`t_cdf`] from a Cornish–Fisher start, kept inside the bracket
/// they narrow (deterministic, to 1e-10 relative; two or three steps).
pub fn t_quantile(p: f64, df: f64) -> f64 {
    // The same (p, df) is asked for row after row (one level a family, the
    // degrees of freedom of equal series): remembered, the answer is the
    // same bits.
    thread_local! {
        static SEEN: std::cell::RefCell<rustc_hash::FxHashMap<(u64, u64), f64>> =
            Default::default();
    }
    let key = (p.to_bits(), df.to_bits());
    if let Some(q) = SEEN.with(|m| m.borrow().get(&key).copied()) {
        return q;
    }
    let q = t_quantile_uncached(p, df);
    SEEN.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() >= 4096 {
            m.clear();
        }
        m.insert(key, q);
    });
    q
}

fn t_quantile_uncached(p: f64, df: f64) -> f64 {
    if !(p > 0.0 && p < 1.0) {
        return if p >= 1.0 {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        };
    }
    if p < 0.5 {
        return -t_quantile(1.0 - p, df);
    }
    // The density, as `t_cdf` reads `df`.
    let v = df.max(1e-3);
    let ln_c = libm::lgamma((v + 1.0) / 2.0)
        - libm::lgamma(v / 2.0)
        - 0.5 * libm::log(v * std::f64::consts::PI);
    let pdf = |t: f64| libm::exp(ln_c - (v + 1.0) / 2.0 * libm::log1p(t * t / v));
    // Newton's steps from Cornish–Fisher's start (a few steps, not a
    // bracket's search from 1), kept inside the bracket they narrow: above
    // `lo`, below `hi` (unbounded until a step overshoots).
    let (mut lo, mut hi) = (0.0f64, f64::INFINITY);
    let mut t = cornish_fisher(p, v).clamp(1e-9, 1e12);
    for _ in 0..200 {
        let f = t_cdf(t, v) - p;
        if f < 0.0 {
            lo = t;
        } else {
            hi = t;
        }
        let next = t - f / pdf(t);
        let next = if next > lo && next < hi {
            next
        } else if hi.is_finite() {
            0.5 * (lo + hi)
        } else {
            (2.0 * t).min(1e12)
        };
        let done = f == 0.0
            || (next - t).abs() <= 1e-12 * t.abs()
            || (hi.is_finite() && hi - lo <= 1e-10 * hi);
        t = next;
        if done {
            break;
        }
    }
    t
}

/// A start for [`t_quantile`] (`p` ≥ 0.5): the normal quantile
/// (Abramowitz and Stegun 26.2.23, within 4.5e-4) widened by Cornish and
/// Fisher's expansion in `1/df` (26.7.5). Only a start: Newton's steps
/// give the digits.
fn cornish_fisher(p: f64, df: f64) -> f64 {
    let q = (1.0 - p).max(f64::MIN_POSITIVE);
    let w = (-2.0 * libm::log(q)).sqrt();
    let z = w
        - (2.515517 + 0.802853 * w + 0.010328 * w * w)
            / (1.0 + 1.432788 * w + 0.189269 * w * w + 0.001308 * w * w * w);
    let z = z.max(0.0);
    let (z2, n) = (z * z, 1.0 / df.max(1.0));
    let g1 = (z2 + 1.0) * z / 4.0;
    let g2 = ((5.0 * z2 + 16.0) * z2 + 3.0) * z / 96.0;
    let g3 = (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) * z / 384.0;
    z + n * (g1 + n * (g2 + n * g3))
}

/// Rows that must vote for an estimate (the drift's, the names' spread).
pub const MIN_SCOPES: usize = 5;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_distribution_against_tables() {
        // Two-sided 95% and 99% critical values (any statistics table).
        for (df, t95, t99) in [
            (1.0, 12.706, 63.657),
            (2.0, 4.303, 9.925),
            (5.0, 2.571, 4.032),
            (10.0, 2.228, 3.169),
            (30.0, 2.042, 2.750),
            (1e6, 1.960, 2.576),
        ] {
            assert!((t_quantile(0.975, df) - t95).abs() < 2e-3, "df {df}");
            assert!((t_quantile(0.995, df) - t99).abs() < 2e-3, "df {df}");
        }
        assert!((t_cdf(0.0, 7.0) - 0.5).abs() < 1e-12);
        assert!((t_cdf(-2.571, 5.0) - 0.025).abs() < 1e-4);
        // The quantile inverts the distribution function at Welch's
        // fractional degrees of freedom and the family's small levels.
        for (df, p) in [
            (1.3, 0.9993),
            (2.7, 0.975),
            (57.9, 0.99999),
            (0.2, 0.6),
            (1e7, 0.995),
            (0.01, 0.9),
            (3.0, 1.0 - 1e-12),
            (1.0, 0.999_999),
        ] {
            let t = t_quantile(p, df);
            assert!(
                (t_cdf(t, df) - p).abs() < 1e-10 && t_quantile(1.0 - p, df) == -t,
                "{df} {p}"
            );
        }
    }

    #[test]
    fn the_prior_of_the_rows_variances() {
        assert!((digamma(1.0) + 0.577_215_664_9).abs() < 1e-9);
        assert!((trigamma(1.0) - std::f64::consts::PI.powi(2) / 6.0).abs() < 1e-9);
        assert!((trigamma_inverse(trigamma(3.7)) - 3.7).abs() < 1e-6);
        // Variances that agree: the prior is as good as known.
        let same: Vec<(f64, f64)> = (0..20).map(|_| (0.01, 4.0)).collect();
        let (v0, d0) = fit_prior(&same);
        assert_eq!(d0, MAX_PRIOR_DF);
        assert!((v0 - 0.01).abs() < 0.005, "{v0}");
        // Variances spread far beyond what 4 df sample: a weak prior.
        let spread: Vec<(f64, f64)> = (0..20).map(|k| (0.0001 * 10f64.powi(k % 5), 4.0)).collect();
        let (_, d0) = fit_prior(&spread);
        assert!(d0 > 0.0 && d0 < 5.0, "{d0}");
    }

    #[test]
    fn benjamini_hochberg_and_holm() {
        // m = 4 at 0.05: thresholds 0.0125, 0.025, 0.0375, 0.05.
        let ps = [0.01, 0.02, 0.03, 0.5];
        assert_eq!(fdr_alpha(&ps, 0.05), 3.0 * 0.05 / 4.0);
        assert_eq!(fdr_alpha(&[0.5, 0.9], 0.05), 0.05 / 2.0);
        // Holm: 0.01 <= 0.0125, 0.02 > 0.0167: stops.
        assert_eq!(holm(&ps, 0.05), vec![true, false, false, false]);
    }

    fn series(v: &[f64]) -> Series<'_> {
        Series::new(v, &[])
    }

    #[test]
    fn the_verdict_follows_the_interval_not_the_point() {
        // A 4.9% and a 5.2% shift of a 1 ms row, each with a narrow and a
        // wide interval (jitter 0.1% and 10% per frame), band 5%.
        let jitter = |k: usize, amp: f64| amp * (((k * 7919) % 101) as f64 / 50.0 - 1.0);
        let row = |scale: f64, amp: f64| -> Vec<f64> {
            (0..400)
                .map(|k| 1e6 * scale * (1.0 + jitter(k, amp)))
                .collect()
        };
        let judge = |shift: f64, amp: f64| {
            let (a, b) = (row(1.0, amp), row(1.0 + shift, amp));
            estimate(&series(&a), &series(&b), &Terms::none(), 5.0, 0.0).verdict(0.01)
        };
        assert_eq!(judge(0.049, 0.001), Verdict::Unchanged);
        assert_eq!(judge(0.052, 0.001), Verdict::Changed);
        assert_eq!(judge(0.049, 0.3), Verdict::Inconclusive);
        assert_eq!(judge(0.052, 0.3), Verdict::Inconclusive);
    }

    #[test]
    fn too_little_is_inconclusive_never_nan() {
        let one = [1e6];
        let e = estimate(&series(&one), &series(&one), &Terms::default(), 5.0, 0.05);
        assert_eq!(e.limit, Limit::TooFewUnits);
        let fx = e.effect(0.01, "frame");
        assert_eq!(fx.verdict, Verdict::Inconclusive);
        assert!(fx.settle.unwrap().contains("too few frames"));
        let empty: [f64; 0] = [];
        let e = estimate(
            &series(&empty),
            &series(&empty),
            &Terms::default(),
            5.0,
            0.05,
        );
        assert!(e.delta_ns == 0.0 && e.p() == 1.0);
        // Zero-length rows: zeros everywhere, unchanged by the prefilter.
        let zeros = [0.0; 50];
        let e = estimate(
            &series(&zeros),
            &series(&zeros),
            &Terms::default(),
            5.0,
            0.05,
        );
        assert!(
            e.se_ns == 0.0 && e.verdict(0.01) == Verdict::Unchanged,
            "{e:?}"
        );
        assert!(bounded(0.0, 0.0, 5.0, 0.05).is_some());
    }

    #[test]
    fn a_wandering_row_gets_a_wide_interval() {
        // A random walk-like row (AR(1), phi 0.99) against itself shifted:
        // the batches see the correlation.
        let mut x = vec![0.0f64; 600];
        let mut state = 0u64;
        let mut v = 0.0;
        for e in x.iter_mut() {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let u = (state >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
            v = 0.99 * v + u;
            *e = 1e6 * (1.0 + 0.05 * v);
        }
        let s = batch_means(&x);
        let naive = {
            let m = mean(&x);
            x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / 599.0 / 600.0
        };
        assert!(s.var > 10.0 * naive, "{s:?} against {naive}");
    }
}
