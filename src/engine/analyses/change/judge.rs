//! The judgement of a row (a name, a (name, data) pair, a call path, a gap,
//! the frame) between two recordings: its effect ([`super::effect`]), and
//! for a changed row its kind (count part, per-call part, spike, new, gone).
//! A row's change splits into the drift's `(f − 1) × A's cost`, the count
//! part `(rate_B − rate_A) × f × mean_A` and the per-call part `rate_B ×
//! (mean_B − f × mean_A)`. See docs/statistics.md, section "The verdict".

use super::basis::{Basis, Units};
use super::effect::{self, Effect, Estimate, Series, Terms, Verdict};
use serde::Serialize;

/// The noise model's thresholds (`--noise-pct`, `--noise-ms`, `--alpha`)
/// and the run-to-run terms it judges against (`--no-drift`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Noise {
    /// Half the band, in percent of A's cost (times the drift).
    pub pct: f64,
    /// Half the band, in milliseconds per unit (the larger of the two).
    pub ms: f64,
    /// The false-discovery rate of a comparison's rows (one row judged
    /// alone: its interval's two-sided level is `1 − alpha`).
    pub alpha: f64,
    /// The common shift in per-call cost each row is judged against.
    pub drift: DriftMode,
    /// A row's own run-to-run spread (log), the drift's standard error
    /// (log) and, with several runs a side, the between-run variance every
    /// row shares ([`effect::Terms`]).
    pub tau: f64,
    pub drift_se: f64,
    pub run_var: f64,
    /// The weight (degrees of freedom) of `run_var`.
    pub run_df: f64,
    /// The sides' runs were recorded alternately and pair up (`ab`,
    /// `report --paired`): each row is judged by the pairs' differences.
    pub paired: bool,
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
            tau: effect::DEFAULT_TAU,
            drift_se: effect::DEFAULT_DRIFT_SE,
            run_var: 0.0,
            run_df: 0.0,
            paired: false,
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
            ..Self::default()
        })
    }

    /// The drift factor each row's per-call change is judged against (1
    /// without one).
    pub fn drift_factor(&self) -> f64 {
        match self.drift {
            DriftMode::Factor(f) if f.is_finite() && f > 0.0 => f,
            _ => 1.0,
        }
    }

    /// The terms every row's interval carries.
    pub fn terms(&self) -> Terms {
        Terms {
            factor: self.drift_factor(),
            drift_se: if self.drift == DriftMode::Off {
                0.0
            } else {
                self.drift_se
            },
            tau: self.tau,
            run_var: self.run_var,
            run_df: self.run_df,
            paired: self.paired,
        }
    }

    /// A name's own run-to-run spread `τ` (log) with one run a side: the
    /// pair's busy names' spread around the drift, at most the prior
    /// (`self.tau`: [`effect::DEFAULT_TAU`] or `--run-spread-pct`, what
    /// runs of the same code vary on this kind of machine). The pair's own
    /// changes can only widen its names' spread, so they never raise `τ`
    /// past the prior and hide themselves; a pair quieter than the prior
    /// (names that agree) is judged at its own spread.
    pub fn one_run_tau(&self, drift: Option<&super::drift::Drift>) -> f64 {
        drift.map_or(self.tau, |d| d.tau.min(self.tau))
    }

    /// These thresholds judging against `drift` (an estimate, with its
    /// error and the names' spread; or none: no factor, and the default
    /// spread and error), unless drift is off (no factor, no drift error).
    pub fn with_drift(self, drift: Option<&super::drift::Drift>) -> Self {
        match (self.drift, drift) {
            (DriftMode::Off, _) => Self {
                drift_se: 0.0,
                tau: self.one_run_tau(drift),
                ..self
            },
            (_, Some(d)) => {
                // The median's error is the names' spread over √n: the same
                // spread, held to the prior as `τ` is. A drift its interval
                // does not name is not subtracted (its error is carried);
                // names that do not agree give no estimate (the default
                // error).
                let tau = self.one_run_tau(drift);
                Self {
                    drift: DriftMode::Factor(if d.named { d.factor } else { 1.0 }),
                    tau,
                    drift_se: match (d.agree, d.tau > tau) {
                        (false, _) => effect::DEFAULT_DRIFT_SE,
                        (true, true) => d.se * tau / d.tau,
                        (true, false) => d.se,
                    },
                    ..self
                }
            }
            (_, None) => Self {
                drift: DriftMode::Factor(1.0),
                drift_se: effect::DEFAULT_DRIFT_SE,
                ..self
            },
        }
    }

    /// These thresholds with no drift and no run-to-run terms: the sides
    /// as measured, their sampling alone (the frame, which holds idle time
    /// and vsync: its caller adds what its scopes carry).
    pub fn as_measured(self) -> Self {
        Self {
            drift: DriftMode::Factor(1.0),
            drift_se: 0.0,
            tau: 0.0,
            ..self
        }
    }
}

/// What kind of change a row shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// Its interval lies inside the noise band.
    #[default]
    Unchanged,
    /// Its interval straddles the band's edge: neither a change nor
    /// unchanged (see its `effect.settle`).
    Inconclusive,
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
    /// One or two calls of one side past its far-out fence, none of the
    /// other's, the typical calls not changed ([`Tail`]).
    Spike,
    /// Only in B.
    New,
    /// Only in A.
    Gone,
}

