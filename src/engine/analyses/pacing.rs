//! Frame pacing: the frames' distribution as frame-time analyzers read it
//! (CapFrameX, PresentMon: percentiles, the 1% and 0.1% lows, frames over a
//! budget, stutter), each side's slow frames traced to the parts of the
//! frame that make them slow, and A against B, each tail figure judged.
//!
//! **The period** of a frame is [`frame_periods_ns`] on the frame-driving
//! thread ([`frame_thread`]): its first top-level scope's start to the next
//! frame's. A run's last frame, and a frame before a hole in the frame
//! indices, has no next start: its period is unknown (censored) and it is
//! left out (`censored`). Runs are never joined: the neighbours, the frame
//! to frame differences and the pattern are per run.
//!
//! Over a side's `n` periods, sorted `p(1) ≤ … ≤ p(n)`:
//! - **mean**, **median** (the lower median, `p(⌈n/2⌉)`), **P90, P95, P99**:
//!   nearest rank, `p(⌈q·n⌉)`;
//! - **the 1% low** and **the 0.1% low**: the mean of the slowest `⌈n/100⌉`
//!   and `⌈n/1000⌉` periods, also as fps (`1000 / ms`); with fewer than 100
//!   (1,000) frames the 1% (0.1%) low is the worst frame;
//! - **worst**: the longest period, and its frame;
//! - **over the budget**: periods longer than the budget (`--budget`; by
//!   default, on frames paced by a clock ([`paced`]), their median period,
//!   a frame over it by more than [`PACED_SLACK`] missing its slot; else
//!   [`DEFAULT_BUDGET_NS`], 60 Hz);
//! - **stutter**: a period more than [`STUTTER_FACTOR`] times the median of
//!   its neighbours in its run (up to [`STUTTER_NEIGHBOURS`] frames each
//!   side, itself left out; at least 4 neighbours);
//! - **frame to frame**: the (lower) median of `|p(i) − p(i−1)|` over
//!   consecutive periods of a run: how evenly frames follow each other (the
//!   median, so that a few hitches, the stutters' and the lows' business,
//!   do not make it);
//! - **pattern**: the period series' shape ([`super::shape`]: every n-th,
//!   a burst, scattered, a step, a trend), when it has one.
//!
//! **The slow frames** of a side are those over the budget when they are at
//! most half the frames, else the slowest 5% (at least one). The rest are
//! the typical frames. Each frame's period is its parts exactly: each
//! name's own time on the frame thread (unscoped time inside a scope is its
//! own), the time between its top-level scopes, the time between frames
//! (after its last top-level scope), and the waits: a stretch of at least
//! [`WAIT_MIN_NS`] inside a scope or between top-level scopes during which
//! another thread's top-level scope ends is waiting for that work (the one
//! that ends last in it), a part of its own ("(waiting for X)", kind
//! `wait`), no longer its scope's own time. A part's excess is its mean over the
//! slow frames less its mean over the typical ones: the excesses sum to the
//! slow frames' excess. On frames paced by a clock the time between frames
//! is the clock's (a late frame waits for the next slot): never a culprit.
//! A part is high in a frame above the midpoint of its two means; `in_slow`
//! and `in_typical` count those frames.
//!
//! **A against B**: each tail figure's B − A with a percentile bootstrap
//! interval ([`RESAMPLES`] resamples a side, moving blocks of `⌈m^⅓⌉` frames
//! within each run of `m`; with several runs a side, the runs are resampled
//! first), judged by [`verdict_of`] against the rows' band (`noise_pct` of
//! A's figure, at least `noise_ms`; for a share of frames, at least one
//! point). A figure that rests on fewer than [`MIN_TAIL_FRAMES`] frames a
//! side is not judged. The mean and the median are the typical frame's:
//! the frame's account judges them (`report`, `compare`), not this.

use super::change::accounting::paced;
use super::change::effect::{Effect, Verdict, band_ns, four_digits, verdict_of};
use super::change::shape;
use super::frames::{frame_periods_ns, frame_thread};
use super::gaps::{ThreadRoles, for_each_stretch};
use super::waits::WaitIndex;
use crate::engine::model::{StreamId, Trace};
use crate::units::ms_f;
use serde::Serialize;

/// The budget when none is given and the frames are not paced: 60 Hz.
pub const DEFAULT_BUDGET_NS: f64 = 1e9 / 60.0;
/// On paced frames, a frame over the period by more than this share missed
/// its slot (a clock's periods jitter by well under 1%).
pub const PACED_SLACK: f64 = 0.05;
/// A stutter: a period more than this many times its neighbours' median
/// (CapFrameX's stuttering factor, against the local median).
pub const STUTTER_FACTOR: f64 = 2.5;
/// The neighbours a stutter is measured against, each side.
pub const STUTTER_NEIGHBOURS: usize = 10;
/// The slowest share of frames taken as slow when most frames are over the
/// budget.
pub const SLOW_SHARE: f64 = 0.05;
/// Bootstrap resamples a side.
pub const RESAMPLES: usize = 1000;
/// A tail figure is judged only when it rests on at least this many frames
/// a side (beyond its percentile, or in its slowest share).
pub const MIN_TAIL_FRAMES: usize = 5;
/// Frames a side needed to judge a share or the frame to frame figure.
pub const MIN_FRAMES: usize = 20;
/// Culprits listed a side.
pub const CULPRITS: usize = 5;
/// A stretch on the frame thread shorter than this is never a wait (the
/// rows' noise milliseconds): its time stays its scope's own.
pub const WAIT_MIN_NS: i64 = 50_000;
/// Slow frames listed (slowest first).
pub const LISTED_FRAMES: usize = 20;

/// The frames' figures and slow frames of one side.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Pacing {
    /// Periods counted (frames with a next start).
    pub frames: usize,
    /// Frames left out: a run's last, or one before a hole.
    pub censored: usize,
    pub runs: usize,
    pub mean_ns: f64,
    pub median_ns: i64,
    pub p90_ns: i64,
    pub p95_ns: i64,
    pub p99_ns: i64,
    /// The mean of the slowest ⌈n/100⌉ periods (`low_1pct_frames`).
    pub low_1pct_ns: f64,
    pub low_1pct_frames: usize,
    /// The mean of the slowest ⌈n/1000⌉ periods.
    pub low_01pct_ns: f64,
    pub low_01pct_frames: usize,
    /// As frames per second: `mean`, `median`, `low_1pct`, `low_01pct`.
    pub fps: Fps,
    pub worst: Worst,
    /// Periods over the budget, and their share of `frames`.
    pub over_budget: usize,
    pub over_budget_share: f64,
    /// Stutters (see the module doc), their share of `frames`, and the first
    /// [`LISTED_FRAMES`] of them by frame index.
    pub stutters: usize,
    pub stutter_share: f64,
    pub stutter_frames: Vec<u64>,
    /// The median |Δ| of consecutive periods in a run.
    pub frame_to_frame_ns: f64,
    /// The frames are paced by a clock ([`paced`]).
    pub paced: bool,
    /// The period series' shape in words ("24.300 ms in every 2nd frame
    /// …"), `null` when steady.
    pub pattern: Option<String>,
    pub slow_frames: SlowFrames,
    /// With several runs: each run's figures, in order (empty with one:
    /// the side's are its run's).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub per_run: Vec<RunFigures>,
    /// Each counted frame's `(frame_index, period_ns)`, in run order: what
    /// the app's pacing picture draws (not in the JSON: `frames` lists
    /// them).
    #[serde(skip)]
    pub series: Vec<(u64, i64)>,
}

