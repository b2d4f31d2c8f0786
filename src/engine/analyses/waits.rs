//! Waits traced across threads: what a gap on one thread waits for while
//! other threads work, split into dispatch, waiting and wake (see
//! docs/cli.md, "Waits traced across threads"). One recording only, so that
//! `gaps` can use it without the comparison's imports
//! ([`super::change::wait_diff`] compares). Linear: one index of every
//! thread's top-level scopes, sorted by start and by end; each gap a binary
//! search per thread name.

use super::common::lower_median;
use crate::engine::model::{ScopeIdx, StrId, StreamId, Trace};
use rustc_hash::FxHashMap;
use serde::Serialize;

/// One thread name's top-level scopes: `(start, end, scope)` by start
/// (with the running maximum of ends) and by end.
pub(super) struct ThreadIndex {
    pub(super) thread: StrId,
    pub(super) by_start: Vec<(i64, i64, ScopeIdx)>,
    max_end: Vec<i64>,
    by_end: Vec<(i64, i64, ScopeIdx)>,
}

impl ThreadIndex {
    /// Each scope overlapping `[lo, hi)`, with its overlap.
    pub(super) fn overlaps(&self, lo: i64, hi: i64, mut f: impl FnMut(&(i64, i64, ScopeIdx), i64)) {
        let upper = self.by_start.partition_point(|x| x.0 < hi);
        for k in (0..upper).rev() {
            if self.max_end[k] <= lo {
                break;
            }
            let (a, b, _) = self.by_start[k];
            let overlap = b.min(hi).saturating_sub(a.max(lo));
            if overlap > 0 {
                f(&self.by_start[k], overlap);
            }
        }
    }
}

/// Every thread's top-level scopes, sorted for [`WaitIndex::trace`] and
/// what ran meanwhile (thread names in name order; none: an index of no
/// thread).
#[derive(Default)]
pub struct WaitIndex {
    pub(super) threads: Vec<ThreadIndex>,
}

/// A traced wait, without strings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Traced {
    pub critical: ScopeIdx,
    pub critical_thread: StrId,
    pub first: ScopeIdx,
    pub first_thread: StrId,
    pub dispatch_ns: i64,
    pub waiting_ns: i64,
    pub wake_ns: i64,
    /// Other threads with top-level work in the waiting part.
    pub threads_working: u32,
    /// Other threads already in a top-level scope at the gap's start.
    pub threads_busy_at_start: u32,
    /// The other threads' top-level work inside the waiting part, summed:
    /// over `waiting_ns`, how many ran at once on average.
    pub busy_ns: i64,
    /// The thread with the most of that work, and its work (ties: the
    /// first thread by name).
    pub busiest_thread: StrId,
    pub busiest_ns: i64,
}

impl WaitIndex {
    /// One pass over the top-level scopes, one sort per thread name.
    pub fn of(trace: &Trace) -> Self {
        let mut by_name: FxHashMap<StrId, Vec<(i64, i64, ScopeIdx)>> = FxHashMap::default();
        let s = &trace.scopes;
        for st in 0..trace.streams.len() as u32 {
            let name = trace.threads.name[trace.streams.thread[st as usize].idx()];
            by_name.entry(name).or_default().extend(
                s.top_level(trace.streams.scopes(StreamId(st)))
                    .map(|i| (s.start_ns[i.idx()], s.end_ns(i), i)),
            );
        }
        let mut threads: Vec<ThreadIndex> = by_name
            .into_iter()
            .map(|(thread, mut by_start)| {
                by_start.sort_unstable_by_key(|&(a, b, i)| (a, b, i.0));
                let max_end = by_start
                    .iter()
                    .scan(i64::MIN, |m, x| {
                        *m = (*m).max(x.1);
                        Some(*m)
                    })
                    .collect();
                let mut by_end = by_start.clone();
                by_end.sort_unstable_by_key(|&(a, b, i)| (b, a, i.0));
                ThreadIndex {
                    thread,
                    by_start,
                    max_end,
                    by_end,
                }
            })
            .collect();
        threads.sort_by(|x, y| trace.str(x.thread).cmp(trace.str(y.thread)));
        Self { threads }
    }