impl Kind {
    /// The kind as the JSON writes it (`slower-more-often`).
    pub fn as_str(self) -> &'static str {
        self.names().0
    }

    /// In words, for a table cell ("slower per call, runs more often").
    pub fn words(self) -> &'static str {
        self.names().1
    }

    /// [`Self::as_str`] and [`Self::words`].
    fn names(self) -> (&'static str, &'static str) {
        match self {
            Kind::Unchanged => ("unchanged", "unchanged (within noise)"),
            Kind::Inconclusive => ("inconclusive", "inconclusive (not told apart from noise)"),
            Kind::Slower => ("slower", "slower per call"),
            Kind::Faster => ("faster", "faster per call"),
            Kind::MoreOften => ("more-often", "runs more often"),
            Kind::LessOften => ("less-often", "runs less often"),
            Kind::SlowerMoreOften => ("slower-more-often", "slower per call, runs more often"),
            Kind::SlowerLessOften => ("slower-less-often", "slower per call, runs less often"),
            Kind::FasterMoreOften => ("faster-more-often", "faster per call, runs more often"),
            Kind::FasterLessOften => ("faster-less-often", "faster per call, runs less often"),
            Kind::Costlier => ("costlier", "costs more per frame (call sizes or tail)"),
            Kind::Cheaper => ("cheaper", "costs less per frame (call sizes or tail)"),
            Kind::Spike => ("spike", "one spike"),
            Kind::New => ("new", "new in B"),
            Kind::Gone => ("gone", "gone in B"),
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

    /// Slower per call or more often (the regressions a gate may fail on).
    pub fn is_regression(self) -> bool {
        use Kind::*;
        matches!(
            self,
            Slower | MoreOften | SlowerMoreOften | SlowerLessOften | FasterMoreOften | Costlier
        )
    }

    /// Slower or faster per call (as often or not).
    pub fn is_per_call(self) -> bool {
        use Kind::*;
        matches!(
            self,
            Slower | Faster | SlowerMoreOften | SlowerLessOften | FasterMoreOften | FasterLessOften
        )
    }

    /// A change: its interval cleared the band (or the row is on one side
    /// only, or one call is its change).
    pub fn is_change(self) -> bool {
        !matches!(self, Kind::Unchanged | Kind::Inconclusive)
    }
}

/// One side of a row: its calls' durations in unit order, how many calls
/// each unit with calls made, and which units those are.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sample {
    pub durations_ns: Vec<i64>,
    /// Calls per unit, one entry per unit that made at least one call.
    pub calls_in_frames: Vec<u32>,
    /// The unit of each entry of `calls_in_frames` (ascending).
    pub frame_units: Vec<u32>,
    /// Units of the recording (the calls per unit of the others are 0).
    pub frames: usize,
    /// With several runs of a side: the first unit of each run after the
    /// first (empty: one run).
    pub run_starts: Vec<u32>,
    pub basis: Basis,
}

impl Sample {
    /// A side with one value a unit (a gap's time, the frame's duration):
    /// `per_unit[k]` is unit `k`'s.
    pub fn per_unit(per_unit: Vec<i64>, units: &Units) -> Self {
        Sample {
            calls_in_frames: vec![1; per_unit.len()],
            frame_units: (0..per_unit.len() as u32).collect(),
            frames: per_unit.len(),
            run_starts: units.run_starts(),
            basis: units.basis,
            durations_ns: per_unit,
        }
    }

    /// One row's side from its calls `(unit, duration)`, in any order.
    pub fn of_calls(calls: impl Iterator<Item = (u32, i64)>, units: &Units) -> Self {
        let mut v: Vec<(u32, u32, i64)> = calls.map(|(u, d)| (0, u, d)).collect();
        v.sort_unstable();
        samples(&v, 1, units).pop().unwrap_or_default()
    }

    fn total_ns(&self) -> f64 {
        self.durations_ns.iter().map(|&d| d as f64).sum()
    }

    /// Its [`Side`].
    fn side(&self) -> Side {
        let per_frame_ns = self.total_ns() / self.frames.max(1) as f64;
        (per_frame_ns, self.rate(), self.mean_ns())
    }

    /// Calls per unit.
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

    /// The cost of each unit, in order (0 in a unit without a call).
    pub fn cost_series(&self) -> Vec<f64> {
        self.series().0
    }

    /// The cost and the calls of each unit, in order.
    fn series(&self) -> (Vec<f64>, Vec<f64>) {
        let (mut cost, mut calls) = (vec![0.0; self.frames], vec![0.0; self.frames]);
        let mut at = 0;
        for (&c, &u) in self.calls_in_frames.iter().zip(&self.frame_units) {
            let next = (at + c as usize).min(self.durations_ns.len());
            if let (Some(x), Some(r)) = (cost.get_mut(u as usize), calls.get_mut(u as usize)) {
                *x += self.durations_ns[at..next]
                    .iter()
                    .map(|&d| d as f64)
                    .sum::<f64>();
                *r += f64::from(c);
            }
            at = next;
        }
        (cost, calls)
    }

    /// Each call cut at `fence_ns` (its typical part) or, `excess`, only
    /// what it takes past it (its tail part): the calls per unit stay.
    fn cut(&self, fence_ns: i64, excess: bool) -> Sample {
        let mut s = self.clone();
        for d in &mut s.durations_ns {
            *d = if excess {
                d.saturating_sub(fence_ns).max(0)
            } else {
                (*d).min(fence_ns)
            };
        }
        s
    }
}

