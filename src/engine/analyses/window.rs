//! `window`: what ran on each thread inside a time window.

use super::common::*;
use crate::engine::model::{ScopeIdx, Trace};
use serde::Serialize;

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

/// `window`'s answer: what ran inside `[lo_ns, hi_ns]`, how busy each
/// thread was, and how much of the window no thread's scope covered.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WindowReport {
    pub lo_ns: i64,
    pub hi_ns: i64,
    /// Per thread name (sorted), the scopes wholly inside the window.
    pub threads: Vec<WindowThread>,
    /// Per thread, its top-level scopes' time in the window (a scope only
    /// partly inside counts its overlap), busiest first.
    pub busy: Vec<super::gaps::BusyThread>,
    /// Time in the window some thread's scope covered, and none did.
    pub covered_ns: i64,
    pub uncovered_ns: i64,
    /// Threads (by name) the recording has: with one, an uncovered
    /// stretch cannot say whether another thread was busy.
    pub threads_recorded: usize,
}

/// [`window`] with each thread's busy time and the time no thread covered.
pub fn window_report(trace: &Trace, lo_ns: i64, hi_ns: i64, n: usize) -> WindowReport {
    let (covered_ns, threads_recorded) = super::gaps::covered_in(trace, lo_ns, hi_ns);
    WindowReport {
        lo_ns,
        hi_ns,
        threads: window(trace, lo_ns, hi_ns, n),
        busy: super::gaps::busy_in(trace, lo_ns, hi_ns, None),
        covered_ns,
        uncovered_ns: hi_ns.saturating_sub(lo_ns).max(0) - covered_ns,
        threads_recorded,
    }
}
