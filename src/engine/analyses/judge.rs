//! The judgement of a change between two recordings, with a noise model:
//! one implementation for `compare`, `calls A B`, the report, the app's diff
//! table and the regression gate.
//!
//! A row (a scope name, or a (name, data) pair) has calls in A and in B.
//! Its change per frame (B's total / B's frames − A's total / A's frames)
//! splits exactly into a **per-call** part, `rate_B × (mean_B − mean_A)`,
//! and a **count** part, `(rate_B − rate_A) × mean_A` (rate = calls per
//! frame). Each part is a real change when it is
//!
//! - at least `pct` percent (the per-call median shift of A's median; the
//!   calls per frame of A's),
//! - at least `ms` milliseconds per frame, and
//! - significant: a two-sided Mann-Whitney U test (normal approximation,
//!   ties corrected) of the per-call durations, and of the calls per frame,
//!   gives p < `alpha`, where both sides have at least [`MIN_TESTED`] calls
//!   (frames); with fewer, the thresholds alone decide and the answer says
//!   so (`tested: false`).
//!
//! A row is a **spike** when one call is more than half of its larger
//! side's total ([`super::common::spike`]): the change is that call, and the
//! other calls are judged on their own (`rest`). Rows on one side only are
//! **new** or **gone**. Everything else that is not a real change is
//! **unchanged** (within noise).

use super::basis::Units;
use serde::Serialize;
use std::ops::Range;

/// Fewer calls (or frames) than this on a side: no rank test.
pub const MIN_TESTED: usize = 5;

/// The noise model's thresholds (`--noise-pct`, `--noise-ms`, `--alpha`)
/// and the run-to-run drift it judges against (`--no-drift`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Noise {
    /// Smallest relative change that counts, in percent.
    pub pct: f64,
    /// Smallest change per frame that counts, in milliseconds.
    pub ms: f64,
    /// Significance level of the rank tests.
    pub alpha: f64,
    /// The common shift in per-call cost each row is judged against.
    pub drift: DriftMode,
}

/// Whether a comparison judges against the run-to-run drift
/// ([`super::drift`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum DriftMode {
    /// Not at all (`--no-drift`): per-call changes are B against A as they are.
    Off,
    /// Estimated by the comparison from its rows (the default).
    #[default]
    Estimate,
    /// Judged against this factor (B's per-call cost over A's), estimated
    /// once for the comparison's several tables.
    Factor(f64),
}

impl Default for Noise {
    fn default() -> Self {
        Self {
            pct: DEFAULT_NOISE_PCT,
            ms: DEFAULT_NOISE_MS,
            alpha: DEFAULT_ALPHA,
            drift: DriftMode::Estimate,
        }
    }
}

pub const DEFAULT_NOISE_PCT: f64 = 5.0;
pub const DEFAULT_NOISE_MS: f64 = 0.05;
pub const DEFAULT_ALPHA: f64 = 0.01;

impl Noise {
    /// The thresholds, checked: a usage error names the bad one.
    pub fn new(pct: f64, ms: f64, alpha: f64) -> Result<Self, String> {
        if !(pct.is_finite() && (0.0..=1000.0).contains(&pct)) {
            return Err(format!(
                "noise_pct: expected 0 to 1000 (percent), got {pct}"
            ));
        }
        if !(ms.is_finite() && ms >= 0.0) {
            return Err(format!(
                "noise_ms: expected 0 or more milliseconds, got {ms}"
            ));
        }
        if !(alpha.is_finite() && alpha > 0.0 && alpha < 1.0) {
            return Err(format!(
                "alpha: expected more than 0 and less than 1, got {alpha}"
            ));
        }
        Ok(Self {
            pct,
            ms,
            alpha,
            drift: DriftMode::Estimate,
        })
    }

    fn ns(&self) -> f64 {
        self.ms * 1e6
    }

    /// The drift factor each row's per-call change is judged against (1
    /// without one).
    pub fn drift_factor(&self) -> f64 {
        match self.drift {
            DriftMode::Factor(f) if f.is_finite() && f > 0.0 => f,
            _ => 1.0,
        }
    }

    /// These thresholds judging against `drift` (an estimate, or none:
    /// then against no drift at all), unless drift is off.
    pub fn with_drift(self, drift: Option<&super::drift::Drift>) -> Self {
        Self {
            drift: match (self.drift, drift) {
                (DriftMode::Off, _) => DriftMode::Off,
                (_, Some(d)) if d.coherent => DriftMode::Factor(d.factor),
                // None, or the names moved apart: judged as measured.
                (_, _) => DriftMode::Factor(1.0),
            },
            ..self
        }
    }
}