    /// What the gap `[start, end)` on the threads named `own` waits for
    /// (see the module doc); `None` when no other thread's top-level scope
    /// ends within it. Ties: the critical work is the latest end, then the
    /// first thread by name, then the latest start; the first to start the
    /// earliest start, then the first thread by name.
    pub fn trace(&self, own: StrId, start: i64, end: i64) -> Option<Traced> {
        let others = || self.threads.iter().filter(move |t| t.thread != own);
        // The critical work: per thread the last scope ending at most at `end`.
        let mut crit: Option<(i64, i64, ScopeIdx, StrId)> = None;
        for t in others() {
            let k = t.by_end.partition_point(|x| x.1 <= end);
            let Some(&(a, b, i)) = k.checked_sub(1).map(|k| &t.by_end[k]) else {
                continue;
            };
            if b > start && crit.is_none_or(|c| b > c.1) {
                crit = Some((a, b, i, t.thread));
            }
        }
        let (crit_start, crit_end, crit_i, crit_thread) = crit?;
        // The first work to start in the gap (before the critical end).
        let mut first: Option<(i64, ScopeIdx, StrId)> = None;
        let (mut working, mut busy_at_start) = (0u32, 0u32);
        for t in others() {
            let k = t.by_start.partition_point(|x| x.0 < start);
            if let Some(&(a, _, i)) = t.by_start.get(k)
                && a < crit_end
                && first.is_none_or(|f| a < f.0)
            {
                first = Some((a, i, t.thread));
            }
            if k > 0 && t.max_end[k - 1] > start {
                busy_at_start += 1;
            }
        }
        // None: the critical work began before the gap: no dispatch part.
        let (first_start, first_i, first_thread) =
            first.unwrap_or((crit_start.max(start), crit_i, crit_thread));
        let mut busy_ns = 0i64;
        let mut busiest = (0i64, crit_thread);
        for t in others() {
            let k = t.by_start.partition_point(|x| x.0 < crit_end);
            if k > 0 && t.max_end[k - 1] > first_start {
                working += 1;
            }
            // Its scopes overlapping the waiting part.
            let mut mine = 0i64;
            t.overlaps(first_start, crit_end, |_, o| mine = mine.saturating_add(o));
            busy_ns = busy_ns.saturating_add(mine);
            if mine > busiest.0 {
                busiest = (mine, t.thread);
            }
        }
        Some(Traced {
            critical: crit_i,
            critical_thread: crit_thread,
            first: first_i,
            first_thread,
            dispatch_ns: first_start.saturating_sub(start),
            waiting_ns: crit_end.saturating_sub(first_start),
            wake_ns: end.saturating_sub(crit_end),
            threads_working: working,
            threads_busy_at_start: busy_at_start,
            busy_ns,
            busiest_thread: busiest.1,
            busiest_ns: busiest.0,
        })
    }

    /// Whether another thread than `own` is inside a top-level scope at
    /// `t` (one started before it and ends after it).
    pub fn busy_at(&self, own: StrId, t: i64) -> bool {
        (self.threads.iter().filter(|x| x.thread != own)).any(|x| {
            let k = x.by_start.partition_point(|s| s.0 < t);
            k > 0 && x.max_end[k - 1] > t
        })
    }