/// One run's figures (the side's definitions, on its periods alone).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunFigures {
    /// The run's number on its side, from 1.
    pub run: usize,
    pub frames: usize,
    pub median_ns: i64,
    pub p95_ns: i64,
    pub p99_ns: i64,
    pub low_1pct_ns: f64,
    pub over_budget_share: f64,
    pub stutter_share: f64,
    pub worst: Worst,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fps {
    pub mean: f64,
    pub median: f64,
    pub low_1pct: f64,
    pub low_01pct: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Worst {
    pub frame_index: u64,
    pub duration_ns: i64,
}

/// A side's slow frames and what makes them slow (see the module doc).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SlowFrames {
    /// `over the budget` or `the slowest 5%`.
    pub rule: &'static str,
    pub frames: usize,
    /// The slowest of them first (at most [`LISTED_FRAMES`]).
    pub frame_indices: Vec<u64>,
    pub mean_ns: f64,
    /// The other frames' mean period.
    pub typical_mean_ns: f64,
    /// `mean_ns − typical_mean_ns`: what the culprits' excesses share.
    pub excess_ns: f64,
    /// The parts with the largest excess, largest first (at most
    /// [`CULPRITS`]).
    pub culprits: Vec<Culprit>,
}

/// One part of the frame over the slow and the typical frames.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Culprit {
    /// A scope name, `(between frames)`, `(between scopes)` or `(waiting
    /// for X)`.
    pub part: String,
    /// `scope`, `between_frames`, `between_scopes` or `wait`.
    pub kind: &'static str,
    pub slow_mean_ns: f64,
    pub typical_mean_ns: f64,
    pub excess_ns: f64,
    /// Of the slow frames' excess.
    pub share: f64,
    /// Slow frames in which the part is high, and typical ones.
    pub in_slow: usize,
    pub in_typical: usize,
}

/// One tail figure, A against B.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FigureChange {
    /// `p95`, `p99`, `low_1pct`, `low_01pct`, `over_budget`, `stutter` or
    /// `frame_to_frame`.
    pub figure: &'static str,
    pub a: f64,
    pub b: f64,
    /// B − A (ns, or a share for `over_budget` and `stutter`) with its
    /// interval.
    pub effect: Effect,
    pub words: String,
}

/// `pacing`: one side's figures, or both sides' and their changes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PacingReport {
    /// The frame-driving thread the periods are measured on.
    pub thread: String,
    pub budget_ns: f64,
    /// `given`, `paced` (the median period of paced frames) or `60 Hz`.
    pub budget_source: &'static str,
    /// A frame is over the budget above this: the budget, or on paced
    /// frames the budget and [`PACED_SLACK`].
    pub over_ns: f64,
    pub a: Pacing,
    pub b: Option<Pacing>,
    /// The tail figures judged, in the module doc's order (empty with one
    /// recording).
    pub changes: Vec<FigureChange>,
    /// One sentence: the figures that changed, or that none did.
    pub headline: String,
    /// With `--fail-on-p99` or `--fail-on-low`: the tail gate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gate: Option<TailGateResult>,
}

/// The tail gate (`--fail-on-p99 PCT`, `--fail-on-low PCT`): B's P99 frame
/// (or 1% low, as a frame time) longer than A's by more than PCT percent of
/// A's fails (exit 4); an interval straddling that limit is inconclusive
/// (exit 5). See docs/statistics.md, section "The tail gate".
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TailGate {
    pub p99_pct: Option<f64>,
    pub low_pct: Option<f64>,
}

impl TailGate {
    /// Whether the gate checks anything.
    pub fn is_set(&self) -> bool {
        self.p99_pct.is_some() || self.low_pct.is_some()
    }

    /// The figures checked, with their limits in percent.
    fn figures(&self) -> Vec<(&'static str, f64)> {
        [("p99", self.p99_pct), ("low_1pct", self.low_pct)]
            .into_iter()
            .filter_map(|(f, p)| p.map(|p| (f, p)))
            .collect()
    }
}

/// What a tail check decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GateOutcome {
    Passed,
    Failed,
    Inconclusive,
}

/// One figure the tail gate checked.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TailCheck {
    /// `p99` or `low_1pct`.
    pub figure: &'static str,
    pub pct: f64,
    /// `pct` of A's figure: the growth B's must not exceed.
    pub limit_ns: f64,
    pub a_ns: f64,
    pub b_ns: f64,
    /// B − A's bootstrap interval at `level` (the checks share alpha).
    pub ci_ns: [f64; 2],
    pub level: f64,
    pub outcome: GateOutcome,
    /// The check in one line.
    pub sentence: String,
}

/// The tail gate's checks (P99 first).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TailGateResult {
    pub checks: Vec<TailCheck>,
}

impl TailGateResult {
    /// A figure grew past its limit, its whole interval above it.
    pub fn failed(&self) -> bool {
        self.checks.iter().any(|c| c.outcome == GateOutcome::Failed)
    }

    /// Not failed, but a figure's interval straddles its limit.
    pub fn is_inconclusive(&self) -> bool {
        !self.failed()
            && self
                .checks
                .iter()
                .any(|c| c.outcome == GateOutcome::Inconclusive)
    }
}

/// One side's periods as the figures read them.
struct Side {
    /// Counted periods per run, in order, with their frame indices.
    runs: Vec<Vec<(i64, u64)>>,
    /// Per counted frame (in run order): stutter and frame to frame |Δ|.
    stutter: Vec<bool>,
    delta: Vec<Option<f64>>,
    censored: usize,
    paced: bool,
    median_ns: i64,
    /// Per frame of the trace: counted or not, its period and its time
    /// between frames.
    periods: Vec<i64>,
    between: Vec<i64>,
    counted: Vec<bool>,
}

/// The frame period in brief: what a recording's headline says of it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PeriodBrief {
    /// The frame-driving thread.
    pub thread: String,
    /// Periods counted (a run's last frame has none).
    pub frames: usize,
    /// The lower median period, and as fps.
    pub median_ns: i64,
    pub median_fps: f64,
    /// The longest period and its frame.
    pub worst: Worst,
}

/// `t`'s frame period in brief, on its frame-driving thread, as `pacing`
/// counts it; `None` without two consecutive frames.
pub fn period_brief(t: &Trace) -> Option<PeriodBrief> {
    let thread = frame_thread(t, None);
    let s = side(t, &thread);
    let flat: Vec<(i64, u64)> = s.runs.iter().flatten().copied().collect();
    if flat.is_empty() {
        return None;
    }
    let frames = flat.len();
    Some(PeriodBrief {
        thread,
        frames,
        median_ns: s.median_ns,
        median_fps: if s.median_ns > 0 {
            four_digits(1e9 / s.median_ns as f64)
        } else {
            0.0
        },
        worst: worst_of(&flat),
    })
}

/// The nearest-rank quantile `q` of `sorted` (0 when empty).
fn nearest_rank(sorted: &[i64], q: f64) -> i64 {
    let n = sorted.len();
    if n == 0 {
        0
    } else {
        sorted[((q * n as f64).ceil() as usize).clamp(1, n) - 1]
    }
}

