//! The regression gate (`--fail-on-regression PCT [--min-ms MS]` on
//! `compare` and `report`): the limit is PCT percent of A's mean frame, at
//! least MS milliseconds per frame, over the causes only (Holm); exit 4
//! failed, 5 inconclusive. See docs/statistics.md, section "The gate". A gap
//! judged new or grown past the limit, no other thread working through it,
//! is a cause of its own ([`GateResult::with_gaps`]); `--fail-on-drift PCT`
//! fails on a drift past PCT percent.

use super::super::gaps::GapPlace;
use super::drift::Drift;
use super::gap_diff::{GapChanges, GapVerdict};
pub use super::judge::Own;
use super::judge::{Change, Kind};
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gate {
    /// Percent of A's mean frame.
    pub pct: f64,
    /// Milliseconds per frame.
    pub min_ms: f64,
    /// `--fail-on-drift`: the drift itself fails past this percentage.
    pub drift_pct: Option<f64>,
}

/// A row that tripped the gate.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Tripped {
    pub name: String,
    /// `null` for a row of a whole name.
    pub data: Option<String>,
    pub kind: super::judge::Kind,
    pub delta_per_frame_ns: f64,
    /// Of it, beyond the run-to-run drift: what the gate compares with its
    /// limit.
    pub beyond_drift_ns: f64,
    /// Of it, its own (self) time's change beyond the drift: a cause, not
    /// a wrapper whose change is its children's (those never trip).
    pub own_beyond_drift_ns: f64,
    /// `beyond_drift_ns` of A's mean frame, in percent.
    pub frame_pct: f64,
    /// What the row's change is when it is not its kind's: its own time
    /// grew as a wait in it whose work was split less evenly ("a longer
    /// wait: the work it waits for was split unevenly: …").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub because: Option<String>,
    /// The effect's interval the gate read, at `level`.
    pub ci_ns: [f64; 2],
    pub level: f64,
}

/// What the gate checked and which rows tripped it (largest cost first,
/// ties by name then data).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GateResult {
    pub pct: f64,
    pub min_ms: f64,
    pub mean_frame_a_ns: f64,
    /// The cost per frame a row must exceed: the larger of the two limits.
    pub limit_ns: f64,
    pub tripped: Vec<Tripped>,
    /// Causes whose interval straddles the limit (none tripped): the gate
    /// is inconclusive (exit 5).
    pub inconclusive: Vec<Tripped>,
    /// Waits that ran less in parallel, which made their scopes'
    /// causes inconclusive ([`GateResult::with_lost_parallelism`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lost_parallelism: Vec<String>,
    /// How many causes the gate tested (its family), and at what alpha.
    pub causes: usize,
    pub alpha: f64,
    /// With `--fail-on-drift`: its percentage, and whether the drift is past
    /// it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drift_limit_pct: Option<f64>,
    pub drift_tripped: bool,
    /// Gaps judged new or grown whose time per frame beyond the drift is
    /// past the limit, other threads not working through them (a wait's
    /// cause is the work it waits for): causes of their own, as a row's
    /// own time is ([`GateResult::with_gaps`]).
    pub tripped_gaps: Vec<TrippedGap>,
}

/// A gap that tripped the gate.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TrippedGap {
    #[serde(flatten)]
    pub place: GapPlace,
    pub verdict: GapVerdict,
    pub delta_per_frame_ns: f64,
    pub beyond_drift_ns: f64,
    /// `beyond_drift_ns` of A's mean frame, in percent.
    pub frame_pct: f64,
    pub sentence: String,
}

