//! The frame's change accounted for: the median and mean frame of A and
//! B, judged like a row's calls, and the names whose own (self) time per
//! frame on the busiest thread changed. Every name's own-time change plus
//! the change outside that thread's scopes is exactly the mean's change; the
//! names judged a change explain a share of it. `compare` and the report
//! answer with it.

use super::basis::{Basis, Units};
use super::coverage;
use super::judge::{Kind, Noise, Sample, judge};
use crate::engine::model::{StrId, StreamId, Trace};
use rustc_hash::FxHashMap;
use serde::Serialize;

/// The frame's change (per second, see [`super::basis`]: the busiest
/// thread's scope time in each second takes the frame's place).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FrameChange {
    /// What a "frame" is here: `frame`, or `second`.
    pub basis: Basis,
    /// The thread the change is accounted on (the one whose scopes cover
    /// the most time in A).
    pub thread: String,
    /// Lower medians of the frame durations.
    pub median_a_ns: i64,
    pub median_b_ns: i64,
    pub delta_median_ns: i64,
    pub mean_a_ns: f64,
    pub mean_b_ns: f64,
    pub delta_mean_ns: f64,
    /// The frame durations judged like a row's calls.
    pub kind: Kind,
    pub p: Option<f64>,
    /// Names whose self time per frame on `thread` changed by at least the
    /// noise milliseconds, largest first (the first --top).
    pub contributions: Vec<Contribution>,
    pub total_contributions: usize,
    /// What the run-to-run drift accounts for of the mean's change: A's
    /// scope time per frame on `thread` times (factor − 1); 0 without drift.
    pub drift_ns: f64,
    /// Of `delta_mean_ns`, in percent.
    pub drift_pct: f64,
    /// The contributions of every name judged a change (listed or not),
    /// summed, beyond
    /// the drift (each name's own time in A times the factor is its
    /// expected time in B).
    pub explained_ns: f64,
    /// Of `delta_mean_ns`, in percent.
    pub explained_pct: f64,
    /// The mean's change outside `thread`'s scopes (unprofiled time, idle,
    /// other threads): the mean's change minus every name's self time.
    pub outside_scopes_ns: f64,
    /// Why the figures may mislead (frames the capture did not keep).
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Contribution {
    pub name: String,
    /// The name's judgement (by its calls' whole durations).
    pub kind: Kind,
    /// B − A of its self time per frame on the thread.
    pub self_delta_per_frame_ns: f64,
}

/// The thread whose top-level scopes cover the most time in `t` (ties by
/// name).
fn busiest_thread(t: &Trace) -> Option<&str> {
    let mut busy: FxHashMap<StrId, i64> = FxHashMap::default();
    for st in 0..t.streams.len() as u32 {
        let name = t.threads.name[t.streams.thread[st as usize].idx()];
        let sum: i64 = t
            .scopes
            .top_level(t.streams.scopes(StreamId(st)))
            .map(|i| t.scopes.duration_ns[i.idx()])
            .fold(0, i64::saturating_add);
        let e = busy.entry(name).or_default();
        *e = e.saturating_add(sum);
    }
    busy.into_iter()
        .map(|(n, b)| (t.str(n), b))
        .max_by(|x, y| x.1.cmp(&y.1).then_with(|| y.0.cmp(x.0)))
        .map(|(n, _)| n)
}

/// Self time per scope name on the threads named `thread` (all threads
/// with `None`): summed per scope definition, then per name (a few hundred
/// strings, not one lookup per instance).
pub fn self_by_name<'t>(t: &'t Trace, thread: Option<&str>) -> FxHashMap<&'t str, i64> {
    let mut out: FxHashMap<&str, i64> = FxHashMap::default();
    let id = match thread {
        Some(name) => match t.strings.find(name) {
            Some(id) => Some(id),
            None => return out,
        },
        None => None,
    };
    let mut per_def = vec![0i64; t.defs.len()];
    for st in 0..t.streams.len() as u32 {
        if id.is_some_and(|id| t.threads.name[t.streams.thread[st as usize].idx()] != id) {
            continue;
        }
        for i in t.streams.scopes(StreamId(st)) {
            let d = &mut per_def[t.scopes.def[i as usize].idx()];
            *d = d.saturating_add(t.scopes.self_ns[i as usize]);
        }
    }
    for (def, &ns) in per_def.iter().enumerate() {
        if ns != 0 {
            let e = out.entry(t.str(t.defs.name[def])).or_default();
            *e = e.saturating_add(ns);
        }
    }
    out
}

fn frame_durations(t: &Trace) -> Vec<i64> {
    t.frames.ids().map(|f| t.frames.duration_ns(f)).collect()
}

/// The units' durations: the frames', or per second the time the threads
/// named `thread` spend in top-level scopes in each second.
fn unit_durations(t: &Trace, units: &Units, thread: &str) -> Vec<i64> {
    if units.basis == Basis::Frame {
        return frame_durations(t);
    }
    let mut busy = vec![0i64; units.count];
    let Some(id) = t.strings.find(thread) else {
        return busy;
    };
    let seconds: Vec<(i64, i64)> = units.seconds().collect();
    for st in 0..t.streams.len() as u32 {
        if t.threads.name[t.streams.thread[st as usize].idx()] != id {
            continue;
        }
        for i in t.scopes.top_level(t.streams.scopes(StreamId(st))) {
            let (s, e) = (t.scopes.start_ns[i.idx()], t.scopes.end_ns(i));
            let (first, last) = units.scope_seconds(t, i);
            let (first, last) = (first as usize, last as usize);
            for (k, b) in busy.iter_mut().enumerate().take(last + 1).skip(first) {
                let (lo, hi) = seconds[k];
                *b = b.saturating_add(e.min(hi).saturating_sub(s.max(lo)).max(0));
            }
        }
    }
    busy
}

