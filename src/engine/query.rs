//! The analyses: pure functions over a [`Trace`], one per investigation step
//! (SPEC.md "Who uses it, and how"). The command line prints their results as
//! text or JSON; the app's views read the same results.
//!
//! Every returned list is sorted as documented on its function, with ties
//! broken explicitly, so answers are deterministic. Threads are identified by
//! name. Instances are read from the columnar model only: no re-decoding.

use super::model::{FrameId, ScopeIdx, StrId, StreamId, Trace};
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;
use std::ops::Range;

// ---------------------------------------------------------------------------
// Shared helpers

/// `end - start`, or 0 for an empty range (start > end).
fn span_ns((start, end): (i64, i64)) -> i64 {
    if start > end {
        0
    } else {
        end.saturating_sub(start)
    }
}

/// Ranking of an instance for "slowest first, ties by earlier start, then
/// file order": larger is better.
type Rank = (i64, Reverse<i64>, Reverse<u32>);

fn rank(trace: &Trace, i: u32) -> Rank {
    (
        trace.scopes.duration_ns[i as usize],
        Reverse(trace.scopes.start_ns[i as usize]),
        Reverse(i),
    )
}

/// The `k` best instances among `candidates`, best first, in O(n log k).
fn top_k(trace: &Trace, candidates: impl Iterator<Item = u32>, k: usize) -> Vec<ScopeIdx> {
    if k == 0 {
        return Vec::new();
    }
    // `k` is the caller's (any number, "all" included): room for no more
    // than there are scopes.
    let room = k.min(trace.scopes.len()).saturating_add(1);
    let mut heap: BinaryHeap<Reverse<Rank>> = BinaryHeap::with_capacity(room);
    let durations = &trace.scopes.duration_ns;
    for i in candidates {
        if heap.len() == k {
            // Cheap reject before building the full key.
            let worst = heap.peek().map_or(i64::MIN, |r| r.0.0);
            if durations[i as usize] < worst {
                continue;
            }
            let key = rank(trace, i);
            if heap.peek().is_some_and(|r| key > r.0) {
                heap.pop();
                heap.push(Reverse(key));
            }
        } else {
            heap.push(Reverse(rank(trace, i)));
        }
    }
    let mut out: Vec<Rank> = heap.into_iter().map(|r| r.0).collect();
    out.sort_unstable_by(|a, b| b.cmp(a));
    out.into_iter()
        .map(|(_, _, Reverse(i))| ScopeIdx(i))
        .collect()
}

/// Dense group ids for `u64` keys: a hash map behind a direct-mapped cache,
/// so runs of equal keys and small working sets (the usual case: a few
/// hundred distinct scope names) are found without hashing into the map.
/// Measured on the 2M-scope capture: the merged tree 34 -> 22 ms natively
/// and 170 -> 52 ms in wasm, the table statistics 402 -> 129 ms in wasm.
pub(crate) struct GroupIndex {
    map: FxHashMap<u64, u32>,
    cache: Vec<(u64, u32)>,
}

impl GroupIndex {
    const CACHE_BITS: u32 = 12;

    pub(crate) fn new() -> Self {
        Self {
            map: FxHashMap::default(),
            cache: vec![(u64::MAX, 0); 1 << Self::CACHE_BITS],
        }
    }

    /// The id of `key`, made by `new` the first time it is seen.
    #[inline]
    pub(crate) fn get_or_insert(&mut self, key: u64, new: impl FnOnce() -> u32) -> u32 {
        let slot = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - Self::CACHE_BITS)) as usize;
        let cached = self.cache[slot];
        if cached.0 == key {
            return cached.1;
        }
        let id = *self.map.entry(key).or_insert_with(new);
        self.cache[slot] = (key, id);
        id
    }
}

fn all_scopes(trace: &Trace) -> Range<u32> {
    0..trace.scopes.len() as u32
}

/// The scope instances of frame `f` (contiguous: frames and their streams
/// are stored in order).
pub fn frame_scopes(trace: &Trace, f: FrameId) -> Range<u32> {
    let streams = trace.frames.streams(f);
    if streams.is_empty() {
        return 0..0;
    }
    let first = trace.streams.scopes(StreamId(streams.start)).start;
    let last = trace.streams.scopes(StreamId(streams.end - 1)).end;
    first..last
}

