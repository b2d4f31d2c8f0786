//! Waits compared across A and B: recurring gaps of A and B at one place
//! (thread, kind, parent path, neighbours: [`GapPlace`])
//! whose median moved, each with what it waits for on both sides
//! ([`super::super::waits`]) and attributed to the critical work's judged per-call
//! change: "main waits 0.99 ms longer in `jobs::run`: `job::cloth` is
//! 1.0 ms slower per call".

use super::super::common::{largest_first, lower_median};
use super::super::waits::{RecurringWaitsFor, WaitIndex, WaitParts};
use super::compare::Joined;
use super::judge::{Change, Kind, Noise};
use crate::engine::analyses::gaps::{GapKind, GapPlace, RecurringGap};
use crate::engine::model::{ScopeIdx, StrId, StreamId, Trace};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;
use std::collections::BTreeSet;

/// One scope on a grown wait's critical path and what its change explains.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WaitCause {
    pub name: String,
    /// Its judgement (the names' table).
    pub kind: Kind,
    /// The thread it was the last to finish on (the critical one).
    pub critical_thread: String,
    /// The threads that ran it during the waits, by name (in B).
    pub threads: Vec<String>,
    /// B − A of its median per call (the judged row's medians).
    pub per_call_delta_ns: f64,
    /// What it explains of the wait's growth: its per-call change, once per
    /// wait (it is on the critical path once).
    pub attributed_ns: f64,
}

/// A recurring gap with other threads working, matched in A and B, whose
/// median grew or shrank beyond the noise.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WaitChange {
    #[serde(flatten)]
    pub place: GapPlace,
    pub median_a_ns: i64,
    pub median_b_ns: i64,
    pub delta_median_ns: i64,
    pub a: RecurringWaitsFor,
    pub b: RecurringWaitsFor,
    /// B − A of each part's median.
    pub delta_dispatch_ns: i64,
    pub delta_waiting_ns: i64,
    pub delta_wake_ns: i64,
    /// The critical work's names that changed per call, largest first.
    pub causes: Vec<WaitCause>,
    /// The causes' `attributed_ns`, summed.
    pub attributed_ns: f64,
    /// Of `delta_median_ns`, in percent.
    pub attributed_pct: f64,
    /// The wait grew as its work overlapped less, work, threads and split
    /// held ([`decompose`]; [`parallelism_fell`] without it), no critical
    /// name slower: "ran less in parallel: 2.9 → 1.0 threads at once …". A
    /// capture cannot tell fewer free cores from a new lock (absent
    /// otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lost_parallelism: Option<String>,
    /// The waiting part's change decomposed by what time conserves
    /// ([`decompose`]): the work waited for, the threads it ran on, its
    /// split across them and their overlap; each part an effect with an
    /// interval. Empty when too few occurrences were traced.
    pub parts: Vec<WaitPart>,
    /// The work was split less evenly in B, and that is what grew the
    /// wait (the code's: the gate counts it): "split unevenly: `pool-2`
    /// did 58% of the work (34% in A; an even share 33%)" (absent
    /// otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uneven_split: Option<String>,
}

/// One part of a wait's change ([`decompose`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WaitPart {
    /// `work`, `threads`, `split` or `overlap`.
    pub part: &'static str,
    /// What it adds to the waiting part's mean, per occurrence (the parts
    /// sum to the waiting part's change).
    pub delta_ns: f64,
    pub ci_ns: [f64; 2],
    /// Its interval lies outside the band (the noise percentage of A's
    /// waiting part, at least the noise milliseconds).
    pub changed: bool,
    /// A's and B's figure: the work's mean (ns), the threads' mean, the
    /// busiest thread's share of the work (mean), the busiest thread's
    /// work over the waiting part (mean).
    pub a: f64,
    pub b: f64,
}