/// What kind of change a row shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// Within noise.
    #[default]
    Unchanged,
    /// Slower per call, as often.
    Slower,
    /// Faster per call, as often.
    Faster,
    /// Runs more often per frame, same cost per call.
    MoreOften,
    /// Runs less often per frame, same cost per call.
    LessOften,
    SlowerMoreOften,
    SlowerLessOften,
    FasterMoreOften,
    FasterLessOften,
    /// Costs more per frame, though its typical call and its calls per
    /// frame hold: its mix of call sizes, or a tail that grew.
    Costlier,
    /// Costs less per frame (see [`Kind::Costlier`]).
    Cheaper,
    /// One call is more than half of a side's total.
    Spike,
    /// Only in B.
    New,
    /// Only in A.
    Gone,
}

impl Kind {
    /// The kind as the JSON writes it (`slower-more-often`).
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Unchanged => "unchanged",
            Kind::Slower => "slower",
            Kind::Faster => "faster",
            Kind::MoreOften => "more-often",
            Kind::LessOften => "less-often",
            Kind::SlowerMoreOften => "slower-more-often",
            Kind::SlowerLessOften => "slower-less-often",
            Kind::FasterMoreOften => "faster-more-often",
            Kind::FasterLessOften => "faster-less-often",
            Kind::Costlier => "costlier",
            Kind::Cheaper => "cheaper",
            Kind::Spike => "spike",
            Kind::New => "new",
            Kind::Gone => "gone",
        }
    }

    /// In words, for a table cell ("slower per call, runs more often").
    pub fn words(self) -> &'static str {
        match self {
            Kind::Unchanged => "unchanged (within noise)",
            Kind::Slower => "slower per call",
            Kind::Faster => "faster per call",
            Kind::MoreOften => "runs more often",
            Kind::LessOften => "runs less often",
            Kind::SlowerMoreOften => "slower per call, runs more often",
            Kind::SlowerLessOften => "slower per call, runs less often",
            Kind::FasterMoreOften => "faster per call, runs more often",
            Kind::FasterLessOften => "faster per call, runs less often",
            Kind::Costlier => "costs more per frame (call sizes or tail)",
            Kind::Cheaper => "costs less per frame (call sizes or tail)",
            Kind::Spike => "one spike",
            Kind::New => "new in B",
            Kind::Gone => "gone in B",
        }
    }

    /// The words for something that happens once a frame (the frame
    /// itself): "slower", not "slower per call".
    pub fn words_once(self) -> &'static str {
        match self {
            Kind::Slower => "slower",
            Kind::Faster => "faster",
            k => k.words(),
        }
    }

    fn of(per_call: i8, count: i8) -> Kind {
        match (per_call, count) {
            (0, 0) => Kind::Unchanged,
            (1, 0) => Kind::Slower,
            (-1, 0) => Kind::Faster,
            (0, 1) => Kind::MoreOften,
            (0, -1) => Kind::LessOften,
            (1, 1) => Kind::SlowerMoreOften,
            (1, -1) => Kind::SlowerLessOften,
            (-1, 1) => Kind::FasterMoreOften,
            _ => Kind::FasterLessOften,
        }
    }

    /// Slower per call or more often (the regressions a gate may fail on).
    pub fn is_regression(self) -> bool {
        matches!(
            self,
            Kind::Slower
                | Kind::MoreOften
                | Kind::SlowerMoreOften
                | Kind::SlowerLessOften
                | Kind::FasterMoreOften
                | Kind::Costlier
        )
    }

    /// Something other than noise.
    pub fn is_change(self) -> bool {
        self != Kind::Unchanged
    }
}

/// A side's runs: the calls of each (ranges of its durations), and its
/// frames with calls of each (ranges of its `calls_in_frames`).
type RunChunks = (Vec<Range<usize>>, Vec<Range<usize>>);

/// One side of a row: its calls' durations (any order) and how many calls
/// each frame of the recording made (frames without a call count 0).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sample {
    pub durations_ns: Vec<i64>,
    /// Calls per frame, one entry per frame that made at least one call.
    pub calls_in_frames: Vec<u32>,
    /// Frames of the recording (the calls per frame of the others are 0).
    pub frames: usize,
    /// With several runs of a side: the run of each frame in
    /// `calls_in_frames` (empty: one run).
    pub frame_runs: Vec<u32>,
}

impl Sample {
    fn total_ns(&self) -> f64 {
        self.durations_ns.iter().map(|&d| d as f64).sum()
    }

    fn per_frame_ns(&self) -> f64 {
        self.total_ns() / self.frames.max(1) as f64
    }