impl GateResult {
    /// Causes that tripped only as a wait that ran less in parallel (the
    /// wait's scope, its own time grown by the wait) move to inconclusive:
    /// a capture cannot tell fewer free cores from a new lock, so lost
    /// parallelism alone neither passes nor fails the gate. When the work
    /// itself changed beyond the band, the work is the cause (it trips on
    /// its own row).
    pub fn with_lost_parallelism(mut self, waits: &[super::wait_diff::WaitChange]) -> Self {
        // A row whose own time grew as a wait grown by its split: said so.
        for t in self.tripped.iter_mut().chain(self.inconclusive.iter_mut()) {
            if let Some(split) = waits
                .iter()
                .filter(|w| w.place.parent() == t.name && w.delta_median_ns > 0)
                .find_map(|w| w.uneven_split.as_ref())
            {
                t.because = Some(format!("a longer wait: the work it waits for was {split}"));
            }
        }
        let lost: Vec<&super::wait_diff::WaitChange> = waits
            .iter()
            // Past the limit: a smaller lost overlap passes as any
            // change under it does.
            .filter(|w| w.lost_parallelism.is_some() && w.delta_median_ns as f64 > self.limit_ns)
            .collect();
        let moved = |t: &mut Tripped| lost.iter().any(|w| w.place.parent() == t.name);
        self.inconclusive.extend(self.tripped.extract_if(.., moved));
        // The wait's own gap, a cause of its own otherwise: not a cause.
        self.tripped_gaps.retain(|g| {
            !lost.iter().any(|w| {
                (&w.place.thread, &w.place.path, w.place.kind)
                    == (&g.place.thread, &g.place.path, g.place.kind)
            })
        });
        self.lost_parallelism = lost
            .iter()
            .map(|w| {
                format!(
                    "{} in {}: {}",
                    crate::engine::write::escape::markdown(&w.place.thread),
                    crate::engine::write::escape::markdown_code(w.place.parent()),
                    w.lost_parallelism.as_deref().unwrap_or_default()
                )
            })
            .collect();
        self
    }

    /// The gate failed: a row or a gap tripped it, or the drift did.
    pub fn failed(&self) -> bool {
        !self.tripped.is_empty() || !self.tripped_gaps.is_empty() || self.drift_tripped
    }

    /// Not failed, but a cause's interval straddles the limit, or a wait
    /// ran less in parallel.
    pub fn is_inconclusive(&self) -> bool {
        let undecided = !self.inconclusive.is_empty() || !self.lost_parallelism.is_empty();
        !self.failed() && undecided
    }

    /// The runs a side (or pairs) that would put every undecided cause's
    /// interval on one side of the limit, from `runs` now: the interval's
    /// half-width shrinks as `1/√runs` (at least `runs + 1`; `runs` when
    /// nothing is undecided).
    pub fn runs_to_settle(&self, runs: usize) -> usize {
        self.settling(runs as f64)
            .map(|n| n.ceil().min(1e6) as usize)
            .max()
            .map_or(runs, |n| n.max(runs + 1))
    }

    /// Per undecided cause, the runs that would settle it from `runs` now.
    fn settling(&self, runs: f64) -> impl Iterator<Item = f64> + '_ {
        self.inconclusive.iter().map(move |r| {
            let half = (r.ci_ns[1] - r.ci_ns[0]) / 2.0;
            let room = (r.beyond_drift_ns - self.limit_ns).abs().max(1.0);
            (half / room).powi(2) * runs
        })
    }

    /// What would settle an inconclusive gate.
    pub fn settle(&self) -> String {
        let runs = self
            .settling(2.0)
            .map(|n| n.ceil().clamp(3.0, 20.0) as usize)
            .max()
            .unwrap_or(3);
        let runs = format!(
            "record about {runs} runs a side, alternating A and B on one machine, and compare \
             them together (several files a side)"
        );
        if self.lost_parallelism.is_empty() {
            runs
        } else {
            format!(
                "{}: fewer free cores or a new lock; {runs}, on an idle machine",
                self.lost_parallelism.join("; ")
            )
        }
    }

    /// The gate with the comparison's gaps: each new or grown gap (not a
    /// wait) past the limit trips it, and a row whose own-time change those
    /// gaps explain down to the limit no longer does (the gap is the
    /// cause, not the scope around it).
    pub fn with_gaps(mut self, gaps: &GapChanges) -> Self {
        if !self.limit_ns.is_finite() {
            return self; // only --fail-on-drift
        }
        let limit = self.limit_ns;
        self.tripped.retain(|r| {
            gaps.explains(&r.name, None, r.own_beyond_drift_ns)
                .is_none_or(|(sum, _, _)| r.own_beyond_drift_ns - sum > limit)
        });
        // A scope's unprofiled time is conserved as a whole: a stretch that
        // only moved (its neighbours renamed or restructured, a new place
        // where an old one is gone) leaves the scope's gaps summed as they
        // were. A gap trips only when the gaps of its scope (thread, path,
        // kind), summed, grew past the limit too.
        self.tripped_gaps = gaps
            .changed
            .iter()
            .filter(|g| g.verdict.is_growth() && !g.is_wait() && g.beyond_drift_ns > limit)
            .filter(|g| gaps.scope_net_ns(g) > limit)
            .map(|g| TrippedGap {
                place: g.place.clone(),
                verdict: g.verdict,
                delta_per_frame_ns: g.delta_per_frame_ns,
                beyond_drift_ns: g.beyond_drift_ns,
                frame_pct: super::super::common::pct(g.beyond_drift_ns, self.mean_frame_a_ns),
                sentence: g.sentence.clone(),
            })
            .collect();
        self
    }
}

