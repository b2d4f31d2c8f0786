//! `gaps`: unprofiled time between consecutive children, and what the other
//! threads did meanwhile (`busy_in`).

use super::common::*;
use crate::engine::model::{ScopeIdx, StrId, StreamId, Trace};
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::cmp::Reverse;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NameData {
    pub name: String,
    pub data: String,
}

impl NameData {
    fn of(trace: &Trace, i: ScopeIdx) -> Self {
        Self {
            name: trace.scope_name(i).to_owned(),
            data: trace.scope_data(i).to_owned(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BusyThread {
    pub thread: String,
    pub busy_ns: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Gap {
    pub thread: String,
    pub frame_index: u64,
    pub parent: NameData,
    pub after: NameData,
    pub before: NameData,
    pub start_ns: i64,
    pub end_ns: i64,
    pub duration_ns: i64,
    pub other_threads: Vec<BusyThread>,
}

/// Top-level intervals of one thread name across all frames, sorted by start,
/// with the running maximum of ends for overlap queries.
struct Intervals {
    start: Vec<i64>,
    end: Vec<i64>,
    max_end: Vec<i64>,
}

impl Intervals {
    /// Total overlap of the intervals with `[lo, hi)`.
    fn overlap_ns(&self, lo: i64, hi: i64) -> i64 {
        let upper = self.start.partition_point(|&s| s < hi);
        let mut busy = 0i64;
        for k in (0..upper).rev() {
            if self.max_end[k] <= lo {
                break;
            }
            let overlap = self.end[k].min(hi) - self.start[k].max(lo);
            if overlap > 0 {
                busy = busy.saturating_add(overlap);
            }
        }
        busy
    }
}

fn top_level_intervals(trace: &Trace) -> Vec<(StrId, Intervals)> {
    let mut by_name: FxHashMap<StrId, Vec<(i64, i64)>> = FxHashMap::default();
    for st in 0..trace.streams.len() as u32 {
        let name = trace.threads.name[trace.streams.thread[st as usize].idx()];
        let list = by_name.entry(name).or_default();
        for i in trace.scopes.top_level(trace.streams.scopes(StreamId(st))) {
            list.push((trace.scopes.start_ns[i.idx()], trace.scopes.end_ns(i)));
        }
    }
    let mut out: Vec<(StrId, Intervals)> = by_name
        .into_iter()
        .map(|(name, mut list)| {
            list.sort_unstable();
            let mut max_end = Vec::with_capacity(list.len());
            let mut m = i64::MIN;
            for &(_, e) in &list {
                m = m.max(e);
                max_end.push(m);
            }
            let (start, end) = list.into_iter().unzip();
            (
                name,
                Intervals {
                    start,
                    end,
                    max_end,
                },
            )
        })
        .collect();
    out.sort_by(|a, b| trace.str(a.0).cmp(trace.str(b.0)));
    out
}

/// Unprofiled stretches between consecutive children (time order) of every
/// instance (on `thread`), at least `min_ns` long; longest first, ties by
/// start. For each, what every other thread did meanwhile (across all frames).
pub fn gaps(trace: &Trace, thread: Option<&str>, min_ns: i64) -> Vec<Gap> {
    let s = &trace.scopes;
    let stream_ok = stream_filter(trace, thread, None);
    // (start, end, parent, after, before)
    let mut found: Vec<(i64, i64, ScopeIdx, ScopeIdx, ScopeIdx)> = Vec::new();
    let mut kids: Vec<ScopeIdx> = Vec::new();
    for i in all_scopes(trace) {
        let iu = i as usize;
        if s.subtree_end[iu] <= i + 2 || !stream_ok[s.stream[iu].idx()] {
            continue; // fewer than two descendants: no pair of children
        }
        kids.clear();
        kids.extend(s.children(ScopeIdx(i)));
        if kids.len() < 2 {
            continue;
        }
        if !kids.is_sorted_by_key(|c| s.start_ns[c.idx()]) {
            kids.sort_by_key(|&c| (s.start_ns[c.idx()], c.0));
        }
        for pair in kids.windows(2) {
            let (after, before) = (pair[0], pair[1]);
            let gap_start = s.end_ns(after);
            let gap_end = s.start_ns[before.idx()];
            if gap_end.saturating_sub(gap_start) >= min_ns.max(1) {
                found.push((gap_start, gap_end, ScopeIdx(i), after, before));
            }
        }
    }
    found.sort_by_key(|&(start, end, p, a, _)| (Reverse(end - start), start, p.0, a.0));
    if found.is_empty() {
        return Vec::new();
    }
    let intervals = top_level_intervals(trace);
    found
        .into_iter()
        .map(|(start, end, parent, after, before)| {
            let own = trace.threads.name[trace.scope_thread(parent).idx()];
            let others = busy_threads(trace, &intervals, Some(own), start, end);
            Gap {
                thread: trace.str(own).to_owned(),
                frame_index: trace.frames.frame_index[trace.scope_frame(parent).idx()],
                parent: NameData::of(trace, parent),
                after: NameData::of(trace, after),
                before: NameData::of(trace, before),
                start_ns: start,
                end_ns: end,
                duration_ns: end - start,
                other_threads: others,
            }
        })
        .collect()
}

/// How long each thread (by name) was busy at its top level within
/// `[lo_ns, hi_ns)`, except `except` (the thread the window is about): most
/// busy first, ties by name; idle threads are left out.
pub fn busy_in(trace: &Trace, lo_ns: i64, hi_ns: i64, except: Option<&str>) -> Vec<BusyThread> {
    let except = except.and_then(|name| trace.strings.find(name));
    busy_threads(trace, &top_level_intervals(trace), except, lo_ns, hi_ns)
}

/// [`busy_in`] on intervals already built.
fn busy_threads(
    trace: &Trace,
    intervals: &[(StrId, Intervals)],
    except: Option<StrId>,
    lo_ns: i64,
    hi_ns: i64,
) -> Vec<BusyThread> {
    let mut out: Vec<BusyThread> = intervals
        .iter()
        .filter(|(name, _)| Some(*name) != except)
        .filter_map(|(name, iv)| {
            let busy = iv.overlap_ns(lo_ns, hi_ns);
            (busy > 0).then(|| BusyThread {
                thread: trace.str(*name).to_owned(),
                busy_ns: busy,
            })
        })
        .collect();
    // Intervals are sorted by name: a stable sort keeps name order on ties.
    out.sort_by_key(|b| Reverse(b.busy_ns));
    out
}
