//! `scope` (a scope id's source location), the table view's per-group
//! statistics and the details of one scope name.

use super::common::*;
use super::find::{Accumulator, GroupBy};
use super::tree::{CallersReport, callers, instances_named};
use crate::engine::model::{ScopeIdx, StrId, Trace};
use serde::Serialize;
use std::ops::Range;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ScopeInfo {
    pub id: u32,
    pub name: String,
    pub function: String,
    pub file: String,
    pub line: u32,
    pub kind: String,
}

/// The registration of scope id `id`, if the recording has one.
pub fn scope(trace: &Trace, id: u32) -> Option<ScopeInfo> {
    let defs = &trace.defs;
    let d = defs
        .by_raw_id(id)
        .filter(|d| defs.kind[d.idx()].is_registered())?;
    Some(ScopeInfo {
        id,
        name: trace.str(defs.name[d.idx()]).to_owned(),
        function: trace.str(defs.function[d.idx()]).to_owned(),
        file: trace.str(defs.file[d.idx()]).to_owned(),
        line: defs.line[d.idx()],
        kind: defs.kind[d.idx()].as_str().to_owned(),
    })
}

/// Lower median and nearest-rank p95 of sorted durations (not empty).
pub(super) fn median_p95(sorted: &[i64]) -> (i64, i64) {
    let n = sorted.len();
    let p95_rank = (95 * n).div_ceil(100).max(1);
    (sorted[(n - 1) / 2], sorted[p95_rank - 1])
}

/// Per-group statistics of scope instances (struct of arrays, one row per
/// group, in no particular order: the table view sorts an index).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScopeStats {
    pub name: Vec<StrId>,
    /// `StrId(0)` (empty) when grouped by name only.
    pub data: Vec<StrId>,
    pub count: Vec<u64>,
    pub total_ns: Vec<i64>,
    pub self_ns: Vec<i64>,
    pub min_ns: Vec<i64>,
    /// Lower median.
    pub median_ns: Vec<i64>,
    /// Nearest rank.
    pub p95_ns: Vec<i64>,
    pub max_ns: Vec<i64>,
    /// The sum of self times of every instance counted (the profiled time):
    /// what "% of total" divides by.
    pub all_self_ns: i64,
}

impl ScopeStats {
    pub fn len(&self) -> usize {
        self.name.len()
    }

    pub fn is_empty(&self) -> bool {
        self.name.is_empty()
    }

    pub fn mean_ns(&self, row: usize) -> f64 {
        self.total_ns[row] as f64 / self.count[row].max(1) as f64
    }
}

/// Statistics per name (or per (name, data)) of the instances of frames
/// `frames` (positions), on threads named `thread` only when given, and
/// inside the time window `[lo, hi]` only when given.
pub fn scope_stats(
    trace: &Trace,
    frames: Range<u32>,
    thread: Option<&str>,
    by: GroupBy,
    window: Option<(i64, i64)>,
) -> ScopeStats {
    StatsBuilder::new(trace, frames, thread, by, window)
        .step(trace, &mut || true)
        .expect("a build given all the time it needs ends")
}

/// [`scope_stats`] a slice at a time (a page's thread keeps drawing between
/// slices): the instances grouped, their durations bucketed by group, then
/// each group's quantiles. [`scope_stats`] is this run to its end.
#[derive(Default)]
pub struct StatsBuilder {
    out: ScopeStats,
    stream_ok: Vec<bool>,
    window: (i64, i64),
    /// The instances to group, and the next one.
    range: Range<u32>,
    next: u32,
    /// The groups so far, with the group of every instance grouped
    /// (`u32::MAX`: filtered out), until the durations are bucketed.
    groups: Accumulator,
    /// Once bucketed: each group's durations, `durations[start[g]..start[g + 1]]`.
    start: Vec<u32>,
    durations: Vec<i64>,
    /// Groups whose quantiles are done.
    done: usize,
}