/// The judgement of one row, with the numbers behind it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Change {
    /// What changed: a kind of change on a changed row; `unchanged` or
    /// `inconclusive` otherwise (as `effect.verdict`); `spike`, `new`,
    /// `gone`.
    pub kind: Kind,
    /// For a spike: the typical calls (each cut at its side's fence)
    /// judged on their own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rest: Option<Kind>,
    /// The calls past their side's far-out fence, judged apart ([`Tail`]);
    /// absent when no call of either side is past it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tail: Option<Tail>,
    /// The calls per unit judged alone, whatever the row's time did:
    /// `more-often` or `less-often` when their interval (sampling only: how
    /// often code runs is the program's, not the machine's) clears the noise
    /// percentage of A's calls; absent otherwise. A row whose time is not a
    /// change can still run twice as often (each call half as long, or its
    /// time too noisy to tell).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calls: Option<Kind>,
    /// B − A of the total per unit.
    pub delta_per_frame_ns: f64,
    /// The part of it from the cost per call: `delta − count part` (the
    /// drift's part included; beyond it: `rate_B × (mean_B − f × mean_A)`).
    pub per_call_part_ns: f64,
    /// The part from the calls per unit: `(rate_B − rate_A) × f × mean_A`.
    pub count_part_ns: f64,
    /// What the run-to-run drift accounts for: `(f − 1) × A's cost per
    /// unit` (0 without drift). The rest, `delta_per_frame_ns −
    /// drift_part_ns`, is the effect the verdict judges.
    pub drift_part_ns: f64,
    /// Lower medians of the calls (`null` on a side without calls).
    pub median_a_ns: Option<i64>,
    pub median_b_ns: Option<i64>,
    /// The time-weighted medians: the call size that holds the middle of
    /// the row's time (`null` when not judged from the calls).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub typical_a_ns: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub typical_b_ns: Option<i64>,
    /// The calls' P90, P99 (nearest rank) and the longest call, a side:
    /// the evidence of a change in call sizes (`null` when not judged from
    /// the calls).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calls_a_ns: Option<CallQuantiles>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calls_b_ns: Option<CallQuantiles>,
    pub calls_per_frame_a: f64,
    pub calls_per_frame_b: f64,
    /// The mean call (`null` on a side without calls): what the per-call
    /// part rests on.
    pub per_call_a_ns: Option<f64>,
    pub per_call_b_ns: Option<f64>,
    /// The effect, its interval and the verdict ([`super::effect`]).
    pub effect: Effect,
    /// Judged from its calls (else from its sums: one side only, or the
    /// prefilter's bound).
    pub tested: bool,
    /// The estimates the verdict is decided from, at the family's level.
    #[serde(skip)]
    pub raw: Raw,
}

/// What [`Change::decide`] reads.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Raw {
    pub row: Estimate,
    /// The count part's estimate (ns per unit, band of the row's).
    pub count: Option<Estimate>,
    /// The calls per unit's estimate (calls per unit; its band the noise
    /// percentage of A's calls per unit).
    pub calls: Option<Estimate>,
    /// The typical calls (each cut at its side's fence) judged alone, and
    /// the tail's estimate (the time past the fences per unit), when a call
    /// of either side is past its fence.
    pub typical: Option<Box<Change>>,
    pub tail: Option<Estimate>,
    /// Which of them the verdict was decided from.
    pub part: Part,
    /// The tail's change per unit is past the noise milliseconds (what
    /// one spike must move its row by).
    pub tail_past_ms: bool,
    /// The drift factor and the noise percentage the row was judged with.
    pub factor: f64,
    pub pct: f64,
}

/// Which estimate of a row its verdict was decided from ([`Tail`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Part {
    /// The row whole (no tail, or a tail that changed beside typical calls
    /// that did).
    #[default]
    Whole,
    /// Its typical calls (its tail set apart).
    Typical,
    /// Its tail (its typical calls unchanged, its tail changed).
    Tail,
}

/// A row's tail: the calls past their side's far-out fence (Tukey's: the
/// third quartile of the side's calls plus three interquartile ranges, the
/// range at least the noise percentage of the quartile; sides of 8 calls
/// and more). The row's cost per unit is its typical part (each call cut
/// at the fence) plus its tail part (what the calls take past it); each is
/// judged. A tail that is not a change (its own interval does not clear
/// the band) is said apart and the row is judged by its typical part: a
/// slow call both sides make now and then, or one or two calls of one
/// side, never make the row's verdict. A tail that is a change (a stall
/// every n-th frame, the slow half of a step) judges the row whole. See
/// docs/statistics.md, section "The typical and the tail".
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Tail {
    pub fence_a_ns: Option<i64>,
    pub fence_b_ns: Option<i64>,
    /// Calls past the fence on each side.
    pub calls_a: usize,
    pub calls_b: usize,
    /// Their time past the fence, per unit.
    pub past_a_ns: f64,
    pub past_b_ns: f64,
    /// The tail part's change (B − A of the time past the fences per unit).
    pub effect: Effect,
    /// The row was judged by its typical part (the tail not a change).
    pub apart: bool,
}

impl Tail {
    /// In words, of `what` ("call", "frame"): "2 calls of B past 6.900 ms
    /// (A: none), +0.810 ms per frame".
    pub fn words(&self, what: &str) -> String {
        let side = |n: usize, fence: Option<i64>, label: &str| match (n, fence) {
            (0, _) | (_, None) => format!("{label}: none"),
            (n, Some(f)) => format!(
                "{n} {what}{} of {label} past {:.3} ms",
                if n == 1 { "" } else { "s" },
                f as f64 / 1e6
            ),
        };
        let (a, b) = (
            side(self.calls_a, self.fence_a_ns, "A"),
            side(self.calls_b, self.fence_b_ns, "B"),
        );
        let (first, second) = if self.calls_b >= self.calls_a {
            (b, a)
        } else {
            (a, b)
        };
        format!(
            "{first} ({second}), {:+.3} ms per {}",
            self.effect.delta_ns / 1e6,
            self.effect.per
        )
    }
}

impl Change {
    /// Its tail when it was set apart (the row judged by its typical
    /// calls, or one spike).
    pub fn apart(&self) -> Option<&Tail> {
        self.tail.as_ref().filter(|t| t.apart)
    }