/// The longest of `(period, frame)`, the earliest frame of ties (zeros
/// when none).
fn worst_of(periods: &[(i64, u64)]) -> Worst {
    periods
        .iter()
        .max_by(|x, y| x.0.cmp(&y.0).then_with(|| y.1.cmp(&x.1)))
        .map_or(
            Worst {
                frame_index: 0,
                duration_ns: 0,
            },
            |&(p, i)| Worst {
                frame_index: i,
                duration_ns: p,
            },
        )
}

fn side(t: &Trace, thread: &str) -> Side {
    let (periods, between) = frame_periods_ns(t, thread);
    let index = &t.frames.frame_index;
    let mut counted = vec![false; periods.len()];
    let mut runs = Vec::new();
    let mut censored = 0;
    for k in 0..t.run_count() as u32 {
        let r = t.run_frames(k);
        let mut run = Vec::new();
        for f in r.start as usize..r.end as usize {
            let has_next = f + 1 < r.end as usize && index[f + 1] == index[f].wrapping_add(1);
            if has_next {
                counted[f] = true;
                run.push((periods[f], index[f]));
            } else {
                censored += 1;
            }
        }
        runs.push(run);
    }
    let (stutter, delta) = neighbours(&runs);
    let all: Vec<i64> = runs.iter().flatten().map(|&(p, _)| p).collect();
    let (p, b): (Vec<i64>, Vec<i64>) = periods
        .iter()
        .zip(&between)
        .zip(&counted)
        .filter(|&(_, &c)| c)
        .map(|((&p, &b), _)| (p, b))
        .unzip();
    Side {
        paced: paced(&p, &b),
        median_ns: lower_median(&mut all.clone()),
        runs,
        stutter,
        delta,
        censored,
        periods,
        between,
        counted,
    }
}

fn lower_median(v: &mut [i64]) -> i64 {
    if v.is_empty() {
        return 0;
    }
    let k = (v.len() - 1) / 2;
    *v.select_nth_unstable(k).1
}

/// Each counted frame's stutter flag and its |Δ| from the previous period
/// of its run (`None` for a run's first), in run order.
fn neighbours(runs: &[Vec<(i64, u64)>]) -> (Vec<bool>, Vec<Option<f64>>) {
    let (mut stutter, mut delta) = (Vec::new(), Vec::new());
    let mut around = Vec::with_capacity(2 * STUTTER_NEIGHBOURS);
    for run in runs {
        for i in 0..run.len() {
            let lo = i.saturating_sub(STUTTER_NEIGHBOURS);
            let hi = (i + STUTTER_NEIGHBOURS + 1).min(run.len());
            // A stutter is over 2.5x its neighbours' median, so over 2.5x
            // their least: only those frames need the median.
            let least = (lo..hi)
                .filter(|&j| j != i)
                .map(|j| run[j].0)
                .min()
                .unwrap_or(i64::MAX);
            around.clear();
            if run[i].0 as f64 > STUTTER_FACTOR * least as f64 {
                around.extend((lo..hi).filter(|&j| j != i).map(|j| run[j].0));
            }
            let stut = hi - lo > 4 && around.len() >= 4 && {
                let m = lower_median(&mut around);
                run[i].0 as f64 > STUTTER_FACTOR * m as f64
            };
            stutter.push(stut);
            delta.push((i > 0).then(|| (run[i].0 - run[i - 1].0).abs() as f64));
        }
    }
    (stutter, delta)
}

/// The tail figures judged, B against A, of two sides given as their runs'
/// periods (ns, in order): what `pacing A B` judges, for the calibration
/// of simulated series. `over_ns`: a period over it is over the budget.
pub fn judge_periods(
    a: &[Vec<i64>],
    b: &[Vec<i64>],
    over_ns: f64,
    noise_pct: f64,
    noise_ms: f64,
    alpha: f64,
) -> Vec<FigureChange> {
    changes(
        &side_of_runs(a),
        &side_of_runs(b),
        over_ns,
        (noise_pct, noise_ms, alpha),
        TailGate::default(),
    )
    .0
}

/// A side of runs of periods alone (no trace: frame indices 0).
fn side_of_runs(runs: &[Vec<i64>]) -> Side {
    let runs: Vec<Vec<(i64, u64)>> = runs
        .iter()
        .map(|r| r.iter().map(|&p| (p, 0)).collect())
        .collect();
    let (stutter, delta) = neighbours(&runs);
    Side {
        runs,
        stutter,
        delta,
        censored: 0,
        paced: false,
        median_ns: 0,
        periods: Vec::new(),
        between: Vec::new(),
        counted: Vec::new(),
    }
}

/// The tail figures of runs of periods, in [`FigureChange::figure`]'s
/// order (`p95` … `frame_to_frame`), as [`judge_periods`] judges them.
pub fn tail_figures_of(runs: &[Vec<i64>], over_ns: f64) -> [f64; 7] {
    figures_of(&side_of_runs(runs), over_ns)
}

/// The budget and its source (see the module doc).
fn budget(given_ms: Option<f64>, sides: &[&Side]) -> (f64, &'static str, f64) {
    if let Some(ms) = given_ms {
        return (ms * 1e6, "given", ms * 1e6);
    }
    match sides.iter().find(|s| s.paced) {
        Some(s) => (
            s.median_ns as f64,
            "paced",
            s.median_ns as f64 * (1.0 + PACED_SLACK),
        ),
        None => (DEFAULT_BUDGET_NS, "60 Hz", DEFAULT_BUDGET_NS),
    }
}

/// The tail figures of a sample of periods (`sorted` ascending), with the
/// frames' stutter flags and deltas: `[p95, p99, low_1pct, low_01pct,
/// over_budget share, stutter share, frame to frame]`.
fn tail_figures(sorted: &[i64], stutters: usize, deltas: &mut [f64], over_ns: f64) -> [f64; 7] {
    let n = sorted.len();
    if n == 0 {
        return [0.0; 7];
    }
    let rank = |q: f64| sorted[((q * n as f64).ceil() as usize).clamp(1, n) - 1] as f64;
    let low = |share: f64| {
        let k = ((n as f64 * share).ceil() as usize).clamp(1, n);
        sorted[n - k..].iter().map(|&p| p as f64).sum::<f64>() / k as f64
    };
    let over = n - sorted.partition_point(|&p| p as f64 <= over_ns);
    [
        rank(0.95),
        rank(0.99),
        low(0.01),
        low(0.001),
        over as f64 / n as f64,
        stutters as f64 / n as f64,
        if deltas.is_empty() {
            0.0
        } else {
            let k = (deltas.len() - 1) / 2;
            *deltas.select_nth_unstable_by(k, f64::total_cmp).1
        },
    ]
}

pub const FIGURES: [&str; 7] = [
    "p95",
    "p99",
    "low_1pct",
    "low_01pct",
    "over_budget",
    "stutter",
    "frame_to_frame",
];

fn figures_of(s: &Side, over_ns: f64) -> [f64; 7] {
    let mut sorted: Vec<i64> = s.runs.iter().flatten().map(|&(p, _)| p).collect();
    sorted.sort_unstable();
    let mut deltas: Vec<f64> = s.delta.iter().flatten().copied().collect();
    let stutters = s.stutter.iter().filter(|&&x| x).count();
    tail_figures(&sorted, stutters, &mut deltas, over_ns)
}