impl StatsBuilder {
    pub fn new(
        trace: &Trace,
        frames: Range<u32>,
        thread: Option<&str>,
        by: GroupBy,
        window: Option<(i64, i64)>,
    ) -> Self {
        let range = frames_scopes(trace, frames);
        Self {
            // Sized for the instances asked (sparse for a frame of many).
            groups: Accumulator {
                index: Some(PairIndex::new(by, trace.strings.len(), range.len())),
                ..Accumulator::recording(by)
            },
            stream_ok: stream_filter(trace, thread, None),
            window: window.unwrap_or((i64::MIN, i64::MAX)),
            next: range.start,
            range,
            ..Default::default()
        }
    }

    /// How far along, 0 to 1: grouping counts for 70%, quantiles for 30%.
    pub fn progress(&self) -> f32 {
        let grouped = (self.next - self.range.start) as f32 / self.range.len().max(1) as f32;
        let groups = self.start.len().saturating_sub(1);
        let quantiles = self.done as f32 / groups.max(1) as f32;
        0.7 * grouped + 0.3 * quantiles
    }

    /// Works until `more` says stop (asked after each [`CHUNK`] of
    /// instances); the statistics once done.
    pub fn step(&mut self, trace: &Trace, more: &mut dyn FnMut() -> bool) -> Option<ScopeStats> {
        let s = &trace.scopes;
        let (lo, hi) = self.window;
        // Only what ran entirely inside the window, when there is one.
        let keep = |i: u32| {
            let i = i as usize;
            self.stream_ok[s.stream[i].idx()]
                && s.start_ns[i] >= lo
                && s.end_ns(ScopeIdx(i as u32)) <= hi
        };
        while self.next < self.range.end {
            let end = self.range.end.min(self.next.saturating_add(CHUNK as u32));
            self.groups.add(trace, self.next..end, keep);
            self.next = end;
            if !more() {
                return None;
            }
        }
        let out = &mut self.out;
        if self.start.is_empty() {
            let groups = std::mem::take(&mut self.groups.groups);
            for g in &groups {
                out.name.push(g.name);
                out.data.push(g.data);
                out.count.push(g.count);
                out.total_ns.push(g.total_ns);
                out.self_ns.push(g.self_ns);
                out.all_self_ns = out.all_self_ns.saturating_add(g.self_ns);
            }
            // Bucket the durations by group (counting sort).
            let group_of = self.groups.group_of.take().unwrap_or_default();
            let grouped = (group_of.iter().enumerate())
                .filter(|(_, g)| **g != u32::MAX)
                .map(|(k, &g)| (g, s.duration_ns[self.range.start as usize + k]));
            (self.start, self.durations) = children_lists(groups.len(), grouped);
            self.groups = Accumulator::default();
            out.min_ns.reserve_exact(groups.len());
            out.median_ns.reserve_exact(groups.len());
            out.p95_ns.reserve_exact(groups.len());
            out.max_ns.reserve_exact(groups.len());
            if !more() {
                return None;
            }
        }
        let groups = out.len();
        // Each group's durations sorted, a chunk of instances at a time.
        let mut sorted = 0;
        while self.done < groups {
            let g = self.done;
            let bucket = &mut self.durations[self.start[g] as usize..self.start[g + 1] as usize];
            bucket.sort_unstable();
            let (median, p95) = median_p95(bucket);
            out.min_ns.push(bucket[0]);
            out.median_ns.push(median);
            out.p95_ns.push(p95);
            out.max_ns.push(bucket[bucket.len() - 1]);
            self.done += 1;
            sorted += bucket.len();
            if sorted >= CHUNK && self.done < groups {
                sorted = 0;
                if !more() {
                    return None;
                }
            }
        }
        self.durations = Vec::new();
        Some(std::mem::take(out))
    }
}

/// The rows of a [`ScopeStats`] (indices) read with their trace, for
/// [`NameOrder`]: by name, then data.
pub struct StatsRows<'t> {
    pub trace: &'t Trace,
    pub stats: &'t ScopeStats,
}