    /// The estimate the row's verdict was decided from: its typical part's
    /// when its tail was set apart, else its own.
    pub fn judged(&self) -> &Estimate {
        match (self.raw.part, &self.raw.typical, &self.raw.tail) {
            (Part::Typical, Some(typical), _) => &typical.raw.row,
            (Part::Tail, _, Some(tail)) => tail,
            _ => &self.raw.row,
        }
    }

    /// Every estimate of the row (its own, its typical part's, its tail's):
    /// what a term shared by the row's parts widens.
    pub fn estimates_mut(&mut self) -> impl Iterator<Item = &mut Estimate> {
        let typical = self.raw.typical.as_deref_mut().map(|t| &mut t.raw.row);
        std::iter::once(&mut self.raw.row)
            .chain(typical)
            .chain(self.raw.tail.as_mut())
    }

    /// B − A per unit beyond the run-to-run drift.
    pub fn beyond_drift_ns(&self) -> f64 {
        self.delta_per_frame_ns - self.drift_part_ns
    }

    /// The verdict and the kind at two-sided level `1 − alpha` (the
    /// family's, [`effect::fdr_alpha`]).
    pub fn decide(&mut self, alpha: f64) {
        self.effect = self.raw.row.effect(alpha, self.effect.per);
        if matches!(self.kind, Kind::New | Kind::Gone) {
            return;
        }
        self.calls = self.raw.calls.as_ref().and_then(|c| {
            (c.verdict(alpha) == Verdict::Changed).then_some(if c.delta_ns > 0.0 {
                Kind::MoreOften
            } else {
                Kind::LessOften
            })
        });
        self.kind = self.kind_at(alpha);
        self.rest = None;
        self.raw.part = Part::Whole;
        let (Some(typical), Some(tail_est), Some(tail)) = (
            self.raw.typical.as_mut(),
            self.raw.tail.as_ref(),
            self.tail.as_mut(),
        ) else {
            return;
        };
        typical.decide(alpha);
        tail.effect = tail_est.effect(alpha, self.effect.per);
        tail.apart = tail.effect.verdict != Verdict::Changed;
        if !tail.apart {
            // The tail is a change: the row judged whole, never left
            // inconclusive beside a part that changed. Its typical calls
            // unchanged, the change is its tail's (a stall every n-th frame):
            // it costs more or less per frame.
            if !typical.kind.is_change() {
                self.effect = tail.effect.clone();
                self.kind = if tail.effect.delta_ns > 0.0 {
                    Kind::Costlier
                } else {
                    Kind::Cheaper
                };
                self.raw.part = Part::Tail;
            } else if !self.kind.is_change() {
                self.effect = typical.effect.clone();
                self.kind = typical.kind;
                self.raw.part = Part::Typical;
            }
            return;
        }
        // The tail is not a change: the row is judged by its typical calls
        // when they changed; else one or two calls of one side past its
        // fence, none of the other's, whose time moves the row by more than
        // the noise milliseconds, are one spike (the typical calls said
        // beside it); else by its typical calls too, the tail said apart,
        // when the tail is unchanged or both sides have one whose estimate
        // lies inside the band (a tail both sides share, one like stall a
        // side, is no evidence of a change: the row is not left
        // inconclusive by it); else the row is judged
        // whole, a tail that is not a change never making it one (stalls
        // only one side has, not told apart: inconclusive).
        let few = |n: usize, other: usize| (1..=2).contains(&n) && other == 0;
        let spike = (few(tail.calls_a, tail.calls_b) || few(tail.calls_b, tail.calls_a))
            && self.raw.tail_past_ms;
        self.raw.part = Part::Typical;
        if typical.kind.is_change() {
            self.effect = typical.effect.clone();
            self.kind = typical.kind;
        } else if spike {
            // (Its effect the row's whole: the spike's time is in it.)
            (self.kind, self.rest) = (Kind::Spike, Some(typical.kind));
        } else if self.kind != Kind::Unchanged
            && (tail.effect.verdict == Verdict::Unchanged
                || (tail.calls_a > 0
                    && tail.calls_b > 0
                    && tail.effect.delta_ns.abs() <= tail.effect.band_ns))
        {
            self.effect = typical.effect.clone();
            self.kind = typical.kind;
        } else if self.kind.is_change() {
            self.kind = Kind::Inconclusive;
            self.effect.verdict = Verdict::Inconclusive;
        }
    }