    /// The threads other than `own` that ran a top-level scope named
    /// `name` overlapping one of `windows`, by name.
    pub fn threads_running(
        &self,
        t: &Trace,
        own: StrId,
        name: &str,
        windows: &[(i64, i64)],
    ) -> Vec<String> {
        let mut out: Vec<String> = (self.threads.iter().filter(|x| x.thread != own))
            .filter(|x| {
                windows.iter().any(|&(lo, hi)| {
                    let k = x.by_start.partition_point(|s| s.0 < hi);
                    (0..k)
                        .rev()
                        .take_while(|&j| x.max_end[j] > lo)
                        .any(|j| x.by_start[j].1 > lo && t.scope_name(x.by_start[j].2) == name)
                })
            })
            .map(|x| t.str(x.thread).to_owned())
            .collect();
        out.sort();
        out
    }
}

/// A scope another thread ran: its thread, name, data and time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WaitWork {
    pub thread: String,
    pub name: String,
    pub data: String,
    pub start_ns: i64,
    pub end_ns: i64,
    pub duration_ns: i64,
}

impl WaitWork {
    fn of(trace: &Trace, thread: StrId, i: ScopeIdx) -> Self {
        Self {
            thread: trace.str(thread).to_owned(),
            name: trace.scope_name(i).to_owned(),
            data: trace.scope_data(i).to_owned(),
            start_ns: trace.scopes.start_ns[i.idx()],
            end_ns: trace.scopes.end_ns(i),
            duration_ns: trace.scopes.duration_ns[i.idx()],
        }
    }
}

/// What one gap waits for (the `waits_for` of a one-off gap).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WaitsFor {
    /// The last top-level scope on another thread to end within the gap:
    /// the critical path.
    pub critical: WaitWork,
    /// How long before the gap's end it ended (= `wake_ns`).
    pub critical_ends_before_gap_end_ns: i64,
    /// The first top-level scope of another thread to start in the gap (the
    /// critical one when it began before the gap).
    pub first: WaitWork,
    /// The gap's start to `first`'s start: dispatching, dispatch latency.
    pub dispatch_ns: i64,
    /// `first`'s start to the critical end: the other threads work.
    pub waiting_ns: i64,
    /// The critical end to the gap's end: the wake-up.
    pub wake_ns: i64,
    /// Other threads with top-level work in the waiting part.
    pub threads_working: u32,
    /// Other threads already in a top-level scope when the gap started.
    pub threads_busy_at_start: u32,
}

impl WaitsFor {
    pub fn of(trace: &Trace, t: &Traced) -> Self {
        Self {
            critical: WaitWork::of(trace, t.critical_thread, t.critical),
            critical_ends_before_gap_end_ns: t.wake_ns,
            first: WaitWork::of(trace, t.first_thread, t.first),
            dispatch_ns: t.dispatch_ns,
            waiting_ns: t.waiting_ns,
            wake_ns: t.wake_ns,
            threads_working: t.threads_working,
            threads_busy_at_start: t.threads_busy_at_start,
        }
    }
}

/// Which scope (thread, name, data), and in how many occurrences.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WaitPlace {
    pub thread: String,
    pub name: String,
    pub data: String,
    /// Occurrences in which it was this one.
    pub occurrences: u64,
}

/// What a recurring gap waits for, over its occurrences (the `waits_for`
/// of a recurring gap): lower medians of each part over the traced
/// occurrences (the medians need not sum to the gap's median).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RecurringWaitsFor {
    /// Occurrences whose wait was traced (of the gap's `frames`).
    pub traced: u64,
    /// The most frequent critical work (ties: thread, name, data in order).
    pub critical: WaitPlace,
    /// Its duration, the lower median over the occurrences it was critical.
    pub median_critical_duration_ns: i64,
    /// The most frequent first work to start.
    pub first: WaitPlace,
    pub median_dispatch_ns: i64,
    pub median_waiting_ns: i64,
    pub median_wake_ns: i64,
    /// Means of the parts over the traced occurrences: they sum to the
    /// traced occurrences' mean (a heavy tail shows here, not in the
    /// medians).
    pub mean_dispatch_ns: f64,
    pub mean_waiting_ns: f64,
    pub mean_wake_ns: f64,
    /// The median of the other threads with work in the waiting part.
    pub median_threads_working: u32,
    /// How many other threads ran at once in the waiting part, on average
    /// (their work over its length), the median over the occurrences: 3.0
    /// for three workers side by side, 1.0 for the same three one after
    /// another.
    pub median_parallelism: f64,
    /// The most frequent busiest thread (the one with the most of the
    /// other threads' work in the waiting part).
    pub busiest_thread: String,
    /// Each traced occurrence's parts, in order (the comparison decomposes
    /// a wait's change with them: [`super::change::wait_diff`]).
    #[serde(skip)]
    pub occurrences: Vec<WaitParts>,
}

