//! `calls`: every call of a name in time order, with a summary and its
//! heavy tail.

use super::common::*;
use crate::engine::model::{ScopeIdx, Trace};
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CallsSummary {
    pub count: u64,
    pub total_ns: i64,
    pub min_ns: i64,
    /// Lower median.
    pub median_ns: i64,
    pub mean_ns: f64,
    /// Nearest rank.
    pub p95_ns: i64,
    pub max_ns: i64,
    /// max / total (0 when the total is 0).
    pub max_share: f64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CallRow {
    pub frame_index: u64,
    pub thread: String,
    pub start_ns: i64,
    pub duration_ns: i64,
    pub data: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CallsReport {
    pub summary: CallsSummary,
    /// The slow calls, when they hold a real share of the total
    /// ([`super::tail`]'s rule; `null` otherwise).
    /// (Boxed: it is most of the answer's size, and most often `null`.)
    pub tail: Option<Box<super::tail::Tail>>,
    pub calls: Vec<CallRow>,
}

/// The summary of calls lasting `durations` (not empty).
fn summary(mut durations: Vec<i64>) -> CallsSummary {
    durations.sort_unstable();
    let n = durations.len();
    let total = durations.iter().fold(0i64, |a, &d| a.saturating_add(d));
    let max = durations[n - 1];
    let (median_ns, p95_ns) = super::stats::median_p95(&durations);
    CallsSummary {
        count: n as u64,
        total_ns: total,
        min_ns: durations[0],
        median_ns,
        mean_ns: total as f64 / n as f64,
        p95_ns,
        max_ns: max,
        max_share: if total == 0 {
            0.0
        } else {
            max as f64 / total as f64
        },
    }
}

/// Every instance named (or with data) `name`, in time order (ties in file
/// order), with a summary. `None` when none matches.
pub fn calls(trace: &Trace, name: &str) -> Option<CallsReport> {
    calls_of(trace, named_instances(trace, name))
}

/// [`calls`] of a name from its instances `hits` (found with others' in one
/// pass: [`super::common::named_instances_of`]).
pub fn calls_of(trace: &Trace, hits: Vec<ScopeIdx>) -> Option<CallsReport> {
    if hits.is_empty() {
        return None;
    }
    let s = &trace.scopes;
    let summary = summary(hits.iter().map(|&i| s.duration_ns[i.idx()]).collect());
    let tail = super::tail::tail(
        &hits
            .iter()
            .map(|&i| (s.start_ns[i.idx()], s.duration_ns[i.idx()]))
            .collect::<Vec<_>>(),
    )
    .map(Box::new);
    Some(CallsReport {
        summary,
        tail,
        calls: call_rows(trace, hits),
    })
}

/// The rows of instances `hits`, sorted by start (ties in file order).
fn call_rows(trace: &Trace, mut hits: Vec<ScopeIdx>) -> Vec<CallRow> {
    let s = &trace.scopes;
    hits.sort_by_key(|&i| (s.start_ns[i.idx()], i.0));
    hits.into_iter()
        .map(|i| CallRow {
            frame_index: trace.frames.frame_index[trace.scope_frame(i).idx()],
            thread: trace.thread_name(trace.scope_thread(i)).to_owned(),
            start_ns: s.start_ns[i.idx()],
            duration_ns: s.duration_ns[i.idx()],
            data: trace.scope_data(i).to_owned(),
        })
        .collect()
}

/// One side of [`calls_compared`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CallsSide {
    pub count: u64,
    /// Frames of the recording, and how many had a call.
    pub frames: usize,
    pub frames_with_calls: usize,
    pub calls_per_frame: f64,
    pub total_ns: i64,
    pub per_frame_ns: f64,
    pub min_ns: i64,
    /// Lower median.
    pub median_ns: i64,
    /// Nearest rank.
    pub p95_ns: i64,
    pub max_ns: i64,
    /// The largest call's share of the total.
    pub max_share: f64,
}

/// `calls A B NAME`: both sides' calls of NAME side by side, judged.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CallsComparison {
    pub name: String,
    /// `null` when the side has no call.
    pub a: Option<CallsSide>,
    pub b: Option<CallsSide>,
    /// The noise model's judgement (as `compare`'s).
    pub change: super::change::judge::Change,
    /// Each side's calls, as `calls A`'s `calls` (every call, in time
    /// order; empty for a side without one): as many as `a.count` and
    /// `b.count`.
    pub calls_a: Vec<CallRow>,
    pub calls_b: Vec<CallRow>,
}

/// The calls of `name` (or with that data) in `trace`, as the judgement's
/// sample over `units` (its frames, or its seconds: see `basis`): `None`
/// without a call.
pub fn sample_of(
    trace: &Trace,
    name: &str,
    units: &super::change::basis::Units,
) -> Option<super::change::judge::Sample> {
    let hits = named_instances(trace, name);
    let calls =
        (hits.iter()).map(|&i| (units.of_scope(trace, i), trace.scopes.duration_ns[i.idx()]));
    (!hits.is_empty()).then(|| super::change::judge::Sample::of_calls(calls, units))
}

fn side(s: &super::change::judge::Sample) -> CallsSide {
    let x = summary(s.durations_ns.clone());
    CallsSide {
        count: x.count,
        frames: s.frames,
        frames_with_calls: s.calls_in_frames.len(),
        calls_per_frame: x.count as f64 / s.frames.max(1) as f64,
        total_ns: x.total_ns,
        per_frame_ns: x.total_ns as f64 / s.frames.max(1) as f64,
        min_ns: x.min_ns,
        median_ns: x.median_ns,
        p95_ns: x.p95_ns,
        max_ns: x.max_ns,
        max_share: x.max_share,
    }
}

/// Both recordings' calls of `name` (or with that data), judged with
/// `noise`; `None` when neither has one.
pub fn calls_compared(
    a: &Trace,
    b: &Trace,
    name: &str,
    noise: &super::change::judge::Noise,
) -> Option<CallsComparison> {
    use super::change::basis::{Basis, Units};
    let basis = Basis::of(a, b);
    let sample = |t: &Trace| sample_of(t, name, &Units::new(t, basis));
    let (sa, sb) = (sample(a), sample(b));
    if sa.is_none() && sb.is_none() {
        return None;
    }
    // Against the drift the comparison's table judges against.
    let (noise, _) = super::change::compare::with_estimated_drift(a, b, *noise);
    Some(CallsComparison {
        name: name.to_owned(),
        a: sa.as_ref().map(side),
        b: sb.as_ref().map(side),
        change: super::change::judge::judge(sa.as_ref(), sb.as_ref(), &noise),
        calls_a: call_rows(a, named_instances(a, name)),
        calls_b: call_rows(b, named_instances(b, name)),
    })
}
