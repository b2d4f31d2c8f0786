//! The regression gate (`--fail-on-regression PCT [--min-ms MS]` on
//! `compare` and `report`): the rows the noise model judged slower per call
//! or run more often whose cost per frame is more than PCT percent of A's
//! mean frame and more than MS milliseconds. Never a spike, never noise,
//! never a row only one side has.

use super::judge::Change;
use crate::engine::model::Trace;
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gate {
    /// Percent of A's mean frame.
    pub pct: f64,
    /// Milliseconds per frame.
    pub min_ms: f64,
}

/// A row that tripped the gate.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Tripped {
    pub name: String,
    /// `null` for a row of a whole name.
    pub data: Option<String>,
    pub kind: super::judge::Kind,
    pub delta_per_frame_ns: f64,
    /// Of A's mean frame, in percent.
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
    /// comparison whose A has a mean frame of `mean_frame_a_ns`.
    pub fn check<'r>(
        &self,
        mean_frame_a_ns: f64,
        rows: impl Iterator<Item = (&'r str, Option<&'r str>, &'r Change)>,
    ) -> GateResult {
        let limit_ns = (self.pct / 100.0 * mean_frame_a_ns).max(self.min_ms * 1e6);
        let mut tripped: Vec<Tripped> = rows
            .filter(|(_, _, c)| c.kind.is_regression() && c.delta_per_frame_ns > limit_ns)
            .map(|(name, data, c)| Tripped {
                name: name.to_owned(),
                data: data.map(str::to_owned),
                kind: c.kind,
                delta_per_frame_ns: c.delta_per_frame_ns,
                frame_pct: if mean_frame_a_ns > 0.0 {
                    100.0 * c.delta_per_frame_ns / mean_frame_a_ns
                } else {
                    0.0
                },
            })
            .collect();
        tripped.sort_by(|x, y| {
            y.delta_per_frame_ns
                .total_cmp(&x.delta_per_frame_ns)
                .then_with(|| x.name.cmp(&y.name))
                .then_with(|| x.data.cmp(&y.data))
        });
        GateResult {
            pct: self.pct,
            min_ms: self.min_ms,
            mean_frame_a_ns,
            limit_ns,
            tripped,
        }
    }
}