/// One traced occurrence of a wait as the comparison decomposes it (`W`,
/// `T`, `n`, `M` of docs/statistics.md, "A wait is the work it waits for").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WaitParts {
    pub waiting_ns: i64,
    pub work_ns: i64,
    pub threads: u32,
    pub busiest_ns: i64,
}

/// The most frequent `(thread, name, data)` of `keys`, with its count.
fn mode(trace: &Trace, keys: &[(StrId, ScopeIdx)]) -> Option<(WaitPlace, Vec<usize>)> {
    let key = |&(t, i): &(StrId, ScopeIdx)| (t, trace.scopes.def[i.idx()], trace.scope_data(i));
    let mut count: FxHashMap<_, Vec<usize>> = FxHashMap::default();
    for (k, x) in keys.iter().enumerate() {
        count.entry(key(x)).or_default().push(k);
    }
    let ((t, _, data), at) = count.into_iter().max_by(|(kx, x), (ky, y)| {
        fn words<'a>(
            trace: &'a Trace,
            k: &(StrId, crate::engine::model::DefId, &'a str),
        ) -> (&'a str, &'a str, &'a str) {
            (trace.str(k.0), trace.str(trace.defs.name[k.1.idx()]), k.2)
        }
        x.len()
            .cmp(&y.len())
            .then_with(|| words(trace, ky).cmp(&words(trace, kx)))
    })?;
    let i = keys[at[0]].1;
    Some((
        WaitPlace {
            thread: trace.str(t).to_owned(),
            name: trace.scope_name(i).to_owned(),
            data: data.to_owned(),
            occurrences: at.len() as u64,
        },
        at,
    ))
}

