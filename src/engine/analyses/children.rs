//! `children`: the children of an instance, with the gaps between them.

use super::common::*;
use crate::engine::model::{ScopeIdx, Trace};
use serde::Serialize;
use std::cmp::Reverse;

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

/// The children of the slowest instance named (or with data) `name`:
/// slowest first (ties by earlier start), or in time order with `ordered`.
/// `None` when no instance matches.
pub fn children(trace: &Trace, name: &str, ordered: bool) -> Option<ChildrenReport> {
    let hits = named_instances(trace, name).into_iter().map(|i| i.0);
    top_k(trace, hits, 1)
        .first()
        .map(|&p| children_of(trace, p, ordered))
}

/// [`children`] for a given instance.
pub fn children_of(trace: &Trace, parent: ScopeIdx, ordered: bool) -> ChildrenReport {
    let s = &trace.scopes;
    // In time order (ties in stream order).
    let mut timed: Vec<ScopeIdx> = s.children(parent).collect();
    timed.sort_by_key(|&c| (s.start_ns[c.idx()], c.0));
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