fn pacing_of(t: &Trace, thread: &str, s: &Side, over_ns: f64) -> Pacing {
    let flat: Vec<(i64, u64)> = s.runs.iter().flatten().copied().collect();
    let n = flat.len();
    let mut sorted: Vec<i64> = flat.iter().map(|&(p, _)| p).collect();
    sorted.sort_unstable();
    let f = figures_of(s, over_ns);
    let mean_ns = if n > 0 {
        sorted.iter().map(|&p| p as f64).sum::<f64>() / n as f64
    } else {
        0.0
    };
    let rank = |q: f64| nearest_rank(&sorted, q);
    let fps = |ns: f64| if ns > 0.0 { four_digits(1e9 / ns) } else { 0.0 };
    let worst = worst_of(&flat);
    let mut stutter_frames: Vec<u64> = flat
        .iter()
        .zip(&s.stutter)
        .filter(|(_, st)| **st)
        .map(|(&(_, i), _)| i)
        .collect();
    let stutters = stutter_frames.len();
    stutter_frames.truncate(LISTED_FRAMES);
    let series: Vec<f64> = flat.iter().map(|&(p, _)| p as f64).collect();
    let mut run_starts = Vec::new();
    let mut at = 0u32;
    for r in &s.runs[..s.runs.len().saturating_sub(1)] {
        at += r.len() as u32;
        run_starts.push(at);
    }
    let band = shape::band_ns(
        &series,
        super::judge::DEFAULT_NOISE_PCT,
        super::judge::DEFAULT_NOISE_MS,
    );
    let pattern = shape::classify_runs(&series, &run_starts, band);
    let over_budget = n - sorted.partition_point(|&p| p as f64 <= over_ns);
    Pacing {
        frames: n,
        censored: s.censored,
        runs: s.runs.len(),
        mean_ns: mean_ns.round(),
        median_ns: rank(0.5),
        p90_ns: rank(0.9),
        p95_ns: rank(0.95),
        p99_ns: rank(0.99),
        low_1pct_ns: f[2].round(),
        low_1pct_frames: ((n as f64 * 0.01).ceil() as usize).clamp(n.min(1), n),
        low_01pct_ns: f[3].round(),
        low_01pct_frames: ((n as f64 * 0.001).ceil() as usize).clamp(n.min(1), n),
        fps: Fps {
            mean: fps(mean_ns),
            median: fps(rank(0.5) as f64),
            low_1pct: fps(f[2]),
            low_01pct: fps(f[3]),
        },
        worst,
        over_budget,
        over_budget_share: four_digits(f[4]),
        stutters,
        stutter_share: four_digits(f[5]),
        stutter_frames,
        frame_to_frame_ns: f[6].round(),
        paced: s.paced,
        pattern: (!pattern.is_steady()).then(|| pattern.words("frame", n)),
        slow_frames: slow_frames(t, thread, s, over_ns),
        per_run: if s.runs.len() > 1 {
            per_run(s, over_ns)
        } else {
            Vec::new()
        },
        series: flat.iter().map(|&(p, i)| (i, p)).collect(),
    }
}

/// A wait inside a frame: its time, the def of the scope it is in (`None`:
/// between top-level scopes) and the name (string id) of the work it
/// waits for.
struct FrameWait {
    ns: i64,
    parent: Option<usize>,
    work: usize,
}

/// Per counted frame (by index), its waits: each stretch of at least
/// [`WAIT_MIN_NS`] on the frame thread (inside a scope, or between
/// top-level scopes) during which another thread's top-level scope ends;
/// the work it waits for is the one that ends last in it
/// ([`WaitIndex::trace`]).
fn frame_waits<I: Iterator<Item = u32>>(
    t: &Trace,
    thread: Option<crate::engine::model::StrId>,
    counted: &[usize],
    frame_streams: &dyn Fn(usize) -> I,
) -> rustc_hash::FxHashMap<usize, Vec<FrameWait>> {
    let mut out = rustc_hash::FxHashMap::default();
    let Some(own) = thread else {
        return out;
    };
    let index = WaitIndex::of(t);
    // No other thread: no wait.
    if index.threads.len() < 2 {
        return out;
    }
    let roles = ThreadRoles::of(t);
    for &f in counted {
        let mut found = Vec::new();
        for st in frame_streams(f) {
            for_each_stretch(t, &roles, StreamId(st), WAIT_MIN_NS, |x| {
                if let Some(w) = index.trace(own, x.start_ns, x.end_ns) {
                    found.push(FrameWait {
                        ns: x.end_ns - x.start_ns,
                        parent: x.parent.map(|p| t.scopes.def[p.idx()].idx()),
                        work: t.defs.name[t.scopes.def[w.critical.idx()].idx()].idx(),
                    });
                }
            });
        }
        if !found.is_empty() {
            out.insert(f, found);
        }
    }
    out
}

/// Each run's figures: the side's definitions on the run's periods (its
/// stutters are the side's, counted in the run).
fn per_run(s: &Side, over_ns: f64) -> Vec<RunFigures> {
    let mut at = 0;
    s.runs
        .iter()
        .enumerate()
        .map(|(k, run)| {
            let stutters = s.stutter[at..at + run.len()].iter().filter(|&&x| x).count();
            at += run.len();
            let mut sorted: Vec<i64> = run.iter().map(|&(p, _)| p).collect();
            sorted.sort_unstable();
            let n = sorted.len();
            let rank = |q: f64| nearest_rank(&sorted, q);
            let f = tail_figures(&sorted, stutters, &mut [], over_ns);
            let worst = worst_of(run);
            RunFigures {
                run: k + 1,
                frames: n,
                median_ns: rank(0.5),
                p95_ns: rank(0.95),
                p99_ns: rank(0.99),
                low_1pct_ns: f[2].round(),
                over_budget_share: four_digits(f[4]),
                stutter_share: four_digits(f[5]),
                worst,
            }
        })
        .collect()
}

