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

/// A scope that overlaps the window: where it starts and ends, absolute
/// and from the window's start, and how much of it is inside.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WindowScope {
    pub name: String,
    pub data: String,
    /// 0 for a thread's top-level scope.
    pub depth: u32,
    pub start_ns: i64,
    pub end_ns: i64,
    pub duration_ns: i64,
    /// Milliseconds from the window's start (`lo_ns`) to the scope's start
    /// (negative when it started before the window) and to its end.
    pub start_in_window_ms: f64,
    pub end_in_window_ms: f64,
    /// Its time inside the window.
    pub overlap_ns: i64,
    /// It starts before the window or ends after it.
    pub partial: bool,
    /// Its own time inside the window, in none of its children (0 for a
    /// scope without children: its time is profiled).
    pub unprofiled_ns: i64,
}

/// Unprofiled time of one thread in the window, by the name of the scope
/// it is in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct UnprofiledIn {
    pub name: String,
    pub unprofiled_ns: i64,
}

/// One thread's time in the window, split three ways, and its scopes.
///
/// At each instant of the window a thread is in exactly one of three
/// states: `profiled` (its deepest scope there has no children: a leaf's
/// time is measured work), `unprofiled` (its deepest scope there has
/// children, none of them at that instant: the scope's own code, a blocking
/// call or a wait, what `gaps` lists), or `no scope` (no scope of the
/// thread is open: idle, or code outside every scope). The three add up to
/// the window's duration.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ThreadSplit {
    pub thread: String,
    pub profiled_ns: i64,
    pub unprofiled_ns: i64,
    pub no_scope_ns: i64,
    /// Where the unprofiled time is: per name of the scope it is in, most
    /// first, ties by name.
    pub unprofiled_in: Vec<UnprofiledIn>,
    /// Every scope of the thread overlapping the window, in time order
    /// (start, then depth): the first `--scopes` of `total_scopes`.
    pub scopes: Vec<WindowScope>,
    pub total_scopes: usize,
    /// The scopes only partly inside the window (all of them, in time
    /// order): the ancestors open across its edges, mostly.
    pub partial: Vec<WindowScope>,
}