/// The frame with this `frame_index` (the first in file order when indices
/// repeat after a restart).
pub fn frame_by_index(trace: &Trace, frame_index: u64) -> Option<FrameId> {
    trace
        .frames
        .frame_index
        .iter()
        .position(|&f| f == frame_index)
        .map(|f| FrameId(f as u32))
}

/// The slowest frame (ties: first in file order).
pub fn slowest_frame(trace: &Trace) -> Option<FrameId> {
    trace
        .frames
        .ids()
        .max_by_key(|&f| (trace.frames.duration_ns(f), Reverse(f.0)))
}

/// Which streams pass a thread-name and frame-index filter.
fn stream_filter(trace: &Trace, thread: Option<&str>, frame_index: Option<u64>) -> Vec<bool> {
    let thread_id: Option<Option<StrId>> = thread.map(|t| trace.strings.find(t));
    (0..trace.streams.len())
        .map(|s| {
            let name_ok = match thread_id {
                None => true,
                Some(None) => false,
                Some(Some(name)) => trace.threads.name[trace.streams.thread[s].idx()] == name,
            };
            let frame_ok = frame_index
                .is_none_or(|fi| trace.frames.frame_index[trace.streams.frame[s].idx()] == fi);
            name_ok && frame_ok
        })
        .collect()
}

// ---------------------------------------------------------------------------
// frames

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FrameRow {
    pub frame_index: u64,
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
            duration_ns: trace.frames.duration_ns(f),
            num_scopes: trace.frames.num_scopes[f.idx()],
        })
        .collect()
}

// ---------------------------------------------------------------------------
// threads

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

// ---------------------------------------------------------------------------
// top / find

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InstanceRow {
    pub name: String,
    pub data: String,
    pub duration_ns: i64,
    pub start_ns: i64,
    pub thread: String,
    pub frame_index: u64,
    pub id: u32,
}

impl InstanceRow {
    pub fn new(trace: &Trace, i: ScopeIdx) -> Self {
        Self {
            name: trace.scope_name(i).to_owned(),
            data: trace.scope_data(i).to_owned(),
            duration_ns: trace.scopes.duration_ns[i.idx()],
            start_ns: trace.scopes.start_ns[i.idx()],
            thread: trace.thread_name(trace.scope_thread(i)).to_owned(),
            frame_index: trace.frames.frame_index[trace.scope_frame(i).idx()],
            id: trace.scope_raw_id(i),
        }
    }
}

/// The `n` slowest instances, ties by earlier start.
pub fn top(trace: &Trace, n: usize) -> Vec<InstanceRow> {
    top_k(trace, all_scopes(trace), n)
        .into_iter()
        .map(|i| InstanceRow::new(trace, i))
        .collect()
}

/// Which field `find` matches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Field {
    #[default]
    Any,
    Name,
    Data,
}

/// What `find` looks for.
#[derive(Clone, Debug, Default)]
pub struct FindFilter {
    /// Prefix of the name or data; empty matches everything.
    pub prefix: String,
    pub field: Field,
    pub thread: Option<String>,
    pub frame_index: Option<u64>,
    /// Only this frame (by position), which also limits the scan to it.
    pub frame_position: Option<FrameId>,
}

/// Per-instance predicate for a [`FindFilter`], precomputed per definition,
/// per string and per stream so the scan is a few table lookups.
struct Matcher {
    def_ok: Vec<bool>,
    data_ok: Vec<bool>,
    stream_ok: Vec<bool>,
}

impl Matcher {
    fn new(trace: &Trace, f: &FindFilter) -> Self {
        let matches = |id: StrId| trace.str(id).starts_with(f.prefix.as_str());
        let def_ok = if f.field == Field::Data {
            vec![false; trace.defs.len()]
        } else {
            trace.defs.name.iter().map(|&n| matches(n)).collect()
        };
        let data_ok = if f.field == Field::Name {
            vec![false; trace.strings.len()]
        } else {
            (0..trace.strings.len() as u32)
                .map(|s| matches(StrId(s)))
                .collect()
        };
        Self {
            def_ok,
            data_ok,
            stream_ok: stream_filter(trace, f.thread.as_deref(), f.frame_index),
        }
    }

    #[inline]
    fn test(&self, trace: &Trace, i: u32) -> bool {
        let s = &trace.scopes;
        let i = i as usize;
        self.stream_ok[s.stream[i].idx()]
            && (self.def_ok[s.def[i].idx()] || self.data_ok[s.data[i].idx()])
    }
}