impl Gate {
    /// The gate's result for `rows` (name, data, judgement, own time) of a
    /// comparison whose A has a mean frame of `mean_frame_a_ns` and whose
    /// rows were judged against `drift`, at family-wise level `alpha`.
    pub fn check<'r>(
        &self,
        mean_frame_a_ns: f64,
        drift: Option<&Drift>,
        alpha: f64,
        rows: impl Iterator<Item = (&'r str, Option<&'r str>, &'r Change, Own)>,
    ) -> GateResult {
        use super::effect::{Estimate, holm};
        let limit_ns = super::effect::band_ns(mean_frame_a_ns, self.pct, self.min_ms);
        // The causes, each with its effect against the limit.
        let causes: Vec<(&str, Option<&str>, &Change, Own, Estimate)> = rows
            .filter(|(_, _, c, own)| {
                (c.tested || c.kind == Kind::New)
                    && c.kind != Kind::Gone
                    && own.is_cause(c.beyond_drift_ns())
            })
            .map(|(name, data, c, own)| {
                // The estimate the row was judged by: its typical part when
                // its tail was set apart (a tail both sides share, or one
                // spike, is not a regression of the row).
                let against_limit = Estimate {
                    band_ns: limit_ns,
                    ..*c.judged()
                };
                (name, data, c, own, against_limit)
            })
            .collect();
        // One-sided p-values of "above the limit", two-sided in the
        // intervals' convention.
        let ps: Vec<f64> = causes
            .iter()
            .map(|(.., e)| {
                if e.delta_ns <= limit_ns || !limit_ns.is_finite() {
                    1.0
                } else {
                    e.p()
                }
            })
            .collect();
        let rejected = holm(&ps, alpha);
        let row = |x: &(&str, Option<&str>, &Change, Own, Estimate), level_alpha: f64| Tripped {
            name: x.0.to_owned(),
            data: x.1.map(str::to_owned),
            kind: x.2.kind,
            delta_per_frame_ns: x.2.delta_per_frame_ns,
            beyond_drift_ns: x.2.beyond_drift_ns(),
            own_beyond_drift_ns: x.3.beyond_drift_ns,
            frame_pct: super::super::common::pct(x.2.beyond_drift_ns(), mean_frame_a_ns),
            because: None,
            ci_ns: x.4.interval(level_alpha),
            level: 1.0 - level_alpha,
        };
        let bonferroni = alpha / causes.len().max(1) as f64;
        let (mut tripped, mut inconclusive) = (Vec::new(), Vec::new());
        for (k, x) in causes.iter().enumerate() {
            let [lo, hi] = x.4.interval(bonferroni);
            // Only a change of the model trips: past a limit below the
            // noise band, a row the model cannot tell from the noise
            // (inconclusive) leaves the gate undecided, never failed.
            if rejected[k] && x.3.beyond_drift_ns > limit_ns && x.2.kind.is_change() {
                tripped.push(row(x, bonferroni));
            } else if (hi > limit_ns && lo <= limit_ns && limit_ns.is_finite())
                || (rejected[k] && x.2.kind == Kind::Inconclusive)
            {
                inconclusive.push(row(x, bonferroni));
            }
        }
        let order = |x: &Tripped, y: &Tripped| {
            y.beyond_drift_ns
                .total_cmp(&x.beyond_drift_ns)
                .then_with(|| x.name.cmp(&y.name))
                .then_with(|| x.data.cmp(&y.data))
        };
        tripped.sort_by(order);
        inconclusive.sort_by(order);
        GateResult {
            pct: self.pct,
            min_ms: self.min_ms,
            mean_frame_a_ns,
            limit_ns,
            tripped,
            inconclusive,
            lost_parallelism: Vec::new(),
            causes: causes.len(),
            alpha,
            drift_limit_pct: self.drift_pct,
            drift_tripped: self
                .drift_pct
                .zip(drift)
                .is_some_and(|(limit, d)| d.pct.abs() > limit),
            tripped_gaps: Vec::new(),
        }
    }
}