/// The frame's change: medians and means, judged like a row, and the
/// mean's change accounted for by the self time per name on the busiest
/// thread (their sum and the time outside that thread's scopes add up to
/// it exactly); `kind_of`: each name's judgement (the comparison's rows by
/// name).
pub fn frame_change(
    a: &Trace,
    b: &Trace,
    kind_of: &FxHashMap<&str, Kind>,
    noise: &Noise,
    basis: Basis,
    top: usize,
) -> FrameChange {
    let thread = busiest_thread(a)
        .or_else(|| busiest_thread(b))
        .unwrap_or_default()
        .to_owned();
    let (ua, ub) = (Units::new(a, basis), Units::new(b, basis));
    let (da, db) = (
        unit_durations(a, &ua, &thread),
        unit_durations(b, &ub, &thread),
    );
    let sample = |d: &[i64], units: &Units| Sample {
        durations_ns: d.to_vec(),
        calls_in_frames: vec![1; d.len()],
        frames: d.len(),
        frame_runs: if units.runs() > 1 {
            (0..d.len() as u32).map(|u| units.run_of(u)).collect()
        } else {
            Vec::new()
        },
    };
    let judged = judge(Some(&sample(&da, &ua)), Some(&sample(&db, &ub)), noise);
    let mean = |d: &[i64]| {
        if d.is_empty() {
            0.0
        } else {
            d.iter().map(|&x| x as f64).sum::<f64>() / d.len() as f64
        }
    };
    let (mean_a, mean_b) = (mean(&da), mean(&db));
    let delta_mean = mean_b - mean_a;
    let (sa, sb) = (
        self_by_name(a, Some(&thread)),
        self_by_name(b, Some(&thread)),
    );
    let (fa, fb) = (ua.count.max(1) as f64, ub.count.max(1) as f64);
    let mut all_names: Vec<&str> = sa.keys().chain(sb.keys()).copied().collect();
    all_names.sort_unstable();
    all_names.dedup();
    let min_ns = (noise.ms * 1e6).max(f64::MIN_POSITIVE);
    let factor = noise.drift_factor();
    let mut profiled = 0.0;
    let mut contributions: Vec<Contribution> = all_names
        .into_iter()
        .filter_map(|n| {
            let d = sb.get(n).copied().unwrap_or(0) as f64 / fb
                - sa.get(n).copied().unwrap_or(0) as f64 / fa;
            profiled += d;
            (d.abs() >= min_ns).then(|| Contribution {
                name: n.to_owned(),
                kind: kind_of.get(n).copied().unwrap_or_default(),
                self_delta_per_frame_ns: d,
            })
        })
        .collect();
    contributions.sort_by(|x, y| {
        y.self_delta_per_frame_ns
            .abs()
            .total_cmp(&x.self_delta_per_frame_ns.abs())
            .then_with(|| x.name.cmp(&y.name))
    });
    // Explained by every name judged a change, not only the listed ones:
    // --top limits what is printed, never what is explained.
    let own_a = |n: &str| sa.get(n).copied().unwrap_or(0) as f64 / fa;
    let explained: f64 = contributions
        .iter()
        .filter(|c| c.kind.is_change())
        .map(|c| c.self_delta_per_frame_ns - own_a(&c.name) * (factor - 1.0))
        .sum();
    let total_contributions = contributions.len();
    contributions.truncate(top);
    let drift_ns = sa.values().map(|&ns| ns as f64).sum::<f64>() / fa * (factor - 1.0);
    let pct_of_mean = |x: f64| {
        if delta_mean.abs() > 0.0 {
            100.0 * x / delta_mean
        } else {
            0.0
        }
    };
    let mut notes = Vec::new();
    for (label, t) in [("A", a), ("B", b)] {
        if let Some(note) = coverage::frame_coverage(t)
            .as_ref()
            .and_then(coverage::absent_note)
        {
            notes.push(format!(
                "{label} kept only some frames ({note}): puffin's FrameView keeps the recent and \
                 the slowest, so its median and mean are biased upward"
            ));
        }
    }
    FrameChange {
        basis,
        thread,
        median_a_ns: judged.median_a_ns.unwrap_or(0),
        median_b_ns: judged.median_b_ns.unwrap_or(0),
        delta_median_ns: judged.median_b_ns.unwrap_or(0) - judged.median_a_ns.unwrap_or(0),
        mean_a_ns: mean_a,
        mean_b_ns: mean_b,
        delta_mean_ns: delta_mean,
        kind: judged.kind,
        p: judged.p_per_call,
        contributions,
        total_contributions,
        drift_ns,
        drift_pct: pct_of_mean(drift_ns),
        explained_ns: explained,
        explained_pct: pct_of_mean(explained),
        // Whole nanoseconds: what is left of summing floats is not time.
        outside_scopes_ns: (delta_mean - profiled).round(),
        notes,
    }
}