/// Matching instances, slowest first (ties by earlier start), at most `n`.
pub fn find(trace: &Trace, filter: &FindFilter, n: usize) -> Vec<InstanceRow> {
    let m = Matcher::new(trace, filter);
    let range = match filter.frame_position {
        Some(f) => frame_scopes(trace, f),
        None => all_scopes(trace),
    };
    top_k(trace, range.filter(|&i| m.test(trace, i)), n)
        .into_iter()
        .map(|i| InstanceRow::new(trace, i))
        .collect()
}

/// How `find --aggregate` groups.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GroupBy {
    #[default]
    NameData,
    Name,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AggregateRow {
    pub name: String,
    /// Absent when grouping by name only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
    pub count: u64,
    pub total_ns: i64,
    pub self_ns: i64,
    pub min_ns: i64,
    pub max_ns: i64,
    pub mean_ns: f64,
}

#[derive(Clone, Copy)]
struct Acc {
    name: StrId,
    data: StrId,
    count: u64,
    total_ns: i64,
    self_ns: i64,
    min_ns: i64,
    max_ns: i64,
}

/// Accumulates instances by (name, data) or name, keyed by interned ids.
fn accumulate(trace: &Trace, by: GroupBy, keep: impl Fn(u32) -> bool) -> Vec<Acc> {
    let s = &trace.scopes;
    let mut index: FxHashMap<u64, u32> = FxHashMap::default();
    let mut groups: Vec<Acc> = Vec::new();
    for i in all_scopes(trace) {
        if !keep(i) {
            continue;
        }
        let i = i as usize;
        let name = trace.defs.name[s.def[i].idx()];
        let data = if by == GroupBy::Name {
            StrId(0)
        } else {
            s.data[i]
        };
        let key = (u64::from(name.0) << 32) | u64::from(data.0);
        let g = *index.entry(key).or_insert_with(|| {
            groups.push(Acc {
                name,
                data,
                count: 0,
                total_ns: 0,
                self_ns: 0,
                min_ns: i64::MAX,
                max_ns: i64::MIN,
            });
            groups.len() as u32 - 1
        });
        let acc = &mut groups[g as usize];
        let d = s.duration_ns[i];
        acc.count += 1;
        acc.total_ns = acc.total_ns.saturating_add(d);
        acc.self_ns = acc.self_ns.saturating_add(s.self_ns[i]);
        acc.min_ns = acc.min_ns.min(d);
        acc.max_ns = acc.max_ns.max(d);
    }
    groups
}

/// Matching instances grouped, by total desc, ties by name then data; at most `n`.
pub fn aggregate(trace: &Trace, filter: &FindFilter, by: GroupBy, n: usize) -> Vec<AggregateRow> {
    let m = Matcher::new(trace, filter);
    let mut groups = accumulate(trace, by, |i| m.test(trace, i));
    groups.sort_by(|a, b| {
        b.total_ns
            .cmp(&a.total_ns)
            .then_with(|| trace.str(a.name).cmp(trace.str(b.name)))
            .then_with(|| trace.str(a.data).cmp(trace.str(b.data)))
    });
    groups.truncate(n);
    groups
        .into_iter()
        .map(|g| AggregateRow {
            name: trace.str(g.name).to_owned(),
            data: (by == GroupBy::NameData).then(|| trace.str(g.data).to_owned()),
            count: g.count,
            total_ns: g.total_ns,
            self_ns: g.self_ns,
            min_ns: g.min_ns,
            max_ns: g.max_ns,
            mean_ns: g.total_ns as f64 / g.count as f64,
        })
        .collect()
}

// ---------------------------------------------------------------------------
// children / calls