    /// Calls per frame (counted per frame: a sample without its spike
    /// still made that call).
    fn rate(&self) -> f64 {
        self.calls_in_frames
            .iter()
            .map(|&c| f64::from(c))
            .sum::<f64>()
            / self.frames.max(1) as f64
    }

    fn mean_ns(&self) -> f64 {
        self.total_ns() / self.durations_ns.len().max(1) as f64
    }

    /// With two or more runs: the calls of each run (ranges of
    /// `durations_ns`) and the frames with calls of each (ranges of
    /// `calls_in_frames`).
    fn run_chunks(&self) -> Option<RunChunks> {
        let runs = &self.frame_runs;
        if runs.len() != self.calls_in_frames.len() || runs.first() == runs.last() {
            return None;
        }
        let (mut calls, mut frames) = (Vec::new(), Vec::new());
        let (mut call0, mut frame0, mut at) = (0, 0, 0);
        for (k, &c) in self.calls_in_frames.iter().enumerate() {
            if k > 0 && runs[k] != runs[k - 1] {
                calls.push(call0..at);
                frames.push(frame0..k);
                (call0, frame0) = (at, k);
            }
            at += c as usize;
        }
        calls.push(call0..at.min(self.durations_ns.len()));
        frames.push(frame0..self.calls_in_frames.len());
        Some((calls, frames))
    }

    /// The cost of each frame, frames without a call included as 0 (the
    /// durations in frame order, `calls_in_frames` of them a frame); `None`
    /// when the two do not add up (a spike's rest keeps the spike's count).
    fn costs_in_frames(&self) -> Option<Vec<i64>> {
        let calls: usize = self.calls_in_frames.iter().map(|&c| c as usize).sum();
        if calls != self.durations_ns.len() {
            return None;
        }
        let mut out = Vec::with_capacity(self.frames.max(self.calls_in_frames.len()));
        let mut at = 0;
        for &c in &self.calls_in_frames {
            let next = at + c as usize;
            out.push(
                self.durations_ns[at..next]
                    .iter()
                    .fold(0i64, |s, &d| s.saturating_add(d)),
            );
            at = next;
        }
        out.resize(out.len().max(self.frames), 0);
        Some(out)
    }

    /// The sample without its largest call.
    fn without_largest(&self) -> Sample {
        let mut d = self.durations_ns.clone();
        if let Some((k, _)) = d.iter().enumerate().max_by_key(|(_, d)| **d) {
            d.remove(k); // in order: the calls stay in frame order
        }
        // The call was made: the calls per frame stay (how often is judged
        // with it, how long without it).
        Sample {
            durations_ns: d,
            calls_in_frames: self.calls_in_frames.clone(),
            frames: self.frames,
            frame_runs: self.frame_runs.clone(),
        }
    }
}

/// The judgement of one row, with the numbers behind it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Change {
    pub kind: Kind,
    /// For a spike: the other calls judged on their own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rest: Option<Kind>,
    /// B − A of the total per frame.
    pub delta_per_frame_ns: f64,
    /// The part of it from the cost per call: `rate_B × (mean_B − mean_A)`.
    pub per_call_part_ns: f64,
    /// The part from the calls per frame: `(rate_B − rate_A) × mean_A`.
    pub count_part_ns: f64,
    /// Of the per-call part, what the run-to-run drift accounts for:
    /// `rate_B × mean_A × (factor − 1)` (0 without drift). The rest,
    /// `delta_per_frame_ns − drift_part_ns`, is what the row changed beyond
    /// it: what the kind judges and the gate counts.
    pub drift_part_ns: f64,
    /// Lower medians of the calls (`null` on a side without calls).
    pub median_a_ns: Option<i64>,
    pub median_b_ns: Option<i64>,
    /// The time-weighted medians: the call size that holds the middle of
    /// the row's time (the median for calls of one size; the big call of a
    /// row that makes two tiny and one big call per frame). The per-call
    /// change is judged on it (`null` when not judged from the calls).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub typical_a_ns: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub typical_b_ns: Option<i64>,
    pub calls_per_frame_a: f64,
    pub calls_per_frame_b: f64,
    /// The rank tests' two-sided p-values (`null` when not tested): of the
    /// calls, of the calls per frame, and of the cost per frame (A's
    /// scaled by the drift factor).
    pub p_per_call: Option<f64>,
    pub p_count: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p_cost: Option<f64>,
    /// The rank tests ran (the row was past the thresholds, and each side
    /// had at least 5 calls and 5 frames).
    pub tested: bool,
    /// A side has fewer than 5 calls: the thresholds alone decided.
    pub few_calls: bool,
}

impl Change {
    /// B − A per frame beyond the run-to-run drift.
    pub fn beyond_drift_ns(&self) -> f64 {
        self.delta_per_frame_ns - self.drift_part_ns
    }
}