/// The waiting part's change split into work, threads, split and overlap,
/// each an effect in nanoseconds, the four summing to it. See
/// docs/statistics.md, section "What time conserves" ("A wait is the work
/// it waits for").
pub fn decompose(a: &RecurringWaitsFor, b: &RecurringWaitsFor, noise: &Noise) -> Vec<WaitPart> {
    use super::effect::{Series, Terms, estimate};
    type Of = fn(&WaitParts) -> f64;
    let usable = |w: &RecurringWaitsFor| -> Vec<WaitParts> {
        w.occurrences
            .iter()
            .copied()
            .filter(|o| o.waiting_ns > 0 && o.work_ns > 0 && o.threads > 0 && o.busiest_ns > 0)
            .collect()
    };
    let (oa, ob) = (usable(a), usable(b));
    if oa.is_empty() || ob.is_empty() {
        return Vec::new();
    }
    let parts: [(&'static str, Of, Of); 4] = [
        ("work", |o| o.work_ns as f64, |o| o.work_ns as f64),
        (
            "threads",
            |o| f64::from(o.threads),
            |o| f64::from(o.threads),
        ),
        (
            "split",
            |o| f64::from(o.threads) * o.busiest_ns as f64 / o.work_ns as f64,
            |o| o.busiest_ns as f64 / o.work_ns as f64,
        ),
        (
            "overlap",
            |o| o.waiting_ns as f64 / o.busiest_ns as f64,
            |o| o.busiest_ns as f64 / o.waiting_ns as f64,
        ),
    ];
    let mean = |o: &[WaitParts], f: &dyn Fn(&WaitParts) -> f64| {
        o.iter().map(f).sum::<f64>() / o.len().max(1) as f64
    };
    let wait = |o: &WaitParts| o.waiting_ns as f64;
    let (wa, wb) = (mean(&oa, &wait), mean(&ob, &wait));
    let ln = |x: f64| libm::log(x);
    let log_w = |o: &WaitParts| ln(o.waiting_ns as f64);
    let d_log = mean(&ob, &log_w) - mean(&oa, &log_w);
    let dw = wb - wa;
    // Nanoseconds per unit of log change.
    let scale = if d_log.abs() > 1e-9 && dw / d_log > 0.0 {
        dw / d_log
    } else {
        wa
    };
    let band_ns = super::effect::band_ns(wa, noise.pct, noise.ms);
    parts
        .iter()
        .map(|&(part, of, shown)| {
            let series = |o: &[WaitParts]| -> Vec<f64> { o.iter().map(|o| ln(of(o))).collect() };
            let (xa, xb) = (series(&oa), series(&ob));
            let sign = if part == "threads" { -1.0 } else { 1.0 };
            // A side's occurrences as one run.
            fn one_run(per_unit: &[f64]) -> Series<'_> {
                Series::new(per_unit, &[])
            }
            let mut e = estimate(&one_run(&xa), &one_run(&xb), &Terms::none(), 0.0, 0.0);
            e.delta_ns *= sign * scale;
            e.se_ns *= scale.abs();
            e.band_ns = band_ns;
            e.eq_alpha = noise.alpha;
            WaitPart {
                part,
                delta_ns: e.delta_ns,
                ci_ns: e.interval(noise.alpha),
                changed: e.verdict(noise.alpha) == super::effect::Verdict::Changed,
                a: mean(&oa, &shown),
                b: mean(&ob, &shown),
            }
        })
        .collect()
}

/// Whether the waits' parallelism fell from `a` to `b` (see
/// [`WaitChange::lost_parallelism`]).
pub fn parallelism_fell(a: f64, b: f64) -> bool {
    a >= 1.5 && b <= a - 0.5 && b <= 0.75 * a
}