/// Instances whose name or data equals `name`, in file order.
pub fn named_instances(trace: &Trace, name: &str) -> Vec<ScopeIdx> {
    let Some(id) = trace.strings.find(name) else {
        return Vec::new();
    };
    let def_ok: Vec<bool> = trace.defs.name.iter().map(|&n| n == id).collect();
    let s = &trace.scopes;
    all_scopes(trace)
        .filter(|&i| def_ok[s.def[i as usize].idx()] || s.data[i as usize] == id)
        .map(ScopeIdx)
        .collect()
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ParentInfo {
    pub name: String,
    pub data: String,
    pub start_ns: i64,
    pub duration_ns: i64,
    pub thread: String,
    pub frame_index: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChildRow {
    pub name: String,
    pub data: String,
    pub start_ns: i64,
    pub duration_ns: i64,
    pub gap_before_ns: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChildrenReport {
    pub parent: ParentInfo,
    pub children: Vec<ChildRow>,
    pub trailing_gap_ns: i64,
}

/// Children of `i` in time order (ties in stream order).
fn children_in_time_order(trace: &Trace, i: ScopeIdx) -> Vec<ScopeIdx> {
    let mut kids: Vec<ScopeIdx> = trace.scopes.children(i).collect();
    kids.sort_by_key(|&c| (trace.scopes.start_ns[c.idx()], c.0));
    kids
}

/// Why [`children`] or [`calls`] found nothing for `name`.
pub fn no_scope_named(name: &str) -> String {
    format!("no scope named {name:?} (nor with that data)")
}

/// The children of the slowest instance named (or with data) `name`:
/// slowest first (ties by earlier start), or in time order with `ordered`.
/// `None` when no instance matches.
pub fn children(trace: &Trace, name: &str, ordered: bool) -> Option<ChildrenReport> {
    let parent = top_k(
        trace,
        named_instances(trace, name).into_iter().map(|i| i.0),
        1,
    )
    .into_iter()
    .next()?;
    Some(children_of(trace, parent, ordered))
}

/// [`children`] for a given instance.
pub fn children_of(trace: &Trace, parent: ScopeIdx, ordered: bool) -> ChildrenReport {
    let s = &trace.scopes;
    let timed = children_in_time_order(trace, parent);
    let mut prev_end = s.start_ns[parent.idx()];
    let mut rows: Vec<(ScopeIdx, ChildRow)> = Vec::with_capacity(timed.len());
    for &c in &timed {
        let start = s.start_ns[c.idx()];
        rows.push((
            c,
            ChildRow {
                name: trace.scope_name(c).to_owned(),
                data: trace.scope_data(c).to_owned(),
                start_ns: start,
                duration_ns: s.duration_ns[c.idx()],
                gap_before_ns: start.saturating_sub(prev_end),
            },
        ));
        prev_end = s.end_ns(c);
    }
    if !ordered {
        rows.sort_by_key(|(c, _)| Reverse(rank(trace, c.0)));
    }
    ChildrenReport {
        parent: ParentInfo {
            name: trace.scope_name(parent).to_owned(),
            data: trace.scope_data(parent).to_owned(),
            start_ns: s.start_ns[parent.idx()],
            duration_ns: s.duration_ns[parent.idx()],
            thread: trace.thread_name(trace.scope_thread(parent)).to_owned(),
            frame_index: trace.frames.frame_index[trace.scope_frame(parent).idx()],
        },
        children: rows.into_iter().map(|(_, r)| r).collect(),
        trailing_gap_ns: s.end_ns(parent).saturating_sub(prev_end),
    }
}

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
    pub calls: Vec<CallRow>,
}

/// Every instance named (or with data) `name`, in time order (ties in file
/// order), with a summary. `None` when none matches.
pub fn calls(trace: &Trace, name: &str) -> Option<CallsReport> {
    let mut hits = named_instances(trace, name);
    if hits.is_empty() {
        return None;
    }
    let s = &trace.scopes;
    hits.sort_by_key(|&i| (s.start_ns[i.idx()], i.0));
    let mut durations: Vec<i64> = hits.iter().map(|&i| s.duration_ns[i.idx()]).collect();
    durations.sort_unstable();
    let n = durations.len();
    let total: i64 = durations.iter().fold(0i64, |a, &d| a.saturating_add(d));
    let max = durations[n - 1];
    let p95_rank = (95 * n).div_ceil(100).max(1);
    let summary = CallsSummary {
        count: n as u64,
        total_ns: total,
        min_ns: durations[0],
        median_ns: durations[(n - 1) / 2],
        mean_ns: total as f64 / n as f64,
        p95_ns: durations[p95_rank - 1],
        max_ns: max,
        max_share: if total == 0 {
            0.0
        } else {
            max as f64 / total as f64
        },
    };
    let calls = hits
        .into_iter()
        .map(|i| CallRow {
            frame_index: trace.frames.frame_index[trace.scope_frame(i).idx()],
            thread: trace.thread_name(trace.scope_thread(i)).to_owned(),
            start_ns: s.start_ns[i.idx()],
            duration_ns: s.duration_ns[i.idx()],
            data: trace.scope_data(i).to_owned(),
        })
        .collect();
    Some(CallsReport { summary, calls })
}

// ---------------------------------------------------------------------------
// window

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NamedDuration {
    pub name: String,
    pub data: String,
    pub duration_ns: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WindowThread {
    pub thread: String,
    pub count: u64,
    pub top: Vec<NamedDuration>,
}

/// Per thread name (sorted), the instances inside `[lo_ns, hi_ns]`
/// (start >= lo, end <= hi): count and the `n` slowest. Threads with none
/// are omitted.
pub fn window(trace: &Trace, lo_ns: i64, hi_ns: i64, n: usize) -> Vec<WindowThread> {
    let s = &trace.scopes;
    // Group streams by thread name.
    let mut by_name: std::collections::BTreeMap<&str, Vec<u32>> = Default::default();
    for i in all_scopes(trace) {
        let start = s.start_ns[i as usize];
        if start < lo_ns || start > hi_ns || s.end_ns(ScopeIdx(i)) > hi_ns {
            continue;
        }
        let name = trace.thread_name(trace.scope_thread(ScopeIdx(i)));
        by_name.entry(name).or_default().push(i);
    }
    by_name
        .into_iter()
        .map(|(thread, hits)| WindowThread {
            thread: thread.to_owned(),
            count: hits.len() as u64,
            top: top_k(trace, hits.into_iter(), n)
                .into_iter()
                .map(|i| NamedDuration {
                    name: trace.scope_name(i).to_owned(),
                    data: trace.scope_data(i).to_owned(),
                    duration_ns: s.duration_ns[i.idx()],
                })
                .collect(),
        })
        .collect()
}

// ---------------------------------------------------------------------------
// gaps

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

// ---------------------------------------------------------------------------
// compare

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SideStats {
    pub count: u64,
    pub total_ns: i64,
    pub per_call_ns: f64,
    pub max_ns: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Both,
    New,
    Gone,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CompareRow {
    pub name: String,
    pub data: String,
    pub a: Option<SideStats>,
    pub b: Option<SideStats>,
    pub delta_total_ns: i64,
    pub delta_per_call_ns: Option<f64>,
    pub status: Status,
    pub spike: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CompareReport {
    pub warnings: Vec<String>,
    pub rows: Vec<CompareRow>,
}

/// How `compare` sorts its rows (ties always by name, then data).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CompareSort {
    /// |B − A| of the total, descending.
    #[default]
    Delta,
    /// The larger of the two totals, descending.
    Total,
    /// |B − A| of the per-call time, descending; rows on one side only last.
    PerCall,
    /// The larger of the two counts, descending.
    Count,
    /// Name, then data, ascending.
    Name,
}

#[derive(Clone, Debug, Default)]
pub struct CompareOptions {
    pub top: usize,
    /// Keep rows whose name or data starts with this.
    pub filter: Option<String>,
    /// Drop rows under this total in both traces.
    pub hide_below_ns: i64,
    pub sort: CompareSort,
}

fn side_stats(trace: &Trace) -> FxHashMap<(String, String), SideStats> {
    accumulate(trace, GroupBy::NameData, |_| true)
        .into_iter()
        .map(|g| {
            (
                (trace.str(g.name).to_owned(), trace.str(g.data).to_owned()),
                SideStats {
                    count: g.count,
                    total_ns: g.total_ns,
                    per_call_ns: g.total_ns as f64 / g.count as f64,
                    max_ns: g.max_ns,
                },
            )
        })
        .collect()
}

/// A side's single call dominates it: at least 2 calls and the largest is
/// more than half of the total.
fn is_spike(side: &SideStats) -> bool {
    spike(side.count, side.max_ns, side.total_ns)
}

/// One call dominates: at least 2 calls and the largest is more than half of
/// the total (the rule of `calls`, `compare` and the scope details).
pub fn spike(count: u64, max_ns: i64, total_ns: i64) -> bool {
    count >= 2 && max_ns.saturating_mul(2) > total_ns
}

/// What makes a comparison of `a` and `b` misleading: one has a scope
/// registration and the other none (its names are `scope#<id>`).
pub fn compare_warnings(a: &Trace, b: &Trace) -> Vec<String> {
    let mut warnings = Vec::new();
    if a.defs.has_registration() != b.defs.has_registration() {
        let (with, without) = if a.defs.has_registration() {
            ("A", "B")
        } else {
            ("B", "A")
        };
        warnings.push(format!(
            "registration mismatch: {with} has scope registration and {without} has none, \
             so names will not match (unregistered scopes are named scope#<id>)"
        ));
    }
    warnings
}

/// Joins two traces on (name, data). See [`CompareSort`] for the order.
pub fn compare(a: &Trace, b: &Trace, opts: &CompareOptions) -> CompareReport {
    let warnings = compare_warnings(a, b);
    let mut sa = side_stats(a);
    let sb = side_stats(b);
    let mut rows: Vec<CompareRow> = Vec::with_capacity(sa.len().max(sb.len()));
    for (key, b_stats) in sb {
        let a_stats = sa.remove(&key);
        rows.push(make_row(key, a_stats, Some(b_stats)));
    }
    for (key, a_stats) in sa {
        rows.push(make_row(key, Some(a_stats), None));
    }
    rows.retain(|r| {
        let keep_filter = opts
            .filter
            .as_deref()
            .is_none_or(|p| r.name.starts_with(p) || r.data.starts_with(p));
        let total = |s: &Option<SideStats>| s.as_ref().map_or(0, |s| s.total_ns);
        let keep_size = total(&r.a) >= opts.hide_below_ns || total(&r.b) >= opts.hide_below_ns;
        keep_filter && keep_size
    });
    let by_name = |x: &CompareRow, y: &CompareRow| x.name.cmp(&y.name).then(x.data.cmp(&y.data));
    let total = |r: &CompareRow| {
        r.a.as_ref()
            .map_or(0, |s| s.total_ns)
            .max(r.b.as_ref().map_or(0, |s| s.total_ns))
    };
    let count = |r: &CompareRow| {
        r.a.as_ref()
            .map_or(0, |s| s.count)
            .max(r.b.as_ref().map_or(0, |s| s.count))
    };
    match opts.sort {
        CompareSort::Delta => rows.sort_by(|x, y| {
            y.delta_total_ns
                .unsigned_abs()
                .cmp(&x.delta_total_ns.unsigned_abs())
                .then_with(|| by_name(x, y))
        }),
        CompareSort::Total => {
            rows.sort_by(|x, y| total(y).cmp(&total(x)).then_with(|| by_name(x, y)))
        }
        CompareSort::Count => {
            rows.sort_by(|x, y| count(y).cmp(&count(x)).then_with(|| by_name(x, y)))
        }
        CompareSort::PerCall => rows.sort_by(|x, y| {
            let key = |r: &CompareRow| r.delta_per_call_ns.map(f64::abs);
            match (key(x), key(y)) {
                (Some(p), Some(q)) => q.partial_cmp(&p).unwrap_or(Ordering::Equal),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            }
            .then_with(|| by_name(x, y))
        }),
        CompareSort::Name => rows.sort_by(by_name),
    }
    rows.truncate(opts.top);
    CompareReport { warnings, rows }
}

fn make_row(
    (name, data): (String, String),
    a: Option<SideStats>,
    b: Option<SideStats>,
) -> CompareRow {
    let ta = a.as_ref().map_or(0, |s| s.total_ns);
    let tb = b.as_ref().map_or(0, |s| s.total_ns);
    let status = match (&a, &b) {
        (Some(_), Some(_)) => Status::Both,
        (None, _) => Status::New,
        (_, None) => Status::Gone,
    };
    let delta_per_call_ns = match (&a, &b) {
        (Some(a), Some(b)) => Some(b.per_call_ns - a.per_call_ns),
        _ => None,
    };
    let larger = if tb > ta { b.as_ref() } else { a.as_ref() };
    CompareRow {
        name,
        data,
        spike: larger.is_some_and(is_spike),
        a,
        b,
        delta_total_ns: tb.saturating_sub(ta),
        delta_per_call_ns,
        status,
    }
}

// ---------------------------------------------------------------------------
// scope

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
    let d = trace.defs.by_raw_id(id)?;
    let defs = &trace.defs;
    if !defs.kind[d.idx()].is_registered() {
        return None;
    }
    Some(ScopeInfo {
        id,
        name: trace.str(defs.name[d.idx()]).to_owned(),
        function: trace.str(defs.function[d.idx()]).to_owned(),
        file: trace.str(defs.file[d.idx()]).to_owned(),
        line: defs.line[d.idx()],
        kind: defs.kind[d.idx()].as_str().to_owned(),
    })
}

// ---------------------------------------------------------------------------
// callers (the "sandwich" of a scope name)

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CallerRow {
    /// `None` for a top-level instance (no caller).
    pub name: Option<String>,
    pub count: u64,
    pub total_ns: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CallersReport {
    pub name: String,
    pub count: u64,
    pub total_ns: i64,
    pub self_ns: i64,
    /// Instances grouped by their parent's name, summing their durations.
    pub callers: Vec<CallerRow>,
    /// Their direct children grouped by name, summing the children's durations.
    pub callees: Vec<CallerRow>,
}

/// Which definitions are named `name` (`None` when no definition is).
fn defs_named(trace: &Trace, name: &str) -> Option<Vec<bool>> {
    let id = trace.strings.find(name)?;
    let ok: Vec<bool> = trace.defs.name.iter().map(|&n| n == id).collect();
    ok.contains(&true).then_some(ok)
}

/// Instances named `name` (by name only, not data), in file order.
pub fn instances_named(trace: &Trace, name: &str) -> Vec<ScopeIdx> {
    let Some(def_ok) = defs_named(trace, name) else {
        return Vec::new();
    };
    let s = &trace.scopes;
    all_scopes(trace)
        .filter(|&i| def_ok[s.def[i as usize].idx()])
        .map(ScopeIdx)
        .collect()
}

/// Sorted rows of a name -> (count, total) grouping: total descending,
/// then name (`None` as "").
fn caller_rows(trace: &Trace, groups: FxHashMap<Option<StrId>, (u64, i64)>) -> Vec<CallerRow> {
    let mut rows: Vec<CallerRow> = groups
        .into_iter()
        .map(|(name, (count, total_ns))| CallerRow {
            name: name.map(|n| trace.str(n).to_owned()),
            count,
            total_ns,
        })
        .collect();
    rows.sort_by(|a, b| {
        b.total_ns.cmp(&a.total_ns).then_with(|| {
            a.name
                .as_deref()
                .unwrap_or("")
                .cmp(b.name.as_deref().unwrap_or(""))
        })
    });
    rows
}

/// Callers and callees of every instance named `name`, over all frames.
/// `None` when no scope has that name.
pub fn callers(trace: &Trace, name: &str) -> Option<CallersReport> {
    let hits = instances_named(trace, name);
    if hits.is_empty() {
        return None;
    }
    let s = &trace.scopes;
    let def_name = |i: ScopeIdx| trace.defs.name[s.def[i.idx()].idx()];
    let mut up: FxHashMap<Option<StrId>, (u64, i64)> = FxHashMap::default();
    let mut down: FxHashMap<Option<StrId>, (u64, i64)> = FxHashMap::default();
    let (mut total, mut self_total) = (0i64, 0i64);
    for &i in &hits {
        let d = s.duration_ns[i.idx()];
        total = total.saturating_add(d);
        self_total = self_total.saturating_add(s.self_ns[i.idx()]);
        let p = s.parent[i.idx()];
        let caller = (p != super::model::NO_PARENT).then(|| def_name(ScopeIdx(p)));
        let e = up.entry(caller).or_default();
        e.0 += 1;
        e.1 = e.1.saturating_add(d);
        for c in s.children(i) {
            let e = down.entry(Some(def_name(c))).or_default();
            e.0 += 1;
            e.1 = e.1.saturating_add(s.duration_ns[c.idx()]);
        }
    }
    Some(CallersReport {
        name: name.to_owned(),
        count: hits.len() as u64,
        total_ns: total,
        self_ns: self_total,
        callers: caller_rows(trace, up),
        callees: caller_rows(trace, down),
    })
}

// ---------------------------------------------------------------------------
// The table view's statistics and the scope details

/// Lower median and nearest-rank p95 of sorted durations (not empty).
fn median_p95(sorted: &[i64]) -> (i64, i64) {
    let n = sorted.len();
    let p95_rank = (95 * n).div_ceil(100).max(1);
    (sorted[(n - 1) / 2], sorted[p95_rank - 1])
}

/// Per-group statistics of scope instances (struct of arrays, one row per
/// group, in no particular order: the table view sorts an index).
#[derive(Clone, Default)]
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

/// The instances of frames `frames` (positions), as one contiguous range
/// (frames, their streams and their scopes are stored in order).
pub fn frames_scopes(trace: &Trace, frames: Range<u32>) -> Range<u32> {
    let frames = super::tree::clamp_frames(trace, frames);
    if frames.is_empty() {
        return 0..0;
    }
    let first = trace.frames.streams(FrameId(frames.start)).start;
    let last = trace.frames.streams(FrameId(frames.end - 1)).end;
    if first >= last {
        return 0..0;
    }
    trace.streams.scopes(StreamId(first)).start..trace.streams.scopes(StreamId(last - 1)).end
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
    let s = &trace.scopes;
    let stream_ok = stream_filter(trace, thread, None);
    let (lo, hi) = window.unwrap_or((i64::MIN, i64::MAX));
    let mut index = GroupIndex::new();
    let mut out = ScopeStats::default();
    let range = frames_scopes(trace, frames);
    // The group of every instance of `range` (`u32::MAX`: filtered out).
    let mut group_of: Vec<u32> = Vec::with_capacity(range.len());
    for i in range.clone() {
        let i = i as usize;
        // Only what ran entirely inside the window, when there is one.
        if !stream_ok[s.stream[i].idx()] || s.start_ns[i] < lo || s.end_ns(ScopeIdx(i as u32)) > hi
        {
            group_of.push(u32::MAX);
            continue;
        }
        let name = trace.defs.name[s.def[i].idx()];
        let data = if by == GroupBy::Name {
            StrId(0)
        } else {
            s.data[i]
        };
        let key = (u64::from(name.0) << 32) | u64::from(data.0);
        let g = index.get_or_insert(key, || {
            out.name.push(name);
            out.data.push(data);
            out.count.push(0);
            out.total_ns.push(0);
            out.self_ns.push(0);
            out.name.len() as u32 - 1
        });
        let gi = g as usize;
        let d = s.duration_ns[i];
        out.count[gi] += 1;
        out.total_ns[gi] = out.total_ns[gi].saturating_add(d);
        out.self_ns[gi] = out.self_ns[gi].saturating_add(s.self_ns[i]);
        out.all_self_ns = out.all_self_ns.saturating_add(s.self_ns[i]);
        group_of.push(g);
    }
    // Bucket the durations by group (counting sort), then sort each bucket.
    let groups = out.len();
    let mut start = vec![0usize; groups + 1];
    for g in 0..groups {
        start[g + 1] = start[g] + out.count[g] as usize;
    }
    let mut fill = start.clone();
    let mut durations = vec![0i64; start[groups]];
    for (k, &g) in group_of.iter().enumerate() {
        if g != u32::MAX {
            durations[fill[g as usize]] = s.duration_ns[range.start as usize + k];
            fill[g as usize] += 1;
        }
    }
    drop(group_of);
    out.min_ns.reserve_exact(groups);
    out.median_ns.reserve_exact(groups);
    out.p95_ns.reserve_exact(groups);
    out.max_ns.reserve_exact(groups);
    for g in 0..groups {
        let bucket = &mut durations[start[g]..start[g + 1]];
        bucket.sort_unstable();
        let (median, p95) = median_p95(bucket);
        out.min_ns.push(bucket[0]);
        out.median_ns.push(median);
        out.p95_ns.push(p95);
        out.max_ns.push(bucket[bucket.len() - 1]);
    }
    out
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
    let histogram = histogram(&durations, min, max);
    let def = trace
        .defs
        .registered_sorted()
        .into_iter()
        .find(|&d| trace.str(trace.defs.name[d.idx()]) == name);
    let max_share = if total == 0 {
        0.0
    } else {
        max as f64 / total as f64
    };
    Some(ScopeDetails {
        info: def.and_then(|d| scope(trace, trace.defs.raw_id[d.idx()])),
        min_ns: min,
        median_ns: median,
        p95_ns: p95,
        max_ns: max,
        mean_ns: total as f64 / durations.len() as f64,
        max_share,
        spike: spike(durations.len() as u64, max, total),
        histogram,
        slowest: top_k(trace, hits.iter().map(|i| i.0), slowest),
        callers,
    })
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