    fn kind_at(&self, alpha: f64) -> Kind {
        match self.effect.verdict {
            Verdict::Unchanged => return Kind::Unchanged,
            Verdict::Inconclusive => return Kind::Inconclusive,
            Verdict::Changed => {}
        }
        let row = &self.raw.row;
        let sign = |v: Verdict, delta: f64| match v {
            Verdict::Changed if delta > 0.0 => 1i8,
            Verdict::Changed => -1,
            _ => 0,
        };
        let (per_call, count) = match &self.raw.count {
            Some(c) => {
                // Its variance the two parts' sum, its degrees of freedom
                // Welch–Satterthwaite's over them: a count that does not
                // vary (as many calls in every unit) adds neither.
                let (vr, vc) = (row.se_ns * row.se_ns, c.se_ns * c.se_ns);
                let den = vr * vr / row.df.max(1e-9) + vc * vc / c.df.max(1e-9);
                let pc = Estimate {
                    delta_ns: row.delta_ns - c.delta_ns,
                    // (Not `hypot`: the same bits on native and wasm.)
                    se_ns: (vr + vc).sqrt(),
                    df: if den > 0.0 {
                        ((vr + vc) * (vr + vc) / den).min(row.df + c.df)
                    } else {
                        row.df
                    },
                    ..*row
                };
                (
                    sign(pc.verdict(alpha), pc.delta_ns),
                    sign(c.verdict(alpha), c.delta_ns),
                )
            }
            None => (sign(Verdict::Changed, row.delta_ns), 0),
        };
        // The mean call moved but the typical call (the time-weighted
        // median) held within the noise percentage: a mix of call sizes,
        // or a tail, not every call slower.
        let typical_held = match (self.typical_a_ns, self.typical_b_ns) {
            (Some(ta), Some(tb)) => {
                let expected = self.raw.factor * ta as f64;
                (tb as f64 - expected).abs() <= self.raw.pct / 100.0 * expected
            }
            _ => false,
        };
        let per_call = if typical_held { 0 } else { per_call };
        match (per_call, count) {
            (0, 0) if row.delta_ns > 0.0 => Kind::Costlier,
            (0, 0) => Kind::Cheaper,
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
}

fn lower_median(calls: &mut [i64]) -> Option<i64> {
    let k = calls.len().checked_sub(1)? / 2;
    Some(*calls.select_nth_unstable(k).1)
}

/// Judges a row alone: A's calls (`None`: the row is new) against B's
/// (`None`: gone), its interval at level `1 − alpha`.
pub fn judge(a: Option<&Sample>, b: Option<&Sample>, noise: &Noise) -> Change {
    let mut c = estimate(a, b, noise);
    c.decide(noise.alpha);
    c
}

/// A row's estimates, its verdict not yet decided (a comparison decides
/// its rows together, [`decide_family`]): the row whole and, when it has a
/// tail, its typical and tail parts ([`Tail`]).
pub fn estimate(a: Option<&Sample>, b: Option<&Sample>, noise: &Noise) -> Change {
    let mut change = whole(a, b, noise);
    if let (true, Some(sa), Some(sb)) = (change.tested, a, b) {
        split(&mut change, sa, sb, noise);
    }
    change
}

/// A row's estimates as a whole (its calls as they are).
fn whole(a: Option<&Sample>, b: Option<&Sample>, noise: &Noise) -> Change {
    let mut calls_a: Vec<i64> = a.map(|s| s.durations_ns.clone()).unwrap_or_default();
    let mut calls_b: Vec<i64> = b.map(|s| s.durations_ns.clone()).unwrap_or_default();
    let basis = a.or(b).map_or(Basis::Frame, |s| s.basis);
    let both = a.is_some_and(|s| !s.durations_ns.is_empty())
        && b.is_some_and(|s| !s.durations_ns.is_empty());
    let side = |s: Option<&Sample>| s.map_or((0.0, 0.0, 0.0), Sample::side);
    let factor = if both { noise.drift_factor() } else { 1.0 };
    let mut change = exact_change(side(a), side(b), factor, noise, basis);
    change.median_a_ns = lower_median(&mut calls_a);
    change.median_b_ns = lower_median(&mut calls_b);
    let (true, Some(sa), Some(sb)) = (both, a, b) else {
        change.kind = if a.is_none_or(|s| s.durations_ns.is_empty()) {
            Kind::New
        } else {
            Kind::Gone
        };
        return change;
    };
    change.tested = true;
    change.typical_a_ns = Some(typical(&mut calls_a));
    change.typical_b_ns = Some(typical(&mut calls_b));
    change.calls_a_ns = Some(CallQuantiles::of(&mut calls_a));
    change.calls_b_ns = Some(CallQuantiles::of(&mut calls_b));
    let terms = noise.terms();
    // One run a side: a step or trend through the run is the row's cost,
    // not noise around it (`shape::detrended`); with several runs, each
    // run's mean is a unit and a shape inside a run averages out. A count
    // that steps or grows through the run is the program's, as a cost that
    // does is: taken around its shape the same way (its band the noise
    // percentage of its calls, no floor: calls have no milliseconds). The
    // cost is calls times cost per call: without a shape of its own, it is
    // taken around its calls' shape at its mean call.
    let shaped = |s: &Sample| {
        let (x, r) = s.series();
        if !s.run_starts.is_empty() {
            return (x, r);
        }
        let calls = super::shape::detrended(&r, super::shape::band_ns(&r, noise.pct, 0.0));
        let cost = super::shape::detrended(&x, super::shape::band_ns(&x, noise.pct, noise.ms))
            .or_else(|| {
                let around = calls.as_ref()?;
                let per_call = s.mean_ns();
                Some(
                    x.iter()
                        .zip(&r)
                        .zip(around)
                        .map(|((x, r), a)| x - (r - a) * per_call)
                        .collect(),
                )
            });
        (cost.unwrap_or(x), calls.unwrap_or(r))
    };
    let ((ca, ra), (cb, rb)) = (shaped(sa), shaped(sb));
    change.raw.row = Estimate {
        eq_alpha: noise.alpha,
        ..effect::estimate(
            &Series::new(&ca, &sa.run_starts),
            &Series::new(&cb, &sb.run_starts),
            &terms,
            noise.pct,
            noise.ms,
        )
    };
    // The count part: the calls per unit, at A's cost per call (times the
    // drift), with the row's band (its sampling only: see below).
    let per_call_a = terms.factor * sa.mean_ns();
    let rates = effect::estimate(
        &Series::new(&ra, &sa.run_starts),
        &Series::new(&rb, &sb.run_starts),
        // Sampling alone: the spread and the drift are of the cost per
        // call; how often code runs is the program's, not the machine's.
        &Terms {
            paired: noise.paired,
            ..Terms::none()
        },
        0.0,
        0.0,
    );
    change.raw.count = Some(Estimate {
        delta_ns: rates.delta_ns * per_call_a,
        se_ns: rates.se_ns * per_call_a,
        band_ns: change.raw.row.band_ns,
        ..rates
    });
    change.raw.calls = Some(Estimate {
        band_ns: noise.pct / 100.0 * sa.rate(),
        eq_alpha: noise.alpha,
        ..rates
    });
    change
}

/// The far-out fence of a side's calls (reordered): the third quartile
/// plus three interquartile ranges, the range at least `pct` percent of
/// the quartile ([`Tail`]). Under 8 calls, quartiles say little: the
/// largest call is far out when it is more than all the others together
/// (the fence the next largest); `None` otherwise.
fn far_out_ns(calls: &mut [i64], pct: f64) -> Option<i64> {
    let n = calls.len();
    if n < 8 {
        let total = calls.iter().map(|&d| i128::from(d)).sum::<i128>();
        let total = total.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64;
        calls.sort_unstable();
        return match calls {
            [.., next, max] if super::super::common::spike(n as u64, *max, total) => Some(*next),
            _ => None,
        };
    }
    let q1 = *calls.select_nth_unstable(n / 4).1;
    let q3 = *calls.select_nth_unstable(3 * n / 4).1;
    let iqr = (q3 as f64 - q1 as f64).max(pct / 100.0 * q3 as f64);
    Some(q3.saturating_add((3.0 * iqr).round() as i64))
}

/// The row's tail ([`Tail`]): when a call of either side is past its
/// fence, its typical part judged alone and its tail part's estimate.
fn split(change: &mut Change, sa: &Sample, sb: &Sample, noise: &Noise) {
    let fence = |s: &Sample| far_out_ns(&mut s.durations_ns.clone(), noise.pct);
    let (fa, fb) = (fence(sa), fence(sb));
    let past = |s: &Sample, f: Option<i64>| {
        f.map_or(0, |f| s.durations_ns.iter().filter(|&&d| d > f).count())
    };
    let (calls_a, calls_b) = (past(sa, fa), past(sb, fb));
    if calls_a + calls_b == 0 {
        return;
    }
    let cut = |s: &Sample, f: Option<i64>, excess: bool| match f {
        Some(f) => s.cut(f, excess),
        None if excess => s.cut(i64::MAX, true),
        None => s.clone(),
    };
    let (ta, tb) = (cut(sa, fa, false), cut(sb, fb, false));
    let (xa, xb) = (cut(sa, fa, true), cut(sb, fb, true));
    let (ca, cb) = (xa.cost_series(), xb.cost_series());
    let per_unit = |x: &[f64]| x.iter().sum::<f64>() / x.len().max(1) as f64;
    change.tail = Some(Tail {
        fence_a_ns: fa,
        fence_b_ns: fb,
        calls_a,
        calls_b,
        past_a_ns: per_unit(&ca),
        past_b_ns: per_unit(&cb),
        ..Tail::default()
    });
    let mut tail = Estimate {
        eq_alpha: noise.alpha,
        ..effect::estimate(
            &Series::new(&ca, &sa.run_starts),
            &Series::new(&cb, &sb.run_starts),
            &noise.terms(),
            noise.pct,
            noise.ms,
        )
    };
    change.raw.tail_past_ms = (per_unit(&cb) - per_unit(&ca)).abs() > noise.ms * 1e6;
    // The tail is part of the row: judged against the row's band, its
    // run-to-run spread and drift error the row's (a loaded machine's
    // stalls grow a row's tail as much as they move its mean).
    tail.band_ns = change.raw.row.band_ns;
    if let (Some(x), Some(row)) = (tail.single.as_mut(), change.raw.row.single.as_ref()) {
        (x.scale_ns, x.drift_var) = (row.scale_ns, row.drift_var);
        tail.with_tau(noise.terms().tau);
    }
    change.raw.tail = Some(tail);
    change.raw.typical = Some(Box::new(whole(Some(&ta), Some(&tb), noise)));
}

/// Judges a family of rows in both recordings (A's samples and B's, row by
/// row) together: with several runs a side, the between-run variance the
/// rows share first (into `noise`: the moderated variance's prior), then
/// each row's estimates, decided as one family ([`decide_family`]).
pub fn judge_rows(a: &[Sample], b: &[Sample], noise: &mut Noise) -> Vec<Change> {
    if a.iter().chain(b).any(|s| !s.run_starts.is_empty()) {
        (noise.run_var, noise.run_df) = shared_run_variance(a, b, &noise.terms());
    }
    let mut changes: Vec<Change> = a
        .iter()
        .zip(b)
        .map(|(a, b)| estimate(Some(a), Some(b), noise))
        .collect();
    // One run a side: the rows' own run-to-run spread measured on the
    // family itself too (their cost per unit, beyond what their batches
    // sample), when enough rows are in both. Both estimates err upwards,
    // each its own way (the drift's holds the per-call sampling; the
    // family's, the wrappers that carry their children's changes): the
    // smaller holds.
    let rows: Vec<&Estimate> = changes.iter().map(|c| &c.raw.row).collect();
    // (The family's own: `noise` keeps the drift's, which every table
    // of a comparison starts from.)
    if let Some(tau) = effect::shared_tau(&rows).filter(|&t| t < noise.tau) {
        for c in &mut changes {
            c.estimates_mut().for_each(|e| e.with_tau(tau));
        }
    }
    decide_family(changes.iter_mut(), noise.alpha);
    changes
}

/// Decides a family's rows together: Benjamini–Hochberg at the noise's
/// alpha over the rows judged from their calls, each row's interval at the
/// level that selection used ([`effect::fdr_alpha`]). Returns that level's
/// alpha.
pub fn decide_family<'c>(rows: impl Iterator<Item = &'c mut Change>, alpha: f64) -> f64 {
    let mut rows: Vec<&mut Change> = rows.collect();
    let ps: Vec<f64> = rows
        .iter()
        .filter(|c| c.tested)
        .map(|c| c.raw.row.p())
        .collect();
    let level = effect::fdr_alpha(&ps, alpha);
    rows.iter_mut().for_each(|c| c.decide(level));
    level
}

/// With several runs a side: the between-run variance every row shares
/// and its weight, fitted to the rows' relative between-run variances
/// ([`effect::run_variance`], [`effect::fit_prior`]); `(0, 0)` with one run
/// a side, or no row in several runs.
pub fn shared_run_variance(a: &[Sample], b: &[Sample], terms: &Terms) -> (f64, f64) {
    let vars: Vec<(f64, f64)> = a
        .iter()
        .zip(b)
        .filter_map(|(a, b)| {
            let (ca, cb) = (a.cost_series(), b.cost_series());
            let (v, df) = effect::run_variance(
                &Series::new(&ca, &a.run_starts),
                &Series::new(&cb, &b.run_starts),
                terms,
            )?;
            (df > 0.0 && v.is_finite() && v > 0.0).then_some((v, df))
        })
        .collect();
    effect::fit_prior(&vars)
}

/// The time-weighted median of durations (reordered): the smallest at
/// which the calls up to it, ascending, hold half the total. Found by
/// selection, halves set aside, not by a sort (sums of integers in f64:
/// exact below 2^53 ns).
/// A side's calls in three figures ([`Change::calls_a_ns`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct CallQuantiles {
    pub p90: i64,
    pub p99: i64,
    pub max: i64,
}