/// The recurring gaps of A and B (with their `waits_for`) matched by place,
/// and the waits inside scopes ([`held_waits`]), whose median changed by at least the noise (its milliseconds and its
/// percentage of A's median), each attributed to the critical work's judged
/// per-call change (`names`, the names' table); largest |change| first,
/// ties by place.
pub fn wait_changes(
    traces: (&Trace, &Trace),
    a: &[RecurringGap],
    b: &[RecurringGap],
    names: &Joined,
    noise: &Noise,
) -> Vec<WaitChange> {
    // Each name's judged change.
    let changes: FxHashMap<&str, Change> = (names.pairs().iter())
        .map(|&p| (names.name(p), names.change(p)))
        .collect();
    let mut out: Vec<WaitChange> = Vec::new();
    // Matched by the place `gap_diff` judges gaps by.
    for (_, ga, gb) in super::gap_diff::match_recurring(a, b) {
        let (Some(ga), Some(gb)) = (ga, gb) else {
            continue;
        };
        // Traced in at least half the occurrences of each side: else what
        // ended in it is happenstance (a background thread's short scope).
        fn usual(g: &RecurringGap) -> Option<&RecurringWaitsFor> {
            g.waits_for
                .as_ref()
                .filter(|w| w.traced.saturating_mul(2) >= g.frames)
        }
        let (Some(wa), Some(wb)) = (usual(ga), usual(gb)) else {
            continue;
        };
        let threads_of = |name: &str| -> Vec<String> {
            let mut threads: Vec<String> = (gb.other_threads.iter())
                .filter(|o| o.scopes.iter().any(|s| s.name == name))
                .map(|o| o.thread.clone())
                .collect();
            threads.sort();
            threads
        };
        out.extend(judged_wait(
            &gb.place,
            (ga.median_ns, gb.median_ns),
            (wa, wb),
            &threads_of,
            &changes,
            noise,
        ));
    }
    out.extend(held_waits(traces.0, traces.1, &changes, noise));
    out.sort_by(|x, y| {
        y.delta_median_ns
            .unsigned_abs()
            .cmp(&x.delta_median_ns.unsigned_abs())
            .then_with(|| {
                let (p, q) = (&x.place, &y.place);
                (&p.thread, &p.path, p.kind, &p.after, &p.before)
                    .cmp(&(&q.thread, &q.path, q.kind, &q.after, &q.before))
            })
    });
    out
}

/// A wait at `place` matched in A and B (its medians, what it waits for on
/// each side), judged: `None` when its median moved less than the band;
/// else attributed to the critical work's judged per-call change
/// (`changes`; `threads_of` names the threads that ran a name in B's
/// waits) and decomposed ([`decompose`]).
fn judged_wait(
    place: &GapPlace,
    medians: (i64, i64),
    (wa, wb): (&RecurringWaitsFor, &RecurringWaitsFor),
    threads_of: &dyn Fn(&str) -> Vec<String>,
    changes: &FxHashMap<&str, Change>,
    noise: &Noise,
) -> Option<WaitChange> {
    let delta = medians.1.saturating_sub(medians.0);
    let band = super::effect::band_ns(medians.0 as f64, noise.pct, noise.ms);
    if (delta.unsigned_abs() as f64) < band {
        return None;
    }
    let mut causes: Vec<WaitCause> = Vec::new();
    // B's critical work, and A's when it is other work.
    let same = wa.critical.name == wb.critical.name;
    for crit in [&wb.critical]
        .into_iter()
        .chain((!same).then_some(&wa.critical))
    {
        let name = crit.name.as_str();
        let Some(c) = changes.get(name).filter(|c| c.kind.is_per_call()) else {
            continue;
        };
        let (Some(ma), Some(mb)) = (c.median_a_ns, c.median_b_ns) else {
            continue;
        };
        let d = (mb - ma) as f64;
        causes.push(WaitCause {
            name: name.to_owned(),
            kind: c.kind,
            critical_thread: crit.thread.clone(),
            threads: threads_of(name),
            per_call_delta_ns: d,
            attributed_ns: d,
        });
    }
    largest_first(&mut causes, |c| (c.attributed_ns, &c.name));
    let attributed: f64 = causes.iter().map(|c| c.attributed_ns).sum();
    let (pa, pb) = (wa.median_parallelism, wb.median_parallelism);
    let parts = decompose(wa, wb, noise);
    let part = |name: &str| parts.iter().find(|p| p.part == name);
    let grew = |name: &str| part(name).is_some_and(|p| p.changed && p.delta_ns > 0.0);
    // The work split less evenly: the code's (the gate counts it).
    let uneven_split = (delta > 0 && grew("split")).then(|| {
        let (sa, sb) = part("split").map_or((0.0, 0.0), |p| (100.0 * p.a, 100.0 * p.b));
        let n = part("threads").map_or(0.0, |t| t.b.max(1.0));
        format!(
            "split unevenly: the busiest thread ({}) did {sb:.0}% of the work it waits for \
             (A: {sa:.0}%; an even share {:.0}%), the work itself {}",
            crate::engine::write::escape::markdown_code(&wb.busiest_thread),
            100.0 / n,
            if grew("work") { "grown too" } else { "held" }
        )
    });
    // Less overlap alone, the work and its split held: a condition of
    // the run (fewer free cores, or a lock), not told apart.
    let overlap_only = if parts.is_empty() {
        parallelism_fell(pa, pb)
    } else {
        grew("overlap") && !grew("split") && !grew("work") && !grew("threads")
    };
    let lost_parallelism = (delta > 0 && causes.is_empty() && overlap_only).then(|| {
        format!(
            "ran less in parallel: {pa:.1} → {pb:.1} threads at once while the work it waits \
             for held, per call, in total and in its split (fewer free cores, or a lock: a \
             capture cannot tell which)"
        )
    });
    Some(WaitChange {
        place: place.clone(),
        median_a_ns: medians.0,
        median_b_ns: medians.1,
        delta_median_ns: delta,
        delta_dispatch_ns: wb.median_dispatch_ns - wa.median_dispatch_ns,
        delta_waiting_ns: wb.median_waiting_ns - wa.median_waiting_ns,
        delta_wake_ns: wb.median_wake_ns - wa.median_wake_ns,
        a: wa.clone(),
        b: wb.clone(),
        causes,
        attributed_ns: attributed,
        // (+ 0.0: no "-0" when nothing is attributed.)
        attributed_pct: super::super::common::pct(attributed, delta as f64) + 0.0,
        lost_parallelism,
        parts,
        uneven_split,
    })
}

