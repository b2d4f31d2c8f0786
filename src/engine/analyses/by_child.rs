//! `calls FILE PARENT --by-child CHILD`: a parent's calls broken down by
//! the data of a scope inside them (which chunk each `Encoder<_>::append`
//! wrote, and what each cost), without joining two `calls` lists by time.
//!
//! Each call of PARENT (a name, or a data string, as `calls` matches it) is
//! keyed by the data strings of the CHILD scopes inside it (CHILD: a scope
//! name or a glob, at any depth below the call; a CHILD inside a CHILD
//! counts in its outer one only): the distinct strings, sorted. A call with
//! no CHILD inside has the empty key. The calls of one key are a group:
//! their count, the parent's total, median and max, and the CHILD scopes'
//! own totals (calls, total, self time). Groups by the parent's total,
//! largest first, then more calls, then the key: deterministic. The groups
//! partition the calls: their counts and totals add up to the parent's.

use super::common::named_instances;
use super::transform::Pattern;
use crate::engine::model::{ScopeIdx, StrId, Trace};
use serde::Serialize;
use std::collections::BTreeMap;

/// The calls of PARENT with one key (see the module's doc).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ChildGroup {
    /// The data strings of the CHILD scopes inside these calls, distinct
    /// and sorted; `[]`: calls with no CHILD inside.
    pub child_data: Vec<String>,
    /// Calls of the parent in the group.
    pub calls: u64,
    /// The parent's durations, summed.
    pub total_ns: i64,
    /// Of the parent's total over every call, in percent.
    pub share_pct: f64,
    /// The parent's lower median and longest call.
    pub median_ns: i64,
    pub max_ns: i64,
    /// The longest call's start, thread and frame (for `children`, `window`).
    pub slowest_at_ns: i64,
    pub slowest_thread: String,
    pub slowest_frame_index: u64,
    /// The CHILD scopes inside these calls: how many, their durations and
    /// their own (self) time, summed.
    pub child_calls: u64,
    pub child_total_ns: i64,
    pub child_self_ns: i64,
}

/// The answer of `calls FILE PARENT --by-child CHILD`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ByChildReport {
    /// PARENT and CHILD as asked.
    pub parent: String,
    pub child: String,
    /// Every call of the parent, and their durations summed.
    pub calls: u64,
    pub total_ns: i64,
    /// Of them, the calls with a CHILD inside.
    pub calls_with_child: u64,
    /// The CHILD scopes inside the calls, in all (every group's summed).
    pub child_calls: u64,
    pub child_total_ns: i64,
    /// Every group (never cut), largest parent total first.
    pub groups: Vec<ChildGroup>,
    pub total_groups: usize,
}

/// Why [`by_child`] has no answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ByChildError {
    /// CHILD is a malformed glob.
    BadPattern(String),
    /// No call of PARENT.
    NoParent,
    /// No CHILD inside any call of PARENT: the names that are, sorted.
    NoChild { inside: Vec<String> },
}

#[derive(Default)]
struct Acc {
    durations: Vec<i64>,
    total_ns: i64,
    slowest: Option<ScopeIdx>,
    child_calls: u64,
    child_total_ns: i64,
    child_self_ns: i64,
}

/// The calls of `parent` (name or data) in `trace`, grouped by the data of
/// the `child` scopes (a name or a glob) inside each; see the module's doc.
/// Linear in the calls' subtrees.
pub fn by_child(trace: &Trace, parent: &str, child: &str) -> Result<ByChildReport, ByChildError> {
    let pattern = Pattern::new(child).map_err(ByChildError::BadPattern)?;
    let s = &trace.scopes;
    let mut hits = named_instances(trace, parent);
    if hits.is_empty() {
        return Err(ByChildError::NoParent);
    }
    hits.sort_by_key(|&i| (s.start_ns[i.idx()], i.0));
    let def_matches: Vec<bool> = trace
        .defs
        .name
        .iter()
        .map(|&n| pattern.matches(trace.str(n)))
        .collect();
    let mut groups: BTreeMap<Vec<StrId>, Acc> = BTreeMap::new();
    let mut key: Vec<StrId> = Vec::new();
    let (mut calls_with_child, mut child_calls, mut child_total) = (0u64, 0u64, 0i64);
    for &call in &hits {
        key.clear();
        let (mut n, mut total, mut own) = (0u64, 0i64, 0i64);
        let end = s.subtree_end[call.idx()];
        let mut j = call.0 + 1;
        while j < end {
            let ju = j as usize;
            if def_matches[s.def[ju].idx()] {
                key.push(s.data[ju]);
                n += 1;
                total = total.saturating_add(s.duration_ns[ju]);
                own = own.saturating_add(s.self_ns[ju]);
                // A CHILD inside this one counts in it.
                j = s.subtree_end[ju];
            } else {
                j += 1;
            }
        }
        key.sort_unstable_by(|&x, &y| trace.str(x).cmp(trace.str(y)));
        key.dedup();
        calls_with_child += u64::from(n > 0);
        child_calls += n;
        child_total = child_total.saturating_add(total);
        let acc = groups.entry(key.clone()).or_default();
        let d = s.duration_ns[call.idx()];
        acc.durations.push(d);
        acc.total_ns = acc.total_ns.saturating_add(d);
        // The first of the longest calls, in time order.
        if acc.slowest.is_none_or(|w| d > s.duration_ns[w.idx()]) {
            acc.slowest = Some(call);
        }
        acc.child_calls += n;
        acc.child_total_ns = acc.child_total_ns.saturating_add(total);
        acc.child_self_ns = acc.child_self_ns.saturating_add(own);
    }
    if child_calls == 0 {
        let inside: std::collections::BTreeSet<&str> = (hits.iter())
            .flat_map(|&call| s.children(call))
            .map(|c| trace.scope_name(c))
            .collect();
        let inside = inside.into_iter().map(str::to_owned).collect();
        return Err(ByChildError::NoChild { inside });
    }
    let total_ns = hits
        .iter()
        .fold(0i64, |a, &i| a.saturating_add(s.duration_ns[i.idx()]));
    let mut rows: Vec<ChildGroup> = groups
        .into_iter()
        .map(|(key, mut acc)| {
            acc.durations.sort_unstable();
            let n = acc.durations.len();
            let slowest = acc.slowest.expect("a group has a call");
            ChildGroup {
                child_data: key.iter().map(|&k| trace.str(k).to_owned()).collect(),
                calls: n as u64,
                total_ns: acc.total_ns,
                share_pct: if total_ns > 0 {
                    100.0 * acc.total_ns as f64 / total_ns as f64
                } else {
                    0.0
                },
                median_ns: acc.durations[(n - 1) / 2],
                max_ns: acc.durations[n - 1],
                slowest_at_ns: s.start_ns[slowest.idx()],
                slowest_thread: trace.thread_name(trace.scope_thread(slowest)).to_owned(),
                slowest_frame_index: trace.frames.frame_index[trace.scope_frame(slowest).idx()],
                child_calls: acc.child_calls,
                child_total_ns: acc.child_total_ns,
                child_self_ns: acc.child_self_ns,
            }
        })
        .collect();
    rows.sort_by(|x, y| {
        (y.total_ns, y.calls, &x.child_data).cmp(&(x.total_ns, x.calls, &y.child_data))
    });
    Ok(ByChildReport {
        parent: parent.to_owned(),
        child: child.to_owned(),
        calls: hits.len() as u64,
        total_ns,
        calls_with_child,
        child_calls,
        child_total_ns: child_total,
        total_groups: rows.len(),
        groups: rows,
    })
}