impl CallQuantiles {
    /// Of `calls` (reordered; nearest rank: the `⌈q·n⌉`-th smallest). One
    /// selection over the calls, the next two over what lies above it.
    fn of(calls: &mut [i64]) -> Self {
        let n = calls.len();
        if n == 0 {
            return Self::default();
        }
        let at = |q: f64| ((q * n as f64).ceil() as usize).clamp(1, n) - 1;
        let (k90, k99) = (at(0.9), at(0.99));
        // `upper`: the calls ranked above the P90's, in no order.
        let (_, &mut p90, upper) = calls.select_nth_unstable(k90);
        let p99 = if k99 == k90 {
            p90
        } else {
            *upper.select_nth_unstable(k99 - k90 - 1).1
        };
        let max = upper.iter().copied().fold(p90, i64::max);
        Self { p90, p99, max }
    }
}

fn typical(calls: &mut [i64]) -> i64 {
    let size = |v: &[i64]| v.iter().map(|&d| d.max(0) as f64).sum::<f64>();
    let mut half = size(calls) / 2.0;
    let mut rest = calls;
    while rest.len() > 1 {
        let (lower, &mut mid, upper) = rest.select_nth_unstable(rest.len() / 2);
        let below = size(lower);
        if below >= half && !lower.is_empty() {
            rest = lower;
        } else if below + mid.max(0) as f64 >= half {
            return mid;
        } else {
            half -= below + mid.max(0) as f64;
            rest = upper;
        }
    }
    rest.first().copied().unwrap_or(0)
}