fn lower_median(sorted: &[i64]) -> Option<i64> {
    sorted.get(sorted.len().checked_sub(1)? / 2).copied()
}

/// Judges a row: A's calls (`None`: the row is new) against B's (`None`:
/// gone).
pub fn judge(a: Option<&Sample>, b: Option<&Sample>, noise: &Noise) -> Change {
    let mut sorted_a: Vec<i64> = a.map(|s| s.durations_ns.clone()).unwrap_or_default();
    let mut sorted_b: Vec<i64> = b.map(|s| s.durations_ns.clone()).unwrap_or_default();
    sorted_a.sort_unstable();
    sorted_b.sort_unstable();
    let per_frame = |s: Option<&Sample>| s.map_or(0.0, Sample::per_frame_ns);
    let rate = |s: Option<&Sample>| s.map_or(0.0, Sample::rate);
    let mean = |s: Option<&Sample>| s.map_or(0.0, Sample::mean_ns);
    let (ra, rb) = (rate(a), rate(b));
    let factor = noise.drift_factor();
    let mut change = Change {
        kind: Kind::Unchanged,
        rest: None,
        delta_per_frame_ns: per_frame(b) - per_frame(a),
        per_call_part_ns: rb * (mean(b) - mean(a)),
        count_part_ns: (rb - ra) * mean(a),
        drift_part_ns: if a.is_some() && b.is_some() {
            rb * mean(a) * (factor - 1.0)
        } else {
            0.0
        },
        median_a_ns: lower_median(&sorted_a),
        median_b_ns: lower_median(&sorted_b),
        typical_a_ns: None,
        typical_b_ns: None,
        calls_per_frame_a: ra,
        calls_per_frame_b: rb,
        p_per_call: None,
        p_count: None,
        p_cost: None,
        tested: false,
        few_calls: false,
    };
    let (Some(sa), Some(sb)) = (a, b) else {
        change.kind = if a.is_none() { Kind::New } else { Kind::Gone };
        return change;
    };
    if sa.durations_ns.is_empty() || sb.durations_ns.is_empty() {
        change.kind = if sa.durations_ns.is_empty() {
            Kind::New
        } else {
            Kind::Gone
        };
        return change;
    }
    // The spike rule on the side with the larger total.
    let larger = if sb.total_ns() > sa.total_ns() {
        sb
    } else {
        sa
    };
    let largest = larger.durations_ns.iter().copied().max().unwrap_or(0);
    if super::common::spike(
        larger.durations_ns.len() as u64,
        largest,
        larger.total_ns() as i64,
    ) {
        let rest = if std::ptr::eq(larger, sb) {
            judge(Some(sa), Some(&sb.without_largest()), noise)
        } else {
            judge(Some(&sa.without_largest()), Some(sb), noise)
        };
        change.kind = Kind::Spike;
        // A rest that is itself a spike says nothing more.
        change.rest = Some(match rest.kind {
            Kind::Spike => Kind::Unchanged,
            k => k,
        });
        change.p_per_call = rest.p_per_call;
        change.p_count = rest.p_count;
        change.p_cost = rest.p_cost;
        change.tested = rest.tested;
        change.few_calls = rest.few_calls;
        return change;
    }
    change.few_calls = sorted_a.len() < MIN_TESTED || sorted_b.len() < MIN_TESTED;
    change.tested = !change.few_calls;
    let min_ns = noise.ns();
    let rel = noise.pct / 100.0;
    // The cost per frame, its rank test (A's scaled by the drift factor),
    // and how much it wanders within each capture.
    // (Each computed only when a decision needs it: most rows a table
    // judges pass no threshold.)
    let frames_tested = sa.frames >= MIN_TESTED && sb.frames >= MIN_TESTED;
    let costs = std::cell::OnceCell::new();
    let costs = || {
        costs
            .get_or_init(|| sa.costs_in_frames().zip(sb.costs_in_frames()))
            .as_ref()
    };
    let p_cost = || {
        let (ca, cb) = costs()?;
        let mut ca: Vec<i64> = ca.iter().map(|&c| scaled(c, factor)).collect();
        let mut cb = cb.clone();
        ca.sort_unstable();
        cb.sort_unstable();
        Some(mann_whitney_p(&runs(&ca), &runs(&cb)))
    };
    // Per call, beyond the drift: the shift of the typical call (the
    // time-weighted median) from A's times the drift factor, its cost per
    // frame, and a rank test that agrees: of the calls, or (the calls per
    // frame holding) of the cost per frame, which sees a change in the big
    // calls of a row that also makes many small ones.
    let (ta, tb) = (typical(&sorted_a), typical(&sorted_b));
    change.typical_a_ns = Some(ta);
    change.typical_b_ns = Some(tb);
    let (ma, mb) = (ta as f64 * factor, tb as f64);
    let shift = mb - ma;
    let beyond = change.per_call_part_ns - change.drift_part_ns;
    // Within each capture, how far the typical call wanders from one fifth
    // of the calls to the next (frames are not independent): a shift
    // within that is not read as a change.
    // With several runs a side, how far it wanders between runs (the
    // runs' own spread), else between fifths of the capture.
    let by_runs = sa.run_chunks().zip(sb.run_chunks());
    let call_wander = |x: &Sample, chunks: Option<&Vec<Range<usize>>>| match chunks {
        Some(c) => spread(&x.durations_ns, c, typical_unsorted),
        None => wander_ns(&x.durations_ns, typical_unsorted),
    };
    let wander = || {
        (call_wander(sa, by_runs.as_ref().map(|r| &r.0.0)).unwrap_or(0.0) * factor)
            .max(call_wander(sb, by_runs.as_ref().map(|r| &r.1.0)).unwrap_or(0.0))
    };
    let p_per_call = || {
        if factor == 1.0 {
            mann_whitney_p(&runs(&sorted_a), &runs(&sorted_b))
        } else {
            // Scaling keeps the order: the scaled values are still sorted.
            let scaled: Vec<i64> = sorted_a.iter().map(|&d| scaled(d, factor)).collect();
            mann_whitney_p(&runs(&scaled), &runs(&sorted_b))
        }
    };
    if change.tested {
        change.p_per_call = Some(p_per_call());
    }
    let count_holds = (rb - ra).abs() <= rel * ra;
    let mut per_call = 0i8;
    if shift.abs() > rel * ma.abs()
        && beyond.abs() >= min_ns.max(f64::MIN_POSITIVE)
        && shift.abs() > wander()
    {
        let significant = if change.tested {
            change.p_per_call.is_some_and(|p| p < noise.alpha)
                || (count_holds && frames_tested && {
                    change.p_cost = p_cost();
                    change.p_cost.is_some_and(|p| p < noise.alpha)
                })
        } else {
            true
        };
        // The mean's part and the typical call's shift agree in direction.
        if significant && shift.signum() == beyond.signum() {
            per_call = if shift > 0.0 { 1 } else { -1 };
        }
    }
    // Calls per frame.
    let mut count = 0i8;
    let p_count = || mann_whitney_p(&count_runs(sa), &count_runs(sb));
    if (rb - ra).abs() > rel * ra && change.count_part_ns.abs() >= min_ns.max(f64::MIN_POSITIVE) {
        let significant = if frames_tested {
            let p = p_count();
            change.p_count = Some(p);
            p < noise.alpha
        } else {
            true
        };
        if significant {
            count = if rb > ra { 1 } else { -1 };
        }
    } else if frames_tested {
        change.p_count = Some(p_count());
    }
    change.tested &= frames_tested && (change.p_per_call.is_some() || change.p_count.is_some());
    change.kind = Kind::of(per_call, count);
    // The cost per frame, when neither the typical call nor the calls per
    // frame moved: a change in the mix of call sizes, or in a tail.
    let moved = change.beyond_drift_ns();
    if change.kind == Kind::Unchanged
        && frames_tested
        && moved.abs() >= min_ns.max(f64::MIN_POSITIVE)
        && let Some((ca, cb)) = costs()
    {
        let per_frame =
            |c: &[i64]| c.iter().map(|&x| x as f64).sum::<f64>() / c.len().max(1) as f64;
        let expected = per_frame(ca) * factor;
        // Over the frames with calls, in order (the others are appended).
        let (wa, wb) = (
            &ca[..sa.calls_in_frames.len()],
            &cb[..sb.calls_in_frames.len()],
        );
        let frame_wander = |v: &[i64], chunks: Option<&Vec<Range<usize>>>| match chunks {
            Some(c) => spread(v, c, mean_of),
            None => wander_ns(v, mean_of),
        };
        let cost_wander = (frame_wander(wa, by_runs.as_ref().map(|r| &r.0.1)).unwrap_or(0.0)
            * factor)
            .max(frame_wander(wb, by_runs.as_ref().map(|r| &r.1.1)).unwrap_or(0.0));
        if moved.abs() > rel * expected && moved.abs() > cost_wander && {
            change.p_cost = change.p_cost.or_else(p_cost);
            change.p_cost.is_some_and(|p| p < noise.alpha)
        } {
            change.kind = if moved > 0.0 {
                Kind::Costlier
            } else {
                Kind::Cheaper
            };
        }
    }
    change
}