/// Per thread name (sorted, every thread of the recording), its time in
/// `[lo_ns, hi_ns)` split into profiled, unprofiled and no-scope time (see
/// [`ThreadSplit`]), its scopes overlapping the window (the first
/// `max_scopes` in time order) and those only partly inside; and the time
/// in the window no thread spent in profiled time (the union of every
/// thread's profiled time, subtracted from the window).
pub fn thread_splits(
    trace: &Trace,
    lo_ns: i64,
    hi_ns: i64,
    max_scopes: usize,
) -> (Vec<ThreadSplit>, i64) {
    let s = &trace.scopes;
    let span = hi_ns.saturating_sub(lo_ns).max(0);
    let clip = |st: i64, en: i64| (en.min(hi_ns) - st.max(lo_ns)).max(0);
    #[derive(Default)]
    struct Acc {
        profiled: i64,
        unprofiled: i64,
        top_level: i64,
        unprofiled_in: std::collections::BTreeMap<String, i64>,
        scopes: Vec<WindowScope>,
    }
    let mut by_name: std::collections::BTreeMap<&str, Acc> = Default::default();
    for &name in &trace.threads.name {
        by_name.entry(trace.str(name)).or_default();
    }
    let mut profiled_parts: Vec<(i64, i64)> = Vec::new();
    for stream in 0..trace.streams.len() as u32 {
        let range = trace.streams.scopes(crate::engine::StreamId(stream));
        let thread = trace.thread_name(trace.streams.thread[stream as usize]);
        let acc = by_name.entry(thread).or_default();
        let mut i = range.start;
        while i < range.end {
            let at = ScopeIdx(i);
            let (st, en) = (s.start_ns[i as usize], s.end_ns(at));
            // Half-open: a scope ending where the window starts is not in
            // it; one of no duration is when it starts inside.
            if st >= hi_ns || (en <= lo_ns && st < lo_ns) {
                // Children lie within their parent: skip the subtree.
                i = s.subtree_end[i as usize].max(i + 1);
                continue;
            }
            let overlap = clip(st, en);
            let leaf = s.subtree_end[i as usize] <= i + 1;
            let own = if leaf {
                acc.profiled += overlap;
                if overlap > 0 {
                    profiled_parts.push((st.max(lo_ns), en.min(hi_ns)));
                }
                0
            } else {
                let children: i64 = s
                    .children(at)
                    .map(|c| clip(s.start_ns[c.idx()], s.end_ns(c)))
                    .sum();
                let own = (overlap - children).max(0);
                acc.unprofiled += own;
                if own > 0 {
                    *acc.unprofiled_in
                        .entry(trace.scope_name(at).to_owned())
                        .or_default() += own;
                }
                own
            };
            if s.depth[i as usize] == 0 {
                acc.top_level += overlap;
            }
            acc.scopes.push(WindowScope {
                name: trace.scope_name(at).to_owned(),
                data: trace.scope_data(at).to_owned(),
                depth: s.depth[i as usize],
                start_ns: st,
                end_ns: en,
                duration_ns: s.duration_ns[i as usize],
                start_in_window_ms: crate::engine::reltime::rel_ms(st, lo_ns),
                end_in_window_ms: crate::engine::reltime::rel_ms(en, lo_ns),
                overlap_ns: overlap,
                partial: st < lo_ns || en > hi_ns,
                unprofiled_ns: own,
            });
            i += 1;
        }
    }
    let splits = by_name
        .into_iter()
        .map(|(thread, mut acc)| {
            acc.scopes
                .sort_by_key(|w| (w.start_ns, w.depth, std::cmp::Reverse(w.end_ns)));
            let total_scopes = acc.scopes.len();
            let partial = acc.scopes.iter().filter(|w| w.partial).cloned().collect();
            acc.scopes.truncate(max_scopes);
            let mut unprofiled_in: Vec<UnprofiledIn> = acc
                .unprofiled_in
                .into_iter()
                .map(|(name, unprofiled_ns)| UnprofiledIn {
                    name,
                    unprofiled_ns,
                })
                .collect();
            unprofiled_in.sort_by_key(|u| std::cmp::Reverse(u.unprofiled_ns));
            ThreadSplit {
                thread: thread.to_owned(),
                profiled_ns: acc.profiled,
                unprofiled_ns: acc.unprofiled,
                no_scope_ns: (span - acc.top_level).max(0),
                unprofiled_in,
                scopes: acc.scopes,
                total_scopes,
                partial,
            }
        })
        .collect();
    profiled_parts.sort_unstable();
    (splits, span - super::common::union_ns(profiled_parts))
}

/// `window`'s answer: what ran inside `[lo_ns, hi_ns]`, how busy each
/// thread was, and how much of the window no thread's scope covered.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WindowReport {
    pub lo_ns: i64,
    pub hi_ns: i64,
    /// `hi_ns - lo_ns` (0 when hi is before lo).
    pub duration_ns: i64,
    /// Per thread name (sorted, every thread of the recording): its time
    /// in the window split into profiled, unprofiled (inside a scope, in
    /// none of its children) and no scope at all, and its scopes with their
    /// starts and ends (see [`ThreadSplit`]).
    pub split: Vec<ThreadSplit>,
    /// Time in the window no thread spent in profiled time (every thread
    /// was in a scope's own time or in no scope): what nothing measured.
    pub no_thread_profiled_ns: i64,
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

/// [`window`] with each thread's busy time, the time no thread covered,
/// and each thread's split and scopes ([`thread_splits`]).
pub fn window_report(
    trace: &Trace,
    lo_ns: i64,
    hi_ns: i64,
    n: usize,
    max_scopes: usize,
) -> WindowReport {
    let (covered_ns, threads_recorded) = super::gaps::covered_in(trace, lo_ns, hi_ns);
    let (split, no_thread_profiled_ns) = thread_splits(trace, lo_ns, hi_ns, max_scopes);
    WindowReport {
        lo_ns,
        hi_ns,
        duration_ns: hi_ns.saturating_sub(lo_ns).max(0),
        split,
        no_thread_profiled_ns,
        threads: window(trace, lo_ns, hi_ns, n),
        busy: super::gaps::busy_in(trace, lo_ns, hi_ns, None),
        covered_ns,
        uncovered_ns: hi_ns.saturating_sub(lo_ns).max(0) - covered_ns,
        threads_recorded,
    }
}