/// A side's sums of a row (what its table keeps without the calls).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sums {
    pub count: u64,
    pub total_ns: i64,
    pub max_ns: i64,
}

/// A side's cost per unit, calls per unit and mean call (0s: no side).
type Side = (f64, f64, f64);

impl Sums {
    /// The [`Side`] of `g` over `frames` units.
    fn side(g: Option<Sums>, frames: usize) -> Side {
        g.map_or((0.0, 0.0, 0.0), |g| {
            let f = frames.max(1) as f64;
            (
                g.total_ns as f64 / f,
                g.count as f64 / f,
                g.total_ns as f64 / g.count.max(1) as f64,
            )
        })
    }
}

/// A row's change per unit and its parts from its sides at drift `factor`,
/// its effect exact (the sides' sums, no sampling): the row is on one side
/// only, or the prefilter's bound.
fn exact_change(
    (per_frame_a, rate_a, mean_a): Side,
    (per_frame_b, rate_b, _): Side,
    factor: f64,
    noise: &Noise,
    basis: Basis,
) -> Change {
    let expected = factor * per_frame_a;
    let row = effect::bounded(expected, per_frame_b, noise.pct, noise.ms).unwrap_or(Estimate {
        delta_ns: per_frame_b - expected,
        band_ns: effect::band_ns(expected, noise.pct, noise.ms),
        exact: Some([per_frame_b - expected; 2]),
        ..Default::default()
    });
    let delta = per_frame_b - per_frame_a;
    let count = (rate_b - rate_a) * factor * mean_a;
    Change {
        delta_per_frame_ns: delta,
        per_call_part_ns: delta - count,
        count_part_ns: count,
        drift_part_ns: (factor - 1.0) * per_frame_a,
        calls_per_frame_a: rate_a,
        calls_per_frame_b: rate_b,
        per_call_a_ns: (rate_a > 0.0).then(|| per_frame_a / rate_a),
        per_call_b_ns: (rate_b > 0.0).then(|| per_frame_b / rate_b),
        effect: row.effect(noise.alpha, basis.unit()),
        raw: Raw {
            row,
            factor,
            pct: noise.pct,
            ..Default::default()
        },
        ..Default::default()
    }
}

/// Whether a row in both recordings needs its calls to be judged: its
/// larger side costs at least the band per unit. Every other such row is
/// unchanged by construction ([`effect::bounded`]).
pub fn needs_calls(a: Sums, b: Sums, frames: (usize, usize), noise: &Noise) -> bool {
    let [pa, pb] = [(a, frames.0), (b, frames.1)].map(|(s, n)| Sums::side(Some(s), n).0);
    effect::bounded(noise.drift_factor() * pa, pb, noise.pct, noise.ms).is_none()
}