/// The slow frames and their culprits (see the module doc). Two walks of
/// the frame thread's scopes: the parts' means, then the top parts' highs.
fn slow_frames(t: &Trace, thread: &str, s: &Side, over_ns: f64) -> SlowFrames {
    let counted: Vec<usize> = (0..s.periods.len()).filter(|&f| s.counted[f]).collect();
    let n = counted.len();
    let over: Vec<usize> = counted
        .iter()
        .copied()
        .filter(|&f| s.periods[f] as f64 > over_ns)
        .collect();
    let (rule, slow): (&'static str, Vec<usize>) = if !over.is_empty() && over.len() * 2 <= n {
        ("over the budget", over)
    } else {
        let k = ((n as f64 * SLOW_SHARE).ceil() as usize).min(n);
        let mut by: Vec<usize> = counted.clone();
        let key = |&f: &usize| (std::cmp::Reverse(s.periods[f]), f);
        if k > 0 && k < n {
            by.select_nth_unstable_by_key(k - 1, key);
        }
        by.truncate(k);
        by.sort_unstable();
        ("the slowest 5%", by)
    };
    let mut is_slow = vec![false; s.periods.len()];
    for &f in &slow {
        is_slow[f] = true;
    }
    let (ns_slow, ns_typ) = (slow.len(), n - slow.len());
    let mean = |v: f64, k: usize| if k > 0 { v / k as f64 } else { 0.0 };
    let period_sum = |want: bool| {
        counted
            .iter()
            .filter(|&&f| is_slow[f] == want)
            .map(|&f| s.periods[f] as f64)
            .sum::<f64>()
    };
    let (mean_slow, mean_typ) = (
        mean(period_sum(true), ns_slow),
        mean(period_sum(false), ns_typ),
    );
    // Per part (names by string id, then the two unscoped parts): the sum
    // over slow frames and over typical ones.
    let id = t.strings.find(thread);
    let name_of_def = |d: usize| t.defs.name[d].idx();
    let names = t.strings.len();
    let (between_frames, between_scopes) = (names, names + 1);
    // The waits: part `names + 2 + X` is the waiting for work named X.
    let wait_part = |name: usize| names + 2 + name;
    let mut sums = vec![[0f64; 2]; 2 * names + 2];
    let frame_streams = |f: usize| {
        t.frames
            .streams(crate::engine::model::FrameId(f as u32))
            .filter(move |&st| Some(t.threads.name[t.streams.thread[st as usize].idx()]) == id)
    };
    // Slow frames no slower than the others beyond the rows' band (a
    // clock's frames, all alike) have no culprit to name: their parts are
    // not walked.
    let quiet = mean_slow - mean_typ
        <= band_ns(
            mean_typ,
            super::judge::DEFAULT_NOISE_PCT,
            super::judge::DEFAULT_NOISE_MS,
        );
    let waits = if quiet {
        Default::default()
    } else {
        frame_waits(t, id, &counted, &frame_streams)
    };
    // Each counted frame's parts, as (part, ns), handed to `visit`: each
    // name's own time, the time between scopes and between frames; then
    // each wait moved from the part it was in to the work it waits for.
    let parts = |f: usize, visit: &mut dyn FnMut(usize, f64)| {
        let mut top = 0i64;
        for st in frame_streams(f) {
            let range = t.streams.scopes(StreamId(st));
            for i in range.clone() {
                visit(
                    name_of_def(t.scopes.def[i as usize].idx()),
                    t.scopes.self_ns[i as usize] as f64,
                );
            }
            top = t
                .scopes
                .top_level(range)
                .map(|i| t.scopes.duration_ns[i.idx()])
                .fold(top, i64::saturating_add);
        }
        let b = s.between[f];
        visit(between_frames, b as f64);
        visit(between_scopes, (s.periods[f] - b - top).max(0) as f64);
        for w in waits.get(&f).into_iter().flatten() {
            let from = w.parent.map_or(between_scopes, &name_of_def);
            visit(from, -(w.ns as f64));
            visit(wait_part(w.work), w.ns as f64);
        }
    };
    for &f in counted.iter().filter(|_| !quiet) {
        let side = usize::from(!is_slow[f]);
        parts(f, &mut |p, ns| sums[p][side] += ns);
    }
    let mut ranked: Vec<(usize, f64, f64)> = sums
        .iter()
        .enumerate()
        .filter(|(_, s)| s[0] != 0.0 || s[1] != 0.0)
        .map(|(p, s)| (p, mean(s[0], ns_slow), mean(s[1], ns_typ)))
        .collect();
    let part_name = |p: usize| -> String {
        if p == between_frames {
            "(between frames)".to_owned()
        } else if p == between_scopes {
            "(between scopes)".to_owned()
        } else if p >= names + 2 {
            format!(
                "(waiting for {})",
                t.strings
                    .get(crate::engine::model::StrId((p - names - 2) as u32))
            )
        } else {
            t.strings
                .get(crate::engine::model::StrId(p as u32))
                .to_owned()
        }
    };
    ranked.sort_by(|x, y| {
        (y.1 - y.2)
            .total_cmp(&(x.1 - x.2))
            .then_with(|| part_name(x.0).cmp(&part_name(y.0)))
    });
    // On frames paced by a clock the time between frames is the clock's:
    // a frame that missed its slot waits for the next one, the mirror of
    // the work that made it late, never its cause.
    ranked.retain(|r| r.1 - r.2 > 0.0 && !(s.paced && r.0 == between_frames));
    ranked.truncate(CULPRITS);
    let excess = mean_slow - mean_typ;
    if quiet {
        ranked.clear();
    }
    // The highs: frames where a listed part is above its means' midpoint.
    let mut slot = vec![usize::MAX; 2 * names + 2];
    for (k, r) in ranked.iter().enumerate() {
        slot[r.0] = k;
    }
    let mut highs = vec![[0usize; 2]; ranked.len()];
    let mut in_frame = vec![0f64; ranked.len()];
    if ns_slow > 0 && !ranked.is_empty() {
        for &f in &counted {
            in_frame.iter_mut().for_each(|v| *v = 0.0);
            parts(f, &mut |p, ns| {
                if let Some(v) = in_frame.get_mut(slot[p]) {
                    *v += ns;
                }
            });
            let side = usize::from(!is_slow[f]);
            for (k, r) in ranked.iter().enumerate() {
                if in_frame[k] > (r.1 + r.2) / 2.0 {
                    highs[k][side] += 1;
                }
            }
        }
    }

    let mut listed = slow.clone();
    let key = |&f: &usize| (std::cmp::Reverse(s.periods[f]), f);
    if listed.len() > LISTED_FRAMES {
        listed.select_nth_unstable_by_key(LISTED_FRAMES - 1, key);
        listed.truncate(LISTED_FRAMES);
    }
    listed.sort_unstable_by_key(key);
    SlowFrames {
        rule,
        frames: ns_slow,
        frame_indices: listed.iter().map(|&f| t.frames.frame_index[f]).collect(),
        mean_ns: mean_slow.round(),
        typical_mean_ns: mean_typ.round(),
        excess_ns: excess.round(),
        culprits: ranked
            .iter()
            .zip(&highs)
            .map(|(&(p, slow_mean, typ_mean), h)| Culprit {
                part: part_name(p),
                kind: if p == between_frames {
                    "between_frames"
                } else if p == between_scopes {
                    "between_scopes"
                } else if p >= names + 2 {
                    "wait"
                } else {
                    "scope"
                },
                slow_mean_ns: slow_mean.round(),
                typical_mean_ns: typ_mean.round(),
                excess_ns: (slow_mean - typ_mean).round(),
                share: if excess > 0.0 {
                    four_digits((slow_mean - typ_mean) / excess)
                } else {
                    0.0
                },
                in_slow: h[0],
                in_typical: h[1],
            })
            .collect(),
    }
}

/// A small seeded generator (SplitMix64) for the bootstrap: the same
/// resamples on every machine and target.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (((self.next() >> 32) * n as u64) >> 32) as usize
    }
}

/// A side's counted frames by rank, for resamples counted rather than
/// sorted: a resample is how many times it holds each frame, and a tail
/// figure is read from the top ranks down (the median |Δ| from the bottom).
struct Ranked {
    /// The periods ascending, and each frame's (run order) rank among them.
    sorted_p: Vec<i64>,
    rank_p: Vec<u32>,
    /// The |Δ|s ascending, and each frame's rank among them (`u32::MAX`
    /// for a run's first frame).
    sorted_d: Vec<f64>,
    rank_d: Vec<u32>,
    over: Vec<bool>,
    stutter: Vec<bool>,
}