/// Waits inside a scope: a name judged changed that has no child where a
/// thread that drives frames calls it, whose calls other threads' work
/// ends inside, and that end once no other thread works any more (a
/// join, a barrier, a blocking receive; a scope doing its own work beside
/// busy workers ends while some are still busy). In at least half its
/// calls on each side (as a gap's wait), and its change carried by the
/// waiting part (its dispatch and wake-up parts held): its time is the
/// work it waits for, judged as a gap's wait is ([`judged_wait`]), at the
/// place `GapKind::Whole` of the scope itself.
fn held_waits(
    a: &Trace,
    b: &Trace,
    changes: &FxHashMap<&str, Change>,
    noise: &Noise,
) -> Vec<WaitChange> {
    let mut candidates: Vec<&str> = (changes.iter())
        .filter(|(_, c)| c.kind.is_change() && !matches!(c.kind, Kind::New | Kind::Gone))
        .map(|(n, _)| *n)
        .collect();
    candidates.sort_unstable();
    if candidates.is_empty() {
        return Vec::new();
    }
    // Per (thread, candidate): its calls' windows, whether every call is
    // a leaf, and its first call (for its path).
    type Calls = (Vec<(i64, i64)>, bool, ScopeIdx);
    let calls = |t: &Trace| -> FxHashMap<(StrId, usize), Calls> {
        let roles = super::super::gaps::ThreadRoles::of(t);
        // Each definition's candidate, looked up once a definition (not a
        // string search a scope).
        let of_def: Vec<Option<usize>> = (t.defs.name.iter())
            .map(|&n| candidates.binary_search(&t.str(n)).ok())
            .collect();
        let mut out: FxHashMap<_, Calls> = FxHashMap::default();
        for st in 0..t.streams.len() as u32 {
            if roles.runs_tasks(StreamId(st)) {
                continue;
            }
            let thread = t.threads.name[t.streams.thread[st as usize].idx()];
            for i in t.streams.scopes(StreamId(st)) {
                let Some(k) = of_def[t.scopes.def[i as usize].idx()] else {
                    continue;
                };
                let s = &t.scopes;
                let e = out
                    .entry((thread, k))
                    .or_insert((Vec::new(), true, ScopeIdx(i)));
                e.0.push((s.start_ns[i as usize], s.end_ns(ScopeIdx(i))));
                e.1 &= s.subtree_end[i as usize] <= i + 1;
            }
        }
        out
    };
    let (ca, cb) = (calls(a), calls(b));
    // Each (thread, candidate) both sides call as a leaf, its ids and calls.
    let mut keys: Vec<_> = (ca.iter())
        .filter_map(|(&(ta, k), xa)| {
            let thread = a.str(ta);
            let tb = b.strings.find(thread)?;
            let xb = cb.get(&(tb, k)).filter(|xb| xa.1 && xb.1)?;
            Some(((thread, k), (ta, tb), (xa, xb)))
        })
        .collect();
    if keys.is_empty() {
        return Vec::new();
    }
    keys.sort_unstable_by_key(|x| x.0);
    let (ia, ib) = (WaitIndex::of(a), WaitIndex::of(b));
    // The calls that are waits, and what they wait for (`None` in fewer
    // than half the calls).
    let waits = |t: &Trace, index: &WaitIndex, thread, windows: &[(i64, i64)]| {
        let held: Vec<(i64, i64)> = (windows.iter().copied())
            .filter(|&(s, e)| index.trace(thread, s, e).is_some() && !index.busy_at(thread, e))
            .collect();
        if held.len() * 2 < windows.len() {
            return None;
        }
        super::super::waits::recurring(t, index, thread, &held).map(|w| (w, held))
    };
    let median =
        |w: &[(i64, i64)]| lower_median(&mut w.iter().map(|(s, e)| e - s).collect::<Vec<_>>());
    let mut out = Vec::new();
    for ((thread, _), (ta, tb), (xa, xb)) in keys {
        let (Some((wa, _)), Some((wb, held_b))) =
            (waits(a, &ia, ta, &xa.0), waits(b, &ib, tb, &xb.0))
        else {
            continue;
        };
        // The scope's time is its dispatch, waiting and wake-up parts: its
        // change is the wait's only when the waiting part carries it (a
        // scope that works on after the others went idle grew its wake-up
        // part, its own work).
        let medians = (median(&xa.0), median(&xb.0));
        let band = super::effect::band_ns(medians.0 as f64, noise.pct, noise.ms);
        let around = (wb.median_dispatch_ns - wa.median_dispatch_ns)
            + (wb.median_wake_ns - wa.median_wake_ns);
        if around.unsigned_abs() as f64 >= band {
            continue;
        }
        let place = GapPlace::of(
            b,
            thread.to_owned(),
            GapKind::Whole,
            [Some(xb.2), None, None],
        );
        let threads_of = |name: &str| ib.threads_running(b, tb, name, &held_b);
        out.extend(judged_wait(
            &place,
            medians,
            (&wa, &wb),
            &threads_of,
            changes,
            noise,
        ));
    }
    out
}