/// `d` times the drift factor, rounded.
fn scaled(d: i64, factor: f64) -> i64 {
    if factor == 1.0 {
        d
    } else {
        (d as f64 * factor).round() as i64
    }
}

/// The time-weighted median of sorted durations: the smallest duration at
/// which the calls up to it hold half the total.
fn typical(sorted: &[i64]) -> i64 {
    let total: f64 = sorted.iter().map(|&d| d.max(0) as f64).sum();
    let mut acc = 0.0;
    for &d in sorted {
        acc += d.max(0) as f64;
        if acc * 2.0 >= total {
            return d;
        }
    }
    sorted.last().copied().unwrap_or(0)
}

fn typical_unsorted(v: &[i64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_unstable();
    typical(&v) as f64
}

fn mean_of(v: &[i64]) -> f64 {
    v.iter().map(|&x| x as f64).sum::<f64>() / v.len().max(1) as f64
}

/// Chunks a capture's values are cut into to see them wander.
const WANDER_CHUNKS: usize = 5;

/// Half the range of `stat` over [`WANDER_CHUNKS`] consecutive chunks of
/// `values` (in frame order): how far the value wanders within one capture.
/// `None` with fewer than 5 values a chunk.
fn wander_ns(values: &[i64], stat: fn(&[i64]) -> f64) -> Option<f64> {
    let n = values.len();
    if n < WANDER_CHUNKS * MIN_TESTED {
        return None;
    }
    let chunks: Vec<Range<usize>> = (0..WANDER_CHUNKS)
        .map(|k| k * n / WANDER_CHUNKS..(k + 1) * n / WANDER_CHUNKS)
        .collect();
    spread(values, &chunks, stat)
}

/// Half the range of `stat` over the non-empty `chunks` of `values`
/// (`None` with fewer than two).
fn spread(values: &[i64], chunks: &[Range<usize>], stat: fn(&[i64]) -> f64) -> Option<f64> {
    let (mut lo, mut hi, mut n) = (f64::INFINITY, f64::NEG_INFINITY, 0);
    for c in chunks {
        let Some(v) = values.get(c.clone()).filter(|v| !v.is_empty()) else {
            continue;
        };
        let v = stat(v);
        lo = lo.min(v);
        hi = hi.max(v);
        n += 1;
    }
    (n >= 2).then_some((hi - lo) / 2.0)
}

/// A side's sums of a row (what its table keeps without the calls).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sums {
    pub count: u64,
    pub total_ns: i64,
    pub max_ns: i64,
}