impl Ranked {
    fn of(s: &Side, over_ns: f64) -> Self {
        let periods: Vec<i64> = s.runs.iter().flatten().map(|&(p, _)| p).collect();
        let mut order: Vec<u32> = (0..periods.len() as u32).collect();
        order.sort_by_key(|&i| (periods[i as usize], i));
        let mut rank_p = vec![0; periods.len()];
        for (r, &i) in order.iter().enumerate() {
            rank_p[i as usize] = r as u32;
        }
        let mut d_order: Vec<u32> = (0..s.delta.len() as u32)
            .filter(|&i| s.delta[i as usize].is_some())
            .collect();
        let d = |i: u32| s.delta[i as usize].unwrap_or(0.0);
        d_order.sort_by(|&x, &y| d(x).total_cmp(&d(y)).then(x.cmp(&y)));
        let mut rank_d = vec![u32::MAX; s.delta.len()];
        for (r, &i) in d_order.iter().enumerate() {
            rank_d[i as usize] = r as u32;
        }
        Ranked {
            sorted_p: order.iter().map(|&i| periods[i as usize]).collect(),
            sorted_d: d_order.iter().map(|&i| d(i)).collect(),
            over: periods.iter().map(|&p| p as f64 > over_ns).collect(),
            stutter: s.stutter.clone(),
            rank_p,
            rank_d,
        }
    }

    /// The figures of a resample holding frame (rank) `r` `counts_p[r]`
    /// times: [`tail_figures`]' definitions, read from the counts.
    fn figures(
        &self,
        counts_p: &[u32],
        counts_d: &[u32],
        over: usize,
        stutters: usize,
    ) -> [f64; 7] {
        let n: usize = counts_p.iter().map(|&c| c as usize).sum();
        if n == 0 {
            return [0.0; 7];
        }
        // Ascending position `k` (0-based) among the resample's periods,
        // for the positions wanted, read from the top.
        let pos = |q: f64| ((q * n as f64).ceil() as usize).clamp(1, n) - 1;
        let (p95, p99) = (pos(0.95), pos(0.99));
        let k1 = ((n as f64 * 0.01).ceil() as usize).clamp(1, n);
        let k01 = ((n as f64 * 0.001).ceil() as usize).clamp(1, n);
        let (mut v95, mut v99, mut s1, mut s01) = (None, None, 0.0, 0.0);
        // `above`: how many of the resample's periods lie above rank r.
        let mut above = 0usize;
        for r in (0..counts_p.len()).rev() {
            let c = counts_p[r] as usize;
            if c == 0 {
                continue;
            }
            let v = self.sorted_p[r] as f64;
            // Positions n−above−c … n−above−1 hold this value.
            let (lo, hi) = (n - above - c, n - above - 1);
            for (want, slot) in [(p95, &mut v95), (p99, &mut v99)] {
                if slot.is_none() && (lo..=hi).contains(&want) {
                    *slot = Some(v);
                }
            }
            s1 += v * c.min(k1.saturating_sub(above)) as f64;
            s01 += v * c.min(k01.saturating_sub(above)) as f64;
            above += c;
            if v95.is_some() && above >= k1 {
                break;
            }
        }
        let nd: usize = counts_d.iter().map(|&c| c as usize).sum();
        let mut median_d = 0.0;
        if nd > 0 {
            let want = (nd - 1) / 2;
            let mut below = 0usize;
            for (r, &c) in counts_d.iter().enumerate() {
                below += c as usize;
                if below > want {
                    median_d = self.sorted_d[r];
                    break;
                }
            }
        }
        [
            v95.unwrap_or(0.0),
            v99.unwrap_or(0.0),
            s1 / k1 as f64,
            s01 / k01 as f64,
            over as f64 / n as f64,
            stutters as f64 / n as f64,
            median_d,
        ]
    }
}

/// The tail figures of [`RESAMPLES`] bootstrap resamples of a side (see the
/// module doc), each `[f64; 7]`: moving blocks of `⌈m^⅓⌉` frames within
/// each run of `m` (with several runs, the runs resampled first), each
/// resample counted by rank ([`Ranked`]): linear in the frames.
fn resampled(s: &Side, over_ns: f64, seed: u64) -> Vec<[f64; 7]> {
    let mut rng = Rng(seed);
    let ranked = Ranked::of(s, over_ns);
    // Each run's frames: [start, end) in run order.
    let mut at = 0;
    let runs: Vec<(usize, usize)> = s
        .runs
        .iter()
        .map(|r| {
            at += r.len();
            (at - r.len(), at)
        })
        .filter(|(a, b)| b > a)
        .collect();
    let mut out = Vec::with_capacity(RESAMPLES);
    let mut counts_p = vec![0u32; ranked.sorted_p.len()];
    let mut counts_d = vec![0u32; ranked.sorted_d.len()];
    for _ in 0..RESAMPLES {
        counts_p.fill(0);
        counts_d.fill(0);
        let (mut over, mut stutters) = (0usize, 0usize);
        for &(place_lo, place_hi) in &runs {
            let (lo, hi) = if runs.len() > 1 {
                runs[rng.below(runs.len())]
            } else {
                (place_lo, place_hi)
            };
            let m = hi - lo;
            let block = ((m as f64).cbrt().ceil() as usize).clamp(1, m);
            let mut taken = 0;
            // As many frames as the run in this place.
            while taken < place_hi - place_lo {
                let start = lo + rng.below(m - block + 1);
                for i in start..start + block {
                    counts_p[ranked.rank_p[i] as usize] += 1;
                    over += usize::from(ranked.over[i]);
                    stutters += usize::from(ranked.stutter[i]);
                    if let Some(c) = counts_d.get_mut(ranked.rank_d[i] as usize) {
                        *c += 1;
                    }
                }
                taken += block;
            }
        }
        out.push(ranked.figures(&counts_p, &counts_d, over, stutters));
    }
    out
}

/// The `q` quantile of `v` (sorted), by linear interpolation.
fn quantile(v: &[f64], q: f64) -> f64 {
    let x = q * (v.len() - 1) as f64;
    let (lo, hi) = (x.floor() as usize, x.ceil() as usize);
    v[lo] + (v[hi] - v[lo]) * (x - lo as f64)
}

/// `pacing`: the figures of `a` (and `b`, and their changes) on the
/// frame-driving thread of A (B's when A has none), against `budget_ms`
/// (see the module doc for the default).
pub fn pacing(
    a: &Trace,
    b: Option<&Trace>,
    budget_ms: Option<f64>,
    noise_pct: f64,
    noise_ms: f64,
    alpha: f64,
    gate: TailGate,
) -> PacingReport {
    let thread = frame_thread(a, b);
    let sa = side(a, &thread);
    let sb = b.map(|b| side(b, &thread));
    let sides: Vec<&Side> = std::iter::once(&sa).chain(sb.as_ref()).collect();
    let (budget_ns, budget_source, over_ns) = budget(budget_ms, &sides);
    let pa = pacing_of(a, &thread, &sa, over_ns);
    let pb = b
        .zip(sb.as_ref())
        .map(|(b, sb)| pacing_of(b, &thread, sb, over_ns));
    let (changes, gate) = match &sb {
        Some(sb) => changes(&sa, sb, over_ns, (noise_pct, noise_ms, alpha), gate),
        None => (Vec::new(), None),
    };
    let headline = headline(&pa, pb.as_ref(), &changes, budget_ns);
    PacingReport {
        thread,
        budget_ns: budget_ns.round(),
        budget_source,
        over_ns: over_ns.round(),
        a: pa,
        b: pb,
        changes,
        headline,
        gate,
    }
}