/// With a frame-driving thread (`thread`) that waits for other threads'
/// work in either recording: the names that never run on it and are the
/// critical work (the last to finish) of no wait that moved: their time
/// does not reach the frame. A wait reaches the frame by its own length,
/// so a worker's slowdown counts only through a wait that grew or shrank
/// (`moved`: [`wait_changes`]) or one that a side only has; another
/// worker's slowdown that still finishes first leaves the wait as it was.
/// Empty without such waits (a worker-driven recording is gated on all
/// its threads' time). Sorted.
pub fn off_critical_path_names(
    a: &Trace,
    b: &Trace,
    thread: &str,
    gaps: (&[RecurringGap], &[RecurringGap]),
    moved: &[WaitChange],
) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    // Waits inside scopes are found where they moved only.
    let held =
        || (moved.iter()).filter(|w| w.place.thread == thread && w.place.kind == GapKind::Whole);
    let any_wait = gaps
        .0
        .iter()
        .chain(gaps.1)
        .any(|g| g.place.thread == thread && g.waits_for.is_some());
    if !any_wait && held().next().is_none() {
        return out;
    }
    let mut critical: FxHashSet<&str> = (held())
        .flat_map(|w| [w.a.critical.name.as_str(), w.b.critical.name.as_str()])
        .collect();
    for (place, ga, gb) in super::gap_diff::match_recurring(gaps.0, gaps.1) {
        let held = ga.is_some() && gb.is_some() && !moved.iter().any(|w| w.place == place);
        if place.thread != thread || held {
            continue;
        }
        for w in [ga, gb].into_iter().flatten().flat_map(|g| &g.waits_for) {
            critical.insert(w.critical.name.as_str());
        }
    }
    // Every name called on the frame thread (a wrapper's own time may be
    // nothing: it is on the thread all the same).
    let called_on = |t: &Trace| -> Vec<String> {
        let names = super::super::common::called_names(t, Some(thread));
        names.into_iter().map(|n| t.str(n).to_owned()).collect()
    };
    let on_thread: FxHashSet<String> = called_on(a).into_iter().chain(called_on(b)).collect();
    for t in [a, b] {
        for d in 0..t.defs.len() {
            let n = t.str(t.defs.name[d]);
            if !on_thread.contains(n) && !critical.contains(n) {
                out.insert(n.to_owned());
            }
        }
    }
    out
}