/// A row's change per frame and its two parts, from the sides' sums.
struct Parts {
    delta: f64,
    per_call: f64,
    count: f64,
    /// Of `per_call`, the drift's part.
    drift: f64,
    rate_a: f64,
    rate_b: f64,
}

fn parts(a: Option<Sums>, b: Option<Sums>, frames: (usize, usize), factor: f64) -> Parts {
    let side = |g: Option<Sums>, frames: usize| {
        g.map_or((0.0, 0.0, 0.0), |g| {
            let f = frames.max(1) as f64;
            (
                g.total_ns as f64 / f,
                g.count as f64 / f,
                g.total_ns as f64 / g.count.max(1) as f64,
            )
        })
    };
    let (pa, rate_a, ma) = side(a, frames.0);
    let (pb, rate_b, mb) = side(b, frames.1);
    Parts {
        delta: pb - pa,
        per_call: rate_b * (mb - ma),
        count: (rate_b - rate_a) * ma,
        drift: if a.is_some() && b.is_some() {
            rate_b * ma * (factor - 1.0)
        } else {
            0.0
        },
        rate_a,
        rate_b,
    }
}

/// Whether a row in both recordings needs its calls to be judged: a
/// possible spike, or a per-call or count part past the thresholds. Every
/// other such row is unchanged by the thresholds alone ([`judge`] agrees:
/// tests/scale.rs checks it on every row of generated worst cases).
pub fn needs_calls(a: Sums, b: Sums, frames: (usize, usize), noise: &Noise) -> bool {
    use super::common::spike;
    if spike(a.count, a.max_ns, a.total_ns) || spike(b.count, b.max_ns, b.total_ns) {
        return true;
    }
    let p = parts(Some(a), Some(b), frames, noise.drift_factor());
    let min_ns = (noise.ms * 1e6).max(f64::MIN_POSITIVE);
    let rel = noise.pct / 100.0;
    (p.per_call - p.drift).abs() >= min_ns
        || ((p.rate_b - p.rate_a).abs() > rel * p.rate_a && p.count.abs() >= min_ns)
}