impl NamedRows<u32> for StatsRows<'_> {
    fn name_key(&self, row: u32) -> u64 {
        u64::from(self.stats.name[row as usize].0)
    }

    fn name(&self, row: u32) -> &str {
        self.trace.str(self.stats.name[row as usize])
    }

    fn data(&self, row: u32) -> &str {
        self.trace.str(self.stats.data[row as usize])
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HistogramBin {
    pub lo_ns: i64,
    pub hi_ns: i64,
    pub count: u64,
}

/// What the scope details panel shows about a scope name (all frames).
#[derive(Clone, Debug, PartialEq)]
pub struct ScopeDetails {
    /// The first registration of that name, if any.
    pub info: Option<ScopeInfo>,
    pub min_ns: i64,
    pub median_ns: i64,
    pub p95_ns: i64,
    pub max_ns: i64,
    pub mean_ns: f64,
    /// max / total (0 when the total is 0).
    pub max_share: f64,
    /// One call dominates: at least 2 calls and the largest is more than
    /// half of the total (the `calls` rule).
    pub spike: bool,
    /// Per-call durations in equal-width bins from min to max.
    pub histogram: Vec<HistogramBin>,
    /// The slowest calls, slowest first (ties by earlier start).
    pub slowest: Vec<ScopeIdx>,
    /// Count, totals, callers and callees.
    pub callers: CallersReport,
}

/// Bins of the details histogram.
pub const HISTOGRAM_BINS: usize = 24;

/// `durations` counted in [`HISTOGRAM_BINS`] equal-width bins from `min_ns`
/// to `max_ns` (one bin when they are equal); values outside go to the
/// first or last bin.
pub fn histogram(durations: &[i64], min_ns: i64, max_ns: i64) -> Vec<HistogramBin> {
    let span = max_ns.saturating_sub(min_ns).max(0);
    let bins = if span == 0 { 1 } else { HISTOGRAM_BINS };
    let width = (span / bins as i64).max(1) + i64::from(span % bins as i64 != 0);
    let mut out: Vec<HistogramBin> = (0..bins)
        .map(|b| HistogramBin {
            lo_ns: min_ns.saturating_add(width.saturating_mul(b as i64)),
            hi_ns: min_ns.saturating_add(width.saturating_mul(b as i64 + 1)),
            count: 0,
        })
        .collect();
    for &d in durations {
        let b = (d.saturating_sub(min_ns) / width).clamp(0, bins as i64 - 1) as usize;
        out[b].count += 1;
    }
    out
}

/// Per-call durations of the instances named `name`, sorted.
pub fn durations_named(trace: &Trace, name: &str) -> Vec<i64> {
    let mut d: Vec<i64> = instances_named(trace, name)
        .into_iter()
        .map(|i| trace.scopes.duration_ns[i.idx()])
        .collect();
    d.sort_unstable();
    d
}

/// The details of scope name `name`; `None` when no scope has that name.
pub fn scope_details(trace: &Trace, name: &str, slowest: usize) -> Option<ScopeDetails> {
    let callers = callers(trace, name)?;
    let hits = instances_named(trace, name);
    let s = &trace.scopes;
    let mut durations: Vec<i64> = hits.iter().map(|&i| s.duration_ns[i.idx()]).collect();
    durations.sort_unstable();
    let (min, max) = (durations[0], durations[durations.len() - 1]);
    let (median, p95) = median_p95(&durations);
    let total = callers.total_ns;
    let def = trace
        .defs
        .registered_sorted()
        .into_iter()
        .find(|&d| trace.str(trace.defs.name[d.idx()]) == name);
    Some(ScopeDetails {
        info: def.and_then(|d| scope(trace, trace.defs.raw_id[d.idx()])),
        min_ns: min,
        median_ns: median,
        p95_ns: p95,
        max_ns: max,
        mean_ns: total as f64 / durations.len() as f64,
        max_share: if total == 0 {
            0.0
        } else {
            max as f64 / total as f64
        },
        spike: spike(durations.len() as u64, max, total),
        histogram: histogram(&durations, min, max),
        slowest: top_k(trace, hits.iter().map(|i| i.0), slowest),
        callers,
    })
}