/// Each tail figure judged, B against A (see the module doc).
fn changes(
    sa: &Side,
    sb: &Side,
    over_ns: f64,
    (noise_pct, noise_ms, alpha): (f64, f64, f64),
    gate: TailGate,
) -> (Vec<FigureChange>, Option<TailGateResult>) {
    let (fa, fb) = (figures_of(sa, over_ns), figures_of(sb, over_ns));
    let (ra, rb) = crate::engine::join(
        || resampled(sa, over_ns, 0xA),
        || resampled(sb, over_ns, 0xB),
    );
    let n = |s: &Side| s.runs.iter().map(Vec::len).sum::<usize>();
    let (na, nb) = (n(sa), n(sb));
    let gated = gate.figures();
    let mut checks = Vec::new();
    let changes = FIGURES
        .iter()
        .enumerate()
        .map(|(k, &figure)| {
            let share = matches!(figure, "over_budget" | "stutter");
            // The frames the figure rests on, a side.
            let rests = |n: usize| match figure {
                "p95" => n / 20,
                "p99" | "low_1pct" => n / 100,
                "low_01pct" => n / 1000,
                _ => n / MIN_FRAMES * MIN_TAIL_FRAMES,
            };
            let delta = fb[k] - fa[k];
            let band = if share {
                (noise_pct / 100.0 * fa[k]).max(0.01)
            } else {
                band_ns(fa[k], noise_pct, noise_ms)
            };
            let judged = rests(na) >= MIN_TAIL_FRAMES && rests(nb) >= MIN_TAIL_FRAMES;
            let mut d: Vec<f64> = ra.iter().zip(&rb).map(|(x, y)| y[k] - x[k]).collect();
            d.sort_by(f64::total_cmp);
            let ci = |a: f64| [quantile(&d, a / 2.0), quantile(&d, 1.0 - a / 2.0)];
            let eq_alpha = (2.0 * alpha).min(0.5);
            let verdict = if judged {
                verdict_of(ci(alpha), ci(eq_alpha), band)
            } else {
                Verdict::Inconclusive
            };
            let used = if verdict == Verdict::Unchanged {
                eq_alpha
            } else {
                alpha
            };
            if let Some(&(_, pct)) = gated.iter().find(|(f, _)| *f == figure) {
                // The checks share alpha (Bonferroni).
                let alpha = alpha / gated.len() as f64;
                checks.push(tail_check(
                    figure,
                    pct,
                    (fa[k], fb[k]),
                    ci(alpha),
                    band,
                    judged.then_some(alpha),
                ));
            }
            let round = |x: f64| if share { four_digits(x) } else { x.round() };
            let effect = Effect {
                per: "frame",
                delta_ns: round(delta),
                ci_ns: ci(used).map(round),
                band_ns: round(band),
                level: four_digits(1.0 - used),
                verdict,
                settle: (verdict == Verdict::Inconclusive).then(|| {
                    if judged {
                        "record more frames a side, or several runs a side".to_owned()
                    } else {
                        format!(
                            "the figure rests on fewer than {MIN_TAIL_FRAMES} frames a side \
                             ({na} frames in A, {nb} in B): record more frames to judge it"
                        )
                    }
                }),
            };
            FigureChange {
                figure,
                a: round(fa[k]),
                b: round(fb[k]),
                words: figure_words(figure, fa[k], fb[k], &effect),
                effect,
            }
        })
        .collect();
    let gate = gate.is_set().then_some(TailGateResult { checks });
    (changes, gate)
}

/// One figure against the tail gate: failed when B − A's interval (at the
/// checks' shared alpha; `None`: the figure rests on too few frames) lies
/// above the limit and the noise band, passed when it lies below the limit,
/// inconclusive otherwise (a limit inside the band cannot be told from
/// noise, as the mean's gate).
fn tail_check(
    figure: &'static str,
    pct: f64,
    (a, b): (f64, f64),
    ci: [f64; 2],
    band_ns: f64,
    alpha: Option<f64>,
) -> TailCheck {
    let limit_ns = pct / 100.0 * a;
    let outcome = match alpha {
        None => GateOutcome::Inconclusive,
        Some(_) if ci[0] > limit_ns.max(band_ns) => GateOutcome::Failed,
        Some(_) if ci[1] <= limit_ns => GateOutcome::Passed,
        Some(_) => GateOutcome::Inconclusive,
    };
    let label = figure_label(figure);
    let change = format!(
        "{label} {} → {} ms, {:+.3} ms [{:+.3}, {:+.3}]",
        ms_f(a),
        ms_f(b),
        (b - a) / 1e6,
        ci[0] / 1e6,
        ci[1] / 1e6
    );
    let limit = format!("{} ms ({pct}% of A's)", ms_f(limit_ns));
    let sentence = match (outcome, alpha) {
        (GateOutcome::Failed, _) => format!("{change}: longer by more than {limit}"),
        (GateOutcome::Passed, _) => format!("{change}: within {limit}"),
        (_, None) => format!(
            "{change}: the figure rests on fewer than {MIN_TAIL_FRAMES} frames a side; \
             record more frames to check it against {limit}"
        ),
        _ if limit_ns < band_ns && ci[0] > limit_ns => format!(
            "{change}: past {limit} but not told apart from noise (band ±{} ms); record \
             more frames or several runs a side",
            ms_f(band_ns)
        ),
        _ => format!(
            "{change}: the interval straddles {limit}; record more frames or several runs a side"
        ),
    };
    let round = |x: f64| x.round();
    TailCheck {
        figure,
        pct,
        limit_ns: round(limit_ns),
        a_ns: round(a),
        b_ns: round(b),
        ci_ns: ci.map(round),
        level: four_digits(1.0 - alpha.unwrap_or(0.0)),
        outcome,
        sentence,
    }
}

impl Pacing {
    /// The frame-time curve, ns: median, P90, P95, P99, the 1% low, the
    /// 0.1% low and the worst frame (the report's chart, the app's figures).
    pub fn curve_ns(&self) -> [f64; 7] {
        [
            self.median_ns as f64,
            self.p90_ns as f64,
            self.p95_ns as f64,
            self.p99_ns as f64,
            self.low_1pct_ns,
            self.low_01pct_ns,
            self.worst.duration_ns as f64,
        ]
    }
}

impl FigureChange {
    /// A share of frames (`over_budget`, `stutter`): in points, not ns.
    pub fn is_share(&self) -> bool {
        matches!(self.figure, "over_budget" | "stutter")
    }

    /// B − A and its interval as the tables print them: "+16.667 [+16.100,
    /// +17.002] ms", or for a share "+9.7 [+7.0, +12.3] points".
    pub fn change_text(&self) -> String {
        let e = &self.effect;
        let v = |x: f64| {
            if self.is_share() {
                format!("{:+.1}", x * 100.0)
            } else {
                format!("{:+.3}", x / 1e6)
            }
        };
        format!(
            "{} [{}, {}] {}",
            v(e.delta_ns),
            v(e.ci_ns[0]),
            v(e.ci_ns[1]),
            if self.is_share() { "points" } else { "ms" }
        )
    }
}

/// A figure's name for people.
pub fn figure_label(figure: &str) -> &'static str {
    match figure {
        "p95" => "P95",
        "p99" => "P99",
        "low_1pct" => "1% low",
        "low_01pct" => "0.1% low",
        "over_budget" => "frames over the budget",
        "stutter" => "stutters",
        _ => "frame to frame",
    }
}

fn fps_of(ns: f64) -> String {
    if ns > 0.0 {
        format!("{:.1}", 1e9 / ns)
    } else {
        "–".to_owned()
    }
}