/// The judgement of a row [`needs_calls`] passed over (or on one side
/// only), from its sums: new, gone or unchanged; no medians, no tests.
pub fn untested(a: Option<Sums>, b: Option<Sums>, frames: (usize, usize), noise: &Noise) -> Change {
    let p = parts(a, b, frames, noise.drift_factor());
    Change {
        kind: match (a, b) {
            (None, _) => Kind::New,
            (_, None) => Kind::Gone,
            _ => Kind::Unchanged,
        },
        rest: None,
        delta_per_frame_ns: p.delta,
        per_call_part_ns: p.per_call,
        count_part_ns: p.count,
        drift_part_ns: p.drift,
        median_a_ns: None,
        median_b_ns: None,
        typical_a_ns: None,
        typical_b_ns: None,
        calls_per_frame_a: p.rate_a,
        calls_per_frame_b: p.rate_b,
        p_per_call: None,
        p_count: None,
        p_cost: None,
        tested: false,
        few_calls: false,
    }
}

/// The samples of `n` rows from their calls `(row, unit, duration)` sorted
/// by row then unit, in a recording of `units` (frames or seconds, of one
/// run or several).
pub fn samples(calls: &[(u32, u32, i64)], n: usize, units: &Units) -> Vec<Sample> {
    let mut out: Vec<Sample> = vec![
        Sample {
            frames: units.count,
            ..Default::default()
        };
        n
    ];
    let runs = units.runs() > 1;
    let mut last: Option<(u32, u32)> = None;
    for &(c, f, d) in calls {
        let s = &mut out[c as usize];
        s.durations_ns.push(d);
        if last == Some((c, f)) {
            if let Some(k) = s.calls_in_frames.last_mut() {
                *k += 1;
            }
        } else {
            s.calls_in_frames.push(1);
            if runs {
                s.frame_runs.push(units.run_of(f));
            }
        }
        last = Some((c, f));
    }
    out
}

/// Sorted values as (value, multiplicity) runs.
fn runs(sorted: &[i64]) -> Vec<(i64, u64)> {
    let mut out: Vec<(i64, u64)> = Vec::new();
    for &v in sorted {
        match out.last_mut() {
            Some((last, n)) if *last == v => *n += 1,
            _ => out.push((v, 1)),
        }
    }
    out
}

/// A side's calls per frame as runs, frames without a call counted as 0.
fn count_runs(s: &Sample) -> Vec<(i64, u64)> {
    let mut counts: Vec<i64> = s.calls_in_frames.iter().map(|&c| i64::from(c)).collect();
    counts.sort_unstable();
    let mut out = runs(&counts);
    let zeros = s.frames.saturating_sub(s.calls_in_frames.len()) as u64;
    if zeros > 0 {
        out.insert(0, (0, zeros));
    }
    out
}

/// The two-sided p-value of the Mann-Whitney U test of `a` against `b`
/// (each sorted (value, multiplicity) runs): normal approximation with the
/// tie correction and a continuity correction. O(runs): the callers sort.
pub fn mann_whitney_p(a: &[(i64, u64)], b: &[(i64, u64)]) -> f64 {
    let na: u64 = a.iter().map(|r| r.1).sum();
    let nb: u64 = b.iter().map(|r| r.1).sum();
    if na == 0 || nb == 0 {
        return 1.0;
    }
    let n = (na + nb) as f64;
    // Merge the runs: each distinct value gets the average of its ranks.
    let (mut i, mut j) = (0, 0);
    let mut rank_sum_a = 0.0f64;
    let mut next_rank = 1.0f64;
    let mut tie_term = 0.0f64;
    while i < a.len() || j < b.len() {
        let v = match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) => x.0.min(y.0),
            (Some(x), None) => x.0,
            (None, Some(y)) => y.0,
            (None, None) => unreachable!(),
        };
        let ca = if a.get(i).is_some_and(|x| x.0 == v) {
            i += 1;
            a[i - 1].1
        } else {
            0
        };
        let cb = if b.get(j).is_some_and(|y| y.0 == v) {
            j += 1;
            b[j - 1].1
        } else {
            0
        };
        let t = (ca + cb) as f64;
        let average = next_rank + (t - 1.0) / 2.0;
        rank_sum_a += average * ca as f64;
        next_rank += t;
        tie_term += t * t * t - t;
    }
    let (na, nb) = (na as f64, nb as f64);
    let u = rank_sum_a - na * (na + 1.0) / 2.0;
    let mean = na * nb / 2.0;
    let var = na * nb / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0)));
    if var <= 0.0 {
        return 1.0; // every value the same
    }
    let z = ((u - mean).abs() - 0.5).max(0.0) / var.sqrt();
    four_digits(erfc(z / std::f64::consts::SQRT_2).clamp(0.0, 1.0))
}