/// What the gaps `windows` (one place's occurrences on the threads named
/// `own`) wait for; `None` when none was traced.
pub fn recurring(
    trace: &Trace,
    index: &WaitIndex,
    own: StrId,
    windows: &[(i64, i64)],
) -> Option<RecurringWaitsFor> {
    let traced: Vec<Traced> = windows
        .iter()
        .filter_map(|&(a, b)| index.trace(own, a, b))
        .collect();
    let crit: Vec<(StrId, ScopeIdx)> = traced
        .iter()
        .map(|t| (t.critical_thread, t.critical))
        .collect();
    let first: Vec<(StrId, ScopeIdx)> = traced.iter().map(|t| (t.first_thread, t.first)).collect();
    let (critical, at) = mode(trace, &crit)?;
    let (first, _) = mode(trace, &first)?;
    let part = |f: fn(&Traced) -> i64| lower_median(&mut traced.iter().map(f).collect::<Vec<_>>());
    let mean = |f: fn(&Traced) -> i64| {
        traced.iter().map(|t| f(t) as f64).sum::<f64>() / traced.len() as f64
    };
    let mut working: Vec<i64> = traced.iter().map(|t| t.threads_working as i64).collect();
    Some(RecurringWaitsFor {
        traced: traced.len() as u64,
        critical,
        median_critical_duration_ns: lower_median(
            &mut at
                .iter()
                .map(|&k| trace.scopes.duration_ns[crit[k].1.idx()])
                .collect::<Vec<_>>(),
        ),
        first,
        median_dispatch_ns: part(|t| t.dispatch_ns),
        median_waiting_ns: part(|t| t.waiting_ns),
        median_wake_ns: part(|t| t.wake_ns),
        mean_dispatch_ns: mean(|t| t.dispatch_ns),
        mean_waiting_ns: mean(|t| t.waiting_ns),
        mean_wake_ns: mean(|t| t.wake_ns),
        median_threads_working: lower_median(&mut working) as u32,
        busiest_thread: {
            let mut count: FxHashMap<StrId, usize> = FxHashMap::default();
            for t in &traced {
                *count.entry(t.busiest_thread).or_default() += 1;
            }
            count
                .into_iter()
                .map(|(t, n)| (n, trace.str(t)))
                .max_by(|x, y| x.0.cmp(&y.0).then_with(|| y.1.cmp(x.1)))
                .map(|(_, t)| t.to_owned())
                .unwrap_or_default()
        },
        occurrences: traced
            .iter()
            .map(|t| WaitParts {
                waiting_ns: t.waiting_ns,
                work_ns: t.busy_ns,
                threads: t.threads_working,
                busiest_ns: t.busiest_ns,
            })
            .collect(),
        // The lower median of the work over the waiting part (an occurrence
        // with no waiting part left out), to two decimals.
        median_parallelism: {
            let mut p: Vec<f64> = traced
                .iter()
                .filter(|t| t.waiting_ns > 0)
                .map(|t| t.busy_ns as f64 / t.waiting_ns as f64)
                .collect();
            p.sort_by(f64::total_cmp);
            p.get(p.len().saturating_sub(1) / 2)
                .map_or(0.0, |v| (v * 100.0).round() / 100.0)
        },
    })
}

/// How a name runs across threads: the threads it ran on and how many ran
/// it at once at most.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Concurrency {
    /// Thread names with a call, by name.
    pub threads: Vec<String>,
    /// The most threads in a call of it at one time.
    pub max_threads_at_once: u32,
}

/// [`Concurrency`] of each of `names` in `trace` (one pass over the scopes,
/// then a sort of each name's calls), in the order of `names`.
pub fn concurrency(trace: &Trace, names: &[&str]) -> Vec<Concurrency> {
    let s = &trace.scopes;
    // Per definition, the index of its name in `names` (u32::MAX: not asked).
    let of_def = super::common::def_slots(trace, names);
    // Per name, (time, +1 start / -1 end, thread).
    let mut events: Vec<Vec<(i64, i8, StrId)>> = vec![Vec::new(); names.len()];
    for st in 0..trace.streams.len() as u32 {
        let thread = trace.threads.name[trace.streams.thread[st as usize].idx()];
        for i in trace.streams.scopes(StreamId(st)) {
            let k = of_def[s.def[i as usize].idx()];
            if k != u32::MAX {
                let e = &mut events[k as usize];
                e.push((s.start_ns[i as usize], 1, thread));
                e.push((s.end_ns(ScopeIdx(i)), -1, thread));
            }
        }
    }
    events
        .into_iter()
        .map(|mut e| {
            // Ends before starts at one time: back-to-back calls do not overlap.
            e.sort_unstable_by_key(|&(t, d, th)| (t, d, th.0));
            let mut active: FxHashMap<StrId, u32> = FxHashMap::default();
            let (mut at_once, mut most) = (0u32, 0u32);
            for &(_, d, th) in &e {
                let n = active.entry(th).or_default();
                if d > 0 {
                    if *n == 0 {
                        at_once += 1;
                    }
                    *n += 1;
                } else {
                    *n = n.saturating_sub(1);
                    if *n == 0 {
                        at_once = at_once.saturating_sub(1);
                    }
                }
                most = most.max(at_once);
            }
            let mut threads: Vec<String> =
                active.keys().map(|&t| trace.str(t).to_owned()).collect();
            threads.sort();
            Concurrency {
                threads,
                max_threads_at_once: most,
            }
        })
        .collect()
}