/// The judgement of a row [`needs_calls`] passed over (or on one side
/// only), from its sums: new, gone or unchanged, its interval exact.
pub fn untested(
    a: Option<Sums>,
    b: Option<Sums>,
    frames: (usize, usize),
    noise: &Noise,
    basis: Basis,
) -> Change {
    let factor = a.and(b).map_or(1.0, |_| noise.drift_factor());
    let (sa, sb) = (Sums::side(a, frames.0), Sums::side(b, frames.1));
    let mut c = exact_change(sa, sb, factor, noise, basis);
    c.kind = match (a, b) {
        (None, _) => Kind::New,
        (_, None) => Kind::Gone,
        _ => Kind::Unchanged,
    };
    c
}

/// `calls` `(row, unit, duration)` of `rows` rows ordered by row, then
/// unit, in linear time (counting passes by unit, then by row): each
/// unit's calls stay in the order given (what is read of them, sums of
/// integers and their order statistics, does not depend on it).
pub fn sort_calls(calls: &mut Vec<(u32, u32, i64)>, rows: usize) {
    let units = calls.iter().map(|c| c.1 as usize + 1).max().unwrap_or(0);
    let by = |calls: &mut Vec<(u32, u32, i64)>, keys: usize, key: fn(&(u32, u32, i64)) -> u32| {
        let mut start = vec![0usize; keys + 1];
        for c in calls.iter() {
            start[key(c) as usize + 1] += 1;
        }
        for k in 0..keys {
            start[k + 1] += start[k];
        }
        let mut out = vec![(0u32, 0u32, 0i64); calls.len()];
        for &c in calls.iter() {
            let at = &mut start[key(&c) as usize];
            out[*at] = c;
            *at += 1;
        }
        *calls = out;
    };
    // Calls found in scope order are mostly in their units' order already.
    if !calls.is_sorted_by_key(|c| c.1) {
        by(calls, units, |c| c.1);
    }
    by(calls, rows, |c| c.0);
}

/// The samples of `n` rows from their calls `(row, unit, duration)` sorted
/// by row then unit ([`sort_calls`]), in a recording of `units` (frames or
/// seconds, of one run or several).
pub fn samples(calls: &[(u32, u32, i64)], n: usize, units: &Units) -> Vec<Sample> {
    let mut out: Vec<Sample> = vec![
        Sample {
            frames: units.count,
            run_starts: units.run_starts(),
            basis: units.basis,
            ..Default::default()
        };
        n
    ];
    let mut last: Option<(u32, u32)> = None;
    for &(c, f, d) in calls {
        let s = &mut out[c as usize];
        s.durations_ns.push(d);
        match s.calls_in_frames.last_mut() {
            Some(k) if last == Some((c, f)) => *k += 1,
            _ => {
                s.calls_in_frames.push(1);
                s.frame_units.push(f);
            }
        }
        last = Some((c, f));
    }
    out
}

/// A row's own (self) time per frame: its change beyond the drift, what
/// A's times the drift factor expected, and the noise percentage.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Own {
    pub beyond_drift_ns: f64,
    pub expected_ns: f64,
    pub noise_pct: f64,
}

impl Own {
    /// Most of the row's growth `beyond_ns` is its own time: a cause (a
    /// wrapper whose change is its children's is not).
    pub(crate) fn is_cause(&self, beyond_ns: f64) -> bool {
        beyond_ns > 0.0 && self.beyond_drift_ns >= 0.5 * beyond_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(durations_ns: Vec<i64>, frames: usize) -> Sample {
        // Round robin over the frames, in frame order.
        let mut per_frame: Vec<Vec<i64>> = vec![Vec::new(); frames];
        for (k, d) in durations_ns.into_iter().enumerate() {
            per_frame[k % frames].push(d);
        }
        let mut s = Sample {
            frames,
            ..Default::default()
        };
        for (f, calls) in per_frame.into_iter().enumerate() {
            if !calls.is_empty() {
                s.calls_in_frames.push(calls.len() as u32);
                s.frame_units.push(f as u32);
                s.durations_ns.extend(calls);
            }
        }
        s
    }

    #[test]
    fn one_row_alone_is_not_called_unchanged() {
        // One row alone, nothing measured of how rows vary between runs:
        // the same calls are not called unchanged within 5% (the default
        // run-to-run spread is wider than the band), and a 1.5x slower row
        // is still a change.
        let base: Vec<i64> = (0..100).map(|k| 1_000_000 + (k % 7) * 1_000).collect();
        let a = sample(base.clone(), 100);
        let alone = judge(Some(&a), Some(&a), &Noise::default());
        assert_eq!(alone.kind, Kind::Inconclusive, "{alone:?}");
        let settle = alone.effect.settle.as_deref().unwrap_or_default();
        assert!(settle.contains("runs a side"), "{settle}");
        let slower: Vec<i64> = base.iter().map(|d| d * 3 / 2).collect();
        let c = judge(Some(&a), Some(&sample(slower, 100)), &Noise::default());
        assert_eq!(c.kind, Kind::Slower, "{c:?}");
    }

    #[test]
    fn a_million_calls_a_side_are_judged() {
        let a: Vec<i64> = (0..1_000_000).map(|k| 1_000 + k % 997).collect();
        let b: Vec<i64> = (0..1_000_000).map(|k| 1_050 + k % 991).collect();
        let c = judge(
            Some(&sample(a, 1000)),
            Some(&sample(b, 1000)),
            &Noise::default(),
        );
        assert!(c.tested);
        assert!(c.effect.ci_ns[0] <= c.effect.ci_ns[1]);
    }
}
