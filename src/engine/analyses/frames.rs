//! `frames` (slowest first) and `threads` (per-thread totals of one frame).

use super::common::*;
use crate::engine::model::{FrameId, StreamId, Trace};
use serde::Serialize;
use std::cmp::Reverse;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FrameRow {
    pub frame_index: u64,
    /// The frame's start (its metadata's range).
    pub start_ns: i64,
    pub duration_ns: i64,
    pub num_scopes: u64,
}

/// Frames, slowest first, ties in file order; at most `top`.
pub fn frames(trace: &Trace, top: Option<usize>) -> Vec<FrameRow> {
    let mut ids: Vec<FrameId> = trace.frames.ids().collect();
    ids.sort_by_key(|&f| (Reverse(trace.frames.duration_ns(f)), f.0));
    ids.truncate(top.unwrap_or(usize::MAX));
    ids.into_iter()
        .map(|f| FrameRow {
            frame_index: trace.frames.frame_index[f.idx()],
            start_ns: trace.frames.range_ns[f.idx()].0,
            duration_ns: trace.frames.duration_ns(f),
            num_scopes: trace.frames.num_scopes[f.idx()],
        })
        .collect()
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ThreadRow {
    pub name: String,
    pub num_scopes: u64,
    pub depth: u64,
    pub range_ns: (i64, i64),
    pub span_ns: i64,
}

/// Threads of one frame, in stored order.
pub fn threads(trace: &Trace, frame: FrameId) -> Vec<ThreadRow> {
    trace
        .frames
        .streams(frame)
        .map(|s| {
            let s = s as usize;
            let range = trace.streams.range_ns[s];
            ThreadRow {
                name: trace.thread_name(trace.streams.thread[s]).to_owned(),
                num_scopes: trace.streams.num_scopes[s],
                depth: trace.streams.depth[s],
                range_ns: range,
                span_ns: span_ns(range),
            }
        })
        .collect()
}

/// Frames that overlap one another: a thread's scopes reported in the frame
/// after the one they ran in, because the app ends puffin's frame
/// (`GlobalProfiler::new_frame`) inside one of its own scopes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Overlap {
    /// Frames that start before the previous frame ends (by more than 1% of
    /// the previous frame).
    pub frames: usize,
    pub of: usize,
    /// The frames' durations summed, against the capture's span.
    pub sum_of_durations_ns: i64,
    pub span_ns: i64,
    /// The thread whose stream starts first in most overlapping frames:
    /// the one whose scope is reported late.
    pub thread: String,
    pub sentence: String,
}

/// Overlapping frames (see [`Overlap`]): at least 2 frames, a tenth of
/// them, overlap the previous one, and the durations sum to at least 1.1x
/// the span. `None` otherwise. Linear in the frames and their streams.
pub fn overlapping_frames(trace: &Trace) -> Option<Overlap> {
    let f = &trace.frames;
    let n = f.len();
    if n < 3 {
        return None;
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&k| (f.range_ns[k].0, k));
    let over: Vec<usize> = order
        .windows(2)
        .filter(|w| {
            let (p, k) = (f.range_ns[w[0]], f.range_ns[w[1]]);
            k.0 < p.1.saturating_sub(span_ns(p) / 100)
        })
        .map(|w| w[1])
        .collect();
    let sum = f
        .range_ns
        .iter()
        .fold(0i64, |a, &r| a.saturating_add(span_ns(r)));
    let lo = f.range_ns.iter().map(|r| r.0).min()?;
    let hi = f.range_ns.iter().map(|r| r.1).max()?;
    let span = hi.saturating_sub(lo).max(1);
    if over.len() < 2 || over.len() * 10 < n || (sum as f64) < 1.1 * span as f64 {
        return None;
    }
    // The late thread's part of an overlapping frame lies wholly before
    // the other threads' (its scope of the frame before, reported late).
    // A worker whose job merely straddles a frame boundary (it runs apart
    // from the frames) overlaps the others: not this.
    let mut firsts: std::collections::BTreeMap<&str, usize> = Default::default();
    let mut whole = 0usize;
    for &k in &over {
        let id = FrameId(k as u32);
        let first = f
            .streams(id)
            .min_by_key(|&s| (trace.streams.range_ns[s as usize].0, s))?;
        let late_name = trace.thread_name(trace.streams.thread[first as usize]);
        let (mut late_end, mut others_start) = (i64::MIN, i64::MAX);
        for s in f.streams(id) {
            let (s0, s1) = trace.streams.range_ns[s as usize];
            if trace.thread_name(trace.streams.thread[s as usize]) == late_name {
                late_end = late_end.max(s1);
            } else {
                others_start = others_start.min(s0);
            }
        }
        let slack = span_ns(f.range_ns[k]) / 100;
        if others_start != i64::MAX && late_end <= others_start.saturating_add(slack) {
            whole += 1;
        }
        *firsts.entry(late_name).or_insert(0) += 1;
    }
    if whole * 2 < over.len() {
        return None;
    }
    let thread = firsts
        .iter()
        .max_by(|x, y| x.1.cmp(y.1).then_with(|| y.0.cmp(x.0)))
        .map(|(t, _)| (*t).to_owned())
        .unwrap_or_default();
    let sentence = format!(
        "frames overlap: {} of {n} frames start before the previous one ends, and the frames' \
         durations sum to {:.1}x the capture's span. {thread}'s scopes are reported in the \
         frame after the one they ran in: the app ends puffin's frame \
         (`GlobalProfiler::lock().new_frame()`) inside one of its scopes. Call it outside every \
         scope (at the top of the loop); until then a frame's figures mix two frames",
        over.len(),
        sum as f64 / span as f64
    );
    Some(Overlap {
        frames: over.len(),
        of: n,
        sum_of_durations_ns: sum,
        span_ns: span,
        thread,
        sentence,
    })
}