/// "1% low 58.1 → 41.2 fps (17.2 → 24.3 ms): changed, +7.1 ms [+6.1, +8.0]".
fn figure_words(figure: &str, a: f64, b: f64, e: &Effect) -> String {
    let label = figure_label(figure);
    let share = matches!(figure, "over_budget" | "stutter");
    let values = if share {
        format!("{:.1}% → {:.1}%", a * 100.0, b * 100.0)
    } else if figure.starts_with("low") {
        format!(
            "{} → {} fps ({} → {} ms)",
            fps_of(a),
            fps_of(b),
            ms_f(a),
            ms_f(b)
        )
    } else {
        format!("{} → {} ms", ms_f(a), ms_f(b))
    };
    let num = |x: f64| {
        if share {
            format!("{:+.1} points", x * 100.0)
        } else {
            format!("{:+.3} ms", x / 1e6)
        }
    };
    let bare = |x: f64| num(x).replace(" points", "").replace(" ms", "");
    format!(
        "{label} {values}: {}, {} [{}, {}]",
        e.verdict.as_str(),
        num(e.delta_ns),
        bare(e.ci_ns[0]),
        bare(e.ci_ns[1])
    )
}

fn headline(a: &Pacing, b: Option<&Pacing>, changes: &[FigureChange], budget_ns: f64) -> String {
    let one = |p: &Pacing| {
        format!(
            "{} frames: median {} ms ({} fps), P99 {} ms, 1% low {} fps, {} over {} ms ({:.1}%), \
             {} stutter{}",
            p.frames,
            ms_f(p.median_ns as f64),
            fps_of(p.median_ns as f64),
            ms_f(p.p99_ns as f64),
            fps_of(p.low_1pct_ns),
            p.over_budget,
            ms_f(budget_ns),
            p.over_budget_share * 100.0,
            p.stutters,
            if p.stutters == 1 { "" } else { "s" }
        )
    };
    let Some(b) = b else {
        return one(a);
    };
    let changed: Vec<&FigureChange> = changes
        .iter()
        .filter(|c| c.effect.verdict == Verdict::Changed)
        .collect();
    if changed.is_empty() {
        let open = changes
            .iter()
            .filter(|c| c.effect.verdict == Verdict::Inconclusive)
            .map(|c| figure_label(c.figure))
            .collect::<Vec<_>>();
        let first = if open.is_empty() {
            "The slow frames did not change: every tail figure within the noise band".to_owned()
        } else if open.len() == changes.len() {
            format!("No tail figure told apart from noise ({})", open.join(", "))
        } else {
            format!(
                "No tail figure changed; not told apart from noise: {}",
                open.join(", ")
            )
        };
        return format!("{first}. A: {}. B: {}.", one(a), one(b));
    }
    // The culprits that hold a real part of the slow frames' excess (a
    // quarter of the first's or more), at most three.
    let s = &b.slow_frames;
    let named: Vec<String> = s
        .culprits
        .iter()
        .take(3)
        .filter(|c| {
            s.culprits
                .first()
                .is_some_and(|f| c.excess_ns >= 0.25 * f.excess_ns)
        })
        .map(|c| {
            format!(
                "`{}` +{} ms (high in {} of them)",
                c.part,
                ms_f(c.excess_ns),
                c.in_slow
            )
        })
        .collect();
    let culprit = if named.is_empty() {
        String::new()
    } else {
        format!(
            "; B's {} slow frames ({}), against the others: {}",
            s.frames,
            s.rule,
            named.join(", ")
        )
    };
    format!("B's {}{culprit}.", changed_clause(&changed))
}

/// "slow frames got worse: P95 16.615 → 23.458 ms, …" of the changed
/// figures (worse: every one longer or more often; better; or changed).
fn changed_clause(changed: &[&FigureChange]) -> String {
    let words: Vec<String> = changed
        .iter()
        .map(|c| {
            c.words
                .split_once(':')
                .map_or(c.words.clone(), |(w, _)| w.to_owned())
        })
        .collect();
    let up = changed.iter().filter(|c| c.effect.delta_ns > 0.0).count();
    let how = if up == changed.len() {
        "got worse"
    } else if up == 0 {
        "got better"
    } else {
        "changed"
    };
    format!("slow frames {how}: {}", words.join(", "))
}

impl PacingReport {
    /// "B's slow frames got worse: P95 16.615 → 23.458 ms, frames over the
    /// budget 4.8% → 53.8%" when a tail figure changed (`None` otherwise,
    /// and with one recording): what the comparison's headline adds.
    pub fn changed_sentence(&self) -> Option<String> {
        let changed: Vec<&FigureChange> = self
            .changes
            .iter()
            .filter(|c| c.effect.verdict == Verdict::Changed)
            .collect();
        (!changed.is_empty()).then(|| format!("B's {}", changed_clause(&changed)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(seed: u64) -> Vec<Vec<i64>> {
        let mut rng = Rng(seed);
        (0..3)
            .map(|_| {
                (0..200 + rng.below(300))
                    .map(|_| {
                        let hitch = if rng.below(50) == 0 { 3 } else { 1 };
                        (14_000_000 + rng.below(4_000_000) as i64) * hitch
                    })
                    .collect()
            })
            .collect()
    }

    /// The counted figures are the sorted ones: on the frames once each,
    /// and on a resample's counts against the multiset written out.
    #[test]
    fn figures_read_from_counts_are_the_definitions() {
        for seed in 1..20 {
            let side = side_of_runs(&runs(seed));
            let over_ns = 16.5e6;
            let ranked = Ranked::of(&side, over_ns);
            let n = ranked.sorted_p.len();
            let (over, stutters) = (
                ranked.over.iter().filter(|&&x| x).count(),
                ranked.stutter.iter().filter(|&&x| x).count(),
            );
            let ones = ranked.figures(&vec![1; n], &vec![1; ranked.sorted_d.len()], over, stutters);
            assert_eq!(ones, figures_of(&side, over_ns), "seed {seed}");
            // Random counts: the multiset written out and sorted.
            let mut rng = Rng(seed * 7);
            let counts_p: Vec<u32> = (0..n).map(|_| rng.below(3) as u32).collect();
            let counts_d: Vec<u32> = (0..ranked.sorted_d.len())
                .map(|_| rng.below(3) as u32)
                .collect();
            let mut periods: Vec<i64> = Vec::new();
            for (r, &c) in counts_p.iter().enumerate() {
                periods.extend(std::iter::repeat_n(ranked.sorted_p[r], c as usize));
            }
            let mut deltas: Vec<f64> = Vec::new();
            for (r, &c) in counts_d.iter().enumerate() {
                deltas.extend(std::iter::repeat_n(ranked.sorted_d[r], c as usize));
            }
            let want = tail_figures(&periods, 5, &mut deltas, f64::INFINITY);
            let got = ranked.figures(&counts_p, &counts_d, 0, 5);
            for k in [0, 1, 2, 3, 5, 6] {
                assert!(
                    (got[k] - want[k]).abs() < 1e-6,
                    "seed {seed} figure {k}: {got:?} {want:?}"
                );
            }
        }
    }

    #[test]
    fn a_stutter_is_two_and_a_half_times_its_neighbours() {
        let mut run = vec![10_000_000i64; 30];
        run[12] = 25_000_000; // 2.5x: not more
        run[20] = 25_000_001;
        let side = side_of_runs(&[run]);
        let flagged: Vec<usize> = (0..30).filter(|&i| side.stutter[i]).collect();
        assert_eq!(flagged, [20]);
    }
}
