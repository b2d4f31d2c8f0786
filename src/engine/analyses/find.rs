//! `top` (the slowest instances), `find` (instances by name or data prefix)
//! and its `--aggregate` totals per name or (name, data).

use super::common::*;
use crate::engine::model::{FrameId, ScopeIdx, StrId, Trace};
use serde::Serialize;
use std::ops::Range;

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
        Self {
            def_ok: trace
                .defs
                .name
                .iter()
                .map(|&n| f.field != Field::Data && matches(n))
                .collect(),
            data_ok: (0..trace.strings.len() as u32)
                .map(|s| f.field != Field::Name && matches(StrId(s)))
                .collect(),
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
    find_counted(trace, filter, n).0
}

/// [`find`], and how many instances match in all.
pub fn find_counted(trace: &Trace, filter: &FindFilter, n: usize) -> (Vec<InstanceRow>, usize) {
    let m = Matcher::new(trace, filter);
    let range = match filter.frame_position {
        Some(f) => frame_scopes(trace, f),
        None => all_scopes(trace),
    };
    let mut total = 0usize;
    let rows = top_k(
        trace,
        range.filter(|&i| m.test(trace, i)).inspect(|_| total += 1),
        n,
    )
    .into_iter()
    .map(|i| InstanceRow::new(trace, i))
    .collect();
    (rows, total)
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

#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Acc {
    pub(super) name: StrId,
    pub(super) data: StrId,
    pub(super) count: u64,
    pub(super) total_ns: i64,
    pub(super) self_ns: i64,
    pub(super) min_ns: i64,
    pub(super) max_ns: i64,
}

/// Accumulates instances by (name, data) or name, keyed by interned ids.
pub(super) fn accumulate(trace: &Trace, by: GroupBy, keep: impl Fn(u32) -> bool) -> Vec<Acc> {
    let mut acc = Accumulator::new(by);
    acc.add(trace, all_scopes(trace), keep);
    acc.groups
}

/// [`accumulate`] a range of instances at a time (of one trace).
#[derive(Clone, Debug, Default)]
pub(super) struct Accumulator {
    pub(super) by: GroupBy,
    /// Made for every scope of the trace at the first add, unless given.
    pub(super) index: Option<PairIndex>,
    pub(super) groups: Vec<Acc>,
    /// With [`Self::recording`]: each added instance's group, in the order
    /// added (`u32::MAX` for one `keep` left out).
    pub(super) group_of: Option<Vec<u32>>,
}

impl Accumulator {
    pub(super) fn new(by: GroupBy) -> Self {
        Self {
            by,
            ..Default::default()
        }
    }

    /// [`Self::new`], also keeping each instance's group (`group_of`).
    pub(super) fn recording(by: GroupBy) -> Self {
        Self {
            group_of: Some(Vec::new()),
            ..Self::new(by)
        }
    }

    /// The group of (`name`, `data`) (`data` is ignored when grouping by
    /// name), if any instance of it was added.
    pub(super) fn find(&self, name: StrId, data: StrId) -> Option<u32> {
        self.index.as_ref()?.get(name, data)
    }

    /// Adds the instances `scopes` that `keep` keeps.
    pub(super) fn add(&mut self, trace: &Trace, scopes: Range<u32>, keep: impl Fn(u32) -> bool) {
        let s = &trace.scopes;
        let by_name = self.by == GroupBy::Name;
        let Self {
            by,
            index,
            groups,
            group_of,
        } = self;
        let index = index
            .get_or_insert_with(|| PairIndex::new(*by, trace.strings.len(), trace.scopes.len()));
        for i in scopes {
            if !keep(i) {
                if let Some(of) = group_of.as_mut() {
                    of.push(u32::MAX);
                }
                continue;
            }
            let i = i as usize;
            let name = trace.defs.name[s.def[i].idx()];
            let data = if by_name { StrId(0) } else { s.data[i] };
            let g = index.get_or_insert(name, data, || {
                groups.push(Acc {
                    name,
                    data,
                    min_ns: i64::MAX,
                    max_ns: i64::MIN,
                    ..Default::default()
                });
                groups.len() as u32 - 1
            });
            if let Some(of) = group_of.as_mut() {
                of.push(g);
            }
            let acc = &mut groups[g as usize];
            let d = s.duration_ns[i];
            acc.count += 1;
            acc.total_ns = acc.total_ns.saturating_add(d);
            acc.self_ns = acc.self_ns.saturating_add(s.self_ns[i]);
            acc.min_ns = acc.min_ns.min(d);
            acc.max_ns = acc.max_ns.max(d);
        }
    }
}

/// Matching instances grouped, by total desc, ties by name then data; at most `n`.
pub fn aggregate(trace: &Trace, filter: &FindFilter, by: GroupBy, n: usize) -> Vec<AggregateRow> {
    aggregate_counted(trace, filter, by, n).0
}

/// [`aggregate`], and how many groups there are in all.
pub fn aggregate_counted(
    trace: &Trace,
    filter: &FindFilter,
    by: GroupBy,
    n: usize,
) -> (Vec<AggregateRow>, usize) {
    let m = Matcher::new(trace, filter);
    let groups = accumulate(trace, by, |i| m.test(trace, i));
    let total = groups.len();
    // Groups are distinct (name, data): a total order, so the first `n` by
    // selection and a sort of those only are the first `n` of a full sort.
    let order = |a: &Acc, b: &Acc| {
        b.total_ns
            .cmp(&a.total_ns)
            .then_with(|| trace.str(a.name).cmp(trace.str(b.name)))
            .then_with(|| trace.str(a.data).cmp(trace.str(b.data)))
    };
    let rows = first_n(groups, n, order)
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
        .collect();
    (rows, total)
}
