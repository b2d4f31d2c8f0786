//! The regression gate (`--fail-on-regression PCT [--min-ms MS]` on
//! `compare` and `report`): the rows the noise model judged slower per call
//! or run more often whose cost per frame beyond the run-to-run drift is
//! more than PCT percent of A's mean frame and more than MS milliseconds,
//! and whose own (self) time changed by as much: the gate counts causes, so
//! a wrapper whose change is all in its children never trips on its own.
//! Never a spike, never noise, never a row only one side has, never the
//! drift alone; `--fail-on-drift PCT` fails on a drift past PCT percent
//! (either way) too.

use super::drift::Drift;
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
    /// The gate failed: a row tripped it, or the drift did.
    pub fn failed(&self) -> bool {
        !self.tripped.is_empty() || self.drift_tripped
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
                .is_some_and(|(limit, d)| d.pct.abs() > limit),
        }
    }
}