/// `p` to 4 significant digits: `exp` may differ in its last bit between
/// the native and the WebAssembly build, the rounded value does not (the
/// app's diff table and `compare --json` print the same p).
fn four_digits(p: f64) -> f64 {
    format!("{p:.3e}").parse().unwrap_or(p)
}

/// The complementary error function (Chebyshev fit, |error| < 1.2e-7).
fn erfc(x: f64) -> f64 {
    // The fit's coefficients after the constant, evaluated by Horner's rule
    // from the last (a loop, not one nested expression: rustfmt took 20 s
    // on the nested form).
    const C: [f64; 9] = [
        1.000_023_68,
        0.374_091_96,
        0.096_784_18,
        -0.186_288_06,
        0.278_868_07,
        -1.135_203_98,
        1.488_515_87,
        -0.822_152_23,
        0.170_872_77,
    ];
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let mut poly = C[8];
    for &c in C[..8].iter().rev() {
        poly = c + t * poly;
    }
    let r = t * (-z * z - 1.265_512_23 + t * poly).exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(durations_ns: Vec<i64>, frames: usize) -> Sample {
        // One call per frame, round robin.
        let mut calls = vec![0u32; frames];
        for k in 0..durations_ns.len() {
            calls[k % frames] += 1;
        }
        Sample {
            durations_ns,
            calls_in_frames: calls.into_iter().filter(|&c| c > 0).collect(),
            frames,
            frame_runs: Vec::new(),
        }
    }

    #[test]
    fn erfc_matches_known_values() {
        assert!((erfc(0.0) - 1.0).abs() < 1e-7);
        assert!((erfc(1.0) - 0.157_299_207).abs() < 1e-6);
        assert!((erfc(2.0) - 0.004_677_735).abs() < 1e-6);
        assert!((erfc(-1.0) - 1.842_700_793).abs() < 1e-6);
    }

    #[test]
    fn mann_whitney_against_a_textbook_case() {
        // No overlap, 10 against 10: U = 0, z = (50 - 0.5) / sqrt(175) = 3.742,
        // p = 1.83e-4 (two-sided, continuity corrected).
        let a: Vec<(i64, u64)> = (1..=10).map(|v| (v, 1)).collect();
        let b: Vec<(i64, u64)> = (11..=20).map(|v| (v, 1)).collect();
        let p = mann_whitney_p(&a, &b);
        assert_eq!(p, 1.827e-4);
        // Identical samples: no evidence.
        assert!(mann_whitney_p(&a, &a) > 0.9);
        // All ties: p = 1.
        assert_eq!(mann_whitney_p(&[(5, 10)], &[(5, 7)]), 1.0);
    }

    #[test]
    fn kinds_of_change() {
        let noise = Noise::default();
        let base: Vec<i64> = (0..100).map(|k| 1_000_000 + (k % 7) * 1_000).collect();
        let slower: Vec<i64> = base.iter().map(|d| d * 3 / 2).collect();
        let a = sample(base.clone(), 100);
        assert_eq!(
            judge(Some(&a), Some(&sample(slower, 100)), &noise).kind,
            Kind::Slower
        );
        let twice: Vec<i64> = base.iter().chain(&base).copied().collect();
        let c = judge(Some(&a), Some(&sample(twice, 100)), &noise);
        assert_eq!(c.kind, Kind::MoreOften, "{c:?}");
        assert!((c.count_part_ns - c.delta_per_frame_ns).abs() < 1.0);
        assert_eq!(judge(Some(&a), Some(&a), &noise).kind, Kind::Unchanged);
        assert_eq!(judge(None, Some(&a), &noise).kind, Kind::New);
        assert_eq!(judge(Some(&a), None, &noise).kind, Kind::Gone);
        let mut spiky = base.clone();
        spiky[3] = 500_000_000;
        let s = judge(Some(&a), Some(&sample(spiky, 100)), &noise);
        assert_eq!((s.kind, s.rest), (Kind::Spike, Some(Kind::Unchanged)));
    }

    #[test]
    fn the_test_is_sub_quadratic() {
        // A million calls a side is judged (the runs make it linear after
        // the sort); a quadratic test would not finish in a test's time.
        let a: Vec<i64> = (0..1_000_000).map(|k| 1_000 + k % 997).collect();
        let b: Vec<i64> = (0..1_000_000).map(|k| 1_050 + k % 991).collect();
        let c = judge(
            Some(&sample(a, 1000)),
            Some(&sample(b, 1000)),
            &Noise::default(),
        );
        assert!(c.tested);
        assert!(c.p_per_call.is_some());
    }
}
