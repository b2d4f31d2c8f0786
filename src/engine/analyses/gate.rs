//! The regression gate (`--fail-on-regression PCT [--min-ms MS]` on
//! `compare` and `report`): the rows the noise model judged slower per call
//! or run more often whose cost per frame beyond the run-to-run drift is
//! more than PCT percent of A's mean frame and more than MS milliseconds,
//! and whose own (self) time changed by as much: the gate counts causes, so
//! a wrapper whose change is all in its children never trips on its own.
//! Never a spike, never noise, never a row only one side has, never the
//! drift alone; `--fail-on-drift PCT` fails on a drift past PCT percent
//! (either way) too. A gap (unprofiled time) judged new or grown past the
//! limit, with no other thread working through it, is a cause of its own
//! ([`GateResult::with_gaps`]), and the scope it is in does not trip for it.

use super::drift::Drift;
use super::gap_diff::{GapChanges, GapVerdict};
use super::gaps::GapKind;
use super::judge::Change;
use crate::engine::model::Trace;
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
    pub thread: String,
    pub kind: GapKind,
    pub path: String,
    pub after: Option<String>,
    pub before: Option<String>,
    pub verdict: GapVerdict,
    pub delta_per_frame_ns: f64,
    pub beyond_drift_ns: f64,
    /// `beyond_drift_ns` of A's mean frame, in percent.
    pub frame_pct: f64,
    pub sentence: String,
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
    /// The row's own time moved past the gate's limit and past the noise
    /// percentage of what it was: the row is a cause (a wrapper whose own
    /// time only drifted, or wandered, is not).
    fn is_cause(&self, limit_ns: f64) -> bool {
        self.beyond_drift_ns > limit_ns
            && self.beyond_drift_ns > self.noise_pct / 100.0 * self.expected_ns
    }
}

impl GateResult {
    /// The gate failed: a row or a gap tripped it, or the drift did.
    pub fn failed(&self) -> bool {
        !self.tripped.is_empty() || !self.tripped_gaps.is_empty() || self.drift_tripped
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
                .is_none_or(|(sum, _)| r.own_beyond_drift_ns - sum > limit)
        });
        let frame = self.mean_frame_a_ns;
        self.tripped_gaps = gaps
            .changed
            .iter()
            .filter(|g| g.verdict.is_growth() && !g.is_wait() && g.beyond_drift_ns > limit)
            .map(|g| TrippedGap {
                thread: g.thread.clone(),
                kind: g.kind,
                path: g.path.clone(),
                after: g.after.clone(),
                before: g.before.clone(),
                verdict: g.verdict,
                delta_per_frame_ns: g.delta_per_frame_ns,
                beyond_drift_ns: g.beyond_drift_ns,
                frame_pct: if frame > 0.0 {
                    100.0 * g.beyond_drift_ns / frame
                } else {
                    0.0
                },
                sentence: g.sentence.clone(),
            })
            .collect();
        self
    }
}

/// The mean frame duration of `trace` (0 without frames).
pub fn mean_frame_ns(trace: &Trace) -> f64 {
    let f = &trace.frames;
    if f.is_empty() {
        return 0.0;
    }
    f.ids().map(|i| f.duration_ns(i) as f64).sum::<f64>() / f.len() as f64
}

impl Gate {
    /// The gate's result for `rows` (name, data, judgement) of a
    /// comparison whose A has a mean frame of `mean_frame_a_ns` and whose
    /// rows were judged against `drift`.
    pub fn check<'r>(
        &self,
        mean_frame_a_ns: f64,
        drift: Option<&Drift>,
        rows: impl Iterator<Item = (&'r str, Option<&'r str>, &'r Change, Own)>,
    ) -> GateResult {
        let limit_ns = (self.pct / 100.0 * mean_frame_a_ns).max(self.min_ms * 1e6);
        let mut tripped: Vec<Tripped> = rows
            .filter(|(_, _, c, own)| {
                c.kind.is_regression() && c.beyond_drift_ns() > limit_ns && own.is_cause(limit_ns)
            })
            .map(|(name, data, c, own)| (name, data, c, own.beyond_drift_ns))
            .map(|(name, data, c, own)| Tripped {
                name: name.to_owned(),
                data: data.map(str::to_owned),
                kind: c.kind,
                delta_per_frame_ns: c.delta_per_frame_ns,
                beyond_drift_ns: c.beyond_drift_ns(),
                own_beyond_drift_ns: own,
                frame_pct: if mean_frame_a_ns > 0.0 {
                    100.0 * c.beyond_drift_ns() / mean_frame_a_ns
                } else {
                    0.0
                },
            })
            .collect();
        tripped.sort_by(|x, y| {
            y.beyond_drift_ns
                .total_cmp(&x.beyond_drift_ns)
                .then_with(|| x.name.cmp(&y.name))
                .then_with(|| x.data.cmp(&y.data))
        });
        GateResult {
            pct: self.pct,
            min_ms: self.min_ms,
            mean_frame_a_ns,
            limit_ns,
            tripped,
            drift_limit_pct: self.drift_pct,
            drift_tripped: self
                .drift_pct
                .zip(drift)
                .is_some_and(|(limit, d)| d.coherent && d.pct.abs() > limit),
            tripped_gaps: Vec::new(),
        }
    }
}