/// Each frame's period on `thread` (the frame-driving thread): from its
/// first top-level scope's start there to the next frame's, so that the
/// stretch between frames is the frame's and no other thread's scopes
/// stretch it. A run's last frame, and a frame whose next one the capture
/// did not keep (its index not the next), ends at its last top-level scope's
/// end on `thread`: frames are never joined across runs or holes. A frame
/// without a scope on `thread` is its range. Returns the periods and, of
/// each, the stretch between its last top-level scope's end on `thread` and
/// the next frame's start (0 for a frame that ends a run or a hole).
pub fn frame_periods_ns(trace: &Trace, thread: &str) -> (Vec<i64>, Vec<i64>) {
    let id = trace.strings.find(thread);
    let bounds: Vec<(i64, i64)> = trace
        .frames
        .ids()
        .map(|f| {
            let on_thread = id.into_iter().flat_map(|id| {
                trace
                    .frames
                    .streams(f)
                    .filter(move |&st| {
                        trace.threads.name[trace.streams.thread[st as usize].idx()] == id
                    })
                    .flat_map(|st| trace.scopes.top_level(trace.streams.scopes(StreamId(st))))
            });
            let (lo, hi) = on_thread.fold((i64::MAX, i64::MIN), |(lo, hi), i| {
                (
                    lo.min(trace.scopes.start_ns[i.idx()]),
                    hi.max(trace.scopes.end_ns(i)),
                )
            });
            if lo <= hi {
                (lo, hi)
            } else {
                trace.frames.range_ns[f.idx()]
            }
        })
        .collect();
    let index = &trace.frames.frame_index;
    (0..trace.run_count() as u32)
        .flat_map(|k| {
            let run = trace.run_frames(k);
            let (bounds, index) = (&bounds, index);
            (run.start as usize..run.end as usize).map(move |f| {
                let (start, end) = bounds[f];
                // (A next frame that starts before this one's scopes end,
                // which one thread's loop cannot do, waits for them.)
                let next = if f + 1 < run.end as usize && index[f + 1] == index[f].wrapping_add(1) {
                    bounds[f + 1].0.max(end)
                } else {
                    end
                };
                (
                    next.saturating_sub(start).max(0),
                    next.saturating_sub(end).max(0),
                )
            })
        })
        .unzip()
}

/// Each frame's time on `thread` alone: its top-level scopes' durations
/// summed (0 in a frame without it). With overlapping frames this is the
/// thread's own frame, where the frames' ranges mix two.
pub fn thread_frame_ns(trace: &Trace, thread: &str) -> Vec<i64> {
    let Some(id) = trace.strings.find(thread) else {
        return vec![0; trace.frames.len()];
    };
    trace
        .frames
        .ids()
        .map(|f| {
            trace
                .frames
                .streams(f)
                .filter(|&st| trace.threads.name[trace.streams.thread[st as usize].idx()] == id)
                .flat_map(|st| trace.scopes.top_level(trace.streams.scopes(StreamId(st))))
                .map(|i| trace.scopes.duration_ns[i.idx()])
                .fold(0i64, i64::saturating_add)
        })
        .collect()
}

/// The frame-driving thread of `a` (and `b`, compared with it): with
/// overlapping frames (`new_frame` inside a scope) the late thread, whose
/// own frame it is ([`overlapping_frames`], A's first); otherwise the
/// thread whose top-level scopes cover the most time in A (in B when A has
/// none), ties by name. Empty when neither has a scope.
pub fn frame_thread(a: &Trace, b: Option<&Trace>) -> String {
    if let Some(o) = std::iter::once(a).chain(b).find_map(overlapping_frames) {
        return o.thread;
    }
    std::iter::once(a)
        .chain(b)
        .find_map(busiest_thread)
        .unwrap_or_default()
        .to_owned()
}

/// The thread whose top-level scopes cover the most time in `t` (ties by
/// name).
fn busiest_thread(t: &Trace) -> Option<&str> {
    let mut busy: rustc_hash::FxHashMap<crate::engine::model::StrId, i64> =
        rustc_hash::FxHashMap::default();
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
